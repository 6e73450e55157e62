"""Each setting of the engine's dataclasses described once, on its field.

A field made with :func:`setting` carries a :class:`Setting` in its metadata: its valid range or
choices, its help, its command-line flag and, when the Train form shows it, its :class:`Row`. From
that one description come the dataclass's range checks (:func:`check_settings`), the model folder
schema's model section (:func:`schema_of`), the ``train`` command's flags (:func:`add_flags`) and
the form's rows (gui/training/form.py), so a new setting is one field and its use
(docs/architecture.md, "What a change touches").
"""

from __future__ import annotations

import argparse
import dataclasses
from dataclasses import dataclass
from typing import Any, get_type_hints

from engine.settings.errors import ConfigError

KEY = "setting"  # the metadata key of a field's Setting


@dataclass(frozen=True)
class Row:
    """How the Train form shows a setting: a spin box, check box or combo box of its own row."""

    label: str = ""  # the row's label; "" for a widget the form places in a shared row
    tip: str = ""  # the tooltip, when it says more than the command line's help (e.g. the special value)
    step: float = 1  # spin boxes' step
    decimals: int = 2  # decimal spin boxes' digits
    special: str = ""  # what the lowest value shows as, e.g. "off"
    choice_labels: tuple[str, ...] = ()  # a combo box's words for the setting's choices, in their order
    low: float | None = None  # a narrower range than the valid one, where the valid one is wider than
    high: float | None = None  # sensible in the form (or unbounded)


@dataclass(frozen=True)
class Setting:
    """A field's description: what it means, what values it takes, where it is offered."""

    help: str  # one line for the command line (and the form's tooltip unless its row has one)
    low: float | None = None  # valid range, both ends included; None: unchecked
    high: float | None = None
    choices: tuple[str, ...] = ()  # the valid values of a text setting
    unit: str = ""  # e.g. "minutes", "tokens"
    flag: str | None = ""  # the train flag: "" = --field-name, None = no flag of its own
    required: bool = False  # the train flag must be given (it has no default there)
    row: Row | None = None  # None: the form leaves it at the engine's default
    family: str = ""  # the model family it shapes ("rnn", "transformer"); "": every model, or not a model setting

    def __post_init__(self) -> None:
        if (self.low is None) != (self.high is None):
            raise ConfigError(f"a setting's range needs both ends; got low={self.low!r}, high={self.high!r}")
        if self.row is not None and self.row.choice_labels and len(self.row.choice_labels) != len(self.choices):
            raise ConfigError(f"a form row names each of the {len(self.choices)} choices "
                              f"({', '.join(self.choices)}); got {len(self.row.choice_labels)} labels")

    @property
    def shown(self) -> bool:
        """Whether the Train form offers it."""
        return self.row is not None

    def form_range(self) -> tuple[float, float]:
        """The range the form's spin box offers: its row's, else the valid one."""
        assert self.row is not None
        low = self.row.low if self.row.low is not None else self.low
        high = self.row.high if self.row.high is not None else self.high
        if low is None or high is None:
            raise ConfigError(f"a form row needs a range: give the setting or its row low and high ({self.help})")
        return low, high


def setting(default: Any = dataclasses.MISSING, *, help: str, low: float | None = None,  # noqa: A002
            high: float | None = None, choices: tuple[str, ...] = (), unit: str = "", flag: str | None = "",
            required: bool = False, row: Row | None = None, kw_only: bool = False, family: str = "") -> Any:
    """A dataclass field with its default and its :class:`Setting`."""
    described = Setting(help=help, low=low, high=high, choices=choices, unit=unit, flag=flag, required=required,
                        row=row, family=family)
    return dataclasses.field(default=default, kw_only=kw_only, metadata={KEY: described})


def described(settings_class: type) -> dict[str, Setting]:
    """The described fields of ``settings_class`` (a dataclass or an instance), in field order."""
    return {f.name: f.metadata[KEY] for f in dataclasses.fields(settings_class) if KEY in f.metadata}


def check_choice(name: str, value: str, choices: tuple[str, ...]) -> None:
    """Raise ConfigError naming the valid ``choices`` unless ``value`` is one of them."""
    if value not in choices:
        raise ConfigError(f"{name} must be one of {', '.join(choices)}; got {value!r}")


def check_range(name: str, value: float, low: float, high: float) -> None:
    """Raise ConfigError naming the valid range unless ``low <= value <= high``."""
    if not (low <= value <= high):
        raise ConfigError(f"{name} must be between {low} and {high}; got {value!r}")


def check_settings(instance: Any) -> None:
    """Raise ConfigError naming the valid range or choices of the first field of ``instance`` outside them."""
    for name, described_field in described(instance).items():
        value = getattr(instance, name)
        if described_field.choices:
            check_choice(name, value, described_field.choices)
        if described_field.low is not None and described_field.high is not None:
            check_range(name, value, described_field.low, described_field.high)


def _types(settings_class: type) -> dict[str, Any]:
    return get_type_hints(settings_class)


def schema_of(settings_class: type) -> dict[str, Any]:
    """A JSON Schema object for a dataclass's fields: type, range or enum of each, the fields without
    a default required, no other keys."""
    types = _types(settings_class)
    properties: dict[str, Any] = {}
    for name, described_field in described(settings_class).items():
        kind = types[name]
        if described_field.choices:
            entry: dict[str, Any] = {"enum": list(described_field.choices)}
        elif kind is bool:
            entry = {"type": "boolean"}
        else:
            entry = {"type": {int: "integer", float: "number", str: "string"}[kind]}
            if described_field.low is not None:
                entry.update(minimum=described_field.low, maximum=described_field.high)
        properties[name] = entry
    required = [f.name for f in dataclasses.fields(settings_class)
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def flag_name(name: str, described_field: Setting) -> str:
    """The ``train`` flag of setting ``name``: its own, else ``--name-with-dashes``."""
    return described_field.flag or "--" + name.replace("_", "-")


def add_flags(parser: argparse.ArgumentParser, settings_class: type) -> None:
    """One flag per described field that has one, storing under the field's name (``dest``), with
    the field's default, type or choices and help."""
    types = _types(settings_class)
    defaults = {f.name: f.default for f in dataclasses.fields(settings_class)}
    for name, described_field in described(settings_class).items():
        if described_field.flag is None:
            continue
        options: dict[str, Any] = {"dest": name, "help": described_field.help}
        if described_field.required:
            options["required"] = True
        else:
            options["default"] = defaults[name]
        if types[name] is bool:
            if defaults[name] is not False:
                raise ConfigError(f"{name}: a yes/no flag switches on a setting that is off by default")
            options["action"] = "store_true"
        elif described_field.choices:
            options["choices"] = described_field.choices
        else:
            options["type"] = types[name]
        parser.add_argument(flag_name(name, described_field), **options)
