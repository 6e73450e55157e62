"""Reading remembered settings (QSettings) with a type and range check.

A settings file is the user's to edit, and an older or newer version of the app may have written
it: every value read here falls back to its default when it is missing, of the wrong type or out
of range, so that no stored setting can stop the app from starting.
"""

from __future__ import annotations

from PySide6.QtCore import QSettings


def stored_int(settings: QSettings, key: str, default: int, low: int, high: int) -> int:
    """An integer setting within [low, high]; anything else gives ``default``."""
    value = settings.value(key, default)
    try:
        number = int(str(value).strip())
    except (TypeError, ValueError):
        return default
    return number if low <= number <= high else default


def stored_text(settings: QSettings, key: str, default: str | None = None) -> str | None:
    """A text setting; a value that is not text (a list, a number written by hand) gives ``default``."""
    value = settings.value(key, default)
    return value if isinstance(value, str) else default


def stored_flag(settings: QSettings, key: str, default: bool) -> bool:
    """A yes/no setting: a bool, or the text "true" / "false" an INI file holds; anything else gives ``default``."""
    value = settings.value(key, default)
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return default


def use_settings_folder(folder: str) -> None:
    """Keep this process's remembered settings in ``folder`` (an INI file there), never the user's own:
    for the tests, the benchmarks and the screenshots, which must start as a new user does and leave
    the user's settings untouched. Call it before the first QSettings is made."""
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, folder)
