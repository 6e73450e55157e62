"""Tests of corpus reading, normalization and splitting (engine.corpus.data)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from engine.corpus import CorpusReport, preview, read_tsv
from engine.corpus.corpus_read import MAX_SENTENCE_CHARS, Pair, SkippedLine, detect_swapped_columns
from engine.corpus.data import split_pairs
from engine.files.paths import TATOEBA_CORPUS
from engine.settings.errors import ConfigError, DataError
from engine.text.normalization import normalize

REAL_CORPUS = TATOEBA_CORPUS
ATTR = "CC-BY 2.0 (France) Attribution: tatoeba.org #1 (a) & #2 (b)"


def write(tmp_path: Path, data: bytes, name: str = "corpus.tsv") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def tsv(*lines: str, newline: str = "\n") -> bytes:
    return (newline.join(lines) + newline).encode("utf-8")


# --------------------------------------------------------------------------------------------------
# normalize


def test_normalize_nfkc_full_width() -> None:
    assert normalize("\uff21\uff22\uff23\uff11", "en") == "ABC1"


def test_normalize_traditional_to_simplified() -> None:
    assert normalize("這是書", "zh") == "这是书"
    assert normalize("這是書", "zh", simplify_chinese=False) == "這是書"
    assert normalize("這是書", "en") == "這是書"  # only the Chinese side is converted


def test_normalize_invisible_and_control_characters() -> None:
    assert normalize("a\u200bb\u200c\u200dc\u2060d\ufeff", "en") == "abcd"
    assert normalize("a\x00b\x07c", "en") == "a b c"
    assert normalize("\u202eab\u202c \u2066c\u2069", "en") == "ab c"
    assert normalize("one\u2028two\u2029three", "en") == "one two three"
    assert normalize("  many \t\n  spaces\u3000here ", "en") == "many spaces here"
    assert normalize("\u200b\u200b", "zh") == ""


# --------------------------------------------------------------------------------------------------
# read_tsv: encodings and line structure


def test_bom_and_crlf(tmp_path: Path) -> None:
    data = b"\xef\xbb\xbf" + tsv(f"Hi.\t嗨。\t{ATTR}", "Stop!\t住手\uff01", newline="\r\n")
    pairs, report = read_tsv(write(tmp_path, data))
    assert pairs == [
        Pair(source="嗨。", target="Hi.", english="Hi.", attribution=ATTR),
        Pair(source="住手!", target="Stop!", english="Stop!", attribution=""),
    ]
    assert (report.lines_read, report.pairs_kept, report.skipped) == (2, 2, ())


def test_malformed_lines_reported_with_line_numbers(tmp_path: Path) -> None:
    data = tsv(
        "One.\t一。",
        "Two. 二。",  # space instead of a tab
        "Three.\t三。",
        "\t四。",  # empty English side
        "Five.\t  ",  # empty Chinese side
        "",  # blank line
        "Six.\t六。",
        f"We try. 我们来试试。\t{ATTR}",  # tab missing between English and Chinese
        "Seven.\t七。",
    )
    pairs, report = read_tsv(write(tmp_path, data))
    assert [(p.source, p.target) for p in pairs] == [
        ("一。", "One."),
        ("三。", "Three."),
        ("六。", "Six."),
        ("七。", "Seven."),
    ]
    assert [(s.line_number, s.reason) for s in report.skipped] == [
        (2, "no tab separator"),
        (4, "empty English side"),
        (5, "empty Chinese side"),
        (6, "empty line"),
        (8, "no tab separator between English and Chinese (column 2 is the attribution)"),
    ]
    assert report.skipped[0].text == "Two. 二。"
    assert report.lines_read == 9
    assert report.summary() == "9 lines read, 4 pairs kept, 0 duplicates removed, 5 lines skipped"
    assert report.details(limit=2) == [
        "line 2: no tab separator: Two. 二。",
        "line 4: empty English side: \t四。",
        "... and 3 more skipped lines",
    ]


def test_latin1_line_reported_as_undecodable(tmp_path: Path) -> None:
    data = (
        tsv("One.\t一。", "Two.\t二。")
        + "Café.\tcafé\n".encode("latin-1")
        + tsv("Four.\t四。", "Five.\t五。")
    )
    pairs, report = read_tsv(write(tmp_path, data))
    assert [p.target for p in pairs] == ["One.", "Two.", "Four.", "Five."]
    assert report.skipped == (SkippedLine(3, "undecodable bytes (not UTF-8)", "Caf\ufffd.\tcaf\ufffd"),)


def test_line_separator_inside_a_sentence_does_not_split_the_line(tmp_path: Path) -> None:
    data = tsv("One.\t一。", "Two lines.\t第一行\u2028第二行。", "Three.\t三。")
    pairs, report = read_tsv(write(tmp_path, data))
    assert report.lines_read == 3
    assert [(p.source, p.target) for p in pairs] == [
        ("一。", "One."),
        ("第一行 第二行。", "Two lines."),
        ("三。", "Three."),
    ]


def test_traditional_simplified_and_nfkc_applied_when_reading(tmp_path: Path) -> None:
    pairs, _ = read_tsv(
        write(
            tmp_path,
            tsv("This is a book.\t這是書。", "\uff21\uff22\uff23\uff11\t字母\uff21\uff22\uff23\uff11"),
        )
    )
    assert [(p.source, p.target) for p in pairs] == [("这是书。", "This is a book."), ("字母ABC1", "ABC1")]
    pairs, _ = read_tsv(write(tmp_path, tsv("This is a book.\t這是書。")), simplify_chinese=False)
    assert pairs[0].source == "這是書。"


def test_zero_width_only_side_is_empty(tmp_path: Path) -> None:
    pairs, report = read_tsv(write(tmp_path, tsv("One.\t一。", "Ghost.\t\u200b\u200b", "\ufeff\u200d\t二。")))
    assert len(pairs) == 1
    assert [(s.line_number, s.reason) for s in report.skipped] == [
        (2, "empty Chinese side"),
        (3, "empty English side"),
    ]


def test_too_long_side_is_skipped(tmp_path: Path) -> None:
    data = tsv("Short.\t短。", "x" * 30 + "\t长。")
    pairs, report = read_tsv(write(tmp_path, data), max_chars=20)
    assert len(pairs) == 1
    assert report.skipped[0].reason == "too long (30 > 20 characters)"
    assert report.skipped[0].text == "x" * 30 + "\t长。"
    assert MAX_SENTENCE_CHARS == 1000


def test_skipped_text_is_cut_to_80_characters(tmp_path: Path) -> None:
    _, report = read_tsv(write(tmp_path, tsv("One.\t一。", "y" * 200)))
    assert report.skipped[0].text == "y" * 80


def test_duplicates_removed_and_counted(tmp_path: Path) -> None:
    data = tsv("Hi.\t你好。", "Hi.\t你好。", "Hello.\t你好。", "  Hi. \t 你好。\u200b", "Hi.\t你 好。")
    pairs, report = read_tsv(write(tmp_path, data))
    assert [(p.source, p.target) for p in pairs] == [
        ("你好。", "Hi."),
        ("你好。", "Hello."),
        ("你 好。", "Hi."),
    ]
    assert report.duplicates_removed == 2
    assert report.summary() == "5 lines read, 3 pairs kept, 2 duplicates removed, 0 lines skipped"


def test_direction_chooses_columns(tmp_path: Path) -> None:
    path = write(tmp_path, tsv(f"Hi.\t嗨。\t{ATTR}"))
    (zh_en,), _ = read_tsv(path, src="zh", tgt="en")
    (en_zh,), _ = read_tsv(path, src="en", tgt="zh")
    assert (zh_en.source, zh_en.target) == ("嗨。", "Hi.")
    assert (en_zh.source, en_zh.target) == ("Hi.", "嗨。")
    assert en_zh.english == zh_en.english == "Hi."


@pytest.mark.parametrize(("src", "tgt"), [("zh", "zh"), ("fr", "en"), ("zh", "ja")])
def test_bad_languages_name_the_choices(tmp_path: Path, src: str, tgt: str) -> None:
    path = write(tmp_path, tsv("Hi.\t嗨。"))
    with pytest.raises(DataError, match="en, zh"):
        read_tsv(path, src=src, tgt=tgt)


def test_english_keeps_raw_column(tmp_path: Path) -> None:
    (pair,), _ = read_tsv(write(tmp_path, tsv("  \uff28i.  \t嗨。")))
    assert pair.target == "Hi."
    assert pair.english == "  \uff28i.  "


# --------------------------------------------------------------------------------------------------
# read_tsv: refused files


def test_missing_file(tmp_path: Path) -> None:
    missing = tmp_path / "nope.tsv"
    with pytest.raises(DataError, match=r"nope\.tsv"):
        read_tsv(missing)
    with pytest.raises(DataError, match=r"nope\.tsv"):
        preview(missing)


def test_directory_refused(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="folder"):
        read_tsv(tmp_path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX only")
def test_a_fifo_is_refused_before_it_is_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "corpus.tsv"
    os.mkfifo(fifo)  # opening it for reading would block until a writer comes: it must not be opened
    with pytest.raises(DataError, match="not a regular file"):
        read_tsv(fifo)
    with pytest.raises(DataError, match="not a regular file"):
        preview(fifo)


def test_binary_file_refused(tmp_path: Path) -> None:
    path = write(tmp_path, b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4)
    with pytest.raises(DataError, match="does not look like a text corpus"):
        read_tsv(path)
    with pytest.raises(DataError, match="does not look like a text corpus"):
        preview(path)


def test_utf16_file_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "Hi.\t嗨。\n".encode("utf-16"))
    with pytest.raises(DataError, match="UTF-16"):
        read_tsv(path)


def test_mostly_undecodable_file_refused(tmp_path: Path) -> None:
    data = tsv("One.\t一。") + "Café.\tcafé\nNaïve.\tnaïve\n".encode("latin-1")
    with pytest.raises(DataError, match="does not look like a text corpus"):
        read_tsv(write(tmp_path, data))


def test_no_valid_pairs_includes_summary(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"2 lines read, 0 pairs kept, 0 duplicates removed, 2 lines skipped"):
        read_tsv(write(tmp_path, tsv("just English", "no tabs here")))
    with pytest.raises(DataError, match="0 lines read"):
        read_tsv(write(tmp_path, b""))


# --------------------------------------------------------------------------------------------------
# swapped columns and preview


def test_detect_swapped_columns() -> None:
    assert detect_swapped_columns([("Hi.", "嗨。"), ("Tom is here.", "汤姆在这里。")]) is None
    hint = detect_swapped_columns([("嗨。", "Hi."), ("汤姆在这里。", "Tom is here.")])
    assert hint is not None
    assert "swapped" in hint
    assert "English<TAB>Chinese" in hint
    assert detect_swapped_columns([]) is None
    assert detect_swapped_columns([("1", "2")]) is None


def test_read_tsv_reports_swapped_columns(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="swapped"):  # nothing usable: the hint is in the error
        read_tsv(write(tmp_path, tsv("你好。\tHello.", "再见。\tGoodbye.")))
    _, report = read_tsv(write(tmp_path, tsv("Hi.\t嗨。")))
    assert report.suggestion is None


def test_preview_returns_raw_rows(tmp_path: Path) -> None:
    data = b"\xef\xbb\xbf" + tsv(
        f"Hi.\t嗨\uff01\t{ATTR}", "", "Stop! 住手", "Wait!\t等等\uff01", newline="\r\n"
    )
    path = write(tmp_path, data)
    assert preview(path) == [("Hi.", "嗨\uff01"), ("Stop! 住手", ""), ("Wait!", "等等\uff01")]
    assert preview(path, count=1) == [("Hi.", "嗨\uff01")]
    assert preview(path, count=0) == []


# --------------------------------------------------------------------------------------------------
# split


def expected_bucket(english: str) -> str:
    first = hashlib.sha256(english.strip().lower().encode("utf-8")).hexdigest()[0]
    return {"0": "test", "1": "valid"}.get(first, "train")


def make_pairs(count: int) -> list[Pair]:
    return [Pair(source=f"源{i}", target=f"Sentence {i}.", english=f"Sentence {i}.") for i in range(count)]


def test_split_follows_the_hash_rule_and_is_deterministic() -> None:
    pairs = make_pairs(800)
    split = split_pairs(pairs)
    assert split == split_pairs(list(pairs))
    for part in ("train", "valid", "test"):
        assert list(getattr(split, part)) == [p for p in pairs if expected_bucket(p.english) == part]
    sizes = split.sizes()
    assert sizes["train"] + sizes["valid"] + sizes["test"] == 800
    assert sizes["valid"] > 0
    assert sizes["test"] > 0
    assert sizes["train_removed_overlap"] == 0
    # Case and surrounding spaces of the English sentence do not change the bucket.
    one = Pair(source="x", target="y", english="Sentence 7.")
    other = Pair(source="x", target="y", english="  sentence 7. ")
    assert split_pairs([one]).sizes() == split_pairs([other]).sizes()


def test_split_removes_train_overlap() -> None:
    pairs = make_pairs(200)
    held_out = next(p for p in pairs if expected_bucket(p.english) in ("valid", "test"))
    train_english = [f"Other {i}." for i in range(200) if expected_bucket(f"Other {i}.") == "train"][:3]
    overlapping = [Pair(source=held_out.source, target=e, english=e) for e in train_english]
    split = split_pairs(pairs + overlapping)
    assert split.train_removed_overlap == 3
    assert split.sizes()["train_removed_overlap"] == 3
    train_sources = {p.source for p in split.train}
    assert held_out.source not in train_sources
    assert not train_sources & {p.source for p in split.valid + split.test}


def test_the_peer_rule_trains_on_every_pair_outside_the_same_test_part() -> None:
    pairs = make_pairs(200)
    held_out = next(p for p in pairs if expected_bucket(p.english) == "test")
    other = next(f"Other {i}." for i in range(200) if expected_bucket(f"Other {i}.") == "train")
    overlapping = Pair(source=held_out.source, target=other, english=other)
    strict, peer = split_pairs(pairs + [overlapping]), split_pairs(pairs + [overlapping], rule="peer")
    assert peer.test == strict.test and peer.valid == strict.valid
    assert list(peer.train) == [p for p in pairs + [overlapping] if expected_bucket(p.english) != "test"]
    assert overlapping in peer.train and overlapping not in strict.train
    assert set(peer.valid) <= set(peer.train)
    with pytest.raises(ConfigError, match="strict, peer"):
        split_pairs(pairs, rule="loose")


# --------------------------------------------------------------------------------------------------
# the real corpus


@pytest.mark.slow  # reads all 27,729 pairs
@pytest.mark.skipif(not REAL_CORPUS.is_file(), reason=f"real corpus not found at {REAL_CORPUS}")
def test_real_corpus() -> None:
    pairs, report = read_tsv(REAL_CORPUS)
    assert isinstance(report, CorpusReport)
    assert len(pairs) > 27_000
    assert report.lines_read >= 27_700
    assert 1 <= len(report.skipped) < 100
    assert report.suggestion is None
    assert all(p.source and p.target and p.attribution.startswith("CC-BY") for p in pairs)
    split = split_pairs(pairs)
    sizes = split.sizes()
    for part in ("valid", "test"):
        assert len(pairs) / 16 * 0.8 < sizes[part] < len(pairs) / 16 * 1.2
    assert sizes["train"] + sizes["valid"] + sizes["test"] + sizes["train_removed_overlap"] == len(pairs)


def test_the_shipped_corpus_is_the_tatoeba_file_unchanged_with_its_licence_note():
    assert REAL_CORPUS.is_file()
    note = (REAL_CORPUS.parent / "README.md").read_text(encoding="utf-8")
    assert "CC-BY 2.0 (France)" in note
    first = REAL_CORPUS.read_bytes().splitlines()[0].decode("utf-8")
    assert first.count("\t") == 2 and "Attribution: tatoeba.org" in first  # the attribution column is kept
    upstream = Path(__file__).resolve().parents[3] / "shared" / "data" / "tatoeba-cmn-eng" / "cmn-eng.tsv"
    if upstream.is_file():  # the packaged original, where it is at hand: byte-identical
        assert REAL_CORPUS.read_bytes() == upstream.read_bytes()


def test_an_overlong_line_is_skipped_unread_and_memory_stays_bounded(tmp_path: Path) -> None:
    import tracemalloc

    good = "I have one apple.\t我有一个苹果。\tCC-BY\n"
    path = tmp_path / "big.tsv"
    with path.open("wb") as handle:
        handle.write(good.encode("utf-8"))
        handle.write(b"x" * (20 * 1024 * 1024) + b"\n")  # one 20 MB line
        handle.write("You have two.\t你有两个。\tCC-BY\n".encode())
    tracemalloc.start()
    pairs, report = read_tsv(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert len(pairs) == 2
    assert [(s.line_number, s.reason) for s in report.skipped] == [(2, "too long (20,971,520 bytes; a line holds at most "
                                                                 "65,536)")]
    assert peak < 8 * 1024 * 1024  # far less than the line itself
    assert preview(path)[1][0].startswith("(a line of 20,971,520 bytes")
