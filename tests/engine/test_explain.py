"""Attribution beside attention (engine.explain): IG's completeness, occlusion against teacher forcing,
a model whose output depends on one source piece, contrastive attribution, bad method names.

Tiny untrained models of every family and mechanism (milliseconds each); the values an attribution must
have follow from its definition, not from a trained model."""

import numpy as np
import pytest
import torch

from engine.decoding.teacher_forcing import teacher_force
from engine.explain import ATTRIBUTION_METHODS, METHOD_LABELS, StepAttribution, check_method, explain_ids
from engine.explain.attribution import chunk_size
from engine.explain.forced_rows import NO_CONTRAST, ForcedRows
from engine.explain.occlusion import NEUTRAL_ID
from engine.networks.model import build_model
from engine.settings.config import ModelConfig
from engine.settings.errors import ConfigError

MECHANISMS = ["additive", "dot", "none", "multihead", "transformer"]
SOURCE = [5, 9, 14, 7, 22, 11]
TARGET = [6, 12, 8, 17, 3]  # ends with EOS (3)


def tiny_model(scorer: str, seed: int = 0):
    config = ModelConfig(scorer=scorer, src_vocab_size=30, tgt_vocab_size=24, embedding_size=16,
                         encoder_hidden_size=16, decoder_hidden_size=16, attention_size=16, dropout=0.0,
                         transformer_layers=1, feedforward_size=24)
    return build_model(config, seed=seed).eval()


def test_the_method_names_and_labels_agree_and_a_bad_name_lists_the_valid_ones():
    assert ATTRIBUTION_METHODS == ("ig", "grad", "occlusion")
    assert set(METHOD_LABELS) == set(ATTRIBUTION_METHODS)
    assert check_method("ig") == "ig"
    with pytest.raises(ConfigError, match="ig, grad, occlusion"):
        explain_ids(tiny_model("additive"), SOURCE, TARGET, "saliency")


@pytest.mark.parametrize("scorer", MECHANISMS)
def test_integrated_gradients_are_complete(scorer):
    """Σ source + Σ prefix = score(x) - score(baseline) per step, the baseline every varied embedding zero."""
    model = tiny_model(scorer)
    attributions = list(explain_ids(model, SOURCE, TARGET, "ig", ig_steps=32))
    rows = ForcedRows(model, SOURCE, TARGET)
    steps = torch.arange(len(TARGET))
    contrasts = torch.full_like(steps, NO_CONTRAST)
    with torch.no_grad():
        full = rows.score(rows.source_embedded.expand(len(TARGET), -1, -1),
                          rows.prefix_embedded.expand(len(TARGET), -1, -1), steps, contrasts)
        empty = rows.score(torch.zeros_like(rows.source_embedded).expand(len(TARGET), -1, -1),
                           torch.zeros_like(rows.prefix_embedded).expand(len(TARGET), -1, -1), steps, contrasts)
    assert [a.index for a in attributions] == list(range(len(TARGET)))
    for attribution, expected in zip(attributions, (full - empty).double().tolist(), strict=True):
        total = attribution.source.sum() + attribution.prefix.sum()
        assert total == pytest.approx(expected, abs=2e-3 + 1e-2 * abs(expected))
        assert abs(attribution.delta) < 2e-3 + 1e-2 * abs(expected)
        assert attribution.source.shape == (len(SOURCE),) and attribution.prefix.shape == (attribution.index,)


@pytest.mark.parametrize("scorer", MECHANISMS)
def test_the_step_score_is_the_log_probability_teacher_forcing_gives(scorer):
    model = tiny_model(scorer)
    forced = teacher_force(model, model.encode(torch.tensor([SOURCE]), torch.tensor([len(SOURCE)])), TARGET)
    expected = forced.token_log_probs().numpy()
    for method in ATTRIBUTION_METHODS:
        got = [a.target_log_prob for a in explain_ids(model, SOURCE, TARGET, method)]
        assert np.allclose(got, expected, atol=1e-5)


@pytest.mark.parametrize("scorer", ["additive", "none", "transformer"])
def test_occlusion_is_the_drop_teacher_forcing_gives_when_a_piece_becomes_unk(scorer):
    model = tiny_model(scorer)
    attributions = list(explain_ids(model, SOURCE, TARGET, "occlusion"))

    def log_probs(source, target_in):
        encoded = model.encode(torch.tensor([source]), torch.tensor([len(source)]))
        forced = teacher_force(model, encoded, target_in[1:] + [TARGET[-1]])  # feeds BOS, then target_in[1:]
        return forced.log_probs.gather(1, torch.tensor(TARGET).unsqueeze(1)).squeeze(1).numpy()

    fed = [2] + TARGET[:-1]
    base = log_probs(SOURCE, fed)
    for j in range(len(SOURCE)):
        occluded = list(SOURCE)
        occluded[j] = NEUTRAL_ID
        drop = base - log_probs(occluded, fed)
        assert np.allclose([a.source[j] for a in attributions], drop, atol=1e-5)
    for j in range(len(TARGET) - 1):  # y_j occluded in the decoder's input (position j + 1)
        occluded = list(fed)
        occluded[j + 1] = NEUTRAL_ID
        drop = base - log_probs(SOURCE, occluded)
        for a in attributions[j + 1:]:
            assert a.prefix[j] == pytest.approx(drop[a.index], abs=1e-5)


