"""Session files of format version 2 (engine/records/session_save.py, read by engine/records/session_file.py): each
step's attention stored once (O(T·S)), the size checked before anything is encoded, the stages a worker
shows — and the files of version 1 (each step's whole hypothesis) still read, with their checks."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from engine.decoding.search import Alternative, DecodeStep
from engine.records import SessionFileError, session_save
from engine.records.session_file import Session, load_session, session_from_json
from engine.records.session_save import SAVE_STAGES, save_session, session_json, session_saving, step_json

DATA = Path(__file__).parent / "data"
MODEL = {"name": "m", "sha256": "ab" * 32, "scorer": "additive", "scorer_label": "Additive", "formula": "e",
         "uses_attention": True, "source_language": "zh", "target_language": "en"}


def greedy(count: int, width: int = 8) -> tuple[DecodeStep, ...]:
    rows = np.random.default_rng(0).dirichlet(np.ones(width), size=count).astype(np.float32)
    steps: list[DecodeStep] = []
    for index in range(count):
        token = f"▁w{index}"
        steps.append(DecodeStep(index=index, token_id=9 + index, token=token, probability=0.5, attention=rows[index],
                                scores=rows[index] * 2, alternatives=(Alternative(9 + index, token, 0.5),),
                                hypothesis_tokens=tuple(s.token for s in steps) + (token,),
                                hypothesis_attention=rows[: index + 1], log_probability=-0.1 * index,
                                previous_steps=tuple(steps)))
    return tuple(steps)


def session(steps) -> Session:
    return Session(MODEL, "x", tuple(f"▁s{j}" for j in range(steps[0].attention.size)),
                   {"beam_size": 1, "seconds_per_step": 0.0}, tuple(steps))


def test_each_steps_attention_is_stored_once(tmp_path):
    sizes = {count: save_session(tmp_path / f"{count}.session.json", session(greedy(count))).stat().st_size
             for count in (60, 120)}
    assert sizes[120] / sizes[60] < 2.2  # linear in the steps (the hypothesis each time: ×3.9)
    document = json.loads((tmp_path / "120.session.json").read_text("utf-8"))
    assert document["format_version"] == 2
    assert all("hypothesis_attention" not in step and "hypothesis_tokens" not in step for step in document["steps"])
    assert [step["parent"] for step in document["steps"][:3]] == [None, 0, 1]
    loaded = load_session(tmp_path / "120.session.json")
    assert [step_json(s) for s in loaded.steps] == [step_json(s) for s in greedy(120)]
    assert loaded.steps[-1].hypothesis_attention.shape == (120, 8)


def test_a_version_1_file_still_loads_with_its_checks():
    """Written by the version before this one (tests/engine/test_session_file.py's hand-made decode)."""
    from tests.engine.test_session_file import hand_made_steps

    path = DATA / "session-v1.session.json"
    loaded = load_session(path)
    assert [step_json(s) for s in loaded.steps] == [step_json(s) for s in hand_made_steps()]
    document = json.loads(path.read_text("utf-8"))
    document["steps"][0]["hypothesis_tokens"] = ["▁other"]
    from engine.records.session_file import _digest

    document["digest"] = _digest(document)
    with pytest.raises(SessionFileError, match="does not end with its token"):
        session_from_json(document)


def test_steps_that_do_not_share_their_earlier_steps_name_each(tmp_path):
    steps = list(greedy(3))
    steps[2] = replace(steps[2], previous_steps=(replace(steps[0]), steps[1]))  # a copy, not the parent's own
    document = session_json(session(steps))
    assert "previous" in document["steps"][-1] and "parent" not in document["steps"][-1]
    loaded = session_from_json(document)
    assert [step_json(s) for s in loaded.steps] == [step_json(s) for s in steps]


def test_the_size_is_checked_before_anything_is_encoded(tmp_path, monkeypatch):
    import engine.records.session_file as session_file

    def encoded(_session):
        raise AssertionError("encoded although the estimate was already too large")

    monkeypatch.setattr(session_save, "_encoded", encoded)
    monkeypatch.setattr(session_file, "MAX_SESSION_BYTES", 10_000)
    saving = session_saving(tmp_path / "big.session.json", session(greedy(200)))
    assert next(saving) == SAVE_STAGES[0]
    with pytest.raises(SessionFileError, match=r"too large to record \(about \d+ MB; a session file holds at most 0 MB"):
        next(saving)
    assert not (tmp_path / "big.session.json").exists()


def test_saving_goes_by_stages_and_names_a_folder(tmp_path):
    saving = session_saving(tmp_path / "s.session.json", session(greedy(4)))
    assert [next(saving) for _ in SAVE_STAGES] == list(SAVE_STAGES)
    assert not (tmp_path / "s.session.json").exists()  # written at the end
    with pytest.raises(StopIteration):
        next(saving)
    assert load_session(tmp_path / "s.session.json").steps[-1].token == "▁w3"
    (tmp_path / "folder.session.json").mkdir()
    with pytest.raises(SessionFileError, match="it is a folder"):
        save_session(tmp_path / "folder.session.json", session(greedy(4)))


def test_the_estimate_is_on_the_low_side():
    for count in (1, 20, 150):
        whole = session(greedy(count))
        assert session_save.estimated_bytes(whole) <= len(session_save._encoded(whole))
