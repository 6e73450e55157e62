"""Is a BLEU gain real? Paired bootstrap resampling (Koehn 2004) with sacrebleu's ``PairedTest``.

The quality report sets every attention scorer against the fixed-context baseline, overall and per
source-length bucket; some buckets hold a few dozen sentences, where a gain of several BLEU points
can be chance. This module says how likely that is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sacrebleu.metrics import BLEU
from sacrebleu.significance import PairedTest, Result

from engine.evaluation.evaluate import bleu_tokenizer

BOOTSTRAP_SAMPLES = 1000  # sacrebleu's default for the paired bootstrap; its RNG seed is fixed (12345)


@dataclass(frozen=True)
class PairedGain:
    """One system's corpus BLEU against the baseline's on the same sentences."""

    bleu: float  # the system's corpus BLEU
    baseline_bleu: float
    p_value: float  # chance of a difference at least this large between two equally good systems
    interval: float  # half-width of the 95 % bootstrap interval of the system's BLEU

    @property
    def gain(self) -> float:
        return self.bleu - self.baseline_bleu


def paired_bleu_gains(baseline: Sequence[str], systems: Mapping[str, Sequence[str]], references: Sequence[str],
                      target_language: str, samples: int = BOOTSTRAP_SAMPLES) -> dict[str, PairedGain]:
    """Each system's BLEU gain over ``baseline`` with its paired-bootstrap p-value.

    ``baseline``, every system and ``references`` are detokenized sentences in the same order (one
    reference each); BLEU uses the target language's tokenizer as everywhere else in the project.
    """
    count = len(references)
    baseline, outputs = list(baseline), {name: list(hypotheses) for name, hypotheses in systems.items()}
    for name, hypotheses in [("baseline", baseline), *outputs.items()]:
        if len(hypotheses) != count:
            raise ValueError(f"{name} has {len(hypotheses)} sentences, the references {count}")
    if not outputs or count == 0:
        return {}
    metric = BLEU(tokenize=bleu_tokenizer(target_language))
    _, scores = PairedTest([("baseline", baseline), *outputs.items()], {"BLEU": metric}, [list(references)],
                           test_type="bs", n_samples=samples)()
    baseline_result, *results = map(_result, scores["BLEU"])
    gains = {}
    for (name, hypotheses), result in zip(outputs.items(), results, strict=True):
        # sacrebleu counts resampled differences *above* the observed one: for outputs identical to
        # the baseline's (observed difference 0, every resample 0) that would be p ≈ 0, not 1.
        p_value = 1.0 if hypotheses == baseline else _given(result.p_value, "p-value")
        gains[name] = PairedGain(float(result.score), float(baseline_result.score), p_value,
                                 _given(result.ci, "confidence interval"))
    return gains


def _result(value: object) -> Result:
    """A system's score from sacrebleu's paired test (its list types a score as ``str | Result``)."""
    if not isinstance(value, Result):
        raise TypeError(f"sacrebleu's paired test gave {value!r} where a system's score was due")
    return value


def _given(value: float | None, what: str) -> float:
    """A figure the bootstrap test gives every system but the baseline."""
    if value is None:
        raise TypeError(f"sacrebleu's paired bootstrap test gave no {what} for a system")
    return float(value)
