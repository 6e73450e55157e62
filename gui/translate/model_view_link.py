"""The Translate tab's way into a Transformer's layers and heads (gui/attention/model_view.py).

Its button is enabled once a translation that carries every layer's and head's attention has finished
(a Transformer's; an RNN's has one map, the tab's own) and says why it is not otherwise. The window
opens beside the tab and follows: each later translation of such a model is drawn in it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QT_TRANSLATE_NOOP, QObject
from PySide6.QtWidgets import QToolButton, QWidget

from engine.networks import AttentionLayers, attention_layers
from gui.attention.model_view import ModelView

if TYPE_CHECKING:
    from engine.decoding import Translation  # imports torch: the window opens before it is loaded

ENABLED_TIP = QT_TRANSLATE_NOOP(
    "ModelViewLink", "Every layer and head of this Transformer at once: its encoder's and decoder's self-attention "
    "and its cross-attention, as a grid of small maps (click one to open it large)")
DISABLED_TIP = QT_TRANSLATE_NOOP(
    "ModelViewLink", "Layers and heads: for a Transformer model, after a translation has finished (an RNN has one "
    "attention map: the one below)")


class ModelViewLink(QObject):
    """Owns the Layers button's state and the window it opens; a cell hovered there is pointed at in the tab's
    source and output strips (``sources`` and ``outputs``: anything with ``highlight(index)``, -1 for none)."""

    def __init__(self, button: QToolButton, window_parent: QWidget, sources=None, outputs=None) -> None:
        super().__init__(window_parent)
        self.button, self.window_parent = button, window_parent
        self.sources, self.outputs = sources, outputs
        self.window: ModelView | None = None
        self._translation: Translation | None = None  # the last one with every layer's attention
        self._maps: AttentionLayers | None = None  # its maps, assembled when first asked for
        button.clicked.connect(self.open)
        self._set_translation(None)

    def run_started(self) -> None:
        """Until the new translation finishes, the window (if open) keeps the last one's maps."""
        self._set_translation(None)

    def finished(self, translation: Translation) -> None:
        self._set_translation(translation if translation.encoder_attention is not None else None)
        if self.window is not None and self.window.isVisible() and self.maps is not None:
            self.window.show_maps(self.maps)

    @property
    def maps(self) -> AttentionLayers | None:
        """The last Transformer translation's maps (assembled once, when the window first needs them)."""
        if self._maps is None and self._translation is not None:
            found = self._translation
            self._maps = attention_layers(found.source_tokens, found.tokens, found.encoder_attention, found.steps)
        return self._maps

    def _set_translation(self, translation: Translation | None) -> None:
        self._translation, self._maps = translation, None
        self.button.setEnabled(translation is not None)
        self.button.setToolTip(self.tr(ENABLED_TIP if translation is not None else DISABLED_TIP))

    def open(self) -> None:
        if self.maps is None:
            return
        if self.window is None:
            self.window = ModelView(self.window_parent)
            self.window.cellHovered.connect(self._point_at)
        self.window.show_maps(self.maps)
        self.window.show()
        self.window.raise_()

    def _point_at(self, kind: str, row: int, column: int) -> None:
        """The hovered cell's tokens in the tab's strips: its source column (cross-attention, and the encoder's map:
        the token attended to) and its output row (cross-attention, and the decoder's map: the step)."""
        source = column if kind in ("cross", "encoder") else -1
        output = row if kind in ("cross", "decoder") else -1
        if self.sources is not None:
            self.sources.highlight(source)
        if self.outputs is not None:
            self.outputs.highlight(output)
