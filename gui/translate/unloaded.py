"""The model folders the catalog could not use, said rather than left out in silence: a "models not
loaded" button beside the model choices (hidden when every folder loaded) whose menu lists each folder
with the engine's reason (engine.records.catalog.scan)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QMenu, QToolButton, QWidget

if TYPE_CHECKING:
    from engine.records import UnusableFolder

MENU_TEXT_CHARS = 160  # a reason longer than this is cut in the menu (the tooltip holds it whole)


def unloaded_label(count: int) -> str:
    """The warning that ``count`` model folders could not be loaded."""
    if count == 1:
        return QCoreApplication.translate("UnloadedModels", "⚠ 1 model not loaded")
    return QCoreApplication.translate("UnloadedModels", "⚠ %1 models not loaded").replace("%1", str(count))


def unloaded_lines(folders: Sequence[UnusableFolder]) -> list[str]:
    """One line per folder: its name and why it was left out (the reason without its path, which the
    name already gives)."""
    lines = []
    for item in folders:
        the_folder = QCoreApplication.translate("UnloadedModels", "the folder")
        reason = item.reason.replace(f"{item.folder}/", "").replace(str(item.folder), the_folder)
        lines.append(f"{item.folder.name}: {reason}")
    return lines


class UnloadedModels(QToolButton):
    """'⚠ N models not loaded', with a menu of the folders and their reasons."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("unloadedModelsButton")
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.setMenu(QMenu(self))
        self.lines: list[str] = []
        self.show_folders([])

    def show_folders(self, folders: Sequence[UnusableFolder]) -> None:
        self.lines = unloaded_lines(folders)
        menu = self.menu()
        menu.clear()
        for item, line in zip(folders, self.lines, strict=True):
            action = menu.addAction(line if len(line) <= MENU_TEXT_CHARS else line[: MENU_TEXT_CHARS - 1] + "…")
            action.setToolTip(f"{item.folder}\n{item.reason}")
            action.setEnabled(False)  # information only: nothing to choose
        menu.setToolTipsVisible(True)
        self.setText(unloaded_label(len(self.lines)))
        self.setToolTip(self.tr("Model folders that were found but could not be used:") + "\n" + "\n".join(self.lines))
        self.setVisible(bool(self.lines))
