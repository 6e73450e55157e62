"""The attention panel's decisions (gui/attention/panel_state.py) on plain values: no widget is made."""

from __future__ import annotations

import numpy as np
import pytest

from engine.decoding.search import DecodeStep
from engine.text import split_words
from gui.attention import panel_state as state
from gui.attention.map_units import MapUnits

SOURCE = ("▁I", "▁read", "▁books", ".")
TARGET = ("▁我", "看", "书", "。")  # pieces; the word view makes 看书 one word (steps 1–2)


def units(words: bool) -> MapUnits:
    split = split_words(TARGET, segmenter=lambda text: ["我", "看书"] if text == "我看书" else list(text))
    return MapUnits(words, split_words(SOURCE), split)


def step(index: int, forced: bool = False, overridden: bool = False, heads=None, layers=None) -> DecodeStep:
    row = np.full(len(SOURCE), 1 / len(SOURCE), np.float32)
    return DecodeStep(index, index, TARGET[index], 0.5, row, np.zeros(len(SOURCE)), (), TARGET[: index + 1], None,
                      -1.0, forced=forced, overridden=overridden, head_attention=heads, layer_attention=layers)


def test_the_map_page_and_what_it_draws():
    assert state.page_of(True) == state.HEATMAP_PAGE != state.page_of(False) == state.NOTE_PAGE
    assert state.draws_map(True, False) and state.draws_map(False, True) and not state.draws_map(False, False)
    assert state.map_piece_rows(True, 3, 5) == 3 and state.map_piece_rows(False, 0, 5) == 5


@pytest.mark.parametrize(("preview", "pinned", "rows", "shown"), [
    (-1, -1, 4, 3),  # follows the newest
    (-1, 1, 4, 1),  # pinned by a click
    (2, 1, 4, 2),  # the pointer on an output token wins
    (7, 1, 4, 1),  # a preview outside the rows is passed over
    (-1, -1, 0, -1),  # nothing yet
])
def test_the_inspected_step(preview, pinned, rows, shown):
    assert state.inspected_index(preview, pinned, rows) == shown


def test_when_the_inspector_redraws():
    assert not state.inspector_at_once(False, False, -1, -1)  # streaming: throttled
    assert state.inspector_at_once(True, False, -1, -1)
    assert state.inspector_at_once(False, True, -1, -1)
    assert state.inspector_at_once(False, False, 0, -1) and state.inspector_at_once(False, False, -1, 0)
    assert state.inspector_wait_ms(200.0, 150) == 0 and state.inspector_wait_ms(150.0, 150) == 0
    assert state.inspector_wait_ms(100.0, 150) == 51 and state.inspector_wait_ms(0.0, 150) == 151


def test_outlined_rows_and_cells_in_pieces_and_in_words():
    pieces, words = units(False), units(True)
    assert state.highlighted_row(pieces, 2, 0) == 2 and state.highlighted_row(pieces, -1, 0) == 0
    assert state.highlighted_row(words, 2, -1) == 1  # 书 is drawn in the row of 看书
    assert state.highlighted_row(words, -1, -1) == -1
    assert state.outlined_cell(pieces, 3, 2) == (3, 2)
    assert state.outlined_cell(words, 2, 2) == (1, 2)
    assert state.outlined_cell(pieces, 3, -1) == (-1, -1)


def test_step_shown_owes_each_new_row_once_in_order():
    assert list(state.rows_to_announce(0, 3)) == [0, 1, 2]
    assert list(state.rows_to_announce(3, 3)) == [] and list(state.rows_to_announce(2, 4)) == [2, 3]
    assert list(state.rows_to_announce(4, 2)) == []  # a beam's shorter hypothesis: nothing again


def test_head_counts():
    assert state.head_counts(step(0)) == (0, 1)
    assert state.head_counts(step(0, heads=np.zeros((4, 4)))) == (4, 1)
    assert state.head_counts(step(0, heads=np.zeros((4, 4)), layers=np.zeros((2, 4, 4)))) == (4, 2)


def test_row_labels_mark_steered_steps():
    steps = {0: step(0), 1: step(1, forced=True), 2: step(2, overridden=True), 3: None}
    assert state.marked_row_labels(units(False), 4, steps.get) == ["我", "✎看", "◉##书", "。"]  # 书 continues 看书
    assert state.marked_row_labels(units(False), 2, steps.get) == ["我", "✎看"]
    assert state.marked_row_labels(units(True), 4, steps.get) == ["我", "✎看书", "。"]  # any of its pieces


def test_the_word_a_step_belongs_to():
    assert state.word_piece(units(False), 2) is None  # the piece view
    assert state.word_piece(units(True), 0) is None  # a word of one piece
    assert state.word_piece(units(True), 2) == state.WordPiece(2, "看书", 1, 2)


def test_the_hover_line_of_a_cell_and_of_no_cell():
    none = state.hover_line(units(False), -1, -1, 0.0, "")
    assert none.text is None and none.pieces == (-1, -1)
    piece = state.hover_line(units(False), 1, 2, 0.25, "看")
    assert piece.text.startswith("α(‘看’ ← ‘books’) = 0.2500   (output step 1, source position 2)") and piece.pieces == (1, 2)
    word = state.hover_line(units(True), 1, 2, 0.5, "看书")
    assert word.text.startswith("α(‘看书’ ← ") and word.pieces == (1, 2)


def test_an_earlier_layers_view_of_a_step():
    layers = np.zeros((2, 2, 4), np.float32)
    layers[0] = [[1, 0, 0, 0], [0, 1, 0, 0]]
    last = step(0, heads=layers[1], layers=layers)
    same = state.layer_view(last, last.attention, last.head_attention, None)
    assert same[0] is last and same[1] is last.attention and same[2] is last.head_attention
    shown, row, heads = state.layer_view(last, last.attention, last.head_attention, 0)
    assert np.allclose(row, [0.5, 0.5, 0, 0]) and np.array_equal(heads, layers[0])
    assert np.allclose(shown.scores[:2], np.log(0.5)) and np.all(shown.scores[2:] < -80)  # log ᾱ, never -inf
    plain = step(0)
    assert state.layer_view(plain, plain.attention, None, 0)[0] is plain  # no layers: unchanged
