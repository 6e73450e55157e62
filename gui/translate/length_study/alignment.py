"""The alignment study in the Length study's "How they attend" table: read, tabulated, read out.

Each model folder may store how its attention scores against a statistical word aligner
(``engine.studies.alignment_scores``: AER, precision and recall of its argmax links on the test split's
references). This module reads that study from a config.json (a damaged one is refused with the
reason, which the reading then names), makes the table's two extra cells, and writes the sentences
beside the table — which scorer aligns best, and whether aligning better goes with translating long
inputs better (``engine.studies.alignment_lesson``, from the same stored figures: either way).

Pure Python (no Qt); imported once the engine is loaded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from engine.settings import ATTENTION_SCORER_NAMES, EngineError
from engine.studies import AlignmentFigures, AlignmentStudy, alignment_reading, among, stored_alignment_study
from gui.i18n import fill
from gui.scorer_labels import scorer_label

if TYPE_CHECKING:
    from gui.translate.length_study.model import LengthStudyData, ScorerStudy

ALIGNMENT_COLUMNS = (("aer", QT_TRANSLATE_NOOP("LengthStudyModel", "AER vs aligner")),
                     ("precision_recall", QT_TRANSLATE_NOOP("LengthStudyModel", "precision / recall")))
LONG_INPUTS = "41+"  # the length study's aggregate of the longest inputs (else its longest shared bucket)
REFUSED = QT_TRANSLATE_NOOP("LengthStudyModel", "refused")


def stored_alignment(info: dict[str, Any] | None) -> tuple[AlignmentStudy | None, str]:
    """(the study stored in ``info``, "") — or (None, why it is refused); (None, "") when there is none."""
    if info is None:
        return None, ""
    try:
        return stored_alignment_study(info), ""
    except EngineError as error:
        return None, str(error)


def alignment_cells(scorer: ScorerStudy) -> list[str]:
    """The two cells of ``scorer``'s row: argmax AER, and precision / recall ("—" without a study)."""
    if scorer.alignment is not None:
        argmax = scorer.alignment.argmax
        return [f"{argmax.aer:.2f}", f"{argmax.precision:.2f} / {argmax.recall:.2f}"]
    return [QCoreApplication.translate("LengthStudyModel", REFUSED) if scorer.alignment_note else "—", ""]


def table_rows(data: LengthStudyData, rows: list[tuple[str, list[str]]], width: int
               ) -> list[tuple[str, list[str]]]:
    """The "How they attend" rows, (scorer name, cells) (``rows``: name → ``width`` statistics, as
    gui.translate.length_study.model.attention_table makes them) with each scorer's alignment cells after its
    statistics; a scorer with an alignment study but no statistics gets a row of dashes and its cells."""
    by_name = dict(rows)
    table = []
    for scorer in data.scorers:
        values = by_name.get(scorer.name)
        if scorer.name not in ATTENTION_SCORER_NAMES:
            if values is not None:
                table.append((scorer.name, values + [""] * len(ALIGNMENT_COLUMNS)))
        elif values is not None or scorer.alignment is not None or scorer.alignment_note:
            table.append((scorer.name, (values or ["—"] * width) + alignment_cells(scorer)))
    return table


def _long_bleu(data: LengthStudyData, studied: list[ScorerStudy]) -> tuple[str, dict[str, float]]:
    """(label, BLEU by scorer name) of the longest inputs every studied scorer has a score for: the
    41+ aggregate when all have it, else the longest bucket they share; ("41+", {}) when there is none."""
    for label in (LONG_INPUTS, *reversed(data.buckets())):
        scores = [s.study.bucket(label) if s.study is not None else None for s in studied]
        if all(score is not None for score in scores):
            return label, {s.name: score.bleu for s, score in zip(studied, scores, strict=True)}
    return LONG_INPUTS, {}


def _group_reading(data: LengthStudyData, group: list[ScorerStudy]) -> str:
    """engine.studies.alignment_lesson's reading of ``group`` (scorers trained alike); "" for fewer than two."""
    label, long_bleu = _long_bleu(data, group)
    return alignment_reading([AlignmentFigures(s.name, scorer_label(s.row), s.alignment.argmax.aer, s.alignment.argmax.precision,
                                               s.alignment.argmax.recall, long_bleu.get(s.name)) for s in group], label)


def alignment_text(data: LengthStudyData) -> str:
    """The reading of the stored alignment studies (what the aligner is, which scorer aligns best,
    and whether that goes with long-input BLEU), and a sentence per refused study; "" with none."""
    studied = [s for s in data.scorers if s.alignment is not None]
    sentences = _studied_sentences(data, studied) if studied else []
    sentences += [f"{scorer_label(s.row)}: {s.alignment_note}." for s in data.scorers if s.alignment_note]
    return " ".join(sentence for sentence in sentences if sentence)


def _studied_sentences(data: LengthStudyData, studied: list[ScorerStudy]) -> list[str]:
    """What the aligner is, then a reading per group of ``studied`` scorers trained alike (named when
    there are several groups: scorers not trained alike are not set against each other)."""
    first = studied[0].alignment
    sentences = [fill(QCoreApplication.translate(
        "AlignmentReading", "Against a word aligner (%1; %2 test pairs, each model fed the reference): AER 0 "
        "would be the aligner's links exactly, 1 none of them."), first.aligner, f"{first.sentences:,}")]
    by_name = {s.name: s for s in studied}
    groups = [[by_name[name] for name in group] for group in data.trained_alike_groups(list(by_name))]
    for group in groups:
        reading = _group_reading(data, group)
        sentences.append(among([scorer_label(s.row) for s in group]) + reading if reading and len(groups) > 1 else reading)
    return sentences
