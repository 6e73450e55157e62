"""Live training curves: loss (raw, smoothed, validation), validation BLEU, learning rate and
tokens per second, one colour per run, overlaid for comparison.

After pyqtgraph's scrollingPlots example: the data lives in growing buffers (see records) and each
redraw is one ``setData`` per curve; the panel calls :meth:`CurvesView.update_run` at most about
30 times a second. NaN losses (skipped steps) are drawn as gaps (``connect="finite"``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from gui.training.plotstyle import DIVERGED_COLOUR, faded, style_plot
from gui.training.ranges import nice_bounds, nice_ceil
from gui.training.records import DEFAULT_SMOOTHING, RunRecord

X_MODES = (("step", "Step"), ("elapsed", "Elapsed time"))


class TimeOrStepAxis(pg.AxisItem):
    """A bottom axis that writes seconds as m:ss (or h:mm:ss) in time mode."""

    def __init__(self) -> None:
        super().__init__("bottom")
        self.time_mode = False

    def tickStrings(self, values, scale, spacing):  # noqa: N802 - pyqtgraph override
        if not self.time_mode:
            return super().tickStrings(values, scale, spacing)
        labels = []
        for value in values:
            seconds = int(round(value * scale))
            hours, rest = divmod(abs(seconds), 3600)
            minutes, secs = divmod(rest, 60)
            labels.append(f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}")
        return labels


class _RunCurves:
    """The plot items of one run."""

    def __init__(self, view: CurvesView, record: RunRecord) -> None:
        colour = record.colour
        # One-pixel pens for the per-step series: wider lines cost Qt's raster engine several times
        # more per frame, which a long run (thousands of points, 30 frames a second) cannot afford.
        line = {"connect": "finite"}
        self.raw = view.loss_plot.plot(pen=pg.mkPen(faded(colour, 70), width=1), **line)
        self.smoothed = view.loss_plot.plot(pen=pg.mkPen(colour, width=1), name=record.name, **line)
        dashed = pg.mkPen(colour, width=1.5, style=Qt.PenStyle.DashLine)
        symbols = {"symbol": "o", "symbolSize": 7, "symbolBrush": colour, "symbolPen": pg.mkPen("w")}
        self.valid_loss = view.loss_plot.plot(pen=dashed, connect="finite", **symbols)
        self.bleu = view.bleu_plot.plot(pen=pg.mkPen(colour, width=2), connect="finite", **symbols)
        self.learning_rate = view.lr_plot.plot(pen=pg.mkPen(colour, width=1), **line)
        self.speed = view.speed_plot.plot(pen=pg.mkPen(colour, width=1), **line)
        for series in (self.raw, self.smoothed, self.learning_rate, self.speed):
            # Only what is in view, at most two points (a bucket's extremes) per pixel column: a long
            # run's 100,000 steps would otherwise be drawn in full at every redraw (drawing a path
            # costs as much as its points). Set here: plot()'s keyword arguments do not carry them.
            series.setClipToView(True)
            series.setDownsampling(auto=True, method="peak")
        self.markers: list[pg.InfiniteLine] = []

    def items(self) -> list[pg.GraphicsObject]:
        return [self.raw, self.smoothed, self.valid_loss, self.bleu, self.learning_rate, self.speed, *self.markers]


class CurvesView(QWidget):
    """Four linked plots and their controls; ``lossPlot`` is the loss plot's objectName."""

    smoothingChanged = Signal(float)
    exportPngRequested = Signal()
    exportCsvRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._runs: dict[int, tuple[RunRecord, _RunCurves]] = {}
        self._ranges: dict[tuple[str, str], tuple[float, float]] = {}  # last range set, per (plot, axis)
        self._follow: dict[str, bool] = {}  # False once the user zoomed or panned that plot
        self.x_mode = "step"
        self.x_combo = QComboBox()
        self.x_combo.setObjectName("curvesXAxisCombo")
        for key, label in X_MODES:
            self.x_combo.addItem(label, key)
        self.x_combo.setToolTip("Plot against optimizer steps, or against training time (pauses excluded)")
        self.x_combo.currentIndexChanged.connect(lambda _i: self.set_x_mode(self.x_combo.currentData()))
        self.log_check = QCheckBox("Log loss")
        self.log_check.setObjectName("curvesLogCheck")
        self.log_check.setToolTip("Logarithmic loss axis: late, small improvements stay visible")
        self.log_check.toggled.connect(self.set_log_loss)
        self.smoothing = QSlider(Qt.Orientation.Horizontal)
        self.smoothing.setObjectName("curvesSmoothingSlider")
        self.smoothing.setRange(0, 99)
        self.smoothing.setValue(round(DEFAULT_SMOOTHING * 100))
        self.smoothing.setMaximumWidth(110)
        self.smoothing.setToolTip("Smoothing of the training loss (exponential moving average; 0 = raw)")
        self.smoothing.valueChanged.connect(lambda value: self.smoothingChanged.emit(value / 100))
        export_png = QPushButton("Export PNG…")
        export_png.setObjectName("exportCurvesButton")
        export_png.setToolTip("Save the four plots as one PNG image")
        export_png.clicked.connect(self.exportPngRequested)
        export_csv = QPushButton("Export CSV…")
        export_csv.setObjectName("exportMetricsButton")
        export_csv.setToolTip("Save every run's per-step and per-validation metrics as CSV")
        export_csv.clicked.connect(self.exportCsvRequested)
        bar = QHBoxLayout()
        for widget in (QLabel("X axis"), self.x_combo, self.log_check, QLabel("Smoothing"), self.smoothing):
            bar.addWidget(widget)
        bar.addStretch(1)
        bar.addWidget(export_png)
        bar.addWidget(export_csv)

        self.plots = QWidget()
        grid = QGridLayout(self.plots)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSpacing(4)
        self.loss_plot = self._make_plot("lossPlot", "Loss per target token (○: validation)", "loss")
        self.loss_plot.setToolTip("Cross-entropy per target token: faint, each step; solid, smoothed; dashed with ○, "
                                  "validation. The training loss includes label smoothing, so it "
                                  "levels off above the validation loss, which has none. NaN steps are gaps.")
        self.bleu_plot = self._make_plot("bleuPlot", "Validation BLEU", "BLEU")
        self.lr_plot = self._make_plot("learningRatePlot", "Learning rate", "learning rate")
        self.speed_plot = self._make_plot("speedPlot", "Training speed", "target tokens / s")
        self.loss_plot.addLegend(offset=(-10, 10), labelTextColor="#303030", brush=pg.mkBrush(255, 255, 255, 200))
        self.bleu_plot.setYRange(-3, 103, padding=0)
        for plot in self._all_plots():
            self._follow[plot.objectName()] = True
            plot.getPlotItem().vb.sigRangeChangedManually.connect(
                lambda _mask, name=plot.objectName(): self._follow.__setitem__(name, False))
            plot.getPlotItem().autoBtn.clicked.connect(
                lambda _checked=False, name=plot.objectName(): self._refollow(name))
        # Follow the loss plot's x range. (setXLink would scale the range by widget width, which is
        # wrong for the side-by-side plots.)
        self.loss_plot.sigXRangeChanged.connect(self._follow_x_range)
        grid.addWidget(self.loss_plot, 0, 0, 1, 2)
        grid.addWidget(self.bleu_plot, 1, 0)
        grid.addWidget(self.lr_plot, 1, 1)
        grid.addWidget(self.speed_plot, 2, 0, 1, 2)
        grid.setRowStretch(0, 3)
        grid.setRowStretch(1, 2)
        grid.setRowStretch(2, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.plots, 1)

    def _make_plot(self, name: str, title: str, left: str) -> pg.PlotWidget:
        axis = TimeOrStepAxis()
        plot = pg.PlotWidget(axisItems={"bottom": axis})
        plot.setObjectName(name)
        style_plot(plot, title, left)
        plot.setMinimumHeight(110)
        return plot

    def _refollow(self, name: str) -> None:
        self._follow[name] = True
        self._ranges = {key: value for key, value in self._ranges.items() if key[0] != name}
        self.fit_ranges()

    def _set_range(self, plot: pg.PlotWidget, axis: str, bounds: tuple[float, float] | None) -> None:
        """Set a plot's range when it follows the data and the nice bounds have changed."""
        key = (plot.objectName(), axis)
        if bounds is None or not self._follow.get(plot.objectName(), True) or self._ranges.get(key) == bounds:
            return
        self._ranges[key] = bounds
        if axis == "x":
            plot.setXRange(*bounds, padding=0)
        else:
            plot.setYRange(*bounds, padding=0)

    def fit_ranges(self) -> None:
        """Fit every plot to the visible runs, with bounds rounded to nice numbers (see ranges)."""
        shown = [record for record, _ in self._runs.values() if record.visible]
        x_name = "step" if self.x_mode == "step" else "elapsed"
        xs = [r.series(x_name) for r in shown] + [r.validation_series(x_name) for r in shown]
        x_bounds = nice_bounds(xs, floor_zero=True)
        if x_bounds is not None:
            x_bounds = (0.0, nice_ceil(1.04 * max(x_bounds[1], 1.0 if x_name == "elapsed" else 10.0)))
        self._set_range(self.loss_plot, "x", x_bounds)
        losses = [r.series("loss") for r in shown] + [r.validation_series("valid_loss") for r in shown]
        if self.log_check.isChecked():
            losses = [np.log10(np.where(v > 0, v, np.nan)) for v in losses]
        self._set_range(self.loss_plot, "y", nice_bounds(losses))
        self._set_range(self.lr_plot, "y", nice_bounds([r.series("learning_rate") for r in shown], floor_zero=True))
        self._set_range(self.speed_plot, "y", nice_bounds([r.series("tokens_per_second") for r in shown],
                                                          floor_zero=True))

    def _follow_x_range(self, _view: object, x_range: tuple[float, float]) -> None:
        for plot in (self.bleu_plot, self.lr_plot, self.speed_plot):
            plot.setXRange(*x_range, padding=0)

    def _all_plots(self) -> tuple[pg.PlotWidget, ...]:
        return (self.loss_plot, self.bleu_plot, self.lr_plot, self.speed_plot)

    # -- runs ---------------------------------------------------------------------------------
    def add_run(self, record: RunRecord) -> None:
        self._runs[id(record)] = (record, _RunCurves(self, record))
        self.update_run(record)

    def update_run(self, record: RunRecord) -> None:
        """Redraw one run's curves from its record (one setData per curve)."""
        entry = self._runs.get(id(record))
        if entry is None:
            return
        curves = entry[1]
        x = record.series("step" if self.x_mode == "step" else "elapsed")
        curves.raw.setData(x, record.series("loss"))
        curves.smoothed.setData(x, record.series("smoothed_loss"))
        curves.learning_rate.setData(x, record.series("learning_rate"))
        curves.speed.setData(x, record.series("tokens_per_second"))
        vx = record.validation_series("step" if self.x_mode == "step" else "elapsed")
        keep = np.isfinite(vx)
        curves.valid_loss.setData(vx[keep], record.validation_series("valid_loss")[keep])
        curves.bleu.setData(vx[keep], record.validation_series("bleu")[keep])
        self._place_markers(record, curves)
        self.fit_ranges()

    def set_run_visible(self, record: RunRecord, visible: bool) -> None:
        record.visible = visible
        entry = self._runs.get(id(record))
        if entry is not None:
            for item in entry[1].items():
                item.setVisible(visible)
        self.fit_ranges()

    def mark_diverged(self, record: RunRecord) -> None:
        """A red vertical line where the run diverged, in every plot."""
        entry = self._runs.get(id(record))
        if entry is None or record.diverged_at is None:
            return
        curves = entry[1]
        for plot in self._all_plots():
            label = "diverged" if plot is self.loss_plot else None
            marker = pg.InfiniteLine(angle=90, movable=False, label=label,
                                     pen=pg.mkPen(DIVERGED_COLOUR, width=2, style=Qt.PenStyle.DashLine),
                                     labelOpts={"position": 0.9, "color": DIVERGED_COLOUR})
            plot.addItem(marker)
            curves.markers.append(marker)
        self._place_markers(record, curves)

    def _place_markers(self, record: RunRecord, curves: _RunCurves) -> None:
        if record.diverged_at is None:
            return
        step, elapsed = record.diverged_at
        for marker in curves.markers:
            marker.setValue(step if self.x_mode == "step" else elapsed)

    def point_count(self, record: RunRecord) -> int:
        """Training-loss points drawn for ``record`` (for tests)."""
        entry = self._runs.get(id(record))
        if entry is None:
            return 0
        x, _ = entry[1].raw.getData()
        return 0 if x is None else len(x)

    # -- options ------------------------------------------------------------------------------
    def set_x_mode(self, mode: str) -> None:
        self.x_mode = "elapsed" if mode == "elapsed" else "step"
        label = "elapsed training time" if self.x_mode == "elapsed" else "step"
        for plot in self._all_plots():
            axis = plot.getPlotItem().getAxis("bottom")
            axis.time_mode = self.x_mode == "elapsed"
            plot.setLabel("bottom", label)
            axis.picture = None
            axis.update()
        self._follow[self.loss_plot.objectName()] = True
        self._ranges.pop((self.loss_plot.objectName(), "x"), None)
        for record, _ in self._runs.values():
            self.update_run(record)
        self.fit_ranges()

    def set_log_loss(self, enabled: bool) -> None:
        self.loss_plot.setLogMode(y=enabled)
        self._ranges.pop((self.loss_plot.objectName(), "y"), None)
        self.fit_ranges()

    def export_png(self, path: Path) -> bool:
        """Save the four plots as one image; False when the file could not be written."""
        return self.plots.grab().save(str(path), "PNG")
