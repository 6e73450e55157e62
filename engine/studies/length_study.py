"""The length study: translation quality against source length, on the long test set.

Bahdanau et al. (2014, Fig. 2) plot BLEU against sentence length: the plain encoder–decoder, which
squeezes the source into one fixed vector C, collapses as sentences grow, while the model with
attention holds. This module measures the same curve for one model: it translates the long test
set (:func:`engine.corpus.concat.long_test_set`, test pairs joined 1–8 at a time), scores each
source-length bucket with sacrebleu, measures the share of outputs that loop (engine.decoding.repetition; the
references' share beside it), keeps a few example rows per bucket, and stores the result in
the model folder's ``config.json`` (``metrics.length_study.beam<N>``) so that the app draws the
curve without decoding anything.

Buckets are in source sub-word tokens: 1–10, 11–20, 21–30, 31–40, 41–60, 61+.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.corpus.corpus_read import Pair
from engine.decoding.repetition import looping_share
from engine.decoding.translator import Translator
from engine.evaluation.evaluate import corpus_scores
from engine.files.schema import Anything, Int, ListOf, Num, Obj, SchemaError, Str
from engine.models.config_file import read_config, update_config
from engine.settings.config import DecodeConfig

STUDY_BUCKETS: tuple[tuple[int, int | None], ...] = ((1, 10), (11, 20), (21, 30), (31, 40), (41, 60), (61, None))
# Wider groups scored as one as well: the "long inputs" of the targets (sources of 41 tokens or more).
STUDY_AGGREGATES: tuple[tuple[int, int | None], ...] = ((41, None),)
EXAMPLES_PER_BUCKET = 5  # rows kept per bucket for the app's bucket list


def study_bucket_label(low: int, high: int | None) -> str:
    """'11–20' style label; '61+' for the open-ended last bucket."""
    return f"{low}+" if high is None else f"{low}–{high}"


def study_bucket_of(length: int) -> str | None:
    """The label of the bucket a source of ``length`` sub-words falls in (None for 0)."""
    for low, high in STUDY_BUCKETS:
        if low <= length and (high is None or length <= high):
            return study_bucket_label(low, high)
    return None


@dataclass(frozen=True)
class BucketScore:
    """Corpus BLEU and chrF of one source-length bucket."""

    label: str
    n: int
    bleu: float
    chrf: float


@dataclass(frozen=True)
class StudyRow:
    """One long-test-set input with the model's output and the reference."""

    bucket: str
    source: str
    reference: str
    output: str
    source_length: int  # sub-word tokens


@dataclass(frozen=True)
class LengthStudy:
    """One model's length study at one beam size."""

    beam: int
    n: int  # inputs translated
    buckets: tuple[BucketScore, ...]  # in STUDY_BUCKETS order; empty buckets left out
    rows: tuple[StudyRow, ...]  # up to EXAMPLES_PER_BUCKET per bucket
    signature: str
    aggregates: tuple[BucketScore, ...] = ()  # STUDY_AGGREGATES, e.g. "41+", scored as one group
    looping_share: float | None = None  # share of the outputs that loop (None: a study stored before it was measured)
    references_looping_share: float | None = None  # the same measure on the references

    def bucket(self, label: str) -> BucketScore | None:
        """A bucket or an aggregate ("41+") by its label."""
        return next((b for b in self.buckets + self.aggregates if b.label == label), None)

    def rows_in(self, label: str) -> tuple[StudyRow, ...]:
        return tuple(row for row in self.rows if row.bucket == label)

    def to_json(self) -> dict[str, Any]:
        return {
            "beam": self.beam, "n": self.n, "signature": self.signature,
            "buckets": [_score_json(b) for b in self.buckets],
            "aggregates": [_score_json(b) for b in self.aggregates],
            "rows": [{"bucket": r.bucket, "source": r.source, "reference": r.reference, "output": r.output,
                      "source_length": r.source_length} for r in self.rows],
            **({} if self.looping_share is None else {"looping_share": round(self.looping_share, 4)}),
            **({} if self.references_looping_share is None else
               {"references_looping_share": round(self.references_looping_share, 4)}),
        }

    @staticmethod
    def from_json(data: Any) -> LengthStudy | None:
        """The study stored in config.json, or None when it is missing or damaged (never raises:
        a folder whose study is unreadable still translates; the app just has no curve for it)."""
        return None if data is None or study_problem(data) is not None else LengthStudy._build(data)

    @staticmethod
    def _build(data: dict[str, Any]) -> LengthStudy:
        buckets = tuple(_score_from_json(b) for b in data["buckets"])
        aggregates = tuple(_score_from_json(b) for b in data.get("aggregates", ()))
        rows = tuple(StudyRow(r["bucket"], r["source"], r["reference"], r["output"], r["source_length"])
                     for r in data.get("rows", ()))
        loops, references_loop = data.get("looping_share"), data.get("references_looping_share")
        return LengthStudy(data["beam"], data["n"], buckets, rows, data.get("signature", ""), aggregates,
                           None if loops is None else float(loops),
                           None if references_loop is None else float(references_loop))


