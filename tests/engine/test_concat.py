"""Long examples from the corpus itself: joined training pairs and the long test set."""

import collections

import pytest

from engine.corpus.concat import join_pairs, join_text, joined_count, joined_training_pairs, long_test_set, member_keys
from engine.corpus.corpus_read import Pair
from engine.corpus.data import split_bucket, split_pairs
from engine.training.events import StepEvent
from engine.training.trainer import train
from tests.model_factory import tiny_job

pytestmark = pytest.mark.slow  # trains a model, opens the real window, runs a subprocess or fuzzes many cases


def _corpus(count: int = 600) -> list[Pair]:
    return [Pair(source=f"第{i}句。", target=f"Sentence {i}.", english=f"Sentence {i}.") for i in range(count)]


def test_chinese_is_joined_without_a_separator_and_english_with_a_space():
    assert join_text(["我爱你。", "你好。"], "zh") == "我爱你。你好。"
    assert join_text(["I love you.", "Hello."], "en") == "I love you. Hello."
    pairs = [Pair("我爱你。", "I love you.", "I love you."), Pair("你好。", "Hello.", "Hello.")]
    joined = join_pairs(pairs, "zh", "en")
    assert (joined.source, joined.target) == ("我爱你。你好。", "I love you. Hello.")
    assert member_keys(joined) == ("I love you.", "Hello.")
    assert join_pairs(pairs[:1], "zh", "en") is pairs[0]


@pytest.mark.parametrize("rule", ["strict", "peer"])
def test_only_training_pairs_are_ever_joined(rule):
    split = split_pairs(_corpus(), rule)
    assert split.valid and split.test
    joined = joined_training_pairs(split.train, split.valid + split.test, 8, 0.5, 7, "zh", "en")
    members = [key for pair in joined for key in member_keys(pair)]
    assert members and all(split_bucket(key) == "train" for key in members)  # never a valid or test pair
    held_out = {p.english for p in split.valid + split.test}
    assert held_out.isdisjoint(members)


def test_joined_examples_are_deterministic_sized_and_make_up_the_share():
    split = split_pairs(_corpus(), "strict")
    first = joined_training_pairs(split.train, split.valid + split.test, 5, 0.2, 11, "zh", "en")
    assert first == joined_training_pairs(split.train, split.valid + split.test, 5, 0.2, 11, "zh", "en")
    assert first != joined_training_pairs(split.train, split.valid + split.test, 5, 0.2, 12, "zh", "en")
    assert len(first) == joined_count(len(split.train), 0.2) == round(len(split.train) * 0.2 / 0.8)
    sizes = collections.Counter(len(member_keys(pair)) for pair in first)
    assert set(sizes) == {2, 3, 4, 5}
    assert joined_training_pairs(split.train, (), 1, 0.2, 11, "zh", "en") == []
    assert joined_training_pairs(split.train, (), 5, 0.0, 11, "zh", "en") == []


def test_the_long_test_set_uses_every_test_pair_once_in_groups_of_one_to_eight():
    test = split_pairs(_corpus(2000), "strict").test
    long_set = long_test_set(test, "zh", "en")
    members = [key for pair in long_set for key in member_keys(pair)]
    assert sorted(members) == sorted(p.english for p in test)  # each test pair exactly once, nothing else
    sizes = collections.Counter(len(member_keys(pair)) for pair in long_set)
    assert set(sizes) == set(range(1, 9))
    assert max(sizes.values()) - min(sizes.values()) <= 2  # every size about equally common
    assert long_set == long_test_set(test, "zh", "en")  # deterministic
    for pair in long_set:
        assert pair.source == "".join(p.source for p in test if p.english in member_keys(pair)) or len(
            member_keys(pair)) > 1


def test_training_with_long_examples_adds_joined_batches_each_epoch(tmp_path):
    def batches_per_epoch(folder, **options):
        events = train(tiny_job(folder, epochs=1, train_size=600, **options))
        return next(e.batches_per_epoch for e in events if isinstance(e, StepEvent))

    plain = batches_per_epoch(tmp_path / "plain")
    joined = batches_per_epoch(tmp_path / "joined", concat_max_group=4, concat_share=0.5)
    assert joined >= 2 * plain - 1  # as many joined examples as single ones


def test_a_length_curriculum_adds_the_joined_examples_only_after_its_start(tmp_path):
    events = list(train(tiny_job(tmp_path / "run", epochs=2, train_size=600, concat_max_group=4, concat_share=0.5,
                                 concat_start=0.5)))
    per_epoch = {e.epoch: e.batches_per_epoch for e in events if isinstance(e, StepEvent)}
    assert per_epoch[2] >= 2 * per_epoch[1] - 1  # single pairs only in the first half, then as many joined
