"""Property-based tests of the session-file and corpus-alignment readers, as the metrics log's and the
other stored files' (tests/engine/test_stored_fuzz.py): random byte flips, truncations, values swapped
for values of another type and non-finite numbers are refused with one line of the reader's own error,
or read back as they were — never anything else raised."""

from __future__ import annotations

import gzip
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.records import SessionFileError
from engine.records.session_file import _digest, load_session, session_from_json
from engine.records.session_save import save_session, step_json
from engine.studies.alignment_store import AlignmentFileError, alignment_from_json, load_alignment, save_alignment
from tests.engine.test_alignment_store import alignment
from tests.engine.test_session_file import session
from tests.engine.test_stored_fuzz import FUZZ, changed_bytes, changed_json


def _one_line(error: BaseException) -> None:
    message = str(error)
    assert message and "\n" not in message, message


# -- session files ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def session_file(tmp_path_factory):
    path = save_session(tmp_path_factory.mktemp("session") / "s.session.json", session())
    return path.read_bytes(), [step_json(step) for step in load_session(path).steps]


@FUZZ
@given(data=st.data())
def test_a_changed_session_file_is_refused_in_one_line(tmp_path_factory, session_file, data) -> None:
    original, steps = session_file
    path = tmp_path_factory.mktemp("fuzz") / "s.session.json"
    path.write_bytes(data.draw(changed_bytes(original)))
    try:
        loaded = load_session(path)
    except SessionFileError as error:
        _one_line(error)
    else:
        assert [step_json(step) for step in loaded.steps] == steps  # a flipped space: the same content


@FUZZ
@given(data=st.data())
def test_a_mistyped_session_is_refused_in_one_line_even_with_its_digest_made_again(session_file, data) -> None:
    document = json.loads(session_file[0])
    body = data.draw(changed_json({key: value for key, value in document.items() if key != "digest"}))
    if isinstance(body, dict):
        try:
            body = {**body, "digest": _digest(body)}
        except ValueError:  # a non-finite number: no digest can be made, the reader refuses it as such
            body = {**body, "digest": document["digest"]}
    try:
        session_from_json(body)
    except SessionFileError as error:
        _one_line(error)


# -- the corpus alignment ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def alignment_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("alignment") / "a.json.gz"
    save_alignment(path, alignment())
    return path.read_bytes(), load_alignment(path).digest


@FUZZ
@given(data=st.data())
def test_a_changed_alignment_file_is_refused_in_one_line(tmp_path_factory, alignment_file, data) -> None:
    original, digest = alignment_file
    packed = data.draw(st.booleans())
    text = gzip.decompress(original)
    changed = data.draw(changed_bytes(original)) if packed else gzip.compress(data.draw(changed_bytes(text)))
    path = tmp_path_factory.mktemp("fuzz") / "a.json.gz"
    path.write_bytes(changed)
    try:
        loaded = load_alignment(path)
    except AlignmentFileError as error:
        _one_line(error)
    else:
        assert loaded.digest == digest or not packed  # a flipped byte of the text may change a link and still read


@FUZZ
@given(data=st.data())
def test_a_mistyped_alignment_is_refused_in_one_line(alignment_file, data) -> None:
    document = json.loads(gzip.decompress(alignment_file[0]))
    try:
        alignment_from_json(data.draw(changed_json(document)))
    except AlignmentFileError as error:
        _one_line(error)


def test_a_damaged_deflate_stream_is_an_alignment_file_error(tmp_path, alignment_file) -> None:
    packed = bytearray(alignment_file[0])
    packed[10] ^= 1  # the first byte of the deflate stream: zlib reports "invalid stored block lengths"
    (tmp_path / "a.json.gz").write_bytes(bytes(packed))
    with pytest.raises(AlignmentFileError, match="cannot be read") as refused:
        load_alignment(tmp_path / "a.json.gz")
    _one_line(refused.value)
