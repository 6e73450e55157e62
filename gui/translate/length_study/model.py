"""What the length study view draws, gathered from the studies stored in the model folders.

Pure Python (no Qt): given one (scorer name, label, :class:`~engine.studies.length_study.LengthStudy` or
None) per scorer of a direction, :func:`gather` makes the plot series (x = bucket index, y = BLEU)
and, per bucket, the table rows: the example inputs joined by source text across the scorers, with
every scorer's output (``—`` where a scorer has no row for that source) and the reference.

The studies are read with :func:`read_studies` from the models' ``config.json`` only (no weights,
no decoding); this module is imported once the engine is loaded (it needs ``engine.studies.length_study``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from engine.settings import SCORER_NAMES, ScorerInfo, attends, scorer_row
from engine.studies import STUDY_BUCKETS, LengthStudy, study_bucket_label

if TYPE_CHECKING:
    from engine.models import ModelRecord
    from engine.studies import AlignmentStudy, AttributionStudy
    from gui.translate.choices import ScorerOption

BUCKET_LABELS: tuple[str, ...] = tuple(study_bucket_label(low, high) for low, high in STUDY_BUCKETS)
MISSING_OUTPUT = "—"
# Notes and column titles in English, declared for translation (the view shows them through
# QCoreApplication.translate("LengthStudyModel", …)).
NO_STUDY = QT_TRANSLATE_NOOP("LengthStudyModel", "no length study stored")
NO_MODEL = QT_TRANSLATE_NOOP("LengthStudyModel", "no model")


@dataclass(frozen=True)
class ScorerStudy:
    """One scorer of the direction and its stored study (None when there is none)."""

    name: str  # registry name, e.g. "additive": what it is shown by (its row, :attr:`row`)
    label: str  # the label it was gathered with: shown only for a name the registry does not hold
    study: LengthStudy | None
    note: str = ""  # why there is no study: NO_STUDY or NO_MODEL ("" when there is one)
    attention: dict | None = None  # metrics.test.attention of config.json: how it attends on the test split
    alignment: AlignmentStudy | None = None  # metrics.alignment: its attention against a word aligner
    alignment_note: str = ""  # why a stored alignment study is refused ("" when it reads, or there is none)
    record: ModelRecord | None = None  # the model's config.json, read once: how it was trained (engine.studies.training_budget)
    attribution: AttributionStudy | None = None  # metrics.attribution: does its output depend on where α falls
    attribution_note: str = ""  # why a stored attribution study is refused ("" when it reads, or there is none)

    @property
    def row(self) -> ScorerInfo:
        """Its registry row (engine.settings.scorer_row): the one thing its label is shown from."""
        return scorer_row(self.name, self.label)


@dataclass(frozen=True)
class Series:
    """One line of the plot: a scorer's BLEU per bucket (buckets it has no input in are left out)."""

    name: str
    label: str
    xs: tuple[int, ...]  # indices into BUCKET_LABELS
    bleu: tuple[float, ...]
    chrf: tuple[float, ...]
    counts: tuple[int, ...]  # inputs per bucket

    @property
    def row(self) -> ScorerInfo:
        """Its registry row (engine.settings.scorer_row): the one thing its label is shown from."""
        return scorer_row(self.name, self.label)

    @property
    def highlight(self) -> bool:
        """True for the fixed-context (no attention) line, drawn so that it stands out."""
        return not attends(self.name)

    def at(self, label: str) -> tuple[int, float, float] | None:
        """(n, BLEU, chrF) of the bucket ``label``, or None when the scorer has no input there."""
        if label not in BUCKET_LABELS or BUCKET_LABELS.index(label) not in self.xs:
            return None
        k = self.xs.index(BUCKET_LABELS.index(label))
        return self.counts[k], self.bleu[k], self.chrf[k]


@dataclass(frozen=True)
class TableRow:
    """One example input of a bucket, with every drawn scorer's output."""

    source: str
    reference: str
    source_length: int
    outputs: tuple[str, ...]  # in LengthStudyData.columns order; MISSING_OUTPUT where absent


