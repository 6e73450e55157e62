"""What the main window asks of every tab, and nothing else: ``StudioTab``.

The main window keeps its tabs in one list and loops over it at start-up, when a tab is chosen,
when it saves its settings and when it closes (gui/main_window.py); a tab added to that list is
started, saved and shut down without another line there. A tab is a ``QWidget`` (the page the
window shows under ``title``) with these members; it need not inherit anything (a structural
protocol: Qt's widgets cannot also take ``typing.Protocol``'s metaclass).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

DECODE_STOP_MS = 3000  # a decoding step takes milliseconds; a model load cannot be interrupted


@dataclass(frozen=True)
class CloseQuestion:
    """What a tab asks before the window closes (a training run in progress): yes closes."""

    title: str
    text: str


@runtime_checkable
class StudioTab(Protocol):
    """One tab of the main window."""

    title: str  # the tab's label
    shutdown_ms: int  # how long closing waits for the tab's threads (tabs stop quickest first)

    def start(self) -> None:
        """The window is up: begin what the tab does in the background from the start (or nothing)."""

    def shown(self) -> None:
        """The tab became the current one (a tab may build or load what it shows the first time)."""

    def save_settings(self) -> None:
        """Write the choices the tab remembers between sessions (QSettings), if any."""

    def close_question(self) -> CloseQuestion | None:
        """What to ask before the window closes while this tab works (None: nothing to ask)."""

    def shutdown(self, timeout_ms: int) -> bool:
        """Stop every job of the tab and wait at most ``timeout_ms``; True when all threads ended.
        No new job starts afterwards."""
