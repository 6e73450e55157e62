"""The length study view: Bahdanau et al. (2014, Fig. 2) for the models of one direction.

BLEU against source length on the long test set, one line per scorer, read from the studies
stored in the model folders (nothing is decoded). The fixed-context line (scorer ``none``: the
whole source squeezed into one vector C) is drawn thick, dashed and red; the attention scorers in
calm colours. Clicking near a bucket on the plot, or choosing it in the bucket list, shows that
bucket's scores and a few of its inputs with every scorer's output below.
"""

from __future__ import annotations

import html

import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, QPointF, Qt, Signal
from PySide6.QtWidgets import QComboBox, QFrame, QHBoxLayout, QLabel, QScrollArea, QSplitter, QVBoxLayout, QWidget

from engine.decoding import LOOP_COUNT, LOOP_NGRAM
from engine.settings import FIXED_CONTEXT, SCORER_TABLE
from engine.studies import length_lesson
from gui.common.plotstyle import FOREGROUND, style_plot
from gui.i18n import fill
from gui.scorer_labels import scorer_label
from gui.translate.length_study.alignment import ALIGNMENT_COLUMNS, alignment_text, table_rows
from gui.translate.length_study.attribution import (
    ATTRIBUTION_COLUMNS,
    attribution_rows,
    attribution_text,
    attribution_tooltip,
)
from gui.translate.length_study.lesson_words import lesson_sentence
from gui.translate.length_study.model import (
    ATTENTION_COLUMNS,
    BUCKET_LABELS,
    LengthStudyData,
    Series,
    attention_table,
    bucket_summary,
)
from gui.translate.length_study.reading import attention_reading
from gui.translate.length_study.table import StudyTable

CAPTION_THEORY = QT_TRANSLATE_NOOP(
    "LengthStudyView",
    "<b>BLEU against source length</b> (after Bahdanau et al. 2014, Fig. 2). Without attention the "
    "encoder squeezes the whole source into one fixed vector C, which loses information as the "
    "input grows; with attention the decoder looks back at every source word."
)
GREEDY_DECODING = QT_TRANSLATE_NOOP("LengthStudyView", "greedy decoding")
ATTENTION_TIP = QT_TRANSLATE_NOOP(
    "LengthStudyView",
    "How each scorer attends over the test split (greedy): mean row entropy, mean largest weight, share of "
    "steps whose most-attended source token does not move backwards, mean |coverage − 1|. The Compare tab "
    "shows the same numbers for one sentence. AER vs aligner: its attention's argmax links against a "
    "statistical word aligner's, each model fed the test split's references (0 = the aligner's links "
    "exactly); precision / recall of those links.")
BEAM_DECODING = QT_TRANSLATE_NOOP("LengthStudyView",
                                  "beam search (beam %1) with each model's own length and coverage penalties")


def _tr(text: str) -> str:
    """A message declared above (QT_TRANSLATE_NOOP) in the interface's language."""
    return QCoreApplication.translate("LengthStudyView", text)


def caption_data(beam: int = 1) -> str:
    """The caption's last line: the data and the decoding the studies at ``beam`` were made with."""
    decoding = _tr(GREEDY_DECODING) if beam == 1 else _tr(BEAM_DECODING).replace("%1", str(beam))
    return "<br><small>" + QCoreApplication.translate(
        "LengthStudyView", "Data: the long test set (test pairs joined 1–8 at a time), %1; length in source "
        "sub-word tokens. Click a bucket to see some of its inputs.").replace("%1", html.escape(decoding)) + "</small>"


def first_caption() -> str:
    """The caption before any figures are shown."""
    return _tr(CAPTION_THEORY) + caption_data()


