"""JSON read or written by the engine stays within what JSON is: a document nested too deep for the
parser (a RecursionError) is refused with its reader's own error in one line, and ``translate --json``
never prints a bare ``NaN`` — a model whose finite weights overflow on an input is reported in one line."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
import torch

import engine.cli.cli_decode
from engine.__main__ import main
from engine.corpus.examples import load_examples
from engine.files.paths import PROJECT_ROOT
from engine.models.bundle import load_model_folder
from engine.models.config_file import read_config
from engine.records.session_file import load_session
from engine.records.session_values import SessionFileError
from engine.settings.errors import ModelFileError
from engine.studies.alignment_store import AlignmentFileError, load_alignment

SHIPPED_MODEL = PROJECT_ROOT / "resources" / "models" / "en-zh-additive"
DEPTH = 100_000


def _nested(depth: int = DEPTH) -> str:
    return '{"format": ' + "[" * depth + "]" * depth + "}"


def _one_line(error: BaseException) -> str:
    message = str(error)
    assert message and "\n" not in message and len(message) < 400
    return message


@pytest.mark.parametrize("depth", [DEPTH, 5_000])
def test_a_deeply_nested_alignment_file_is_an_alignment_file_error(tmp_path: Path, depth: int) -> None:
    path = tmp_path / "alignment.json.gz"
    path.write_bytes(gzip.compress(_nested(depth).encode("utf-8")))
    with pytest.raises(AlignmentFileError) as refused:
        load_alignment(path)
    assert "nests too deep" in _one_line(refused.value)


def test_a_deeply_nested_session_file_is_a_session_file_error(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    path.write_text(_nested(), encoding="utf-8")
    with pytest.raises(SessionFileError) as refused:
        load_session(path)
    _one_line(refused.value)


def test_a_deeply_nested_model_config_is_a_model_file_error(tmp_path: Path) -> None:
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "config.json").write_text(_nested(), encoding="utf-8")
    with pytest.raises(ModelFileError) as refused:
        read_config(tmp_path / "model")
    assert "nests too deep" in _one_line(refused.value)


def test_deeply_nested_examples_give_none_rather_than_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "examples.json"
    path.write_text(_nested(), encoding="utf-8")
    assert load_examples(path) == {}


@pytest.fixture(scope="module")
def overflowing_model(tmp_path_factory: pytest.TempPathFactory):
    """A shipped model whose weights, all finite, are scaled until its activations overflow."""
    bundle = load_model_folder(SHIPPED_MODEL)
    with torch.no_grad():
        for parameter in bundle.translator.model.parameters():
            parameter.mul_(1e30)
    return bundle


@pytest.mark.parametrize("as_json", [["--json"], []])
def test_translate_reports_non_finite_output_in_one_line_never_bare_nan(overflowing_model, monkeypatch, capsys,
                                                                        as_json: list[str]) -> None:
    monkeypatch.setattr(engine.cli.cli_decode, "load_model_folder", lambda folder: overflowing_model)
    code = main(["translate", "--model", str(SHIPPED_MODEL), *as_json, "hello there"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "non-finite" in err and "attention" in err and "score" in err


def test_translate_json_of_a_sound_model_is_strict_json(monkeypatch, capsys) -> None:
    code = main(["translate", "--model", str(SHIPPED_MODEL), "--json", "hello there"])
    out, _ = capsys.readouterr()
    assert code == 0
    json.loads(out, parse_constant=lambda name: pytest.fail(f"{name} printed"))

