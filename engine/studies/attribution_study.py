"""Is attention the explanation? One model's α against attribution, and α permuted (Jain & Wallace 2019).

Over a bounded, deterministic sample of the held-out test split (:func:`sample_pairs`: ``count`` pairs drawn
by a seeded permutation), each source is translated greedily and every step of the output is measured
(engine.studies.attribution_scores says what is stored):

1. **argmax α = argmax occlusion**: is the most-attended source piece the one whose replacement by ``<unk>``
   lowers log p(y_i) most (engine.explain, occlusion)?
2. **Spearman ρ(α, |IG|)**: do attention and the magnitude of Integrated Gradients rank the source pieces
   alike (IG with ``ig_steps`` points from the zero embedding)?
3. **α permuted within the row**: the step run again from the same state with α_i's values shuffled over the
   source pieces (``draws`` seeded permutations; the decoder's own ``step`` with an attention override, as
   what-if decoding sets α) — does the most probable token change, and how far does the output distribution
   move (total variation distance)? The reference is the same step with α_i itself as the override, so a
   multi-head model (whose override sets every head to the mean row) is compared like for like.
4. IG's **source share** of each step (how much came from the source rather than the words already written).

Measured on sub-word pieces (the word view sums pieces; the study does not). The fixed-context model has no α:
only the source share is measured. Stored in the model folder's config.json (``metrics.attribution``).

Shapes: T output pieces, S source pieces, V target vocabulary, K draws.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path

import numpy as np
import torch
from torch import Tensor

from engine.corpus.corpus_read import Pair
from engine.decoding.teacher_forcing import teacher_force
from engine.decoding.translator import Translator
from engine.explain.attribution import explain_steps
from engine.models.config_file import read_config, update_config
from engine.networks.model import Encoded
from engine.settings.errors import EngineError
from engine.studies.attribution_scores import STUDY_KEY, AttributionStudy, spearman, stored_attribution_study
from engine.text.tokenizer import BOS_ID

DEFAULT_SENTENCES = 40
DEFAULT_DRAWS = 5


class AttributionStudyError(EngineError):
    """The study cannot be made (no pair could be translated); says why."""


def sample_pairs(pairs: Sequence[Pair], count: int, seed: int = 0) -> list[Pair]:
    """``count`` pairs of ``pairs`` (all when fewer), drawn by a permutation seeded with ``seed``, in test order."""
    if len(pairs) <= count:
        return list(pairs)
    chosen = np.sort(np.random.default_rng(seed).permutation(len(pairs))[:count])
    return [pairs[int(i)] for i in chosen]


def run_attribution_study(translator: Translator, pairs: Sequence[Pair], count: int = DEFAULT_SENTENCES,
                          seed: int = 0, ig_steps: int = 32, draws: int = DEFAULT_DRAWS) -> AttributionStudy:
    """Measure ``translator``'s attention against attribution on ``count`` pairs of ``pairs`` (the test split)."""
    started = time.monotonic()
    generator = np.random.default_rng(seed)
    readings = _Readings()
    sentences = 0
    for pair in sample_pairs(pairs, count, seed):
        translation = translator.translate(pair.source)
        if translation.empty or not translation.tokens:
            continue
        sentences += 1
        readings.read(translator, translation, ig_steps, draws, generator)
    if not sentences:
        raise AttributionStudyError(f"none of the {min(count, len(pairs))} sampled pairs could be translated")
    attends = translator.uses_attention

    def kept(values: list) -> tuple | None:
        return tuple(values) if attends else None

    return AttributionStudy(sentences, len(pairs), seed, ig_steps, draws,
                            kept(readings.agree), kept(readings.rho), kept(readings.changed), kept(readings.tvd),
                            tuple(readings.share), tuple(readings.pieces), time.monotonic() - started)


