"""A model whose finite weights overflow on an input (NaN attention and probabilities, an empty text read
from them) ends its decode in one line in the Translate tab's model-error line — no step reaches the map,
no "Decoding failed" dialog — and the next run clears it (engine/decoding/finite_output.py, checked in the worker)."""

from __future__ import annotations

import pytest
import torch

import gui.translate.tab as tab_module
from engine.files.paths import PROJECT_ROOT
from engine.models.bundle import load_model_folder
from engine.records.catalog import ModelEntry
from gui.translate.controller import FAILED, IDLE, TranslateController
from tests.inline_jobs import InlineJobs

SHIPPED_MODEL = PROJECT_ROOT / "resources" / "models" / "en-zh-additive"
ENTRY = ModelEntry(folder=SHIPPED_MODEL, source_language="en", target_language="zh", scorer="additive", shipped=True,
                   test_bleu=None, modified=1.0)


@pytest.fixture(scope="module")
def overflowing_bundle():
    """A shipped model whose weights, all finite, are scaled until its activations overflow."""
    bundle = load_model_folder(SHIPPED_MODEL)
    with torch.no_grad():
        for parameter in bundle.translator.model.parameters():
            parameter.mul_(1e30)
    return bundle


def _jobs(bundle) -> InlineJobs:
    return InlineJobs({f"load {ENTRY.name}": lambda: iter([bundle])})


def test_the_controller_refuses_a_non_finite_decode_in_one_line(overflowing_bundle):
    jobs = _jobs(overflowing_bundle)
    controller = TranslateController(jobs=jobs)
    steps, refused, failed, ended = [], [], [], []
    controller.stepArrived.connect(steps.append)
    controller.runRefused.connect(refused.append)
    controller.runFailed.connect(lambda message, details: failed.append(message))
    controller.runEnded.connect(ended.append)
    controller.load(ENTRY)
    jobs.run_all()
    assert controller.translate("hello there")
    jobs.run_all()
    assert steps == [] and failed == [] and ended == [FAILED] and controller.state == IDLE
    assert len(refused) == 1 and "\n" not in refused[0]
    assert "attention" in refused[0] and "non-finite" in refused[0] and "output step 0" in refused[0]


def test_the_tab_says_it_on_its_model_error_line_and_the_next_run_clears_it(qtbot, overflowing_bundle, monkeypatch):
    jobs = _jobs(overflowing_bundle)
    monkeypatch.setattr(tab_module, "TranslateController", lambda parent: TranslateController(parent, jobs=jobs))
    tab = tab_module.TranslateTab()
    qtbot.addWidget(tab)
    dialogs = []
    tab.errorReported.connect(lambda *report: dialogs.append(report))
    tab.controller.load(ENTRY)
    jobs.run_all()
    tab.view.source_input.setText("hello there")
    assert tab.translate()
    jobs.run_all()
    line = tab.view.error_label
    assert dialogs == [] and not line.isHidden()
    assert line.text().startswith("Decoding: the model's") and "weights overflow" in line.text()
    assert tab.view.attention_panel.target_tokens() == []  # nothing non-finite drawn
    assert tab.translate()  # another run starts: the refusal is no longer news
    assert line.isHidden()
    jobs.run_all()
