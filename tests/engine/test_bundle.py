"""Model folders: round trip, and every way a folder can be bad is refused with the reason."""

import json
import pickle
import shutil
from dataclasses import replace

import numpy as np
import pytest
import torch
from safetensors.torch import load_file, save_file

from engine.models.bundle import load_model_folder, save_model_folder
from engine.networks.model import build_model
from engine.settings.errors import ModelFileError
from engine.text.tokenizer import TokenizerSettings, train_tokenizer


@pytest.fixture
def folder(dates_models, tmp_path):
    copy = tmp_path / "model"
    shutil.copytree(dates_models["additive"], copy)
    return copy


@pytest.fixture(autouse=True)
def never_unpickle(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a model file was unpickled")

    monkeypatch.setattr(pickle, "load", refuse)
    monkeypatch.setattr(pickle, "loads", refuse)
    monkeypatch.setattr(torch, "load", refuse)


def _set_sha(folder, name="model.safetensors"):
    import hashlib

    info = json.loads((folder / "config.json").read_text())
    info["weights"]["sha256"] = hashlib.sha256((folder / name).read_bytes()).hexdigest()
    (folder / "config.json").write_text(json.dumps(info))


@pytest.mark.slow  # a trained model, or the real window
@pytest.mark.parametrize("storage", ["float32", "float16"])
def test_round_trip_gives_identical_translations(folder, tmp_path, storage):
    original = load_model_folder(folder)
    copy = save_model_folder(tmp_path / "copy", original.translator.model, original.translator.source_tokenizer,
                             original.translator.target_tokenizer, dict(original.info), storage)
    loaded = load_model_folder(copy)
    for sentence in ["29 Nov 2026", "二〇二六年十一月二十九日"]:
        a, b = original.translator.translate(sentence), loaded.translator.translate(sentence)
        assert a.tokens == b.tokens
        assert np.allclose(a.attention, b.attention, atol=1e-6 if storage == "float32" else 2e-2)
    assert loaded.info["weights"]["dtype"] == storage
    assert not list((tmp_path / "copy").glob("*.tmp")), "temporary files left behind"


@pytest.mark.slow  # a trained model, or the real window
@pytest.mark.parametrize("name", ["model.safetensors", "src.model", "tgt.model", "config.json"])
def test_a_missing_file_is_named(folder, name):
    (folder / name).unlink()
    with pytest.raises(ModelFileError, match=name):
        load_model_folder(folder)


@pytest.mark.slow  # a trained model, or the real window
def test_a_truncated_weights_file_is_refused(folder):
    data = (folder / "model.safetensors").read_bytes()
    (folder / "model.safetensors").write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelFileError, match="sha256 differs"):
        load_model_folder(folder)
    _set_sha(folder)  # even when the config is made to agree, the file itself is refused
    with pytest.raises(ModelFileError, match="not a valid safetensors"):
        load_model_folder(folder)


@pytest.mark.slow  # a trained model, or the real window
def test_a_bit_flip_is_detected(folder):
    data = bytearray((folder / "model.safetensors").read_bytes())
    data[-100] ^= 0x04
    (folder / "model.safetensors").write_bytes(bytes(data))
    with pytest.raises(ModelFileError, match="corrupted or replaced"):
        load_model_folder(folder)


@pytest.mark.slow  # a trained model, or the real window
def test_a_nan_weight_is_refused(folder):
    tensors = load_file(folder / "model.safetensors")
    name = sorted(tensors)[3]
    tensors[name][0] = float("nan")
    save_file(tensors, folder / "model.safetensors")
    _set_sha(folder)
    with pytest.raises(ModelFileError, match="NaN"):
        load_model_folder(folder)


@pytest.mark.slow  # a trained model, or the real window
def test_a_tokenizer_from_another_model_is_refused(folder):
    other = train_tokenizer([f"sentence number {i} of another corpus" for i in range(200)],
                            TokenizerSettings(vocab_size=300))
    (folder / "src.model").write_bytes(other.model_bytes)
    with pytest.raises(ModelFileError, match="another model"):
        load_model_folder(folder)


@pytest.mark.slow  # a trained model, or the real window
def test_a_planted_pickle_is_never_unpickled(folder):
    state = {"weights": [1, 2, 3]}
    (folder / "model.safetensors").write_bytes(pickle.dumps(state, protocol=4))
    with pytest.raises(ModelFileError, match="pickle"):
        load_model_folder(folder)


