"""The Compare tab's status lines (gui/compare/decisions.py's :class:`Status`) in the interface's language."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from gui.compare.decisions import Status

CONTEXT = "CompareTab"  # the catalogs' context of these messages (they were the tab's own)
TEXTS = {
    Status.TYPE_FIRST: QT_TRANSLATE_NOOP("CompareTab", "Type a sentence first."),
    Status.NOTHING_TO_COMPARE: QT_TRANSLATE_NOOP("CompareTab", "Nothing to compare: %1."),
    Status.LOADING: QT_TRANSLATE_NOOP("CompareTab", "Loading the models…"),
    Status.NO_MODEL: QT_TRANSLATE_NOOP("CompareTab", "No model for this direction."),
    Status.READY: QT_TRANSLATE_NOOP("CompareTab", "Ready: type a sentence and press Enter."),
    Status.DECODING: QT_TRANSLATE_NOOP("CompareTab", "Decoding with every scorer…"),
    Status.DONE_SHARED: QT_TRANSLATE_NOOP("CompareTab", "Done: every map shows the same target."),
    Status.SCORING: QT_TRANSLATE_NOOP("CompareTab", "Scoring “%1” under every model…"),
    Status.LONG_INPUT: QT_TRANSLATE_NOOP("CompareTab", "Long input: %1. Only that part is compared."),
    Status.DONE_OWN: QT_TRANSLATE_NOOP("CompareTab", "Done: each map shows its own output. Choose a shared target "
                                                     "to subtract two maps."),
}


def status_text(status: Status, notice: str = "") -> str:
    """The status line of ``status`` in the interface's language (``notice``: what it names, e.g. what the
    models could not read)."""
    return QCoreApplication.translate(CONTEXT, TEXTS[status]).replace("%1", notice)
