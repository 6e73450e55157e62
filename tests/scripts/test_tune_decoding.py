"""Choosing checkpoint averaging and the beam length penalty on validation pairs."""

import json
import shutil

import pytest

from engine.corpus.tasks import dates
from engine.models.bundle import load_model_folder
from engine.settings.config import DecodeConfig
from engine.settings.errors import ModelFileError
from engine.training.trainer import train
from tests.model_factory import tiny_job
from tests.scripts import load_script

pytestmark = pytest.mark.slow  # trains a model, opens the real window, runs a subprocess or fuzzes many cases

tune = load_script("tune_decoding")


def test_a_model_folder_carries_its_length_penalty(dates_models, tmp_path):
    folder = tmp_path / "model"
    shutil.copytree(dates_models["additive"], folder)
    assert load_model_folder(folder).decode_config(5) == DecodeConfig(beam_size=5)
    info = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    info["decoding"] = {"length_penalty": 0.6}
    (folder / "config.json").write_text(json.dumps(info), encoding="utf-8")
    bundle = load_model_folder(folder)
    assert bundle.decode_config(5).length_penalty == 0.6
    assert bundle.decode_config(5, length_penalty=0.0).length_penalty == 0.0
    info["decoding"] = {"length_penalty": "lots"}  # a tampered value is refused with its place
    (folder / "config.json").write_text(json.dumps(info), encoding="utf-8")
    with pytest.raises(ModelFileError, match="decoding/length_penalty"):
        load_model_folder(folder)
    del info["decoding"]  # none stored: the engine's default
    (folder / "config.json").write_text(json.dumps(info), encoding="utf-8")
    assert load_model_folder(folder).length_penalty == DecodeConfig.length_penalty


def test_the_length_penalty_is_chosen_by_valid_bleu_from_the_values_tried(dates_models):
    valid = dates.dates_split(seed=1, train_size=10, valid_size=40, test_size=10).valid
    alpha, tried = tune.choose_length_penalty(dates_models["additive"], valid, [0.0, 1.0], beam=3, widen=False)
    assert set(tried) == {"0.0", "1.0"} and tried[str(alpha)] == max(tried.values())


class _Scores:
    def __init__(self, bleu):
        self.scores = type("S", (), {"bleu": bleu})()


def test_the_length_penalty_search_goes_on_upwards_while_the_largest_alpha_tried_is_the_best(dates_models, monkeypatch):
    valid = dates.dates_split(seed=1, train_size=10, valid_size=40, test_size=10).valid
    peak = 3.2  # BLEU rises up to α 3.2, then falls: a grid ending at 2.0 stops short of it
    monkeypatch.setattr(tune, "evaluate", lambda translator, pairs, language, config:
                        _Scores(30.0 - abs(config.length_penalty - peak)))
    alpha, tried = tune.choose_length_penalty(dates_models["additive"], valid, [0.0, 1.0, 2.0], beam=3)
    assert alpha == 3.2 and list(tried) == ["0.0", "1.0", "2.0", "2.6", "3.2", "3.8"]  # stops past the peak
    monkeypatch.setattr(tune, "evaluate", lambda translator, pairs, language, config: _Scores(config.length_penalty))
    alpha, tried = tune.choose_length_penalty(dates_models["additive"], valid, [0.0, 2.0], beam=3)
    assert alpha == 5.0 and max(map(float, tried)) == 5.0  # up to the limit, never beyond it
    assert tune.choose_length_penalty(dates_models["additive"], valid, [0.0, 2.0], beam=3, widen=False)[0] == 2.0


def test_averaging_keeps_whichever_scores_higher_and_the_folder_stays_loadable(tmp_path):
    run = tmp_path / "run"
    list(train(tiny_job(run, epochs=2, train_size=600, keep_snapshots=3, validate_every_steps=4)))
    valid = dates.dates_split(seed=1, train_size=10, valid_size=40, test_size=10).valid
    result = tune.choose_average(run, valid, [2, 3])
    assert set(result["greedy_valid_bleu"]) == {"best model", "average of the last 2", "average of the last 3"}
    best = max(result["greedy_valid_bleu"].values())
    assert result["greedy_valid_bleu"][result["chosen"]] == best
    bundle = load_model_folder(run)
    assert ("averaged" in bundle.info) == result["replaced"]


def test_more_alphas_widen_the_search_keep_what_was_tried_and_redo_the_beam_figures_on_a_new_choice(
        dates_models, tmp_path, monkeypatch):
    folder = tmp_path / "model"
    shutil.copytree(dates_models["additive"], folder)
    info = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    info["decoding"] = {"length_penalty": 1.0, "beam": 3, "tried": {"length_penalty": {"0.0": -1.0, "1.0": -0.5}}}
    (folder / "config.json").write_text(json.dumps(info), encoding="utf-8")
    split = dates.dates_split(seed=1, train_size=10, valid_size=40, test_size=20)
    redone = []
    monkeypatch.setattr(tune, "record_beam_figures", lambda *args: redone.append(args))
    args = type("Args", (), {"alphas": [1.0, 2.0], "beam": 3})()
    tune.widen_length_penalty(folder, split.valid, split, args)
    tried = load_model_folder(folder).info["decoding"]["tried"]["length_penalty"]
    assert set(tried) == {"0.0", "1.0", "2.0"} and tried["1.0"] == -0.5  # 1.0 was not tried again
    assert load_model_folder(folder).length_penalty == 2.0 and len(redone) == 1  # a real BLEU beats -0.5


