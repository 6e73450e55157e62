"""Studies apart from the library: the length study, training budgets, attention against an aligner and
against attribution.

The room's public names, for the app: each is imported from the module that defines it only when first
asked for (importing the room loads nothing), so a window that never trains never loads the trainer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.lazy_facade import lazy_attributes

_PUBLIC = {
    "AlignerMap": "engine.studies.aligner",
    "AlignmentFigures": "engine.studies.alignment_lesson",
    "AlignmentStudy": "engine.studies.alignment_scores",
    "AttributionFigures": "engine.studies.attribution_lesson",
    "AttributionStudy": "engine.studies.attribution_scores",
    "LONG": "engine.studies.length_reading",
    "LengthLesson": "engine.studies.length_reading",
    "LengthStudy": "engine.studies.length_study",
    "SHORT": "engine.studies.length_reading",
    "STUDY_BUCKETS": "engine.studies.length_study",
    "aligner_map": "engine.studies.aligner",
    "alignment_reading": "engine.studies.alignment_lesson",
    "among": "engine.studies.training_budget",
    "attribution_reading": "engine.studies.attribution_lesson",
    "budget_note": "engine.studies.training_budget",
    "compared_with": "engine.studies.training_budget",
    "groups_of": "engine.studies.training_budget",
    "length_lesson": "engine.studies.length_reading",
    "short_budget_note": "engine.studies.training_budget",
    "stored_alignment_study": "engine.studies.alignment_scores",
    "stored_attribution_study": "engine.studies.attribution_scores",
    "stored_length_study": "engine.studies.length_study",
    "stored_study_beams": "engine.studies.length_study",
    "study_bucket_label": "engine.studies.length_study",
}
__all__ = [
    "AlignerMap",
    "AlignmentFigures",
    "AlignmentStudy",
    "AttributionFigures",
    "AttributionStudy",
    "LONG",
    "LengthLesson",
    "LengthStudy",
    "SHORT",
    "STUDY_BUCKETS",
    "aligner_map",
    "alignment_reading",
    "among",
    "attribution_reading",
    "budget_note",
    "compared_with",
    "groups_of",
    "length_lesson",
    "short_budget_note",
    "stored_alignment_study",
    "stored_attribution_study",
    "stored_length_study",
    "stored_study_beams",
    "study_bucket_label",
]


__getattr__ = lazy_attributes(globals(), _PUBLIC)


if TYPE_CHECKING:
    from engine.studies.aligner import AlignerMap, aligner_map
    from engine.studies.alignment_lesson import AlignmentFigures, alignment_reading
    from engine.studies.alignment_scores import AlignmentStudy, stored_alignment_study
    from engine.studies.attribution_lesson import AttributionFigures, attribution_reading
    from engine.studies.attribution_scores import AttributionStudy, stored_attribution_study
    from engine.studies.length_reading import LONG, SHORT, LengthLesson, length_lesson
    from engine.studies.length_study import (
        STUDY_BUCKETS,
        LengthStudy,
        stored_length_study,
        stored_study_beams,
        study_bucket_label,
    )
    from engine.studies.training_budget import among, budget_note, compared_with, groups_of, short_budget_note