@pytest.mark.parametrize("scorer", MECHANISMS)
def test_a_model_whose_output_depends_on_one_source_piece_gets_it_as_top_attribution_by_every_method(scorer):
    """Every source embedding but one piece's (and <unk>'s, occlusion's neutral token) is zero: the output
    reads the source only through that piece, whatever the others are."""
    model = tiny_model(scorer)
    key = 14  # at position 2 of SOURCE
    with torch.no_grad():
        weight = model.encoder.embedding.weight
        kept = weight[key].clone() * 3.0
        weight.zero_()
        weight[key] = kept
    for method in ATTRIBUTION_METHODS:
        for attribution in explain_ids(model, SOURCE, TARGET, method):
            assert int(np.argmax(np.abs(attribution.source))) == 2, (method, attribution.source)
            others = np.delete(attribution.source, 2)
            assert np.allclose(others, 0.0, atol=1e-6)


@pytest.mark.parametrize("method", ATTRIBUTION_METHODS)
def test_a_contrastive_attribution_is_the_difference_of_the_two_pieces_attributions(method):
    """log p(y_i) - log p(y') is linear in the two scores: attributing it equals attributing log p(y_i) minus
    attributing log p(y') (the output with y' at step i: its prefix is the same), so the sign says which
    piece pushed the model towards y_i rather than y'."""
    model = tiny_model("additive")
    step, other = 2, 19
    contrastive = list(explain_ids(model, SOURCE, TARGET, method, contrast_ids={step: other}))[step]
    plain = list(explain_ids(model, SOURCE, TARGET, method))[step]
    swapped_target = list(TARGET)
    swapped_target[step] = other
    rival = list(explain_ids(model, SOURCE, swapped_target, method))[step]
    assert contrastive.contrast_token == str(other)  # no namer: the id itself
    assert np.allclose(contrastive.source, plain.source - rival.source, atol=1e-4)
    assert np.allclose(contrastive.prefix, plain.prefix - rival.prefix, atol=1e-4)
    assert contrastive.target_log_prob == pytest.approx(plain.target_log_prob)
    unchanged = list(explain_ids(model, SOURCE, TARGET, method, contrast_ids={step: other}))[step + 1]
    assert unchanged.contrast_token is None


def test_the_source_share_weighs_absolute_contributions():
    def share(source, prefix):
        return StepAttribution(1, "ig", np.array(source), np.array(prefix), -1.0).source_share

    assert share([1.0, -1.0], [2.0]) == pytest.approx(0.5)
    assert share([0.0], []) == 1.0
    assert share([0.0, 0.0], [0.5]) == 0.0


def test_chunks_stay_within_the_budget_and_closing_the_generator_stops_the_work():
    model = tiny_model("additive")
    source, target = list(range(4, 29)) * 4, [5 + (i % 18) for i in range(99)] + [3]  # 100 pieces each
    batches = []
    encode = model.encode
    model.encode = lambda ids, lengths: batches.append(ids.shape) or encode(ids, lengths)
    chunk = chunk_size("ig", len(source), len(target), 32, budget=16_384)
    generator = explain_ids(model, source, target, "ig", budget=16_384)
    first = next(generator)
    generator.close()
    assert first.index == 0 and chunk >= 1
    chunk_forwards = [shape for shape in batches if shape[0] > 2]  # besides: log p once, IG's delta (x, baseline)
    assert chunk_forwards == [(32 * chunk, len(source))]  # one chunk's forward, no more after closing
    assert 32 * chunk * (len(source) + len(target)) <= 16_384


@pytest.mark.parametrize("scorer", ["additive", "transformer"])
def test_another_thread_decoding_with_the_same_model_meanwhile_is_not_touched_by_the_hooks(scorer):
    import threading

    model = tiny_model(scorer)
    rows = ForcedRows(model, SOURCE, TARGET)
    source, lengths = torch.tensor([SOURCE]), torch.tensor([len(SOURCE)])
    target_in = torch.tensor([[2] + TARGET[:-1]])
    with torch.no_grad():
        expected = model(source, lengths, target_in)
        found = {}
        zeros = torch.zeros_like(rows.source_embedded).unsqueeze(0)
        fed = torch.zeros(1, len(TARGET), rows.prefix_embedded.size(1))
        with rows._hooked(zeros, fed, torch.tensor([1])):
            worker = threading.Thread(target=lambda: found.update(out=model(source, lengths, target_in)))
            worker.start()
            worker.join()
            hooked = model(source, lengths, target_in)
    assert torch.equal(found["out"], expected)  # the other thread: no hook applied
    assert hooked.shape[1] == 1 and not torch.allclose(hooked[0, 0], expected[0, 1])  # this thread: hooked
