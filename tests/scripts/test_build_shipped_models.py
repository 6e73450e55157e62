"""The build script's plan (which models, under which recipe) and its resumable, idempotent build."""

import json
import sys

import pytest

from engine.settings import SCORER_NAMES
from engine.settings.scorer_table import SCORER_TABLE
from tests.scripts import load_script

build = load_script("build_shipped_models")


def test_every_scorer_is_planned_with_a_token_budget_and_held_out_validation(tmp_path):
    corpus = tmp_path / "corpus.tsv"
    plans = build.shipped_plan(corpus, max_target_tokens=20_000_000)
    names = [plan.name for plan in plans]
    one_head = [scorer for scorer in SCORER_NAMES if SCORER_TABLE[scorer].heads == 1]
    both_ways = one_head + ["transformer"]
    assert sorted(names) == sorted([f"{direction}-{scorer}" for scorer in both_ways for direction in ("zh-en", "en-zh")]
                                   + ["zh-en-multihead"])  # multi-head attention in one direction only
    assert set(both_ways) | {"multihead"} == set(SCORER_NAMES)  # every mechanism of the registry is built
    assert names[:2] == ["zh-en-additive", "en-zh-additive"]  # the curves that choose the budget come first
    # added last, in the order they were added: a resumed build finishes the earlier plans first
    assert names[-3:] == ["zh-en-multihead", "zh-en-transformer", "en-zh-transformer"]
    for plan in plans:
        arguments = " ".join(plan.arguments)
        assert "--max-target-tokens 20000000" in arguments and "--long-validation" in arguments
        assert "--split-rule strict" in arguments  # valid is held out, so early stopping reads a held-out score
        assert "--concat-start 0" in arguments  # long examples from the start
        transformer = plan.name.endswith("-transformer")
        assert ("--embedding-size 256" in arguments) == (plan.name.startswith("zh-en") or transformer)
        assert ("--temperature-warmup 1 " in arguments + " ") == plan.name.endswith(("-dot", "-bilinear"))
        assert ("--warmup-steps" in arguments) == transformer  # the learning rate's warm-up: the Transformer's own
        assert len(plan.arguments) == len(set(a for a in plan.arguments if a.startswith("--"))) + sum(
            not a.startswith("--") for a in plan.arguments)  # no flag given twice
        assert "--out" not in plan.arguments and "--resume" not in plan.arguments


def test_the_transformer_is_built_alike_in_both_directions_and_its_trials_change_one_setting_each(tmp_path):
    plans = {plan.name: plan for plan in build.shipped_plan(tmp_path / "corpus.tsv")}
    zh_en, en_zh = plans["zh-en-transformer"].arguments, plans["en-zh-transformer"].arguments
    assert [a for a in zh_en if a not in ("zh", "en")] == [a for a in en_zh if a not in ("zh", "en")]
    base = _settings(build.with_values(zh_en, build.TRANSFORMER_TRIAL_BASE))  # the recipe the trials started from
    trials = build.transformer_trials(tmp_path / "corpus.tsv", max_target_tokens=1_000)
    assert [t.name for t in trials] == [f"zh-en-transformer-{label}" for label in build.TRANSFORMER_TRIALS]
    for trial, changes in zip(trials, build.TRANSFORMER_TRIALS.values(), strict=True):
        settings = _settings(trial.arguments)
        differing = {flag for flag in settings if settings[flag] != base.get(flag)}
        assert differing == set(changes) | {"--max-target-tokens"}


def _settings(arguments: tuple[str, ...]) -> dict[str, str]:
    """{flag: its value, or "" for a switch}."""
    settings = {}
    for index, argument in enumerate(arguments):
        if argument.startswith("--"):
            following = arguments[index + 1] if index + 1 < len(arguments) else "--"
            settings[argument] = "" if following.startswith("--") else following
    return settings


def test_the_state_of_a_model_folder_decides_skip_resume_or_start(tmp_path):
    assert build.model_state(tmp_path / "missing") == "new"
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "metrics.jsonl").write_text(json.dumps({"kind": "finished", "reason": "stopped"}) + "\n")
    assert build.model_state(folder) == "new"  # stopped, but nothing to resume from
    (folder / "metrics.jsonl").write_text(json.dumps({"kind": "finished", "reason": "early stopping"}) + "\n")
    assert build.model_state(folder) == "finished"
    (folder / "metrics.jsonl").write_text(json.dumps({"kind": "finished", "reason": "token budget"}) + "\n")
    assert build.model_state(folder) == "finished"


def test_a_model_kept_in_the_repository_is_skipped_only_under_the_plans_own_recipe(tmp_path):
    plan = build.shipped_plan(tmp_path / "corpus.tsv")[0]
    kept = tmp_path / "kept"
    assert not build.kept_by_recipe(kept, plan) and not build.kept_by_recipe(None, plan)
    (kept / plan.name).mkdir(parents=True)
    config = kept / plan.name / "config.json"
    command = f"python -m engine train {' '.join(plan.arguments)} --threads 1 --out resources/models-next/{plan.name}"
    config.write_text(json.dumps({"command": command}), encoding="utf-8")
    assert build.kept_by_recipe(kept, plan)
    assert build.model_state(tmp_path / "missing", kept=True) == "kept"
    older = command.replace("--seed 1 ", "--seed 2 ")  # another recipe: built again
    assert older != command
    config.write_text(json.dumps({"command": older}), encoding="utf-8")
    assert not build.kept_by_recipe(kept, plan)
    config.write_text("{not json", encoding="utf-8")
    assert not build.kept_by_recipe(kept, plan)
    config.write_text(json.dumps({"command": command}), encoding="utf-8")
    ran = []
    runner = build.Build(tmp_path / "out", kept=kept, log=ran.append)
    assert runner.run_one(plan) == (plan.name, "kept", 0)  # nothing trained, nothing written
    assert ran == [f"{plan.name}: skipped, already built under the plan's recipe (in {kept})"]  # said so
    assert not (tmp_path / "out").exists()
    row = build.summary(tmp_path / "out", [plan], kept)[0]
    assert row["model"] == plan.name and row["state"] == "kept"


