"""Shipping rebuilt models: the four model files (and the record of training words) travel, the run's state
stays behind."""

import shutil

import pytest

from engine.models.bundle import load_model_folder
from engine.models.config_file import read_config, update_config
from tests.scripts import load_script

ship_models = load_script("ship_models")


@pytest.mark.slow  # a trained model, or the real window
def test_only_the_model_files_are_shipped_and_the_command_names_the_shipped_folder(tmp_path, dates_models):
    build = tmp_path / "build"
    run = build / "dates-additive"
    shutil.copytree(dates_models["additive"], run)
    (run / "checkpoint").mkdir(exist_ok=True)
    (run / "metrics.jsonl").write_text("{}\n")
    info = read_config(run)
    info["command"] = f"python -m engine train --task dates --scorer additive --out {build}/dates-additive"
    update_config(run, info)
    into = tmp_path / "shipped"
    (into / "dates-additive").mkdir(parents=True)
    (into / "dates-additive" / "old.txt").write_text("an older model")
    assert ship_models.ship(build, into) == ["dates-additive"]
    shipped = into / "dates-additive"
    assert sorted(p.name for p in shipped.iterdir()) == ["config.json", "model.safetensors", "src.model", "tgt.model",
                                                         "words.json"]  # the record of its training words too
    assert read_config(shipped)["command"].endswith(f"--out {shipped.resolve().as_posix()}")
    assert load_model_folder(shipped).scorer == "additive"


@pytest.mark.slow  # a trained model, or the real window
def test_a_broken_folder_stops_the_copy_before_anything_is_replaced(tmp_path, dates_models):
    build = tmp_path / "build"
    shutil.copytree(dates_models["additive"], build / "a-good")
    shutil.copytree(dates_models["dot"], build / "b-broken")
    (build / "b-broken" / "model.safetensors").write_bytes(b"not weights")
    into = tmp_path / "shipped"
    with pytest.raises(ship_models.ShipError, match="b-broken is not a loadable model"):
        ship_models.ship(build, into)
    assert not into.exists()
    with pytest.raises(ship_models.ShipError, match="no model folder c-missing"):
        ship_models.ship(build, into, ["c-missing"])
