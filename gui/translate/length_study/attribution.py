"""The attribution study in the Length study's "How they attend" table: read, tabulated, read out.

Each model folder may store whether the model's output depends on the source pieces its attention falls on
(``engine.studies.attribution_scores``, written by scripts/attribution_report.py): how often the piece with the
largest α is the one whose occlusion lowers log p(y_i) most (beside chance, 1/S), the mean Spearman ρ between
α and |IG|, and the share of steps whose token changes when α is shuffled within its row (Jain & Wallace 2019).
This module reads that study from a config.json (a damaged one is refused with the reason, which the reading
then names), makes the three cells of each scorer's row (a second table under the statistics and the alignment
figures: as extra columns the table ran wider than the window and hid the reading), and writes the sentences
beside the table
(``engine.studies.attribution_lesson``, from the same stored figures).

Pure Python (no Qt widgets); imported once the engine is loaded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from engine.settings import ATTENTION_SCORER_NAMES, EngineError
from engine.studies import AttributionFigures, AttributionStudy, attribution_reading, stored_attribution_study
from gui.i18n import fill
from gui.scorer_labels import scorer_label
from gui.translate.length_study.alignment import REFUSED

if TYPE_CHECKING:
    from gui.translate.length_study.model import LengthStudyData, ScorerStudy

ATTRIBUTION_COLUMNS = (("agree", QT_TRANSLATE_NOOP("LengthStudyModel", "top α = top occlusion (chance)")),
                       ("rho", QT_TRANSLATE_NOOP("LengthStudyModel", "ρ(α, |IG|)")),
                       ("changed", QT_TRANSLATE_NOOP("LengthStudyModel", "changed when α shuffled")))
ATTRIBUTION_TIP = QT_TRANSLATE_NOOP(
    "LengthStudyModel",
    "Attribution study (a sample of the test split, greedy): top α = top occlusion: the share of steps whose "
    "most-attended source piece is the one whose removal lowers the output token's log-probability most, beside "
    "chance (1 / the number of source pieces); ρ(α, |IG|): the mean Spearman rank correlation between a step's "
    "attention and the size of its integrated gradients; changed when α shuffled: the share of steps whose output "
    "token changes when α is randomly permuted within its row (Jain & Wallace 2019).")
NO_STUDY_TIP = QT_TRANSLATE_NOOP("LengthStudyModel", "— : no attribution study stored for %1 "
                                 "(scripts/attribution_report.py measures it).")
REFUSED_TIP = QT_TRANSLATE_NOOP("LengthStudyModel", "refused: %1.")


def _tr(text: str) -> str:
    return QCoreApplication.translate("LengthStudyModel", text)


def stored_attribution(info: dict[str, Any] | None) -> tuple[AttributionStudy | None, str]:
    """(the study stored in ``info``, "") — or (None, why it is refused); (None, "") when there is none."""
    if info is None:
        return None, ""
    try:
        return stored_attribution_study(info), ""
    except EngineError as error:
        return None, str(error)


def attribution_cells(scorer: ScorerStudy) -> list[str]:
    """The three cells of ``scorer``'s row: top-α agreement with occlusion (chance), mean ρ, the share of
    tokens changed by shuffling α; "—" without a study, "refused" for a damaged one, blank without α."""
    study = scorer.attribution
    if study is None:
        return [_tr(REFUSED), "", ""] if scorer.attribution_note else ["—"] * len(ATTRIBUTION_COLUMNS)
    agree, rho, changed = study.figure("agree"), study.figure("rho"), study.figure("changed")
    return ["" if agree is None else f"{agree:.0%} ({study.chance_agreement:.0%})",
            "" if rho is None else f"{rho:.2f}", "" if changed is None else f"{changed:.0%}"]


def attribution_rows(data: LengthStudyData, shown: list[str]) -> list[tuple[str, list[str]]]:
    """The attribution rows under the "How they attend" table, (scorer name, cells): a row for each scorer whose
    name is in ``shown`` (the rows of that table) and for each attention scorer with an attribution study (or a refused
    one); a model without α (the fixed C: every cell blank) gets none — the reading gives its source share."""
    table = []
    for scorer in data.scorers:
        studied = scorer.attribution is not None or bool(scorer.attribution_note)
        wanted = scorer.name in shown or (scorer.name in ATTENTION_SCORER_NAMES and studied)
        if wanted and any(cells := attribution_cells(scorer)):
            table.append((scorer.name, cells))
    return table


def attribution_tooltip(data: LengthStudyData, shown: list[str]) -> str:
    """What the attribution columns mean, and which of the ``shown`` rows' models (by name) have no study (or a
    refused one)."""
    lines = [_tr(ATTRIBUTION_TIP)]
    rows = [s for s in data.scorers if s.name in shown]
    if missing := [scorer_label(s.row) for s in rows if s.attribution is None and not s.attribution_note]:
        lines.append(fill(_tr(NO_STUDY_TIP), ", ".join(missing)))
    lines += [fill(_tr(REFUSED_TIP), f"{scorer_label(s.row)}: {s.attribution_note}") for s in rows
              if s.attribution_note]
    return "\n".join(lines)


def attribution_text(data: LengthStudyData) -> str:
    """The reading of the stored attribution studies (what was measured, then engine.studies.attribution_lesson's
    sentences on these models), and a sentence per refused study; "" with none."""
    studied = [s for s in data.scorers if s.attribution is not None]
    sentences = []
    if studied:
        first = studied[0].attribution
        sentences.append(fill(QCoreApplication.translate(
            "AttributionReading", "Is attention the explanation? (%1 test sentences, %2 integrated-gradient steps, "
            "α shuffled %3 times per step): does the output depend on the source pieces α falls on?"),
            f"{first.sentences:,}", first.ig_steps, first.draws))
        sentences.append(attribution_reading([AttributionFigures(
            s.name, scorer_label(s.row), s.attribution.figure("agree"), s.attribution.chance_agreement,
            s.attribution.figure("rho"), s.attribution.figure("changed"), s.attribution.figure("tvd"),
            s.attribution.figure("share")) for s in studied]))
    sentences += [f"{scorer_label(s.row)}: {s.attribution_note}." for s in data.scorers if s.attribution_note]
    return " ".join(sentence for sentence in sentences if sentence)
