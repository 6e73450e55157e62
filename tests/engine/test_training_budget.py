"""A model's training budget in words, and the note that says when the models drawn together were not
trained alike."""

from engine.models.model_record import ModelRecord
from engine.settings.config import TrainConfig
from engine.studies.training_budget import (
    budget_note,
    recipe_groups,
    recipe_key,
    short_budget_note,
    trained_alike,
    training_budget,
)


def config(scorer: str = "additive", **options) -> ModelRecord:
    """A model's record as its config.json gives it (:func:`info`)."""
    return ModelRecord.parse(info(scorer, **options))


def info(scorer: str = "additive", *, reason: str = "early stopping", seconds: float = 13672.4,
         tokens: int | None = 32_840_867, **settings) -> dict:
    train_config = TrainConfig(**settings).to_dict()
    history = [{"epoch": 1, "bleu": 10.0}] + ([{"epoch": 2, "bleu": 20.0, "target_tokens": tokens}] if tokens else [])
    return {"data": {"split": {"train": 100, "valid": 10, "test": 10}, "split_rule": "strict"},
            "model": {"scorer": scorer, "embedding_size": 256},
            "tokenizers": {"source": {"sha256": "aa"}, "target": {"sha256": "bb"}},
            "training": {"train_config": train_config, "train_seconds": 11585.0, "history": history,
                         "finished": {"reason": reason, "seconds": seconds, "epochs_completed": 57}}}


def test_a_converged_run_and_a_time_budgeted_one_are_described_by_what_ended_them():
    converged = training_budget(config())
    assert converged.describe() == "until its validation stopped improving (3.8 h, kept at 32.8 M target tokens)"
    assert converged.epochs == 57
    short = training_budget(config(reason="time budget", seconds=1507.25, tokens=None, max_minutes=25.0))
    assert short.describe() == "for 25 min (its time budget)"
    capped = config(reason="token budget", tokens=35_517_681, seconds=14493.0, max_target_tokens=40_000_000)
    assert training_budget(capped).describe() == \
        "to its budget of 40.0 M target tokens (4.0 h, kept at 35.5 M target tokens)"
    assert training_budget(ModelRecord.parse({})).describe() == "for a time it did not record"
    broken = training_budget(ModelRecord.parse({"training": {"history": ["not a dict"], "finished": {"seconds": "long"}}}))
    assert broken.target_tokens is None and broken.seconds == 0.0


def test_models_differing_only_in_their_scorer_share_a_recipe_and_anything_else_splits_them():
    assert recipe_key(config("additive")) == recipe_key(config("dot", temperature_warmup=0.1))  # warm-up: unscaled only
    assert recipe_key(config("additive", torch_threads=1, device="cpu")) == recipe_key(config("none", torch_threads=2))
    assert recipe_key(config("additive")) != recipe_key(config("none", seed=2))
    assert recipe_key(config("additive")) != recipe_key(config("none", max_minutes=25.0))
    other_tokenizer = info("none")
    other_tokenizer["tokenizers"]["source"]["sha256"] = "cc"
    assert recipe_key(config("additive")) != recipe_key(ModelRecord.parse(other_tokenizer))
    wider = info("none")
    wider["model"]["embedding_size"] = 128
    assert recipe_key(config("additive")) != recipe_key(ModelRecord.parse(wider))
    unreadable = info("none")
    unreadable["training"]["train_config"] = {"no such setting": 1}
    assert recipe_key(ModelRecord.parse(unreadable)) != recipe_key(config("additive"))  # compared as its text, never equal by accident


