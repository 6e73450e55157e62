"""GNMT's coverage penalty and the n-gram repetition constraint, on a scripted decoder whose best
hypothesis is known by hand: each option must change the chosen hypothesis, the one-sentence and
the batched beam must agree, and with both off the searches choose as before."""

import math

import numpy as np
import pytest
import torch

from engine.decoding.beam_batch import beam_batch
from engine.decoding.beam_search import beam
from engine.decoding.coverage import COVERAGE_FLOOR, add_row, coverage_penalty
from engine.decoding.ngram_block import banned_tokens, block_repeats
from engine.decoding.search import greedy, greedy_batch
from engine.settings.config import DecodeConfig
from engine.settings.errors import ConfigError
from engine.text.tokenizer import EOS_ID
from tests.engine.scripted_decoder import Script, names, run, scripted

A, B, C = 4, 5, 6

# Two ways to end: A EOS (likelier, but its attention never leaves source token 0) and B C EOS
# (less likely, covering both source tokens: rows (1, 0), (0.4, 0.6), (0.8, 0.2) → coverage (2.2, 0.8)).
COVERAGE = Script(
    next={(): {A: 0.55, B: 0.4}, (A,): {EOS_ID: 0.9}, (B,): {C: 0.9}, (B, C): {EOS_ID: 0.9}},
    attention={(): (1.0, 0.0), (A,): (1.0, 0.0), (B,): (0.4, 0.6), (B, C): (0.8, 0.2)},
    default_attention=(1.0, 0.0),
)
SHORT, COVERING = (A, EOS_ID), (B, C, EOS_ID)

# A B, then A again (likelier) or C; after A B A the likeliest is B again: A B A B EOS repeats the bigram A B.
LOOP = Script(next={(): {A: 0.9}, (A,): {B: 0.9}, (A, B): {A: 0.6, C: 0.35}, (A, B, A): {B: 0.9, EOS_ID: 0.05},
                    (A, B, A, B): {EOS_ID: 0.9}, (A, B, C): {EOS_ID: 0.9}})


def _log_p(script: Script, ids: tuple[int, ...]) -> float:
    return sum(script.log_probabilities(ids[:i])[token] for i, token in enumerate(ids))


def _beam(model, source_length=2, size=2, alpha=0.0, beta=0.0, n=0, max_length=10):
    return run(beam(model, model.encode_one(source_length), max_length, names, size, alpha,
                    coverage_penalty=beta, no_repeat_ngram=n))


def _batched(model, source_lengths, size=2, alpha=0.0, beta=0.0, n=0, max_length=10):
    lengths = torch.tensor(source_lengths)
    source = torch.ones(len(source_lengths), max(source_lengths), dtype=torch.long)
    return beam_batch(model, source, lengths, [max_length] * len(source_lengths), size, alpha, beta, n)


def test_the_coverage_penalty_is_gnmts_with_a_floor():
    assert coverage_penalty(np.array([2.2, 0.8]), 0.2) == pytest.approx(0.2 * math.log(0.8))
    assert coverage_penalty(np.array([1.0, 0.0]), 1.0) == pytest.approx(math.log(COVERAGE_FLOOR))
    assert coverage_penalty(np.array([0.5, 0.25]), 0.0) == 0.0
    assert coverage_penalty(None, 0.4) == 0.0  # no attention (the fixed context C)
    assert add_row(add_row(None, np.array([0.5, 0.5], dtype=np.float32)), np.array([1.0, 0.0])).tolist() == [1.5, 0.5]


def test_the_banned_tokens_are_those_that_would_close_a_repeated_ngram():
    assert banned_tokens([7, 8, 9, 7, 8], 3) == {9}
    assert banned_tokens([7, 8, 7, 9, 7], 2) == {8, 9}
    assert banned_tokens([7, 8, 7], 1) == {7, 8}
    assert banned_tokens([7, 8], 3) == set()  # no trigram yet
    assert banned_tokens([7, 8, 7, 8], 0) == set()  # off
    logp = torch.zeros(2, 10)
    blocked = block_repeats(logp, [[7, 8, 7], [1, 2, 3]], 2)
    assert blocked[0].isinf().nonzero().flatten().tolist() == [8] and not blocked[1].isinf().any()
    assert block_repeats(logp, [[1, 2], [3]], 2) is logp  # nothing banned: not copied


