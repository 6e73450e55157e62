"""Attention against the aligner's links: AER, precision and recall on hand-made fixtures, the stored
study's round trip and refusals, and a tiny model's study end to end (engine/studies/alignment_study.py)."""

import copy
import shutil

import numpy as np
import pytest

from engine.corpus.tasks import dates
from engine.decoding.forced import force_decode
from engine.models.bundle import load_model_folder
from engine.models.config_file import read_config
from engine.studies.align_words import split_words
from engine.studies.alignment_scores import (
    AlignmentStudy,
    LinkScores,
    argmax_links,
    score_links,
    stored_alignment_study,
    threshold_links,
)
from engine.studies.alignment_store import AlignedPair, AlignmentFileError, CorpusAlignment, pair_key
from engine.studies.alignment_study import (
    AlignmentStudyError,
    read_alignment_study,
    record_alignment_study,
    run_alignment_study,
)
from engine.studies.forced_attention import forced_attention

# Three output words × four source words; rows sum to 1.
WORDS = np.array([[0.70, 0.10, 0.10, 0.10],
                  [0.05, 0.40, 0.40, 0.15],   # a tie: both source words 1 and 2 are linked
                  [0.00, 0.00, 0.35, 0.65]])
SURE = frozenset({(0, 0), (1, 1), (3, 2), (3, 1)})  # (source word, output word)


def test_argmax_links_keep_ties_and_skip_rows_without_attention():
    assert argmax_links(WORDS) == {(0, 0), (1, 1), (2, 1), (3, 2)}
    assert argmax_links(np.zeros((2, 3))) == frozenset()


def test_threshold_links():
    assert threshold_links(WORDS, 0.3) == {(0, 0), (1, 1), (2, 1), (2, 2), (3, 2)}
    assert threshold_links(WORDS, 0.5) == {(0, 0), (3, 2)}


def test_aer_precision_and_recall_on_the_fixture_exactly():
    argmax = score_links(argmax_links(WORDS), SURE)  # A = {0-0, 1-1, 2-1, 3-2}, A∩S = {0-0, 1-1, 3-2}
    assert (argmax.predicted, argmax.sure, argmax.matched) == (4, 4, 3)
    assert argmax.precision == 0.75 and argmax.recall == 0.75
    assert argmax.aer == pytest.approx(1 - 6 / 8)
    thresholded = score_links(threshold_links(WORDS, 0.3), SURE)  # 5 links, 3 of them sure
    assert (thresholded.predicted, thresholded.matched) == (5, 3)
    assert thresholded.aer == pytest.approx(1 - 6 / 9)
    assert thresholded.precision == pytest.approx(0.6) and thresholded.recall == 0.75


def test_corpus_scores_add_counts_not_rates():
    total = LinkScores(4, 4, 3) + LinkScores(1, 3, 0)
    assert (total.predicted, total.sure, total.matched) == (5, 7, 3)
    assert total.aer == pytest.approx(1 - 6 / 12)
    assert LinkScores(0, 0, 0).aer == 1.0 and LinkScores(0, 0, 0).precision == 0.0


STUDY = AlignmentStudy(120, 3, LinkScores(400, 380, 250), LinkScores(300, 380, 200), 0.3,
                       "eflomal 2.0.0, grow-diag-final-and, 10 pairs of x.tsv", "0123456789abcdef", 1.5)


def test_a_stored_study_reads_back_equal():
    assert AlignmentStudy.from_json(STUDY.to_json()) == STUDY
    assert stored_alignment_study({"metrics": {"alignment": STUDY.to_json()}}) == STUDY
    assert stored_alignment_study({"metrics": {}}) is None and stored_alignment_study({}) is None


