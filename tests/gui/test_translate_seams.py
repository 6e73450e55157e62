"""The Translate tab's helpers take the parts they drive, never the tab: no module of gui/translate but
tab.py itself imports gui.translate.tab — not even under TYPE_CHECKING (an AST test: nothing is imported)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TAB = "gui.translate.tab"


def imported_modules(path: Path, root: Path = ROOT) -> set[str]:
    """Every module ``path`` imports, absolute (``from gui.translate import tab`` counts as gui.translate.tab;
    relative imports resolved against the module's package)."""
    package = ".".join(path.relative_to(root).with_suffix("").parts[:-1])
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(part for part in (base, node.module or "") if part)
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


def imports_the_tab(path: Path, root: Path = ROOT) -> bool:
    return any(name == TAB or name.startswith(TAB + ".") for name in imported_modules(path, root))


def test_no_translate_module_but_the_tab_imports_the_tab():
    package = ROOT / "gui" / "translate"
    offenders = [str(path.relative_to(ROOT)) for path in sorted(package.rglob("*.py"))
                 if path != package / "tab.py" and imports_the_tab(path)]
    assert offenders == [], f"these modules import {TAB}; pass them the parts they drive instead: {offenders}"


def test_the_check_sees_every_way_of_importing_the_tab(tmp_path):
    cases = {"a.py": ("from gui.translate.tab import TranslateTab\n", True),
             "b.py": ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from gui.translate import tab\n", True),
             "c.py": ("from . import tab\n", True),
             "d.py": ("import gui.translate.tab as t\n", True),
             "e.py": ("from .tab_words import LanguageRefresh\nfrom gui.translate.tabs import x\n", False)}
    folder = tmp_path / "gui" / "translate"
    folder.mkdir(parents=True)
    for name, (text, _) in cases.items():
        (folder / name).write_text(text)
    found = {name: imports_the_tab(folder / name, tmp_path) for name in cases}
    assert found == {name: wanted for name, (_, wanted) in cases.items()}
    (folder / "length_study").mkdir()
    (folder / "length_study" / "f.py").write_text("from ..tab import TranslateTab\n")
    assert imports_the_tab(folder / "length_study" / "f.py", tmp_path)
