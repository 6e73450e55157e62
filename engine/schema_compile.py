"""An object spec's test compiled into one Python function (engine.schema.Obj.accepts).

A metrics log is checked line by line as it is read, 100,000 lines and more for a long run: a test
that calls one function per field doubled the cost of reading a line. Here the test of every field
whose spec is a plain leaf (an integer, a number, a string, a boolean, a choice) is written out as
an expression in the source of one function, compiled once per spec; other fields call their own
compiled test. The function answers only yes or no; :meth:`engine.schema.Spec.check` says what is
wrong (the two agree, and the tests of the stored files compare them).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.schema import Obj, Spec

_MISSING = object()


def _leaf(spec: Spec, value: str, index: int, names: dict[str, Any]) -> str | None:
    """A Python expression that is true when the variable ``value`` fits the leaf ``spec`` (None when
    ``spec`` is no plain leaf); the constants it needs are put in ``names``."""
    from engine.schema import LARGEST_INT, Bool, Choice, Int, Num, Str

    kind = type(spec)
    if kind is Int:
        low = -LARGEST_INT if spec.low is None else max(spec.low, -LARGEST_INT)
        high = LARGEST_INT if spec.high is None else min(spec.high, LARGEST_INT)
        test = f"(type({value}) is int and {low} <= {value} <= {high})"
    elif kind is Num:
        names[f"lo{index}"] = -math.inf if spec.low is None else spec.low
        names[f"hi{index}"] = math.inf if spec.high is None else spec.high
        bounds = f"lo{index} <= {value} <= hi{index}"
        test = (f"((type({value}) is int and {bounds}) or (type({value}) is float and "
                f"((isfinite({value}) and {bounds}){'' if spec.finite else f' or not isfinite({value})'})))")
    elif kind is Str and spec.pattern is None:
        test = f"type({value}) is str" + ("" if spec.max_length is None else f" and len({value}) <= {spec.max_length}")
        test = f"({test})"
    elif kind is Bool:
        test = f"type({value}) is bool"
    elif kind is Choice:
        names[f"c{index}"] = frozenset(spec.values)
        test = f"((type({value}) is str or type({value}) is int) and {value} in c{index})"
    else:
        return None
    return f"({test} or {value} is None)" if spec.nullable else test


def compile_object(spec: Obj) -> Callable[[Any], bool]:
    """The test of ``spec`` as one function: True when a value fits it."""
    names: dict[str, Any] = {"_M": _MISSING, "isfinite": math.isfinite}
    lines = ["def accepts(value):",
             "    if type(value) is not dict:",
             f"        return {bool(spec.nullable)} and value is None",
             "    found = 0"]
    for index, (key, field_spec) in enumerate(spec.fields.items()):
        value = f"v{index}"
        test = _leaf(field_spec, value, index, names)
        if test is None:
            names[f"t{index}"] = field_spec.accepts
            test = f"t{index}({value})"
        lines += [f"    {value} = value.get({key!r}, _M)",
                  f"    if {value} is not _M:",
                  "        found += 1",
                  f"        if not {test}:",
                  "            return False"]
        if key in spec.required:
            lines += ["    else:", "        return False"]
    names["others_required"] = frozenset(spec.required) - set(spec.fields)
    lines += ["    if others_required and not others_required <= value.keys():", "        return False",
              "    if found == len(value):", "        return True"]
    if spec.extra is None:
        lines.append("    return False")
    else:
        names.update(extra=spec.extra.accepts, known=frozenset(spec.fields))
        lines.append("    return all(extra(item) for key, item in value.items() if key not in known)")
    exec("\n".join(lines), names)  # noqa: S102 - source made above from the spec alone, never from data
    return names["accepts"]
