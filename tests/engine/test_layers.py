"""The layers, read from the source (``ast``, nothing imported: fast tier): the engine never imports
Qt or the app, no tab package imports another tab's modules, scripts take no view's modules, and the
app reads run folders only through the engine (docs/architecture.md). What can only be seen by
importing (the window starting without PyTorch) is in test_layers_runtime.py, the slow tier."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

from tests.source_tree import all_nodes, python_files

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = ("PySide6", "PyQt5", "PyQt6", "pyqtgraph", "superqt", "gui")
# Packages of gui/ every tab may import: the shared attention views and what the tabs share.
SHARED_PACKAGES = ("attention", "common")
# The lesson (gui/lesson/): it drives the tabs only through the window (gui/window_lesson.py, its LessonHost).
LESSON_PACKAGES = ("lesson",)
# The top of the app: it imports the tabs, and no tab imports it.
WINDOW_MODULES = ("gui.app", "gui.main_window", "gui.window_lesson")


@cache
def imported_modules(path: Path) -> tuple[str, ...]:
    """Every module ``path`` imports, at its top, in a function or under TYPE_CHECKING (absolute names)."""
    names: list[str] = []
    for node in all_nodes(path):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names += [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
    return tuple(names)


def gui_package_of(module: str) -> str | None:
    """The package of gui/ a module (or a name imported from one) belongs to: "translate" for
    gui.translate.tab; None for the modules at gui/'s top (gui.workers, gui.heap.freeze_new_objects)
    and outside the app."""
    parts = module.split(".")
    if parts[0] != "gui" or len(parts) < 2:
        return None
    return parts[1] if (ROOT / "gui" / parts[1] / "__init__.py").exists() else None


def tab_packages() -> list[str]:
    return sorted(p.name for p in (ROOT / "gui").iterdir()
                  if (p / "__init__.py").exists() and p.name not in SHARED_PACKAGES + LESSON_PACKAGES)


def test_no_engine_source_file_imports_qt_or_the_gui():
    for path in python_files("engine"):
        for name in imported_modules(path):
            assert name.split(".")[0] not in FORBIDDEN, f"{path.name} imports {name}"


def test_the_tab_packages_are_the_three_tabs():
    assert tab_packages() == ["compare", "training", "translate"]


def test_no_tab_package_imports_another_tab_package():
    """A tab imports its own package, gui/attention/, gui/common/ and the modules at gui/'s top
    (gui/workers.py, gui/screen_fit.py, …); what two tabs share moves to gui/common/."""
    for package in tab_packages():
        for path in python_files(f"gui/{package}"):
            for name in imported_modules(path):
                other = gui_package_of(name)
                assert other in (None, package, *SHARED_PACKAGES), (
                    f"{path.relative_to(ROOT)} imports {name}: move what the tabs share to gui/common/")
                assert not name.startswith(WINDOW_MODULES), f"{path.relative_to(ROOT)} imports {name}"


def test_the_shared_packages_import_no_tab():
    for package in SHARED_PACKAGES:
        for path in python_files(f"gui/{package}"):
            for name in imported_modules(path):
                assert gui_package_of(name) in (None, *SHARED_PACKAGES), f"{path.relative_to(ROOT)} imports {name}"
                assert not name.startswith(WINDOW_MODULES), f"{path.relative_to(ROOT)} imports {name}"


def test_the_lesson_imports_no_tab_and_no_tab_imports_the_lesson():
    """gui/lesson/ reads chapters and asks its LessonHost (the window, gui/window_lesson.py) for every
    action: it imports no tab package and not the window; no tab or shared package imports it."""
    for path in python_files("gui/lesson"):
        for name in imported_modules(path):
            assert gui_package_of(name) in (None, *SHARED_PACKAGES, *LESSON_PACKAGES), (
                f"{path.relative_to(ROOT)} imports {name}: ask the LessonHost instead")
            assert not name.startswith(WINDOW_MODULES), f"{path.relative_to(ROOT)} imports {name}"
    for package in tab_packages() + list(SHARED_PACKAGES):
        for path in python_files(f"gui/{package}"):
            for name in imported_modules(path):
                assert gui_package_of(name) not in LESSON_PACKAGES, f"{path.relative_to(ROOT)} imports {name}"


def test_scripts_take_no_view_module():
    """A script drives the whole app (gui.app) or none of it: colours come from the engine's scorer
    table or gui/common/, never from a view."""
    for path in python_files("scripts"):
        for name in imported_modules(path):
            if name.split(".")[0] == "gui":
                assert name.startswith(("gui.app", "gui.common")), f"{path.relative_to(ROOT)} imports {name}"


def test_the_import_map_sees_each_kind_of_import(tmp_path):
    source = tmp_path / "sample.py"
    source.write_text("import gui.compare.tab\nfrom gui.translate import view\nif TYPE_CHECKING:\n"
                      "    from gui.training.panel import TrainingPanel\ndef f():\n    from . import near\n",
                      encoding="utf-8")
    names = imported_modules(source)
    assert {"gui.compare.tab", "gui.translate.view", "gui.training.panel.TrainingPanel"} <= set(names)
    assert [gui_package_of(n) for n in ("gui.workers", "gui.heap.freeze_new_objects", "gui.translate",
                                        "gui.translate.length_study.view", "engine.networks.model")] == [
        None, None, "translate", "translate", None]


# The files the engine keeps in a run folder; the GUI reaches them only through their one owner,
# engine.records.runs.RunFolder, never by name.
ENGINE_RUN_FILES = ("metrics.jsonl", "state.json", "state.safetensors", "run.json")
# The engine's readers and writers of those files: only engine.records.runs calls them for the GUI.
RUN_FILE_MODULES = ("engine.training.checkpoint", "engine.training.metrics_log", "engine.records.run_report", "engine.training.run_lock",
                    "engine.training.resume_args")


def test_the_gui_never_names_a_run_folders_files():
    for path in python_files("gui"):
        for node in all_nodes(path):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                named = [name for name in ENGINE_RUN_FILES if name in node.value]
                assert not named, f"{path.relative_to(ROOT)} names {named[0]}: read it through the engine"


def test_the_gui_reads_a_runs_state_only_through_its_one_owner():
    """No module of gui/ imports the run folder's readers and writers: a run's request, progress,
    phase, log and resumability come from engine.records.runs (RunFolder, RunPhase)."""
    for path in python_files("gui"):
        for node in all_nodes(path):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
            else:
                continue
            for name in names:
                assert not name.startswith(RUN_FILE_MODULES), (
                    f"{path.relative_to(ROOT)} imports {name}: ask engine.records.runs.RunFolder instead")
