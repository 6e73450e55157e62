"""The record of training words in a model folder: written by training, read back on load, damaged or
missing without harm, listed by ``translate --json``, added to older folders by
scripts/record_training_words.py."""

import json
import shutil

import pytest

from engine.__main__ import main
from engine.files.paths import SHIPPED_MODELS, TATOEBA_CORPUS
from engine.files.stored import file_sha256
from engine.models.bundle import load_model_folder, save_model_folder
from engine.models.config_file import read_config, update_config
from engine.text.training_words import NOT_RECORDED, WORDS_FILE
from tests.scripts import load_script

pytestmark = pytest.mark.slow  # trained models, subprocess-free but reading whole folders and the corpus


def _copy(dates_models, tmp_path, name: str = "model"):
    folder = tmp_path / name
    shutil.copytree(dates_models["additive"], folder, ignore=shutil.ignore_patterns("checkpoint*", "snapshots*"))
    return folder


def _strip_record(folder) -> None:
    """The folder as a model saved before models recorded their words."""
    info = read_config(folder)
    del info["training_words"]
    update_config(folder, info)
    (folder / WORDS_FILE).unlink()


def test_a_tiny_training_writes_the_record_of_its_training_sources(dates_models):
    folder = dates_models["additive"]
    info = read_config(folder)
    entry = info["training_words"]
    assert entry["file"] == WORDS_FILE and entry["sha256"] == file_sha256(folder / WORDS_FILE)
    record = load_model_folder(folder).translator.training_words
    assert record is not None and record.language == info["source_language"]
    assert record.sentences == 4000  # the training pairs of tests/model_factory.py, none held out
    assert {"nov", "november", "may", "the", "of"} <= record.words and {"年", "月", "日"} <= record.characters
    assert (entry["words"], entry["characters"]) == (len(record.words), len(record.characters))


def test_the_translator_names_the_input_words_it_never_saw(dates_models):
    translator = load_model_folder(dates_models["additive"]).translator
    assert translator.unseen_words("29 Grandparents 2026") == ["Grandparents"]
    assert translator.unseen_words("29 NOV 2026") == []  # as the model reads it: case aside
    assert translator.unseen_words("２９ Ｎｏｖ ２０２６") == []  # full-width letters normalized first
    assert translator.unseen_characters("2026年11月29日饺") == ["饺"]


@pytest.mark.parametrize("damage", ["missing", "edited", "oversize", "older folder"])
def test_a_damaged_or_missing_record_leaves_the_model_loading_and_translating(dates_models, tmp_path, monkeypatch,
                                                                               damage):
    folder = _copy(dates_models, tmp_path)
    if damage == "missing":
        (folder / WORDS_FILE).unlink()
    elif damage == "edited":
        (folder / WORDS_FILE).write_bytes((folder / WORDS_FILE).read_bytes().replace(b'"nov"', b'"nox"'))
    elif damage == "oversize":
        monkeypatch.setattr("engine.text.training_words.MAX_RECORD_BYTES", 64)
    else:
        _strip_record(folder)
    translator = load_model_folder(folder).translator
    assert translator.training_words is None and translator.unseen_words("29 Grandparents 2026") == []
    note = translator.training_words_note
    expected = {"missing": "is missing", "edited": "sha256 differs", "oversize": "larger than",
                "older folder": NOT_RECORDED}[damage]
    assert expected in note and "\n" not in note
    assert translator.translate("29 Nov 2026").text


def test_translate_json_lists_the_unseen_words_and_keeps_every_other_key(dates_models, tmp_path, capsys):
    assert main(["translate", "--model", str(dates_models["additive"]), "--json", "29 Grandparents 2026",
                 "3 May 1999"]) == 0
    captured = capsys.readouterr()
    first, second = (json.loads(line) for line in captured.out.strip().splitlines())
    assert first["unseen"] == ["Grandparents"] and second["unseen"] == []
    assert set(first) >= {"source", "source_tokens", "tokens", "text", "attention", "score", "warning"}
    assert "[note]" not in captured.err
    older = _copy(dates_models, tmp_path)
    _strip_record(older)
    assert main(["translate", "--model", str(older), "--json", "29 Grandparents 2026", "3 May 1999"]) == 0
    captured = capsys.readouterr()
    assert [json.loads(line)["unseen"] for line in captured.out.strip().splitlines()] == [None, None]
    assert captured.err.count(NOT_RECORDED) == 1  # said once, not per input
    assert main(["translate", "--model", str(dates_models["additive"]), "29 Grandparents 2026"]) == 0
    assert "[note] never seen in training: Grandparents" in capsys.readouterr().err


def test_saving_without_a_record_removes_the_old_one_in_the_same_commit(dates_models, tmp_path):
    folder = _copy(dates_models, tmp_path)
    bundle = load_model_folder(folder)
    translator = bundle.translator
    metadata = {key: value for key, value in bundle.info.items()
                if key not in ("format", "format_version", "model", "parameter_count", "weights", "tokenizers")}
    save_model_folder(folder, translator.model, translator.source_tokenizer, translator.target_tokenizer, metadata,
                      training_words=translator.training_words)
    assert load_model_folder(folder).translator.training_words == translator.training_words
    save_model_folder(folder, translator.model, translator.source_tokenizer, translator.target_tokenizer, metadata)
    assert not (folder / WORDS_FILE).exists() and "training_words" not in read_config(folder)
    assert load_model_folder(folder).translator.training_words_note == NOT_RECORDED


def test_the_script_refuses_a_folder_whose_split_it_cannot_read_again(dates_models, tmp_path):
    script = load_script("record_training_words")
    folder = _copy(dates_models, tmp_path)
    _strip_record(folder)  # tests/model_factory.py's split has sizes of its own, not recorded
    with pytest.raises(script.RecordError, match="does not come out as recorded"):
        script.record_folder(folder, TATOEBA_CORPUS, {})
    assert not (folder / WORDS_FILE).exists()


@pytest.mark.skipif(not (SHIPPED_MODELS / "en-zh-none" / WORDS_FILE).is_file(), reason="en-zh-none not shipped")
def test_the_script_gives_a_shipped_model_its_record_again_without_touching_weights_or_tokenizers(tmp_path):
    script = load_script("record_training_words")
    folder = tmp_path / "en-zh-none"
    shutil.copytree(SHIPPED_MODELS / "en-zh-none", folder)
    _strip_record(folder)
    hashes = {name: file_sha256(folder / name) for name in ("model.safetensors", "src.model", "tgt.model")}
    assert "recorded 6,667 words" in script.record_folder(folder, TATOEBA_CORPUS, {})
    assert (folder / WORDS_FILE).read_bytes() == (SHIPPED_MODELS / "en-zh-none" / WORDS_FILE).read_bytes()
    assert read_config(folder) == read_config(SHIPPED_MODELS / "en-zh-none")
    assert {name: file_sha256(folder / name) for name in hashes} == hashes
    assert "already recorded" in script.record_folder(folder, TATOEBA_CORPUS, {})
    assert load_model_folder(folder).translator.unseen_words("My grandparents like Python.") == ["grandparents",
                                                                                                "Python"]
