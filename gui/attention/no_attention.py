"""What a model without attention shows in place of its map (the fixed context C of plain seq2seq): the
note that says why, and the mechanisms of the registry (engine/settings/scorer_table.py) it suggests instead."""

from __future__ import annotations

import html
from collections.abc import Mapping

from PySide6.QtCore import QCoreApplication

from engine.settings import SCORER_TABLE, ScorerInfo  # torch-free
from gui.scorer_labels import scorer_label


def short_label(label: str) -> str:
    """A mechanism's label without its parenthesis: ``Additive (Bahdanau)`` → ``Additive``."""
    return label.split(" (", 1)[0]


def no_attention_note(table: Mapping[str, ScorerInfo] = SCORER_TABLE) -> str:
    """What the panel shows for a model without attention; the mechanisms it suggests instead are
    every one of the registry (engine/settings/scorer_table.py) that attends."""
    names = [html.escape(short_label(scorer_label(info))) for info in table.values() if info.uses_attention]
    separator = QCoreApplication.translate("NoAttention", ", ")
    choices = names[0] if len(names) < 2 else QCoreApplication.translate("NoAttention", "%1 or %2").replace(
        "%1", separator.join(names[:-1])).replace("%2", names[-1])
    return QCoreApplication.translate(
        "NoAttention",
        "<h3>No attention: every step sees the same C</h3>"
        "<p>This model is the plain encoder–decoder of Sutskever et al. and Cho et al. (2014): the encoder "
        "squeezes the whole sentence into one fixed vector C, and every decoding step reads that same C. "
        "There are no weights α<sub>ij</sub>, so there is no heatmap to draw.</p>"
        "<p>Switch the scorer to %1 to watch each output token look back at "
        "the source tokens it needs, and compare the translations of long sentences.</p>",
    ).replace("%1", choices)
