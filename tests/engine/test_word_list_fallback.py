"""A Words-view word list that cannot be used (empty, damaged, a pipe, a device link) gives one word per
character and one notice, loaded once — never an error on every decode (engine/text/segment.py)."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from engine.text import segment as segment_module
from tests.engine.hang_guard import ends_quickly


@pytest.fixture
def fresh_segmenter(monkeypatch: pytest.MonkeyPatch):
    """The segmenter as if not loaded yet (restored after the test)."""
    monkeypatch.setattr(segment_module, "_cut", None)
    monkeypatch.setattr(segment_module, "_name", "")
    monkeypatch.setattr(segment_module, "_notice", "", raising=False)
    return segment_module


def _word_list(kind: str, path: Path) -> None:
    if kind == "empty":
        path.write_bytes(b"")
    elif kind == "damaged":
        path.write_bytes(b"\xff\xfe not a word list\nword notanumber x\n")
    elif kind == "pipe":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")


@pytest.mark.parametrize("kind", ["empty", "damaged", "pipe", "device"])
def test_an_unusable_word_list_falls_back_to_characters_with_one_notice(
        fresh_segmenter, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog, kind: str) -> None:
    if kind in ("pipe", "device") and (not hasattr(os, "mkfifo") or not Path("/dev/zero").exists()):
        pytest.skip("pipes and /dev/zero are POSIX only")
    words = tmp_path / "zh-words.txt"
    _word_list(kind, words)
    monkeypatch.setattr(segment_module, "WORDS_FILE", words)
    loads = []
    real_load = segment_module._load
    monkeypatch.setattr(segment_module, "_load", lambda: loads.append(1) or real_load())
    with caplog.at_level(logging.WARNING, logger="engine.text.segment"):
        cuts = ends_quickly(lambda: [segment_module.segment("我明天要去图书馆") for _ in range(5)]).value
    assert cuts == [list("我明天要去图书馆")] * 5
    assert loads == [1]  # tried once, not on every decode
    notice = segment_module.segmenter_notice()
    assert "zh-words.txt" in notice and "characters" in notice and "\n" not in notice
    assert segment_module.segmenter_name().startswith(segment_module.CHARACTERS)
    assert [r.getMessage() for r in caplog.records] == [notice]


def test_the_shipped_word_list_gives_words_and_no_notice(fresh_segmenter) -> None:
    assert segment_module.segment("我明天要去图书馆借书") == ["我", "明天", "要", "去", "图书馆", "借书"]
    assert segment_module.segmenter_notice() == ""