def test_the_coverage_penalty_is_chosen_on_valid_with_its_looping_share_and_read_back(dates_models, tmp_path):
    folder = tmp_path / "model"
    shutil.copytree(dates_models["additive"], folder)
    valid = dates.dates_split(seed=1, train_size=10, valid_size=40, test_size=10).valid
    changed = tune.record_coverage_penalty(folder, valid, [0.4], beam=3)
    decoding = load_model_folder(folder).info["decoding"]
    tried = decoding["tried"]["coverage_penalty"]
    assert set(tried) == {"0.0", "0.4"}  # off is always tried
    assert set(tried["0.0"]) == {"bleu", "looping_share"} and set(tried["0.4"]) == {"bleu", "looping_share", "p_over_off"}
    beta = decoding["coverage_penalty"]
    on_merit = tried["0.4"]["bleu"] > tried["0.0"]["bleu"] and tried["0.4"]["p_over_off"] <= tune.SIGNIFICANT_P
    assert beta == (0.4 if on_merit else 0.0)
    assert changed == (beta != 0.0) and decoding["tried"]["looping_share_references"] == 0.0
    bundle = load_model_folder(folder)
    assert bundle.coverage_penalty == beta and bundle.decode_config(5).coverage_penalty == beta
    assert bundle.decode_config(5, coverage_penalty=0.2, no_repeat_ngram=3) == DecodeConfig(
        beam_size=5, length_penalty=bundle.length_penalty, coverage_penalty=0.2, no_repeat_ngram=3)


def test_a_tampered_coverage_penalty_is_refused_with_its_place(dates_models, tmp_path):
    folder = tmp_path / "model"
    shutil.copytree(dates_models["additive"], folder)
    assert load_model_folder(folder).coverage_penalty == 0.0  # none stored: off
    info = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    info["decoding"] = {"length_penalty": 1.0, "coverage_penalty": 7}
    (folder / "config.json").write_text(json.dumps(info), encoding="utf-8")
    with pytest.raises(ModelFileError, match="decoding/coverage_penalty"):
        load_model_folder(folder)


def test_the_ngram_constraint_is_chosen_on_valid_off_on_a_tie_and_read_back(dates_models, tmp_path):
    folder = tmp_path / "model"
    shutil.copytree(dates_models["additive"], folder)
    valid = dates.dates_split(seed=1, train_size=10, valid_size=40, test_size=10).valid
    changed = tune.record_repeat_ngram(folder, valid, [1, 3], beam=3)
    decoding = load_model_folder(folder).info["decoding"]
    tried = decoding["tried"]["no_repeat_ngram"]
    assert set(tried) == {"0", "1", "3"}  # off is always tried
    assert all(set(tried[n]) == {"bleu", "looping_share", "p_over_off"} for n in ("1", "3"))
    n = decoding["no_repeat_ngram"]
    assert n == 0 or (tried[str(n)]["bleu"] > tried["0"]["bleu"] and tried[str(n)]["p_over_off"] <= tune.SIGNIFICANT_P)
    # n = 1 forbids any token twice: dates such as 2022-02-22 need repeats, so it must lose to off.
    assert tried["1"]["bleu"] < tried["0"]["bleu"] and n != 1
    assert changed == (n != 0)
    bundle = load_model_folder(folder)
    assert bundle.no_repeat_ngram == n and bundle.decode_config(5).no_repeat_ngram == n
    assert bundle.decode_config(1).no_repeat_ngram == 0  # greedy stays unconstrained


def test_a_tampered_ngram_constraint_is_refused_with_its_place(dates_models, tmp_path):
    folder = tmp_path / "model"
    shutil.copytree(dates_models["additive"], folder)
    info = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    info["decoding"] = {"no_repeat_ngram": 2.5}
    (folder / "config.json").write_text(json.dumps(info), encoding="utf-8")
    with pytest.raises(ModelFileError, match="decoding/no_repeat_ngram"):
        load_model_folder(folder)


