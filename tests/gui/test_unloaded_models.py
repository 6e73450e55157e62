"""The model folders the app could not use are listed with their reasons ("models not loaded"),
never left out of the model list in silence."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.files import user_models_folder
from engine.records.catalog import UnusableFolder, scan
from engine.training.metrics_log import MetricsLog
from gui.translate.unloaded import UnloadedModels, unloaded_label
from tests.gui.test_translate_support import install_models, open_window, wait_for_model


def _broken_folders(root: Path) -> None:
    (root / "half-written").mkdir(parents=True)
    (root / "half-written" / "config.json").write_text("{", encoding="utf-8")
    (root / "still-training").mkdir()
    MetricsLog(root / "still-training").start({"command": "python -m engine train --task dates"})


def test_the_catalog_says_why_each_folder_is_left_out(tmp_path):
    _broken_folders(tmp_path)
    entries, unusable = scan([(tmp_path, False)])
    reasons = {item.folder.name: item.reason for item in unusable}
    assert entries == [] and set(reasons) == {"half-written", "still-training"}
    assert "not valid JSON" in reasons["half-written"]
    assert "a training run with no model yet" in reasons["still-training"]


def test_the_button_lists_each_folder_with_its_reason_and_hides_when_there_is_none(qtbot, tmp_path):
    button = UnloadedModels()
    qtbot.addWidget(button)
    assert button.isHidden()
    folders = [UnusableFolder(tmp_path / "a", f"{tmp_path / 'a'}/config.json is not valid JSON"),
               UnusableFolder(tmp_path / "b", "x" * 500)]
    button.show_folders(folders)
    assert not button.isHidden() and button.text() == unloaded_label(2) == "⚠ 2 models not loaded"
    actions = button.menu().actions()
    assert [a.text() for a in actions][0] == "a: config.json is not valid JSON"
    assert actions[1].text().endswith("…") and "x" * 500 in actions[1].toolTip()
    assert "a: config.json is not valid JSON" in button.toolTip()
    button.show_folders([])
    assert button.isHidden()


@pytest.mark.slow  # a trained model, or the real window
def test_the_translate_tab_shows_the_models_not_loaded(qtbot, dates_models):
    root = install_models(dates_models, ("additive",))
    _broken_folders(root)
    assert root == user_models_folder()
    window = open_window(qtbot)
    wait_for_model(qtbot, window)
    button = window.translate_tab.view.unloaded_models
    qtbot.waitUntil(lambda: button.isVisibleTo(window), timeout=5000)
    assert button.text() == "⚠ 2 models not loaded"
    assert {a.text().split(":")[0] for a in button.menu().actions()} == {"half-written", "still-training"}