def caption_for(data: LengthStudyData) -> str:
    """The caption with what these models' lines show, derived from their figures (engine.studies.length_reading):
    when the models were not all trained alike, the lesson sets C against the models trained like it,
    and a note names how each group was trained (engine.studies.training_budget)."""
    lesson = length_lesson({s.name: s.study for s in data.trained_like_fixed_context()})
    note = data.budget_note
    unequal = f" <b style='color:#b35900'>{html.escape(note)}</b>" if note else ""
    if lesson is None:
        return _tr(CAPTION_THEORY) + unequal + caption_data(data.beam)
    said = lesson_sentence(lesson, {s.name: scorer_label(s.row) for s in data.scorers})
    shown = QCoreApplication.translate("LengthStudyView", "<b>What these models show:</b> %1").replace(
        "%1", html.escape(said))
    return f"{_tr(CAPTION_THEORY)} {shown}{unequal}{caption_data(data.beam)}"


def looping_text(data: LengthStudyData) -> str:
    """The share of each drawn scorer's outputs that loop, and the references' share ("" when no
    study measured it)."""
    shares = data.looping()
    if not shares:
        return ""
    parts = [f"{scorer_label(data.row_of(name))} {share:.1%}" for name, share in shares]
    if (references := data.references_looping) is not None:
        parts.append(QCoreApplication.translate("LengthStudyView", "the references %1").replace(
            "%1", f"{references:.1%}"))
    return "<small>" + fill(QCoreApplication.translate(
        "LengthStudyView", "<b>Outputs that loop</b> (a word %1-gram %2 or more times; Chinese: characters): %3; "
        "in the table, such outputs are tinted orange."), LOOP_NGRAM, LOOP_COUNT, html.escape(" · ".join(parts))) + \
        "</small>"


# Each scorer's colour is its registry row's (engine.settings.scorer_table): calm, distinct hues for the
# attention mechanisms; the fixed vector C's line (red) is also thick and dashed.
OTHER_COLOURS = ("#8c564b", "#7f7f7f", "#bcbd22")  # a scorer the registry does not know
HIGHLIGHT_COLOUR = SCORER_TABLE[FIXED_CONTEXT].colour
HIGHLIGHT_WIDTH = 4
LINE_WIDTH = 2
SELECTED_BRUSH = (255, 200, 0, 60)
AXIS_HEIGHT = 54


def series_pen(series: Series, index: int) -> pg.QtGui.QPen:
    """The pen of a scorer's line: the fixed-context line stands out."""
    if series.highlight:
        return pg.mkPen(HIGHLIGHT_COLOUR, width=HIGHLIGHT_WIDTH, style=Qt.PenStyle.DashLine)
    info = SCORER_TABLE.get(series.name)
    colour = info.colour if info is not None else OTHER_COLOURS[index % len(OTHER_COLOURS)]
    return pg.mkPen(colour, width=LINE_WIDTH)


def tick_text(label: str, count: int) -> str:
    """A length bucket's axis label, with its pair count under it when there are any."""
    return f"{label}\nn = {count}" if count else label


SPLIT_PARTS = (9, 8, 5)  # the plot, the bucket's inputs and how they attend: at 1280×800 the table shows
# three rows or more (gui/translate/length_study/table.py), and the attention figures scroll in theirs
SPLIT_UNIT = 24  # px per part at the first showing (the splitter scales them to its height)
PLOT_MIN_HEIGHT = 200


def _table(data: LengthStudyData, columns: tuple[tuple[str, str], ...], rows: list[tuple[str, list[str]]]) -> str:
    """A rich-text table: a header of the ``columns``' titles (in the interface's language), a row per scorer
    (``rows``: its name in ``data``, its cells)."""
    header = "".join(f"<th>&nbsp;{html.escape(QCoreApplication.translate('LengthStudyModel', title))}&nbsp;</th>"
                     for _, title in columns)
    body = "".join(f"<tr><td>{html.escape(scorer_label(data.row_of(name)))}</td>"
                   + "".join(f"<td align='right'>{html.escape(v)}</td>" for v in values) + "</tr>" for name, values in rows)
    return f"<table><tr><th></th>{header}</tr>{body}</table>"


