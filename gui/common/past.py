"""The job that loads a run's model as it was at an earlier step (engine.records.travel), for the Translate
and Compare controllers: a click on a training curve names a run folder and a step; this finds the
run's weights nearest that step (a validation snapshot, or its saved model) and loads them read-only."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

from gui.common.catalog_jobs import LoadFailure

if TYPE_CHECKING:
    from engine.models import ModelBundle
    from engine.records import WeightPoint


@dataclass(frozen=True)
class PastModel:
    """A run's model at one of its weight points."""

    bundle: ModelBundle
    point: WeightPoint
    run_name: str  # the run folder's name
    asked: float | None = None  # the step clicked on the curve (None: the point's own)

    @property
    def direction(self) -> str:
        """'zh-en': the run's direction, as the model catalog names directions."""
        return f"{self.bundle.source_language}-{self.bundle.target_language}"

    @property
    def nearest_note(self) -> str:
        """' — the nearest kept to step 313' when the weights are not those of the step asked for, else ''."""
        if self.asked is None or round(self.asked) == self.point.step:
            return ""
        return QCoreApplication.translate("PastModel", " — the nearest kept to step %1").replace(
            "%1", f"{round(self.asked):,}")

    @property
    def label(self) -> str:
        """'model at step 2,000 of dates-additive', 'saved model (step 939) of dates-additive — the
        nearest kept to step 313' (what the badge over the map and the panel titles say)."""
        point = (QCoreApplication.translate("PastModel", "model at step %1") if self.point.kind == "snapshot"
                 else QCoreApplication.translate("PastModel", "saved model (step %1)")).replace("%1", f"{self.point.step:,}")
        return QCoreApplication.translate("PastModel", "%1 of %2").replace("%1", point).replace(
            "%2", self.run_name) + self.nearest_note


def past_items(folder: Path, step: float) -> Iterator[PastModel | LoadFailure]:
    """One item: the run ``folder``'s model at the weight point nearest ``step``, or why not."""
    from engine.records import load_point, nearest_point, weight_points
    from engine.settings import EngineError

    point = nearest_point(weight_points(folder), step)
    if point is None:
        yield LoadFailure(folder, QCoreApplication.translate(
            "PastModel", "the run has no saved model and no weight snapshot yet (snapshots are kept when it trains "
            "with 'keep snapshots' above 0)"))
        return
    try:
        yield PastModel(load_point(folder, point), point, Path(folder).name, step)
    except EngineError as error:
        yield LoadFailure(folder, str(error))
