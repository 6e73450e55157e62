"""The Language menu: System / English / 中文, a button in the corner of the main window's tab bar.

The button names itself in both languages ("Language · 语言") so that whoever cannot read the current one
still finds it; the languages are named in their own script. Choosing one switches the interface at once
(:func:`gui.i18n.set_language`, remembered) and reports a missing or damaged catalog in one line.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu, QToolButton, QWidget

from gui.i18n import CHOICES, language_hub, set_language

BUTTON_TEXT = "Language · 语言"  # both languages, never translated
# How each language is named in the menu: in its own script; "System" is the one translated item.
NATIVE_NAMES = {"en": "English", "zh_CN": "中文"}


class LanguageButton(QToolButton):
    """A button opening the Language menu; ``on_problem`` receives a missing or damaged catalog's line."""

    def __init__(self, on_problem: Callable[[str], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("languageButton")
        self.setText(BUTTON_TEXT)
        self.setToolTip(self.tr("The language of the interface (messages from the engine stay English)"))
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.setAutoRaise(True)
        self._on_problem = on_problem
        menu = QMenu(self)
        menu.setObjectName("languageMenu")
        self.group = QActionGroup(self)
        self.group.setExclusive(True)
        self.choice_actions: dict[str, QAction] = {}
        for choice in CHOICES:
            action = QAction(self._name(choice), self)
            action.setObjectName(f"language_{choice}")
            action.setCheckable(True)
            action.setData(choice)
            self.group.addAction(action)
            menu.addAction(action)
            self.choice_actions[choice] = action
        self.setMenu(menu)
        self.group.triggered.connect(self._chosen)
        self.sync()

    def _name(self, choice: str) -> str:
        return self.tr("System") if choice == "system" else NATIVE_NAMES[choice]

    def sync(self) -> None:
        """Check the remembered choice."""
        action = self.choice_actions.get(language_hub().choice)
        if action is not None:
            action.setChecked(True)

    def choose(self, choice: str) -> None:
        """Switch to ``choice`` as if it were picked from the menu."""
        self.choice_actions[choice].setChecked(True)
        self._chosen(self.choice_actions[choice])

    def _chosen(self, action: QAction) -> None:
        problem = set_language(str(action.data()))
        if problem:
            self._on_problem(problem)
        self.sync()