_SCORE = Obj({"bucket": Str(max_length=32), "n": Int(low=0), "bleu": Num(0, 100), "chrf": Num(0, 100)},
             frozenset({"bucket", "n", "bleu", "chrf"}), extra=Anything())
_ROW = Obj({"bucket": Str(max_length=32), "source": Str(), "reference": Str(), "output": Str(),
            "source_length": Int(low=0)}, frozenset({"bucket", "source", "reference", "output", "source_length"}),
           extra=Anything())
STUDY_SCHEMA = Obj({"beam": Int(1, 1024), "n": Int(low=0), "signature": Str(max_length=1_000),
                    "buckets": ListOf(_SCORE, max_items=64), "aggregates": ListOf(_SCORE, max_items=64),
                    "rows": ListOf(_ROW, max_items=10_000), "looping_share": Num(0, 1),
                    "references_looping_share": Num(0, 1)}, frozenset({"beam", "n", "buckets"}), extra=Anything())


def study_problem(data: Any) -> str | None:
    """Why ``data`` is not a stored length study, in one line (None when it is one): it must fit
    STUDY_SCHEMA (every number finite, BLEU and chrF within 0–100) and agree with itself — no more
    inputs in the buckets than were translated, and every example row in one of its buckets."""
    try:
        STUDY_SCHEMA.check(data)
    except SchemaError as error:
        return str(error)
    if sum(bucket["n"] for bucket in data["buckets"]) > data["n"]:
        return f"its buckets hold more inputs than the {data['n']} it translated"
    labels = {bucket["bucket"] for bucket in data["buckets"]}
    stray = next((row["bucket"] for row in data.get("rows", ()) if row["bucket"] not in labels), None)
    return None if stray is None else f"an example row is in the bucket {stray[:32]!r}, which it does not score"


def _score_json(score: BucketScore) -> dict[str, Any]:
    return {"bucket": score.label, "n": score.n, "bleu": round(score.bleu, 2), "chrf": round(score.chrf, 2)}


def _score_from_json(data: Any) -> BucketScore:
    return BucketScore(data["bucket"], data["n"], float(data["bleu"]), float(data["chrf"]))


def _spread(indices: Sequence[int], count: int) -> list[int]:
    """``count`` members of ``indices`` spread evenly over it (all of them when there are fewer)."""
    if len(indices) <= count:
        return list(indices)
    step = len(indices) / count
    return [indices[int(k * step)] for k in range(count)]


