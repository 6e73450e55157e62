"""Rewriting the texts on screen in the other language, in place, when the interface's language changes.

Nothing is rebuilt: every widget, dialog, action and item model keeps its state (a decode, a selected
step, a half-typed sentence); only a text that is a known message of the catalog is replaced — found
by the :class:`~gui.i18n.CatalogTranslator`'s record of what each shown text is. A text made from a
template (``tr("Step %1 of %2").replace(…)``) is found by matching the template, its values carried
over. Anything else (a user's sentence, a token piece, a model's name, an engine message) is left as
it is. What this cannot find (text assembled from several messages) its widget refreshes on
``QEvent.LanguageChange``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QAbstractItemModel, QAbstractListModel, QModelIndex, Qt
from PySide6.QtGui import QAction, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QDockWidget,
    QGroupBox,
    QLabel,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QProgressBar,
    QTableWidget,
    QTabWidget,
    QTextEdit,
    QToolBox,
    QTreeWidget,
    QWidget,
)

from gui.i18n import CatalogTranslator, Message

_PLACEHOLDER = re.compile(r"%(n|[1-9])")


@dataclass(frozen=True)
class _Template:
    """A message with placeholders as shown: its literal pieces around them (``pieces[0]`` before the
    first, ``pieces[-1]`` after the last) and the placeholders' names ("1", "2", "n") in between."""

    pieces: tuple[str, ...]
    names: tuple[str, ...]
    message: Message

    def match(self, text: str) -> dict[str, str] | None:
        """The values in ``text`` by placeholder name, when ``text`` is this message filled in (each value
        at least one character, ending where the next literal piece first occurs); else None."""
        first, last = self.pieces[0], self.pieces[-1]
        if not (text.startswith(first) and text.endswith(last)) or len(text) < len(first) + len(last):
            return None
        values: dict[str, str] = {}
        position, end = len(first), len(text) - len(last)
        for index, name in enumerate(self.names):
            if index == len(self.names) - 1:
                value, position = text[position:end], end
            else:
                found = text.find(self.pieces[index + 1], position + 1, end)
                if found < 0:
                    return None
                value, position = text[position:found], found + len(self.pieces[index + 1])
            if not value or values.setdefault(name, value) != value:
                return None
        return values


class Rewriter:
    """Maps a text shown in ``before`` to the same message in ``after``; unknown text is returned as it is."""

    def __init__(self, translator: CatalogTranslator, before: str, after: str) -> None:
        self.translator = translator
        self.after = after
        self.shown = translator.shown[before]
        self.near: QWidget | None = None  # the widget whose text is rewritten now: it picks among a text's messages
        templates = [_template(text, messages[0]) for text, messages in list(self.shown.items())
                     if "%" in text and _PLACEHOLDER.search(text) and _PLACEHOLDER.sub("", text).strip()]
        # The most specific first: "%1 (read-only) · %2" before "%1 · %2", which a text of the first also fills.
        self.templates = sorted(templates, key=lambda template: -sum(map(len, template.pieces)))
        self.changed = 0

    def __call__(self, text: str) -> str:
        if not text:
            return text
        message = self._message(text)
        if message is not None:
            return self._changed(self.translator.message_text(message, self.after).replace("%n", str(message.n)))
        for template in self.templates:
            values = template.match(text)
            if values is not None:
                result = self.translator.message_text(template.message, self.after)
                return self._changed(_PLACEHOLDER.sub(lambda m, v=values: v.get(m.group(1), m.group(0)), result))
        return text

    def _message(self, text: str) -> Message | None:
        """The message ``text`` is: the first one met, unless several messages show as ``text`` and read
        differently in the new language — then the one of the widget ``near`` (:meth:`_message_near`)."""
        messages = self.shown.get(text)
        if not messages:
            return None
        if len(messages) > 1 and len({self.translator.message_text(m, self.after) for m in messages}) > 1:
            return self._message_near(messages) or messages[0]
        return messages[0]

    def _message_near(self, messages: list[Message]) -> Message | None:
        """The message whose context is the class of ``near`` or of its nearest parent that has one."""
        by_context: dict[str, Message] = {}
        for message in messages:
            by_context.setdefault(message.context, message)
        widget = self.near
        while widget is not None:
            for cls in type(widget).__mro__:
                if cls.__name__ in by_context:
                    return by_context[cls.__name__]
            widget = widget.parentWidget()
        return None

    def _changed(self, text: str) -> str:
        self.changed += 1
        return text


