"""How much training a model had, and whether the models drawn side by side were trained alike.

A plot that sets one scorer's line against another's teaches something only when the two models
differ in their scorer alone: the same split, sizes, tokenizers and recipe, and the same budget.
A set of models rebuilt one at a time (each trained until its validation stops improving, hours a
model) can for a while hold models of two recipes — some converged, some from an earlier, shorter
build. The views do not hide that: :func:`budget_note` says, from each model's ``config.json``,
which lines were trained how, whenever they were not all trained alike.

A model of another family (a Transformer beside the RNNs) differs in more than its scorer by design:
its sizes and learning rate were chosen by its own trials. It is trained alike with the RNNs when it
shares their data, tokenizers, budget and stopping rule (:func:`budget_key`), and the views then read
it in the same group; within a family, alike stays "differs in the scorer alone" (:func:`recipe_key`).

Everything here reads a model's :class:`~engine.models.model_record.ModelRecord` only (no weights);
unreadable parts count as unknown. :func:`direction_records` reads them from a folder of model folders.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from engine.models.model_record import ModelRecord
from engine.settings.config import ModelShape, TrainConfig
from engine.settings.errors import ConfigError
from engine.settings.scorer_table import SCORER_TABLE
from engine.settings.settings_meta import described

EARLY_STOPPING = "early stopping"
TIME_BUDGET = "time budget"
TOKEN_BUDGET = "token budget"
RAN_ITS_COURSE = "early stopping or token budget"  # a group whose runs each ended on one of the two


FAMILY_TRAINING = ("learning_rate", "warmup_steps")  # chosen per model family by its own trials


def family_of(record: ModelRecord) -> str:
    """The model family ("rnn", "transformer") of ``record``'s scorer; "" when the scorer is unknown."""
    info = SCORER_TABLE.get(record.scorer)
    return info.family if info else ""


def budget_key(record: ModelRecord) -> tuple:
    """What two models of any family must share to have been trained to one budget: the data split and
    its rule, both tokenizers and every training setting but those a family chooses by its own trials
    (:data:`FAMILY_TRAINING`), the score warm-up (it acts only on the unscaled scorers, so a build gives
    it to those alone) and the hardware a run used (threads, device). Comparable with ``==``; an
    unreadable part compares as its text."""
    data = record.data
    digests = tuple((record.tokenizers.get(side) or {}).get("sha256") for side in ("source", "target"))
    training = record.training.get("train_config") or {}
    try:
        settings = replace(TrainConfig.from_dict(training), temperature_warmup=0.0, torch_threads=0, device="auto")
        shared = {k: v for k, v in settings.to_dict().items() if k not in FAMILY_TRAINING}
        settings_key = repr(sorted(shared.items()))
    except (ConfigError, TypeError, ValueError):
        settings_key = repr(sorted(training.items())) if isinstance(training, dict) else repr(training)
    return (repr(data.get("split")), data.get("split_rule"), digests, settings_key)


def recipe_key(record: ModelRecord) -> tuple:
    """What two models must share to differ only in their scorer: :func:`budget_key`, the family, the
    architecture's settings of that family but the scorer (a Transformer's record also carries the RNN's
    unused sizes: they are left out), and the family's own training settings (:data:`FAMILY_TRAINING`)."""
    family = family_of(record)
    shapes = described(ModelShape)
    model = {k: v for k, v in record.model.items()
             if k != "scorer" and (k not in shapes or shapes[k].family in ("", family))}
    training = record.training.get("train_config") or {}
    own = tuple(training.get(k) for k in FAMILY_TRAINING) if isinstance(training, dict) else ()
    return (*budget_key(record), family, repr(sorted(model.items())), repr(own))


@dataclass(frozen=True)
class TrainingBudget:
    """What one model's training took, as its config.json records it."""

    ended: str  # why the run ended: EARLY_STOPPING, TIME_BUDGET, TOKEN_BUDGET, … ("" when not recorded)
    seconds: float  # training time (0 when not recorded)
    target_tokens: int | None  # target tokens trained on when the kept model was validated (None: not counted)
    epochs: int | None  # epochs completed
    token_budget: int | None = None  # the run's budget in target tokens (None: it had none)

    def describe(self) -> str:
        """A few words: 'until its validation stopped improving (3.8 h, kept at 32.8 M target tokens)',
        'for 25 min (its time budget)'."""
        took = _duration(self.seconds)
        amount = self._amount(took)
        aside = f" ({amount})" if amount else ""
        budget = f"its budget of {_millions(self.token_budget)} M target tokens" if self.token_budget else "a token budget"
        by_end = {
            EARLY_STOPPING: "until its validation stopped improving" + aside,
            TIME_BUDGET: f"for {took} (its time budget)" if took else "to a time budget",
            TOKEN_BUDGET: f"to {budget}" + aside,
        }
        return by_end.get(self.ended, f"for {amount}" if amount else "for a time it did not record")

    def _amount(self, took: str) -> str:
        """'3.8 h, kept at 32.8 M target tokens': the time ``took`` and the tokens, those recorded."""
        tokens = f"kept at {self.target_tokens / 1e6:.1f} M target tokens" if self.target_tokens else ""
        return ", ".join(part for part in (took, tokens) if part)