def test_a_model_shipped_under_the_plans_recipe_is_done_and_one_under_an_older_recipe_is_built_again(tmp_path):
    plan = build.shipped_plan(tmp_path / "corpus.tsv")[0]
    kept, shipped = tmp_path / "kept", tmp_path / "shipped"
    (shipped / plan.name).mkdir(parents=True)
    config = shipped / plan.name / "config.json"
    command = f"python -m engine train {' '.join(plan.arguments)} --threads 1 --out resources/models/{plan.name}"
    config.write_text(json.dumps({"command": command}), encoding="utf-8")
    assert build.kept_in((kept, shipped), plan) == shipped  # moved out of the kept folder when it shipped
    runner = build.Build(tmp_path / "out", kept=kept, shipped=shipped, log=lambda _: None)
    assert runner.run_one(plan) == (plan.name, "kept", 0) and not (tmp_path / "out").exists()
    assert build.summary(tmp_path / "out", [plan], kept, shipped)[0]["state"] == "kept"
    config.write_text(json.dumps({"command": command.replace("--seed 1 ", "--seed 2 ")}), encoding="utf-8")
    assert build.kept_in((kept, shipped), plan) is None  # the earlier set's model: trained again
    assert build.kept_in((None, None), plan) is None


def test_a_model_that_ends_on_its_own_is_tuned_and_kept_and_one_that_failed_to_is_finished_on_the_next_build(
        tmp_path):
    plan = build.shipped_plan(tmp_path / "corpus.tsv")[0]
    out, kept = tmp_path / "out", tmp_path / "kept"
    (out / plan.name).mkdir(parents=True)
    (out / plan.name / "metrics.jsonl").write_text(json.dumps({"kind": "finished", "reason": "early stopping"}) + "\n")
    runner = build.Build(out, kept=kept, log=lambda _: None)
    commands, codes = [], [1]  # the tuning fails the first time (a stopped build, a full disk …)
    runner.run_child = lambda _plan, command: commands.append(command) or (codes.pop() if codes else 0)
    assert runner.run_one(plan) == (plan.name, "finished", 1)
    assert len(commands) == 1 and commands[0][1].endswith("tune_decoding.py")  # not kept after a failed step
    assert runner.run_one(plan) == (plan.name, "finished", 0)  # the next build finishes it
    tune, ship = commands[1:]
    assert tune[1].endswith("tune_decoding.py") and tune[2].endswith(plan.name)
    assert tune[tune.index("--corpus") + 1] == plan.arguments[plan.arguments.index("--corpus") + 1]
    assert ship[1].endswith("ship_models.py") and ship[ship.index("--into") + 1] == str(kept)
    assert ship[ship.index("--only") + 1] == plan.name
    commands.clear()
    runner.kept = None  # the trials: no kept folder, nothing to finish
    assert runner.finish(plan) == 0 and not commands


def test_an_unknown_name_is_refused_with_the_valid_ones(monkeypatch, tmp_path, capsys):
    corpus = tmp_path / "c.tsv"
    corpus.write_text("a\tb\n", encoding="utf-8")
    monkeypatch.setattr(sys, "argv", ["build", "--corpus", str(corpus), "--only", "zh-en-dots"])
    with pytest.raises(SystemExit, match="unknown model name.*zh-en-dots.*valid: zh-en-additive"):
        build.main()


def test_the_mix_trials_differ_from_the_shipped_zh_en_additive_run_only_in_the_mix_and_budget(tmp_path):
    corpus = tmp_path / "corpus.tsv"
    corpus.write_text("Hi.\t嗨。\n", encoding="utf-8")
    base = build.shipped_plan(corpus, max_target_tokens=3_000_000)[0]
    trials = build.mix_trials(corpus)
    assert [t.name for t in trials] == ["zh-en-additive-share0.15-k8", "zh-en-additive-share0.15-k12"]
    for trial, (share, most) in zip(trials, (("0.15", "8"), ("0.15", "12")), strict=True):
        changed = [(a, b) for a, b in zip(base.arguments, trial.arguments, strict=True) if a != b]
        expected = {("0.3", share), ("8", most)} - {(v, v) for v in (share, most)}
        assert set(changed) == expected
        assert trial.arguments[trial.arguments.index("--max-target-tokens") + 1] == "3000000"


def test_a_rerun_goes_on_with_the_runs_under_way_before_it_starts_new_ones(tmp_path):
    from engine.training.checkpoint_state import CHECKPOINT_FOLDER, LEGACY_TENSORS_FILE, STATE_FILE

    plans = build.shipped_plan(tmp_path / "corpus.tsv")
    out = tmp_path / "models"
    assert build.under_way_first(plans, out) == plans  # nothing under way: plan order
    for name in ("zh-en-multihead", "zh-en-dot"):
        checkpoint = out / name / CHECKPOINT_FOLDER
        checkpoint.mkdir(parents=True)
        (checkpoint / STATE_FILE).write_text("{}")
        (checkpoint / LEGACY_TENSORS_FILE).write_bytes(b"")
    ordered = [plan.name for plan in build.under_way_first(plans, out)]
    assert ordered[:2] == ["zh-en-dot", "zh-en-multihead"]  # under way, in plan order
    assert ordered[2:] == [plan.name for plan in plans if plan.name not in ("zh-en-dot", "zh-en-multihead")]
