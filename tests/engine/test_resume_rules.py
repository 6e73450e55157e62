"""What a resume must match and what it keeps: the corpus by its content (not its name), the flags
given on an earlier resume (the stored command is updated), and a damaged log repaired with a word."""

from __future__ import annotations

import functools
import json

import pytest

import engine.training.jobs
from engine.__main__ import main
from engine.corpus.tasks import dates
from engine.records.run_spec import stored_train_arguments
from engine.training.checkpoint_state import checkpoint_progress, checkpoint_step
from engine.training.metrics_log import METRICS_FILE, read_description
from tests.engine.test_metrics_damage import DAMAGED

pytestmark = pytest.mark.slow
TINY = ["--task", "dates", "--scorer", "additive", "--epochs", "1", "--hidden-size", "16", "--embedding-size", "8",
        "--threads", "1"]
SMALL_CORPUS = ["--src", "en", "--tgt", "zh", "--scorer", "dot", "--epochs", "1", "--hidden-size", "16",
                "--embedding-size", "8", "--src-vocab", "400", "--tgt-vocab", "400", "--threads", "1"]
WORDS, ENGLISH = "猫狗书茶山河车花", ["cat", "dog", "book", "tea", "mountain", "river", "car", "flower"]


@pytest.fixture
def small_dates(monkeypatch):
    monkeypatch.setattr(engine.training.jobs.dates, "dates_split",
                        functools.partial(dates.dates_split, train_size=300, valid_size=20, test_size=20))


def _write_corpus(path, offset: int = 0) -> None:
    path.write_text("".join(f"The {ENGLISH[i % 8]} number {i + offset} is here.\t第{i + offset}只{WORDS[i % 8]}在这里。\n"
                            for i in range(300)), encoding="utf-8")


def test_a_resume_with_another_corpus_under_the_same_name_is_refused(tmp_path, capsys):
    corpus, out = tmp_path / "pairs.tsv", tmp_path / "run"
    _write_corpus(corpus)
    assert main(["train", "--corpus", str(corpus), *SMALL_CORPUS, "--out", str(out)]) == 0
    request = checkpoint_progress(out)["request"]
    assert request["corpus"] == "pairs.tsv" and request["corpus_bytes"] == corpus.stat().st_size
    assert len(request["corpus_sha256"]) == 64
    _write_corpus(corpus, offset=1000)  # the same name, other pairs
    capsys.readouterr()
    assert main(["train", "--corpus", str(corpus), *SMALL_CORPUS, "--epochs", "2", "--resume", "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert "another corpus under the name pairs.tsv" in error and "Traceback" not in error
    _write_corpus(corpus)  # the run's own corpus again
    assert main(["train", "--corpus", str(corpus), *SMALL_CORPUS, "--epochs", "2", "--resume", "--out", str(out)]) == 0


def test_a_flag_given_on_one_resume_is_kept_by_the_next(tmp_path, small_dates):
    out = tmp_path / "run"
    assert main(["train", *TINY, "--out", str(out)]) == 0
    assert main(["train", "--resume", "--epochs", "2", "--max-steps", "7", "--out", str(out)]) == 0
    assert checkpoint_step(out) == 7  # stopped inside the second epoch
    stored = stored_train_arguments(out)
    assert stored.count("--epochs") == 1 and stored[stored.index("--epochs") + 1] == "2"
    assert stored.count("--out") == 1 and "--resume" not in stored
    assert "--epochs 2" in read_description(out)["command"]
    # Another flag now: --epochs 2 from the last resume still holds, so the second epoch is finished.
    assert main(["train", "--resume", "--max-steps", "0", "--out", str(out)]) == 0
    assert checkpoint_step(out) == 10 and checkpoint_progress(out)["epoch"] == 2


def test_a_resume_drops_the_damaged_lines_of_its_log_and_says_how_many(tmp_path, small_dates, capsys):
    out = tmp_path / "run"
    assert main(["train", *TINY, "--out", str(out)]) == 0
    with (out / METRICS_FILE).open("a", encoding="utf-8") as handle:
        handle.write(DAMAGED["step Infinity"] + "\n" + DAMAGED["step 'abc'"] + "\n")
    capsys.readouterr()
    assert main(["train", "--resume", "--epochs", "2", "--out", str(out)]) == 0
    error = capsys.readouterr().err
    assert f"[train] {out / METRICS_FILE}: 2 damaged lines skipped (the first at byte" in error
    lines = (out / METRICS_FILE).read_text(encoding="utf-8").splitlines()
    assert all(json.loads(line)["kind"] in ("start", "step", "validation", "finished") for line in lines)
    assert "Infinity" not in (out / METRICS_FILE).read_text(encoding="utf-8")
