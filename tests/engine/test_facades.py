"""The engine's rooms as the app sees them: gui/ imports a room's facade (``from engine.decoding import
Translator``), never a module inside it; each facade names, for every public name, the module of its room that
defines it; importing a facade loads nothing (its names are imported when first asked for)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.source_tree import all_nodes, parsed, python_files

ROOT = Path(__file__).resolve().parents[2]
ROOMS = sorted(p.parent.name for p in (ROOT / "engine").glob("*/__init__.py"))


def _facade(room: str) -> dict[str, str]:
    """The facade's table of public names and their modules (empty for a room without a lazy facade)."""
    tree = parsed(ROOT / "engine" / room / "__init__.py")
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "_PUBLIC":
            return ast.literal_eval(node.value)
    return {}


def _defines(module: str, name: str) -> bool:
    """Whether ``module``'s source defines ``name`` at its top (a function, class or assignment)."""
    path = ROOT.joinpath(*module.split(".")).with_suffix(".py")
    for node in parsed(path).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name == name:
            return True
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        names = [element for target in targets for element in (target.elts if isinstance(target, ast.Tuple) else [target])]
        if any(isinstance(element, ast.Name) and element.id == name for element in names):
            return True
    return False


def _is_facade_import(module: str) -> bool:
    """``engine.<room>``, or a package inside a room (``engine.corpus.tasks``), never a module."""
    parts = module.split(".")
    return parts[0] == "engine" and len(parts) >= 2 and (ROOT.joinpath(*parts) / "__init__.py").exists()


def test_the_app_imports_the_rooms_facades_only():
    offending = []
    for path in [*python_files("gui"), ROOT / "main.py"]:
        for node in all_nodes(path):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("engine."):
                modules = [node.module]
            elif isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names if alias.name.startswith("engine.")]
            else:
                continue
            offending += [f"{path.relative_to(ROOT)}: {m}" for m in modules if not _is_facade_import(m)]
    assert not offending, "import the room, not its module:\n" + "\n".join(offending)


@pytest.mark.parametrize("room", ROOMS)
def test_a_facade_names_the_defining_module_of_its_own_room(room):
    table = _facade(room)
    for name, module in table.items():
        assert module.startswith(f"engine.{room}."), f"engine.{room} offers {name} from another room ({module})"
        assert _defines(module, name), f"engine.{room}.{name}: {module} does not define it"
    if table:
        tree = parsed(ROOT / "engine" / room / "__init__.py")
        listed = next(ast.literal_eval(node.value) for node in tree.body
                      if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "__all__")
        assert listed == sorted(table), f"engine.{room}.__all__ is not its table's names, sorted"


def test_every_name_the_app_imports_from_a_room_is_on_its_facade():
    missing = []
    for path in [*python_files("gui"), ROOT / "main.py"]:
        for node in all_nodes(path):
            if not (isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").count(".") == 1
                    and node.module.startswith("engine.")):
                continue
            room = node.module.split(".")[1]
            table = _facade(room)
            for alias in node.names:
                is_module = (ROOT / "engine" / room / f"{alias.name}.py").exists()
                if table and not is_module and alias.name not in table:
                    missing.append(f"{path.relative_to(ROOT)}: engine.{room}.{alias.name}")
    assert not missing, "\n".join(missing)


def test_importing_every_facade_loads_no_module_of_the_rooms():
    code = ("import sys\n"
            f"for room in {ROOMS!r}:\n"
            "    if room != 'explain': __import__('engine.' + room)\n"
            "inner = [m for m in sys.modules if m.startswith('engine.') and m.count('.') >= 2]\n"
            "print(inner, 'torch' in sys.modules); sys.exit(1 if inner or 'torch' in sys.modules else 0)")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("room", ROOMS)
def test_no_public_name_of_a_room_is_also_the_name_of_one_of_its_modules(room):
    """A module imported under the room sets the room's attribute of its name to the module, which would
    then shadow a public function of that name (``from engine.training import snapshot_cost`` handing out a
    module): a room's public names and its module names differ."""
    modules = {p.stem for p in (ROOT / "engine" / room).glob("*.py")} | {
        p.name for p in (ROOT / "engine" / room).iterdir() if (p / "__init__.py").exists()}
    assert not set(_facade(room)) & modules