def _template(text: str, message: Message) -> _Template:
    parts = _PLACEHOLDER.split(text)  # literal, name, literal, name, …, literal
    return _Template(tuple(parts[0::2]), tuple(parts[1::2]), message)


def _rewrite(getter: Callable[[], str], setter: Callable[[str], object], rewrite: Rewriter) -> None:
    text = getter()
    new = rewrite(text)
    if new != text:
        setter(new)


def retranslate_widgets(translator: CatalogTranslator, before: str, after: str) -> int:
    """Rewrite every known message on every widget, action and item model of the application; the count."""
    rewrite = Rewriter(translator, before, after)
    models: set[int] = set()
    for widget in QApplication.allWidgets():
        retranslate_widget(widget, rewrite, models)
    return rewrite.changed


def retranslate_widget(widget: QWidget, rewrite: Rewriter, models: set[int]) -> None:
    """One widget's own texts (not its children's: each widget is visited by itself)."""
    rewrite.near = widget
    _rewrite(widget.toolTip, widget.setToolTip, rewrite)
    _rewrite(widget.statusTip, widget.setStatusTip, rewrite)
    _rewrite(widget.whatsThis, widget.setWhatsThis, rewrite)
    _rewrite(widget.accessibleName, widget.setAccessibleName, rewrite)
    if widget.isWindow() or isinstance(widget, QDockWidget):
        _rewrite(widget.windowTitle, widget.setWindowTitle, rewrite)
    for action in widget.actions():
        _retranslate_action(action, rewrite)
    for kinds, retranslate in _TEXTS_OF_A_KIND:  # the first kind the widget is: its texts of that kind
        if isinstance(widget, kinds):
            retranslate(widget, rewrite)
            break
    if isinstance(widget, QAbstractItemView) and not isinstance(widget, QTableWidget | QTreeWidget):
        _refresh_model(widget.model(), rewrite, models)


def _retranslate_tabs(widget: QTabWidget, rewrite: Rewriter) -> None:
    for index in range(widget.count()):
        rewrite.near = widget.widget(index) or widget  # a tab's title is its page's message
        _rewrite(lambda i=index: widget.tabText(i), lambda t, i=index: widget.setTabText(i, t), rewrite)
        _rewrite(lambda i=index: widget.tabToolTip(i), lambda t, i=index: widget.setTabToolTip(i, t), rewrite)
    rewrite.near = widget


def _retranslate_tool_box(widget: QToolBox, rewrite: Rewriter) -> None:
    for index in range(widget.count()):
        _rewrite(lambda i=index: widget.itemText(i), lambda t, i=index: widget.setItemText(i, t), rewrite)


def _retranslate_tree_header(widget: QTreeWidget, rewrite: Rewriter) -> None:
    header = widget.headerItem()
    for column in range(widget.columnCount()):
        _rewrite(lambda c=column: header.text(c), lambda t, c=column: header.setText(c, t), rewrite)


def _retranslate_action(action: QAction, rewrite: Rewriter) -> None:
    _rewrite(action.text, action.setText, rewrite)
    _rewrite(action.toolTip, action.setToolTip, rewrite)
    _rewrite(action.statusTip, action.setStatusTip, rewrite)
    _rewrite(action.iconText, action.setIconText, rewrite)
    menu = action.menu()
    if isinstance(menu, QMenu):
        _rewrite(menu.title, menu.setTitle, rewrite)


