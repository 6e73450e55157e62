"""``translate --explain METHOD [--contrast STEP=PIECE]``: the JSON attribution, the text lines, bad input.

Runs the command in-process on a shipped model (loading it and attributing a short sentence take seconds
on two shared cores: the slow tier)."""

import json

import pytest

import engine.decoding.translator
from engine.__main__ import main

pytestmark = pytest.mark.slow

MODEL = "zh-en-additive"


def run(capsys, *arguments):
    status = main(["translate", "--model", MODEL, *arguments])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("method", ["ig", "grad", "occlusion"])
def test_the_json_object_gains_an_attribution_of_every_step_over_source_and_prefix(capsys, method):
    status, out, _ = run(capsys, "--json", "--explain", method, "我喜欢看书。")
    assert status == 0
    result = json.loads(out)
    attribution = result["attribution"]
    tokens, sources = result["tokens"], result["source_tokens"]
    assert attribution["method"] == method and attribution["label"]
    assert len(attribution["source"]) == len(tokens) and all(len(row) == len(sources) for row in attribution["source"])
    assert [len(row) for row in attribution["prefix"]] == list(range(len(tokens)))
    assert all(0.0 <= share <= 1.0 for share in attribution["source_share"])
    assert attribution["contrast"] == {}
    assert (attribution["ig_steps"] == 32) == (method == "ig")


def test_a_contrast_is_named_by_a_word_or_a_piece_and_marked_in_the_text_lines(capsys):
    status, out, _ = run(capsys, "--json", "--explain", "occlusion", "--contrast", "1=watching", "我喜欢看书。")
    assert status == 0 and json.loads(out)["attribution"]["contrast"] == {"1": "▁watching"}
    status, out, _ = run(capsys, "--explain", "occlusion", "--contrast", "1=▁watching", "我喜欢看书。")
    lines = out.splitlines()
    assert status == 0 and lines[0] == "I like reading a book."
    assert "(not ▁watching)" in lines[3] and lines[3].startswith("1\t")
    assert len(lines) == 2 + 7  # the text, a heading, one line per output piece


@pytest.mark.parametrize("arguments, message", [
    (["--contrast", "1=watching"], "--contrast makes an attribution contrastive: use it with --explain"),
    (["--explain", "ig", "--contrast", "one=watching"], "write STEP=PIECE"),
    (["--explain", "ig", "--contrast", "1=xyzzy"], "is not one piece of the target vocabulary"),
    (["--explain", "ig", "--contrast", "40=the"], "contrast position 40 is outside the output"),
    (["--explain", "ig", "--contrast", "0=▁I"], "is the output piece itself"),
    (["--explain", "ig", "--force-target", "I read."], "it takes no --force-target"),
    (["--explain", "ig", "--ig-steps", "1"], "--ig-steps must be at least 2"),
])
def test_bad_flags_end_in_one_line_with_exit_2(capsys, arguments, message):
    status, out, err = run(capsys, *arguments, "我喜欢看书。")
    assert status == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1


def test_an_unknown_method_lists_the_valid_ones(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["translate", "--model", MODEL, "--explain", "saliency", "x"])
    assert stop.value.code == 2
    assert "choose from 'ig', 'grad', 'occlusion'" in capsys.readouterr().err


def test_bad_input_gets_the_same_lines_as_translate(capsys, monkeypatch):
    _, plain, plain_err = run(capsys, "--json", "   ")
    _, explained, explained_err = run(capsys, "--json", "--explain", "grad", "   ")
    assert json.loads(explained) == json.loads(plain) | {"attribution": None}
    assert explained_err == plain_err
    status, out, err = run(capsys, "--explain", "grad", "   ")
    assert status == 0 and out == "\n" and "empty input" in err
    _, out, _ = run(capsys, "--json", "--explain", "grad", "I like reading books.")
    result = json.loads(out)
    assert result["warning"]["kind"] == "wrong_language" and len(result["attribution"]["source"]) == len(result["tokens"])
    monkeypatch.setattr(engine.decoding.translator, "MAX_SOURCE_TOKENS", 5)  # the cap, lowered: a short decode
    _, out, _ = run(capsys, "--json", "--explain", "grad", "我喜欢看书。我喜欢看报纸。")
    result = json.loads(out)
    assert result["truncated"] and "truncated" in result["notice"] and len(result["source_tokens"]) == 5
    assert all(len(row) == len(result["source_tokens"]) for row in result["attribution"]["source"])
