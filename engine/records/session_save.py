"""Saving a recorded decode as a session file (the format and its reader: engine/records/session_file.py).

A file of format version 2 stores each step's attention once: a step keeps its own α_i, e_ij and
token, and names its hypothesis' earlier steps by number, from which the reader rebuilds the
hypothesis' tokens and attention rows — O(T·S) numbers for T steps over S source tokens, where
version 1 stored every step's whole hypothesis (O(T²·S)).

The size is checked before anything is encoded (:func:`estimated_bytes`, from the counts of numbers
and texts): a beam decode too large with its candidates is saved without them, one too large even
so is refused at once; the encoded file is checked again. :func:`session_saving` is a generator of
the stages (SAVE_STAGES) so that the app runs it in a worker and shows how far it is.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from engine.decoding.search import DecodeStep
from engine.files.atomic import write_bytes_atomic
from engine.records import session_file
from engine.records.session_file import MODEL_KEYS, SESSION_FORMAT, SESSION_VERSION, Session, _digest
from engine.records.session_values import SessionFileError

SAVE_STAGES = ("checking its size", "encoding", "writing")
FLOAT_BYTES = 4  # the fewest a written number takes ("0.0" and its separator): the estimate is a lower bound
WHOLE_BYTES = 2  # a step number or token id with its separator, at least
STEP_BYTES = 150  # a step's keys, flags and punctuation, at least


def _matrix(values: np.ndarray | None) -> list | None:
    return None if values is None else np.asarray(values, dtype=np.float64).round(7).tolist()


def _step_json(step: DecodeStep, ids: dict[int, int], whole: bool = False) -> dict[str, Any]:
    """A step as stored; ``whole`` adds its hypothesis (tokens, attention rows) as version 1 stored it."""
    data = {"index": step.index, "token_id": step.token_id, "token": step.token,
            "probability": float(step.probability), "attention": _matrix(step.attention), "scores": _matrix(step.scores),
            "alternatives": [[a.token_id, a.token, float(a.probability)] for a in step.alternatives],
            "log_probability": float(step.log_probability), "is_eos": step.is_eos,
            **_earlier(step, ids), "forced": step.forced,
            "overridden": step.overridden, "model_attention": _matrix(step.model_attention),
            "head_attention": _matrix(getattr(step, "head_attention", None)),
            "layer_attention": _matrix(step.layer_attention), "self_attention": _matrix(step.self_attention),
            "beam_level": [[list(node.ids), node.token, float(node.probability), float(node.log_probability),
                            node.status, float(node.score), None if node.step is None else ids[id(node.step)]]
                           for node in step.beam_level]}
    if whole:
        data |= {"previous": [ids[id(previous)] for previous in step.previous_steps],
                 "hypothesis_tokens": list(step.hypothesis_tokens),
                 "hypothesis_attention": _matrix(step.hypothesis_attention)}
    return data


def _earlier(step: DecodeStep, ids: dict[int, int]) -> dict[str, Any]:
    """How a step names its hypothesis' earlier steps: its parent alone where the parent's earlier steps
    are its own (as every search makes them: one number a step), else each of them."""
    earlier = step.previous_steps
    if not earlier:
        return {"parent": None}
    parent = earlier[-1]
    if len(parent.previous_steps) == len(earlier) - 1 and all(
            mine is theirs for mine, theirs in zip(earlier, parent.previous_steps, strict=False)):
        return {"parent": ids[id(parent)]}
    return {"previous": [ids[id(previous)] for previous in earlier]}


def _distinct(steps: Sequence[DecodeStep]) -> list[DecodeStep]:
    """Every step reachable from ``steps`` (their hypotheses' earlier steps too), each once, each
    after the steps it refers to."""
    seen: dict[int, DecodeStep] = {}

    def visit(step: DecodeStep) -> None:
        if id(step) in seen:
            return
        for previous in step.previous_steps:
            visit(previous)
        for node in step.beam_level:
            if node.step is not None:
                visit(node.step)
        seen[id(step)] = step

    for step in steps:
        visit(step)
    return list(seen.values())


def _size(values: np.ndarray | None) -> int:
    return 0 if values is None else int(np.size(values))


def estimated_bytes(session: Session, beam: bool = True) -> int:
    """The fewest bytes the file of ``session`` can take (``beam``: with the beam candidates), from
    counts alone — nothing encoded: a decode refused on it is too large for certain; the encoded file is
    measured again."""
    total = 256 + len(session.input.encode("utf-8")) + sum(len(t.encode("utf-8")) + 4 for t in session.source_tokens)
    for step in _distinct(session.steps):
        floats = (_size(step.attention) + _size(step.scores) + _size(step.model_attention)
                  + _size(getattr(step, "head_attention", None)) + _size(step.layer_attention)
                  + _size(step.self_attention) + len(step.alternatives) + 2)
        wholes = len(step.alternatives) + 2
        texts = len(step.token.encode("utf-8")) + sum(len(a.token.encode("utf-8")) + 4 for a in step.alternatives)
        if beam:
            floats += 3 * len(step.beam_level)
            wholes += sum(len(node.ids) + 1 for node in step.beam_level)
            texts += sum(len(node.token.encode("utf-8")) + 12 for node in step.beam_level)
        total += STEP_BYTES + floats * FLOAT_BYTES + wholes * WHOLE_BYTES + texts
    return total


def session_json(session: Session) -> dict[str, Any]:
    """The document of ``session`` (format version 2), digest included."""
    distinct = _distinct(session.steps)
    ids = {id(step): number for number, step in enumerate(distinct)}
    document = {"format": SESSION_FORMAT, "format_version": SESSION_VERSION,
                "model": {key: session.model[key] for key in MODEL_KEYS}, "input": session.input,
                "source_tokens": list(session.source_tokens), "settings": dict(session.settings),
                "steps": [_step_json(step, ids) for step in distinct], "shown": [ids[id(step)] for step in session.steps]}
    document["digest"] = _digest(document)
    return document


def _encoded(session: Session) -> bytes:
    """One line per step: compact, and still readable line by line."""
    document = session_json(session)
    steps = document.pop("steps")
    head = json.dumps(document, ensure_ascii=False, allow_nan=False)[:-1]
    rows = ",\n".join(json.dumps(step, ensure_ascii=False, allow_nan=False, separators=(",", ":")) for step in steps)
    return f'{head}, "steps": [\n{rows}\n]}}\n'.encode()


def _too_large(size: int, about: bool) -> SessionFileError:
    return SessionFileError(f"the decode is too large to record ({'about ' if about else ''}{size / 2**20:.0f} MB; "
                            f"a session file holds at most {session_file.MAX_SESSION_BYTES // 2**20} MB)")


def _without_beam(session: Session) -> Session:
    return dataclasses.replace(session, steps=tuple(dataclasses.replace(step, beam_level=()) for step in session.steps))


def session_saving(path: Path, session: Session) -> Generator[str, None, Path]:
    """Save ``session`` to ``path`` atomically, yielding each stage (SAVE_STAGES) as it begins;
    returns the path. A beam decode whose candidates would make the file larger than a session file
    may be (MAX_SESSION_BYTES) is saved without them (the heatmap's decode is whole; the beam tree is
    not replayed); a decode too large even so is refused before it is encoded."""
    path = Path(path)
    if path.is_dir():
        raise SessionFileError(f"cannot write {path}: it is a folder")
    yield SAVE_STAGES[0]
    if estimated_bytes(session) > session_file.MAX_SESSION_BYTES:
        session = _without_beam(session)
        estimate = estimated_bytes(session, beam=False)
        if estimate > session_file.MAX_SESSION_BYTES:
            raise _too_large(estimate, about=True)
    yield SAVE_STAGES[1]
    data = _encoded(session)
    if len(data) > session_file.MAX_SESSION_BYTES and any(step.beam_level for step in session.steps):
        data = _encoded(_without_beam(session))
    if len(data) > session_file.MAX_SESSION_BYTES:
        raise _too_large(len(data), about=False)
    yield SAVE_STAGES[2]
    try:
        write_bytes_atomic(path, data)
    except OSError as error:
        raise SessionFileError(f"cannot write {path}: {error.strerror or error}") from None
    return path


def save_session(path: Path, session: Session) -> Path:
    """Save ``session`` here and now (:func:`session_saving` run to its end)."""
    saving = session_saving(path, session)
    while True:
        try:
            next(saving)
        except StopIteration as stop:
            return stop.value


def step_json(step: DecodeStep) -> dict[str, Any]:
    """One step as plain data, its hypothesis whole (its earlier steps and its beam candidates' steps
    by position): what a replay must reproduce."""
    positions = {id(previous): previous.index for previous in step.previous_steps}
    positions |= {id(node.step): node.step.index for node in step.beam_level if node.step is not None}
    data = _step_json(step, positions, whole=True)
    data.pop("parent", None)
    return data | {"previous": [previous.index for previous in step.previous_steps]}