def _millions(tokens: int | None) -> str:
    return f"{tokens / 1e6:.1f}" if tokens else "?"


def _duration(seconds: float) -> str:
    if seconds <= 0:
        return ""
    minutes = seconds / 60
    return f"{minutes / 60:.1f} h" if minutes >= 120 else f"{minutes:.0f} min"


def training_budget(record: ModelRecord) -> TrainingBudget:
    """The budget a model's ``config.json`` records."""
    training = record.training
    finished = training.get("finished") or {}
    tokens = _last_validation(training.get("history") or []).get("target_tokens")
    seconds = finished.get("seconds") or training.get("train_seconds") or 0  # the whole run's, when it ended
    epochs = finished.get("epochs_completed")
    budget = (training.get("train_config") or {}).get("max_target_tokens")
    return TrainingBudget(
        ended=str(finished.get("reason") or ""),
        seconds=float(seconds) if isinstance(seconds, int | float) else 0.0,
        target_tokens=_positive_count(tokens),
        epochs=int(epochs) if isinstance(epochs, int) else None,
        token_budget=_positive_count(budget))


def _last_validation(history: list[Any]) -> dict[str, Any]:
    """The history's last entry (the last validation), {} when there is none or it is not a record."""
    return history[-1] if history and isinstance(history[-1], dict) else {}


def _positive_count(value: Any) -> int | None:
    """A recorded count above 0 as an int; None for anything else (missing, 0, not a number)."""
    return int(value) if isinstance(value, int | float) and value > 0 else None


def recipe_groups(infos: Mapping[str, ModelRecord]) -> list[tuple[str, ...]]:
    """The names of ``infos`` (name → model record) grouped by how they were trained, groups and names in
    the order given: one group when every model was trained alike.

    Within a family, alike is :func:`recipe_key`: the models differ in their scorer alone. Across families
    (a Transformer beside RNNs), alike is :func:`budget_key`: the same data, tokenizers, budget and stopping
    rule, each family at the sizes and rate its own trials chose. A family's group joins the groups of other
    families under its budget when that budget holds one group of each family present; when a family has
    two groups under one budget, which one the other family's models compare with is not decided, and every
    group stays apart."""
    recipes: dict[tuple, list[str]] = {}
    for name, info in infos.items():
        recipes.setdefault(recipe_key(info), []).append(name)
    budgets = {recipe: budget_key(infos[names[0]]) for recipe, names in recipes.items()}  # read once a group
    families_under: dict[tuple, list[str]] = {}  # budget → the family of each recipe group under it
    for recipe, names in recipes.items():
        families_under.setdefault(budgets[recipe], []).append(family_of(infos[names[0]]))
    merged: dict[tuple, list[str]] = {}
    for recipe, names in recipes.items():
        budget = budgets[recipe]
        one_group_a_family = len(families_under[budget]) == len(set(families_under[budget]))
        merged.setdefault(("budget", budget) if one_group_a_family else ("recipe", recipe), []).extend(names)
    order = {name: i for i, name in enumerate(infos)}
    return [tuple(sorted(names, key=order.__getitem__)) for names in merged.values()]


def trained_alike(infos: Mapping[str, ModelRecord], name: str) -> tuple[str, ...]:
    """The names of ``infos`` trained like ``name`` (its recipe group, itself included); every name when
    ``name`` is not among them. A lesson drawn against the fixed context C reads C's group only."""
    return next((group for group in recipe_groups(infos) if name in group), tuple(infos))


def groups_of(names: Sequence[str], infos: Mapping[str, ModelRecord | None]) -> list[tuple[str, ...]]:
    """``names`` grouped by how they were trained (:func:`recipe_groups` of their configs in ``infos``),
    in the order given: one group when some config is unknown (None or missing). What is compared scorer
    against scorer (an attention or alignment reading) is read within a group."""
    if any(infos.get(name) is None for name in names):
        return [tuple(names)]
    return recipe_groups({name: infos[name] for name in names})  # type: ignore[misc]


def among(labels: Sequence[str]) -> str:
    """"Among A, B and C (trained alike): " — what opens the reading of one group of :func:`groups_of`."""
    return f"Among {_join(list(labels))} (trained alike): "


