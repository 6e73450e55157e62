"""Finite results only (engine/decoding/finite_output.py): a decode whose steps come out non-finite is refused
in one line with a model error, and ``evaluate --json`` (with or without ``--long-set``) never prints a
bare NaN or Infinity — a non-finite figure ends in one line on stderr and exit status 2."""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import engine.cli.cli_decode
from engine.__main__ import main
from engine.decoding.finite_output import finite_steps, non_finite_fields
from engine.settings.errors import ModelFileError, NonFiniteError


def _step(index: int, alpha: float) -> SimpleNamespace:
    """The parts of a DecodeStep a model computes."""
    return SimpleNamespace(index=index, probability=0.5 if math.isfinite(alpha) else alpha, log_probability=-0.7,
                           attention=np.array([alpha, 1.0 - alpha], dtype=np.float32), head_attention=None)


def _decode(*steps, translation=None):
    yield from steps
    return translation if translation is not None else SimpleNamespace(attention=np.eye(2), score=-1.0)


def test_a_decode_is_passed_on_while_finite_and_refused_at_its_first_non_finite_step() -> None:
    good, bad = _step(0, 0.25), _step(1, float("nan"))
    shown = []
    with pytest.raises(NonFiniteError) as refused:
        for step in finite_steps(_decode(good, bad, _step(2, 0.5))):
            shown.append(step)
    assert shown == [good]
    message = str(refused.value)
    assert isinstance(refused.value, ModelFileError) and "\n" not in message
    assert "probability, attention" in message and "output step 1" in message


def test_a_sound_decode_returns_its_translation_and_other_items_pass() -> None:
    translation = SimpleNamespace(attention=np.eye(2), score=-1.0)
    checked = finite_steps(_decode("step:ni", _step(0, 0.25), translation=translation))
    assert next(checked) == "step:ni" and next(checked).index == 0
    with pytest.raises(StopIteration) as ended:
        next(checked)
    assert ended.value.value is translation


def test_a_non_finite_translation_is_refused() -> None:
    with pytest.raises(NonFiniteError, match="score came out non-finite"):
        list(finite_steps(_decode(translation=SimpleNamespace(attention=np.eye(2), score=float("-inf")))))


def test_fields_are_named_by_their_top_level_key_once() -> None:
    document = {"bleu": 1.0, "bleu_by_source_length": [{"bleu": float("nan")}, {"bleu": float("inf")}],
                "rows": np.array([[0.5, np.nan]]), "ids": np.array([1, 2]), "text": "NaN"}
    assert non_finite_fields(document) == ["bleu_by_source_length", "rows"]


@pytest.fixture
def evaluate_with_nan(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """``evaluate`` of a model whose figures come out NaN (nothing is decoded)."""
    bundle = SimpleNamespace(info={}, translator=SimpleNamespace(to=lambda device: None), source_language="en",
                             target_language="en", decode_config=lambda *args: None)
    monkeypatch.setattr(engine.cli.cli_decode, "load_model_folder", lambda folder: bundle)
    monkeypatch.setattr(engine.cli.cli_decode.dates, "dates_split", lambda seed: SimpleNamespace(test=[]))
    nan_evaluation = SimpleNamespace(to_json=lambda include_exact_match: {"bleu": float("nan"), "chrf": 1.0})
    monkeypatch.setattr(engine.cli.cli_decode, "evaluate", lambda *args: nan_evaluation)
    monkeypatch.setattr(engine.cli.cli_decode, "long_test_set", lambda *args: [])
    nan_study = SimpleNamespace(to_json=lambda: {"buckets": [{"bleu": float("inf")}]})
    monkeypatch.setattr(engine.cli.cli_decode, "run_length_study", lambda *args: nan_study)
    (tmp_path / "model").mkdir()
    return ["evaluate", "--model", str(tmp_path / "model"), "--task", "dates", "--json"]


@pytest.mark.parametrize("long_set", [[], ["--long-set"]])
def test_evaluate_json_never_prints_a_bare_nan(evaluate_with_nan, capsys, long_set: list[str]) -> None:
    code = main([*evaluate_with_nan, *long_set])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "non-finite" in err and ("length_study" if long_set else "bleu") in err
