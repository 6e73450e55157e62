"""Live training curves: loss (raw, smoothed, validation), validation BLEU, learning rate and
tokens per second, one colour per run, overlaid for comparison.

After pyqtgraph's scrollingPlots example: the data lives in growing buffers (see records) and each
redraw is one ``setData`` per curve; the panel calls :meth:`CurvesView.update_run` at most about
30 times a second. NaN losses (skipped steps) are drawn as gaps (``connect="finite"``).

A redraw takes the loss plot at once and the three others in the next event-loop turns, one plot a
turn: new data and the paint that follows cost as much as the points, and a long run's four plots
at once (100,000 steps each) held the window 30–50 ms.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QSlider,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gui.common.plotstyle import DIVERGED_COLOUR, FOREGROUND, style_plot
from gui.training.loss_note import LossSpikeNote
from gui.training.ranges import curves_x_bounds, loss_bounds, nice_bounds
from gui.training.records import DEFAULT_SMOOTHING, RunRecord
from gui.training.run_curves import RunCurves, TimeOrStepAxis

X_MODES = (("step", QT_TRANSLATE_NOOP("CurvesView", "Step")), ("elapsed", QT_TRANSLATE_NOOP("CurvesView", "Elapsed time")),
           ("target_tokens", QT_TRANSLATE_NOOP("CurvesView", "Target tokens")))
X_LABELS = {"step": QT_TRANSLATE_NOOP("CurvesView", "step"),
            "elapsed": QT_TRANSLATE_NOOP("CurvesView", "elapsed training time"),
            "target_tokens": QT_TRANSLATE_NOOP("CurvesView", "target tokens trained on")}
# The plots redrawn after the loss plot, one per event-loop turn: object name → its curves' key.
LATER_PLOTS = {"bleuPlot": "bleu", "learningRatePlot": "learning_rate", "speedPlot": "speed"}
LONG_BLEU_TITLE = QT_TRANSLATE_NOOP("CurvesView", "Validation BLEU (○: long inputs)")
# The grid's rows (loss; BLEU beside learning rate; speed): the speed plot's row stretches like the
# middle one — at 3:2:1 it got 37 px of plot at 1280×800, its tick labels on top of each other.
ROW_STRETCH = (3, 2, 2)
PLOT_MIN_HEIGHT = 110


class CurvesView(QWidget):
    """Four linked plots and their controls; ``lossPlot`` is the loss plot's objectName."""

    smoothingChanged = Signal(float)
    exportPngRequested = Signal()
    exportCsvRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._runs: dict[int, tuple[RunRecord, RunCurves]] = {}
        self._ranges: dict[tuple[str, str], tuple[float, float]] = {}  # last range set, per (plot, axis)
        self._follow: dict[str, bool] = {}  # False once the user zoomed or panned that plot
        self.x_mode = "step"
        # What waits for a plot's turn, by the plot's object name (in order): the runs whose curves
        # it redraws, its new y range, the x range it follows the loss plot to.
        self._later: dict[str, set[int]] = {}
        self._long_titled = False  # the BLEU plot names its dashed curves (a run validates on long inputs)
        self._later_y: dict[str, tuple[float, float]] = {}
        self._later_x: dict[str, tuple[float, float]] = {}
        self._later_timer = QTimer(self)
        self._later_timer.setSingleShot(True)
        self._later_timer.setInterval(0)
        self._later_timer.timeout.connect(self._draw_next_later)
        self.x_combo = QComboBox()
        self.x_combo.setObjectName("curvesXAxisCombo")
        self.x_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.x_combo.setMinimumContentsLength(8)  # its longest choice in the open list, not in the bar's width
        for key, label in X_MODES:
            self.x_combo.addItem(self.tr(label), key)
        self.x_combo.setToolTip(self.tr("Plot against optimizer steps, training time (pauses excluded), or the target "
                                        "tokens trained on — the budget the shipped models are trained to, fair across "
                                        "batch sizes (a run logged before step lines counted them has no curve there)"))
        self.x_combo.currentIndexChanged.connect(lambda _i: self.set_x_mode(self.x_combo.currentData()))
        self.log_check = QCheckBox(self.tr("Log loss"))
        self.log_check.setObjectName("curvesLogCheck")
        self.log_check.setToolTip(self.tr("Logarithmic loss axis: late, small improvements stay visible"))
        self.log_check.toggled.connect(self.set_log_loss)
        self.smoothing = QSlider(Qt.Orientation.Horizontal)
        self.smoothing.setObjectName("curvesSmoothingSlider")
        self.smoothing.setRange(0, 99)
        self.smoothing.setValue(round(DEFAULT_SMOOTHING * 100))
        self.smoothing.setMinimumWidth(60)  # squeezed by a narrow plot area, it shrank to a dot
        self.smoothing.setMaximumWidth(110)
        self.smoothing.setToolTip(self.tr("Smoothing of the training loss (exponential moving average; 0 = raw)"))
        self.smoothing.valueChanged.connect(lambda value: self.smoothingChanged.emit(value / 100))
        # Short names (the tooltips say more): the bar's width is the curves' minimum, and every pixel it
        # gives up goes to the attention snapshots beside them (183 px wide at 1280 px: one label of eleven).
        export_png = QToolButton()
        export_png.setText(self.tr("PNG…"))
        export_png.setObjectName("exportCurvesButton")
        export_png.setToolTip(self.tr("Export the four plots as one PNG image"))
        export_png.clicked.connect(self.exportPngRequested)
        export_csv = QToolButton()
        export_csv.setText(self.tr("CSV…"))
        export_csv.setObjectName("exportMetricsButton")
        export_csv.setToolTip(self.tr("Export every run's per-step and per-validation metrics as CSV"))
        export_csv.clicked.connect(self.exportCsvRequested)
        bar = QHBoxLayout()
        for widget in (QLabel(self.tr("X axis")), self.x_combo, self.log_check, QLabel(self.tr("Smoothing")), self.smoothing):
            bar.addWidget(widget)
        bar.addStretch(1)
        bar.addWidget(export_png)
        bar.addWidget(export_csv)

        self.plots = QWidget()
        grid = QGridLayout(self.plots)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSpacing(4)
        self._plot_names: dict[str, tuple[str, str]] = {}  # object name → (title, left axis) in English
        self.loss_plot = self._make_plot("lossPlot", QT_TRANSLATE_NOOP("CurvesView", "Loss per target token (○: validation)"),
                                         QT_TRANSLATE_NOOP("CurvesView", "loss"))
        self.loss_plot.setToolTip(self.tr("Cross-entropy per target token: faint, each step; solid, smoothed; dashed "
                                          "with ○, validation. The training loss includes label smoothing, so it "
                                          "levels off above the validation loss, which has none. NaN steps are gaps."))
        self.bleu_plot = self._make_plot("bleuPlot", QT_TRANSLATE_NOOP("CurvesView", "Validation BLEU"), "BLEU")
        self.lr_plot = self._make_plot("learningRatePlot", QT_TRANSLATE_NOOP("CurvesView", "Learning rate"),
                                       QT_TRANSLATE_NOOP("CurvesView", "learning rate"))
        self.speed_plot = self._make_plot("speedPlot", QT_TRANSLATE_NOOP("CurvesView", "Training speed"),
                                          QT_TRANSLATE_NOOP("CurvesView", "target tokens / s"))
        self.loss_plot.addLegend(offset=(-10, 10), labelTextColor="#303030", brush=pg.mkBrush(255, 255, 255, 200))
        self.bleu_plot.setYRange(-3, 103, padding=0)
        for plot in (self.loss_plot, self.bleu_plot, self.lr_plot):  # the speed plot, below them, names the x axis
            plot.getPlotItem().getAxis("bottom").showLabel(False)
        self._plots_by_name = {plot.objectName(): plot for plot in self._all_plots()}
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
        for row, stretch in enumerate(ROW_STRETCH):
            grid.setRowStretch(row, stretch)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.plots, 1)
        self.spike_note = LossSpikeNote()  # why the raw loss spikes, for a run that joins long examples
        layout.addWidget(self.spike_note)

    def _make_plot(self, name: str, title: str, left: str) -> pg.PlotWidget:
        """A plot called ``name``, its ``title`` and ``left`` axis given in English (shown translated)."""
        axis = TimeOrStepAxis()
        plot = pg.PlotWidget(axisItems={"bottom": axis})
        plot.setObjectName(name)
        self._plot_names[name] = (title, left)
        style_plot(plot, self.tr(title), self.tr(left), self.tr(X_LABELS[self.x_mode]))
        plot.setMinimumHeight(PLOT_MIN_HEIGHT)
        return plot

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        """The interface's language changed: the plots' titles and axes, and the x axis's choices, in it."""
        super().changeEvent(event)
        if event.type() != QEvent.Type.LanguageChange:
            return
        for plot in self._all_plots():
            title, left = self._plot_names[plot.objectName()]
            title = LONG_BLEU_TITLE if plot is self.bleu_plot and self._long_titled else title
            plot.getPlotItem().setTitle(self.tr(title), color=FOREGROUND, size="10pt")
            plot.setLabel("left", self.tr(left), color=FOREGROUND)
            plot.setLabel("bottom", self.tr(X_LABELS[self.x_mode]))
            plot.getPlotItem().getAxis("bottom").showLabel(plot is self.speed_plot)  # as set_x_mode leaves it
        for index, (_key, label) in enumerate(X_MODES):
            self.x_combo.setItemText(index, self.tr(label))

    def _refollow(self, name: str) -> None:
        self._follow[name] = True
        self._ranges = {key: value for key, value in self._ranges.items() if key[0] != name}
        self.fit_ranges()

    def _set_range(self, plot: pg.PlotWidget, axis: str, bounds: tuple[float, float] | None) -> None:
        """Set a plot's range when it follows the data and the nice bounds have changed (the loss
        plot's now, another plot's y range in its turn)."""
        key = (plot.objectName(), axis)
        if bounds is None or not self._follow.get(plot.objectName(), True) or self._ranges.get(key) == bounds:
            return
        self._ranges[key] = bounds
        if plot is not self.loss_plot:
            self._later_y[plot.objectName()] = bounds
            self._queue(plot.objectName())
        elif axis == "x":
            plot.setXRange(*bounds, padding=0)
        else:
            plot.setYRange(*bounds, padding=0)

    def fit_ranges(self) -> None:
        """Fit every plot to the visible runs, with bounds rounded to nice numbers (see ranges)."""
        shown = [record for record, _ in self._runs.values() if record.visible]
        self._set_range(self.loss_plot, "x", curves_x_bounds(shown, self._x_name()))
        self._set_range(self.loss_plot, "y", loss_bounds(shown, self.log_check.isChecked()))
        for plot, series in ((self.lr_plot, "learning_rate"), (self.speed_plot, "tokens_per_second")):
            self._set_range(plot, "y", nice_bounds([r.series(series) for r in shown], floor_zero=True))

    def _follow_x_range(self, _view: object, x_range: tuple[float, float]) -> None:
        for name in LATER_PLOTS:
            self._later_x[name] = tuple(x_range)
            self._queue(name)

    def _all_plots(self) -> tuple[pg.PlotWidget, ...]:
        return (self.loss_plot, self.bleu_plot, self.lr_plot, self.speed_plot)

    # -- runs ---------------------------------------------------------------------------------
    def add_run(self, record: RunRecord) -> None:
        self._runs[id(record)] = (record, RunCurves(self, record))
        self.spike_note.follow([shown for shown, _curves in self._runs.values() if shown.visible])
        self.update_run(record)

    def update_run(self, record: RunRecord) -> None:
        """Redraw one run's curves from its record: the loss plot (and the ranges) now, the BLEU,
        learning-rate and speed plots in the next event-loop turns, one per turn (see the module
        docstring); :meth:`flush` draws them at once."""
        entry = self._runs.get(id(record))
        if entry is None:
            return
        curves = entry[1]
        x = record.series(self._x_name())
        curves.raw.setData(x, record.series("loss"))
        curves.smoothed.setData(x, record.series("smoothed_loss"))
        vx, keep = self._validation_x(record)
        curves.valid_loss.setData(vx[keep], record.validation_series("valid_loss")[keep])
        self._place_markers(record, curves)
        self.fit_ranges()
        for name in LATER_PLOTS:
            self._queue(name, id(record))

    def _queue(self, plot_name: str, run_id: int | None = None) -> None:
        runs = self._later.setdefault(plot_name, set())
        if run_id is not None:
            runs.add(run_id)
        self._later_timer.start()

    def has_pending(self) -> bool:
        """Plots are still waiting for their turn to be drawn."""
        return bool(self._later)

    def flush(self) -> None:
        """Draw every plot still waiting for its turn."""
        while self._later:
            self._draw_next_later()

    def _draw_next_later(self) -> None:
        """One plot's turn: its ranges, then its curves of every run redrawn since its last turn."""
        if not self._later:
            return
        name = next(iter(self._later))
        run_ids = self._later.pop(name)
        if self._later:
            self._later_timer.start()
        plot = self._plots_by_name[name]
        if name in self._later_x:
            plot.setXRange(*self._later_x.pop(name), padding=0)
        if name in self._later_y:
            plot.setYRange(*self._later_y.pop(name), padding=0)
        key = LATER_PLOTS[name]
        for run_id in run_ids:
            entry = self._runs.get(run_id)
            if entry is None:
                continue
            record, curves = entry
            item = curves.later_item(key, record.visible)
            if key == "bleu":
                vx, keep = self._validation_x(record)
                item.setData(vx[keep], record.validation_series("bleu")[keep])
                long = record.validation_series("long_bleu")  # NaN where the run has no long validation
                if np.isfinite(long).any():
                    self._show_long_bleu_title()
                    keep = keep & np.isfinite(long)
                    curves.long_bleu_item(record.visible).setData(vx[keep], long[keep])
            else:
                item.setData(record.series(self._x_name()),
                             record.series("learning_rate" if key == "learning_rate" else "tokens_per_second"))

    def _show_long_bleu_title(self) -> None:
        """Name the dashed curves once a run validates on long inputs too."""
        if self._long_titled:
            return
        self._long_titled = True
        self.bleu_plot.getPlotItem().setTitle(self.tr(LONG_BLEU_TITLE), color=FOREGROUND, size="10pt")
        self.bleu_plot.setToolTip(self.tr("BLEU at each validation — solid ●: the validation pairs; dashed ○: the same "
                                          "pairs joined 1–8 at a time (long inputs). The run is judged on their mean. "
                                          "Without attention (the fixed context C) the dashed line falls behind."))

    def _x_name(self) -> str:
        return self.x_mode

    def _validation_x(self, record: RunRecord) -> tuple[np.ndarray, np.ndarray]:
        vx = record.validation_series(self._x_name())
        return vx, np.isfinite(vx)

    def set_run_visible(self, record: RunRecord, visible: bool) -> None:
        record.visible = visible
        entry = self._runs.get(id(record))
        if entry is not None:
            for item in entry[1].items():
                item.setVisible(visible)
        self.spike_note.follow([shown for shown, _curves in self._runs.values() if shown.visible])
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

    def _place_markers(self, record: RunRecord, curves: RunCurves) -> None:
        if record.diverged_at is None:
            return
        step, elapsed = record.diverged_at
        at = {"step": step, "elapsed": elapsed}.get(self.x_mode)
        if at is None:
            at = float(record.tokens_at(np.array([float(step)]))[0])
        for marker in curves.markers:
            marker.setVisible(bool(np.isfinite(at)) and record.visible)
            if np.isfinite(at):
                marker.setValue(at)

    def point_count(self, record: RunRecord) -> int:
        """Training-loss points drawn for ``record`` (for tests)."""
        entry = self._runs.get(id(record))
        if entry is None:
            return 0
        x, _ = entry[1].raw.getData()
        return 0 if x is None else len(x)

    # -- options ------------------------------------------------------------------------------
    def set_x_mode(self, mode: str) -> None:
        """Plot against "step", "elapsed" (seconds of training) or "target_tokens" (anything else: step)."""
        self.x_mode = mode if mode in X_LABELS else "step"
        label = self.tr(X_LABELS[self.x_mode])
        for plot in self._all_plots():
            axis = plot.getPlotItem().getAxis("bottom")
            axis.time_mode = self.x_mode == "elapsed"
            axis.tokens_mode = self.x_mode == "target_tokens"
            plot.setLabel("bottom", label)
            # The plots share their x axis: only the bottom one names it (the others' rows keep the
            # height of a label line for their data).
            axis.showLabel(plot is self.speed_plot)
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
        self.flush()
        return self.plots.grab().save(str(path), "PNG")
