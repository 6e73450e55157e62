"""The project's own Python sources, read and parsed once per test session: the architecture tests
(layers, rooms, facades, one import path, translations, thread ownership) all read the same few hundred
files, each several times; parsing them once keeps those checks in the fast tier's budget.

The trees are shared: a test reads them and never changes them."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@cache
def python_files(folder: str) -> tuple[Path, ...]:
    """The ``.py`` files under ``folder`` (relative to the project's root), sorted, caches left out."""
    return tuple(sorted(p for p in (ROOT / folder).rglob("*.py") if "__pycache__" not in p.parts))


@cache
def source_text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


@cache
def parsed(path: Path) -> ast.Module:
    """The module's syntax tree (shared: read it, never change it)."""
    return ast.parse(source_text(path), filename=str(path))


@cache
def all_nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of the module's tree, in ``ast.walk`` order."""
    return tuple(ast.walk(parsed(path)))
