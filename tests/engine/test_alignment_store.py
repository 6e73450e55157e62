"""The stored corpus alignment: round trip, lookups in both directions, refusal of damaged or foreign
files (engine/studies/alignment_store.py), and the aligner itself when eflomal is installed (engine/studies/aligner.py)."""

import gzip
import json
import sys

import pytest

from engine.corpus.corpus_read import Pair
from engine.studies import aligner
from engine.studies.alignment_store import (
    AlignedPair,
    AlignmentFileError,
    CorpusAlignment,
    load_alignment,
    pair_key,
    save_alignment,
)

ZH, EN = "汤姆睡了。", "Tom slept."  # words: 汤 姆 睡 了 。 / Tom slept .
FORWARD = frozenset({(0, 0), (2, 1), (4, 2)})
REVERSE = frozenset({(0, 0), (1, 0), (2, 1), (4, 2)})


def priors() -> dict[str, list]:
    return {"lex": [["汤", "tom", 2]], "hmm_forward": [[1, 3]], "hmm_reverse": [[1, 3]],
            "fertility_forward": [["汤", 1, 2]], "fertility_reverse": [["tom", 2, 1.5]]}


def alignment() -> CorpusAlignment:
    return CorpusAlignment(("zh", "en"), "eflomal 2.0.0", "grow-diag-final-and", "tiny.tsv", "ab" * 32, 1.5,
                           {pair_key(ZH, EN): AlignedPair.of(5, 3, FORWARD, REVERSE)}, priors())


def test_round_trip_and_lookup_in_both_directions(tmp_path):
    path = tmp_path / "a.json.gz"
    save_alignment(path, alignment())
    loaded = load_alignment(path)
    assert loaded == alignment() and loaded.digest == alignment().digest
    grown = {(0, 0), (1, 0), (2, 1), (4, 2)}  # grow-diag-final-and of the two directions
    assert loaded.links(ZH, EN, "zh", "en") == grown
    assert loaded.links(EN, ZH, "en", "zh") == {(t, s) for s, t in grown}
    assert loaded.links("汤姆来了。", EN, "zh", "en") is None  # not in the file
    assert loaded.links(ZH, EN, "zh", "fr") is None


def test_a_pair_whose_text_now_splits_otherwise_is_not_looked_up():
    changed = CorpusAlignment(("zh", "en"), "x", "union", "t", "0", 0.0,
                              {pair_key(ZH, EN): AlignedPair.of(6, 3, FORWARD, REVERSE)}, priors())
    assert changed.links(ZH, EN, "zh", "en") is None


def write(path, data) -> None:
    path.write_bytes(gzip.compress(json.dumps(data).encode()))


@pytest.mark.parametrize("edit, reason", [
    (lambda d: d.update(format="something-else"), "not an alignment file"),
    (lambda d: d.update(format_version=2), "format version 2; this version reads 1"),
    (lambda d: d.update(word_rule_version=9), "rule version 9"),
    (lambda d: d.update(symmetrization="magic"), "symmetrization must be one of"),
    (lambda d: d.update(seconds=float("nan")), "seconds must be a finite number"),
    (lambda d: d["pairs"][0].__setitem__(0, "zz"), "the key must be 16 hex digits"),
    (lambda d: d["pairs"][0].__setitem__(3, "0-0; rm -rf /"), "links must be text such as"),
    (lambda d: d["pairs"][0].__setitem__(1, -2), "words must be a whole number"),
    (lambda d: d["corpus"].update(pairs=7), "corpus.pairs says 7 but 1 are stored"),
    (lambda d: d["priors"]["lex"].append(["a b", "c", 1]), "priors.lex: a row must be"),
    (lambda d: d["priors"]["hmm_forward"].append([1, float("inf")]), "priors.hmm_forward: a row must be"),
    (lambda d: d["priors"].pop("lex"), "priors must hold exactly"),
])
def test_a_damaged_or_foreign_file_is_refused_with_the_reason(tmp_path, edit, reason):
    data = alignment().to_json()
    edit(data)
    path = tmp_path / "a.json.gz"
    write(path, data)
    with pytest.raises(AlignmentFileError, match=reason):
        load_alignment(path)


