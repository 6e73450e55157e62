"""The Translate tab's beam tree: the current run's levels of the search, the pane under the map that shows
them (built on first use), redrawn at most ten times a second while a search runs, its footer,
and a node chosen (its hypothesis shown) or picked (the search continued from it).

Once a search has ended, the node of the output shown is outlined; the footer names the current
node's hypothesis in words (“My sister likes …”), its log p and score, under the search's state."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QCoreApplication, QObject

from gui.attention.labels import join_pieces, quoted
from gui.attention.throttle import FrameThrottle
from gui.i18n import fill

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from engine.decoding import DecodeStep
    from gui.translate.beam_dialog import BeamTreeDialog
    from gui.translate.whatif_state import WhatIf

TREE_FRAME_SECONDS = 0.1  # the beam tree's redraws while a search runs: at most ten a second


class OutputLine(Protocol):
    """The output line (gui/translate/tokens.py): a chosen node's hypothesis is shown there."""

    def set_pieces(self, pieces: Sequence[str]) -> None: ...


class HypothesisMap(Protocol):
    """What the beam tree reads and drives of the attention panel."""

    def target_tokens(self) -> list[str]: ...
    def show_hypothesis(self, step: DecodeStep) -> None: ...


class WhatIfDecoder(Protocol):
    """The tab's what-if (gui/translate/steering.py): the change in force, and a decode again under another."""

    @property
    def whatif(self) -> WhatIf: ...
    def redecode(self, whatif: WhatIf) -> None: ...


@dataclass(frozen=True)
class BeamTreeParts:
    """What the beam tree drives and reads of the Translate tab."""

    dock: Callable[[QWidget], None]  # places the pane under the map
    output: OutputLine
    panel: HypothesisMap
    running: Callable[[], bool]  # a search under way
    beam: Callable[[], int]  # the current run's beam (the Beam box's before any run)
    steering: WhatIfDecoder


class BeamTreeFollower:
    """Keeps ``levels`` (the current run's beam search, step by step) and shows them in ``dialog``;
    ``parent`` owns its redraw timer."""

    def __init__(self, parts: BeamTreeParts, parent: QObject | None = None) -> None:
        self.parts = parts
        self.dialog: BeamTreeDialog | None = None  # built on first use
        self.levels: list[tuple[int, tuple]] = []
        self._shown = 0  # how many of them the open tree holds
        # The tree grows a column per step: ten redraws a second are enough to follow it, and the
        # output line keeps its own ~30.
        self._throttle = FrameThrottle(self._draw, parent, frame_seconds=TREE_FRAME_SECONDS)

    def _visible(self) -> bool:
        return self.dialog is not None and self.dialog.isVisible()

    # -- the run ----------------------------------------------------------------------------
    def run_started(self) -> None:
        self.levels = []
        self._throttle.cancel()
        self._shown = 0
        if self.dialog is not None:
            self.dialog.show_levels([])
            self.update_footer()

    def step(self, step: DecodeStep) -> None:
        if step.beam_level:
            self.levels.append((step.index, step.beam_level))
            if self._visible():
                self._throttle.request()

    def run_finished(self) -> None:
        self._throttle.flush()  # the tree's last steps, now rather than a frame later
        if self._visible():
            self.dialog.tree.fit()

    def run_ended(self) -> None:
        self._throttle.flush()
        self._outline_output()
        self.update_footer()

    def _draw(self) -> None:
        """The levels that arrived since the tree was last drawn."""
        if self._visible() and self._shown < len(self.levels):
            self.dialog.tree.add_levels(self.levels[self._shown :])
            self._shown = len(self.levels)
            self.update_footer()

    # -- the dialog -------------------------------------------------------------------------
    def open(self) -> BeamTreeDialog:
        """Show the beam tree of the current run in its pane under the map."""
        from gui.translate.beam_dialog import BeamTreeDialog

        if self.dialog is None:
            self.dialog = BeamTreeDialog()
            self.parts.dock(self.dialog)  # under the map, never over it
            self.dialog.tree.nodeChosen.connect(self._on_node_chosen)
            self.dialog.tree.nodePicked.connect(self._on_node_picked)
        self._throttle.cancel()
        self.dialog.show_levels(self.levels)
        self._shown = len(self.levels)
        self._outline_output()
        self.update_footer()
        self.dialog.show()
        self.dialog.raise_()
        return self.dialog

    def update_footer(self) -> None:
        """The footer: the current run's beam (the Beam box's before any run), searching or done, how
        far, and how many tokens a picked hypothesis fixed."""
        if self.dialog is None:
            return
        from gui.translate.beam_dialog import tree_footer  # imported with the dialog, on first use

        running = self.parts.running()
        finished = 0 if running else sum(node.status == "finished" for _, level in self.levels for node in level)
        fixed = len(self.parts.steering.whatif.prefix_ids or ())
        state = tree_footer(self.parts.beam(), running, len(self.levels), finished, fixed)
        current = self.dialog.tree.current
        self.dialog.status.setText(state + ("\n" + self.node_text(current.node) if current is not None else ""))

    def _outline_output(self) -> None:
        """Outline the node of the output shown (the search's result), once the search has ended."""
        if self.dialog is None or self.parts.running() or not self.levels:
            return
        tree = self.dialog.tree
        if tree.current is not None:
            return  # a node the learner chose stays chosen
        output = _output_item(tree.levels, tuple(self.parts.panel.target_tokens()))
        if output is not None:
            tree.mark(output)

    def node_text(self, node) -> str:
        """What the footer says of a node: its hypothesis in words, and its scores or its fate."""
        if node.step is not None:
            tokens = tuple(node.step.hypothesis_tokens)
        else:  # pruned: its parent's hypothesis and its own token
            parent = self.dialog.tree.items_by_ids.get(tuple(node.ids[:-1])) if self.dialog is not None else None
            before = parent.node.step.hypothesis_tokens if parent is not None and parent.node.step is not None else ()
            tokens = (*before, node.token)
        text = f"“{join_pieces(tokens)[0]}”"
        if node.step is None:
            return fill(QCoreApplication.translate(
                "BeamTreeFollower", "%1 was pruned at %2: the beam was full of better hypotheses (log p %3)."),
                text, quoted(node.token), f"{node.log_probability:.3f}")
        status = {"kept": QCoreApplication.translate("BeamTreeFollower", "kept"),
                  "finished": QCoreApplication.translate("BeamTreeFollower", "finished")}.get(node.status, node.status)
        return fill(QCoreApplication.translate("BeamTreeFollower", "%1 — %2 tokens, log p %3, score %4 (%5)."),
                    text, len(node.ids), f"{node.log_probability:.3f}", f"{node.score:.3f}", status)

    def _on_node_chosen(self, node) -> None:
        if node.step is not None:
            self.parts.output.set_pieces(node.step.hypothesis_tokens)
            self.parts.panel.show_hypothesis(node.step)
        self.update_footer()

    def _on_node_picked(self, node) -> None:
        if node.status == "kept":  # continue the search from this live hypothesis
            steering = self.parts.steering
            steering.redecode(dataclasses.replace(steering.whatif, prefix_text="", prefix_ids=tuple(node.ids)))


def _output_item(levels, shown: tuple[str, ...]):
    """The tree's item of the output ``shown``: the finished hypothesis that spells it, else the best-scored
    finished one (None when none finished)."""
    finished = [item for level in levels for item in level if item.node.status == "finished"]
    output = next((item for item in finished
                   if item.node.step is not None and tuple(item.node.step.hypothesis_tokens) == shown), None)
    return output or max(finished, key=lambda item: item.node.score, default=None)
