"""Property-based tests of every reader of a stored file (engine.files.stored): a checkpoint, a run's request
and stored command, the metrics log, a length study, a token cache and a weight snapshot. Random byte
flips, truncations, values swapped for values of another type and non-finite numbers are refused with
one line that names the file — or read back as they were, when the change made no difference — and
never raise anything else. Each reader gets a bounded number of examples (80; the module takes about
15 s on two free cores, about a minute beside a training)."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.corpus.token_cache import TokenPairs, corpus_digest, prepare_cached
from engine.files.schema import SchemaError
from engine.files.stored import canonical_digest, file_sha256
from engine.records.run_spec import stored_train_arguments
from engine.settings.errors import EngineError, StoredFileError
from engine.studies.length_study import LengthStudy, stored_length_study
from engine.text.tokenizer import TokenizerSettings
from engine.training import metrics_log
from engine.training.checkpoint import load_checkpoint, restore_training_state, save_checkpoint
from engine.training.checkpoint_state import CHECKPOINT_FOLDER, STATE_FILE
from engine.training.events import FinishedEvent, FinishReason, StepEvent
from engine.training.metrics_log import (
    METRICS_FILE,
    events_from_records,
    last_finish_reason,
    read_description,
    read_log,
)
from engine.training.metrics_schema import check_record, record_specs
from engine.training.snapshots import read_snapshot, save_snapshot
from tests.engine.test_checkpoint_commit import _parts
from tests.engine.test_length_study import STUDY
from tests.engine.test_metrics_damage import write_log
from tests.engine.test_token_cache import _corpus

pytestmark = pytest.mark.slow  # trains a model, opens the real window, runs a subprocess or fuzzes many cases

FUZZ = settings(max_examples=80, deadline=None, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                       HealthCheck.data_too_large])
OTHER_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20), st.text(max_size=4),
                         st.floats(allow_nan=True, allow_infinity=True), st.just([]), st.just({}), st.just([1, "a"]))
NON_FINITE = st.sampled_from([math.inf, -math.inf, math.nan, 1e999])


def _paths(value, path=()):
    """Every place in a JSON document: (path, value)."""
    yield path, value
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        yield from _paths(child, (*path, key))


def _replace(document, path, new):
    if not path:
        return new
    copy = json.loads(json.dumps(document))
    parent = copy
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = new
    return copy


@st.composite
def changed_json(draw, document):
    """``document`` with one value swapped for one of another type, or one number made non-finite."""
    places = list(_paths(document))
    numbers = [path for path, value in places if isinstance(value, int | float) and not isinstance(value, bool)]
    if numbers and draw(st.booleans()):
        return _replace(document, draw(st.sampled_from(numbers)), draw(NON_FINITE))
    path, old = draw(st.sampled_from(places))
    new = draw(OTHER_VALUES.filter(lambda value: type(value) is not type(old)))
    return _replace(document, path, new)


@st.composite
def changed_bytes(draw, data: bytes):
    """``data`` with a few bytes flipped, or cut short."""
    if draw(st.booleans()):
        return data[: draw(st.integers(0, len(data) - 1))]
    changed = bytearray(data)
    for _ in range(draw(st.integers(1, 4))):
        changed[draw(st.integers(0, len(data) - 1))] ^= draw(st.integers(1, 255))
    return bytes(changed)


def _one_line_naming(error: BaseException, where: Path) -> None:
    message = str(error)
    assert "\n" not in message and str(where) in message, message


# -- checkpoints ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def checkpoint_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("checkpoint")
    save_checkpoint(folder, _parts(4)[3])
    files = {path.name: path.read_bytes() for path in (folder / CHECKPOINT_FOLDER).iterdir()}
    return files, load_checkpoint(folder)


def _write_checkpoint(root: Path, files: dict[str, bytes]) -> Path:
    shutil.rmtree(root, ignore_errors=True)
    (root / CHECKPOINT_FOLDER).mkdir(parents=True)
    for name, data in files.items():
        (root / CHECKPOINT_FOLDER / name).write_bytes(data)
    return root


def _same_checkpoint(a, b) -> bool:
    return (canonical_digest(a.progress) == canonical_digest(b.progress)
            and all(torch.equal(a.model_state[k], b.model_state[k]) for k in b.model_state))


@FUZZ
@given(data=st.data())
def test_a_changed_checkpoint_file_is_refused_in_one_line(tmp_path_factory, checkpoint_files, data):
    files, original = checkpoint_files
    name = data.draw(st.sampled_from(sorted(files)))
    root = _write_checkpoint(tmp_path_factory.mktemp("fuzz"), {**files, name: data.draw(changed_bytes(files[name]))})
    try:
        loaded = load_checkpoint(root)
    except StoredFileError as error:
        _one_line_naming(error, root)
    else:
        assert _same_checkpoint(loaded, original)  # e.g. a flipped space of state.json: the same content


@FUZZ
@given(data=st.data())
def test_a_mistyped_checkpoint_state_is_refused_in_one_line_even_with_its_digest_made_again(tmp_path_factory,
                                                                                           checkpoint_files, data):
    files, _ = checkpoint_files
    state = json.loads(files[STATE_FILE])
    body = data.draw(changed_json({k: v for k, v in state.items() if k != "digest"}))
    edited = json.dumps({**body, "digest": canonical_digest(body)} if isinstance(body, dict) else body)
    root = _write_checkpoint(tmp_path_factory.mktemp("fuzz"), {**files, STATE_FILE: edited.encode()})
    model, optimizer, scheduler, _ = _parts(1)
    try:
        restore_training_state(load_checkpoint(root), model, optimizer, scheduler, root)
    except StoredFileError as error:
        _one_line_naming(error, root)


# -- the metrics log and the stored command -------------------------------------------------------------

@pytest.fixture(scope="module")
def log_bytes(tmp_path_factory):
    folder = tmp_path_factory.mktemp("log")
    write_log(folder, 6, validation_every=3).append(
        FinishedEvent(FinishReason.COMPLETED, 20.0, 1, 6, 1, 5.0, 900.0, 0, str(folder)))
    return (folder / METRICS_FILE).read_bytes()


def _check_log(folder: Path) -> None:
    read = read_log(folder)
    for record in read.records:
        check_record(record)  # only whole, valid lines come out
        record_specs()[record["kind"]].check(record)  # by the precise check too, not only the compiled test
    events = events_from_records(read.records)
    assert len(events) == len([r for r in read.records if r["kind"] != "start"])
    steps = [e for e in events if isinstance(e, StepEvent)]
    assert np.isfinite(np.array([[e.step, e.epoch, e.elapsed_seconds] for e in steps], dtype=float)).all()
    if read.skipped:
        _one_line_naming(Exception(read.skipped_note(folder)), folder)


@FUZZ
@given(data=st.data())
def test_a_changed_metrics_log_gives_its_valid_lines_and_counts_the_others(tmp_path_factory, log_bytes, data):
    folder = tmp_path_factory.mktemp("fuzz")
    lines = log_bytes.splitlines(keepends=True)
    index = data.draw(st.integers(0, len(lines) - 1))
    if data.draw(st.booleans()):
        line = data.draw(changed_bytes(lines[index]))
    else:
        line = (json.dumps(data.draw(changed_json(json.loads(lines[index]))), allow_nan=True) + "\n").encode()
    (folder / METRICS_FILE).write_bytes(b"".join([*lines[:index], line, *lines[index + 1:]]))
    _check_log(folder)
    records = read_log(folder).records  # how the run ended, read from the end: as from the start
    ended = records[-1] if records and records[-1]["kind"] == "finished" else None
    if ended is not None or last_finish_reason(folder) is None:  # (a finished line needs only its reason)
        assert last_finish_reason(folder) == (None if ended is None else FinishReason(ended["reason"]))
    try:
        arguments = stored_train_arguments(folder)
    except StoredFileError as error:
        _one_line_naming(error, folder)
    else:
        assert arguments is None or all(isinstance(a, str) for a in arguments)
    description = read_description(folder)
    assert description is None or description["kind"] == "start"


@FUZZ
@given(lines=st.lists(st.binary(max_size=80).map(lambda b: b.replace(b"\n", b"")), max_size=12),
       tail=st.binary(max_size=30).map(lambda b: b.replace(b"\n", b"")), block=st.integers(1, 40))
def test_the_log_read_backwards_gives_the_lines_read_forwards(tmp_path_factory, monkeypatch, lines, tail, block):
    monkeypatch.setattr(metrics_log, "MAX_LINE_BYTES", 50)
    path = tmp_path_factory.mktemp("lines") / METRICS_FILE
    path.write_bytes(b"".join(line + b"\n" for line in lines) + tail)
    forwards = [line for _, line in metrics_log._complete_lines(path, 0)]
    assert list(metrics_log._lines_from_end(path, block)) == forwards[::-1]
    assert forwards == [line + b"\n" if len(line) <= 50 else b"" for line in lines]


@FUZZ
@given(data=st.data())
def test_the_compiled_test_of_a_line_agrees_with_the_precise_check(log_bytes, data):
    record = json.loads(data.draw(st.sampled_from(log_bytes.splitlines())))
    changed = data.draw(changed_json(record))
    spec = record_specs()[record["kind"]]
    try:
        spec.check(changed)
        fits = True
    except SchemaError:
        fits = False
    assert spec.accepts(changed) == fits


# -- length studies ------------------------------------------------------------------------------------

@FUZZ
@given(data=st.data())
def test_a_changed_length_study_reads_as_none_or_as_finite_figures(data):
    study = data.draw(changed_json(STUDY))
    read = LengthStudy.from_json(study)
    stored = stored_length_study({"metrics": {"length_study": {"beam1": study}}})
    if read is not None:
        assert stored is not None
        assert all(math.isfinite(b.bleu) and math.isfinite(b.chrf) and b.n >= 0 for b in read.buckets)
    text = data.draw(changed_bytes(json.dumps(STUDY).encode()))
    try:
        parsed = json.loads(text)
    except ValueError:
        return
    LengthStudy.from_json(parsed)  # never raises


# -- token caches and the corpus digest memo ---------------------------------------------------------

@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    root = tmp_path_factory.mktemp("cache")
    settings_ = (TokenizerSettings.for_language("zh", 300), TokenizerSettings.for_language("en", 300))
    cached = prepare_cached(_corpus(root / "corpus", 120), "zh", "en", "strict", settings_, sample_size=1000,
                            cache_root=root / "cache")
    return cached, root


@FUZZ
@given(data=st.data())
def test_a_changed_token_cache_is_refused_in_one_line(tmp_path_factory, cache, data):
    cached, _ = cache
    source = cached.train_pairs.folder
    folder = tmp_path_factory.mktemp("fuzz") / source.name
    shutil.copytree(source, folder)
    name = data.draw(st.sampled_from(sorted(p.name for p in folder.iterdir())))
    original = (folder / name).read_bytes()
    if name == "ids.json" and data.draw(st.booleans()):
        changed = json.dumps(data.draw(changed_json(json.loads(original))), allow_nan=True).encode()
    else:
        changed = data.draw(changed_bytes(original))
    (folder / name).write_bytes(changed)
    try:
        pairs = TokenPairs(folder)
    except StoredFileError as error:
        _one_line_naming(error, folder)
    else:
        assert [pairs[i] for i in range(len(pairs))] == [cached.train_pairs[i] for i in range(len(cached.train_pairs))]


@FUZZ
@given(data=st.data())
def test_a_changed_corpus_digest_memo_is_forgotten_never_trusted(cache, data):
    cached, root = cache
    corpus = root / "corpus" / "pairs.tsv"
    memo = root / "cache" / "digests.json"
    original = memo.read_bytes()
    try:
        memo.write_bytes(data.draw(changed_bytes(original)))
        assert corpus_digest(corpus, root / "cache") == file_sha256(corpus)
    finally:
        memo.write_bytes(original)


# -- weight snapshots ------------------------------------------------------------------------------------

@FUZZ
@given(data=st.data())
def test_a_changed_snapshot_is_refused_in_one_line(tmp_path_factory, data):
    folder = tmp_path_factory.mktemp("fuzz")
    weights = {"encoder.w": torch.linspace(-1, 1, 12).reshape(3, 4), "decoder.b": torch.ones(5)}
    path = save_snapshot(folder, 8, weights, keep=2)
    path.write_bytes(data.draw(changed_bytes(path.read_bytes())))
    try:
        read = read_snapshot(path)
    except StoredFileError as error:
        _one_line_naming(error, path)
    else:
        # Snapshots are float16 (engine.training.snapshots.snapshot_dtype): a read that passes gives the stored values.
        assert read.keys() == weights.keys() and all(torch.equal(read[k], weights[k].half()) for k in weights)


def test_every_reader_refuses_with_an_engine_error():
    assert issubclass(StoredFileError, EngineError)  # the command line prints it as one line and exits 2
