"""The Lesson panel (objectName ``lessonPanel``): the chapters, one at a time, with Show me and Try it.

Left, the chapters (a ✓ marks one whose Try it is done); middle, the chapter's text (Markdown with its
formulas, read from resources/lessons/, gui/lesson/chapter.py); right, **Show me** (the window is put
in the state the text talks about, gui/lesson/runner.py) and **Try it** (the chapter's tasks, met live
from the window's events, in order, gui/lesson/checks.py), with *Reset chapter*. A chapter that cannot
be used — a damaged file, a model that is not installed — says why on its own line; the others work.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from gui.lesson import progress
from gui.lesson.chapter import Chapter, load_chapters
from gui.lesson.checks import TryProgress
from gui.lesson.host import LessonHost
from gui.lesson.language import language_changed, lesson_language
from gui.lesson.runner import ShowMe

DONE, WAITING, LATER = "✓", "→", "○"


class LessonPanel(QWidget):
    """Every chapter of ``root`` (resources/lessons) in the interface's language, driving ``host``."""

    chapterShown = Signal(str)  # the chapter's key
    tryDone = Signal(str)  # a chapter's Try it was completed (its key)

    def __init__(self, host: LessonHost, root: Path, language: Callable[[], str] = lesson_language,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lessonPanel")
        self.host = host
        self.root = root
        self._language = language
        self.chapters: list[Chapter] = []
        self.chapter: Chapter | None = None
        self.trying = TryProgress(())
        self.show_me_ms: float | None = None  # how long the last Show me took
        self.runner = ShowMe(host, self)
        self.list = QListWidget()
        self.list.setObjectName("lessonChapters")
        self.list.setFixedWidth(250)
        self.list.setWordWrap(True)
        self.list.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.text = QTextBrowser()
        self.text.setObjectName("lessonText")
        self.text.setOpenExternalLinks(True)
        self.problem = QLabel()
        self.problem.setObjectName("lessonProblem")
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("color: #b00020;")
        self.show_button = QPushButton(self.tr("Show me"))
        self.show_button.setObjectName("lessonShowMeButton")
        self.show_button.setToolTip(self.tr("Put the app in the state this chapter talks about"))
        self.status = QLabel()
        self.status.setObjectName("lessonStatus")
        self.status.setWordWrap(True)
        self.try_heading = QLabel(self.tr("Try it"))
        self.try_heading.setStyleSheet("font-weight: bold;")
        self.tasks = QLabel()
        self.tasks.setObjectName("lessonTasks")
        self.tasks.setWordWrap(True)
        self.tasks.setTextFormat(Qt.TextFormat.RichText)
        self.tasks.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.reset_button = QPushButton(self.tr("Reset chapter"))
        self.reset_button.setObjectName("lessonResetButton")
        self.reset_button.setToolTip(self.tr("Forget this chapter's Try it progress and start it again"))
        buttons = QHBoxLayout()
        buttons.addWidget(self.show_button, 1)
        buttons.addWidget(self.reset_button)
        side = QVBoxLayout()
        side.setContentsMargins(0, 0, 0, 0)
        side.setSpacing(4)
        side.addWidget(self.problem)
        side.addLayout(buttons)
        side.addWidget(self.status)
        side.addWidget(self.try_heading)
        side.addWidget(self.tasks, 1)
        side_widget = QWidget()
        side_widget.setLayout(side)
        side_widget.setFixedWidth(310)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.list)
        layout.addWidget(self.text, 1)
        layout.addWidget(side_widget)
        self.list.currentRowChanged.connect(self._on_row)
        self.show_button.clicked.connect(self.show_me)
        self.reset_button.clicked.connect(self.reset_chapter)
        self.runner.progressed.connect(self._on_progress)
        self.runner.finished.connect(self._on_shown)
        self.runner.failed.connect(self._on_failed)
        host.events.happened.connect(self.observe)
        host.events.modelsChanged.connect(self._check_models)
        changed = language_changed()  # the interface switched language: the chapters follow
        if changed is not None:
            changed.connect(self._on_language)
        self.reload()

    def _on_language(self, _language: str) -> None:
        self.reload()

    # -- chapters ---------------------------------------------------------------------------
    def reload(self) -> None:
        """Read the chapters again (at start and when the interface's language changes)."""
        key = self.chapter.key if self.chapter is not None else progress.last_chapter()
        self.chapters = load_chapters(self.root, self._language())
        self.list.blockSignals(True)
        self.list.clear()
        for number, chapter in enumerate(self.chapters, 1):
            self.list.addItem(QListWidgetItem(f"{number}. {chapter.title}"))
        self.list.blockSignals(False)
        self._refresh_marks()
        keys = [c.key for c in self.chapters]
        if self.chapters:
            self.list.setCurrentRow(keys.index(key) if key in keys else 0)
            self._on_row(self.list.currentRow())

    def chapter_index(self, key: str) -> int:
        return [c.key for c in self.chapters].index(key)

    def open_chapter(self, key: str) -> None:
        self.list.setCurrentRow(self.chapter_index(key))

    def _refresh_marks(self) -> None:
        for row, chapter in enumerate(self.chapters):
            item = self.list.item(row)
            done = bool(chapter.tries) and progress.met(chapter.key, len(chapter.tries)) == len(chapter.tries)
            mark = "⚠ " if chapter.problem else (DONE + " " if done else "")
            item.setText(f"{mark}{row + 1}. {chapter.title}")
            item.setToolTip(chapter.problem)

    def _on_row(self, row: int) -> None:
        if not 0 <= row < len(self.chapters):
            return
        self.runner.cancel()
        chapter = self.chapters[row]
        self.chapter = chapter
        progress.remember_chapter(chapter.key)
        self.trying = TryProgress(chapter.tries, progress.met(chapter.key, len(chapter.tries)))
        self.status.setText("")
        if chapter.problem:
            self.text.setHtml("")
        else:
            self.text.setMarkdown(f"## {chapter.title}\n\n{chapter.body}")
        self._check_models()
        self._show_tasks()
        self.chapterShown.emit(chapter.key)

    def _check_models(self) -> None:
        """Say, on the chapter's line, what keeps it from being used (Show me off until it is fixed)."""
        chapter = self.chapter
        if chapter is None:
            return
        problem = ""
        if chapter.problem:
            problem = self.tr("This chapter cannot be used: %1 (%2/%3.md)").replace("%1", chapter.problem).replace(
                "%2", chapter.language).replace("%3", chapter.key)
        else:
            missing = [name for name in chapter.models if self.host.has_model(name) is False]
            if missing:
                problem = self.tr("This chapter needs the model %1, which is not installed.").replace(
                    "%1", ", ".join(missing))
        self.problem.setText(problem)
        self.problem.setVisible(bool(problem))
        self.show_button.setEnabled(not problem and bool(chapter.show))

    # -- Show me ----------------------------------------------------------------------------
    def show_me(self) -> None:
        chapter = self.chapter
        if chapter is None or not self.show_button.isEnabled():
            return
        self.status.setText(self.tr("Showing…"))
        self.runner.run(chapter.show)

    def _on_progress(self, action: str) -> None:
        waiting = {"select_model": self.tr("Loading the model…"), "translate": self.tr("Translating…"),
                   "compare": self.tr("Decoding with every scorer…")}
        self.status.setText(waiting.get(action, self.tr("Showing…")))

    def _on_shown(self, milliseconds: float) -> None:
        self.show_me_ms = milliseconds
        self.status.setText(self.tr("Shown. Now read the chapter and try it."))

    def _on_failed(self, message: str) -> None:
        self.status.setText(self.tr("Show me stopped: %1").replace("%1", message))

    # -- Try it -----------------------------------------------------------------------------
    def observe(self, kind: str, data: Any) -> None:
        """One of the window's events: does it meet the chapter's next task?"""
        chapter = self.chapter
        if self.runner.running:  # what Show me itself does is not the learner's try
            return
        if chapter is None or chapter.problem or not self.trying.observe(kind, data or {}):
            return
        progress.remember(chapter.key, self.trying.met)
        self._show_tasks()
        if self.trying.done:
            self._refresh_marks()
            self.tryDone.emit(chapter.key)

    def reset_chapter(self) -> None:
        if self.chapter is None:
            return
        progress.reset(self.chapter.key)
        self.trying.reset()
        self._show_tasks()
        self._refresh_marks()

    def _show_tasks(self) -> None:
        lines = []
        for index, check in enumerate(self.trying.checks):
            mark = DONE if index < self.trying.met else WAITING if index == self.trying.met else LATER
            style = "color: #2e7d32;" if index < self.trying.met else ""
            lines.append(f"<div style='{style} margin-bottom: 4px;'>{mark} {escape(check.say)}</div>")
        if self.trying.done:
            lines.append("<div><b>" + escape(self.tr("Done! On to the next chapter.")) + "</b></div>")
        self.tasks.setText("".join(lines) or escape(self.tr("Nothing to try in this chapter.")))
        self.reset_button.setEnabled(self.trying.met > 0)