def test_the_note_is_empty_for_models_trained_alike_and_names_each_group_otherwise():
    alike = {"additive": config("additive"), "none": config("none", )}
    assert recipe_groups(alike) == [("additive", "none")] and budget_note(alike) == ""
    assert budget_note({"additive": config()}) == ""
    earlier = dict(reason="time budget", seconds=1500.0, tokens=None, max_minutes=25.0, seed=1, lr_patience=1)
    mixed = {"additive": config("additive"), "dot": config("dot", **earlier), "none": config("none", tokens=24_801_145),
             "bilinear": config("bilinear", **earlier)}
    assert recipe_groups(mixed) == [("additive", "none"), ("dot", "bilinear")]
    note = budget_note(mixed, {"additive": "Additive", "none": "None (fixed C)"})
    assert note == ("Not trained alike (compare within a group): Additive and None (fixed C) were trained until "
                    "their validation stopped improving (kept at 32.8 and 24.8 M target tokens); dot and bilinear "
                    "were trained for 25 min each (a time budget).")
    single = {"additive": config("additive"), "dot": config("dot", **earlier)}
    assert "dot was trained for 25 min (its time budget)" in budget_note(single)
    assert short_budget_note(mixed, {"none": "C"}) == "Not trained alike: additive, C converged · dot, bilinear 25 min"
    assert short_budget_note(alike) == ""
    capped = config("scaled_dot", reason="token budget", tokens=35_517_681, max_target_tokens=40_000_000)
    cap = dict(max_target_tokens=40_000_000)  # the build's recipe: every run under the same budget
    with_capped = {"additive": config("additive", **cap), "scaled_dot": capped,
                   "none": config("none", tokens=24_801_145, **cap), "dot": config("dot", **earlier)}
    assert budget_note(with_capped, {"none": "C"}).startswith(
        "Not trained alike (compare within a group): additive, scaled_dot and C were trained until their validation "
        "stopped improving or their 40.0 M-token budget ran out (kept at 32.8, 35.5 and 24.8 M target tokens); ")
    assert short_budget_note(with_capped).startswith(
        "Not trained alike: additive, scaled_dot, none converged or at their token budget · dot 25 min")
    assert trained_alike(mixed, "none") == ("additive", "none") and trained_alike(mixed, "multihead") == tuple(mixed)


def transformer(layers: int = 2, rnn_size: int = 999, **settings) -> ModelRecord:
    """A Transformer's record: its own sizes, rate and warm-up, and the RNN sizes its config also carries."""
    record = info("transformer", **{"learning_rate": 0.001, "warmup_steps": 500, **settings})
    record["model"] |= {"transformer_layers": layers, "feedforward_size": 1024, "positions": "sinusoidal",
                        "encoder_hidden_size": rnn_size, "cell": "lstm"}  # RNN sizes: unused by a Transformer
    return ModelRecord.parse(record)


def test_a_family_of_its_own_sizes_and_rate_is_trained_alike_when_it_shares_the_data_and_the_budget():
    rnns = {"additive": config("additive"), "none": config("none")}
    with_transformer = {**rnns, "transformer": transformer()}
    assert recipe_key(transformer()) != recipe_key(config("additive"))  # it differs in more than its scorer …
    assert recipe_groups(with_transformer) == [("additive", "none", "transformer")]  # … under the same budget
    assert budget_note(with_transformer) == "" and trained_alike(with_transformer, "none") == tuple(with_transformer)
    assert recipe_key(transformer()) == recipe_key(transformer(rnn_size=1))  # unused sizes: not compared
    other_budget = {**rnns, "transformer": transformer(max_target_tokens=1_000_000)}
    assert recipe_groups(other_budget) == [("additive", "none"), ("transformer",)]
    assert "transformer was trained" in budget_note(other_budget)


def test_under_one_budget_two_groups_of_one_family_keep_every_group_apart():
    wider = info("dot")
    wider["model"]["embedding_size"] = 128
    two_rnn_recipes = {"additive": config("additive"), "dot": ModelRecord.parse(wider), "transformer": transformer()}
    assert recipe_groups(two_rnn_recipes) == [("additive",), ("dot",), ("transformer",)]  # which RNN it pairs with: undecided
    two_transformers = {"additive": config("additive"), "t2": transformer(2), "t3": transformer(3)}
    assert recipe_groups(two_transformers) == [("additive",), ("t2",), ("t3",)]


def test_the_records_of_a_models_folder_are_read_by_direction_and_an_unreadable_one_is_left_out(tmp_path):
    import shutil

    import pytest

    from engine.files.paths import SHIPPED_MODELS
    from engine.studies.training_budget import direction_records

    names = ("zh-en-additive", "en-zh-none")
    if not all((SHIPPED_MODELS / name / "config.json").is_file() for name in names):
        pytest.skip("the shipped models are not here")
    for name in names:
        (tmp_path / name).mkdir()
        shutil.copy(SHIPPED_MODELS / name / "config.json", tmp_path / name / "config.json")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "config.json").write_text("{not json", encoding="utf-8")
    found = direction_records(tmp_path)
    assert {d: sorted(by_scorer) for d, by_scorer in found.items()} == {"zh-en": ["additive"], "en-zh": ["none"]}
    record = found["zh-en"]["additive"]
    assert record.scorer == record.model["scorer"] == "additive" and record.folder == tmp_path / "zh-en-additive"
    assert record.test_bleu is not None and record.training["finished"]["reason"]
    assert direction_records(tmp_path / "missing") == {}
