"""The statistical word aligner: eflomal, run over a whole corpus or on one pair with its priors.

eflomal (Östling & Tiedemann 2016, "Efficient word alignment with Markov Chain Monte Carlo") fits
IBM model 1, an HMM and a fertility model in turn by Gibbs sampling, in both directions, in a
compiled program of its own; on this project's 27,617 Tatoeba pairs it takes about a minute on two
cores (fast_align-style IBM model 2 would be the fallback; it was not needed: eflomal builds from
PyPI with a C compiler and runs here). Its two one-directional link sets are combined with
grow-diag-final-and (``engine.studies.symmetrize``). Words are ``engine.studies.align_words``' words, lower-cased.

eflomal is an optional dependency (``pip install eflomal``, or the ``align`` extra): without it
:func:`aligner_problem` says so, and everything that only reads a stored alignment still works.
Its sampler is not seeded, so two runs link a few pairs differently.

A pair the corpus does not hold (the Compare tab's shared target, typically) is aligned on its own
with the corpus's priors — the counts of the links the aligner made over the whole corpus, given to
eflomal as Dirichlet priors (its documented way to align a small text with a big one's statistics).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from engine.corpus.corpus_read import Pair
from engine.files.paths import SHIPPED_ALIGNMENT
from engine.settings.errors import EngineError
from engine.studies.align_words import split_words, word_strings
from engine.studies.alignment_store import (
    AlignedPair,
    AlignmentFileError,
    CorpusAlignment,
    load_alignment,
    pair_key,
)
from engine.studies.symmetrize import Link, parse_links, symmetrize
from engine.text.normalization import normalize

ALIGNER_NAME = "eflomal"
SYMMETRIZATION = "grow-diag-final-and"
INSTALL_HINT = "pip install eflomal (it compiles a C program: a C compiler is needed)"


class AlignerError(EngineError):
    """The word aligner is missing or failed; says why."""


def aligner_problem() -> str:
    """Why the aligner cannot run here ("" when it can)."""
    try:
        import eflomal  # noqa: F401
    except ImportError:
        return f"the word aligner {ALIGNER_NAME} is not installed ({INSTALL_HINT})"
    return ""


def aligner_version() -> str:
    """'eflomal 2.0.0' (the version of the installed package)."""
    try:
        return f"{ALIGNER_NAME} {importlib.metadata.version(ALIGNER_NAME)}"
    except importlib.metadata.PackageNotFoundError:
        return ALIGNER_NAME


def _run(sources: Sequence[str], targets: Sequence[str], priors: list[str] | None
         ) -> tuple[list[frozenset[Link]], list[frozenset[Link]]]:
    """eflomal's forward and reverse links of every sentence pair (words joined by spaces)."""
    problem = aligner_problem()
    if problem:
        raise AlignerError(problem)
    from eflomal import Aligner

    with tempfile.TemporaryDirectory(prefix="attention-studio-align-") as folder:
        forward_path, reverse_path = Path(folder) / "forward", Path(folder) / "reverse"
        try:
            Aligner().align(list(sources), list(targets), links_filename_fwd=str(forward_path),
                            links_filename_rev=str(reverse_path), priors_input=priors, quiet=True)
            forward = forward_path.read_text(encoding="utf-8").splitlines()
            reverse = reverse_path.read_text(encoding="utf-8").splitlines()
        except (OSError, ValueError, RuntimeError) as error:  # the program failed or wrote nothing
            raise AlignerError(f"{ALIGNER_NAME} failed: {error}") from None
    if len(forward) != len(sources) or len(reverse) != len(sources):
        raise AlignerError(f"{ALIGNER_NAME} returned {len(forward)} and {len(reverse)} link lines for "
                           f"{len(sources)} sentence pairs")
    try:
        return [parse_links(line) for line in forward], [parse_links(line) for line in reverse]
    except ValueError as error:
        raise AlignerError(f"{ALIGNER_NAME} wrote links this version cannot read: {error}") from None


def _priors(sources: list[str], targets: list[str], forward: list[frozenset[Link]],
            reverse: list[frozenset[Link]]) -> dict[str, list]:
    """eflomal's priors (lexical, jump and fertility counts) from the corpus's own links."""
    from eflomal import calculate_priors

    def lines(links: list[frozenset[Link]]) -> list[str]:
        return [" ".join(f"{s}-{t}" for s, t in sorted(pair)) for pair in links]

    lex, hmm_forward, hmm_reverse, fertility_forward, fertility_reverse = calculate_priors(
        sources, targets, lines(forward), lines(reverse))
    return {"lex": [[s, t, n] for (s, t), n in sorted(lex.items())],
            "hmm_forward": [[jump, n] for jump, n in sorted(hmm_forward.items())],
            "hmm_reverse": [[jump, n] for jump, n in sorted(hmm_reverse.items())],
            "fertility_forward": [[w, f, n] for (w, f), n in sorted(fertility_forward.items())],
            "fertility_reverse": [[w, f, n] for (w, f), n in sorted(fertility_reverse.items())]}