@pytest.mark.parametrize("edit, reason", [
    (lambda d: d["argmax"].update(aer=float("nan")), "argmax.aer must be a finite number"),
    (lambda d: d["argmax"].update(aer=0.1), "argmax.aer is 0.1 but its counts give"),
    (lambda d: d["argmax"].update(matched=401), "401 matched links out of 400 and 380"),
    (lambda d: d["threshold"].update(predicted=-1), "threshold.predicted must be a whole number"),
    (lambda d: d["threshold"].update(alpha=float("inf")), "threshold.alpha must be a finite number"),
    (lambda d: d.update(sentences=0), "it scored no sentence"),
    (lambda d: d.update(sentences=True), "sentences must be a whole number"),
    (lambda d: d.update(word_rule_version=2), "word rule version 2"),
    (lambda d: d.pop("argmax"), "argmax must be an object"),
])
def test_a_damaged_study_is_refused_with_the_reason(edit, reason):
    data = copy.deepcopy(STUDY.to_json())
    edit(data)
    with pytest.raises(AlignmentFileError, match=reason):
        AlignmentStudy.from_json(data)
    with pytest.raises(AlignmentFileError, match="alignment study is refused"):
        stored_alignment_study({"metrics": {"alignment": data}})


def _identity_alignment(pairs) -> CorpusAlignment:
    """An 'aligner' that links the k-th source word to the k-th target word of every pair."""
    aligned = {}
    for pair in pairs:
        source, target = split_words(pair.source, "dates-src"), split_words(pair.target, "iso")
        links = frozenset((k, k) for k in range(min(len(source), len(target))))
        aligned[pair_key(pair.source, pair.target)] = AlignedPair.of(len(source), len(target), links, links)
    priors = {kind: [] for kind in ("lex", "hmm_forward", "hmm_reverse", "fertility_forward", "fertility_reverse")}
    return CorpusAlignment(("dates-src", "iso"), "diagonal", "grow-diag-final-and", "dates", "0" * 64, 0.0, aligned, priors)


@pytest.mark.slow  # a trained model, or the real window
def test_batched_forced_attention_equals_one_pair_at_a_time(dates_models):
    translator = load_model_folder(dates_models["additive"]).translator
    pairs = dates.dates_split(seed=1, train_size=10, valid_size=10, test_size=20).test[:9]
    sources = [list(translator.prepare(p.source).ids) for p in pairs]
    targets = [translator.target_tokenizer.encode(p.target) for p in pairs]
    for pair, matrix in zip(pairs, forced_attention(translator, sources, targets, batch_size=4), strict=True):
        alone = force_decode(translator, pair.source, pair.target, "iso").attention[:-1]  # without the EOS row
        assert matrix.shape == alone.shape
        assert np.allclose(matrix, alone, atol=1e-5)
    assert forced_attention(load_model_folder(dates_models["none"]).translator, sources, targets) == [None] * 9


@pytest.mark.slow  # a trained model, or the real window
def test_a_tiny_models_study_is_run_stored_and_read_back(dates_models, tmp_path):
    folder = tmp_path / "model"
    shutil.copytree(dates_models["additive"], folder)
    bundle = load_model_folder(folder)
    pairs = dates.dates_split(seed=1, train_size=10, valid_size=10, test_size=40).test
    alignment = _identity_alignment(pairs[:30])  # ten pairs the aligner never saw are skipped
    study = run_alignment_study(bundle.translator, pairs, alignment, "dates-src", "iso")
    assert (study.sentences, study.skipped) == (30, len(pairs) - 30)
    assert study.argmax.sure == sum(min(len(split_words(p.source, "dates-src")), len(split_words(p.target, "iso")))
                                    for p in pairs[:30])
    assert 0 <= study.argmax.aer <= 1 and study.argmax.predicted >= study.argmax.matched
    weights = read_config(folder)["weights"]
    record_alignment_study(folder, study)
    assert read_alignment_study(folder) == AlignmentStudy.from_json(study.to_json())
    assert read_config(folder)["weights"] == weights  # the weights' hash is untouched
    load_model_folder(folder)  # and the folder still loads


@pytest.mark.slow  # a trained model, or the real window
def test_a_model_without_attention_or_pairs_without_links_have_no_study(dates_models):
    pairs = dates.dates_split(seed=1, train_size=10, valid_size=10, test_size=5).test
    with pytest.raises(AlignmentStudyError, match="no attention"):
        run_alignment_study(load_model_folder(dates_models["none"]).translator, pairs, _identity_alignment(pairs),
                            "dates-src", "iso")
    with pytest.raises(AlignmentStudyError, match="none of the 5 pairs has aligner links"):
        run_alignment_study(load_model_folder(dates_models["additive"]).translator, pairs, _identity_alignment([]),
                            "dates-src", "iso")
