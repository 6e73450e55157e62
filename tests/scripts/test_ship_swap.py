"""Shipping a model swaps it in: a crash at any write leaves the shipped folder holding its old model or
its new one, whole, and nothing staged on the way is ever listed as a model (engine.records.catalog)."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from engine.models.bundle import load_model_folder
from engine.models.config_file import read_config
from engine.records.catalog import scan
from engine.training.run_lock import RunFolderLock
from tests.scripts import ROOT, load_script

pytestmark = pytest.mark.slow  # runs the scripts as subprocesses, crashes injected at every write

ship_models = load_script("ship_models")
SHIPPED = ROOT / "resources" / "models"
WRITES = [("os", "replace"), ("os", "unlink"), ("os", "rename"), ("os", "mkdir"), ("os", "rmdir"),
          ("shutil", "copy2"), ("shutil", "rmtree"), ("tempfile", "mkstemp")]


class _Crash(Exception):
    pass


def _build(tmp_path: Path) -> tuple[Path, Path]:
    """A build folder whose model ``m`` (en-zh none) replaces the shipped ``m`` (en-zh dot)."""
    build, into = tmp_path / "build", tmp_path / "shipped"
    shutil.copytree(SHIPPED / "en-zh-none", build / "m")
    shutil.copytree(SHIPPED / "en-zh-dot", into / "m")
    (into / "m" / "old-notes.txt").write_text("what the old model's folder also held")
    return build, into


def _scorers(into: Path) -> tuple[list[str], list[str]]:
    entries, unusable = scan([(into, True)])
    return [entry.scorer for entry in entries], [str(u.folder) for u in unusable]


def test_a_crash_at_any_write_leaves_the_old_or_the_new_model(tmp_path: Path, monkeypatch) -> None:
    modules = {"os": os, "shutil": shutil, "tempfile": tempfile}
    real = {(module, name): getattr(modules[module], name) for module, name in WRITES}
    monkeypatch.setattr(os, "fsync", lambda descriptor: None)  # the order of the writes is tested, not the disk
    boundary = 0
    while True:
        build, into = _build(tmp_path / f"try-{boundary}")
        calls = {"count": 0}

        def crashing(key, *args, _calls=calls, _at=boundary, **kwargs):
            _calls["count"] += 1
            if _calls["count"] == _at + 1:
                raise _Crash(key)
            return real[key](*args, **kwargs)

        with monkeypatch.context() as patch:
            for module, name in WRITES:
                patch.setattr(modules[module], name, functools.partial(crashing, (module, name)))
            try:
                ship_models.ship(build, into)
                finished = True
            except _Crash:
                finished = False
        scorer = load_model_folder(into / "m").scorer  # whole, whichever it is
        assert scorer in ("dot", "none"), f"a crash at write {boundary}"
        assert _scorers(into) == ([scorer], []), f"a crash at write {boundary}: staging listed"
        if finished:
            assert scorer == "none"
            assert sorted(p.name for p in (into / "m").iterdir()) == [
                "config.json", "model.safetensors", "src.model", "tgt.model", "words.json"]
            assert sorted(p.name for p in into.iterdir()) == ["m"]
            break
        ship_models.ship(build, into)  # the next ship after a crash completes and tidies up
        assert load_model_folder(into / "m").scorer == "none"
        assert sorted(p.name for p in into.iterdir()) == ["m"]
        boundary += 1
    assert boundary >= 8  # each copy, the commit rename and the clean-up were each interrupted


def test_a_new_folder_is_put_in_place_by_one_rename(tmp_path: Path) -> None:
    build, into = _build(tmp_path)
    shutil.rmtree(into / "m")
    assert ship_models.ship(build, into) == ["m"]
    assert load_model_folder(into / "m").scorer == "none"
    assert read_config(into / "m")["model"]["scorer"] == "none"
    assert sorted(p.name for p in into.iterdir()) == ["m"]


def test_a_folder_a_training_holds_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    build, into = _build(tmp_path)
    with RunFolderLock(into / "m"), pytest.raises(ship_models.EngineError, match="in use by another training run"):
        ship_models.ship(build, into)
    assert load_model_folder(into / "m").scorer == "dot"


def test_the_catalog_never_lists_a_temporary_staging_folder(tmp_path: Path) -> None:
    into = tmp_path / "shipped"
    shutil.copytree(SHIPPED / "en-zh-dot", into / "tmpab12_x9z" / "en-zh-dot")  # an older ship's crash
    shutil.copytree(SHIPPED / "en-zh-none", into / "en-zh-none")
    assert _scorers(into) == (["none"], [])


@pytest.mark.parametrize("arguments", [["{missing}"], ["{build}", "--only", "nothing"], ["{broken}"]])
def test_the_script_answers_errors_in_one_line_with_exit_2(tmp_path: Path, arguments: list[str]) -> None:
    build, into = _build(tmp_path)
    broken = tmp_path / "broken"
    shutil.copytree(build, broken)
    (broken / "m" / "model.safetensors").write_bytes(b"not weights")
    values = {"missing": tmp_path / "missing", "build": build, "broken": broken}
    command = [sys.executable, str(ROOT / "scripts" / "ship_models.py"),
               *(a.format(**values) for a in arguments), "--into", str(into)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("ship_models: error: "), done.stderr
    assert load_model_folder(into / "m").scorer == "dot"
