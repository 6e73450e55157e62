"""An object spec's test compiled into one Python function (engine.files.schema.Obj.accepts).

A metrics log is checked line by line as it is read, 100,000 lines and more for a long run: a test
that calls one function per field doubled the cost of reading a line. Here the test of every field
whose spec is a plain leaf (an integer, a number, a string, a boolean, a choice) is written out as
an expression in the source of one function, compiled once per spec; other fields call their own
compiled test. The function answers only yes or no; :meth:`engine.files.schema.Spec.check` says what is
wrong (the two agree, and the tests of the stored files compare them).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from engine.files.schema import LARGEST_INT, Bool, Choice, Int, Num, Obj, Spec, Str

_MISSING = object()


# Each builder gives the Python expression that is true when the variable ``value`` fits the leaf
# ``spec`` (None when the spec is no plain leaf after all); the constants it needs go in ``names``
# under names made unique by ``index``.

def _int_test(spec: Int, value: str, index: int, names: dict[str, Any]) -> str:
    low = -LARGEST_INT if spec.low is None else max(spec.low, -LARGEST_INT)
    high = LARGEST_INT if spec.high is None else min(spec.high, LARGEST_INT)
    return f"(type({value}) is int and {low} <= {value} <= {high})"


def _num_test(spec: Num, value: str, index: int, names: dict[str, Any]) -> str:
    names[f"lo{index}"] = -math.inf if spec.low is None else spec.low
    names[f"hi{index}"] = math.inf if spec.high is None else spec.high
    bounds = f"lo{index} <= {value} <= hi{index}"
    return (f"((type({value}) is int and {bounds}) or (type({value}) is float and "
            f"((isfinite({value}) and {bounds}){'' if spec.finite else f' or not isfinite({value})'})))")


def _str_test(spec: Str, value: str, index: int, names: dict[str, Any]) -> str | None:
    if spec.pattern is not None:
        return None
    test = f"type({value}) is str" + ("" if spec.max_length is None else f" and len({value}) <= {spec.max_length}")
    return f"({test})"


def _bool_test(spec: Bool, value: str, index: int, names: dict[str, Any]) -> str:
    return f"type({value}) is bool"


def _choice_test(spec: Choice, value: str, index: int, names: dict[str, Any]) -> str:
    names[f"c{index}"] = frozenset(spec.values)
    return f"((type({value}) is str or type({value}) is int) and {value} in c{index})"


_LEAF_TESTS: dict[type, Callable[[Any, str, int, dict[str, Any]], str | None]] = {
    Int: _int_test, Num: _num_test, Str: _str_test, Bool: _bool_test, Choice: _choice_test,
}


def _leaf(spec: Spec, value: str, index: int, names: dict[str, Any]) -> str | None:
    """A Python expression that is true when the variable ``value`` fits the leaf ``spec`` (None when
    ``spec`` is no plain leaf); the constants it needs are put in ``names``."""
    build = _LEAF_TESTS.get(type(spec))
    test = build(spec, value, index, names) if build is not None else None
    if test is None:
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
