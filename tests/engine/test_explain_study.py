"""The attribution study's stored figures (engine.studies.attribution_scores), their reading in words
(engine.studies.attribution_lesson) and the permutation counterfactual (engine.studies.attribution_study)."""

import json

import numpy as np
import pytest
import torch

from engine.settings.errors import StoredFileError
from engine.studies.attribution_lesson import AttributionFigures, attribution_reading, dependence, strength
from engine.studies.attribution_scores import AttributionStudy, spearman, stored_attribution_study
from engine.studies.attribution_study import _repeated, sample_pairs


def study(**changes) -> AttributionStudy:
    values = dict(sentences=2, test_pairs=100, seed=0, ig_steps=32, draws=5, agree=(1.0, 0.0, 1.0),
                  rho=(0.5, None, -0.25), changed=(0.2, 0.0, 0.4), tvd=(0.1, 0.05, 0.3), share=(0.9, 0.5, 0.7),
                  pieces=(4, 4, 2), seconds=3.0)
    values.update(changes)
    return AttributionStudy(**values)


def test_spearman_ranks_ties_by_their_mean_and_is_undefined_for_constant_rows():
    assert spearman([1, 2, 3], [10, 20, 30]) == pytest.approx(1.0)
    assert spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert spearman([1, 2, 2, 4], [1, 3, 3, 4]) == pytest.approx(1.0)
    assert spearman([0.1, 0.4, 0.2, 0.3], [1.0, 2.0, 4.0, 3.0]) == pytest.approx(0.2)  # 1 - 6·8 / (4·15)
    assert spearman([0.5], [1.0]) is None and spearman([1, 1, 1], [1, 2, 3]) is None


def test_the_stored_study_round_trips_and_its_summary_is_the_mean_of_its_steps():
    stored = json.loads(json.dumps(study().to_json()))
    assert stored["summary"]["agree"] == pytest.approx(2 / 3, abs=1e-4)
    assert stored["summary"]["rho"] == pytest.approx(0.125)  # the step without ρ left out
    read = stored_attribution_study({"metrics": {"attribution": stored}})
    assert read.steps == 3 and read.figure("changed") == pytest.approx(0.2)
    assert read.chance_agreement == pytest.approx((0.25 + 0.25 + 0.5) / 3)
    assert stored_attribution_study({"metrics": {}}) is None


def test_the_fixed_context_study_has_only_the_source_share():
    stored = study(agree=None, rho=None, changed=None, tvd=None).to_json()
    read = AttributionStudy.from_json(json.loads(json.dumps(stored)))
    assert read.figure("agree") is None and read.figure("share") == pytest.approx(0.7)


@pytest.mark.parametrize("damage, reason", [
    (lambda d: d["summary"].update(agree=0.9), "agree summary"),
    (lambda d: d["steps"]["tvd"].pop(), "differ in length"),
    (lambda d: d["steps"]["share"].__setitem__(0, 7.0), "steps/share/0"),
    (lambda d: d["steps"]["agree"].__setitem__(0, None), "only rho"),
    (lambda d: d.update(sentences=0), "sentences"),
    (lambda d: d.update(extra=1), "unexpected key"),
    (lambda d: d.update(version=2), "version"),
])
def test_a_damaged_or_edited_study_is_refused_with_the_reason(damage, reason):
    stored = json.loads(json.dumps(study().to_json()))
    damage(stored)
    with pytest.raises(StoredFileError, match=reason):
        AttributionStudy.from_json(stored)


def figures(scorer, agree, rho, changed, share=0.6, chance=0.2):
    return AttributionFigures(scorer, scorer, agree, chance, rho, changed, None if changed is None else changed / 2,
                              share)


def test_the_reading_follows_the_figures():
    reading = attribution_reading([figures("dot", 0.6, 0.55, 0.35), figures("additive", 0.25, 0.1, 0.05),
                                   figures("none", None, None, None, share=0.3)])
    assert "dot's most-attended piece is most often" in reading and "60%" in reading and "above chance" in reading
    assert "additive's most-attended piece is least often" in reading and "near chance" in reading
    assert "strong degree for dot" in reading and "weak one for additive" in reading
    assert "dot's token at 35%" in reading and "depends on where α falls" in reading
    assert "barely depends" in reading
    assert "none draws 30%" in reading and "less than the attention models' 60%" in reading
    flipped = attribution_reading([figures("dot", 0.2, 0.1, 0.02), figures("additive", 0.7, 0.6, 0.5)])
    assert "additive's most-attended piece is most often" in flipped and "dot's token" not in flipped.split(";")[0]
    assert attribution_reading([]) == ""


def test_the_words_for_sizes():
    assert strength(0.1) == "weak" and strength(-0.3) == "moderate" and strength(0.7) == "strong"
    assert dependence(0.05).startswith("barely") and dependence(0.2).endswith("some steps")
    assert dependence(0.5) == "depends on where α falls"


def test_the_sample_is_deterministic_bounded_and_in_test_order():
    pairs = list(range(100))
    first, again = sample_pairs(pairs, 10, seed=3), sample_pairs(pairs, 10, seed=3)
    assert first == again and len(first) == 10 and first == sorted(first)
    assert sample_pairs(pairs, 10, seed=4) != first
    assert sample_pairs(pairs[:5], 10) == pairs[:5]


def test_an_encoding_repeated_keeps_every_row_equal():
    from engine.networks.model import build_model
    from engine.settings.config import ModelConfig

    model = build_model(ModelConfig(scorer="multihead", src_vocab_size=20, tgt_vocab_size=20, embedding_size=8,
                                    encoder_hidden_size=8, decoder_hidden_size=8, attention_size=8), seed=0).eval()
    with torch.no_grad():
        encoded = model.encode(torch.tensor([[5, 6, 7]]), torch.tensor([3]))
        wide = _repeated(encoded, 4)
    assert wide.memory.shape[0] == 4 and wide.keys.shape[0] == 4 and len(wide.initial_state) == 1
    assert np.array_equal(wide.keys[3].numpy(), encoded.keys[0].numpy())
