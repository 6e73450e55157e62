"""The widgets of the training form's rows, made from the engine's field descriptions.

A described field (engine/settings/settings_meta.py) becomes a check box, a combo box of its choices or a
spin box with its row's range, step, special value and tooltip; :func:`read_value` and
:func:`write_value` read and fill any of them the same way.
"""

from __future__ import annotations

from typing import Any, get_type_hints

from PySide6.QtWidgets import QCheckBox, QComboBox, QDoubleSpinBox, QSpinBox, QWidget

from engine.settings import described
from gui.training.setting_texts import setting_text


def read_value(widget: QWidget) -> Any:
    """The value a form widget shows (check box, combo box or spin box)."""
    if isinstance(widget, QCheckBox):
        return widget.isChecked()
    if isinstance(widget, QComboBox):
        return widget.currentData()
    if isinstance(widget, QDoubleSpinBox):
        return round(widget.value(), widget.decimals())
    return widget.value()


def write_value(widget: QWidget, value: Any) -> None:
    """Show ``value`` in a form widget (check box, combo box or spin box)."""
    if isinstance(widget, QCheckBox):
        widget.setChecked(bool(value))
    elif isinstance(widget, QComboBox):
        widget.setCurrentIndex(max(widget.findData(value), 0))
    else:
        widget.setValue(value)


def _configured(box: QSpinBox | QDoubleSpinBox, low: float, high: float, value: float, step: float, tip: str,
                special: str) -> QSpinBox | QDoubleSpinBox:
    """Range, step, value and tooltip of a spin box; ``special`` names its lowest value."""
    box.setRange(low, high)
    box.setSingleStep(step)
    box.setValue(value)
    box.setToolTip(tip)
    if special:
        box.setSpecialValueText(special)
    return box


def spin(low: int, high: int, value: int, tip: str, step: int = 1, special: str = "") -> QSpinBox:
    """An integer spin box from ``low`` to ``high`` showing ``value``, with its tooltip and special text."""
    return _configured(QSpinBox(), low, high, value, step, tip, special)


def _double(low: float, high: float, value: float, decimals: int, step: float, tip: str,
            special: str = "") -> QDoubleSpinBox:
    box = QDoubleSpinBox()
    box.setDecimals(decimals)  # before the value, which it rounds
    return _configured(box, low, high, value, step, tip, special)


def row_widget(settings_class: type, name: str, value: Any) -> QWidget:
    """The widget of a described field's form row, showing ``value``: a check box, a combo box of
    its choices, or a spin box with the row's range, step and special value; its tooltip."""
    described_field = described(settings_class)[name]
    row = described_field.row
    if row is None:
        raise ValueError(f"{settings_class.__name__}.{name} is not shown in the form (its setting has no row)")
    tip = setting_text(row.tip or described_field.help)
    kind = get_type_hints(settings_class)[name]
    if kind is bool:
        check = QCheckBox(setting_text(row.label))
        check.setChecked(bool(value))
        check.setToolTip(tip)
        return check
    if described_field.choices:
        combo = QComboBox()
        for choice, label in zip(described_field.choices, row.choice_labels or described_field.choices, strict=True):
            combo.addItem(setting_text(label), choice)
        write_value(combo, value)
        combo.setToolTip(tip)
        return combo
    low, high = described_field.form_range()
    special = setting_text(row.special) if row.special else ""
    if kind is int:
        return spin(int(low), int(high), value, tip, int(row.step), special)
    return _double(low, high, value, row.decimals, row.step, tip, special)
