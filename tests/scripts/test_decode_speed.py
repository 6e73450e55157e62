"""The quality report's decode-speed timing."""

from engine.bundle import load_model_folder
from engine.data import Pair
from scripts import decode_speed


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
        assert set(speed) == set(decode_speed.SPEED_MODES) and all(v > 0 for v in speed.values())
    bundle = load_model_folder(dates_models["none"])
    assert set(asked) == {(bundle.source_language, bundle.target_language)}
