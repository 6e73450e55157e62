"""The input's status line for an input in another language than the model's source
(engine.text.language_check): what is wrong, and one click each to switch direction, translate it
anyway, or stop being asked. Widgets only; :func:`notice_text` words it (plain function, tested).

Two forms:

- **refused** (the check is on): the input was not decoded; *Switch to …* (when a model reads the
  language it looks like), *Translate anyway*, *Don't ask again*.
- **noted** (the check is off): the input was decoded as asked; the line still says what it looks
  like, with *Switch to …* and *Ask before translating such input* (the setting back on).

Object names: ``languageNotice``, ``languageNoticeText``, ``switchDirectionButton``,
``translateAnywayButton``, ``stopAskingButton``, ``askAgainButton``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from engine.text import Verdict, language_name  # torch-free
from gui.i18n import fill

if TYPE_CHECKING:
    from engine.text import LanguageCheck

NOTICE_STYLE = "QFrame#languageNotice { background: #fff4e0; border: 1px solid #e0b060; border-radius: 3px; }"


def notice_text(check: LanguageCheck, direction_label: str, decoded: bool) -> str:
    """One sentence for the status line: why ``check`` failed for the model translating
    ``direction_label``, and whether the input was decoded all the same (``decoded``)."""
    if check.verdict is Verdict.WRONG_LANGUAGE and check.detected is not None:
        language = QCoreApplication.translate("Languages", language_name(check.detected))
        what = fill(QCoreApplication.translate(
            "LanguageNotice", "this looks like %1 (%2 of its letters), but the model translates %3"),
            language, f"{1 - check.script_share:.0%}", direction_label)
    else:
        what = check.message  # the engine's words (English)
    if decoded:
        return QCoreApplication.translate("LanguageNotice", "⚠ Translated as asked, though %1: expect noise.").replace(
            "%1", what)
    return QCoreApplication.translate("LanguageNotice", "⚠ Not translated: %1 — it would decode noise.").replace(
        "%1", what)


class LanguageNotice(QFrame):
    """The status line under the input while the input is not in the model's source language."""

    switchRequested = Signal(str)  # the direction to switch to (its key, e.g. "en-zh")
    anywayRequested = Signal(str)  # the text: decode it as it is, this once
    askingChanged = Signal(bool)  # False: "Don't ask again" (and decode it); True: "Ask before translating …"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("languageNotice")
        self.setStyleSheet(NOTICE_STYLE)
        self.label = QLabel()
        self.label.setObjectName("languageNoticeText")
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.switch_button = QPushButton()
        self.switch_button.setObjectName("switchDirectionButton")
        self.anyway_button = QPushButton(self.tr("Translate anyway"))
        self.anyway_button.setObjectName("translateAnywayButton")
        self.anyway_button.setToolTip(self.tr("Decode this input with the model in use, this once"))
        self.stop_button = QPushButton(self.tr("Don't ask again"))
        self.stop_button.setObjectName("stopAskingButton")
        self.stop_button.setToolTip(self.tr("Translate it, and from now on translate such input without asking "
                                            "(this line still says what it looks like)"))
        self.ask_button = QPushButton(self.tr("Ask before translating such input"))
        self.ask_button.setObjectName("askAgainButton")
        self.ask_button.setToolTip(self.tr("Check the input's language again before decoding it"))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 3, 6, 3)
        layout.addWidget(self.label, 1)
        for button in (self.switch_button, self.anyway_button, self.stop_button, self.ask_button):
            layout.addWidget(button)
        self.text = ""  # the input the line speaks of
        self.direction = ""  # the direction the switch button offers ("" when none)
        self.decoded = False  # the input was decoded all the same (the check is off)
        self.switch_button.clicked.connect(lambda: self.switchRequested.emit(self.direction))
        self.anyway_button.clicked.connect(lambda: self.anywayRequested.emit(self.text))
        self.stop_button.clicked.connect(lambda: self.askingChanged.emit(False))
        self.ask_button.clicked.connect(lambda: self.askingChanged.emit(True))
        self.hide()

    @property
    def refused(self) -> bool:
        """The line says that an input was not decoded (not only noted)."""
        return bool(self.text) and not self.decoded

    def show_check(self, text: str, message: str, decoded: bool, switch: tuple[str, str] | None) -> None:
        """Say ``message`` about ``text``; ``switch`` is (direction key, label) of a direction whose
        model reads the language the input looks like, None when there is none."""
        self.text, self.decoded = text, decoded
        self.direction = switch[0] if switch is not None else ""
        self.label.setText(message)
        self.switch_button.setText(self.tr("Switch to %1").replace("%1", switch[1]) if switch is not None else "")
        self.switch_button.setToolTip(self.tr("Translate it with the %1 model instead").replace("%1", switch[1])
                                      if switch is not None else "")
        self.switch_button.setVisible(switch is not None)
        self.anyway_button.setVisible(not decoded)
        self.stop_button.setVisible(not decoded)
        self.ask_button.setVisible(decoded)
        self.show()

    def clear(self) -> None:
        self.text, self.direction, self.decoded = "", "", False
        self.hide()