@dataclass
class _Readings:
    """What the study reads, one entry per decoded step of the sentences read so far."""

    agree: list[float] = field(default_factory=list)  # 1.0 where α's top source piece is occlusion's
    rho: list[float | None] = field(default_factory=list)  # Spearman ρ of α against |IG|
    changed: list[float] = field(default_factory=list)  # share of permutations of α that change the token
    tvd: list[float] = field(default_factory=list)  # their mean total variation distance
    share: list[float] = field(default_factory=list)  # IG's share on the source
    pieces: list[int] = field(default_factory=list)  # the sentence's source pieces

    def read(self, translator: Translator, translation, ig_steps: int, draws: int,
             generator: np.random.Generator) -> None:
        """Read one translated sentence: IG's source share always, α against attribution where it attends."""
        ig = list(explain_steps(translator, translation, "ig", ig_steps=ig_steps))
        self.share += [step.source_share for step in ig]
        self.pieces += [len(translation.source_tokens)] * len(ig)
        if not translator.uses_attention:
            return
        occlusion = list(explain_steps(translator, translation, "occlusion"))
        alpha = np.asarray(translation.attention, dtype=np.float64)  # T×S
        for row, integrated, occluded in zip(alpha, ig, occlusion, strict=True):
            self.agree.append(float(int(np.argmax(row)) == int(np.argmax(occluded.source))))
            self.rho.append(spearman(row, np.abs(integrated.source)))
        moved, distances = permuted_attention(translator, translation, draws, generator)
        self.changed += moved
        self.tvd += distances


@torch.no_grad()
def permuted_attention(translator: Translator, translation, draws: int,
                       generator: np.random.Generator) -> tuple[list[float], list[float]]:
    """Per step of ``translation`` (its tokens teacher-forced): the share of ``draws`` random permutations of
    α_i after which the most probable token differs, and their mean total variation distance to the output
    distribution with α_i itself set — ([…T], […T])."""
    model = translator.model
    decoder = model.decoder
    source = translator.prepare(translation.source).ids
    target = [step.token_id for step in translation.steps]
    encoded = model.encode(torch.tensor([source], device=translator.device), torch.tensor([len(source)]))
    forced = teacher_force(model, encoded, target)
    weights = forced.weights  # T×S: the model's own α (the heads' mean)
    assert weights is not None, "permuted_attention reads a model that attends"
    rows = draws + 1
    wide = _repeated(encoded, rows)
    fed = decoder.embedding(torch.tensor([BOS_ID, *target[:-1]], device=translator.device))  # T×E
    changed, distances = [], []
    for i in range(len(target)):
        state = encoded.initial_state if i == 0 else forced.states[i - 1]
        own = weights[i]  # S
        orders = [torch.as_tensor(generator.permutation(own.numel()), device=own.device) for _ in range(draws)]
        overrides = torch.stack([own, *(own[order] for order in orders)])  # (K+1)×S
        embedded = fed[i : i + 1].expand(rows, -1)  # (K+1)×E
        out = decoder.step(embedded, tuple(_rows(part, rows) for part in state), wide, overrides)
        probabilities = torch.softmax(decoder.logits(out.state[0], out.context, embedded), dim=-1)  # (K+1)×V
        reference, permuted = probabilities[:1], probabilities[1:]
        changed.append(float((permuted.argmax(dim=1) != reference.argmax(dim=1)).double().mean()))
        distances.append(float(0.5 * (permuted - reference).abs().sum(dim=1).double().mean()))
    return changed, distances


def _rows(tensor: Tensor, rows: int) -> Tensor:
    """A batch-of-one tensor repeated to ``rows`` rows."""
    return tensor.expand(rows, *tensor.shape[1:])


def _repeated(encoded: Encoded, rows: int) -> Encoded:
    """``encoded`` (one sentence) as ``rows`` identical rows."""
    values = {}
    for part_field in fields(encoded):
        value = getattr(encoded, part_field.name)
        if isinstance(value, Tensor):
            value = _rows(value, rows)
        elif isinstance(value, tuple):
            value = tuple(_rows(part, rows) for part in value)
        values[part_field.name] = value
    return Encoded(**values)


def record_attribution_study(folder: Path, study: AttributionStudy) -> None:
    """Store ``study`` in the model folder's config.json (``metrics.attribution``); the weights and tokenizers are
    not touched, so the folder's hashes stay valid."""
    info = read_config(folder)
    info.setdefault("metrics", {})[STUDY_KEY] = study.to_json()
    update_config(folder, info)


def read_attribution_study(folder: Path) -> AttributionStudy | None:
    """The study stored in the model folder ``folder`` (config.json only: no decoding)."""
    return stored_attribution_study(read_config(folder))