class LengthStudyView(QWidget):
    """Caption, plot, bucket chooser with the bucket's scores, and the bucket's example table."""

    rowChosen = Signal(str)  # a source text to translate
    bucketChosen = Signal(str)  # a bucket label

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.data = LengthStudyData(())
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.caption = QLabel(first_caption())
        self.caption.setObjectName("lengthStudyCaption")
        self.caption.setWordWrap(True)
        self.missing_label = QLabel()
        self.missing_label.setObjectName("lengthStudyMissing")
        self.missing_label.setWordWrap(True)
        self.missing_label.setStyleSheet("color: #a05a00;")
        self.loops_label = QLabel()
        self.loops_label.setObjectName("lengthStudyLoops")
        self.loops_label.setWordWrap(True)
        self.loops_label.setToolTip(self.tr("A beam that goes round in circles repeats a phrase; the references' "
                                            "share says how much the language itself repeats"))
        self.plot = pg.PlotWidget()
        self.plot.setObjectName("lengthStudyPlot")
        self.plot.setMinimumHeight(PLOT_MIN_HEIGHT)
        style_plot(self.plot, "", "BLEU", self.tr("source length (sub-word tokens)"))
        item = self.plot.getPlotItem()
        item.setMouseEnabled(x=False, y=False)
        item.hideButtons()
        item.getAxis("bottom").setHeight(AXIS_HEIGHT)  # room for the two-line ticks and the axis title
        # The legend sits right of the plot area, in the plot's own layout, so that no line end hides
        # behind it (the longest buckets, at the right, are what the plot is about).
        self.legend = pg.LegendItem(labelTextColor=FOREGROUND)
        item.layout.addItem(self.legend, 2, 3)
        item.legend = self.legend  # the curves' names are listed in it as they are plotted
        self.selection = pg.LinearRegionItem((-0.5, 0.5), movable=False, brush=pg.mkBrush(*SELECTED_BRUSH))
        self.selection.setZValue(-10)
        self.bucket_combo = QComboBox()
        self.bucket_combo.setObjectName("lengthStudyBucketCombo")
        self.bucket_combo.setToolTip(self.tr("The source-length bucket whose inputs are listed below"))
        self.scores_label = QLabel()
        self.scores_label.setObjectName("lengthStudyBucketScores")
        self.scores_label.setWordWrap(True)
        self.table = StudyTable()
        self.attention_label = QLabel()
        self.attention_label.setObjectName("lengthStudyAttention")
        self.attention_label.setTextFormat(Qt.TextFormat.RichText)
        self.attention_label.setToolTip(_tr(ATTENTION_TIP))
        self.reading_label = QLabel()  # what the table shows, in words (from the same figures)
        self.reading_label.setObjectName("lengthStudyReading")
        self.reading_label.setWordWrap(True)
        self.reading_label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.reading_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._build_layout()
        self.plot.scene().sigMouseClicked.connect(self._on_plot_clicked)
        self.bucket_combo.currentIndexChanged.connect(self._on_combo)
        self.table.rowChosen.connect(self.rowChosen)

    def _build_layout(self) -> None:
        chooser = QHBoxLayout()
        chooser.addWidget(QLabel(self.tr("Bucket")))
        chooser.addWidget(self.bucket_combo)
        chooser.addWidget(self.scores_label, 1)
        lower = QWidget()
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addLayout(chooser)
        lower_layout.addWidget(self.table, 1)
        # The reading scrolls in its own pane: it runs to a dozen lines, and a label that grows with its
        # text would squeeze the plot and the examples (or be cut off at the dialog's bottom).
        self.reading_scroll = QScrollArea()
        self.reading_scroll.setWidget(self.reading_label)
        self.reading_scroll.setWidgetResizable(True)
        self.reading_scroll.setFrameShape(QFrame.Shape.NoFrame)
        attention = QWidget()
        attention_row = QHBoxLayout(attention)
        attention_row.setContentsMargins(0, 0, 0, 0)
        attention_row.addWidget(self.attention_label, 0, Qt.AlignmentFlag.AlignTop)
        attention_row.addSpacing(12)
        attention_row.addWidget(self.reading_scroll, 1)
        # The attention figures scroll in their pane too: as tall as their table (seven rows), they
        # left the bucket's inputs room for half a row at 1280×800.
        attention_pane = QScrollArea()
        attention_pane.setObjectName("lengthStudyAttentionPane")
        attention_pane.setWidget(attention)
        attention_pane.setWidgetResizable(True)
        attention_pane.setFrameShape(QFrame.Shape.NoFrame)
        splitter = QSplitter(Qt.Orientation.Vertical)
        for pane, stretch in zip((self.plot, lower, attention_pane), SPLIT_PARTS, strict=True):
            splitter.addWidget(pane)
            splitter.setStretchFactor(splitter.count() - 1, stretch)
        splitter.setSizes([part * SPLIT_UNIT for part in SPLIT_PARTS])  # the first showing too
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.caption)
        layout.addWidget(self.missing_label)
        layout.addWidget(self.loops_label)
        layout.addWidget(splitter, 1)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        """The interface's language changed: every text made from the figures is made again in it (the
        lines stay as drawn)."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange and self.data.scorers:
            data = self.data
            self.caption.setText(caption_for(data))
            self._show_missing(data)
            self.loops_label.setText(looping_text(data))
            self._show_attention(data)
            for (_sample, label), series in zip(self.legend.items, data.series, strict=False):
                label.setText(scorer_label(series.row))
            for index in range(self.bucket_combo.count()):
                self.bucket_combo.setItemData(index, self._scores_text(self.bucket_combo.itemData(index), html=False),
                                              Qt.ItemDataRole.ToolTipRole)
            if (bucket := self.current_bucket()) is not None:
                self.scores_label.setText(self._scores_text(bucket, html=True))
                self.table.show_rows(data.columns, data.rows(bucket), data.target_language)

    # -- data ---------------------------------------------------------------------------------
    def set_data(self, data: LengthStudyData) -> None:
        """Draw ``data``; the chosen bucket stays chosen when the new data has it."""
        previous = self.current_bucket()
        self.data = data
        self.caption.setText(caption_for(data))
        self._draw()
        self._show_missing(data)
        loops = looping_text(data)
        self.loops_label.setText(loops)
        self.loops_label.setVisible(bool(loops))
        self.table.set_beam(data.beam)
        self._show_attention(data)
        buckets = data.buckets()
        self.bucket_combo.blockSignals(True)
        self.bucket_combo.clear()
        for label in buckets:
            self.bucket_combo.addItem(f"{label}  (n = {data.count(label)})", label)
            self.bucket_combo.setItemData(self.bucket_combo.count() - 1, self._scores_text(label, html=False),
                                          Qt.ItemDataRole.ToolTipRole)
        self.bucket_combo.setEnabled(bool(buckets))
        self.bucket_combo.blockSignals(False)
        chosen = previous if previous in buckets else (buckets[0] if buckets else None)
        self.bucket_combo.setCurrentIndex(-1)
        if chosen is not None:
            self.select_bucket(chosen)
        else:
            self._show_bucket(None)

    def _show_missing(self, data: LengthStudyData) -> None:
        notes = [f"{scorer_label(s.row)}: {QCoreApplication.translate('LengthStudyModel', s.note)}"
                 for s in data.missing]
        self.missing_label.setText(self.tr("Not drawn — %1.").replace("%1", "; ".join(notes)) if notes else "")
        self.missing_label.setVisible(bool(notes))

    def _show_attention(self, data: LengthStudyData) -> None:
        rows = table_rows(data, attention_table(data), len(ATTENTION_COLUMNS))
        attributed = attribution_rows(data, [name for name, _ in rows])  # a second table: one row was too wide
        reading = "\n\n".join(text for text in (attention_reading(data), alignment_text(data), attribution_text(data))
                              if text)
        self.attention_label.setToolTip(_tr(ATTENTION_TIP) + "\n\n" + attribution_tooltip(data, [r[0] for r in rows]))
        self.reading_label.setText(reading)
        self.reading_label.setVisible(bool(reading))
        self.reading_scroll.setVisible(bool(reading))
        if not rows and not attributed:
            self.attention_label.clear()
            self.attention_label.hide()
            return
        self.attention_label.setText(
            self.tr("<b>How they attend</b> (test split, greedy)") + _table(data, ATTENTION_COLUMNS + ALIGNMENT_COLUMNS, rows)
            + (self.tr("<b>Does the output depend on where they attend?</b> (attribution study, a sample of the test "
                       "split)") + _table(data, ATTRIBUTION_COLUMNS, attributed) if attributed else ""))
        self.attention_label.show()

    def _draw(self) -> None:
        item = self.plot.getPlotItem()
        for curve in self.curves.values():
            item.removeItem(curve)
        self.curves = {}
        for index, series in enumerate(self.data.series):
            pen = series_pen(series, index)
            curve = item.plot(list(series.xs), list(series.bleu), pen=pen, name=scorer_label(series.row),
                              symbol="s" if series.highlight else "o", symbolSize=9,
                              symbolBrush=pen.color(), symbolPen=pen.color())
            curve.setZValue(10 if series.highlight else 0)
            self.curves[series.name] = curve
        ticks = [(x, tick_text(label, self.data.count(label))) for x, label in enumerate(BUCKET_LABELS)]
        item.getAxis("bottom").setTicks([ticks, []])
        top = max((max(s.bleu) for s in self.data.series if s.bleu), default=0.0)
        item.setXRange(-0.5, len(BUCKET_LABELS) - 0.5, padding=0)
        item.setYRange(0, max(1.0, top * 1.15), padding=0)
        item.setTitle(None if self.data.series else self.tr("No length study stored for this direction"),
                      color=FOREGROUND)

    # -- buckets ------------------------------------------------------------------------------
    def current_bucket(self) -> str | None:
        return self.bucket_combo.currentData()

    def select_bucket(self, label: str) -> bool:
        """Choose bucket ``label`` (as a click on the plot or the bucket list does)."""
        index = self.bucket_combo.findData(label)
        if index < 0:
            return False
        if index == self.bucket_combo.currentIndex():
            self._show_bucket(label)
        else:
            self.bucket_combo.setCurrentIndex(index)  # _on_combo shows it
        return True

    def _on_combo(self, index: int) -> None:
        self._show_bucket(self.bucket_combo.itemData(index) if index >= 0 else None)

    def _show_bucket(self, label: str | None) -> None:
        item = self.plot.getPlotItem()
        if label is None:
            item.removeItem(self.selection)
            self.scores_label.setText("")
            self.table.show_rows(self.data.columns, [])
            return
        x = BUCKET_LABELS.index(label)
        self.selection.setRegion((x - 0.5, x + 0.5))
        if self.selection not in item.items:
            item.addItem(self.selection, ignoreBounds=True)
        self.scores_label.setText(self._scores_text(label, html=True))
        self.table.show_rows(self.data.columns, self.data.rows(label), self.data.target_language)
        self.bucketChosen.emit(label)

    def _scores_text(self, label: str, html: bool) -> str:
        parts = [f"{scorer_label(self.data.row_of(name))}: BLEU {bleu:.1f}, chrF {chrf:.1f}" for name, _n, bleu, chrf in
                 bucket_summary(self.data, label)]
        if not html:
            return "\n".join(parts)
        return "<small>" + " · ".join(parts) + "</small>"

    def bucket_at(self, scene_pos: QPointF) -> str | None:
        """The bucket under a scene position over the plot area (or its bottom axis), if any."""
        view_box = self.plot.getPlotItem().getViewBox()
        area = view_box.sceneBoundingRect()
        axis = self.plot.getPlotItem().getAxis("bottom").sceneBoundingRect()
        if not (area.contains(scene_pos) or axis.contains(scene_pos)):
            return None
        x = view_box.mapSceneToView(scene_pos).x()
        index = round(x)
        return BUCKET_LABELS[index] if 0 <= index < len(BUCKET_LABELS) and abs(x - index) <= 0.5 else None

    def _on_plot_clicked(self, event) -> None:  # pyqtgraph MouseClickEvent
        if event.button() != Qt.MouseButton.LeftButton:
            return
        label = self.bucket_at(event.scenePos())
        if label is not None:
            self.select_bucket(label)
