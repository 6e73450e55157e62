"""The rooms' lazy facades (PEP 562): each room's ``__init__.py`` lists its public names, each with the module
of the room that defines it, and imports a name only when it is first asked for, so that importing a room
loads nothing (docs/architecture.md, "The engine's rooms")."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_attributes(room_globals: dict[str, Any], public: dict[str, str]) -> Callable[[str], Any]:
    """A room's module-level ``__getattr__``: ``public`` maps each public name to the module that defines it; a
    name is imported from there when first asked for and kept in the room's ``room_globals``."""
    room = room_globals["__name__"]

    def __getattr__(name: str) -> Any:  # noqa: N807 (the module attribute PEP 562 looks up)
        if name not in public:
            raise AttributeError(f"module {room!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(public[name]), name)
        room_globals[name] = value
        return value

    return __getattr__
