"""The rebuild script's plan: which models it trains, where, and under which data protocol."""

import importlib.util
from pathlib import Path

import pytest

from engine.attention import SCORERS
from engine.config import SCORER_NAMES

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("build_shipped_models", ROOT / "scripts" / "build_shipped_models.py")
build = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build)


def test_every_scorer_is_shipped_and_every_attention_scorer_is_also_trained_under_the_peer_protocol(tmp_path):
    plan = {name: job for name, job, alone in build.planned_jobs(tmp_path / "models", tmp_path / "peer",
                                                                  tmp_path / "whole") if not alone}
    shipped = {name for name in plan if not name.startswith(build.PEER_PREFIX)}
    assert shipped == {f"zh-en-{scorer}" for scorer in SCORER_NAMES} | {"en-zh-additive"}
    attention_scorers = {name for name in SCORER_NAMES if SCORERS[name].uses_attention}
    assert attention_scorers and "none" not in attention_scorers
    peer = {name for name in plan if name.startswith(build.PEER_PREFIX)}
    assert peer == {f"{build.PEER_PREFIX}zh-en-{scorer}" for scorer in attention_scorers}
    for name, (source, target, scorer, folder, extra) in plan.items():
        is_peer = name in peer
        assert folder == (tmp_path / "peer" if is_peer else tmp_path / "models") / f"{source}-{target}-{scorer}"
        assert extra == (("--split-rule", "peer") if is_peer else ())


def test_the_whole_machine_run_is_the_default_scorer_under_the_peer_protocol_with_a_larger_model(tmp_path):
    plan = build.planned_jobs(tmp_path / "models", tmp_path / "peer", tmp_path / "whole")
    alone = [(name, job) for name, job, runs_alone in plan if runs_alone]
    assert alone == [("whole-machine-zh-en-additive", ("zh", "en", "additive", tmp_path / "whole" / "zh-en-additive",
                                                       build.WHOLE_MACHINE_RECIPE))]
    recipe = " ".join(build.WHOLE_MACHINE_RECIPE)
    assert "--split-rule peer" in recipe and "--embedding-size 256" in recipe
    assert plan[-1][0] == "whole-machine-zh-en-additive"  # last: it must not share the cores


def test_only_keeps_the_named_models_in_build_order_and_names_the_valid_ones_on_a_typo(tmp_path):
    picked = build.planned_jobs(tmp_path, tmp_path, tmp_path, ["peer-zh-en-dot", "zh-en-none"])
    assert [name for name, _, _ in picked] == ["zh-en-none", "peer-zh-en-dot"]
    with pytest.raises(SystemExit, match="unknown model name.*zh-en-dots.*valid names: zh-en-additive"):
        build.planned_jobs(tmp_path, tmp_path, tmp_path, ["zh-en-dots"])
