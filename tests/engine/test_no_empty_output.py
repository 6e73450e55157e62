"""No search ends a hypothesis before its first token, on a scripted decoder whose likeliest first
token is ``</s>``: unconstrained, greedy search and beam search at α 0 would both return an empty
output (the one step of ``</s>`` outscores the four of the translation)."""

import math

import pytest
import torch

from engine.decoding.beam_batch import beam_batch
from engine.decoding.beam_search import beam
from engine.decoding.no_empty_output import forbid_empty_end, forbid_first_end
from engine.decoding.search import Steering, greedy, greedy_batch
from engine.text.tokenizer import EOS_ID
from tests.engine.scripted_decoder import Script, names, run, scripted

A, B, C = 4, 5, 6

# </s> first (p 0.5) against A B C </s> (0.45 · 0.8³ ≈ 0.23): raw log-probability prefers the empty output.
EMPTY_FIRST = Script(next={(): {EOS_ID: 0.5, A: 0.45}, (A,): {B: 0.8}, (A, B): {C: 0.8}, (A, B, C): {EOS_ID: 0.8}})
TRANSLATION = (A, B, C, EOS_ID)


def test_the_script_would_end_empty_without_the_constraint():
    """The fixture is what it says: ``</s>`` first is the likeliest step and the likeliest whole output."""
    first = EMPTY_FIRST.log_probabilities(())
    assert max(range(len(first)), key=first.__getitem__) == EOS_ID
    whole = sum(EMPTY_FIRST.log_probabilities(TRANSLATION[:i])[t] for i, t in enumerate(TRANSLATION))
    assert first[EOS_ID] > whole


@pytest.mark.parametrize("beam_size", [1, 2, 5, 6])
@pytest.mark.parametrize("alpha", [0.0, 1.0])
def test_every_search_gives_the_translation_not_an_empty_output(monkeypatch, beam_size, alpha):
    model = scripted(monkeypatch, EMPTY_FIRST)
    encoded = model.encode_one(3)
    assert run(greedy(model, encoded, 10, names))[1].token_ids == TRANSLATION
    _, one = run(beam(model, encoded, 10, names, beam_size, alpha))
    assert one.token_ids == TRANSLATION
    source, lengths = torch.ones(2, 3, dtype=torch.long), torch.tensor([3, 2])
    batched = beam_batch(model, source, lengths, [10, 10], beam_size, alpha)
    assert [b.token_ids for b in batched] == [TRANSLATION] * 2
    assert batched[0].log_probability == pytest.approx(one.log_probability)
    assert greedy_batch(model, source, lengths, 10)[0] == [list(TRANSLATION[:-1])] * 2  # EOS excluded


def test_the_first_step_offers_no_end_and_the_beam_tree_no_empty_hypothesis(monkeypatch):
    model = scripted(monkeypatch, EMPTY_FIRST)
    steps, _ = run(greedy(model, model.encode_one(3), 10, names))
    assert EOS_ID not in [a.token_id for a in steps[0].alternatives]
    beam_steps, _ = run(beam(model, model.encode_one(3), 10, names, 5, 0.0))
    first_level = beam_steps[0].beam_level
    assert first_level and all(node.ids != (EOS_ID,) for node in first_level)
    assert all(math.isfinite(node.log_probability) for step in beam_steps for node in step.beam_level)


def test_a_forced_end_is_given_as_the_user_asked(monkeypatch):
    """What-if decoding: a user who forces ``</s>`` as the first token gets exactly that."""
    model = scripted(monkeypatch, EMPTY_FIRST)
    for size in (1, 3):
        forced = Steering(prefix=(EOS_ID,))
        assert run(beam(model, model.encode_one(3), 10, names, size, 0.0, steering=forced))[1].token_ids == (EOS_ID,)


def test_only_the_rows_of_empty_hypotheses_are_constrained():
    logp = torch.log_softmax(torch.randn(3, 8), dim=-1)
    assert forbid_empty_end(logp, [2, 1, 4]) is logp  # nothing empty: untouched, not copied
    constrained = forbid_empty_end(logp, [0, 3, 0])
    assert constrained[0, EOS_ID] == -math.inf and constrained[2, EOS_ID] == -math.inf
    assert torch.equal(constrained[1], logp[1])
    others = [t for t in range(8) if t != EOS_ID]
    assert torch.equal(constrained[:, others], logp[:, others])  # not renormalized
    assert logp[0, EOS_ID] > -math.inf  # the input is left as it was
    assert torch.equal(forbid_first_end(logp), forbid_empty_end(logp, [0, 0, 0]))
