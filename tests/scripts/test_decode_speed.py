"""The quality report's decode-speed timing."""

import pytest

from engine.corpus.corpus_read import Pair
from engine.models.bundle import load_model_folder
from scripts import decode_speed


@pytest.mark.slow  # a trained model, or the real window
def test_decode_speed_is_measured_for_every_model_and_mode_on_its_own_direction(dates_models, monkeypatch):
    monkeypatch.setattr(decode_speed, "SPEED_SENTENCES", 4)
    monkeypatch.setattr(decode_speed, "SPEED_ROUNDS", 2)
    asked = []

    def test_pairs_for(source, target):
        asked.append((source, target))
        return [Pair(f"{day} March 1999", "1999-03-01", "") for day in range(1, 9)]

    folders = [dates_models["additive"], dates_models["none"]]
    speeds = decode_speed.decode_speeds(folders, test_pairs_for)
    assert list(speeds) == [folder.name for folder in folders]
    for speed in speeds.values():
        assert set(speed) == {*decode_speed.SPEED_MODES, "load_average", decode_speed.BESIDE_OTHER_WORK}
        assert all(speed[mode] > 0 for mode in decode_speed.SPEED_MODES)
    bundle = load_model_folder(dates_models["none"])
    assert set(asked) == {(bundle.source_language, bundle.target_language)}


@pytest.mark.slow  # a trained model, or the real window
def test_a_speed_taken_on_a_busy_cpu_is_marked_as_taken_beside_other_work(dates_models, monkeypatch):
    monkeypatch.setattr(decode_speed, "SPEED_SENTENCES", 2)
    monkeypatch.setattr(decode_speed, "SPEED_ROUNDS", 1)
    pairs = [Pair("3 March 1999", "1999-03-03", "")] * 2
    marks = {}
    for load in (0.1, decode_speed.BUSY_LOAD + 1.0):
        monkeypatch.setattr(decode_speed.os, "getloadavg", lambda load=load: (load, load, load))
        speed = decode_speed.decode_speeds([dates_models["additive"]], lambda s, t: pairs)["dates-additive"]
        marks[load] = (speed["load_average"], speed[decode_speed.BESIDE_OTHER_WORK])
    assert marks == {0.1: (0.1, False), decode_speed.BUSY_LOAD + 1.0: (decode_speed.BUSY_LOAD + 1.0, True)}
