"""Why a Show me action cannot be done, in the interface's language (the window raises them as
gui/lesson/host.ActionError; the panel shows the line)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication


def _say(text: str, *values: object) -> str:
    for number, value in enumerate(values, 1):
        text = text.replace(f"%{number}", str(value))
    return text


def model_missing(name: str) -> str:
    """The host's refusal: the chapter's model ``name`` is not installed."""
    return _say(QCoreApplication.translate("LessonHost", "the model %1 is not installed"), name)


def not_translated(hint: str) -> str:
    """The host's refusal: the Translate tab did not translate (``hint`` says why)."""
    return _say(QCoreApplication.translate("LessonHost", "the Translate tab did not translate: %1"),
                hint or QCoreApplication.translate("LessonHost", "no model in use"))


def no_such_word(word: str, output: str) -> str:
    """The host's refusal: the ``output`` has no word ``word``."""
    return _say(QCoreApplication.translate("LessonHost", "the output has no word “%1” (it reads: %2)"), word, output)


def no_shared_target() -> str:
    """The host's refusal: the Compare tab has no shared target yet."""
    return QCoreApplication.translate("LessonHost", "the Compare tab offers no shared target yet (compare a sentence first)")


def no_attention() -> str:
    """The host's refusal: the model has no attention to set."""
    return QCoreApplication.translate("LessonHost", "this model has no attention to set")


def train_tab_not_ready() -> str:
    """The host's refusal: the Train tab is not ready."""
    return QCoreApplication.translate("LessonHost", "the Train tab is not ready")


def no_corpus(corpus: str) -> str:
    """The host's refusal: the Train tab offers no ``corpus`` corpus."""
    return _say(QCoreApplication.translate("LessonHost", "the Train tab offers no %1 corpus"), corpus)


def no_widget(name: str) -> str:
    """The host's refusal: no widget named ``name`` is on screen."""
    return _say(QCoreApplication.translate("LessonHost", "no widget %1 on screen"), name)


def unknown_action(name: str) -> str:
    """The host's refusal: a chapter asked for an action ``name`` it does not know."""
    return _say(QCoreApplication.translate("LessonHost", "unknown action %1"), name)
