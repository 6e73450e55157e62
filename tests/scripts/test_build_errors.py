"""build_shipped_models claims its folder through the lock ``train`` holds (one build per folder) and
answers errors in one line: a damaged config.json is a row's problem in ``--summary``, never a traceback."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from engine.training.run_lock import RunFolderLock
from tests.scripts import load_script

build = load_script("build_shipped_models")


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    path = tmp_path / "corpus.tsv"
    path.write_text("Hi.\t嗨。\n", encoding="utf-8")
    return path


def test_a_second_build_into_the_same_folder_is_refused_in_one_line(tmp_path: Path, corpus: Path, capsys) -> None:
    out = tmp_path / "out"
    plan = build.shipped_plan(corpus)[0]
    with RunFolderLock(out):
        code = build.main(["--corpus", str(corpus), "--out", str(out), "--kept", str(tmp_path / "kept"),
                           "--only", plan.name])
    _, err = capsys.readouterr()
    assert code == 2 and err.count("\n") == 1 and "in use by another training run" in err, err
    assert str(os.getpid()) in err and not (out / plan.name).exists()  # nothing started


@pytest.mark.parametrize("damage", ['{"training": ', "[1, 2]", "[" * 100_000, b"\xff\xfe"])
def test_summary_reports_a_damaged_config_in_its_row(tmp_path: Path, corpus: Path, capsys, damage) -> None:
    out = tmp_path / "out"
    plans = build.shipped_plan(corpus)
    (out / plans[0].name).mkdir(parents=True)
    config = out / plans[0].name / "config.json"
    config.write_bytes(damage if isinstance(damage, bytes) else damage.encode("utf-8"))
    code = build.main(["--corpus", str(corpus), "--out", str(out), "--kept", str(tmp_path / "kept"), "--summary"])
    lines, err = capsys.readouterr()
    rows = [json.loads(line) for line in lines.splitlines()]
    assert code == 0 and err == ""
    assert rows[0]["model"] == plans[0].name and "config.json" in rows[0]["problem"]
    assert len(rows) == len(plans) and all("problem" not in row for row in rows[1:])


def test_a_damaged_kept_config_means_built_again_not_a_crash(tmp_path: Path, corpus: Path) -> None:
    plan = build.shipped_plan(corpus)[0]
    (tmp_path / "kept" / plan.name).mkdir(parents=True)
    (tmp_path / "kept" / plan.name / "config.json").write_text("[" * 100_000, encoding="utf-8")
    assert not build.kept_by_recipe(tmp_path / "kept", plan)
    (tmp_path / "kept" / plan.name / "config.json").unlink()
    os.mkfifo(tmp_path / "kept" / plan.name / "config.json")  # would block a reader: refused, not opened for long
    assert not build.kept_by_recipe(tmp_path / "kept", plan)
