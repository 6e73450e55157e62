"""The status-bar part of the Translate view: which model is in use (scorer, direction,
parameter count, test BLEU, the training data's attribution) and whether one is loading."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QSizePolicy, QWidget

from gui.i18n import fill

if TYPE_CHECKING:
    from engine.models import ModelBundle

ATTRIBUTION_CHARS = 70


def describe_model(bundle: ModelBundle, scorer_label: str, direction_label: str) -> str:
    """One line naming the model, e.g. "Additive (Bahdanau) · Chinese → English · 3.2 M parameters · …"."""
    bleu = bundle.test_bleu
    parts = [
        scorer_label,
        direction_label,
        QCoreApplication.translate("ModelStatus", "%1 parameters").replace("%1", f"{bundle.parameter_count:,}"),
        (QCoreApplication.translate("ModelStatus", "test BLEU %1").replace("%1", f"{bleu:.1f}")
         if isinstance(bleu, int | float) else QCoreApplication.translate("ModelStatus", "test BLEU not measured")),
    ]
    if bundle.attribution:
        parts.append(QCoreApplication.translate("ModelStatus", "data: %1").replace("%1", short_attribution(bundle.attribution)))
    return " · ".join(part for part in parts if part)  # a run's earlier weights may have no direction label


def short_attribution(text: str, limit: int = ATTRIBUTION_CHARS) -> str:
    """The attribution's first clause, elided to ``limit`` characters (the tooltip has it all)."""
    first = text.split(";")[0].strip()
    return first if len(first) <= limit else first[: limit - 1].rstrip() + "…"


class ModelStatus(QWidget):
    """Label plus a busy bar while a model loads."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel(self.tr("Looking for models…"))
        self.label.setObjectName("modelStatusLabel")
        self.busy = QProgressBar()
        self.busy.setObjectName("modelLoadingBar")
        self.busy.setRange(0, 0)
        self.busy.setFixedWidth(90)
        self.busy.setMaximumHeight(14)
        self.busy.setTextVisible(False)
        # The line never widens the window: a long description is cut at the window's edge (its tooltip
        # names the folder). Back from a run's earlier weights is beside the map (gui/common/model_on_screen.py).
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.busy)
        layout.addWidget(self.label, 1)
        self.described = ""

    def show_loading(self, name: str) -> None:
        self.busy.show()
        self.label.setText(self.tr("Loading the model %1…").replace("%1", name) + self._in_use())

    def show_model(self, description: str, folder: str, attribution: str = "") -> None:
        self.busy.hide()
        self.described = description
        self.label.setText(description)
        self.label.setToolTip(self.tr("Model folder: %1").replace("%1", folder)
                              + ("\n" + self.tr("Training data: %1").replace("%1", attribution) if attribution else ""))

    def show_past(self, label: str) -> None:
        """The model just shown is a run's earlier weights: say which (read-only)."""
        self.described = fill(self.tr("%1 (read-only) · %2"), label, self.described)
        self.label.setText(self.described)

    def show_idle(self, text: str) -> None:
        self.busy.hide()
        self.label.setText(text + self._in_use())

    def _in_use(self) -> str:
        return self.tr("   (in use: %1)").replace("%1", self.described) if self.described else ""
