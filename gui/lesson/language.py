"""Which language the chapters are read in: the interface's (gui/i18n.py chooses it — the system
locale or the Language menu); a language without chapters of its own reads the English ones."""

from __future__ import annotations

import importlib

from PySide6.QtCore import QLocale

LESSON_LANGUAGES = ("en", "zh_CN")  # the folders of resources/lessons/


def lesson_language(name: str | None = None) -> str:
    """The chapters' folder for the interface language ``name`` (a locale name such as "zh_CN", "zh_TW",
    "en_GB"; by default the one the interface uses): "zh_CN" for Chinese, else "en"."""
    if name is None:
        name = interface_language()
    return "zh_CN" if name.lower().startswith("zh") else "en"


def interface_language() -> str:
    """The interface's language: gui/i18n.py's choice when it offers one, else Qt's default locale (which
    follows the system's)."""
    try:
        i18n = importlib.import_module("gui.i18n")
    except ImportError:
        i18n = None
    current = getattr(i18n, "current_language", None)
    if callable(current):
        chosen = current()
        if isinstance(chosen, str) and chosen:
            return chosen
    return QLocale().name()


def language_changed():
    """gui/i18n.py's ``languageChanged(str)`` signal (None where the app has no language switch)."""
    try:
        i18n = importlib.import_module("gui.i18n")
        return i18n.language_hub().languageChanged
    except (ImportError, AttributeError, RuntimeError):
        return None
