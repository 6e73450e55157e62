"""grow-diag-final(-and) on a fixture worked by hand (engine/studies/symmetrize.py)."""

import pytest

from engine.studies.symmetrize import format_links, grow_diag_final, parse_links, symmetrize

# Source words 0–6, target words 0–5 (source, target):
FORWARD = {(0, 0), (1, 2), (2, 2), (3, 3), (5, 0)}
REVERSE = {(0, 0), (1, 1), (2, 2), (4, 3), (6, 5)}
# By hand: the intersection is {0-0, 2-2}. grow-diag walks the grid: (0,0) adds its diagonal
# neighbour (1,1) from the union (source 1 unaligned); (1,2) is never added (source 1 and target 2 are
# both aligned by then); (2,2) adds its diagonal neighbour (3,3), which adds (4,3) (source 4 unaligned).
# (5,0) and (6,5) touch no kept link. final-and then adds (6,5) (both words unaligned) but not (5,0)
# (target 0 is aligned); plain final adds both.
GROWN = {(0, 0), (1, 1), (2, 2), (3, 3), (4, 3)}


def test_grow_diag_final_and_on_the_hand_worked_fixture():
    assert grow_diag_final(FORWARD, REVERSE, final_and=True) == frozenset(GROWN | {(6, 5)})


def test_grow_diag_final_also_adds_links_with_one_word_unaligned():
    assert grow_diag_final(FORWARD, REVERSE, final_and=False) == frozenset(GROWN | {(6, 5), (5, 0)})


def test_the_other_symmetrizations_and_a_bad_name():
    assert symmetrize(FORWARD, REVERSE, "intersection") == {(0, 0), (2, 2)}
    assert symmetrize(FORWARD, REVERSE, "union") == FORWARD | REVERSE
    assert symmetrize(FORWARD, REVERSE) == grow_diag_final(FORWARD, REVERSE)
    with pytest.raises(ValueError, match="grow-diag-final-and"):
        symmetrize(FORWARD, REVERSE, "diag")


def test_agreeing_directions_are_kept_as_they_are_and_empty_stays_empty():
    same = {(0, 1), (1, 0), (2, 2)}
    assert grow_diag_final(same, same) == same
    assert grow_diag_final(set(), set()) == frozenset()


def test_growing_never_adds_a_link_between_two_aligned_words():
    # (0,0) and (1,1) agree; the union's (0,1) and (1,0) join two aligned words and stay out.
    assert grow_diag_final({(0, 0), (1, 1), (0, 1)}, {(0, 0), (1, 1), (1, 0)}) == {(0, 0), (1, 1)}


def test_pharaoh_text_round_trip_and_refusal():
    assert parse_links("0-0 2-1  1-2\n") == {(0, 0), (2, 1), (1, 2)}
    assert format_links({(2, 1), (0, 0), (1, 2)}) == "0-0 1-2 2-1"
    assert parse_links("") == frozenset()
    for bad in ("0-", "a-1", "1-2-3", "-1-2", "0:1"):
        with pytest.raises(ValueError, match="two whole numbers"):
            parse_links(bad)
