"""Compare names how its panels' models were trained when they were not trained alike (read from each
model's config.json), and says nothing when they were."""

import json
import shutil
import time

import pytest

from engine.files.paths import SHIPPED_MODELS
from engine.records.catalog import ModelEntry
from engine.settings import SCORER_TABLE
from gui.compare.model import PanelSlot, training_note

SOURCE = SHIPPED_MODELS / "zh-en-additive"


def model_folder(tmp_path, scorer: str, minutes: float | None = None):
    """A copy of the shipped zh-en-additive config.json under another scorer; ``minutes``: trained to
    that time budget instead."""
    folder = tmp_path / f"zh-en-{scorer}"
    folder.mkdir()
    info = json.loads((SOURCE / "config.json").read_text(encoding="utf-8"))
    info["model"]["scorer"] = scorer
    if minutes is not None:
        info["training"]["train_config"]["max_minutes"] = minutes
        info["training"]["finished"].update(reason="time budget", seconds=minutes * 60)
    (folder / "config.json").write_text(json.dumps(info), encoding="utf-8")
    return ModelEntry(folder, "zh", "en", scorer, True, None, time.time())


@pytest.mark.skipif(not (SOURCE / "config.json").is_file(), reason="zh-en-additive is not shipped")
def test_the_note_names_each_group_and_is_empty_for_models_trained_alike(tmp_path):
    additive = PanelSlot(SCORER_TABLE["additive"], model_folder(tmp_path, "additive"))
    none = PanelSlot(SCORER_TABLE["none"], model_folder(tmp_path, "none"))
    dot = PanelSlot(SCORER_TABLE["dot"], model_folder(tmp_path, "dot", minutes=25.0))
    missing = PanelSlot(SCORER_TABLE["bilinear"], None, "no model")
    assert training_note([additive, none, missing]) == ("", "")
    short, whole = training_note([additive, none, dot, missing])
    assert short == "Not trained alike: Additive (Bahdanau), None (fixed context C) converged · Dot product 25 min"
    assert "Dot product was trained for 25 min (its time budget)" in whole  # the labels of the registry's rows
    (tmp_path / "gone").mkdir()
    broken = PanelSlot(SCORER_TABLE["dot"], model_folder(tmp_path / "gone", "dot", minutes=25.0))
    shutil.rmtree(broken.entry.folder)  # unreadable now: left out, not an error
    assert training_note([additive, none, broken]) == ("", "")
