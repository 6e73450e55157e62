"""The build spans sittings: killed mid-run and rerun, a finished model is skipped and the other resumes
from its checkpoint to the very weights an uninterrupted build gives."""

import signal
import threading
import time

import pytest

from engine.training.checkpoint_state import checkpoint_progress
from tests.scripts import load_script

build = load_script("build_shipped_models")
pytestmark = pytest.mark.slow  # trains (tiny) models in subprocesses

COLOURS = ("red", "blue", "green", "black", "white", "yellow")
ZH_COLOURS = ("红", "蓝", "绿", "黑", "白", "黄")
DIGITS = "零一二三四五六七八九"


def corpus(tmp_path):
    lines = []
    for i in range(400):
        number = "".join(DIGITS[int(d)] for d in str(i))
        lines.append(f"Item {i} is {COLOURS[i % 6]}.\t第{number}个是{ZH_COLOURS[i % 6]}的。")
    path = tmp_path / "corpus.tsv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


FAMILY_SHAPES = {  # a tiny model of each family: the RNN with additive attention, the Transformer (its warm-up too)
    "rnn": ("--scorer", "additive", "--embedding-size", "8", "--hidden-size", "8"),
    "transformer": ("--scorer", "transformer", "--embedding-size", "8", "--transformer-layers", "1",
                    "--feedforward-size", "16", "--warmup-steps", "30"),
}


def plans(path, epochs_b: int = 8, family: str = "rnn"):
    tiny = ("--corpus", str(path), "--src", "en", "--tgt", "zh", *FAMILY_SHAPES[family], "--batch-size", "8",
            "--early-stopping-patience", "0", "--long-validation", "--seed", "3", "--src-vocab", "400",
            "--tgt-vocab", "400")
    return [build.ModelPlan("a", (*tiny, "--epochs", "1")), build.ModelPlan("b", (*tiny, "--epochs", str(epochs_b)))]


def weights(folder):
    return (folder / "model.safetensors").read_bytes()


@pytest.mark.parametrize("family", list(FAMILY_SHAPES))
def test_a_killed_build_skips_the_finished_model_and_resumes_the_other_bit_exact(tmp_path, family):
    path = corpus(tmp_path)
    out = tmp_path / "models"
    first = build.Build(out, parallel=2, threads=1, log=lambda _: None)

    def kill_b_after_its_second_epoch():
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            progress = checkpoint_progress(out / "b") or {}
            if progress.get("epoch", 0) >= 2 and build.model_state(out / "a") == "finished":
                with first.lock:
                    for child in first.children:
                        if child.args[-1].endswith("b"):
                            child.send_signal(signal.SIGKILL)  # no clean stop: the machine went away
                return
            time.sleep(0.02)

    killer = threading.Thread(target=kill_b_after_its_second_epoch)
    killer.start()
    results = dict((name, code) for name, _, code in first.run(plans(path, family=family)))
    killer.join()
    assert results["a"] == 0 and results["b"] == -signal.SIGKILL
    assert build.model_state(out / "b") == "resumable"
    a_log = (out / "a" / "metrics.jsonl").read_bytes()

    again = build.Build(out, parallel=2, threads=1, log=lambda _: None)
    states = {name: (state, code) for name, state, code in again.run(plans(path, family=family))}
    assert states == {"a": ("finished", 0), "b": ("resumable", 0)}
    assert (out / "a" / "metrics.jsonl").read_bytes() == a_log  # skipped: not a byte written
    assert build.model_state(out / "b") == "finished"

    whole = build.Build(tmp_path / "uninterrupted", parallel=1, threads=1, log=lambda _: None)
    assert [code for _, _, code in whole.run(plans(path, family=family)[1:])] == [0]
    assert weights(out / "b") == weights(tmp_path / "uninterrupted" / "b")
