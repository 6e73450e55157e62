"""The job that loads a run's model as it was at an earlier step (engine.records.travel), for the Translate
and Compare controllers: a click on a training curve names a run folder and a step; this finds the
run's weights nearest that step (a validation snapshot, or its saved model) and loads them read-only."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from gui.common.catalog_jobs import LoadFailure

if TYPE_CHECKING:
    from engine.models.bundle import ModelBundle
    from engine.records.travel import WeightPoint


@dataclass(frozen=True)
class PastModel:
    """A run's model at one of its weight points."""

    bundle: ModelBundle
    point: WeightPoint
    run_name: str  # the run folder's name

    @property
    def direction(self) -> str:
        """'zh-en': the run's direction, as the model catalog names directions."""
        return f"{self.bundle.source_language}-{self.bundle.target_language}"

    @property
    def label(self) -> str:
        """'model at step 2,000 of zh-en-additive' (what the status line says)."""
        return f"{self.point.label} of {self.run_name}"


def past_items(folder: Path, step: float) -> Iterator[PastModel | LoadFailure]:
    """One item: the run ``folder``'s model at the weight point nearest ``step``, or why not."""
    from engine.records.travel import load_point, nearest_point, weight_points
    from engine.settings.errors import EngineError

    point = nearest_point(weight_points(folder), step)
    if point is None:
        yield LoadFailure(folder, "the run has no saved model and no weight snapshot yet (snapshots are kept when "
                                  "it trains with 'keep snapshots' above 0)")
        return
    try:
        yield PastModel(load_point(folder, point), point, Path(folder).name)
    except EngineError as error:
        yield LoadFailure(folder, str(error))