def test_unreadable_files_are_refused(tmp_path):
    with pytest.raises(AlignmentFileError, match="no alignment file"):
        load_alignment(tmp_path / "missing.json.gz")
    (tmp_path / "plain.json.gz").write_text("{}")
    with pytest.raises(AlignmentFileError, match="cannot be read"):
        load_alignment(tmp_path / "plain.json.gz")
    (tmp_path / "bad.json.gz").write_bytes(gzip.compress(b"{not json"))
    with pytest.raises(AlignmentFileError, match="not valid JSON"):
        load_alignment(tmp_path / "bad.json.gz")


def test_a_link_past_the_words_is_refused_when_the_pair_is_read(tmp_path):
    data = alignment().to_json()
    data["pairs"][0][3] = "0-0 7-1"
    write(tmp_path / "a.json.gz", data)
    loaded = load_alignment(tmp_path / "a.json.gz")
    with pytest.raises(AlignmentFileError, match="points past the pair's 5×3 words"):
        loaded.links(ZH, EN, "zh", "en")


def test_without_eflomal_the_aligner_says_so(monkeypatch):
    monkeypatch.setitem(sys.modules, "eflomal", None)  # import eflomal now fails
    assert "not installed" in aligner.aligner_problem() and "pip install eflomal" in aligner.aligner_problem()
    with pytest.raises(aligner.AlignerError, match="not installed"):
        aligner.align_corpus([Pair(ZH, EN, EN)], "zh", "en", "tiny.tsv", "0")
    # A pair the file holds needs no aligner at all.
    assert aligner.align_pair(alignment(), ZH, EN, "zh", "en") == {(0, 0), (1, 0), (2, 1), (4, 2)}


CORPUS = [("汤姆睡了。", "Tom slept."), ("我睡了。", "I slept."), ("汤姆来了。", "Tom came."), ("我来了。", "I came."),
          ("汤姆笑了。", "Tom laughed."), ("我笑了。", "I laughed."), ("他睡了。", "He slept."), ("他来了。", "He came.")]


def test_eflomal_aligns_a_small_corpus_and_a_new_pair_with_its_priors():
    pytest.importorskip("eflomal")
    pairs = [Pair(zh, en, en) for zh, en in CORPUS * 6]
    made = aligner.align_corpus(pairs, "zh", "en", "tiny.tsv", "0")
    assert len(made.pairs) == len(CORPUS) and made.aligner.startswith("eflomal")
    links = made.links("汤姆睡了。", "Tom slept.", "zh", "en")
    # 睡 → slept; "." goes with 了 or 。, which always come together here
    assert (2, 1) in links and links & {(3, 2), (4, 2)}
    new = aligner.align_pair(made, "他笑了。", "He laughed.", "zh", "en")  # not in the corpus: its priors
    assert (0, 0) in new and (1, 1) in new and new & {(2, 2), (3, 2)}  # 他 → He, 笑 → laughed, 了 or 。 → .
    assert aligner.align_pair(made, "He laughed.", "他笑了。", "en", "zh") == {(t, s) for s, t in new}


def test_the_aligner_map_of_a_pair_says_where_its_links_come_from(tmp_path, monkeypatch):
    path = tmp_path / "a.json.gz"
    save_alignment(path, alignment())
    found = aligner.aligner_map(" 汤姆睡了。", "Tom  slept.", "zh", "en", path)  # normalized like the corpus
    assert found.source_words == ("汤", "姆", "睡", "了", "。") and found.target_words == ("Tom", "slept", ".")
    assert found.links == {(0, 0), (1, 0), (2, 1), (4, 2)} and found.note.startswith("a corpus pair")
    assert aligner.aligner_map("29 Nov", "2026-11-29", "dates-src", "iso", path).note == (
        "the word aligner covers zh–en only")
    missing = aligner.aligner_map(ZH, EN, "zh", "en", tmp_path / "none.json.gz")
    assert missing.links == frozenset() and missing.note.startswith("no aligner links: no alignment file")
    monkeypatch.setitem(sys.modules, "eflomal", None)
    unknown = aligner.aligner_map("他睡了。", EN, "zh", "en", path)
    assert unknown.links == frozenset() and "eflomal is not installed" in unknown.note
