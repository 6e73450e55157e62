"""The command line: train / translate / evaluate, output formats and exit codes."""

import functools
import json
import subprocess
import sys
from pathlib import Path

import pytest

import engine.training.jobs
from engine.__main__ import main
from engine.corpus.tasks import dates
from engine.models.bundle import load_model_folder

pytestmark = pytest.mark.slow  # trains a model, opens the real window, runs a subprocess or fuzzes many cases

ROOT = Path(__file__).resolve().parents[2]


def test_translate_json_prints_the_contract_object(dates_models, capsys):
    assert main(["translate", "--model", str(dates_models["additive"]), "--json", "29 Nov 2026", "3 May 1999"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2
    result = json.loads(lines[0])
    assert set(result) >= {"source", "source_tokens", "tokens", "text", "attention", "score"}
    assert result["source"] == "29 Nov 2026"
    assert len(result["attention"]) == len(result["tokens"])
    assert all(len(row) == len(result["source_tokens"]) for row in result["attention"])
    assert all(abs(sum(row) - 1) < 1e-4 for row in result["attention"])


def test_translate_reads_stdin_lines_when_no_text_is_given(dates_models, capsys, monkeypatch):
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO("29 Nov 2026\n\n1 May 2000\n"))
    assert main(["translate", "--model", str(dates_models["none"]), "--beam", "3"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 3


def test_evaluate_json_for_the_dates_task(dates_models, capsys):
    assert main(["evaluate", "--model", str(dates_models["additive"]), "--task", "dates", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result) >= {"bleu", "chrf", "signature", "n", "sentences_per_second", "exact_match"}
    assert 0 <= result["bleu"] <= 100 and 0 <= result["exact_match"] <= 1 and result["n"] == 500


def test_train_on_the_dates_task_writes_a_usable_model_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(engine.training.jobs.dates, "dates_split",
                        functools.partial(dates.dates_split, train_size=600, valid_size=40, test_size=40))
    out = tmp_path / "model"
    code = main(["train", "--task", "dates", "--scorer", "dot", "--epochs", "1", "--hidden-size", "32",
                 "--embedding-size", "16", "--out", str(out)])
    assert code == 0
    errors = capsys.readouterr().err
    assert "[valid] epoch 1" in errors and "[test] BLEU" in errors
    info = load_model_folder(out).info
    assert info["metrics"]["test"]["n"] == 40
    assert info["command"].startswith("python -m engine train --task dates")


def test_train_on_a_tsv_corpus_reports_bad_lines_and_evaluates(tmp_path, capsys):
    numbers = "零一二三四五六七八九"
    lines = [f"I have {n} apples.\t我有{numbers[n % 10]}{numbers[n // 10 % 10]}个苹果。\tCC-BY" for n in range(400)]
    lines.insert(5, "a line without any tab")
    corpus = tmp_path / "small.tsv"
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "model"
    code = main(["train", "--corpus", str(corpus), "--src", "zh", "--tgt", "en", "--scorer", "additive",
                 "--epochs", "1", "--hidden-size", "32", "--embedding-size", "16", "--src-vocab", "300",
                 "--tgt-vocab", "300", "--out", str(out)])
    assert code == 0
    assert "line 6: no tab" in capsys.readouterr().err
    assert main(["evaluate", "--model", str(out), "--test", str(corpus), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["n"] == load_model_folder(out).info["data"]["split"]["test"]
    # A file too small to train on can still be evaluated on (no training-split minimums).
    small = tmp_path / "thirty.tsv"
    small.write_text("\n".join([line for line in lines if "\t" in line][:30]) + "\n", encoding="utf-8")
    assert main(["evaluate", "--model", str(out), "--test", str(small), "--split", "all", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["n"] == 30


def test_train_with_the_token_cache_builds_it_once_and_a_second_run_reuses_it(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("ATTENTION_STUDIO_DATA", str(tmp_path / "data"))
    numbers = "零一二三四五六七八九"
    lines = [f"I have {n} apples.\t我有{numbers[n % 10]}{numbers[n // 10 % 10]}个苹果。\tCC-BY" for n in range(400)]
    corpus = tmp_path / "small.tsv"
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    common = ["train", "--corpus", str(corpus), "--token-cache", "--tokenizer-sample", "1000", "--scorer", "dot",
              "--max-steps", "3", "--hidden-size", "16", "--embedding-size", "8", "--src-vocab", "300",
              "--tgt-vocab", "300"]
    assert main([*common, "--out", str(tmp_path / "a")]) == 0
    first = capsys.readouterr().err
    assert "token cache built" in first and "[test] BLEU" in first
    assert main([*common, "--out", str(tmp_path / "b")]) == 0
    second = capsys.readouterr().err
    assert "token cache reused" in second and "training the tokenizers" not in second
    a, b = (load_model_folder(tmp_path / name) for name in "ab")
    assert a.info["data"]["token_cache"] == b.info["data"]["token_cache"]
    assert a.info["data"]["split"]["train"] == b.info["data"]["split"]["train"] > 200
    assert a.translator.source_tokenizer.sha256 == b.translator.source_tokenizer.sha256
    # What the cache cannot do is refused with the reason, before anything is read.
    assert main([*common, "--concat-max", "4", "--concat-share", "0.2", "--out", str(tmp_path / "c")]) == 2
    assert "re-read the training text" in capsys.readouterr().err
    assert main(["train", "--task", "dates", "--token-cache", "--scorer", "dot", "--out", str(tmp_path / "d")]) == 2
    assert "token cache is for corpus files" in capsys.readouterr().err


def test_train_with_the_peer_split_rule_records_it_and_scores_the_same_test_part(tmp_path, capsys):
    lines = [f"I have {n} apples.\t我有{n}个苹果。\tCC-BY" for n in range(300)]
    corpus = tmp_path / "small.tsv"
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "model"
    code = main(["train", "--corpus", str(corpus), "--scorer", "dot", "--split-rule", "peer", "--epochs", "1",
                 "--hidden-size", "32", "--embedding-size", "16", "--src-vocab", "300", "--tgt-vocab", "300",
                 "--tie-embeddings", "--temperature-warmup", "0.3", "--attention-dropout", "0.25", "--out", str(out)])
    assert code == 0
    assert load_model_folder(out).info["training"]["train_config"]["temperature_warmup"] == 0.3
    assert load_model_folder(out).model_config.attention_dropout == 0.25
    data = load_model_folder(out).info["data"]
    assert data["split"]["train"] + data["split"]["test"] == 300 and data["split"]["valid"] > 0
    assert "Joey NMT" in data["split_rule"] and "command" in load_model_folder(out).info
    assert main(["evaluate", "--model", str(out), "--test", str(corpus), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["n"] == data["split"]["test"]


def test_bad_files_exit_2_with_a_one_line_reason(tmp_path, capsys):
    assert main(["translate", "--model", str(tmp_path / "missing"), "x"]) == 2
    error = capsys.readouterr().err.strip()
    assert error.count("\n") == 0 and "not a model folder" in error
    (tmp_path / "bad.tsv").write_bytes(b"\x00\x01\x02" * 100)
    assert main(["train", "--corpus", str(tmp_path / "bad.tsv"), "--scorer", "dot", "--out",
                 str(tmp_path / "m")]) == 2
    assert "text corpus" in capsys.readouterr().err


def test_bad_arguments_exit_2(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["train", "--task", "dates", "--scorer", "cosine", "--out", "x"])
    assert exit_info.value.code == 2
    assert "invalid choice: 'cosine'" in capsys.readouterr().err


def test_help_documents_every_command_as_a_subprocess():
    for command in ("train", "translate", "evaluate"):
        result = subprocess.run([sys.executable, "-m", "engine", command, "--help"], cwd=ROOT,
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 0 and "--model" in result.stdout or "--out" in result.stdout


def test_the_length_penalty_option_reaches_beam_search_and_is_checked(dates_models, capsys):
    model = str(dates_models["additive"])
    assert main(["translate", "--model", model, "--beam", "3", "--length-penalty", "0.6", "29 Nov 2026"]) == 0
    assert capsys.readouterr().out.strip()
    assert main(["translate", "--model", model, "--beam", "3", "--length-penalty", "9", "29 Nov 2026"]) == 2
    assert "length_penalty must be between 0.0 and 5.0" in capsys.readouterr().err


def test_the_coverage_penalty_and_the_ngram_option_reach_the_search_and_are_checked(dates_models, capsys):
    from engine.settings.config import DecodeConfig

    model = str(dates_models["additive"])
    for beam in ("1", "3"):
        assert main(["translate", "--model", model, "--beam", beam, "--coverage-penalty", "0.4",
                     "--no-repeat-ngram", "1", "--json", "29 Nov 2026"]) == 0
        tokens = json.loads(capsys.readouterr().out)["tokens"]
        assert len(set(tokens)) == len(tokens)  # n = 1: no token twice
        translator = load_model_folder(model).translator
        config = DecodeConfig(beam_size=int(beam), coverage_penalty=0.4, no_repeat_ngram=1)
        assert tuple(tokens) == translator.translate("29 Nov 2026", config).tokens
    assert main(["evaluate", "--model", model, "--task", "dates", "--beam", "2", "--coverage-penalty", "0.2",
                 "--no-repeat-ngram", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["n"] == 500
    assert main(["translate", "--model", model, "--beam", "3", "--coverage-penalty", "9", "x"]) == 2
    assert "coverage_penalty must be between 0.0 and 5.0" in capsys.readouterr().err
    assert main(["evaluate", "--model", model, "--task", "dates", "--no-repeat-ngram", "-1"]) == 2
    assert "no_repeat_ngram must be between 0 and 20" in capsys.readouterr().err


def test_a_models_own_ngram_constraint_is_the_beams_default_and_greedy_stays_unconstrained(dates_models, tmp_path,
                                                                                           capsys):
    import shutil

    from engine.models.config_file import read_config, update_config

    model = tmp_path / "tuned"
    shutil.copytree(dates_models["additive"], model, ignore=shutil.ignore_patterns("checkpoint*"))
    info = read_config(model)
    info["decoding"] = {**(info.get("decoding") or {}), "no_repeat_ngram": 1}
    update_config(model, info)
    bundle = load_model_folder(model)
    assert bundle.no_repeat_ngram == 1
    assert bundle.decode_config(3).no_repeat_ngram == 1 and bundle.decode_config(1).no_repeat_ngram == 0
    assert bundle.decode_config(3, no_repeat_ngram=0).no_repeat_ngram == 0
    def output(text: str, beam: int, n: int) -> tuple[str, ...]:
        return bundle.translator.translate(text, bundle.decode_config(beam, no_repeat_ngram=n)).tokens

    # An input whose output repeats a token, so that the checks below can tell the constraint's effect.
    text = next(t for t in ("22 Feb 2022", "11 Nov 2011", "2 Dec 2022", "12 Dec 2012") if output(t, 3, 0) != output(t, 3, 1))
    for flags, n in ((["--beam", "3"], 1), (["--beam", "1"], 0), (["--beam", "3", "--no-repeat-ngram", "0"], 0)):
        assert main(["translate", "--model", str(model), *flags, "--json", text]) == 0
        assert tuple(json.loads(capsys.readouterr().out)["tokens"]) == output(text, int(flags[1]), n)


def test_invalid_utf8_and_lone_surrogates_are_replaced_with_a_note_never_a_traceback(dates_models):
    model = str(dates_models["additive"])
    argv_bytes = [sys.executable.encode(), b"-m", b"engine", b"translate", b"--model", model.encode(),
                  b"3 May \xff\xfe 1999"]
    result = subprocess.run(argv_bytes, cwd=ROOT, capture_output=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert b"argument 1 is not valid UTF-8 (byte 0xff at byte 6)" in result.stderr
    assert b"Traceback" not in result.stderr and result.stdout.strip()
    stdin = b"29 Nov 2026\n\xed\xa0\x80 1 May 2000\n\xc3\n"  # an encoded lone surrogate, a cut-off sequence
    result = subprocess.run([sys.executable, "-m", "engine", "translate", "--model", model, "--json"], cwd=ROOT,
                            input=stdin, capture_output=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert b"stdin line 2 is not valid UTF-8" in result.stderr and b"stdin line 3" in result.stderr
    assert len(result.stdout.splitlines()) == 3  # one output per input line: nothing is lost
    assert b"Traceback" not in result.stderr


def test_normalization_turns_lone_surrogates_into_the_replacement_character():
    from engine.text.normalization import normalize

    assert normalize("a\udcff b\ud800", "en") == "a\ufffd b\ufffd"
    assert normalize("你\udc80好", "zh") == "你\ufffd好"


def test_translate_force_target_prints_the_forced_json_contract(dates_models, capsys):
    model = str(dates_models["additive"])
    assert main(["translate", "--model", model, "--json", "29 Nov 2026"]) == 0
    free = json.loads(capsys.readouterr().out)
    assert main(["translate", "--model", model, "--json", "--force-target", free["text"], "29 Nov 2026"]) == 0
    forced = json.loads(capsys.readouterr().out)
    assert forced["forced"] is True and forced["tokens"] == free["tokens"]
    assert forced["attention"] == free["attention"] and forced["log_probability"] == free["score"]
    assert main(["translate", "--model", model, "--force-target", "", "29 Nov 2026"]) == 2
    assert "target is empty" in capsys.readouterr().err
    assert main(["translate", "--model", model, "--beam", "3", "--force-target", "x", "29 Nov 2026"]) == 2
