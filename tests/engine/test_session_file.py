"""The session file of a recorded decode: the replay's events equal the recorded ones, and a damaged,
edited or foreign file is refused with the reason (engine/records/session_file.py)."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from engine.decoding.search import Alternative, BeamNode, DecodeStep
from engine.models.bundle import load_model_folder
from engine.records import SessionFileError
from engine.records.session_file import Session, load_session, session_from_json
from engine.records.session_save import save_session, session_json, step_json
from engine.settings.config import DecodeConfig

SOURCE = ("▁我们", "走", "吧", "。")
MODEL = {"name": "zh-en-additive", "sha256": "ab" * 32, "scorer": "additive", "scorer_label": "Additive (Bahdanau)",
         "formula": "e_ij = vᵀ tanh(W s + U h)", "uses_attention": True, "source_language": "zh",
         "target_language": "en"}


def hand_made_steps() -> tuple[DecodeStep, ...]:
    """Three steps shown; the third's hypothesis took another first token than the one shown first
    (as a beam search's best hypothesis may)."""
    def step(index, token, row, previous, hypothesis_rows):
        return DecodeStep(index=index, token_id=10 + index, token=token, probability=0.5 + index / 10,
                          attention=np.array(row, np.float32), scores=np.array(row, np.float32) * 3 - 1,
                          alternatives=(Alternative(10 + index, token, 0.5), Alternative(7, "▁other", 0.25)),
                          hypothesis_tokens=tuple(p.token for p in previous) + (token,),
                          hypothesis_attention=np.array(hypothesis_rows, np.float32),
                          log_probability=-0.3 * (index + 1), is_eos=token == "</s>",
                          previous_steps=tuple(previous))
    first = step(0, "▁Let", [0.7, 0.1, 0.1, 0.1], [], [[0.7, 0.1, 0.1, 0.1]])
    other = step(0, "▁We", [0.6, 0.2, 0.1, 0.1], [], [[0.6, 0.2, 0.1, 0.1]])
    second = step(1, "'s", [0.1, 0.6, 0.2, 0.1], [first], [[0.7, 0.1, 0.1, 0.1], [0.1, 0.6, 0.2, 0.1]])
    third = step(1, "▁go", [0.1, 0.7, 0.1, 0.1], [other], [[0.6, 0.2, 0.1, 0.1], [0.1, 0.7, 0.1, 0.1]])
    # The third step as a beam search shows it: with the candidates it weighed (two kept, one pruned).
    level = (BeamNode((14, 11), "▁go", 0.7, -0.6, "kept", -0.5, third),
             BeamNode((10, 11), "'s", 0.6, -0.8, "kept", -0.7, second),
             BeamNode((10, 12), "▁up", 0.1, -2.6, "pruned", -2.4))
    return first, second, replace(third, beam_level=level)


def session(steps=None) -> Session:
    return Session(MODEL, "我们走吧。", SOURCE, {"beam_size": 3, "seconds_per_step": 0.4}, steps or hand_made_steps())


def test_a_saved_session_replays_every_recorded_event(tmp_path):
    path = save_session(tmp_path / "run.session.json", session())
    loaded = load_session(path)
    assert [step_json(s) for s in loaded.steps] == [step_json(s) for s in session().steps]
    assert loaded.steps[2].previous_steps[0].token == "▁We"  # the hypothesis' own earlier step, not the one shown
    level = loaded.steps[2].beam_level  # the beam tree's candidates, with the steps of those kept
    assert [(n.token, n.status) for n in level] == [("▁go", "kept"), ("'s", "kept"), ("▁up", "pruned")]
    assert level[1].step.hypothesis_tokens == ("▁Let", "'s") and level[2].step is None
    assert loaded.model == MODEL and loaded.source_tokens == SOURCE and loaded.settings["beam_size"] == 3
    assert loaded.same_model("ab" * 32) and not loaded.same_model("cd" * 32)
    assert loaded.note("cd" * 32, "zh-en-dot").startswith("Recorded with another model, zh-en-additive (weights ababab")
    assert "replayed from the file" in loaded.note("ab" * 32, "zh-en-additive")


def edited(change) -> dict:
    document = session_json(session())
    change(document)
    return document


def resealed(change) -> dict:
    """An edit with the digest computed again: the checks behind the digest must catch it."""
    from engine.records.session_file import _digest

    document = edited(change)
    document["digest"] = _digest(document)
    return document


@pytest.mark.parametrize("document, reason", [
    (edited(lambda d: d["steps"][0].update(probability=0.99)), "changed after it was saved"),
    (edited(lambda d: d.update(format_version=3)), "format version 3; this version reads 1 and 2"),
    (edited(lambda d: d.update(format="attention-studio-model")), "not a session file"),
    (resealed(lambda d: d["steps"][1].update(attention=[0.5, 0.5])), "has shape"),
    (resealed(lambda d: d["steps"][1].update(attention=[0.9, 0.9, 0.1, 0.1])), "is not attention"),
    (resealed(lambda d: d["steps"][1].update(parent=5)), "parent must be the number"),
    (resealed(lambda d: d["steps"][1].update(previous=[0])), "names its parent or its earlier steps"),
    (resealed(lambda d: d["steps"][0].update(hypothesis_attention=[[1, 0, 0, 0]])), "instead of storing its hypothesis"),
    (resealed(lambda d: d["steps"][0].update(attention=None)), "an earlier step of its hypothesis has no attention"),
    (resealed(lambda d: d["settings"].update(beam_size=0)), "beam_size must be 1–64"),
    (resealed(lambda d: d.update(shown=[9])), "shown must list steps"),
    (resealed(lambda d: d["steps"][-1]["beam_level"][0].__setitem__(4, "chosen")), "status must be one of kept"),
    (resealed(lambda d: d["steps"][-1]["beam_level"][0].__setitem__(6, 99)), "step must be null or the number"),
    (resealed(lambda d: d["steps"][-1]["beam_level"][0].__setitem__(0, [])), "ids must be"),
    (resealed(lambda d: d["model"].pop("sha256")), "model must hold"),
])
def test_an_edited_damaged_or_foreign_session_is_refused_with_the_reason(document, reason):
    with pytest.raises(SessionFileError, match=reason):
        session_from_json(document)


def test_unreadable_files_are_refused(tmp_path):
    with pytest.raises(SessionFileError, match="no file at"):
        load_session(tmp_path / "none.json")
    (tmp_path / "x.json").write_bytes(b"\xff\xfe not json")
    with pytest.raises(SessionFileError, match="not UTF-8 JSON"):
        load_session(tmp_path / "x.json")
    document = session_json(session())
    document["steps"][0]["probability"] = float("nan")
    (tmp_path / "nan.json").write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(SessionFileError, match="nan.json is refused: it holds a value that is not a finite number"):
        load_session(tmp_path / "nan.json")


@pytest.mark.slow  # a trained model, or the real window
@pytest.mark.parametrize("beam", [1, 3])
def test_a_real_decode_round_trips(dates_models, tmp_path, beam):
    bundle = load_model_folder(dates_models["additive"])
    prepared = bundle.translator.prepare("29 Nov 2026")
    shown = []
    generator = bundle.translator.steps(prepared, DecodeConfig(beam_size=beam))
    try:
        while True:
            shown.append(next(generator))
    except StopIteration:
        pass
    recorded = Session(MODEL | {"source_language": "dates-src", "target_language": "iso"}, "29 Nov 2026",
                       prepared.tokens, {"beam_size": beam, "seconds_per_step": 0.0}, tuple(shown))
    loaded = load_session(save_session(tmp_path / "r.session.json", recorded))
    assert [step_json(s) for s in loaded.steps] == [step_json(s) for s in shown]
    assert all(bool(s.beam_level) == (beam > 1) for s in loaded.steps)  # the beam tree replays too


def test_a_session_too_large_with_its_beam_candidates_is_saved_without_them(tmp_path, monkeypatch):
    import engine.records.session_file as session_file
    from engine.records.session_save import _encoded

    whole = len(_encoded(session()))
    monkeypatch.setattr(session_file, "MAX_SESSION_BYTES", whole - 1)
    loaded = session_from_json(json.loads((save_session(tmp_path / "s.session.json", session())).read_text("utf-8")))
    assert [s.token for s in loaded.steps] == ["▁Let", "'s", "▁go"] and not loaded.steps[2].beam_level
    monkeypatch.setattr(session_file, "MAX_SESSION_BYTES", 100)
    with pytest.raises(SessionFileError, match="too large to record"):
        save_session(tmp_path / "t.session.json", session())
