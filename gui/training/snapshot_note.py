"""The Train form's line under *Keep snapshots*: what the run's kept weight snapshots will take on disk.

It follows every row of the form (model shape, vocabularies, direction, the count kept) and is worked
out after a short pause (engine.training.snapshot_disk: the model's weights counted, 7–50 ms once per
shape), e.g. "≤ 12 × 10 MB = 121 MB on disk (float16)"; with one run per scorer, per run (the first's).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QAbstractSpinBox, QCheckBox, QComboBox, QFormLayout, QLabel, QWidget

from engine.settings import ConfigError
from engine.training import megabytes, snapshot_cost

if TYPE_CHECKING:
    from gui.training.form import TrainingForm

PAUSE_MS = 150


class SnapshotCostNote(QLabel):
    """The disk cost of the snapshots the form's run would keep (objectName ``trainSnapshotCost``)."""

    def __init__(self, form: TrainingForm, keep: QAbstractSpinBox, layout: QFormLayout) -> None:
        super().__init__()
        self.setObjectName("trainSnapshotCost")
        self.setWordWrap(True)
        self.setToolTip(self.tr("At most this much disk in the run's checkpoint folder: one float16 copy of every "
                                "weight per kept validation. A small corpus may shrink the vocabularies, and the "
                                "model with them"))
        self._form, self._keep = form, keep
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(PAUSE_MS)
        self._timer.timeout.connect(self.refresh)
        layout.insertRow(_row_of(layout, keep) + 1, "", self)
        for widget in form.findChildren(QWidget):
            signal = _change_signal(widget)
            if signal is not None:
                signal.connect(lambda *_: self._timer.start())
        self.refresh()

    def refresh(self) -> None:
        """Work the cost out now."""
        keep = int(self._keep.value())
        if keep == 0:
            self.setText(self.tr("No snapshots: a click on a training curve goes to the saved model only."))
            return
        try:
            runs = self._form.settings()  # one per scorer for "All N": the scorers' sizes differ little
            cost = snapshot_cost(runs[0].model, *runs[0].vocabularies.resolved(runs[0].corpus), keep)
        except (ConfigError, ValueError):
            self.setText("")
            return
        text = self.tr("≤ {count} × {one} = {total} on disk (float16)").format(
            count=keep, one=megabytes(cost.snapshot_bytes), total=megabytes(cost.total_bytes))
        self.setText(text + (self.tr(", per run") if len(runs) > 1 else ""))


def _row_of(layout: QFormLayout, widget: QWidget) -> int:
    row, _role = layout.getWidgetPosition(widget)
    return row if row >= 0 else layout.rowCount() - 1


def _change_signal(widget: QWidget):
    if isinstance(widget, QCheckBox):
        return widget.toggled
    if isinstance(widget, QComboBox):
        return widget.currentIndexChanged
    if isinstance(widget, QAbstractSpinBox) and hasattr(widget, "valueChanged"):
        return widget.valueChanged
    return None
