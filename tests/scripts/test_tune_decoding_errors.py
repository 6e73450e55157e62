"""tune_decoding answers every engine error in one line with exit 2, and never writes beside a training
that holds the folder (the lock ``train`` holds, engine.training.run_lock)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine.training.run_lock import RunFolderLock
from tests.scripts import ROOT, load_script

pytestmark = pytest.mark.slow  # runs the scripts as subprocesses, crashes injected at every write

tune_decoding = load_script("tune_decoding")
SHIPPED = ROOT / "resources" / "models" / "en-zh-dot"


@pytest.fixture
def model(tmp_path: Path) -> Path:
    folder = tmp_path / "model"
    shutil.copytree(SHIPPED, folder)
    return folder


def _refused(capsys, arguments: list[str], *expected: str) -> str:
    assert tune_decoding.main([str(a) for a in arguments]) == 2
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and err.startswith("tune_decoding: error: "), err
    assert all(part in err for part in expected), err
    return err


@pytest.mark.parametrize(("flags", "expected"), [
    (["--valid", "0"], ["--valid must be at least 1"]),
    (["--alphas", "nan"], ["--alphas", "between 0.0 and 5.0", "nan"]),
    (["--betas", "0", "inf"], ["--betas", "between 0.0 and 5.0"]),
    (["--ngrams", "-1"], ["--ngrams", "between 0 and 20"]),
    (["--beam", "0"], ["--beam", "beam_size must be between 1 and 10"]),
    (["--average", "0"], ["--average counts must be at least 1"]),
])
def test_a_value_no_decode_takes_is_refused_before_any_folder_is_read(capsys, model: Path, flags, expected) -> None:
    before = (model / "config.json").read_bytes()
    _refused(capsys, [model, *flags], *expected)
    assert (model / "config.json").read_bytes() == before


def test_a_missing_folder_is_one_line(capsys, tmp_path: Path) -> None:
    _refused(capsys, [tmp_path / "nowhere"], "nowhere")


def test_a_damaged_config_is_one_line(capsys, model: Path) -> None:
    (model / "config.json").write_text('{"format": ', encoding="utf-8")
    _refused(capsys, [model], "config.json", "not valid JSON")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX only")
def test_a_pipe_for_a_corpus_is_one_line(capsys, model: Path, tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "corpus.tsv")
    _refused(capsys, [model, "--corpus", tmp_path / "corpus.tsv"], "not a regular file")


def test_a_folder_a_training_holds_is_refused_and_left_as_it_was(capsys, model: Path) -> None:
    before = (model / "config.json").read_bytes()
    with RunFolderLock(model):
        _refused(capsys, [model], "in use by another training run", str(os.getpid()))
    assert (model / "config.json").read_bytes() == before


def test_the_script_itself_prints_one_line_and_exits_2(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "tune_decoding.py"), str(tmp_path / "nowhere")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