def compared_with(infos: Mapping[str, ModelRecord | None], anchor: str) -> tuple[str, ...]:
    """The names of ``infos`` a lesson may set against ``anchor`` (the fixed context C): those trained
    like it, or every name when ``anchor`` is absent or some model's config is unknown (None)."""
    if anchor not in infos or any(info is None for info in infos.values()):
        return tuple(infos)
    return trained_alike(infos, anchor)  # type: ignore[arg-type]


def _join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _budget_groups(infos: Mapping[str, ModelRecord]) -> list[tuple[tuple[str, ...], list[TrainingBudget], str]]:
    """Each recipe group with its models' budgets and what they share — ``EARLY_STOPPING`` (all
    converged), ``RAN_ITS_COURSE`` (each converged or trained to its token budget), ``TIME_BUDGET`` (all
    the same minutes) or "" — when there are two groups or more (else [])."""
    groups = recipe_groups(infos)
    if len(groups) < 2:
        return []
    found = []
    for group in groups:
        budgets = [training_budget(infos[name]) for name in group]
        ended = {b.ended for b in budgets}
        same_minutes = len({round(b.seconds / 60) for b in budgets}) == 1
        if ended == {EARLY_STOPPING}:
            shared = EARLY_STOPPING
        elif ended <= {EARLY_STOPPING, TOKEN_BUDGET}:
            shared = RAN_ITS_COURSE
        else:
            shared = TIME_BUDGET if ended == {TIME_BUDGET} and same_minutes else ""
        found.append((group, budgets, shared))
    return found


def budget_note(infos: Mapping[str, ModelRecord], labels: Mapping[str, str] | None = None) -> str:
    """One sentence naming how each group of models was trained, when they were not all trained alike
    ("" when they were, or when there are fewer than two); ``labels`` maps names to display names."""
    found = _budget_groups(infos)
    if not found:
        return ""
    names = labels or {}
    parts = [_group_note(group, budgets, shared, names) for group, budgets, shared in found]
    return "Not trained alike (compare within a group): " + "; ".join(parts) + "."


def _group_note(group: tuple[str, ...], budgets: list[TrainingBudget], shared: str, labels: Mapping[str, str]) -> str:
    """budget_note's clause for one group: how its models were trained (``shared``: the end they share)."""
    shown = _join([labels.get(name, name) for name in group])
    if len(group) == 1:
        return f"{shown} was trained {budgets[0].describe()}"
    if shared in (EARLY_STOPPING, RAN_ITS_COURSE):
        return _converged_note(shown, budgets, shared)
    if shared == TIME_BUDGET:
        return f"{shown} were trained for {_duration(budgets[0].seconds)} each (a time budget)"
    return f"{shown} were trained under one recipe: " + "; ".join(
        f"{labels.get(n, n)} {b.describe()}" for n, b in zip(group, budgets, strict=True))


def _converged_note(shown: str, budgets: list[TrainingBudget], shared: str) -> str:
    """The clause for a group trained until validation stopped improving (or, RAN_ITS_COURSE, its token budget)."""
    tokens = [b.target_tokens for b in budgets]
    counted = _join([_millions(t) for t in tokens]) if all(tokens) else ""
    caps = {b.token_budget for b in budgets if b.ended == TOKEN_BUDGET}
    cap = f" {_millions(caps.pop())} M-token" if len(caps) == 1 and None not in caps else ""
    ran_out = f" or their{cap} budget ran out" if shared == RAN_ITS_COURSE else ""
    return (f"{shown} were trained until their validation stopped improving{ran_out}"
            + (f" (kept at {counted} M target tokens)" if counted else ""))


def short_budget_note(infos: Mapping[str, ModelRecord], labels: Mapping[str, str] | None = None) -> str:
    """:func:`budget_note` in a status line's few words — "Not trained alike: Additive, C converged ·
    Dot, Bilinear 25 min" — "" when the models were trained alike."""
    found = _budget_groups(infos)
    if not found:
        return ""
    parts = []
    for group, budgets, shared in found:
        how = {EARLY_STOPPING: "converged", RAN_ITS_COURSE: "converged or at their token budget",
               TIME_BUDGET: _duration(budgets[0].seconds)}.get(shared, "one recipe")
        parts.append(f"{', '.join((labels or {}).get(name, name) for name in group)} {how}")
    return "Not trained alike: " + " · ".join(parts)


def direction_records(models: Path) -> dict[str, dict[str, ModelRecord]]:
    """direction ("zh-en") → scorer → model record, for the model folders in ``models`` (a missing folder:
    none; an unreadable model is left out — the reports that call this refuse it where they read it)."""
    from engine.models.model_record import read_model_record
    from engine.settings.errors import EngineError

    records: dict[str, dict[str, ModelRecord]] = {}
    for folder in sorted(p for p in Path(models).glob("*") if (p / "config.json").is_file()):
        try:
            record = read_model_record(folder)
        except (EngineError, OSError):
            continue
        records.setdefault(record.direction, {})[record.scorer] = record
    return records
