"""What the Compare view decides, without widgets or torch (Qt only translates its texts): which model backs each scorer's panel,
which target the maps share, what a panel's numbers are, and the difference of two maps.

Two ways to compare (the target choice):

- **Each scorer's own output** — every model decodes freely; the maps have different rows (each
  its own output), so they can be looked at side by side but not subtracted.
- **One shared target** — the reference, or one scorer's output, is *forced* on every model
  (engine.decoding.forced): every map then has the same rows and columns, and the difference
  α_A − α_B of any two attention scorers is defined cell by cell.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QCoreApplication

from engine.settings import ATTENTION_SCORER_NAMES, SCORER_TABLE, ScorerInfo  # torch-free
from gui.attention.head_rows import stacked_heads
from gui.common.directions import label_of_direction
from gui.scorer_labels import scorer_formula, scorer_label

if TYPE_CHECKING:
    from engine.decoding import DecodeStep, ForcedDecode, Translation
    from engine.records import ModelEntry

ATTENTION_SCORERS = ATTENTION_SCORER_NAMES
OWN_OUTPUTS = "own"  # target choice: each scorer decodes freely
REFERENCE = "reference"  # target choice: the reference forced on every model
MAX_EXPONENT = 700.0  # exp() of more overflows a float: a perplexity that large is shown as ~1e304
OUTPUT_PREFIX = "output:"  # target choice "output:<scorer>": that scorer's output forced on every model


@dataclass(frozen=True)
class PanelSlot:
    """One scorer's place in the grid: the model that backs it, or why there is none."""

    row: ScorerInfo  # the scorer's registry row: its name, label and formulas
    entry: ModelEntry | None
    reason: str = ""  # why the panel is disabled ("" when a model backs it)
    past: str = ""  # a run's earlier weights back it instead: 'model at step 2,000 of …' (gui.common.past)

    @property
    def usable(self) -> bool:
        return self.entry is not None or bool(self.past)

    @property
    def scorer(self) -> str:
        """The registry name, e.g. "additive": the panel's key."""
        return self.row.name

    @property
    def label(self) -> str:
        """The scorer's label in the interface's language (asked again after a language change)."""
        return scorer_label(self.row)

    @property
    def formula(self) -> str:
        """The scorer's whole formula (its panel's title has it in brief)."""
        return scorer_formula(self.row.formula)


def training_note(slots: Sequence[PanelSlot]) -> tuple[str, str]:
    """(a status line's few words, the whole sentence) naming how the panels' models were trained when
    they were not all trained alike (engine.studies.training_budget); ("", "") when they were. Reads each
    model's config.json; a panel backed by a run's earlier weights, or an unreadable folder, is left out."""
    from engine.models import read_model_record
    from engine.settings import EngineError
    from engine.studies import budget_note, short_budget_note

    infos = {}
    for slot in slots:
        if slot.entry is None or slot.past:
            continue
        try:
            infos[slot.scorer] = read_model_record(slot.entry.folder)
        except (EngineError, OSError):
            continue
    labels = {slot.scorer: slot.label for slot in slots}
    return short_budget_note(infos, labels), budget_note(infos, labels)


def plan_slots(entries: Sequence[ModelEntry], direction: str) -> list[PanelSlot]:
    """One slot per row of the scorer registry (engine.settings.SCORER_TABLE, in its order, as it is now) for
    ``direction``: the newest model the user trained for it, else the shipped one; a scorer without a model
    gets a disabled slot saying so."""
    slots = []
    for row in SCORER_TABLE.values():
        matching = [e for e in entries if e.direction == direction and e.scorer == row.name]
        entry = max(matching, key=lambda e: (not e.shipped, e.modified)) if matching else None
        slots.append(PanelSlot(row, entry, "" if entry else missing_model(scorer_label(row), direction)))
    return slots


def missing_model(label: str, direction: str) -> str:
    """Why a scorer's panel is disabled: no model of ``direction`` with the scorer called ``label``."""
    return QCoreApplication.translate("CompareModel", "no %1 model for %2: train one in the Train tab").replace(
        "%1", label).replace("%2", label_of_direction(direction))


def panel_title(slot: PanelSlot) -> str:
    """A panel's title: the scorer's label, the run its earlier weights come from (read-only), the
    formula in brief (rich text)."""
    past = ""
    if slot.past:
        past = " · <i>" + QCoreApplication.translate("ScorerPanel", "%1 (read-only)").replace("%1", html.escape(slot.past)) + "</i>"
    return f"<b>{slot.label}</b>{past}<br><span>{scorer_formula(slot.row.formula_in_brief)}</span>"  # the whole in the tooltip


