"""The Translate view's widgets and layout (render only: the tab wires them to the controller).

Top to bottom: choices (direction, scorer, beam, speed) with the examples, history and export
menus and the length study button; the input line with Translate and the pause / step / stop
buttons; a hint line (empty input, truncation, load errors) and the language notice (an input in
another language than the model's: gui/translate/language_notice.py); the line naming the input's
words the model never saw in training (gui/translate/unseen_words.py); the source tokens and the
output tokens; the badge naming a run's earlier weights while they decode, with Back
(gui/common/model_on_screen.py); the attention panel.
With no model at all an empty state replaces the workspace and offers to train the dates task.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt, Signal
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gui.attention.export import EXPORT_KINDS
from gui.attention.panel import AttentionPanel
from gui.common.menu_button import menu_button
from gui.common.model_on_screen import PastBadge
from gui.translate.controls import ChoiceBar, TransportBar
from gui.translate.language_notice import LanguageNotice
from gui.translate.tokens import TokenStrip
from gui.translate.unloaded import UnloadedModels
from gui.translate.unseen_words import UnseenWordsLine
from gui.translate.whatif_bar import WhatIfBar

ERROR_STYLE = "color: #b00020; font-weight: bold;"
NOTICE_STYLE = "color: #a05a00;"
EMPTY_STATE_TEXT = QT_TRANSLATE_NOOP(
    "TranslateView",
    "<h2>No translation model yet</h2>"
    "<p>Attention Studio needs a trained model to translate. The quickest start is the built-in "
    "<b>dates</b> task: it turns dates written in many English and Chinese styles "
    "(“29 Nov 2026”, “二〇二六年十一月二十九日”) into ISO 8601 (“2026-11-29”). It trains in a few "
    "minutes on a CPU and shows crisp, readable attention.</p>"
)


class TranslateView(QWidget):
    """All widgets of the Translate tab."""

    exportRequested = Signal(str)  # export kind: png, svg, csv, json, or a recording: gif, mp4, session
    sessionOpenRequested = Signal()  # replay a recorded decode from its session file
    trainRequested = Signal()  # the empty state's "train the dates task"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.choice_bar = ChoiceBar()
        self.unloaded_models = UnloadedModels()  # the model folders that could not be used, with each reason
        self.examples_button, self.examples_menu = menu_button(self.tr("Examples"), self.tr("Example sentences"),
                                                               "examplesButton")
        self.history_button, self.history_menu = menu_button(
            self.tr("History"), self.tr("Sentences translated in this session"), "historyButton")
        self.export_button, self.export_menu = menu_button(
            self.tr("Export"), self.tr("Save the heatmap or the matrix"), "exportButton")
        self.length_study_button = QToolButton()
        self.length_study_button.setObjectName("lengthStudyButton")
        self.length_study_button.setText(self.tr("Length study"))
        self.length_study_button.setToolTip(self.tr("BLEU against source length for every scorer of this direction, "
                                                    "from the studies stored with the models (Bahdanau et al. 2014, "
                                                    "Fig. 2)"))
        self.length_study_button.setEnabled(False)  # until the catalog lists a direction
        self.beam_tree_button = QToolButton()
        self.beam_tree_button.setObjectName("beamTreeButton")
        self.beam_tree_button.setText(self.tr("Beam tree"))
        self.beam_tree_button.setToolTip(self.tr("The beam search of this sentence as a tree, growing live (beam 2 or "
                                                 "more)"))
        self.layers_button = QToolButton()  # a Transformer's layers and heads (gui/translate/model_view_link.py)
        self.layers_button.setObjectName("layersButton")
        self.layers_button.setText(self.tr("Layers…"))
        self.compare_button = QToolButton()
        self.compare_button.setObjectName("compareScorersButton")
        self.compare_button.setText(self.tr("Compare scorers"))
        self.compare_button.setToolTip(self.tr("Decode this sentence with every scorer of this direction at once, "
                                               "side by side (the Compare tab)"))
        for kind, spec in EXPORT_KINDS.items():
            self.export_menu.addAction(spec.title).triggered.connect(
                lambda _checked=False, kind=kind: self.exportRequested.emit(kind))
        self.export_menu.addSeparator()
        self.export_menu.addAction(self.tr("Open a recorded session…")).triggered.connect(self.sessionOpenRequested)
        self.source_input = QLineEdit()
        self.source_input.setObjectName("sourceInput")
        self.source_input.setPlaceholderText(self.tr("Type a sentence and press Enter"))
        self.source_input.setClearButtonEnabled(True)
        self.translate_button = QPushButton(self.tr("Translate"))
        self.translate_button.setObjectName("translateButton")
        self.translate_button.setDefault(True)
        self.transport = TransportBar()
        self.hint_label = QLabel()
        self.hint_label.setObjectName("inputHint")
        self.hint_label.setWordWrap(True)
        self.error_label = QLabel()
        self.error_label.setObjectName("modelErrorLabel")
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet(ERROR_STYLE)
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_label.hide()
        self.language_notice = LanguageNotice()
        self.unseen_line = UnseenWordsLine()  # "never seen in training: …"
        self.source_tokens = TokenStrip(lines=2)
        self.source_tokens.setObjectName("sourceTokens")
        self.source_tokens.setToolTip(self.tr("The source as the model sees it: one tint per sub-word token"))
        self.target_output = TokenStrip(lines=2)
        self.target_output.setObjectName("targetOutput")
        self.target_output.setToolTip(self.tr("The translation, token by token: hover a token for its alternatives"))
        self.whatif_bar = WhatIfBar()
        self.past_badge = PastBadge("translate")  # a run's earlier weights decoding, with Back (over the map)
        self.attention_panel = AttentionPanel()
        self.attention_panel.add_map_tool(self.layers_button)  # beside the head chooser: the map's other views
        self.empty_state = self._build_empty_state()
        self.stack = QStackedWidget()
        self.stack.addWidget(self._build_workspace())
        self.stack.addWidget(self.empty_state)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.stack)

    def _build_workspace(self) -> QWidget:
        page = QWidget()
        top = QHBoxLayout()
        top.addWidget(self.choice_bar, 1)
        top.addWidget(self.unloaded_models)
        for button in (self.examples_button, self.history_button, self.export_button, self.length_study_button):
            top.addWidget(button)
        entry = QHBoxLayout()  # the sentence, and the three ways to decode it: one model, its beam, every scorer
        entry.addWidget(self.source_input, 1)
        entry.addWidget(self.translate_button)
        entry.addWidget(self.transport)
        entry.addSpacing(6)
        entry.addWidget(self.beam_tree_button)
        entry.addWidget(self.compare_button)
        tokens = QFormLayout()
        tokens.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        tokens.addRow(self.tr("Source tokens"), self.source_tokens)
        tokens.addRow(self.tr("Output"), self.target_output)
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addLayout(entry)
        layout.addWidget(self.hint_label)
        layout.addWidget(self.language_notice)
        layout.addWidget(self.error_label)
        layout.addWidget(self.unseen_line)
        layout.addLayout(tokens)
        layout.addWidget(self.whatif_bar)
        layout.addWidget(self.past_badge)
        # The map, and under it the beam tree once opened (gui/translate/beam_dialog.py): a splitter, so that
        # the tree takes the map's height, never the window's.
        self.map_splitter = QSplitter(Qt.Orientation.Vertical)
        self.map_splitter.setObjectName("mapSplitter")
        self.map_splitter.setChildrenCollapsible(False)
        self.map_splitter.addWidget(self.attention_panel)
        layout.addWidget(self.map_splitter, 1)
        return page

    def _build_empty_state(self) -> QWidget:
        page = QWidget()
        page.setObjectName("emptyState")
        text = QLabel(self.tr(EMPTY_STATE_TEXT))
        text.setWordWrap(True)
        text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        text.setFixedWidth(560)
        self.train_dates_button = QPushButton(self.tr("Train the dates task…"))
        self.train_dates_button.setObjectName("trainDatesButton")
        self.train_dates_button.clicked.connect(self.trainRequested)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(text)
        row.addStretch(1)
        layout = QVBoxLayout(page)
        layout.addStretch(1)
        layout.addLayout(row)
        layout.addWidget(self.train_dates_button, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addStretch(2)
        return page

    def dock_beam_tree(self, pane: QWidget) -> None:
        """Put the beam tree ``pane`` under the map (once), two fifths of the map's height."""
        if self.map_splitter.indexOf(pane) < 0:
            self.map_splitter.addWidget(pane)
            total = max(self.map_splitter.height(), 300)
            self.map_splitter.setSizes([total * 3 // 5, total * 2 // 5])

    # -- small render helpers ---------------------------------------------------------------
    def show_empty_state(self, empty: bool) -> None:
        self.stack.setCurrentIndex(1 if empty else 0)

    def is_empty_state(self) -> bool:
        return self.stack.currentIndex() == 1

    def show_hint(self, text: str, notice: bool = False) -> None:
        self.hint_label.setStyleSheet(NOTICE_STYLE if notice else "")
        self.hint_label.setText(text)
        self.hint_label.setVisible(bool(text))

    def highlight_cell(self, row: int, column: int) -> None:
        """A map cell hovered: its source token and its output token highlighted (-1: none)."""
        self.source_tokens.highlight(column)
        self.target_output.highlight(row)

    def show_error(self, text: str) -> None:
        self.error_label.setText(text)
        self.error_label.setVisible(bool(text))
