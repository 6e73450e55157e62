"""The Compare tab's aligner map: a statistical word aligner's links between the source and the
shared target, drawn as dots beside the scorers' attention maps.

Once every model is given one target (the reference, or one scorer's output), the maps share rows and
columns; this panel shows, on the same sentence pair, what eflomal links — one dot per (target word,
source word) link, source words along the top axis as in the maps, target words down the side. Words
are the aligner's (Chinese characters, English words and punctuation: engine.studies.align_words), so a
map's row of pieces and the aligner's row of words line up by reading, not cell by cell. The links
are the stored corpus alignment's when the pair is a corpus pair, else eflomal's on this pair alone
with the corpus's priors (about a second; needs eflomal installed — the note says so when it is
not). While the maps show their own outputs there is no shared target and the panel says so.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtWidgets import QFrame, QLabel, QVBoxLayout, QWidget

from gui.attention.labels import CONTINUATION_MARK, SPACE_MARK, WORD_START
from gui.common.plotstyle import BACKGROUND, FOREGROUND

if TYPE_CHECKING:
    from engine.studies import AlignerMap

TITLE = QT_TRANSLATE_NOOP("AlignerPanel", "<b>Aligner</b> (eflomal): word links")
NO_TARGET_HINT = QT_TRANSLATE_NOOP("AlignerPanel", "The word aligner's links appear here once the maps share one "
                                   "target: choose the reference or one scorer's output under “Maps show”.")
WAITING = QT_TRANSLATE_NOOP("AlignerPanel", "The word aligner links the source and the shared target once every "
                            "model has scored it…")
DOT_COLOUR = "#1f77b4"
DOT_SIZE = 9
MAX_LABEL_CHARS = 12
ROW_LABEL_PX = 15  # the height a target word's label needs; rows closer than that are labelled every k-th
COLUMN_LABEL_PX = 18  # the width a source word's label needs (Chinese characters, short words)


def _spelled(label: str) -> str:
    """What a map column's label spells: without its marks (##, ▁, ␣), nothing for an end token."""
    if label.startswith("<") and label.endswith(">"):
        return ""
    return label.removeprefix(CONTINUATION_MARK).replace(WORD_START, "").replace(SPACE_MARK, "").replace(" ", "")


def _word_columns(words: Sequence[str], spelled: Sequence[str]) -> list[int]:
    """The column (of those spelling ``spelled``) each of ``words`` starts in, the last for a word past the end."""
    owner = [index for index, text in enumerate(spelled) for _ in text]  # the column of each character
    start, column_of = 0, []
    for word in words:
        column_of.append(owner[start] if start < len(owner) else len(spelled) - 1)
        start += len(word.replace(" ", ""))
    return column_of


def in_map_columns(found: AlignerMap, columns: Sequence[str]) -> AlignerMap | None:
    """``found`` with its source words grouped into the maps' ``columns`` (their words, or pieces) when
    both spell the same text — a link to a character of 妹妹 becomes a link to the column 我妹妹 — so that
    its columns are the maps' beside it; None when they spell different texts."""
    spelled = [_spelled(column) for column in columns]
    if "".join(w.replace(" ", "") for w in found.source_words) != "".join(spelled) or not columns:
        return None
    column_of = _word_columns(found.source_words, spelled)
    return replace(found, source_words=tuple(columns),
                   links=frozenset((column_of[s], t) for s, t in found.links if 0 <= s < len(column_of)))


def map_columns(panels) -> list[str] | None:
    """The source columns of the first map of ``panels`` (gui.compare.panel.ScorerPanel by scorer) that
    shows a sentence, in its view; None when none does."""
    panel = next((p for p in panels.values() if p.heatmap is not None and p.source_tokens), None)
    return list(panel.heatmap.units.column_labels) if panel is not None else None


def _short(word: str) -> str:
    return word if len(word) <= MAX_LABEL_CHARS else word[:MAX_LABEL_CHARS - 1] + "…"


def short_note(note: str) -> str:
    """Where the links come from, to its first qualifier (the note under a small map stays on one or two
    lines; the tooltip has it all): 'aligned alone by eflomal 2.0.0 with the priors of …' → 'aligned
    alone by eflomal 2.0.0 (…)'."""
    head, qualified, _ = note.partition(" with ")
    return f"{head} (…)" if qualified else note


