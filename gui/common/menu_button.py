"""A tool button that opens its menu on a click (the tabs' Examples, History and Export buttons)."""

from __future__ import annotations

from PySide6.QtWidgets import QMenu, QToolButton


def menu_button(text: str, tooltip: str, name: str) -> tuple[QToolButton, QMenu]:
    """The button (objectName ``name``) and its menu, to be filled by the caller."""
    button = QToolButton()
    button.setObjectName(name)
    button.setText(text)
    button.setToolTip(tooltip)
    button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
    menu = QMenu(button)
    button.setMenu(menu)
    return button, menu