def align_corpus(pairs: Sequence[Pair], source_language: str, target_language: str, corpus_name: str,
                 corpus_sha256: str) -> CorpusAlignment:
    """Align every pair of a corpus (both directions, then symmetrized when read) and keep the
    corpus's priors. Pairs without a word on one side are left out."""
    kept = [(p.source, p.target, word_strings(p.source, source_language), word_strings(p.target, target_language))
            for p in pairs]
    kept = [item for item in kept if item[2] and item[3]]
    if not kept:
        raise AlignerError("no sentence pair with words on both sides to align")
    sources, targets = [" ".join(item[2]) for item in kept], [" ".join(item[3]) for item in kept]
    started = time.monotonic()
    forward, reverse = _run(sources, targets, None)
    seconds = time.monotonic() - started
    aligned = {pair_key(source, target): AlignedPair.of(len(src_words), len(tgt_words), f, r)
               for (source, target, src_words, tgt_words), f, r in zip(kept, forward, reverse, strict=True)}
    return CorpusAlignment((source_language, target_language), aligner_version(), SYMMETRIZATION, corpus_name,
                           corpus_sha256, seconds, aligned, _priors(sources, targets, forward, reverse))


def _prior_lines(priors: dict[str, list]) -> list[str]:
    """The priors as the lines of eflomal's priors file (its ``write_priors`` format)."""
    return ([f"LEX\t{s}\t{t}\t{n:g}" for s, t, n in priors["lex"]]
            + [f"FERF\t{w}\t{f}\t{n:g}" for w, f, n in priors["fertility_forward"]]
            + [f"FERR\t{w}\t{f}\t{n:g}" for w, f, n in priors["fertility_reverse"]]
            + [f"HMMF\t{jump}\t{n:g}" for jump, n in priors["hmm_forward"]]
            + [f"HMMR\t{jump}\t{n:g}" for jump, n in priors["hmm_reverse"]])


def align_pair(alignment: CorpusAlignment, source: str, target: str, source_language: str,
               target_language: str) -> frozenset[Link]:
    """The links of one pair (normalized texts) as (source word, target word) indices: the stored
    ones when the corpus holds the pair, else eflomal's on this pair alone with the corpus's priors
    (about a second). Raises AlignerError when the aligner is needed and missing or fails."""
    stored = alignment.links(source, target, source_language, target_language)
    if stored is not None:
        return stored
    if {source_language, target_language} != set(alignment.languages):
        raise AlignerError(f"the alignment is of {'–'.join(alignment.languages)}, not "
                           f"{source_language}–{target_language}")
    flipped = (source_language, target_language) != alignment.languages
    first, second = (target, source) if flipped else (source, target)
    first_words, second_words = word_strings(first, alignment.languages[0]), word_strings(second, alignment.languages[1])
    if not first_words or not second_words:
        return frozenset()
    forward, reverse = _run([" ".join(first_words)], [" ".join(second_words)], _prior_lines(alignment.priors))
    links = symmetrize(forward[0], reverse[0], alignment.symmetrization)
    return frozenset((t, s) for s, t in links) if flipped else links


def file_sha256(path: Path) -> str:
    """sha256 of a file's bytes (the corpus an alignment was made from)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@functools.lru_cache(maxsize=2)
def _loaded(path: Path, modified: float) -> CorpusAlignment:
    return load_alignment(path)


def cached_alignment(path: Path = SHIPPED_ALIGNMENT) -> CorpusAlignment:
    """The alignment file ``path``, read once per process (again when the file changes)."""
    try:
        modified = Path(path).stat().st_mtime
    except OSError:
        raise AlignmentFileError(f"no alignment file at {path}") from None
    return _loaded(Path(path), modified)


@dataclass(frozen=True)
class AlignerMap:
    """The aligner's links for one sentence pair, ready to draw (the Compare tab's aligner map)."""

    source_words: tuple[str, ...]
    target_words: tuple[str, ...]
    links: frozenset[Link]  # (source word, target word)
    note: str  # where the links come from, or why there are none


def aligner_map(source: str, target: str, source_language: str, target_language: str,
                path: Path = SHIPPED_ALIGNMENT) -> AlignerMap:
    """The aligner's links between ``source`` and ``target`` (as typed: normalized here like the
    corpus): the stored ones when the corpus holds the pair, else eflomal's with the corpus's priors.
    Never raises for a missing or damaged file or aligner: the note says what is wrong."""
    source, target = normalize(source, source_language), normalize(target, target_language)
    words = (tuple(w.text for w in split_words(source, source_language)),
             tuple(w.text for w in split_words(target, target_language)))
    try:
        alignment = cached_alignment(path)
    except AlignmentFileError as error:
        return AlignerMap(*words, frozenset(), f"no aligner links: {error}")
    if {source_language, target_language} != set(alignment.languages):
        return AlignerMap(*words, frozenset(), f"the word aligner covers {'–'.join(alignment.languages)} only")
    stored = alignment.links(source, target, source_language, target_language)
    if stored is not None:
        return AlignerMap(*words, stored, f"a corpus pair: its links from {alignment.description}")
    try:
        links = align_pair(alignment, source, target, source_language, target_language)
    except (AlignerError, AlignmentFileError) as error:
        return AlignerMap(*words, frozenset(), f"no aligner links: {error}")
    return AlignerMap(*words, links, f"aligned alone by {aligner_version()} with the priors of {alignment.description}")