@dataclass(frozen=True)
class LengthStudyData:
    """Everything the view shows for one direction."""

    scorers: tuple[ScorerStudy, ...]
    series: tuple[Series, ...] = field(default=())
    beam: int = 1  # the beam size of the studies drawn (1: greedy decoding)
    target_language: str = ""  # the outputs' language (how a looping output is found); "" when unknown

    @property
    def columns(self) -> tuple[ScorerInfo, ...]:
        """The registry rows of the scorers with a study: one output column each."""
        return tuple(s.row for s in self.series)

    def row_of(self, name: str) -> ScorerInfo:
        """The registry row of the scorer called ``name`` (the tables below name their scorers by it)."""
        return next((s.row for s in self.scorers if s.name == name), scorer_row(name))

    @property
    def missing(self) -> tuple[ScorerStudy, ...]:
        """Scorers drawn without a line, with the reason in their ``note``."""
        return tuple(s for s in self.scorers if s.study is None)

    @property
    def empty(self) -> bool:
        return not self.series

    def looping(self) -> tuple[tuple[str, float], ...]:
        """(scorer name, share of its outputs that loop) for the drawn scorers that measured it."""
        return tuple((s.name, s.study.looping_share) for s in self.scorers
                     if s.study is not None and s.study.looping_share is not None)

    @property
    def references_looping(self) -> float | None:
        """The share of the references that loop (the scorers share the long test set: the first
        study that measured it tells), None when none did."""
        return next((s.study.references_looping_share for s in self.scorers if s.study is not None
                     and s.study.references_looping_share is not None), None)

    def trained_like_fixed_context(self) -> tuple[ScorerStudy, ...]:
        """The drawn scorers trained like the fixed context C (all of them when they were all trained
        alike, or when C has no model here): the lines a lesson about attention may set against C."""
        from engine.settings import FIXED_CONTEXT
        from engine.studies import compared_with

        drawn = [s for s in self.scorers if s.study is not None]
        alike = set(compared_with({s.name: s.record for s in drawn}, FIXED_CONTEXT))
        return tuple(s for s in drawn if s.name in alike)

    def trained_alike_groups(self, names: Sequence[str]) -> list[tuple[str, ...]]:
        """``names`` (scorers of this direction) grouped by how they were trained (engine.studies.training_budget),
        in the order given: one group when they all were trained alike or some model's config is unknown.
        What the views compare scorer against scorer (the attention and alignment readings) is read
        within a group."""
        from engine.studies import groups_of

        return groups_of(names, {s.name: s.record for s in self.scorers})

    @property
    def budget_note(self) -> str:
        """A sentence naming how the drawn models were trained when they were not all trained alike
        (engine.studies.training_budget), "" when they were."""
        from engine.studies import budget_note

        drawn = {s.name: s.record for s in self.scorers if s.study is not None and s.record is not None}
        return budget_note(drawn, {s.name: s.row.label for s in self.scorers})

    def count(self, label: str) -> int:
        """Inputs in bucket ``label`` (the scorers share the long test set: the first one that has
        the bucket tells; 0 when none has)."""
        for series in self.series:
            if (scores := series.at(label)) is not None:
                return scores[0]
        return 0

    def buckets(self) -> tuple[str, ...]:
        """Labels of the buckets with at least one input in some scorer's study."""
        return tuple(label for label in BUCKET_LABELS if self.count(label))

    def rows(self, label: str) -> list[TableRow]:
        """The example inputs of bucket ``label``, joined by source text across the scorers, in
        the order the scorers list them."""
        studies = [s.study for s in self.scorers if s.study is not None]
        order: dict[str, tuple[str, int]] = {}
        for study in studies:
            for row in study.rows_in(label):
                order.setdefault(row.source, (row.reference, row.source_length))
        outputs = [{row.source: row.output for row in study.rows} for study in studies]
        return [TableRow(source, reference, length, tuple(by_source.get(source, MISSING_OUTPUT)
                                                          for by_source in outputs))
                for source, (reference, length) in order.items()]


def _scorer_rank(name: str) -> int:
    return SCORER_NAMES.index(name) if name in SCORER_NAMES else len(SCORER_NAMES)


def gather(items: Iterable[ScorerStudy | tuple[str, str, LengthStudy | None]], beam: int = 1,
           target_language: str = "") -> LengthStudyData:
    """The plot series and the scorer list, in the engine's scorer order (unknown names last), of
    studies decoded at ``beam`` into ``target_language``."""
    scorers = sorted((_scorer_study(item) for item in items), key=lambda s: _scorer_rank(s.name))
    return LengthStudyData(tuple(scorers), tuple(_series(s) for s in scorers if s.study is not None), beam,
                           target_language)


def _scorer_study(item: ScorerStudy | tuple[str, str, LengthStudy | None]) -> ScorerStudy:
    """``item`` as a ScorerStudy (a (name, label, study) triple without a study: NO_STUDY)."""
    if isinstance(item, ScorerStudy):
        return item
    name, label, study = item
    return ScorerStudy(name, label, study, "" if study is not None else NO_STUDY)