def _retranslate_spin_box(widget: QAbstractSpinBox, rewrite: Rewriter) -> None:
    _rewrite(widget.specialValueText, widget.setSpecialValueText, rewrite)
    for name in ("prefix", "suffix"):
        getter = getattr(widget, name, None)
        if callable(getter):
            _rewrite(getter, getattr(widget, "set" + name.capitalize()), rewrite)


def _retranslate_combo(widget: QComboBox, rewrite: Rewriter) -> None:
    if widget.isEditable():
        _rewrite(widget.placeholderText, widget.setPlaceholderText, rewrite)
    blocked = widget.blockSignals(True)  # the same item, renamed: no "current changed" for anyone
    try:
        for index in range(widget.count()):
            _rewrite(lambda i=index: widget.itemText(i), lambda t, i=index: widget.setItemText(i, t), rewrite)
            _rewrite(lambda i=index: _text(widget.itemData(i, Qt.ItemDataRole.ToolTipRole)),
                     lambda t, i=index: widget.setItemData(i, t, Qt.ItemDataRole.ToolTipRole), rewrite)
    finally:
        widget.blockSignals(blocked)


def _retranslate_table(widget: QTableWidget, rewrite: Rewriter) -> None:
    """The headers only: a table's cells are data (a token "Stop" stays "Stop"); a table whose cells hold
    messages fills them again on ``QEvent.LanguageChange``."""
    for column in range(widget.columnCount()):
        item = widget.horizontalHeaderItem(column)
        if item is not None:
            _rewrite(item.text, item.setText, rewrite)
            _rewrite(item.toolTip, item.setToolTip, rewrite)
    for row in range(widget.rowCount()):
        item = widget.verticalHeaderItem(row)
        if item is not None:
            _rewrite(item.text, item.setText, rewrite)


def _refresh_model(model: QAbstractItemModel | None, rewrite: Rewriter, models: set[int]) -> None:
    """A model shown by a view: a standard model's headers rewritten; a table model of its own asked to
    redraw its headers (it answers ``headerData`` with ``tr()``, now in the new language; cells whose text
    is a message are its view's to refresh on ``QEvent.LanguageChange``)."""
    if model is None or id(model) in models:
        return
    models.add(id(model))
    root = QModelIndex()
    columns = 1 if isinstance(model, QAbstractListModel) else model.columnCount(root)
    if isinstance(model, QStandardItemModel):  # its items say themselves when their text changes
        for column in range(columns):
            item = model.horizontalHeaderItem(column)
            if item is not None:
                _rewrite(item.text, item.setText, rewrite)
        return
    if columns > 0 and not isinstance(model, QAbstractListModel):
        model.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, columns - 1)


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


# Texts a widget has by its kind, in the order asked (the first kind that matches is the widget's).
_TEXTS_OF_A_KIND: tuple[tuple[type | tuple[type, ...], Callable[..., None]], ...] = (
    ((QLabel, QAbstractButton), lambda w, rewrite: _rewrite(w.text, w.setText, rewrite)),
    ((QLineEdit, QTextEdit, QPlainTextEdit),  # its text is the user's: only the hint
     lambda w, rewrite: _rewrite(w.placeholderText, w.setPlaceholderText, rewrite)),
    ((QGroupBox, QMenu), lambda w, rewrite: _rewrite(w.title, w.setTitle, rewrite)),
    (QProgressBar, lambda w, rewrite: _rewrite(w.format, w.setFormat, rewrite)),
    (QAbstractSpinBox, _retranslate_spin_box),
    (QTabWidget, _retranslate_tabs),
    (QToolBox, _retranslate_tool_box),
    (QComboBox, _retranslate_combo),
    (QTableWidget, _retranslate_table),
    (QTreeWidget, _retranslate_tree_header),
)
