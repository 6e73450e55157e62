"""A recorded decode: the session file that replays a decode step by step without its model.

One JSON document (UTF-8):

```
{"format": "attention-studio-session", "format_version": 2,
 "model": {"name": "zh-en-additive", "sha256": "<the weights' sha256>", "scorer": "additive",
           "scorer_label": "Additive (Bahdanau)", "formula": "e_ij = …", "uses_attention": true,
           "source_language": "zh", "target_language": "en"},
 "input": "我们走吧。", "source_tokens": ["▁我们", "走", "吧", "。"],
 "settings": {"beam_size": 1, "seconds_per_step": 0.4},
 "steps": [{…}, …],        every distinct step event, each once
 "shown": [0, 1, 2, …],    the order the decode emitted them (indices into "steps")
 "digest": "<sha256 of the canonical JSON of everything else>"}
```

A step holds what :class:`engine.decoding.search.DecodeStep` holds — token, id, probability, α_i, e_ij, the
top candidates, the hypothesis' log-probability, the what-if marks (forced, overridden, the model's
own α_i), each head's α_i — and its hypothesis' earlier steps as indices into ``steps`` (a beam
search's best hypothesis may change between steps, so they are not simply the steps shown before).
The hypothesis' tokens and attention rows are rebuilt from those steps when the file is read, so
each row is stored once (O(T·S) for T steps). Version 1 files, which stored every step's whole
hypothesis (``hypothesis_tokens``, ``hypothesis_attention``: O(T²·S)), are still read, with the same
checks; saving (engine/records/session_save.py) writes version 2. A beam search's step also keeps every candidate it weighed
(``beam_level``, what the beam tree draws): ``[ids, token, probability, log_probability, status,
score, step]`` each, ``step`` the index of a kept or finished candidate's own step event (saved
before it) or null. Files without ``beam_level`` (greedy decodes, earlier recordings) read as none.

Reading checks everything before anything is used — the format and its version, the digest (a
file edited after it was saved is refused; the digest is a check against damage and hand edits,
not a signature), sizes, types, finite numbers, every row as long as the source — and refuses with
the reason (:class:`SessionFileError`). Nothing in a session is ever executed: it is data.

Shapes: S source tokens; a step's hypothesis has i+1 tokens at step i.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from engine.decoding.search import Alternative, BeamNode, DecodeStep
from engine.files.safe_open import read_capped
from engine.records.session_values import (
    SessionFileError,
    bounded_text,
    checked_array,
    finite_number,
    is_whole,
    optional_array,
    require,
)

SESSION_FORMAT = "attention-studio-session"
SESSION_VERSION = 2  # what a save writes
READ_VERSIONS = (1, 2)  # what a load reads: 1 stored each step's whole hypothesis
SESSION_SUFFIX = ".session.json"
MAX_SESSION_BYTES = 32 * 1024 * 1024
MAX_STEPS = 4096
MAX_SOURCE_TOKENS = 1024
MAX_BEAM_CANDIDATES = 2 * 64  # a beam of 64 weighs its 2K best candidates
BEAM_STATUSES = ("kept", "finished", "pruned")
# Each head's α_i, where this engine's steps carry it (mechanisms of several heads).
STEP_HAS_HEADS = "head_attention" in {field.name for field in dataclasses.fields(DecodeStep)}
MODEL_KEYS = ("name", "sha256", "scorer", "scorer_label", "formula", "uses_attention", "source_language",
              "target_language")


@dataclass(frozen=True)
class Session:
    """A decode as recorded: the model it was made with, its input and every step event."""

    model: dict[str, Any]  # MODEL_KEYS
    input: str
    source_tokens: tuple[str, ...]
    settings: dict[str, float]  # beam_size, seconds_per_step
    steps: tuple[DecodeStep, ...]  # in the order they were shown

    def same_model(self, sha256: str) -> bool:
        """True when the weights ``sha256`` are the ones the session was recorded with."""
        return bool(sha256) and sha256 == self.model["sha256"]

    def note(self, sha256: str, name: str) -> str:
        """What the replay says about the model in use (``sha256`` of its weights, ``name``)."""
        recorded = f"{self.model['name']} (weights {self.model['sha256'][:12]})"
        if self.same_model(sha256):
            return f"Recorded with this model, {recorded}: replayed from the file."
        return (f"Recorded with another model, {recorded}; the model in use is {name or 'none'}: the decode is "
                "replayed from the file, without decoding anything.")


def _canonical(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False).encode("utf-8")


def _digest(document: dict[str, Any]) -> str:
    """sha256 of the canonical JSON of everything but the digest. The steps (sorted last) are hashed one
    by one — the same bytes as the whole at once, without one long call that holds the interpreter
    lock (a worker saving a long decode would freeze the window meanwhile)."""
    body = {key: value for key, value in document.items() if key != "digest"}
    if not _steps_last(body):
        return hashlib.sha256(_canonical(body)).hexdigest()
    return _digest_step_by_step(body)


def _steps_last(body: dict[str, Any]) -> bool:
    """Whether ``body`` has a non-empty list of steps that its canonical JSON writes last."""
    steps = body.get("steps")
    return isinstance(steps, list) and bool(steps) and not any(key > "steps" for key in body)


def _digest_step_by_step(body: dict[str, Any]) -> str:
    """_digest of a body whose steps come last, fed to sha256 one step at a time."""
    digest = hashlib.sha256(_canonical({key: value for key, value in body.items() if key != "steps"})[:-1])
    digest.update(b',"steps":[')
    for number, step in enumerate(body["steps"]):
        digest.update(b"," + _canonical(step) if number else _canonical(step))
    digest.update(b"]}")
    return digest.hexdigest()


# -- reading ---------------------------------------------------------------------------------------

def _step(data: Any, number: int, built: list[DecodeStep], width: int, version: int) -> DecodeStep:
    where = f"step {number}"
    require(isinstance(data, dict), f"{where} must be an object")
    index = data.get("index")
    require(is_whole(index) and 0 <= index < MAX_STEPS, f"{where}: index must be a whole number 0–{MAX_STEPS - 1}")
    attention = optional_array(data.get("attention"), (width,), f"{where}: attention", weights=True)
    if version == 1:
        earlier = [built[p] for p in _previous(data.get("previous"), index, built, where)]
        tokens = _hypothesis_tokens(data, index, where)
        rows = optional_array(data.get("hypothesis_attention"), (index + 1, width), f"{where}: hypothesis_attention",
                              weights=True)
    else:
        earlier = _earlier(data, index, built, where)
        tokens, rows = _hypothesis_of(data, attention, earlier, where)
    alternatives = _alternatives(data.get("alternatives"), where)
    flags = {name: data.get(name) for name in ("is_eos", "forced", "overridden")}
    require(all(isinstance(value, bool) for value in flags.values()), f"{where}: is_eos, forced and overridden "
                                                                         "must be true or false")
    require(is_whole(data.get("token_id")) and data["token_id"] >= 0, f"{where}: token_id must be a whole number")
    extra = _head_attention(data.get("head_attention"), width, where)
    extra |= _layer_attention(data, width, index, where)
    return DecodeStep(
        index=index, token_id=data["token_id"], token=tokens[-1],
        probability=finite_number(data.get("probability"), f"{where}: probability"),
        attention=attention, scores=optional_array(data.get("scores"), (width,), f"{where}: scores"),
        alternatives=alternatives, hypothesis_tokens=tuple(tokens),
        hypothesis_attention=rows,
        log_probability=finite_number(data.get("log_probability"), f"{where}: log_probability"),
        is_eos=flags["is_eos"], previous_steps=tuple(earlier), forced=flags["forced"],
        overridden=flags["overridden"],
        model_attention=optional_array(data.get("model_attention"), (width,), f"{where}: model_attention", weights=True),
        beam_level=_beam_level(data.get("beam_level"), built, where), **extra,
    )


def _beam_level(nodes: Any, built: list[DecodeStep], where: str) -> tuple[BeamNode, ...]:
    """The candidates a beam search weighed at the step (none when absent: greedy, older files)."""
    if nodes is None:
        return ()
    require(isinstance(nodes, list) and len(nodes) <= MAX_BEAM_CANDIDATES,
             f"{where}: beam_level must list at most {MAX_BEAM_CANDIDATES} candidates")
    return tuple(_beam_node(node, built, f"{where}: a beam candidate") for node in nodes)


def _beam_node(node: Any, built: list[DecodeStep], where: str) -> BeamNode:
    require(isinstance(node, list) and len(node) == 7,
             f"{where} must be [ids, token, probability, log_probability, status, score, step]")
    ids, token, probability, log_probability, status, score, step = node
    require(isinstance(ids, list) and 0 < len(ids) <= MAX_STEPS and all(is_whole(i) and i >= 0 for i in ids),
             f"{where}: ids must be its hypothesis' token ids")
    require(status in BEAM_STATUSES, f"{where}: status must be one of {', '.join(BEAM_STATUSES)}")
    require(step is None or (is_whole(step) and 0 <= step < len(built)),
             f"{where}: step must be null or the number of a step saved before it")
    return BeamNode(tuple(ids), bounded_text(token, f"{where}: token", 256), finite_number(probability, f"{where}: probability"),
                    finite_number(log_probability, f"{where}: log_probability"), status, finite_number(score, f"{where}: score"),
                    None if step is None else built[step])


def _previous(previous: Any, index: int, built: list[DecodeStep], where: str) -> list[int]:
    """A step's earlier steps: the numbers of its hypothesis' positions 0…index−1, each saved before it."""
    require(isinstance(previous, list) and len(previous) == index
             and all(is_whole(p) and 0 <= p < len(built) for p in previous),
             f"{where}: previous must name the {index} earlier steps of its hypothesis, each saved before it")
    require(all(built[p].index == k for k, p in enumerate(previous)),
             f"{where}: its earlier steps are not the hypothesis' positions 0–{index - 1}")
    return previous


def _earlier(data: dict[str, Any], index: int, built: list[DecodeStep], where: str) -> list[DecodeStep]:
    """A version-2 step's earlier steps: its ``parent`` (the hypothesis' step index − 1, whose own earlier
    steps come first), or, where a decode did not share them so, ``previous`` naming each."""
    require(("parent" in data) != ("previous" in data), f"{where}: a step names its parent or its earlier steps")
    if "previous" in data:
        return [built[p] for p in _previous(data["previous"], index, built, where)]
    parent = data["parent"]
    if index == 0:
        require(parent is None, f"{where}: the first step of a hypothesis has no parent")
        return []
    require(is_whole(parent) and 0 <= parent < len(built) and built[parent].index == index - 1,
             f"{where}: parent must be the number of its hypothesis' step {index - 1}, saved before it")
    return [*built[parent].previous_steps, built[parent]]


def _hypothesis_tokens(data: dict[str, Any], index: int, where: str) -> list[str]:
    """A step's hypothesis: its index + 1 tokens, ending with the step's own token."""
    tokens = data.get("hypothesis_tokens")
    require(isinstance(tokens, list) and len(tokens) == index + 1 and all(isinstance(t, str) and len(t) <= 256
                                                                         for t in tokens),
             f"{where}: hypothesis_tokens must be its {index + 1} tokens")
    assert isinstance(tokens, list)  # require() refused anything else
    token = bounded_text(data.get("token"), f"{where}: token", 256)
    require(tokens[-1] == token, f"{where}: the hypothesis does not end with its token")
    return tokens


def _hypothesis_of(data: dict[str, Any], attention: np.ndarray | None, earlier: list[DecodeStep],
                   where: str) -> tuple[list[str], np.ndarray | None]:
    """A version-2 step's hypothesis, rebuilt from its earlier steps: their tokens and attention rows,
    then its own (a step with attention needs every earlier step's row; float32, as the engine's)."""
    require("hypothesis_tokens" not in data and "hypothesis_attention" not in data,
             f"{where}: a version-2 step names its earlier steps instead of storing its hypothesis")
    token = bounded_text(data.get("token"), f"{where}: token", 256)
    tokens = [step.token for step in earlier] + [token]
    if attention is None:
        require(all(step.attention is None for step in earlier), f"{where}: attention is missing (its earlier steps "
                                                                     "have theirs)")
        return tokens, None
    require(all(step.attention is not None for step in earlier), f"{where}: an earlier step of its hypothesis has no "
                                                                    "attention row")
    return tokens, np.stack([step.attention for step in earlier] + [attention]).astype(np.float32)


def _alternatives(alternatives: Any, where: str) -> tuple[Alternative, ...]:
    require(isinstance(alternatives, list) and len(alternatives) <= 100, f"{where}: alternatives must be a list")
    choices = []
    for alternative in alternatives:
        require(isinstance(alternative, list) and len(alternative) == 3 and is_whole(alternative[0])
                 and isinstance(alternative[1], str) and len(alternative[1]) <= 256,
                 f"{where}: an alternative must be [token id, token, probability]")
        choices.append(Alternative(alternative[0], alternative[1], finite_number(alternative[2], f"{where}: a probability")))
    return tuple(choices)


def _head_attention(heads: Any, width: int, where: str) -> dict[str, np.ndarray | None]:
    """The ``head_attention`` keyword of the step (none where this engine's steps lack the field)."""
    require(heads is None or STEP_HAS_HEADS, f"{where}: recorded each head's attention, which this version lacks")
    if not STEP_HAS_HEADS:
        return {}
    return {"head_attention": None if heads is None else checked_array(heads, (None, width), f"{where}: head_attention", True)}


def _layer_attention(data: dict, width: int, index: int, where: str) -> dict[str, np.ndarray | None]:
    """A Transformer's step: ``layer_attention`` (L×H×S, each row attention over the source) and
    ``self_attention`` (L×H×(i+1), over the output so far) of the same layers and heads; None elsewhere."""
    layers = optional_array(data.get("layer_attention"), (None, None, width), f"{where}: layer_attention", True)
    own = optional_array(data.get("self_attention"), (None, None, index + 1), f"{where}: self_attention", True)
    require(own is None or (layers is not None and own.shape[:2] == layers.shape[:2]),
            f"{where}: self_attention must come with layer_attention, for the same layers and heads")
    return {"layer_attention": layers, "self_attention": own}


def session_from_json(document: Any) -> Session:
    """The session a parsed document holds, checked field by field (SessionFileError names the first fault)."""
    _check_format(document)
    model = _model(document.get("model"))
    source = _source_tokens(document.get("source_tokens"))
    settings = _settings(document.get("settings"))
    built = _steps(document.get("steps"), len(source), document["format_version"])
    shown = document.get("shown")
    require(isinstance(shown, list) and 0 < len(shown) <= MAX_STEPS
             and all(is_whole(k) and 0 <= k < len(built) for k in shown), "shown must list steps by their number")
    if not model["uses_attention"]:
        require(all(step.attention is None for step in built), "a model without attention recorded attention rows")
    _check_head_counts(built)
    return Session(dict(model), bounded_text(document.get("input"), "input"), tuple(source), dict(settings),
                   tuple(built[k] for k in shown))


def _check_head_counts(built: list[DecodeStep]) -> None:
    """One model decodes with one number of heads: every step's head rows count the same heads (a
    replay draws each step with the first one's head chooser)."""
    counts = sorted({len(heads) for step in built if (heads := getattr(step, "head_attention", None)) is not None})
    require(len(counts) <= 1, f"its steps carry different head counts ({', '.join(map(str, counts))}); one model's "
                              "steps all carry the same")
    shapes = sorted({step.layer_attention.shape[:2] for step in built if step.layer_attention is not None})
    require(len(shapes) <= 1, f"its steps carry different layers × heads ({', '.join(f'{a}×{b}' for a, b in shapes)}); "
                              "one model's steps all carry the same")


def _check_format(document: Any) -> None:
    """A session document of this version, unchanged since it was saved (its digest)."""
    require(isinstance(document, dict), "not a session file (the top level is not an object)")
    require(document.get("format") == SESSION_FORMAT, f"not a session file (format is {document.get('format')!r})")
    version = document.get("format_version")
    require(is_whole(version) and version in READ_VERSIONS,
             f"a session of format version {version!r}; this version reads {' and '.join(map(str, READ_VERSIONS))}")
    try:
        digest = _digest(document)
    except ValueError:  # NaN or an infinity: never written by a save
        raise SessionFileError("it holds a value that is not a finite number") from None
    require(isinstance(document.get("digest"), str) and document["digest"] == digest,
             "the file was changed after it was saved (its digest differs)")


def _model(model: Any) -> dict[str, Any]:
    require(isinstance(model, dict) and set(model) == set(MODEL_KEYS), f"model must hold {', '.join(MODEL_KEYS)}")
    for key in MODEL_KEYS:
        if key == "uses_attention":
            require(isinstance(model[key], bool), "model.uses_attention must be true or false")
        else:
            bounded_text(model[key], f"model.{key}", 1_000)
    return model


def _source_tokens(source: Any) -> list[str]:
    require(isinstance(source, list) and 0 < len(source) <= MAX_SOURCE_TOKENS
             and all(isinstance(t, str) and len(t) <= 256 for t in source),
             f"source_tokens must be 1–{MAX_SOURCE_TOKENS} tokens")
    return source


def _steps(rows: Any, width: int, version: int) -> list[DecodeStep]:
    """Every step event in the order saved, each checked (``width``: the source's length)."""
    require(isinstance(rows, list) and 0 < len(rows) <= MAX_STEPS, f"steps must be 1–{MAX_STEPS} step events")
    built: list[DecodeStep] = []
    for number, row in enumerate(rows):
        built.append(_step(row, number, built, width, version))
    return built


def _settings(settings: Any) -> dict[str, Any]:
    require(isinstance(settings, dict) and set(settings) == {"beam_size", "seconds_per_step"},
             "settings must hold beam_size and seconds_per_step")
    require(is_whole(settings["beam_size"]) and 1 <= settings["beam_size"] <= 64, "settings.beam_size must be 1–64")
    require(0 <= finite_number(settings["seconds_per_step"], "settings.seconds_per_step") <= 60,
             "settings.seconds_per_step must be 0–60")
    return settings


def load_session(path: Path) -> Session:
    """Read and check the session file ``path``; SessionFileError with the reason otherwise."""
    path = Path(path)
    if not path.exists() and not path.is_symlink():
        raise SessionFileError(f"no file at {path}")
    try:  # a regular file only, at most MAX_SESSION_BYTES read (engine.files.safe_open): a pipe or device is refused
        raw = read_capped(path, MAX_SESSION_BYTES, SessionFileError)
    except SessionFileError as error:
        raise SessionFileError(f"not a session file: {error}") from None
    try:
        document = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise SessionFileError(f"{path.name} is not a session file (not UTF-8 JSON: {error})") from None
    try:
        return session_from_json(document)
    except SessionFileError as error:
        raise SessionFileError(f"{path.name} is refused: {error}") from None
    except RecursionError:
        raise SessionFileError(f"{path.name} is refused: it nests too deep to check") from None


def __getattr__(name: str) -> Any:
    """The writer's names, kept here for callers of this module (engine/records/session_save.py holds them)."""
    if name in ("save_session", "session_json", "step_json", "session_saving"):
        from engine.records import session_save

        return getattr(session_save, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
