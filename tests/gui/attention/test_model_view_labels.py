"""The Layers window's large map labels its pieces as the main map's piece view does: a piece that continues
a word is marked ``##``, so that ``studie`` ``d`` do not read as two words."""

from __future__ import annotations

from gui.attention.model_view import marked_pieces


def test_a_piece_that_continues_a_word_is_marked_and_word_starts_and_special_pieces_are_not():
    tokens = ("<s>", "\u2581I", "\u2581studie", "d", "\u2581English", ".", "</s>")
    assert marked_pieces(tokens) == ["<s>", "I", "studie", "##d", "English", ".", "</s>"]


def test_every_word_of_its_own_is_unmarked():
    assert marked_pieces(("\u2581You", "\u2581look", "\u2581very", "\u2581nervous")) == ["You", "look", "very", "nervous"]
