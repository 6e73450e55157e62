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
    growing = _Growing(forward_set & reverse_set)
    growing.grow_diag(forward_set | reverse_set)
    for direction in (forward_set, reverse_set):
        growing.add_final(direction, final_and)
    return frozenset(growing.kept)


class _Growing:
    """The links kept so far, and which source and target words they align."""

    def __init__(self, start: frozenset[Link]) -> None:
        self.kept = set(start)
        self.source_aligned = {s for s, _ in start}
        self.target_aligned = {t for _, t in start}

    def add(self, link: Link) -> None:
        self.kept.add(link)
        self.source_aligned.add(link[0])
        self.target_aligned.add(link[1])

    def grow_diag(self, union: frozenset[Link]) -> None:
        """Step 2: passes over the grid, each kept link adding its neighbours in ``union``, until one adds nothing."""
        sources = range(max((s for s, _ in union), default=-1) + 1)
        targets = range(max((t for _, t in union), default=-1) + 1)
        while self._grow_pass(union, sources, targets):
            pass

    def _grow_pass(self, union: frozenset[Link], sources: range, targets: range) -> bool:
        """One pass in grid order; True when it added a link."""
        grown = False
        for s in sources:
            for t in targets:
                if (s, t) in self.kept:
                    grown = self._grow_around((s, t), union) or grown
        return grown

    def _grow_around(self, link: Link, union: frozenset[Link]) -> bool:
        """Add each neighbour of ``link`` that is in ``union`` and aligns a word still unaligned; True when one was."""
        added = False
        for ds, dt in NEIGHBOURS:
            neighbour = (link[0] + ds, link[1] + dt)
            if neighbour in union and neighbour not in self.kept and (
                    neighbour[0] not in self.source_aligned or neighbour[1] not in self.target_aligned):
                self.add(neighbour)
                added = True
        return added

    def add_final(self, direction: frozenset[Link], final_and: bool) -> None:
        """Step 3 for one direction: its links, in order, whose source word and (``final_and``) or (else)
        target word is still unaligned."""
        for s, t in sorted(direction):
            if (s, t) in self.kept:
                continue
            free_source, free_target = s not in self.source_aligned, t not in self.target_aligned
            if (free_source and free_target) if final_and else (free_source or free_target):
                self.add((s, t))


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
