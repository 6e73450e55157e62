"""Symmetrizing two one-directional word alignments: grow-diag-final(-and) (Koehn et al. 2003).

An IBM-style aligner links every target word to at most one source word (the forward direction) or
every source word to at most one target word (the reverse one); neither can express one word
translated by two. The usual remedy starts from the links both directions agree on (precise) and
grows towards their union (complete):

1. start from the intersection;
2. **grow-diag**: repeatedly, for every link (s, t) already kept (source words in order, then target
   words), add each of its eight neighbours (s±1, t±1 included) that is in the union while its source
   word or its target word is still unaligned, until a pass adds nothing;
3. **final**: add the remaining links of the forward direction, then those of the reverse one, whose
   source word *or* target word is still unaligned (``final-and``: whose source word *and* target word
   both are, the variant that keeps precision higher; Moses' ``grow-diag-final-and``).

A link is a pair (source index, target index), counted from 0 in both directions. The grid is walked
in order (source index, then target index), and a link added is at once visible to the checks that
follow, as in Koehn's pseudo-code and fast_align's ``atools``; the result is deterministic.
"""

from __future__ import annotations

from collections.abc import Iterable

Link = tuple[int, int]  # (source word index, target word index)
NEIGHBOURS: tuple[Link, ...] = ((-1, 0), (0, -1), (1, 0), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1))
SYMMETRIZATIONS = ("grow-diag-final", "grow-diag-final-and", "intersection", "union")


def grow_diag_final(forward: Iterable[Link], reverse: Iterable[Link], final_and: bool = True) -> frozenset[Link]:
    """The symmetrized links of ``forward`` and ``reverse``; ``final_and`` for grow-diag-final-and."""
    forward_set, reverse_set = frozenset(forward), frozenset(reverse)
    union = forward_set | reverse_set
    kept = set(forward_set & reverse_set)
    source_aligned = {s for s, _ in kept}
    target_aligned = {t for _, t in kept}

    def add(link: Link) -> None:
        kept.add(link)
        source_aligned.add(link[0])
        target_aligned.add(link[1])

    sources = range(max((s for s, _ in union), default=-1) + 1)
    targets = range(max((t for _, t in union), default=-1) + 1)
    grown = True
    while grown:
        grown = False
        for s in sources:
            for t in targets:
                if (s, t) not in kept:
                    continue
                for ds, dt in NEIGHBOURS:
                    neighbour = (s + ds, t + dt)
                    if neighbour in union and neighbour not in kept and (
                            neighbour[0] not in source_aligned or neighbour[1] not in target_aligned):
                        add(neighbour)
                        grown = True
    for direction in (forward_set, reverse_set):
        for s, t in sorted(direction):
            if (s, t) in kept:
                continue
            free_source, free_target = s not in source_aligned, t not in target_aligned
            if (free_source and free_target) if final_and else (free_source or free_target):
                add((s, t))
    return frozenset(kept)


def symmetrize(forward: Iterable[Link], reverse: Iterable[Link], method: str = "grow-diag-final-and") -> frozenset[Link]:
    """``forward`` and ``reverse`` combined by ``method`` (one of :data:`SYMMETRIZATIONS`)."""
    if method == "grow-diag-final-and":
        return grow_diag_final(forward, reverse, final_and=True)
    if method == "grow-diag-final":
        return grow_diag_final(forward, reverse, final_and=False)
    if method == "intersection":
        return frozenset(forward) & frozenset(reverse)
    if method == "union":
        return frozenset(forward) | frozenset(reverse)
    raise ValueError(f"symmetrization must be one of {', '.join(SYMMETRIZATIONS)}; got {method!r}")


def parse_links(text: str) -> frozenset[Link]:
    """Links written as Pharaoh text, ``"0-0 1-2 2-1"`` (source-target), as aligners print them.
    Raises ValueError naming the bad item."""
    links = set()
    for item in text.split():
        parts = item.split("-")
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            raise ValueError(f"a link is written 'source-target' with two whole numbers; got {item!r}")
        links.add((int(parts[0]), int(parts[1])))
    return frozenset(links)


def format_links(links: Iterable[Link]) -> str:
    """Pharaoh text of ``links``, sorted: ``"0-0 1-2 2-1"``."""
    return " ".join(f"{s}-{t}" for s, t in sorted(links))