def target_choices(slots: Sequence[PanelSlot], has_reference: bool) -> list[tuple[str, str]]:
    """(key, menu text) of the targets the maps can share, in menu order."""
    choices = [(OWN_OUTPUTS, QCoreApplication.translate("CompareModel", "Each scorer's own output"))]
    if has_reference:
        choices.append((REFERENCE, QCoreApplication.translate("CompareModel", "The reference, forced on every model")))
    forced = QCoreApplication.translate("CompareModel", "The %1 output, forced on every model")
    choices += [(OUTPUT_PREFIX + s.scorer, forced.replace("%1", s.label)) for s in slots if s.usable]
    return choices


def forced_target(choice: str, reference: str, outputs: dict[str, str]) -> str | None:
    """The text every model is given for ``choice``; None for free decoding or a missing output."""
    if choice == REFERENCE:
        return reference.strip() or None
    if choice.startswith(OUTPUT_PREFIX):
        return outputs.get(choice[len(OUTPUT_PREFIX):])
    return None


def attention_difference(first: np.ndarray | None, second: np.ndarray | None) -> np.ndarray:
    """α_A − α_B, cell by cell; both maps must have the same rows and columns (a shared target)."""
    if first is None or second is None:
        raise ValueError("the fixed-context scorer has no attention map to subtract")
    if first.shape != second.shape:
        raise ValueError(f"the maps differ in shape ({first.shape[0]}×{first.shape[1]} against "
                         f"{second.shape[0]}×{second.shape[1]}): force one target on every model first")
    return np.asarray(first, dtype=np.float64) - np.asarray(second, dtype=np.float64)


@dataclass(frozen=True)
class PanelNumbers:
    """What a panel writes under its map.

    Each figure says what it scores. The log-probability, length and attention figures are those of
    the rows the map shows: the scorer's own output, or — ``forced`` — the shared target forced on
    the model, then with its log p per token and perplexity, the forced text's figures of fit. BLEU
    and chrF always score the scorer's own (free) output against the reference; under a forced
    target they are labelled so, since the text shown is not the one they score."""

    log_probability: float
    length: int  # output tokens, the end-of-sentence token included
    mean_entropy: float | None  # None for the fixed-context scorer
    mean_max_weight: float | None
    bleu: float | None = None  # sentence BLEU / chrF of the scorer's own output against the reference
    chrf: float | None = None
    forced: bool = False  # the figures before BLEU are the forced target's

    @property
    def per_token(self) -> float:
        """The mean log-probability per token (the end-of-sentence token included)."""
        return self.log_probability / max(self.length, 1)

    @property
    def perplexity(self) -> float:
        """exp(−log p / tokens): how many equally likely tokens the model hesitated between, on average."""
        return math.exp(min(-self.per_token, MAX_EXPONENT))

    def text(self) -> str:
        tokens = QCoreApplication.translate("CompareModel", "%1 tokens").replace("%1", str(self.length))
        if self.forced:
            parts = [QCoreApplication.translate("CompareModel", "forced text: log p %1 (%2 per token)").replace(
                         "%1", f"{self.log_probability:.2f}").replace("%2", f"{self.per_token:.2f}"),
                     QCoreApplication.translate("CompareModel", "perplexity %1").replace("%1", f"{self.perplexity:.1f}"), tokens]
        else:
            parts = [f"log p {self.log_probability:.2f}", tokens]
        if self.mean_entropy is not None:
            parts += [QCoreApplication.translate("CompareModel", "entropy %1 nats").replace("%1", f"{self.mean_entropy:.2f}"),
                      QCoreApplication.translate("CompareModel", "max α %1").replace("%1", f"{self.mean_max_weight:.2f}")]
        if self.bleu is not None:
            parts.append(QCoreApplication.translate("CompareModel", "own output's BLEU %1, chrF %2").replace("%1", f"{self.bleu:.1f}").replace(
                "%2", f"{self.chrf:.1f}") if self.forced else f"BLEU {self.bleu:.1f} · chrF {self.chrf:.1f}")
        return " · ".join(parts)

    def tooltip(self) -> str:
        """What each figure scores, for the numbers' tooltip."""
        lines = [QCoreApplication.translate("CompareModel", "log p, tokens, entropy and max α: the target forced on this model (the text shown).")
                 if self.forced else QCoreApplication.translate("CompareModel", "log p, tokens, entropy and max α: this scorer's own output.")]
        if self.forced:
            lines.append(QCoreApplication.translate("CompareModel", "Per token: log p ÷ tokens (</s> included); perplexity: exp(−log p per token)."))
        if self.bleu is not None:
            lines.append(QCoreApplication.translate("CompareModel", "BLEU and chrF: this scorer's own output against the reference (not the "
                            "forced text shown).") if self.forced
                         else QCoreApplication.translate("CompareModel", "BLEU and chrF: this scorer's own output against the reference."))
        return "\n".join(lines)


