"""The rebuild script's plan: which models it trains, where, and under which data protocol."""


import pytest

from engine.config import SCORER_NAMES
from tests.scripts import load_script

build = load_script("build_shipped_models")


def test_every_scorer_is_shipped_in_both_directions_under_the_peer_protocol_on_every_core(tmp_path):
    plan = dict(build.planned_jobs(tmp_path, threads=2))
    assert set(plan) == {f"{direction}-{scorer}" for scorer in SCORER_NAMES for direction in ("zh-en", "en-zh")}
    assert list(plan)[:2] == ["zh-en-additive", "zh-en-none"]  # the key comparison first
    for name, (source, target, scorer, folder, extra, threads) in plan.items():
        assert folder == tmp_path / name and f"{source}-{target}-{scorer}" == name
        assert (extra, threads) == (build.ZH_EN_RECIPE if source == "zh" else build.EN_ZH_RECIPE, 2)
        assert "--split-rule peer" in " ".join(extra)
    assert "--embedding-size 256" in " ".join(build.ZH_EN_RECIPE)
    assert "--concat-max" in build.RECIPE and "--concat-share" in build.RECIPE  # every model learns long inputs


def test_only_keeps_the_named_models_in_build_order_and_names_the_valid_ones_on_a_typo(tmp_path):
    picked = build.planned_jobs(tmp_path, 2, ["en-zh-additive", "zh-en-none"])
    assert [name for name, _ in picked] == ["zh-en-none", "en-zh-additive"]
    with pytest.raises(SystemExit, match="unknown model name.*zh-en-dots.*valid names: zh-en-additive"):
        build.planned_jobs(tmp_path, 2, ["zh-en-dots"])
