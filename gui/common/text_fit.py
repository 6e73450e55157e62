"""Which texts of a window are cut off: a check for the screenshots and the layout tests, in any language.

A visible label, button, combo box, line edit or spin box is *clipped* when its window shows less of it
than its width (cut at the side by a neighbour or the window's edge), when a button or an unwrapped
label is narrower than the text it needs, or when a word-wrapped label is lower than its wrapped text.
Chinese and English texts differ in width, so a layout that fits one may cut the other.
"""

from __future__ import annotations

from PySide6.QtWidgets import QAbstractButton, QAbstractSpinBox, QComboBox, QLabel, QLineEdit, QWidget

CHECKED = (QLabel, QAbstractButton, QComboBox, QLineEdit, QAbstractSpinBox)
SLACK = 2  # pixels of rounding allowed


def _name(widget: QWidget) -> str:
    text = widget.text() if isinstance(widget, QLabel | QAbstractButton) else ""
    return f"{type(widget).__name__} {widget.objectName() or text[:30]!r}"


def _blank(widget: QWidget) -> bool:
    """A label or button showing neither text nor picture."""
    if isinstance(widget, QLabel):
        return not widget.text() and widget.pixmap().isNull()
    if isinstance(widget, QAbstractButton):
        return not widget.text() and widget.icon().isNull()
    return False


def clipped_texts(root: QWidget) -> list[str]:
    """One line per visible text widget under ``root`` that is cut off, saying how."""
    problems = []
    for widget in root.findChildren(QWidget):
        if not widget.isVisible() or not isinstance(widget, CHECKED):
            continue
        if _blank(widget):
            continue  # nothing written in it: nothing to cut
        if problem := _clipping(widget):
            problems.append(f"{_name(widget)}: {problem}")
    return problems


def _clipping(widget: QWidget) -> str:
    """How a visible, written-in widget is cut off ("" when it is not): at the side, or a label or
    button short of the height (wrapped) or width its text needs."""
    shown = widget.visibleRegion().boundingRect()
    if not shown.isEmpty() and shown.width() < widget.width() - SLACK:
        return f"cut at the side ({shown.width()} of {widget.width()}px shown)"
    if not isinstance(widget, QLabel | QAbstractButton):
        return ""
    if isinstance(widget, QLabel) and widget.wordWrap():
        need = widget.heightForWidth(widget.width())
        return f"needs {need}px high, has {widget.height()}" if need > widget.height() + SLACK else ""
    if widget.minimumSizeHint().width() > widget.width() + SLACK:
        return f"needs {widget.minimumSizeHint().width()}px wide, has {widget.width()}"
    return ""
