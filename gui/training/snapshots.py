"""Attention learning to align: the fixed sample's heatmap after each validation, with a slider
over the validations so far (it follows the newest one unless the user has moved it back)."""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent, Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSizePolicy, QSlider, QVBoxLayout, QWidget

from gui.training.heatmap import AttentionHeatmap
from gui.training.records import Snapshot

SAMPLE_NAMES = (QT_TRANSLATE_NOOP("SnapshotView", "short sentence"), QT_TRANSLATE_NOOP("SnapshotView", "medium sentence"),
                QT_TRANSLATE_NOOP("SnapshotView", "long sentence"))
NO_ATTENTION = QT_TRANSLATE_NOOP("SnapshotView", "The 'none' scorer has no attention:\nevery output step sees the same "
                                 "fixed context C.")
WAITING = QT_TRANSLATE_NOOP("SnapshotView", "The attention on a fixed validation sentence\nappears here after the first "
                            "validation.")


class SnapshotView(QWidget):
    """Heatmap + slider over validations + the sample's source, output and reference."""

    snapshotShown = Signal(int)  # index of the snapshot now shown

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("trainingSnapshots")
        self._snapshots: list[Snapshot] = []
        self._shown = -1
        self._title = title = QLabel("<b>" + self.tr("Attention on a fixed validation sentence") + "</b>")
        title.setWordWrap(True)  # wraps when the panel is narrow, rather than squeezing the sentence choice
        self._sample = QComboBox()
        self._sample.setObjectName("snapshotSampleCombo")
        self._sample.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self._sample.setToolTip(self.tr("Which of the fixed validation sentences (short, medium, long) to show"))
        self._sample.currentIndexChanged.connect(lambda _index: self._show(self._shown))
        header = QHBoxLayout()
        header.addWidget(title, 1)
        header.addWidget(self._sample)
        self.heatmap = AttentionHeatmap()
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setObjectName("snapshotSlider")
        self.slider.setToolTip(self.tr("Move back through the validations to watch the attention learn to align"))
        self.slider.setRange(0, 0)
        self.slider.setEnabled(False)
        self.slider.valueChanged.connect(self._show)
        self.slider.setMinimumWidth(160)  # the whole panel's width, its position under it (beside it, ~15 px)
        self._position = QLabel("")
        self._position.setObjectName("snapshotPosition")
        self._position.setWordWrap(True)  # wraps rather than widen a narrow window (1280 px in wide fonts)
        self._text = QLabel("")
        self._text.setWordWrap(True)
        # The sample's table (a long CJK source does not wrap) is cut at the panel's edge, never widens the window.
        self._text.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(header)
        layout.addWidget(self.heatmap, 1)
        layout.addWidget(self.slider)
        layout.addWidget(self._position)
        layout.addWidget(self._text)
        self.set_snapshots([])

    # -- input --------------------------------------------------------------------------------
    def set_snapshots(self, snapshots: Sequence[Snapshot]) -> None:
        """Show another run's snapshots (the newest one)."""
        self._snapshots = list(snapshots)
        self._sync_samples()
        self._sync_slider(follow=True)

    def snapshot_added(self, snapshots: Sequence[Snapshot]) -> None:
        """The shown run has one more snapshot: follow it if the slider was at the newest one."""
        follow = self.slider.value() >= len(self._snapshots) - 1
        self._snapshots = list(snapshots)
        self._sync_samples()
        self._sync_slider(follow)

    # -- state for tests and export -----------------------------------------------------------
    def count(self) -> int:
        return len(self._snapshots)

    def current_index(self) -> int:
        return self._shown

    def current_matrix(self) -> np.ndarray:
        return self.heatmap.matrix()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        """The interface's language changed: the title, the sentences' names and the snapshot shown, in it."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._title.setText("<b>" + self.tr("Attention on a fixed validation sentence") + "</b>")
            for index in range(min(self._sample.count(), len(SAMPLE_NAMES))):
                self._sample.setItemText(index, self.tr(SAMPLE_NAMES[index]))
            self._show(self._shown)

    # -- internals ----------------------------------------------------------------------------
    def _sync_samples(self) -> None:
        count = max((len(s.samples) for s in self._snapshots), default=0)
        self._sample.setHidden(count == 0)  # no validation yet: nothing to choose, no empty box beside the title
        if count == self._sample.count():
            return
        keep = max(self._sample.currentIndex(), 0)
        self._sample.blockSignals(True)
        self._sample.clear()
        for index in range(count):
            self._sample.addItem(self.tr(SAMPLE_NAMES[index]) if index < len(SAMPLE_NAMES)
                                 else self.tr("sentence %1").replace("%1", str(index + 1)))
        self._sample.setCurrentIndex(min(keep, count - 1) if count else -1)
        self._sample.blockSignals(False)

    def _sync_slider(self, follow: bool) -> None:
        last = len(self._snapshots) - 1
        self.slider.blockSignals(True)
        self.slider.setRange(0, max(last, 0))
        self.slider.setEnabled(last > 0)
        if follow or self.slider.value() > last:
            self.slider.setValue(max(last, 0))
        self.slider.blockSignals(False)
        self._show(self.slider.value() if last >= 0 else -1)

    def _show(self, index: int) -> None:
        if not 0 <= index < len(self._snapshots):
            self._shown = -1
            self.heatmap.set_attention(None, (), (), self.tr(WAITING))
            self._position.setText(self.tr("no validation yet"))
            self._text.setText("")
            return
        snapshot = self._snapshots[index]
        self._shown = index
        self._position.setText(self.tr("%1/%2 · epoch %3 · step %4 · BLEU %5").replace("%1", str(index + 1)).replace(
            "%2", str(len(self._snapshots))).replace("%3", str(snapshot.epoch)).replace("%4", f"{snapshot.step:,}").replace(
            "%5", f"{snapshot.bleu:.1f}"))
        sample_index = min(max(self._sample.currentIndex(), 0), len(snapshot.samples) - 1)
        sample = snapshot.samples[sample_index]
        self.heatmap.set_attention(sample.attention, sample.source_tokens, sample.tokens, self.tr(NO_ATTENTION))
        verdict = "✓" if sample.hypothesis.strip() == sample.reference.strip() else "✗"
        source, output, reference = self.tr("Source"), self.tr("Output"), self.tr("Reference")
        self._text.setText(
            f"<table cellspacing=0 cellpadding=1>"
            f"<tr><td>{source}&nbsp;</td><td>{html.escape(sample.source)}</td></tr>"
            f"<tr><td>{output}&nbsp;</td><td><b>{html.escape(sample.hypothesis)}</b> {verdict}</td></tr>"
            f"<tr><td>{reference}&nbsp;</td><td>{html.escape(sample.reference)}</td></tr></table>"
        )
        self.snapshotShown.emit(index)
