"""The sixth mechanism end to end: multi-head attention trained on the dates task through the command
line and the trainer, decoded (greedy, beam, forced), and its model folder round-tripped."""

import functools
import json

import numpy as np
import pytest
import torch

import engine.training.jobs
from engine.__main__ import main
from engine.corpus.tasks import dates
from engine.decoding.forced import force_decode_ids
from engine.models.bundle import load_model_folder, save_model_folder
from engine.models.config_file import read_config
from engine.models.config_schema import config_problem
from engine.settings.config import DecodeConfig
from engine.training.events import FinishedEvent, StepEvent, ValidationEvent
from engine.training.trainer import train
from tests.model_factory import tiny_job

pytestmark = pytest.mark.slow  # trains a model, opens the real window, runs a subprocess or fuzzes many cases

HEADS = 4
SOURCES = ["29 Nov 2026", "3 May 1999", "2026年11月29日"]


@pytest.fixture(scope="module")
def cli_model(tmp_path_factory):
    """A multi-head model trained by ``python -m engine train --scorer multihead`` (tiny sizes)."""
    out = tmp_path_factory.mktemp("multihead") / "model"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(engine.training.jobs.dates, "dates_split",
                      functools.partial(dates.dates_split, train_size=600, valid_size=40, test_size=40))
        code = main(["train", "--task", "dates", "--scorer", "multihead", "--epochs", "1", "--hidden-size", "32",
                     "--embedding-size", "16", "--out", str(out)])
    assert code == 0
    return out


def test_the_command_line_trains_a_multi_head_model_whose_folder_passes_the_schema(cli_model):
    info = read_config(cli_model)
    assert info["model"]["scorer"] == "multihead" and config_problem(info) is None
    assert info["command"].startswith("python -m engine train --task dates --scorer multihead")
    state = load_model_folder(cli_model).translator.model.state_dict()
    assert {name: tuple(t.shape) for name, t in state.items() if ".scorer." in name} == {
        f"decoder.scorer.{layer}.weight": (32, 32) for layer in ("query_layer", "key_layer", "value_layer",
                                                                 "output_layer")}


def test_translate_json_shows_the_mean_row_and_every_heads_weights(cli_model, capsys):
    assert main(["translate", "--model", str(cli_model), "--json", *SOURCES]) == 0
    for line in capsys.readouterr().out.strip().splitlines():
        result = json.loads(line)
        attention, heads = np.array(result["attention"]), np.array(result["head_attention"])
        assert heads.shape == (len(result["tokens"]), HEADS, len(result["source_tokens"]))
        assert np.allclose(attention.sum(axis=1), 1, atol=1e-4) and np.allclose(heads.sum(axis=2), 1, atol=1e-4)
        assert np.allclose(heads.mean(axis=1), attention, atol=1e-5)


def test_greedy_beam_and_forced_decoding_carry_the_heads(cli_model):
    translator = load_model_folder(cli_model).translator
    for source in SOURCES:
        greedy = translator.translate(source)
        heads = greedy.head_attention
        assert heads.shape == (len(greedy.tokens), HEADS, len(greedy.source_tokens))
        assert np.allclose(heads.mean(axis=1), greedy.attention, atol=1e-6)
        forced = force_decode_ids(translator, source, [step.token_id for step in greedy.steps])
        rows = len(greedy.tokens)  # forcing adds an end of sentence where the greedy output hit its length cap
        assert np.array_equal(forced.attention[:rows], greedy.attention)  # the same operations, to the last bit
        assert np.array_equal(forced.head_attention[:rows], heads)
        assert np.array(forced.to_json()["head_attention"]).shape == forced.head_attention.shape
        beam = translator.translate(source, DecodeConfig(beam_size=3))
        assert beam.head_attention.shape == (len(beam.tokens), HEADS, len(beam.source_tokens))
        assert np.allclose(beam.head_attention.mean(axis=1), beam.attention, atol=1e-6)


def test_the_model_folder_round_trips(cli_model, tmp_path):
    bundle = load_model_folder(cli_model)
    copy = save_model_folder(tmp_path / "copy", bundle.translator.model, bundle.translator.source_tokenizer,
                             bundle.translator.target_tokenizer,
                             {k: bundle.info[k] for k in ("source_language", "target_language", "task")})
    again = load_model_folder(copy)
    assert again.model_config == bundle.model_config
    expected = bundle.translator.model.state_dict()
    assert all(torch.equal(tensor, expected[name]) for name, tensor in again.translator.model.state_dict().items())
    for source in SOURCES:
        first, second = bundle.translator.translate(source), again.translator.translate(source)
        assert first.tokens == second.tokens and np.array_equal(first.head_attention, second.head_attention)


def test_a_multi_head_model_learns_the_dates_task(tmp_path):
    events = list(train(tiny_job(tmp_path / "run", scorer="multihead", epochs=3, train_size=2000, hidden=48)))
    losses = [e.loss for e in events if isinstance(e, StepEvent)]
    validations = [e for e in events if isinstance(e, ValidationEvent)]
    assert isinstance(events[-1], FinishedEvent) and events[-1].reason == "completed"
    assert sum(losses[-10:]) < 0.5 * sum(losses[:10])
    assert validations[-1].valid_loss < validations[0].valid_loss and validations[-1].bleu > validations[0].bleu
    translation = load_model_folder(tmp_path / "run").translator.translate("1 May 2000")
    assert translation.text and translation.head_attention.shape[1] == HEADS
