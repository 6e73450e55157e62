"""The choice and transport controls of the Translate view: direction, scorer, beam size, speed,
and pause / step / stop. Widgets only: they show state and emit what the person asked for.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, Signal
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QSlider, QSpinBox, QWidget

from engine.settings import SCORER_TABLE
from gui.scorer_labels import scorer_label
from gui.translate.choices import ScorerOption

# the direction and scorer boxes until the catalog lists them (shown through QCoreApplication.translate)
LOADING_MODELS = QT_TRANSLATE_NOOP("ChoiceBar", "Loading models…")
NO_MODELS = QT_TRANSLATE_NOOP("ChoiceBar", "No model")
# the scorer box is as wide as the registry's longest label ("Multi-head (Vaswani, 4 heads)" was cut to "…4 h")
SCORER_LABEL_LENGTH = max(len(info.label) for info in SCORER_TABLE.values())
SPEED_STEPS = 10  # slider positions: 0 = as fast as possible … 10 = half a second per step
SECONDS_PER_NOTCH = 0.05


def delay_for(position: int) -> float:
    """Seconds to wait after each decoding step for a speed-slider position."""
    return max(0, min(SPEED_STEPS, position)) * SECONDS_PER_NOTCH


def speed_text(position: int) -> str:
    """The playback speed slider's position in words ("fastest", or the delay per step)."""
    delay = delay_for(position)
    if delay == 0:
        return QCoreApplication.translate("ChoiceBar", "fastest")
    return QCoreApplication.translate("ChoiceBar", "%1 s per step").replace("%1", f"{delay:.2f}")


class ChoiceBar(QWidget):
    """Direction, scorer, beam size and speed."""

    directionChosen = Signal(str)
    scorerChosen = Signal(str)
    beamChanged = Signal(int)
    speedChanged = Signal(float)  # seconds per step

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.direction_combo = QComboBox()
        self.direction_combo.setObjectName("directionCombo")
        self.direction_combo.setToolTip(self.tr("Translation direction (only directions with a trained model are listed)"))
        self.direction_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.direction_combo.setMinimumContentsLength(12)
        self.direction_combo.setPlaceholderText(self.tr(LOADING_MODELS))
        self.scorer_combo = QComboBox()
        self.scorer_combo.setObjectName("scorerCombo")
        self.scorer_combo.setToolTip(self.tr("Attention scorer F(s, h): each is backed by a model trained with it"))
        self.scorer_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.scorer_combo.setMinimumContentsLength(SCORER_LABEL_LENGTH)
        self.scorer_combo.setPlaceholderText(self.tr(LOADING_MODELS))
        self.beam_spin = QSpinBox()
        self.beam_spin.setObjectName("beamSpin")
        self.beam_spin.setRange(1, 10)
        self.beam_spin.setToolTip(
            self.tr("Beam size: 1 = greedy search; in beam search the heatmap shows the best hypothesis"))
        self.beam_spin.setSpecialValueText(self.tr("1 (greedy)"))
        self.speed_slider = QSlider(Qt.Orientation.Horizontal)
        self.speed_slider.setObjectName("speedSlider")
        self.speed_slider.setRange(0, SPEED_STEPS)
        self.speed_slider.setPageStep(2)
        self.speed_slider.setFixedWidth(90)
        self.speed_slider.setToolTip(self.tr("Slow the decoding down to follow it step by step"))
        self.speed_label = QLabel(speed_text(0))
        self.speed_label.setMinimumWidth(self.speed_label.fontMetrics().horizontalAdvance(speed_text(SPEED_STEPS)))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for text, widget in ((self.tr("Direction"), self.direction_combo), (self.tr("Scorer"), self.scorer_combo),
                             (self.tr("Beam"), self.beam_spin), (self.tr("Speed"), self.speed_slider)):
            label = QLabel(text)
            label.setBuddy(widget)
            layout.addWidget(label)
            layout.addWidget(widget)
        layout.addWidget(self.speed_label)
        layout.addStretch(1)
        self.direction_combo.activated.connect(
            lambda i: self.directionChosen.emit(self.direction_combo.itemData(i) or ""))
        self.scorer_combo.activated.connect(lambda i: self.scorerChosen.emit(self.scorer_combo.itemData(i) or ""))
        self.beam_spin.valueChanged.connect(self.beamChanged)
        self.speed_slider.valueChanged.connect(self._on_speed)

    def _on_speed(self, position: int) -> None:
        self.speed_label.setText(speed_text(position))
        self.speedChanged.emit(delay_for(position))

    def set_directions(self, directions: Sequence[tuple[str, str]], current: str | None) -> None:
        combo = self.direction_combo
        combo.blockSignals(True)
        combo.clear()
        for key, label in directions:
            combo.addItem(label, key)
        combo.setCurrentIndex(max(0, combo.findData(current)) if directions else -1)
        combo.setEnabled(bool(directions))
        combo.blockSignals(False)

    def set_scorers(self, options: Sequence[ScorerOption], current: str | None) -> None:
        """List every scorer; those without a model are disabled with the reason as tooltip."""
        combo = self.scorer_combo
        combo.blockSignals(True)
        combo.clear()
        model = combo.model()
        for option in options:
            combo.addItem(scorer_label(option.row), option.name)
            row = combo.count() - 1
            tip = (self.tr("Model: %1").replace("%1", option.entry.folder.name) if option.entry is not None
                   else option.reason)
            combo.setItemData(row, tip, Qt.ItemDataRole.ToolTipRole)
            if isinstance(model, QStandardItemModel):
                model.item(row).setEnabled(option.enabled)
        index = combo.findData(current)
        combo.setCurrentIndex(index)
        combo.setEnabled(any(o.enabled for o in options))
        combo.blockSignals(False)

    def set_loading(self, loading: bool) -> None:
        """What an empty box says: "Loading models…" while the models are looked for and the first
        one loads, then "No model"."""
        for combo in (self.direction_combo, self.scorer_combo):
            combo.setPlaceholderText(self.tr(LOADING_MODELS if loading else NO_MODELS))

    def select(self, direction: str | None, scorer: str | None) -> None:
        """Show (direction, scorer) as chosen without emitting anything."""
        for combo, value in ((self.direction_combo, direction), (self.scorer_combo, scorer)):
            combo.blockSignals(True)
            combo.setCurrentIndex(combo.findData(value))
            combo.blockSignals(False)

    def current_direction(self) -> str | None:
        return self.direction_combo.currentData()

    def current_scorer(self) -> str | None:
        return self.scorer_combo.currentData()


