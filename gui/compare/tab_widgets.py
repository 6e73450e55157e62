"""The Compare tab's widgets and their places (render only: gui/compare/tab.py wires them).

Top: direction, the sentence, Compare, examples; then the reference, the target the maps share, the
map view (words or pieces, colour scale) and Export. Middle: the grid of panels (one per mechanism,
placed by gui/compare/layout.plan_grid), the difference map, and the cell the fixed-context panel
shares with the step inspector and the aligner's map. Bottom: the status line. Every objectName
listed in gui/compare/tab.py is set here.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from gui.attention.inspector import StepInspector
from gui.attention.view_bar import MapViewBar
from gui.common.directions import label_of_direction
from gui.common.fit_scroll import FitScrollArea
from gui.common.menu_button import menu_button
from gui.common.model_on_screen import PastBadge
from gui.compare.aligner_map import AlignerPanel
from gui.compare.decisions import direction_choices, kept_target, shared_target_offer
from gui.compare.difference import DifferencePanel
from gui.compare.layout import DIFFERENCE, INSPECTOR, GridPlan
from gui.compare.model import REFERENCE
from gui.compare.panel import ScorerPanel

INSPECTOR_HINT = QT_TRANSLATE_NOOP("CompareWidgets", "Step inspector: hover a map row or an output token of any scorer "
                                   "to see that step's scores e_ij and weights α_ij.")


class _MinimumCell(QSplitter):
    """A grid cell laid out at its minimum height, never at a height for its width: one such cell put the
    whole grid in that mode, which shrank every row below its map panels' minimum (the maps under the
    next row) instead of letting the grid scroll."""

    def hasHeightForWidth(self) -> bool:  # noqa: N802 (Qt's name)
        return False


class CompareWidgets(QWidget):
    """Every widget of the Compare tab but the panels, which come and go with the direction."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("compareTab")
        layout = QVBoxLayout(self)
        top = QHBoxLayout()
        self.direction_combo = QComboBox()
        self.direction_combo.setObjectName("compareDirectionCombo")
        self.direction_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)  # "Dates → ISO 8601"
        top.addWidget(self.direction_combo)
        self.input = QLineEdit()
        self.input.setObjectName("compareInput")
        self.input.setPlaceholderText(self.tr("A sentence to translate with every scorer at once — press Enter"))
        top.addWidget(self.input, 1)
        self.compare_button = QPushButton(self.tr("Compare"))
        self.compare_button.setObjectName("compareButton")
        top.addWidget(self.compare_button)
        self.examples_button, self.examples_menu = menu_button(
            self.tr("Examples"), self.tr("Example sentences with their reference translations"), "compareExamplesButton")
        top.addWidget(self.examples_button)
        layout.addLayout(top)
        second = QHBoxLayout()
        self.reference = QLineEdit()
        self.reference.setObjectName("compareReferenceInput")
        self.reference.setPlaceholderText(self.tr("Reference translation (optional): sentence BLEU and chrF per scorer, "
                                                  "and a target every model can be scored on"))
        second.addWidget(self.reference, 1)
        second.addWidget(QLabel(self.tr("Maps show:")))
        self.target_combo = QComboBox()
        self.target_combo.setObjectName("compareTargetCombo")
        # Sized by its items whenever they change: first shown while the models load, it was empty
        # then, and kept the width of an empty box ("The refe").
        self.target_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        second.addWidget(self.target_combo)
        self.view_bar = MapViewBar("compare")  # words or pieces, and the colour scale, for every map
        second.addWidget(self.view_bar)
        self.export_button, self.export_menu = menu_button(
            self.tr("Export"), self.tr("Save the grid as one image, or every matrix as JSON"), "compareExportButton")
        second.addWidget(self.export_button)
        layout.addLayout(second)
        self.grid = QWidget()
        self.grid.setObjectName("compareGrid")
        self.grid_layout = QGridLayout(self.grid)
        self.grid_layout.setContentsMargins(0, 0, 0, 0)
        # More mechanisms than the screen has room for: the grid scrolls, the window never grows past the screen.
        self.grid_scroll = FitScrollArea(self.grid)
        self.grid_scroll.setObjectName("compareGridScroll")
        # A run's earlier weights backing a panel: named over the maps, with Back (gui/common/model_on_screen.py).
        self.past_badge = PastBadge("compare")
        self.back_button = self.past_badge.back_button
        layout.addWidget(self.past_badge)
        layout.addWidget(self.grid_scroll, 1)
        self.difference = DifferencePanel()
        self.inspector = StepInspector(choosable=False, compact=True,
                                       hint=QCoreApplication.translate("CompareWidgets", INSPECTOR_HINT))
        self.inspector.setObjectName("compareInspector")
        # The fixed-context panel has no map: it shares its grid cell with the step inspector.
        self.inspector_cell = _MinimumCell(Qt.Orientation.Vertical)
        self.inspector_cell.setChildrenCollapsible(False)
        # The step inspector and the aligner's map take turns in one place (stacked, the two needed more
        # height than a 1280×800 screen leaves the grid): the aligner's map comes forward when it is
        # drawn, the inspector when a step is hovered.
        self.aligner = AlignerPanel()  # the word aligner's links on the shared target, beside the maps
        self.inspector_tabs = QTabWidget()
        self.inspector_tabs.setObjectName("compareInspectorTabs")
        self.inspector_tabs.setDocumentMode(True)
        self.inspector_tabs.addTab(self.inspector, self.tr("Step inspector"))
        self.inspector_tabs.addTab(self.aligner, self.tr("Aligner"))
        self.inspector_cell.addWidget(self.inspector_tabs)
        self.inspector_cell.setStretchFactor(0, 1)
        self.status = QLabel(self.tr("Looking for models…"))
        self.status.setObjectName("compareStatus")
        self.training_note = QLabel()  # how the panels' models were trained, when not alike (tooltip: in full)
        self.training_note.setObjectName("compareTrainingNote")
        self.training_note.setStyleSheet("color: #b35900;")
        self.training_note.setWordWrap(True)  # it names every group's models: on one line it widened the window
        status_row = QHBoxLayout()
        status_row.addWidget(self.status, 1)
        status_row.addWidget(self.training_note, 2)
        layout.addLayout(status_row)

    def show_training_note(self, short: str, whole: str) -> None:
        """Say that the panels' models were not trained alike (``short`` shown, ``whole`` as its tooltip);
        "" hides it."""
        self.training_note.setText(short)
        self.training_note.setToolTip(whole)
        self.training_note.setVisible(bool(short))

    def show_targets(self, choices: Sequence[tuple[str, str]]) -> None:
        """Offer the (key, text) targets under *Maps show* (without a signal), the one chosen kept while offered."""
        current = self.target_combo.currentData()
        self.target_combo.blockSignals(True)
        self.target_combo.clear()
        for key, text in choices:
            self.target_combo.addItem(text, key)
        self.target_combo.setCurrentIndex(max(0, self.target_combo.findData(kept_target([k for k, _t in choices], current))))
        self.target_combo.blockSignals(False)

    def select_target(self, key: str) -> bool:
        """Choose ``key`` under *Maps show* (without a signal); False when it is not offered."""
        index = self.target_combo.findData(key)
        if index >= 0:
            self.target_combo.setCurrentIndex(index)
        return index >= 0

    def show_aligner_map(self, found) -> None:
        """The aligner's map of the shared target (None: no shared target) — brought forward when drawn."""
        self.aligner.show_map(found)
        if found is not None:
            self.inspector_tabs.setCurrentWidget(self.aligner)

    def shared_target_offer(self, first: ScorerPanel | None, busy: bool) -> tuple[str, str] | None:
        """The shared target the difference panel offers once a run is over: the reference when
        there is one, else the first scorer's own output (None while a run is under way)."""
        offered = [self.target_combo.itemData(i) for i in range(self.target_combo.count())]
        key = shared_target_offer(offered, first.slot.scorer if first is not None else None,
                                  bool(first is not None and first.target_tokens), busy)
        if key is None or first is None:
            return None
        if key == REFERENCE:
            return REFERENCE, QCoreApplication.translate("CompareTab", "Force the reference on every model")
        return key, QCoreApplication.translate("CompareTab", "Force the %1 output on every model").replace(
            "%1", first.slot.label)

    def show_past(self, label: str) -> None:
        """Say which earlier weights back a panel (``label``), with the way back; "" hides both."""
        self.past_badge.show_past(label)

    def place_panels(self, panels: dict[str, ScorerPanel], plan: GridPlan) -> None:
        """Put ``panels`` in the grid as ``plan`` says (the one without a map shares the inspector's
        cell), then the inspector's cell and the difference map."""
        while self.grid_layout.count():
            self.grid_layout.takeAt(0)  # the difference and the inspector's cell stay; panels go below
        for scorer, panel in panels.items():
            if scorer != plan.shared:
                self.grid_layout.addWidget(panel, *plan.cells[scorer])
            else:  # the fixed-context panel has no map: it shares its cell with the step inspector
                self.inspector_cell.insertWidget(0, panel)
                self.inspector_cell.setStretchFactor(0, 0)
                self.inspector_cell.setStretchFactor(1, 1)
        self.grid_layout.addWidget(self.inspector_cell, *plan.cells[INSPECTOR])
        self.grid_layout.addWidget(self.difference, *plan.cells[DIFFERENCE], 1, plan.difference_span)
        for column in range(self.grid_layout.columnCount()):  # columns share the width alike: every map as wide
            self.grid_layout.setColumnStretch(column, 1 if column < plan.columns else 0)
        for row in range(self.grid_layout.rowCount()):  # a row never below its map panels (the grid scrolls):
            tallest = max((panel.minimumHeight() for scorer, panel in panels.items()  # the grid's heights for
                           if scorer != plan.shared and plan.cells[scorer][0] == row), default=0)  # width shrank them
            self.grid_layout.setRowMinimumHeight(row, tallest)

    def show_directions(self, directions: Sequence[str], current: str) -> None:
        """The direction box's choices (``"zh-en"`` shown as "Chinese → English"), ``current`` chosen and
        listed even when no model of the catalog has it (a run's earlier weights), without a signal."""
        self.direction_combo.blockSignals(True)
        self.direction_combo.clear()
        for direction in direction_choices(directions, current):  # the shown one too
            self.direction_combo.addItem(label_of_direction(direction), direction)
        self.direction_combo.setCurrentIndex(max(0, self.direction_combo.findData(current)))
        self.direction_combo.blockSignals(False)