@pytest.mark.slow  # a trained model, or the real window
def test_weights_that_do_not_fit_the_architecture_are_refused(folder):
    info = json.loads((folder / "config.json").read_text())
    info["model"]["decoder_hidden_size"] += 1
    (folder / "config.json").write_text(json.dumps(info))
    with pytest.raises(ModelFileError, match="shape"):
        load_model_folder(folder)


@pytest.mark.slow  # a trained model, or the real window
def test_a_config_that_is_not_json_or_not_ours_is_refused(folder):
    (folder / "config.json").write_text("{not json")
    with pytest.raises(ModelFileError, match="not valid JSON"):
        load_model_folder(folder)
    (folder / "config.json").write_text(json.dumps({"format": "something-else"}))
    with pytest.raises(ModelFileError, match="format"):
        load_model_folder(folder)


def test_a_file_instead_of_a_folder_is_refused(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(ModelFileError, match="not a model folder"):
        load_model_folder(tmp_path / "file")


@pytest.fixture
def tied_folder(folder, tmp_path):
    """A model whose output layer is tied to its target embedding, saved as a model folder."""
    original = load_model_folder(folder)
    model = build_model(replace(original.model_config, tie_embeddings=True), seed=3)
    return save_model_folder(tmp_path / "tied", model, original.translator.source_tokenizer,
                             original.translator.target_tokenizer, dict(original.info), "float16")


@pytest.mark.slow  # a trained model, or the real window
def test_a_tied_matrix_is_stored_once_and_the_tie_survives_loading(tied_folder):
    stored = load_file(tied_folder / "model.safetensors")
    assert "decoder.embedding.weight" in stored and "decoder.output.weight" not in stored
    loaded = load_model_folder(tied_folder).translator.model
    assert loaded.decoder.output.weight is loaded.decoder.embedding.weight
    assert torch.equal(loaded.decoder.embedding.weight.half(), stored["decoder.embedding.weight"])


@pytest.mark.slow  # a trained model, or the real window
def test_an_older_file_holding_the_tied_matrix_twice_loads_only_when_both_copies_agree(tied_folder):
    stored = load_file(tied_folder / "model.safetensors")
    first = load_model_folder(tied_folder).translator.translate("29 Nov 2026")
    stored["decoder.output.weight"] = stored["decoder.embedding.weight"].clone()
    save_file(stored, tied_folder / "model.safetensors")
    _set_sha(tied_folder)
    assert load_model_folder(tied_folder).translator.translate("29 Nov 2026").tokens == first.tokens
    stored["decoder.output.weight"][0, 0] += 1
    save_file(stored, tied_folder / "model.safetensors")
    _set_sha(tied_folder)
    with pytest.raises(ModelFileError, match="decoder.output.weight must equal decoder.embedding.weight"):
        load_model_folder(tied_folder)


@pytest.mark.slow  # a trained model, or the real window
@pytest.mark.parametrize("entry", [("tokenizers", "source"), ("tokenizers", "target"), ("weights",)])
@pytest.mark.parametrize("name", ["../outside.model", "/etc/passwd", "checkpoint/src.model", 7])
def test_file_names_in_the_config_are_never_followed_outside_the_fixed_ones(folder, entry, name):
    config = json.loads((folder / "config.json").read_text())
    section = config
    for key in entry:
        section = section[key]
    section["file"] = name
    (folder / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelFileError, match="file: .* was expected|always"):
        load_model_folder(folder)


@pytest.mark.slow  # a trained model, or the real window
def test_written_files_get_the_umask_mode_not_owner_only(folder, tmp_path):
    import os

    previous = os.umask(0o022)
    try:
        bundle = load_model_folder(folder)
        out = save_model_folder(tmp_path / "copy", bundle.translator.model, bundle.translator.source_tokenizer,
                                bundle.translator.target_tokenizer, {"source_language": "en", "target_language": "de"})
    finally:
        os.umask(previous)
    modes = {path.name: path.stat().st_mode & 0o777 for path in out.iterdir() if path.is_file()}
    assert modes and set(modes.values()) == {0o644}, modes


@pytest.mark.parametrize("edit, reason", [
    (lambda c: c["model"].update(embedding_size=256.5), "model/embedding_size: 256.5 is not of type 'integer'"),
    (lambda c: c.update(tokenizers=[]), "tokenizers: [] is not of type 'object'"),
    (lambda c: c.update(weights="model.safetensors"), "weights: 'model.safetensors' is not of type 'object'"),
    (lambda c: c["weights"].update(dtype=["float16"]), "weights/dtype"),
    (lambda c: c["tokenizers"]["source"].update(file=3), "tokenizers/source/file"),
    (lambda c: c["model"].update(scorer="luong"), "model/scorer: 'luong' is not one of"),
    (lambda c: c["model"].update(hidden=3), "allowed: activation_dropout, attention_dropout, attention_size"),
    (lambda c: c.update(metrics="x"), "metrics: 'x' is not of type 'object'"),
])
@pytest.mark.slow  # a trained model, or the real window
def test_a_config_with_wrong_types_ranges_or_keys_is_refused_with_its_place(folder, edit, reason):
    config = json.loads((folder / "config.json").read_text())
    edit(config)
    (folder / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelFileError, match="not a valid model config") as refused:
        load_model_folder(folder)
    assert reason in str(refused.value)


@pytest.mark.slow  # a trained model, or the real window
def test_a_deeply_nested_config_is_refused_without_exhausting_the_stack(folder):
    config = json.loads((folder / "config.json").read_text())
    text = json.dumps(config)[:-1] + ', "metrics": ' + "[" * 100_000 + "]" * 100_000 + "}"
    (folder / "config.json").write_text(text)
    with pytest.raises(ModelFileError, match="nest"):
        load_model_folder(folder)
    nested: list = []
    for _ in range(70):
        nested = [nested]
    config["metrics"] = {"a": nested}
    (folder / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelFileError, match="nests deeper than 64 levels"):
        load_model_folder(folder)


@pytest.mark.slow  # a trained model, or the real window
def test_an_oversized_architecture_is_refused_before_anything_is_allocated(folder, monkeypatch):
    config = json.loads((folder / "config.json").read_text())
    config["model"].update(embedding_size=8192, encoder_hidden_size=8192, decoder_hidden_size=8192,
                           attention_size=8192, encoder_layers=8, src_vocab_size=1_000_000)
    (folder / "config.json").write_text(json.dumps(config))

    def never(*args, **kwargs):
        raise AssertionError("a model was built")

    monkeypatch.setattr("engine.models.bundle.build_model", never)
    with pytest.raises(ModelFileError, match="this app loads at most"):
        load_model_folder(folder)
    config["model"].update(embedding_size=64, encoder_hidden_size=512, decoder_hidden_size=512, attention_size=512,
                           encoder_layers=1, src_vocab_size=config["tokenizers"]["source"]["vocab_size"])
    (folder / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelFileError, match="do not belong together"):
        load_model_folder(folder)


@pytest.mark.slow  # a trained model, or the real window
def test_the_size_check_counts_every_architecture_exactly_and_loads_nothing_heavy(folder):
    """The check builds the model on the meta device without initializing it: the count is the
    real model's, and loading a folder in a fresh process never imports torch's compiler stack
    (normal_ on the meta device did: 2.4 s of the app's start-up)."""
    import subprocess
    import sys
    from pathlib import Path

    from engine.models.bundle import _NoInitialization
    from engine.networks.model import Seq2Seq
    from engine.settings.config import ModelConfig
    from engine.settings.scorer_table import RNN_SCORER_NAMES

    for scorer in RNN_SCORER_NAMES:  # every RNN mechanism the registry holds
        for cell in ("gru", "lstm"):
            config = ModelConfig(scorer=scorer, cell=cell, src_vocab_size=50, tgt_vocab_size=40)
            with torch.device("meta"), _NoInitialization():
                counted = Seq2Seq(config).parameter_count()
            assert counted == build_model(config).parameter_count(), (scorer, cell)
    script = ("import sys; from engine.models.bundle import load_model_folder; load_model_folder(sys.argv[1]); "
              "print(sorted(m for m in ('sympy', 'torch._dynamo') if m in sys.modules))")
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run([sys.executable, "-c", script, str(folder)], cwd=root, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
