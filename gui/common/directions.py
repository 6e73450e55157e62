"""Languages and directions named in the interface's language: "Chinese → English" for ``zh-en``,
"Dates → ISO 8601" for the dates task (the Translate and Compare tabs' direction boxes, the badge of a
travelled model). Shared by the tabs, so it lives here (a tab never imports another tab)."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

LANGUAGE_NAMES = {"zh": QT_TRANSLATE_NOOP("Languages", "Chinese"), "en": QT_TRANSLATE_NOOP("Languages", "English"),
                  "dates-src": QT_TRANSLATE_NOOP("Languages", "Dates"), "iso": "ISO 8601"}


def language_name(code: str) -> str:
    """The language's name in the interface's language ("Chinese", "中文"); an unknown code as it is."""
    name = LANGUAGE_NAMES.get(code)
    return QCoreApplication.translate("Languages", name) if name else code


def direction_label(source_language: str, target_language: str) -> str:
    """E.g. "Chinese → English", "Dates → ISO 8601"."""
    return f"{language_name(source_language)} → {language_name(target_language)}"


def label_of_direction(direction: str) -> str:
    """'Chinese → English' for 'zh-en', 'Dates → ISO 8601' for 'dates-src-iso' (a language code may hold a
    hyphen: the known ones are matched first); never the bare key of two codes."""
    for source in sorted(LANGUAGE_NAMES, key=len, reverse=True):
        if direction.startswith(source + "-"):
            return direction_label(source, direction[len(source) + 1:])
    source, _, target = direction.partition("-")
    return direction_label(source, target) if target else direction
