"""The scorers' labels in the interface's language (the engine's scorer table holds them in English).

Every view that names a scorer (the Translate tab's box and status line, Compare's panels, the Length
study) carries the scorer's registry row (engine.settings.scorer_row) and asks :func:`scorer_label` for
its label; a scorer added to the table without a line here stays English, and ``tests/gui/test_i18n.py``
fails until it has one. A formula's mathematics is never translated; its few words are (:func:`scorer_formula`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

if TYPE_CHECKING:
    from engine.settings import ScorerInfo

CONTEXT = "ScorerLabels"
# engine/settings/scorer_table.py's labels, for lupdate to extract (the translation is looked up by the label).
LABELS = (
    QT_TRANSLATE_NOOP("ScorerLabels", "Additive (Bahdanau)"),
    QT_TRANSLATE_NOOP("ScorerLabels", 'Bilinear (Luong "general")'),
    QT_TRANSLATE_NOOP("ScorerLabels", "Dot product"),
    QT_TRANSLATE_NOOP("ScorerLabels", "Scaled dot product"),
    QT_TRANSLATE_NOOP("ScorerLabels", "None (fixed context C)"),
    QT_TRANSLATE_NOOP("ScorerLabels", "Multi-head (Vaswani, 4 heads)"),
    QT_TRANSLATE_NOOP("ScorerLabels", "Transformer (Vaswani)"),
)


def scorer_label(row: ScorerInfo) -> str:
    """The label of the scorer whose registry row ``row`` is, in the interface's language (English where
    the catalog has no translation of it: a new row, or one the registry does not hold)."""
    return QCoreApplication.translate(CONTEXT, row.label)


FORMULA_CONTEXT = "ScorerFormulas"
# The words inside the registry's formulas (engine/settings/scorer_table.py), longest first: a shorter one that
# is part of a longer one ("last layer" of "in the last layer") is then never replaced inside it.
FORMULA_WORDS = (
    QT_TRANSLATE_NOOP("ScorerFormulas", "each layer; x_i: the layer's input"),
    QT_TRANSLATE_NOOP("ScorerFormulas", "no attention weights"),
    QT_TRANSLATE_NOOP("ScorerFormulas", "4 scaled-dot heads"),
    QT_TRANSLATE_NOOP("ScorerFormulas", "in the last layer"),
    QT_TRANSLATE_NOOP("ScorerFormulas", "for every step i"),
    QT_TRANSLATE_NOOP("ScorerFormulas", "last layer"),
    QT_TRANSLATE_NOOP("ScorerFormulas", "with"),
)


def scorer_formula(formula: str) -> str:
    """A registry formula (its score, context or brief form) with its words in the interface's language and its
    mathematics as written: "… √(d/4)) in the last layer" → "… √(d/4))（最后一层）"."""
    for words in FORMULA_WORDS:
        translated = QCoreApplication.translate(FORMULA_CONTEXT, words)
        if translated != words:
            pattern = re.compile(r"(?<![\w])" + re.escape(words) + r"(?![\w])")
            formula = pattern.sub(translated.replace("\\", "\\\\"), formula)
    return formula
