"""The status-bar part of the Translate view: which model is in use (scorer, direction,
parameter count, test BLEU, the training data's attribution) and whether one is loading."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QToolButton, QWidget

if TYPE_CHECKING:
    from engine.models.bundle import ModelBundle

ATTRIBUTION_CHARS = 70


def describe_model(bundle: ModelBundle, scorer_label: str, direction_label: str) -> str:
    """One line naming the model, e.g. "Additive (Bahdanau) · Chinese → English · 3.2 M parameters · …"."""
    bleu = bundle.test_bleu
    parts = [
        scorer_label,
        direction_label,
        f"{bundle.parameter_count:,} parameters",
        f"test BLEU {bleu:.1f}" if isinstance(bleu, int | float) else "test BLEU not measured",
    ]
    if bundle.attribution:
        parts.append(f"data: {short_attribution(bundle.attribution)}")
    return " · ".join(parts)


def short_attribution(text: str, limit: int = ATTRIBUTION_CHARS) -> str:
    """The attribution's first clause, elided to ``limit`` characters (the tooltip has it all)."""
    first = text.split(";")[0].strip()
    return first if len(first) <= limit else first[: limit - 1].rstrip() + "…"


class ModelStatus(QWidget):
    """Label plus a busy bar while a model loads."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel("Looking for models…")
        self.label.setObjectName("modelStatusLabel")
        self.busy = QProgressBar()
        self.busy.setObjectName("modelLoadingBar")
        self.busy.setRange(0, 0)
        self.busy.setFixedWidth(90)
        self.busy.setMaximumHeight(14)
        self.busy.setTextVisible(False)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.back_button = QToolButton()  # shown while a run's earlier weights are in use
        self.back_button.setObjectName("backToFinalModelButton")
        self.back_button.setText("Back to the final model")
        self.back_button.setToolTip("Leave the earlier weights and decode with the model in use before")
        self.back_button.hide()
        layout.addWidget(self.busy)
        layout.addWidget(self.label)
        layout.addWidget(self.back_button)
        self.described = ""

    def show_loading(self, name: str) -> None:
        self.busy.show()
        self.back_button.hide()
        self.label.setText(f"Loading the model {name}…" + (f"   (in use: {self.described})" if self.described else ""))

    def show_model(self, description: str, folder: str, attribution: str = "") -> None:
        self.busy.hide()
        self.back_button.hide()
        self.described = description
        self.label.setText(description)
        self.label.setToolTip(f"Model folder: {folder}" + (f"\nTraining data: {attribution}" if attribution else ""))

    def show_past(self, label: str) -> None:
        """The model just shown is a run's earlier weights: say which (read-only), offer the way back."""
        self.described = f"{label} (read-only) · {self.described}"
        self.label.setText(self.described)
        self.back_button.show()

    def show_idle(self, text: str) -> None:
        self.busy.hide()
        self.label.setText(text if not self.described else f"{text}   (in use: {self.described})")
