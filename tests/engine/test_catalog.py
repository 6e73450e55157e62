"""Finding model folders: shipped first, the user's newest next, unusable ones reported."""

import os
import shutil

import pytest

from engine.files import user_models_folder
from engine.records.catalog import default_model, scan


@pytest.mark.slow  # a trained model, or the real window
def test_scan_lists_models_and_reports_unusable_folders(dates_models, tmp_path):
    shipped, own = tmp_path / "shipped", tmp_path / "own"
    shutil.copytree(dates_models["additive"], shipped / "zh-en-additive")
    shutil.copytree(dates_models["dot"], own / "run-1")
    shutil.copytree(dates_models["none"], own / "run-2")
    (own / "broken").mkdir()
    os.utime(own / "run-1" / "config.json", (1, 1))
    entries, unusable = scan([(shipped, True), (own, False)])
    assert [e.name for e in entries] == ["zh-en-additive", "run-2", "run-1"]
    assert entries[0].shipped and not entries[1].shipped
    assert entries[1].scorer == "none" and entries[1].direction == "dates-src-iso"
    assert [u.folder.name for u in unusable] == ["broken"] and "config.json is missing" in unusable[0].reason


@pytest.mark.slow  # a trained model, or the real window
def test_default_model_prefers_shipped_zh_en_additive_then_the_newest_own(dates_models, tmp_path):
    own = tmp_path / "own"
    shutil.copytree(dates_models["dot"], own / "old")
    shutil.copytree(dates_models["none"], own / "new")
    os.utime(own / "old" / "config.json", (1, 1))
    entries, _ = scan([(own, False)])
    assert default_model(entries).name == "new"
    assert default_model([]) is None


def test_user_models_folder_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("ATTENTION_STUDIO_DATA", str(tmp_path))
    assert user_models_folder() == tmp_path / "models"


@pytest.mark.slow  # a trained model, or the real window
def test_one_bad_folder_never_hides_the_others(dates_models, tmp_path):
    import json

    own = tmp_path / "own"
    shutil.copytree(dates_models["dot"], own / "good")
    for name, edit in (("metrics-text", lambda c: c.update(metrics="x")),
                       ("test-text", lambda c: c.update(metrics={"test": "x"})),
                       ("deep", None)):
        folder = own / name
        shutil.copytree(dates_models["none"], folder)
        config = json.loads((folder / "config.json").read_text())
        if edit is None:
            text = json.dumps(config)[:-1] + ', "data": ' + "[" * 50_000 + "]" * 50_000 + "}"
        else:
            edit(config)
            text = json.dumps(config)
        (folder / "config.json").write_text(text)
    entries, unusable = scan([(own, False)])
    assert sorted(e.name for e in entries) == ["good", "test-text"]  # a metric it cannot show is not fatal
    assert next(e for e in entries if e.name == "test-text").test_bleu is None
    reasons = {u.folder.name: u.reason for u in unusable}
    assert set(reasons) == {"metrics-text", "deep"}
    assert "metrics" in reasons["metrics-text"] and "nest" in reasons["deep"]