def test_the_coverage_penalty_changes_the_chosen_hypothesis(monkeypatch):
    model = scripted(monkeypatch, COVERAGE)
    _, plain = _beam(model)
    assert plain.token_ids == SHORT
    assert plain.normalized_score == pytest.approx(_log_p(COVERAGE, SHORT))
    _, weak = _beam(model, beta=0.02)  # cp(A EOS) = 0.02·log 1e-6 = -0.28: not enough to lose
    assert weak.token_ids == SHORT
    _, covered = _beam(model, beta=0.2)
    assert covered.token_ids == COVERING
    assert covered.normalized_score == pytest.approx(_log_p(COVERAGE, COVERING) + 0.2 * math.log(0.8))
    _, with_alpha = _beam(model, alpha=1.0, beta=0.2)  # log p / lp + cp
    lp = ((5 + 3) / 6) ** 1.0
    assert with_alpha.normalized_score == pytest.approx(_log_p(COVERAGE, COVERING) / lp + 0.2 * math.log(0.8))


def test_the_beam_tree_shows_the_score_the_search_ranks_by(monkeypatch):
    model = scripted(monkeypatch, COVERAGE)
    steps, _ = _beam(model, beta=0.2)
    node = next(n for step in steps for n in step.beam_level if n.ids == SHORT)
    assert node.status == "finished"
    assert node.score == pytest.approx(_log_p(COVERAGE, SHORT) + 0.2 * math.log(COVERAGE_FLOOR))


def test_the_coverage_penalty_ranks_the_beam_too(monkeypatch):
    """At the second step B C (log p −1.02, coverage (1.4, 0.6)) goes before A EOS (−0.70, coverage (2, 0))."""
    model = scripted(monkeypatch, COVERAGE)
    assert [n.ids for n in _beam(model)[0][1].beam_level[:2]] == [SHORT, (B, C)]
    assert [n.ids for n in _beam(model, beta=0.2)[0][1].beam_level[:2]] == [(B, C), SHORT]
    assert [n.ids for n in _beam(model, beta=0.02)[0][1].beam_level[:2]] == [SHORT, (B, C)]


def test_the_coverage_penalty_is_ignored_without_attention(monkeypatch):
    model = scripted(monkeypatch, Script(COVERAGE.next, COVERAGE.attention, uses_attention=False))
    assert _beam(model, beta=0.2)[1].token_ids == SHORT
    assert [a.token_ids for a in _batched(model, [2], beta=0.2)] == [SHORT]


def test_the_batched_beam_chooses_as_the_one_sentence_beam_with_the_coverage_penalty(monkeypatch):
    model = scripted(monkeypatch, COVERAGE)
    for beta, expected in ((0.0, SHORT), (0.2, COVERING)):
        # The second sentence is padded to 3 positions in the batch: its coverage is over its own 2.
        answers = _batched(model, [3, 2], beta=beta)
        assert _beam(model, source_length=3, beta=beta)[1].token_ids == answers[0].token_ids
        assert [a.token_ids for a in answers[1:]] == [expected]


def test_the_ngram_constraint_changes_the_chosen_hypothesis_of_greedy_and_beam(monkeypatch):
    model = scripted(monkeypatch, LOOP)
    encoded = model.encode_one(2)
    assert run(greedy(model, encoded, 10, names))[1].token_ids == (A, B, A, B, EOS_ID)
    assert run(greedy(model, encoded, 10, names, no_repeat_ngram=2))[1].token_ids == (A, B, A, EOS_ID)
    assert _beam(model)[1].token_ids == (A, B, A, B, EOS_ID)
    assert _beam(model, n=2)[1].token_ids == (A, B, C, EOS_ID)
    assert _beam(model, n=3)[1].token_ids == (A, B, A, B, EOS_ID)  # no trigram repeats there