def _series(scorer: ScorerStudy) -> Series:
    """The plot series of ``scorer``'s study: its buckets of BUCKET_LABELS, in that order."""
    present = sorted(((BUCKET_LABELS.index(b.label), b) for b in scorer.study.buckets if b.label in BUCKET_LABELS),
                     key=lambda pair: pair[0])
    return Series(scorer.name, scorer.label, tuple(x for x, _ in present), tuple(b.bleu for _, b in present),
                  tuple(b.chrf for _, b in present), tuple(b.n for _, b in present))


def read_studies(options: Sequence[ScorerOption], beam: int = 1) -> list[ScorerStudy]:
    """The stored study of the model backing each scorer option (config.json only). A scorer
    without a model, or whose folder is unreadable or has no study, gets None with the reason."""
    from engine.models import read_model_record
    from engine.settings import EngineError
    from engine.studies import stored_length_study
    from gui.translate.length_study.alignment import stored_alignment
    from gui.translate.length_study.attribution import stored_attribution

    studies = []
    for option in options:
        if option.entry is None:
            studies.append(ScorerStudy(option.name, option.label, None, NO_MODEL))
            continue
        record: ModelRecord | None
        try:
            record = read_model_record(option.entry.folder)  # read once: the studies and the statistics come from it
            study = stored_length_study(dict(record.config), beam)
            attention = stored_attention_stats(dict(record.config))
        except (EngineError, OSError):
            study, attention, record = None, None, None
        alignment, refused = stored_alignment(None if record is None else dict(record.config))
        attribution, unread = stored_attribution(None if record is None else dict(record.config))
        studies.append(ScorerStudy(option.name, option.label, study, "" if study is not None else NO_STUDY,
                                   attention, alignment, refused, record, attribution, unread))
    return studies


def study_beams(options: Sequence[ScorerOption]) -> tuple[int, ...]:
    """The beam sizes at which some scorer option's model stored a study (config.json only),
    smallest first; an unreadable folder adds none."""
    from engine.models import read_config
    from engine.settings import EngineError
    from engine.studies import stored_study_beams

    beams: set[int] = set()
    for option in options:
        if option.entry is None:
            continue
        try:
            beams.update(stored_study_beams(read_config(option.entry.folder)))
        except (EngineError, OSError):
            continue
    return tuple(sorted(beams))


def beam_label(beam: int) -> str:
    """How a study's decoding is named: "greedy (beam 1)" or "beam search, beam 5"."""
    if beam == 1:
        return QCoreApplication.translate("LengthStudyModel", "greedy (beam 1)")
    return QCoreApplication.translate("LengthStudyModel", "beam search, beam %1").replace("%1", str(beam))


ATTENTION_COLUMNS = (("mean_entropy", QT_TRANSLATE_NOOP("LengthStudyModel", "entropy (nats)")),
                     ("mean_max_weight", QT_TRANSLATE_NOOP("LengthStudyModel", "max α")),
                     ("monotonic_share", QT_TRANSLATE_NOOP("LengthStudyModel", "monotonic")),
                     ("coverage_deviation", QT_TRANSLATE_NOOP("LengthStudyModel", "coverage dev.")))


def stored_attention_stats(info: dict) -> dict | None:
    """The corpus attention statistics stored with a model's test metrics, if any (numbers only)."""
    test = (info.get("metrics") or {}).get("test")
    stats = test.get("attention") if isinstance(test, dict) else None
    if not isinstance(stats, dict):
        return None
    return {key: float(stats[key]) for key, _ in ATTENTION_COLUMNS
            if isinstance(stats.get(key), int | float) and not isinstance(stats.get(key), bool)
            and math.isfinite(stats[key])}  # an Infinity or NaN in the file is no figure


def attention_table(data: LengthStudyData) -> list[tuple[str, list[str]]]:
    """(scorer name, its statistics as text) for the scorers that stored them; the fixed-C scorer
    says it has no attention."""
    rows = []
    for scorer in data.scorers:
        if not attends(scorer.name):
            rows.append((scorer.name, [QCoreApplication.translate("LengthStudyModel", "— (no attention: every step reads C)")]
                         + [""] * (len(ATTENTION_COLUMNS) - 1)))
        elif scorer.attention:
            rows.append((scorer.name, [f"{scorer.attention[key]:.2f}" if key in scorer.attention else "—"
                                        for key, _ in ATTENTION_COLUMNS]))
    return rows


def bucket_summary(data: LengthStudyData, label: str) -> list[tuple[str, int, float, float]]:
    """(scorer name, n, BLEU, chrF) of every drawn scorer in bucket ``label``."""
    summary = []
    for series in data.series:
        if (scores := series.at(label)) is not None:
            summary.append((series.name, *scores))
    return summary
