"""Back through training from the curves: a click on any plot of the Train tab names a step of the run
shown, and the Translate view loads that run's weights nearest the step (gui.common.past).

The plots share their x axis: steps, elapsed training seconds or target tokens trained on, which
:func:`step_at` maps back to the step the run had reached then (through its recorded steps). A click is a left click inside a
plot's data area that is not a drag; pyqtgraph's panning and zooming keep working.
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QObject, Qt, Signal

from gui.training.records import RunRecord

CLICK_TIP = QT_TRANSLATE_NOOP("CurveClicks", "Click a point of a curve to translate with the model as it was at that "
                              "step (the run's nearest validation snapshot, or its saved model), read-only")


def step_at(record: RunRecord, x: float, x_mode: str) -> float | None:
    """The training step at ``x`` on the curves' x axis (``x_mode`` "step", "elapsed" or
    "target_tokens"); None when the run has no steps yet (none that counted its tokens, on that axis)
    or ``x`` is not a number."""
    if not math.isfinite(x):
        return None
    steps = record.columns["step"].view()
    if not len(steps):
        return None
    if x_mode not in ("elapsed", "target_tokens"):
        return float(max(x, 0.0))
    along = record.columns["elapsed" if x_mode == "elapsed" else "target_tokens"].view()
    known = np.isfinite(along)
    if not known.any():
        return None
    return float(np.interp(x, along[known], steps[known]))


class CurveClicks(QObject):
    """Reports left clicks in the data area of every plot of a widget (the curves view)."""

    clicked = Signal(float)  # the x of the click, on the plots' shared axis

    def __init__(self, curves: QObject) -> None:
        super().__init__(curves)
        self.plots = curves.findChildren(pg.PlotWidget)
        for plot in self.plots:
            plot.scene().sigMouseClicked.connect(partial(self._on_click, plot))
            plot.setToolTip(self.tr(CLICK_TIP))

    def _on_click(self, plot: pg.PlotWidget, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton or event.double():
            return
        view = plot.getPlotItem().getViewBox()
        if not view.sceneBoundingRect().contains(event.scenePos()):
            return
        self.clicked.emit(float(view.mapSceneToView(event.scenePos()).x()))