def test_the_ngram_constraint_in_the_batched_searches(monkeypatch):
    model = scripted(monkeypatch, LOOP)
    assert [a.token_ids for a in _batched(model, [2, 3], n=2)] == [(A, B, C, EOS_ID)] * 2
    assert [a.token_ids for a in _batched(model, [2], n=0)] == [(A, B, A, B, EOS_ID)]
    source, lengths = torch.ones(2, 3, dtype=torch.long), torch.tensor([3, 2])
    assert greedy_batch(model, source, lengths, 10)[0] == [[A, B, A, B]] * 2  # EOS excluded
    assert greedy_batch(model, source, lengths, 10, no_repeat_ngram=2)[0] == [[A, B, A]] * 2


def test_a_banned_token_is_no_alternative_and_a_forced_one_is_never_banned(monkeypatch):
    from engine.decoding.search import Steering

    model = scripted(monkeypatch, LOOP)
    steps, _ = run(greedy(model, model.encode_one(2), 10, names, no_repeat_ngram=2))
    assert B not in [a.token_id for a in steps[3].alternatives]  # after A B A
    steered = Steering(prefix=(A, B, A, B))  # the user's prefix repeats A B: given, then the search goes on
    _, beamed = run(beam(model, model.encode_one(2), 10, names, 2, 0.0, steering=steered, no_repeat_ngram=2))
    assert beamed.token_ids == (A, B, A, B, EOS_ID)


def test_both_off_the_searches_choose_as_before(monkeypatch):
    """The defaults decide exactly as the plain search: A EOS by log p, every node's score log p / lp."""
    model = scripted(monkeypatch, COVERAGE)
    steps, plain = _beam(model, alpha=1.0)
    assert plain.token_ids == SHORT
    assert plain.log_probability == pytest.approx(_log_p(COVERAGE, SHORT))
    assert plain.normalized_score == plain.log_probability / ((5 + 2) / 6)  # exactly: no penalty term at all
    for step in steps:
        for node in step.beam_level:
            assert node.score == node.log_probability / ((5 + len(node.ids)) / 6)


def test_the_options_are_range_checked_with_their_range_named():
    assert DecodeConfig().coverage_penalty == 0.0 and DecodeConfig().no_repeat_ngram == 0
    with pytest.raises(ConfigError, match=r"coverage_penalty must be between 0.0 and 5.0"):
        DecodeConfig(coverage_penalty=-0.1)
    with pytest.raises(ConfigError, match=r"no_repeat_ngram must be between 0 and 20"):
        DecodeConfig(no_repeat_ngram=21)
    with pytest.raises(ConfigError, match=r"no_repeat_ngram must be a whole number between 0 and 20"):
        DecodeConfig(no_repeat_ngram=2.5)


@pytest.mark.slow  # a trained model, or the real window
@pytest.mark.parametrize("scorer", ["additive", "none"])
@pytest.mark.parametrize("beta, n", [(0.4, 0), (0.2, 1), (0.0, 2)])
def test_on_a_trained_model_the_batched_beam_gives_the_one_by_one_outputs_with_the_options(
        dates_models, scorer, beta, n):
    from engine.corpus.tasks import dates
    from engine.models.bundle import load_model_folder

    translator = load_model_folder(dates_models[scorer]).translator
    sentences = [p.source for p in dates.dates_split(seed=5, train_size=40, valid_size=1, test_size=1).train]
    config = DecodeConfig(beam_size=4, length_penalty=1.0, coverage_penalty=beta, no_repeat_ngram=n)
    batched = translator.translate_many(sentences, config, batch_size=16)
    for sentence, result in zip(sentences, batched, strict=True):
        single = translator.translate(sentence, config)
        assert result.tokens == single.tokens, sentence
        assert result.score == pytest.approx(single.score, abs=1e-4)
        if n:
            assert not _repeats_an_ngram(single.tokens, n), single.tokens
    greedy_one = [translator.translate(s, DecodeConfig(no_repeat_ngram=n)).tokens for s in sentences]
    assert [t.tokens for t in translator.translate_many(sentences, DecodeConfig(no_repeat_ngram=n))] == greedy_one
    if n:
        assert not any(_repeats_an_ngram(tokens, n) for tokens in greedy_one)


def _repeats_an_ngram(tokens, n: int) -> bool:
    grams = [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]
    return len(set(grams)) < len(grams)
