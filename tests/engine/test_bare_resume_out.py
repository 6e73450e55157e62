"""``train --resume --out=DIR`` (the flag's ``=`` form) is a bare resume as ``--out DIR`` is: the run's
stored arguments are taken from DIR, instead of argparse asking for --scorer."""

from __future__ import annotations

from pathlib import Path

import pytest

import engine.__main__ as cli


class _StoredRun:
    """A run folder whose stored command is known (what engine.records.runs.RunFolder reads from its log)."""

    seen: list[Path] = []

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        _StoredRun.seen.append(self.folder)

    def train_arguments(self) -> list[str]:
        return ["--task", "dates", "--scorer", "dot", "--epochs", "3", "--out", str(self.folder)]


@pytest.fixture(autouse=True)
def stored_run(monkeypatch: pytest.MonkeyPatch) -> None:
    _StoredRun.seen = []
    monkeypatch.setattr(cli, "RunFolder", _StoredRun)


def test_the_equals_form_of_out_reads_the_stored_run_as_the_spaced_one_does(tmp_path: Path) -> None:
    spaced = cli._with_stored_run(["train", "--resume", "--out", str(tmp_path), "--epochs", "5"])
    joined = cli._with_stored_run(["train", "--resume", f"--out={tmp_path}", "--epochs", "5"])
    assert _StoredRun.seen == [tmp_path, tmp_path]
    assert "--scorer" in joined and joined[joined.index("--epochs") + 1] == "5"
    assert cli.build_parser().parse_args(joined).out == cli.build_parser().parse_args(spaced).out == tmp_path


def test_a_corpus_given_in_the_equals_form_is_not_a_bare_resume(tmp_path: Path) -> None:
    argv = ["train", "--resume", f"--out={tmp_path}", f"--corpus={tmp_path / 'c.tsv'}", "--scorer", "dot"]
    assert cli._with_stored_run(argv) == argv and _StoredRun.seen == []