@dataclass(frozen=True)
class StepDetail:
    """What the step inspector shows for one output step i of one panel."""

    index: int
    token: str
    probability: float | None  # p(y_i | y_<i, x); None while a streamed step's is not known
    weights: np.ndarray | None  # (S,) α_i; None for the fixed-context scorer
    scores: np.ndarray | None  # (S,) raw e_ij
    step: DecodeStep | None = None  # free decoding: the step itself (its top-k candidates)


@dataclass(frozen=True)
class PanelRows:
    """The rows a panel's map shows, with what each step computed (for the step inspector).

    Free decoding keeps the decode's steps (probability, e_ij, top-k candidates); a forced target
    keeps its per-step probabilities and e_ij (engine.decoding.forced)."""

    tokens: tuple[str, ...] = ()
    attention: np.ndarray | None = None  # T×S α; None for the fixed-context scorer
    scores: np.ndarray | None = None  # T×S e_ij
    probabilities: tuple[float, ...] = ()  # (T,) p of each token
    steps: tuple[DecodeStep, ...] = ()  # free decoding only
    head_attention: np.ndarray | None = None  # T×H×S each head's α (``attention`` is their mean); multi-head only

    @classmethod
    def from_steps(cls, steps: Sequence[DecodeStep], attention: np.ndarray | None) -> PanelRows:
        """The rows of a decode under way (its steps so far) or finished."""
        return cls(tuple(s.token for s in steps), attention, None, tuple(s.probability for s in steps), tuple(steps),
                   stacked_heads([s.head_attention for s in steps]))

    @classmethod
    def from_translation(cls, translation: Translation) -> PanelRows:
        if len(translation.steps) == len(translation.tokens):
            rows = cls.from_steps(translation.steps, translation.attention)
            return PanelRows(tuple(translation.tokens), rows.attention, translation.scores, rows.probabilities,
                             rows.steps, rows.head_attention)
        return cls(tuple(translation.tokens), translation.attention, translation.scores)

    @classmethod
    def from_forced(cls, forced: ForcedDecode) -> PanelRows:
        return cls(tuple(forced.tokens), forced.attention, forced.scores,
                   tuple(float(p) for p in forced.probabilities), head_attention=forced.head_attention)

    def detail(self, index: int) -> StepDetail | None:
        """Step ``index``'s detail, or None outside the rows."""
        if not 0 <= index < len(self.tokens):
            return None
        step = self.steps[index] if index < len(self.steps) else None
        weights = self.attention[index] if self.attention is not None and index < len(self.attention) else None
        scores = self.scores[index] if self.scores is not None and index < len(self.scores) else None
        if scores is None and step is not None:
            scores = step.scores
        probability = self.probabilities[index] if index < len(self.probabilities) else None
        return StepDetail(index, self.tokens[index], probability, weights, scores, step)


def panel_numbers(tokens, attention: np.ndarray | None, log_probability: float, text: str, reference: str,
                  target_language: str, forced: bool = False) -> PanelNumbers:
    """A panel's numbers for its rows (``tokens``, ``attention`` T×S, their ``log_probability``);
    BLEU and chrF always score the scorer's own output ``text`` against ``reference`` (none without
    one), also while the map shows a forced target (``forced``: then labelled as such)."""
    from engine.decoding import attention_stats
    from engine.evaluation import sentence_scores

    stats = attention_stats(attention) if attention is not None and attention.size else None
    bleu = chrf = None
    if reference:
        bleu, chrf = sentence_scores(text, reference, target_language)
    return PanelNumbers(log_probability, len(tokens), stats.mean_entropy if stats else None,
                        stats.mean_max_weight if stats else None, bleu, chrf, forced)


def output_shading(attention: np.ndarray | None, column: int) -> list[float]:
    """Per output token, how much of its attention went to source ``column`` (α_i,column), for
    tinting the output text while that source token is hovered; [] when there is nothing to tint."""
    if attention is None or not 0 <= column < (attention.shape[1] if attention.ndim == 2 else 0):
        return []
    return [float(value) for value in attention[:, column]]