def run_length_study(
    translator: Translator, pairs: Sequence[Pair], target_language: str, config: DecodeConfig = DecodeConfig(),
    examples_per_bucket: int = EXAMPLES_PER_BUCKET,
) -> LengthStudy:
    """Translate ``pairs`` (the long test set) and score every source-length bucket. Each input is
    decoded as one sequence, whatever its length (up to the 200-sub-word cap)."""
    translations = translator.translate_many([p.source for p in pairs], config)
    hypotheses = [t.text for t in translations]
    references = [p.target for p in pairs]
    lengths = [len(t.source_tokens) for t in translations]
    signature = ""

    def score(low: int, high: int | None) -> tuple[BucketScore, list[int]] | None:
        """The group of inputs of ``low``…``high`` source tokens, scored as one, and its members."""
        nonlocal signature
        members = [i for i, n in enumerate(lengths) if low <= n and (high is None or n <= high)]
        if not members:
            return None
        scores = corpus_scores([hypotheses[i] for i in members], [references[i] for i in members], target_language)
        signature = scores.signature
        return BucketScore(study_bucket_label(low, high), len(members), scores.bleu, scores.chrf), members

    buckets, rows, aggregates = [], [], []
    for low, high in STUDY_BUCKETS:
        scored = score(low, high)
        if scored is not None:
            bucket, members = scored
            buckets.append(bucket)
            rows += [StudyRow(bucket.label, pairs[i].source, references[i], hypotheses[i], lengths[i])
                     for i in _spread(members, examples_per_bucket)]
    aggregates = [scored[0] for low, high in STUDY_AGGREGATES if (scored := score(low, high)) is not None]
    return LengthStudy(config.beam_size, len(pairs), tuple(buckets), tuple(rows), signature, tuple(aggregates),
                       looping_share(hypotheses, target_language), looping_share(references, target_language))


def study_key(beam: int) -> str:
    """The key under which config.json stores the length study at ``beam``."""
    return f"beam{beam}"


def record_length_study(folder: Path, study: LengthStudy) -> None:
    """Store ``study`` in the model folder's config.json (``metrics.length_study.beam<N>``); the
    weights and tokenizers are not touched, so the folder's hashes stay valid."""
    info = read_config(folder)
    metrics = info.setdefault("metrics", {})
    stored = metrics.get("length_study")
    stored = stored if isinstance(stored, dict) else {}
    stored[study_key(study.beam)] = study.to_json()
    metrics["length_study"] = stored
    update_config(folder, info)


def _stored_studies(info: Any) -> dict[str, Any]:
    """config.json's ``metrics.length_study`` as stored ({} when it is absent or no object)."""
    metrics = info.get("metrics") if isinstance(info, dict) else None
    studies = metrics.get("length_study") if isinstance(metrics, dict) else None
    return studies if isinstance(studies, dict) else {}


def stored_length_study(info: dict[str, Any], beam: int = 1) -> LengthStudy | None:
    """The study at ``beam`` stored in a config.json (as read by engine.models.bundle.read_config), if any."""
    data = _stored_studies(info).get(study_key(beam))
    return None if data is None else LengthStudy.from_json(data)


def stored_study_beams(info: dict[str, Any]) -> tuple[int, ...]:
    """The beam sizes at which a config.json (as read by engine.models.bundle.read_config) holds a readable
    study, smallest first (a damaged study is left out, as :func:`stored_length_study` refuses it)."""
    beams = {study.beam for key, data in _stored_studies(info).items()
             if (study := LengthStudy.from_json(data)) is not None and key == study_key(study.beam)}
    return tuple(sorted(beams))


def read_length_study(folder: Path, beam: int = 1) -> LengthStudy | None:
    """The study at ``beam`` stored in the model folder ``folder`` (config.json only: no decoding)."""
    return stored_length_study(read_config(folder), beam)


def format_study(study: LengthStudy) -> str:
    """A text table: one line per bucket with n, BLEU and chrF."""
    lines = [f"{'source sub-words':>16}  {'n':>5}  {'BLEU':>6}  {'chrF':>6}"]
    lines += [f"{b.label:>16}  {b.n:>5}  {b.bleu:6.2f}  {b.chrf:6.2f}" for b in study.buckets + study.aggregates]
    if study.looping_share is not None:
        references = "" if study.references_looping_share is None else \
            f" (references {study.references_looping_share:.1%})"
        lines.append(f"looping outputs {study.looping_share:.1%}{references}")
    return "\n".join(lines)
