"""The plot items of the training curves: one run's curves (:class:`RunCurves`) and the bottom axis
that reads steps or elapsed time (:class:`TimeOrStepAxis`). The view that owns them is
gui/training/curves.py."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyqtgraph as pg
from PySide6.QtCore import Qt

from gui.common.plotstyle import faded
from gui.training.records import RunRecord

if TYPE_CHECKING:
    from gui.training.curves import CurvesView


class TimeOrStepAxis(pg.AxisItem):
    """A bottom axis that writes seconds as m:ss (or h:mm:ss) in time mode and token counts as
    "10 M" or "500 k" in tokens mode (steps as pyqtgraph does)."""

    def __init__(self) -> None:
        super().__init__("bottom")
        self.time_mode = False
        self.tokens_mode = False

    def tickStrings(self, values, scale, spacing):  # noqa: N802 - pyqtgraph override
        if self.tokens_mode:
            return [token_tick(value * scale, spacing * scale) for value in values]
        if not self.time_mode:
            return super().tickStrings(values, scale, spacing)
        labels = []
        for value in values:
            seconds = int(round(value * scale))
            hours, rest = divmod(abs(seconds), 3600)
            minutes, secs = divmod(rest, 60)
            labels.append(f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}")
        return labels


def token_tick(value: float, spacing: float) -> str:
    """A token count on the axis, in the unit its tick spacing calls for: "12.5 M", "500 k", "40"."""
    for unit, name in ((1e6, " M"), (1e3, " k")):
        if spacing >= unit / 10 and abs(value) >= unit or spacing >= unit:
            return f"{value / unit:g}{name}"
    return f"{value:g}"


class RunCurves:
    """The plot items of one run. The loss plot's are made at once; the BLEU, learning-rate and
    speed plots' items in those plots' first turns (:meth:`later_item`), one plot a turn."""

    def __init__(self, view: CurvesView, record: RunRecord) -> None:
        self.view, self.colour = view, record.colour
        self.raw = view.loss_plot.plot(pen=pg.mkPen(faded(self.colour, 70), width=1), **_LINE)
        self.smoothed = view.loss_plot.plot(pen=pg.mkPen(self.colour, width=1), name=record.name, **_LINE)
        dashed = pg.mkPen(self.colour, width=1.5, style=Qt.PenStyle.DashLine)
        self.valid_loss = view.loss_plot.plot(pen=dashed, connect="finite", **self._symbols())
        self.later: dict[str, pg.PlotDataItem] = {}  # "bleu", "learning_rate", "speed", once made
        self.long_bleu: pg.PlotDataItem | None = None  # the long validation set's BLEU, once a run has one
        for series in (self.raw, self.smoothed):
            thin(series)
        self.markers: list[pg.InfiniteLine] = []

    def _symbols(self) -> dict:
        return {"symbol": "o", "symbolSize": 7, "symbolBrush": self.colour, "symbolPen": pg.mkPen("w")}

    def later_item(self, plot: str, visible: bool) -> pg.PlotDataItem:
        """The curve of ``plot`` ("bleu", "learning_rate" or "speed"), made on first use."""
        if plot not in self.later:
            if plot == "bleu":
                item = self.view.bleu_plot.plot(pen=pg.mkPen(self.colour, width=2), connect="finite",
                                                **self._symbols())
            else:
                target = self.view.lr_plot if plot == "learning_rate" else self.view.speed_plot
                item = thin(target.plot(pen=pg.mkPen(self.colour, width=1), **_LINE))
            item.setVisible(visible)
            self.later[plot] = item
        return self.later[plot]

    def long_bleu_item(self, visible: bool) -> pg.PlotDataItem:
        """The BLEU on long inputs, dashed with hollow ○ beside the solid ● of the valid pairs; made on
        first use."""
        if self.long_bleu is None:
            self.long_bleu = self.view.bleu_plot.plot(
                pen=pg.mkPen(self.colour, width=1.5, style=Qt.PenStyle.DashLine), connect="finite", symbol="o",
                symbolSize=7, symbolBrush=pg.mkBrush("w"), symbolPen=pg.mkPen(self.colour))
            self.long_bleu.setVisible(visible)
        return self.long_bleu

    def items(self) -> list[pg.GraphicsObject]:
        extra = [self.long_bleu] if self.long_bleu is not None else []
        return [self.raw, self.smoothed, self.valid_loss, *self.later.values(), *extra, *self.markers]


# One-pixel pens for the per-step series: wider lines cost Qt's raster engine several times more
# per frame, which a long run (thousands of points, 30 frames a second) cannot afford.
_LINE = {"connect": "finite"}


def thin(series: pg.PlotDataItem) -> pg.PlotDataItem:
    """Only what is in view, at most two points (a bucket's extremes) per pixel column: a long run's
    100,000 steps would otherwise be drawn in full at every redraw (drawing a path costs as much as
    its points). Set here: plot()'s keyword arguments do not carry them."""
    series.setClipToView(True)
    series.setDownsampling(auto=True, method="peak")
    return series
