"""The wheel is the app: built from the source, installed in a fresh environment outside the checkout,
it translates with a shipped model named on the command line and opens the window with every shipped
model listed. pip's own configuration (indexes, local wheel folders, constraints) applies unchanged to
the fresh environment, so its PyTorch comes from where this environment's came from.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from engine.files.paths import shipped_model_names

pytestmark = pytest.mark.slow  # builds a wheel, installs it with its dependencies, runs two subprocesses

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("pyproject.toml", "setup.py", "README.md", "engine", "gui", "resources")
MAX_WHEEL_BYTES = 150 * 1024 * 1024

WINDOW_SCRIPT = """
import sys

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from gui.app import create_window

window = create_window(["--model", "zh-en-additive"])
app = QApplication.instance()
controller = window.translate_tab.controller
listed = []
controller.catalogChanged.connect(
    lambda choices: listed.append(sorted(e.folder.name for e in choices.entries if e.shipped)))


def loaded(bundle):
    from gui.i18n import load_catalog  # the Chinese interface, found through the installed package

    catalog, problem = load_catalog("zh_CN")
    print("catalogs:", len(catalog), problem or "ok")
    print("shipped:", " ".join(listed[-1] if listed else []))
    print("loaded:", bundle.folder.name)
    print("icon:", not app.windowIcon().isNull())
    window.close()  # as the user would: the tabs shut down, the last window closed ends the loop


def failed(message):
    print("failed:", message)
    app.exit(1)


controller.modelLoaded.connect(loaded)
controller.modelFailed.connect(failed)
QTimer.singleShot(120_000, lambda: app.exit(3))
code = app.exec()
window.deleteLater()
sys.exit(code)
"""


def _copy_sources(dest: Path) -> Path:
    """What the build reads, copied: the checkout is left as it is (no build/ or egg-info written)."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "checkpoint", "*.egg-info")
    dest.mkdir()
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, dest / name, ignore=ignore)
        else:
            shutil.copy2(source, dest / name)
    return dest


def _build_wheel(source: Path, out: Path) -> Path:
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(source)]
    if importlib.util.find_spec("setuptools") is not None:
        command.insert(4, "--no-build-isolation")  # the setuptools here: nothing to fetch
    subprocess.run(command, check=True, cwd=out, timeout=600)
    (wheel,) = out.glob("attention_studio-*.whl")
    return wheel


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    return {**env, **extra}


def test_wheel_installs_and_runs_the_app(tmp_path):
    assert ROOT not in tmp_path.resolve().parents, "the fresh environment must lie outside the checkout"
    dist = tmp_path / "dist"
    dist.mkdir()
    wheel = _build_wheel(_copy_sources(tmp_path / "src"), dist)
    size = wheel.stat().st_size
    names = zipfile.ZipFile(wheel).namelist()
    print(f"\nwheel {wheel.name}: {size / 1e6:.1f} MB, {len(names)} files")
    assert size < MAX_WHEEL_BYTES
    for needed in ("attention_studio_resources/models/zh-en-additive/model.safetensors",
                   "attention_studio_resources/corpora/tatoeba-cmn-eng/cmn-eng.tsv",
                   "attention_studio_resources/corpora/tatoeba-cmn-eng/README.md",
                   "attention_studio_resources/segmenter/zh-words.txt",
                   "attention_studio_resources/examples.json",
                   "attention_studio_resources/alignments/cmn-eng.zh-en.json.gz",
                   "attention_studio_resources/attention-studio.desktop",
                   "attention_studio_resources/attention-studio.svg",
                   "engine/__main__.py", "gui/app.py"):
        assert needed in names, needed
    catalogs = sorted(path.name for path in (ROOT / "resources" / "i18n").glob("*_zh_CN.qm"))
    assert catalogs and all(f"attention_studio_resources/i18n/{name}" in names for name in catalogs), catalogs
    shipped = shipped_model_names()
    for name in shipped:
        assert f"attention_studio_resources/models/{name}/config.json" in names, name
    assert not [n for n in names if "/checkpoint/" in n or n.endswith(("run.json", ".pyc"))]

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    work = tmp_path / "elsewhere"  # the working directory: no checkout in sight
    work.mkdir()
    env = _clean_env(ATTENTION_STUDIO_DATA=str(tmp_path / "data"), XDG_CONFIG_HOME=str(tmp_path / "config"),
                     QT_QPA_PLATFORM="offscreen", OMP_WAIT_POLICY="PASSIVE")

    started = time.monotonic()
    subprocess.run([str(python), "-m", "pip", "install", "-q", str(wheel)], check=True, cwd=work, env=env,
                   timeout=900)
    installed = time.monotonic()
    translated = subprocess.run([str(python), "-m", "engine", "translate", "--model", "zh-en-additive",
                                 "我今天很忙。"], capture_output=True, text=True, cwd=work, env=env, timeout=300)
    finished = time.monotonic()
    print(f"install {installed - started:.1f} s, then first translation {finished - installed:.1f} s: "
          f"wheel install → first translation {finished - started:.1f} s")
    assert translated.returncode == 0, translated.stderr
    assert "busy" in translated.stdout.lower(), translated.stdout

    where = subprocess.run([str(python), "-c", "import engine, engine.files.paths as p; print(engine.__file__); "
                            "print(p.RESOURCES)"], capture_output=True, text=True, cwd=work, env=env, check=True)
    for line in where.stdout.splitlines():
        assert Path(line).resolve().is_relative_to(venv.resolve()), where.stdout  # the installed copy, not the checkout

    script = work / "open_window.py"
    script.write_text(WINDOW_SCRIPT, encoding="utf-8")
    window = subprocess.run([str(python), str(script)], capture_output=True, text=True, cwd=work, env=env,
                            timeout=300)
    assert window.returncode == 0, window.stdout + window.stderr
    lines = dict(line.split(": ", 1) for line in window.stdout.splitlines() if ": " in line)
    assert lines.get("shipped", "").split() == shipped, window.stdout
    assert lines.get("loaded") == "zh-en-additive" and lines.get("icon") == "True", window.stdout
    assert lines.get("catalogs") == f"{len(catalogs)} ok", window.stdout

    helped = subprocess.run([str(venv / "bin" / "attention-studio"), "--help"], capture_output=True, text=True,
                            cwd=work, env=env, timeout=300)
    assert helped.returncode == 0 and "--model" in helped.stdout, helped.stdout + helped.stderr  # the entry point

    unknown = subprocess.run([str(python), "-m", "engine", "translate", "--model", "no-such-model", "x"],
                             capture_output=True, text=True, cwd=work, env=env, timeout=300)
    assert unknown.returncode == 2 and "zh-en-additive" in unknown.stderr, unknown.stderr