def label_stride(count: int, pixels: float, label_pixels: float) -> int:
    """Label every k-th of ``count`` evenly spaced words along ``pixels`` so that labels of
    ``label_pixels`` never overlap (1: every word)."""
    if count <= 1 or pixels <= 0:
        return 1
    return max(1, -(-int(count * label_pixels) // max(int(pixels), 1)))


def thinned_ticks(words: tuple[str, ...], stride: int) -> list[tuple[int, str]]:
    """(position, label) of every ``stride``-th word, the first always among them."""
    return [(k, _short(word)) for k, word in enumerate(words) if k % stride == 0]


class AlignerPanel(QFrame):
    """Dots at the aligner's (target word, source word) links; a note says where they come from."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("compareAligner")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        title = QLabel(QCoreApplication.translate("AlignerPanel", TITLE))
        title.setToolTip(self.tr("A statistical word aligner's links on the same sentence pair as the maps, to set "
                                 "attention against: where a translator's alignment would put each word"))
        layout.addWidget(title)
        self.plot = pg.PlotWidget()
        self.plot.setObjectName("compareAlignerPlot")
        self.plot.setBackground(BACKGROUND)
        self.plot.setMinimumHeight(90)
        item = self.plot.getPlotItem()
        item.setMenuEnabled(False)
        item.setMouseEnabled(False, False)
        item.hideButtons()
        item.invertY(True)  # the first target word on top, as in the maps
        item.showAxis("top")
        item.hideAxis("bottom")
        for name in ("left", "top"):
            axis = item.getAxis(name)
            axis.setPen(pg.mkPen(FOREGROUND))
            axis.setTextPen(pg.mkPen(FOREGROUND))
        self.dots = pg.ScatterPlotItem(size=DOT_SIZE, brush=pg.mkBrush(DOT_COLOUR), pen=pg.mkPen(None))
        item.addItem(self.dots)
        layout.addWidget(self.plot, 1)
        self.note = QLabel()
        self.note.setObjectName("compareAlignerNote")
        self.note.setWordWrap(True)
        self.note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.note)
        self.links: frozenset[tuple[int, int]] = frozenset()
        self.words: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())  # source, target
        self.found: AlignerMap | None = None  # the aligner's map as it came, in its own words
        self.columns_of: Callable[[], Sequence[str] | None] = lambda: None  # the maps' columns (the tab's)
        self.plot.getPlotItem().getViewBox().sigResized.connect(self._label_axes)
        self.show_map(None)

    def show_waiting(self) -> None:
        """A shared target is being aligned: the old dots go."""
        self.found = None
        self._draw((), (), frozenset())
        self.note.setText(QCoreApplication.translate("AlignerPanel", WAITING))

    def show_map(self, found: AlignerMap | None) -> None:
        """Draw ``found`` (engine.studies.aligner.AlignerMap); None: there is no shared target."""
        if found is None:
            self.found = None
            self._draw((), (), frozenset())
            self.note.setText(QCoreApplication.translate("AlignerPanel", NO_TARGET_HINT))
            return
        self.found = found
        shown = in_map_columns(found, self.columns_of() or ()) or found  # the maps' columns when it can
        self._draw(shown.source_words, shown.target_words, shown.links)
        count = (self.tr("%1 link") if len(found.links) == 1 else self.tr("%1 links")).replace("%1", str(len(found.links)))
        self.note.setText(self.tr("%1; %2.").replace("%1", count).replace("%2", short_note(found.note)))
        self.note.setToolTip(found.note)

    def redraw(self) -> None:
        """Draw the map again in the maps' current columns (Words toggled)."""
        if self.found is not None:
            self.show_map(self.found)

    def _draw(self, source: tuple[str, ...], target: tuple[str, ...], links: frozenset[tuple[int, int]]) -> None:
        self.links = links
        self.dots.setData([s for s, _ in sorted(links)], [t for _, t in sorted(links)])
        self.words = (source, target)
        self._label_axes()
        item = self.plot.getPlotItem()
        item.setXRange(-0.5, max(len(source), 1) - 0.5, padding=0)
        item.setYRange(-0.5, max(len(target), 1) - 0.5, padding=0)

    def _label_axes(self) -> None:
        """Every word's label where there is room, else every k-th (hover a dot's row or column in the
        maps beside it to read the rest); drawn again when the plot is resized."""
        source, target = self.words
        item = self.plot.getPlotItem()
        box = item.getViewBox().sceneBoundingRect()
        item.getAxis("top").setTicks([thinned_ticks(source, label_stride(len(source), box.width(), COLUMN_LABEL_PX))])
        item.getAxis("left").setTicks([thinned_ticks(target, label_stride(len(target), box.height(), ROW_LABEL_PX))])
