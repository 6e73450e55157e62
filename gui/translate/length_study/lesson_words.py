"""The length study's lesson in the interface's language: engine.studies.length_reading's sentence, said
from the same figures and the same rule with translatable words.

The engine words it in English (the CLI, the reports and docs/why-attention.md use that); the Length study's
caption says it here, where each phrase is a message of the catalog. In English the two are the same text,
which ``tests/gui/test_length_lesson_words.py`` checks for every case of the rule, so that the rule has one
owner (the engine) and the two wordings cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import QCoreApplication

from engine.studies import LONG, SHORT, LengthLesson
from gui.i18n import fill


def lesson_sentence(lesson: LengthLesson, labels: Mapping[str, str] | None = None) -> str:
    """``lesson.sentence(labels)``, in the interface's language."""
    name = (labels or {}).get(lesson.best, lesson.best)
    kept = fill(QCoreApplication.translate("LengthLesson", "keeps %1 of its %2-token BLEU on %3 tokens (%4 against %5)"),
                f"{lesson.kept:.0%}", SHORT, LONG, f"{lesson.best_long:.1f}", f"{lesson.best_short:.1f}")
    if lesson.fixed_long is None:
        return _without_fixed(lesson, name, kept)
    fixed = (QCoreApplication.translate("LengthLesson", "the fixed C keeps %1").replace("%1", f"{lesson.fixed_kept:.0%}")
             if lesson.fixed_kept is not None else QCoreApplication.translate("LengthLesson", "the fixed C"))
    best_long, fixed_long = f"{lesson.best_long:.1f}", f"{lesson.fixed_long:.1f}"
    if lesson.fixed_not_behind:
        return fill(QCoreApplication.translate(
            "LengthLesson", "On %1 tokens the fixed C (%2 BLEU) is not behind the best attention scorer (%3, %4): "
            "these models do not show attention's advantage."), LONG, fixed_long, name, best_long)
    times = (QCoreApplication.translate("LengthLesson", "%1× C's BLEU").replace("%1", f"{lesson.times_fixed:.1f}")
             if lesson.times_fixed is not None else QCoreApplication.translate("LengthLesson", "where C scores nothing"))
    if lesson.holds:
        return fill(QCoreApplication.translate(
            "LengthLesson", "With attention, long inputs hold up: %1 %2, while %3 (%4 BLEU); on %5 tokens attention "
            "scores %6."), name, kept, fixed, fixed_long, LONG, times)
    if lesson.all_fall:
        how = (QCoreApplication.translate("LengthLesson", "but attention falls less") if lesson._falls_less()  # noqa: SLF001
               else QCoreApplication.translate("LengthLesson", "and attention falls as far, from higher up"))
        return fill(QCoreApplication.translate(
            "LengthLesson", "Every line falls with length — longer inputs are harder for every model — %1: %2 %3, %4; "
            "on %5 tokens attention scores %6 (%7 against %8)."), how, name, kept, fixed, LONG, times, best_long,
            fixed_long)
    return fill(QCoreApplication.translate(
        "LengthLesson", "Long inputs are harder: the best scorer on the longest inputs, %1, %2, %3; on %4 tokens "
        "attention scores %5 (%6 against %7)."), name, kept, fixed, LONG, times, best_long, fixed_long)


def _without_fixed(lesson: LengthLesson, name: str, kept: str) -> str:
    """The sentence when no fixed-C model was studied: how the best scorer keeps up on long inputs."""
    if lesson.holds:
        verb = QCoreApplication.translate("LengthLesson", "Long inputs hold up")
    elif lesson.all_fall:
        verb = QCoreApplication.translate("LengthLesson", "Every line falls with length")
    else:
        verb = QCoreApplication.translate("LengthLesson", "Long inputs are harder")
    return fill(QCoreApplication.translate("LengthLesson", "%1: the best scorer on the longest inputs, %2, %3."),
                verb, name, kept)
