"""The attribution study run end to end on a shipped model: stored, read back, its figures its steps' means."""

import numpy as np
import pytest

from engine.corpus.corpus_read import Pair
from engine.files.paths import model_argument
from engine.models.bundle import load_model_folder
from engine.models.config_file import read_config
from engine.studies.attribution_scores import stored_attribution_study
from engine.studies.attribution_study import permuted_attention, record_attribution_study, run_attribution_study

pytestmark = pytest.mark.slow  # loads shipped models and attributes real sentences


@pytest.fixture(scope="module")
def shipped():
    return {name: load_model_folder(model_argument(name)).translator for name in ("zh-en-dot", "zh-en-none")}


def test_a_study_of_two_sentences_is_stored_and_read_back_with_every_step_measured(shipped, tmp_path):
    import shutil

    folder = tmp_path / "model"
    shutil.copytree(model_argument("zh-en-dot"), folder)
    pairs = [Pair("我喜欢看书。", "I like reading books.", "I like reading books."), Pair("他明天来。", "He is coming tomorrow.", "He is coming tomorrow.")]
    study = run_attribution_study(shipped["zh-en-dot"], pairs, count=2, draws=3)
    steps = sum(len(shipped["zh-en-dot"].translate(p.source).tokens) for p in pairs)
    assert study.sentences == 2 and study.steps == steps
    assert all(len(getattr(study, m)) == steps for m in ("agree", "rho", "changed", "tvd", "share", "pieces"))
    record_attribution_study(folder, study)
    read = stored_attribution_study(read_config(folder))
    for measure in ("agree", "changed", "tvd", "share"):
        assert read.figure(measure) == pytest.approx(study.figure(measure), abs=1e-4)
    assert 0.0 <= read.figure("changed") <= 1.0 and 0.0 <= read.figure("tvd") <= 1.0


def test_the_fixed_context_study_measures_the_source_share_only(shipped):
    study = run_attribution_study(shipped["zh-en-none"], [Pair("我喜欢看书。", "I like reading books.", "I like reading books.")], count=1)
    assert study.agree is None and study.changed is None and len(study.share) == study.steps > 0


def test_the_identity_permutation_changes_nothing_and_a_real_one_moves_the_output(shipped):
    class Identity:
        def permutation(self, n):
            return np.arange(n)

    translator = shipped["zh-en-dot"]
    translation = translator.translate("我每天早上都在公园里跑步。")
    changed, distances = permuted_attention(translator, translation, 3, Identity())
    assert changed == [0.0] * len(translation.tokens)
    assert np.allclose(distances, 0.0, atol=1e-6)
    changed, distances = permuted_attention(translator, translation, 3, np.random.default_rng(0))
    assert len(changed) == len(translation.tokens) and max(distances) > 0.01
