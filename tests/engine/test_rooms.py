"""The engine's rooms (its sub-packages) as floors, read from the source (``ast``, nothing imported: fast
tier): the rooms' imports form a one-way graph (no room reaches back to itself through others), and every
name an engine module imports comes from the module that defines it, never from one that merely imports it
too (one import path per name; docs/architecture.md, "The engine's rooms").

Imports are the module's top-level ones (inside ``if``/``try`` blocks too), with ``if TYPE_CHECKING:``
left out: those name types for the checker only and load nothing."""

from __future__ import annotations

import ast
from functools import cache
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

from tests.source_tree import parsed, python_files

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "engine"


def module_name(path: Path) -> str:
    """engine/models/bundle.py -> engine.models.bundle; engine/models/__init__.py -> engine.models."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache  # read once: every check asks for it, some once per module
def engine_modules() -> dict[str, Path]:
    return {module_name(p): p for p in python_files("engine")}


def _is_type_checking(node: ast.If) -> bool:
    return "TYPE_CHECKING" in ast.unparse(node.test)


def top_level_statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements that run when the module is imported: the body, the branches of its ``if`` and
    ``try`` blocks, with an ``if TYPE_CHECKING:`` block's body left out."""
    found: list[ast.stmt] = []
    for node in body:
        found.append(node)
        if isinstance(node, ast.If):
            found += top_level_statements([] if _is_type_checking(node) else node.body)
            found += top_level_statements(node.orelse)
        elif isinstance(node, ast.Try):
            found += top_level_statements(node.body + node.orelse + node.finalbody)
            for handler in node.handlers:
                found += top_level_statements(handler.body)
    return found


def absolute_base(module: str, path: Path, node: ast.ImportFrom) -> str:
    """The absolute module a ``from … import`` reads from (a relative one resolved against ``module``)."""
    if not node.level:
        return node.module or ""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    package = package[: len(package) - (node.level - 1)]
    return ".".join(package + ([node.module] if node.module else []))


@cache
def imports_of(module: str) -> tuple[tuple[str, str | None], ...]:
    """(module, name) for each top-level import of an engine module; name None for ``import x``."""
    path = engine_modules()[module]
    found: list[tuple[str, str | None]] = []
    for node in top_level_statements(parsed(path).body):
        if isinstance(node, ast.Import):
            found += [(alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found += [(absolute_base(module, path, node), alias.name) for alias in node.names]
    return tuple(found)


def imported_module(base: str, name: str | None, modules: dict[str, Path]) -> str:
    """The engine module an import loads: ``from engine.files import atomic`` loads engine.files.atomic."""
    return f"{base}.{name}" if name and f"{base}.{name}" in modules else base


def room_of(module: str) -> str | None:
    """The room (engine.<room>.…) a module belongs to; None for the modules at engine/'s top."""
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and (ENGINE / parts[1]).is_dir()) else None


def room_arrows() -> dict[str, set[str]]:
    """Each room's set of the other rooms it imports from."""
    modules = engine_modules()
    arrows: dict[str, set[str]] = {}
    for module in modules:
        here = room_of(module)
        if here is None:
            continue
        arrows.setdefault(here, set())
        for base, name in imports_of(module):
            if base.startswith("engine."):
                there = room_of(imported_module(base, name, modules))
                if there not in (None, here):
                    arrows[here].add(there)
    return arrows


@cache
def defined_names(module: str) -> frozenset[str]:
    """The names a module defines at its top: functions, classes, assignments (annotated, augmented and
    unpacked ones too) and the names of its submodules (a package)."""
    path = engine_modules()[module]
    names: set[str] = set()
    for node in top_level_statements(parsed(path).body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    if path.name == "__init__.py":
        names |= {p.stem for p in path.parent.glob("*.py")} | {p.name for p in path.parent.iterdir() if p.is_dir()}
    return frozenset(names)


def test_the_rooms_are_the_engines_sub_packages():
    assert set(room_arrows()) == {p.name for p in ENGINE.iterdir() if (p / "__init__.py").exists()}


def test_the_rooms_import_one_way():
    """No two rooms import each other and no longer circle closes: the rooms sort into floors."""
    arrows = room_arrows()
    pairs = sorted(f"{a} <-> {b}" for a in arrows for b in arrows[a] if a < b and a in arrows.get(b, ()))
    assert pairs == [], f"rooms that import each other: {pairs}"
    try:
        tuple(TopologicalSorter(arrows).static_order())
    except CycleError as error:
        raise AssertionError(f"the rooms import in a circle: {' -> '.join(error.args[1])}") from None


def test_the_lowest_room_imports_no_other():
    """settings/ is the ground floor: every other room may use its typed settings and errors."""
    assert room_arrows()["settings"] == set()


def test_every_imported_name_comes_from_the_module_that_defines_it():
    """``from engine.a.b import X`` needs X defined in engine.a.b, not imported there from elsewhere."""
    modules = engine_modules()
    wrong = []
    for module in sorted(modules):
        for base, name in imports_of(module):
            if not base.startswith("engine") or name is None or base not in modules:
                continue
            if name not in defined_names(base):
                wrong.append(f"{module} imports {name} from {base}, which does not define it")
    assert wrong == []


def test_the_checks_see_a_cycle_and_a_re_export(tmp_path):
    """The two rules can fail: a circle of rooms is found, and a re-exported name is told apart."""
    try:
        tuple(TopologicalSorter({"a": {"b"}, "b": {"c"}, "c": {"a"}}).static_order())
    except CycleError:
        pass
    else:
        raise AssertionError("a circle of rooms went unseen")
    assert "Scorer" in defined_names("engine.networks.attention")
    assert "SchemaError" not in defined_names("engine.training.metrics_log")  # imported there, defined in files