class TransportBar(QWidget):
    """Pause / resume, step one token, stop."""

    pauseToggled = Signal(bool)
    stepRequested = Signal()
    stopRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.pause_button = QPushButton(self.tr("Pause"))
        self.pause_button.setObjectName("pauseButton")
        self.pause_button.setCheckable(True)
        self.pause_button.setToolTip(self.tr("Pause the decoding after the current step"))
        self.step_button = QPushButton(self.tr("Step"))
        self.step_button.setObjectName("stepButton")
        self.step_button.setToolTip(self.tr("Decode exactly one more token (pauses first)"))
        self.stop_button = QPushButton(self.tr("Stop"))
        self.stop_button.setObjectName("stopButton")
        self.stop_button.setToolTip(self.tr("End this decoding here (Esc)"))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for button in (self.pause_button, self.step_button, self.stop_button):
            layout.addWidget(button)
        self.pause_button.toggled.connect(self._on_pause)
        self.step_button.clicked.connect(self.stepRequested)
        self.stop_button.clicked.connect(self.stopRequested)
        self.set_state("idle")

    def _on_pause(self, checked: bool) -> None:
        self.pause_button.setText(self.tr("Resume") if checked else self.tr("Pause"))
        self.pauseToggled.emit(checked)

    def set_state(self, state: str) -> None:
        """idle | running | paused."""
        active = state != "idle"
        self.pause_button.blockSignals(True)
        self.pause_button.setChecked(state == "paused")
        self.pause_button.setText(self.tr("Resume") if state == "paused" else self.tr("Pause"))
        self.pause_button.blockSignals(False)
        for button in (self.pause_button, self.step_button, self.stop_button):
            button.setEnabled(active)
