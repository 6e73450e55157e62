"""Choosing a font that renders Chinese, at start-up.

Qt falls back per character, but only to fonts it knows to cover the script; naming a CJK family
explicitly as the application's second family makes Chinese render the same everywhere (widgets,
the heatmap's axis labels, exports). When no such font is installed the app says so.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QT_TRANSLATE_NOOP
from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import QApplication

PREFERRED_CJK_FAMILIES = (
    "Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "Source Han Sans CN", "Microsoft YaHei",
    "PingFang SC", "Hiragino Sans GB", "WenQuanYi Micro Hei", "WenQuanYi Zen Hei", "Heiti SC", "SimHei",
    "Noto Sans CJK TC", "Noto Sans CJK JP", "Droid Sans Fallback", "AR PL UMing CN", "SimSun",
)
NO_CJK_WARNING = QT_TRANSLATE_NOOP(  # shown through QCoreApplication.translate("Fonts", NO_CJK_WARNING)
    "Fonts",
    "No Chinese font found: Chinese text may show as empty boxes. "
    "Install one (e.g. Noto Sans CJK: the fonts-noto-cjk package) and restart.",
)


def pick_cjk_family(available: Iterable[str], chinese_capable: Iterable[str] = ()) -> str | None:
    """The preferred CJK family among ``available``, else any family known to cover Chinese."""
    names = set(available)
    for family in PREFERRED_CJK_FAMILIES:
        if family in names:
            return family
    return next(iter(chinese_capable), None)


def apply_cjk_font(app: QApplication) -> str | None:
    """Add a CJK family after the default one in the application font; returns it (None if none)."""
    family = pick_cjk_family(
        QFontDatabase.families(), QFontDatabase.families(QFontDatabase.WritingSystem.SimplifiedChinese)
    )
    if family is None:
        return None
    font = QFont(app.font())
    primary = font.family()
    font.setFamilies([primary, family] if primary and primary != family else [family])
    app.setFont(font)
    return family
