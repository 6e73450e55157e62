"""What the Compare tab's helpers see of it: :class:`CompareParts` is the ``ExportParts`` of its exports
(gui/compare/tab_exports.py) and the ``ExplainParts`` of its attributions (gui/compare/explain_link.py),
read from the pieces CompareTab hands in — its controller, its panels, a few of its widgets and two of its
methods — never from the tab itself."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from PySide6.QtGui import QFont
    from PySide6.QtWidgets import QLineEdit

    from gui.attention.view_bar import MapViewBar
    from gui.compare.controller import CompareController
    from gui.compare.panel import PanelScheduler, ScorerPanel


class CompareParts:
    """The Compare tab's parts its exports and attributions drive."""

    def __init__(self, controller: CompareController, panels: Callable[[], Mapping[str, ScorerPanel]],
                 sentence: QLineEdit, reference: QLineEdit, target: Callable[[], str], scheduler: PanelScheduler,
                 view_bar: MapViewBar, say: Callable[[str], None], font: Callable[[], QFont]) -> None:
        self.controller, self.panels, self.sentence, self.reference = controller, panels, sentence, reference
        self.target, self.scheduler, self.view_bar, self.say, self.figure_font = target, scheduler, view_bar, say, font

    def scorer_panels(self) -> Mapping[str, ScorerPanel]:
        return self.panels()

    def run_sentence(self) -> str | None:
        """The sentence of the run on screen; None before the first."""
        return self.controller.run.text if self.controller.run else None

    def shown_sentence(self) -> str:
        """The run's sentence, else the one typed."""
        run = self.run_sentence()
        return run if run is not None else self.sentence.text()

    def reference_text(self) -> str:
        return self.reference.text()

    def target_choice(self) -> str:
        return self.target()

    def flush_maps(self) -> None:
        self.scheduler.flush()

    def set_status(self, text: str) -> None:
        self.say(text)

    def font(self) -> QFont:
        return self.figure_font()

    def translator_of(self, scorer: str) -> object | None:
        bundle = self.controller.bundles.get(scorer)
        return bundle.translator if bundle is not None else None

    def start_job(self, work: Callable[[], Iterator], name: str) -> Any:
        return self.controller.jobs.start(work, name)

    def map_scale(self) -> str:
        return self.view_bar.scale_name()