def test_the_ngram_constraint_keeps_loops_within_the_references_bound_before_it_looks_at_bleu(
        dates_models, monkeypatch):
    valid = dates.dates_split(seed=1, train_size=10, valid_size=40, test_size=10).valid  # ISO dates: no loops
    figures = {0: {"bleu": 30.0, "looping_share": 0.10}, 3: {"bleu": 29.0, "looping_share": 0.02, "p_over_off": 0.3},
               4: {"bleu": 29.5, "looping_share": 0.05, "p_over_off": 0.4}}
    monkeypatch.setattr(tune, "sweep_beam_setting", lambda folder, valid, beam, field, values, off: figures)
    n, tried = tune.choose_repeat_ngram(dates_models["additive"], valid, [3, 4], beam=3)
    assert n == 3 and tried["0"] == figures[0]  # off and 4 loop above 3 %: the best BLEU within the bound
    figures[4]["looping_share"] = 0.03  # at the bound counts as within it
    assert tune.choose_repeat_ngram(dates_models["additive"], valid, [3, 4], beam=3)[0] == 4
    for value in figures.values():  # none within: the fewest loops
        value["looping_share"] += 0.2
    assert tune.choose_repeat_ngram(dates_models["additive"], valid, [3, 4], beam=3)[0] == 3


def test_the_loop_bound_is_twice_the_references_share_and_at_least_three_percent():
    from engine.decoding.repetition import loop_bound
    assert loop_bound(0.0) == 0.03 and loop_bound(0.01) == 0.03 and loop_bound(0.05) == 0.1


def test_beam_only_chooses_every_beam_setting_afresh_and_keeps_the_checkpoint_choice(dates_models, tmp_path, monkeypatch):
    folder = tmp_path / "model"
    shutil.copytree(dates_models["additive"], folder)
    info = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    averaging = {"chosen": "best model", "greedy_valid_bleu": {"best model": 50.0}, "replaced": False}
    info["decoding"] = {"length_penalty": 0.6, "beam": 3, "coverage_penalty": 0.4, "no_repeat_ngram": 3,
                        "tried": {"length_penalty": {"0.6": 99.0, "7.7": 1.0}, "averaging": averaging}}
    (folder / "config.json").write_text(json.dumps(info), encoding="utf-8")
    split = dates.dates_split(seed=1, train_size=10, valid_size=40, test_size=20)
    redone = []
    monkeypatch.setattr(tune, "record_beam_figures", lambda *args: redone.append(args))
    args = type("Args", (), {"alphas": [0.0, 1.0], "betas": [0.2], "ngrams": [3], "beam": 3})()
    tune.retune_beam(folder, split.valid, split, args)
    decoding = load_model_folder(folder).info["decoding"]
    tried = decoding["tried"]
    assert "7.7" not in tried["length_penalty"] and {"0.0", "1.0"} <= set(tried["length_penalty"])  # stale ones gone
    assert tried["length_penalty"][str(decoding["length_penalty"])] == max(tried["length_penalty"].values())
    assert set(tried["coverage_penalty"]) == {"0.0", "0.2"} and set(tried["no_repeat_ngram"]) == {"0", "3"}
    assert tried["averaging"] == averaging and len(redone) == 1
    assert redone[0][-1] == decoding["length_penalty"]


def test_an_option_is_turned_on_only_when_its_gain_over_off_is_beyond_chance(dates_models, monkeypatch):
    valid = dates.dates_split(seed=1, train_size=10, valid_size=40, test_size=10).valid
    figures = {0.0: {"bleu": 40.0, "looping_share": 0.0}, 0.1: {"bleu": 40.12, "looping_share": 0.0, "p_over_off": 0.35},
               0.2: {"bleu": 39.0, "looping_share": 0.0, "p_over_off": 0.2}}
    monkeypatch.setattr(tune, "sweep_beam_setting", lambda folder, valid, beam, field, values, off: figures)
    assert tune.choose_coverage_penalty(dates_models["additive"], valid, [0.1, 0.2], beam=3)[0] == 0.0  # +0.12: chance
    figures[0.1]["p_over_off"] = 0.01
    assert tune.choose_coverage_penalty(dates_models["additive"], valid, [0.1, 0.2], beam=3)[0] == 0.1
    ngrams = {0: {"bleu": 40.0, "looping_share": 0.0}, 3: {"bleu": 40.09, "looping_share": 0.0, "p_over_off": 0.4},
              4: {"bleu": 41.5, "looping_share": 0.0, "p_over_off": 0.02}}
    monkeypatch.setattr(tune, "sweep_beam_setting", lambda folder, valid, beam, field, values, off: ngrams)
    assert tune.choose_repeat_ngram(dates_models["additive"], valid, [3, 4], beam=3)[0] == 4
    ngrams[4]["p_over_off"] = 0.06
    assert tune.choose_repeat_ngram(dates_models["additive"], valid, [3, 4], beam=3)[0] == 0


def test_the_sweep_gives_each_option_its_p_value_against_off(dates_models):
    valid = dates.dates_split(seed=1, train_size=10, valid_size=30, test_size=10).valid
    tried = tune.sweep_beam_setting(dates_models["additive"], valid, 3, "no_repeat_ngram", [0, 1], off=0)
    assert "p_over_off" not in tried[0] and 0.0 <= tried[1]["p_over_off"] <= 1.0
    assert tried[1]["bleu"] < tried[0]["bleu"]  # n = 1 bans the repeats dates need
