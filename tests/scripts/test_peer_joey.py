"""bench/peer_joey.py without Joey NMT: the parsing of its files, the configs, the split export, the resume decision,
the source patch and the quality report's rows of the peer at the same budget.

The fixture lines are copied from Joey NMT 2.3.0's own output under torch 2.13 (the script's smoke runs: its log,
validations.txt and test log), only the folder names shortened and the lines of several runs put in one log.
"""

import importlib.util
import json
import math
import sys
from pathlib import Path

import pytest

from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]


def _load_bench(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


peer = _load_bench("peer_joey")

TRAIN_LOG = """\
2026-12-06 03:26:37,302 - INFO - joeynmt.model - Total params: 3953920
2026-12-06 03:26:45,462 - INFO - joeynmt.training - Epoch   1, Step:       10, Batch Loss:     4.985798, Batch Acc: 0.088083, Tokens per Sec:     1003, Lr: 0.002000
2026-12-06 03:26:52,040 - INFO - joeynmt.training - Epoch   1, Step:       20, Batch Loss:     5.177369, Batch Acc: 0.104935, Tokens per Sec:      928, Lr: 0.002000
2026-12-06 03:26:52,363 - INFO - joeynmt.prediction - Evaluation result (greedy): bleu:   0.00, loss:   4.41, ppl:  82.19, acc:   0.18, 0.0169[sec]
2026-12-06 03:26:52,364 - INFO - joeynmt.training - Hooray! New best validation result [bleu]!
2026-12-06 03:26:52,410 - INFO - joeynmt.training - Checkpoint saved in part-1/20.ckpt.
2026-12-06 03:27:06,631 - INFO - joeynmt.training - Epoch   1, Step:       40, Batch Loss:     4.904884, Batch Acc: 0.112175, Tokens per Sec:      873, Lr: 0.002000
2026-12-06 03:27:10,101 - INFO - joeynmt.training - Epoch   1, total training loss: 1634.72, num. of seqs: 23279, num. of tokens: 224639, 291.3253[sec]
2026-12-06 03:27:10,102 - INFO - joeynmt.training - EPOCH 2
2026-12-06 03:27:14,776 - INFO - joeynmt.training - Training ended since maximum num. of updates 49 was reached.
2026-12-06 03:27:14,776 - INFO - joeynmt.training - Best validation result (greedy) at step       20:   0.00 bleu.
2026-12-06 03:27:14,801 - INFO - joeynmt.training - Checkpoint saved in part-1/49.ckpt.
"""

VALIDATIONS = ("Steps: 20\tloss: 4.40906\tacc: 0.17575\tppl: 82.19196\tbleu: 0.00000\tLR: 0.00200000\t*\n"
               "Steps: 40\tloss: 4.21685\tacc: 0.23550\tppl: 67.81978\tbleu: 0.00000\tLR: 0.00200000\t\n")

TEST_LOG = """\
2026-12-06 03:40:17,350 - INFO - joeynmt.prediction - Evaluation result (greedy): bleu:   0.21, 0.0123[sec]
2026-12-06 03:40:25,237 - INFO - joeynmt.prediction - Evaluation result (beam search): bleu:   0.25, 0.0124[sec]
"""


def test_a_train_log_gives_its_epochs_parameters_ending_best_and_wall_clock():
    log = peer.parse_train_log(TRAIN_LOG)
    assert log["parameters"] == 3_953_920
    assert log["epochs"] == [{"epoch": 1, "loss": 1634.72, "seqs": 23279, "tokens": 224639, "seconds": 291.3253}]
    assert log["ended"] == "updates" and not log["interrupted"]
    assert log["best"] == {"step": 20, "score": 0.0, "metric": "bleu"}
    assert log["last_step"] == {"epoch": 1, "step": 40, "lr": 0.002, "tokens_per_second": 873}
    assert log["wall_seconds"] == pytest.approx(37.0)


def test_the_other_endings_and_an_interrupt_are_told_apart():
    stamp = "2026-12-06 03:27:14,776 - INFO - joeynmt.training - "
    assert peer.parse_train_log(stamp + "Training ended since minimum lr 1.1048543456039805e-05 was reached.\n"
                                )["ended"] == "min_lr"
    assert peer.parse_train_log(stamp + "Training ended after   3 epochs.\n")["ended"] == "epochs"
    killed = peer.parse_train_log(TRAIN_LOG.split("2026-12-06 03:27:14")[0])
    assert killed["ended"] is None and killed["best"] is None
    stopped = peer.parse_train_log(TRAIN_LOG.split("2026-12-06 03:27:10")[0] + stamp + "Interrupt at epoch 1, step 40.\n")
    assert stopped["interrupted"] and stopped["ended"] is None


def test_validations_and_joeys_own_test_scores_are_read():
    rows = peer.parse_validations(VALIDATIONS)
    assert rows == [{"best": True, "steps": 20, "loss": 4.40906, "acc": 0.17575, "ppl": 82.19196, "bleu": 0.0,
                     "lr": 0.002},
                    {"best": False, "steps": 40, "loss": 4.21685, "acc": 0.2355, "ppl": 67.81978, "bleu": 0.0,
                     "lr": 0.002}]
    assert peer.parse_evaluation(TEST_LOG) == [{"search": "greedy", "bleu": 0.21},
                                               {"search": "beam search", "bleu": 0.25}]
    validation = TRAIN_LOG.splitlines()[3]
    assert peer.parse_evaluation(validation) == [{"search": "greedy", "bleu": 0.0, "loss": 4.41, "ppl": 82.19,
                                                  "acc": 0.18}]


def test_a_hypotheses_file_is_one_output_a_line_and_must_cover_every_test_pair(tmp_path):
    path = tmp_path / "test-beam5.test"
    path.write_text("I'm fine.\n\nTom isn't here.\n", encoding="utf-8")  # an empty output stays a line
    assert peer.read_hypotheses(path, 3) == ["I'm fine.", "", "Tom isn't here."]
    with pytest.raises(ValueError, match="3 hypotheses for 4 test pairs"):
        peer.read_hypotheses(path, 4)


def test_the_budget_becomes_steps_and_validations_once_an_epoch():
    plan = peer.schedule(40_000_000, 224_639, 364)
    assert plan.updates == math.ceil(40_000_000 * 364 / 224_639) == 64_816
    assert plan.epochs == 180  # a cap past the budget: the steps end the run
    assert plan.logging_freq == 10 and plan.validation_freq == 360
    smoke = peer.schedule(30_000, 224_639, 364)
    assert (smoke.updates, smoke.logging_freq, smoke.validation_freq) == (49, 10, 20)  # validated twice
    assert smoke.validation_freq % smoke.logging_freq == 0  # Joey refuses anything else


def test_the_configs_hold_our_sizes_and_read_back(tmp_path):
    plan = peer.schedule(40_000_000, 224_639, 364)
    rnn = peer.train_config("rnn", tmp_path / "rnn" / "part-1", tmp_path / "data", plan)
    assert rnn["model"]["encoder"] | {"embeddings": None} == {
        "type": "recurrent", "rnn_type": "gru", "embeddings": None, "hidden_size": 256, "bidirectional": True,
        "num_layers": 1, "dropout": 0.3}
    decoder = rnn["model"]["decoder"]
    assert (decoder["type"], decoder["attention"], decoder["hidden_size"], decoder["embeddings"]["embedding_dim"]) == (
        "recurrent", "bahdanau", 256, 256)
    training = rnn["training"]
    assert (training["batch_size"], training["batch_type"], training["optimizer"], training["scheduling"]) == (
        64, "sentence", "adam", "plateau")
    assert (training["label_smoothing"], training["early_stopping_metric"], training["updates"]) == (0.1, "bleu", 64_816)
    assert 0.002 / 2 ** 8 < training["learning_rate_min"] < 0.002 / 2 ** 7  # the 8th halving ends the run
    assert "load_model" not in training and training["keep_best_ckpts"] == -1
    transformer = peer.train_config("transformer", tmp_path / "t" / "part-2", tmp_path / "data", plan,
                                    load_model=tmp_path / "t" / "part-1" / "360.ckpt")
    layers = transformer["model"]["encoder"]
    assert (layers["type"], layers["num_layers"], layers["num_heads"], layers["hidden_size"], layers["ff_size"],
            layers["dropout"]) == ("transformer", 2, 4, 256, 1024, 0.3)
    assert transformer["model"]["decoder"] == layers
    assert transformer["training"]["load_model"].endswith("part-1/360.ckpt")
    assert not any(transformer["training"][f"reset_{what}"] for what in ("best_ckpt", "scheduler", "optimizer",
                                                                          "iter_state"))
    for config in (rnn, transformer):
        path = tmp_path / "config.yaml"
        path.write_text(peer.to_yaml(config), encoding="utf-8")
        assert peer.train_config_from(path) == json.loads(json.dumps(config))
    assert "learning_rate_min: 1.1048543456039807e-05" in peer.to_yaml(rnn)  # a float PyYAML reads as one


def test_floats_are_written_so_that_yaml_1_1_reads_them_as_floats():
    assert peer._yaml_scalar(1e-05) == "1.0e-05"
    assert peer._yaml_scalar(2e20) == "2.0e+20"
    assert peer._yaml_scalar(0.3) == "0.3"
    assert peer._yaml_scalar("我 \"x\"") == '"我 \\"x\\""'
    yaml = pytest.importorskip("yaml")
    assert yaml.safe_load(peer.to_yaml({"a": {"lr": 1e-05, "betas": [0.9, 0.999], "x": None, "on": True}})) == {
        "a": {"lr": 1e-05, "betas": [0.9, 0.999], "x": None, "on": True}}


def test_a_decode_config_reads_only_the_test_split_with_the_checkpoint(tmp_path):
    plan = peer.schedule(30_000, 224_639, 364)
    base = peer.train_config("rnn", tmp_path / "rnn" / "part-2", tmp_path / "data", plan,
                             load_model=tmp_path / "rnn" / "part-1" / "20.ckpt")
    config = peer.decode_config(base, tmp_path / "rnn" / "part-1" / "20.ckpt", 5)
    assert set(config["data"]) == {"test", "dataset_type", "src", "trg"}
    assert config["testing"]["beam_size"] == 5 and config["testing"]["beam_alpha"] == 1.0
    assert config["testing"]["load_model"].endswith("part-1/20.ckpt") and "load_model" not in config["training"]
    assert base["training"]["load_model"]  # the base is left as it was


def _corpus(path: Path) -> Path:
    """A small corpus whose pairs fall in every part, with training pairs that share a source with a held-out one."""
    from engine.corpus.data import split_bucket

    lines, held_out = [], []
    for i in range(400):
        english = f"I have {i} apples in the box."
        lines.append(f"{english}\t我的盒子里有{i}个苹果。")
        if split_bucket(english) != "train":
            held_out.append(i)
    for n, i in enumerate(held_out[:3]):  # another English sentence (a training one) for a held-out source
        english = next(e for e in (f"There are {i} apples, says sample {n}-{k}." for k in range(100))
                       if split_bucket(e) == "train")
        lines.append(f"{english}\t我的盒子里有{i}个苹果。")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_the_split_export_is_the_engines_strict_split(tmp_path):
    from engine.corpus import read_tsv
    from engine.corpus.data import split_pairs

    corpus = _corpus(tmp_path / "corpus.tsv")
    split = peer.split_of_corpus(corpus)
    expected = split_pairs(read_tsv(corpus, "zh", "en")[0], "strict")
    assert (split.train, split.valid, split.test) == (expected.train, expected.valid, expected.test)
    assert split.train_removed_overlap == 3
    counts = peer.export_split(split, tmp_path / "data")
    assert counts == {"train": len(expected.train), "dev": len(expected.valid), "test": len(expected.test)}
    for part, pairs in (("train", expected.train), ("dev", expected.valid), ("test", expected.test)):
        assert (tmp_path / "data" / f"{part}.zh").read_text(encoding="utf-8").splitlines() == [p.source for p in pairs]
        assert (tmp_path / "data" / f"{part}.en").read_text(encoding="utf-8").splitlines() == [p.target for p in pairs]
    summary = json.loads((tmp_path / "data" / "split.json").read_text(encoding="utf-8"))
    assert summary["train_removed_overlap"] == 3 and summary["split_rule"] == "strict"
    train_sources = set((tmp_path / "data" / "train.zh").read_text(encoding="utf-8").splitlines())
    held_out = set((tmp_path / "data" / "dev.zh").read_text(encoding="utf-8").splitlines())
    assert not train_sources & (held_out | set((tmp_path / "data" / "test.zh").read_text(encoding="utf-8").splitlines()))
    smoke = peer.export_split(split, tmp_path / "smoke", held_out_limit=2)
    assert smoke == {"train": len(expected.train), "dev": 2, "test": 2}


def _checkpoint(part: Path, step: int, latest: bool = True, best: bool = False) -> None:
    part.mkdir(parents=True, exist_ok=True)
    (part / f"{step}.ckpt").write_bytes(b"weights")
    for name, wanted in (("latest", latest), ("best", best)):
        if wanted:
            link = part / f"{name}.ckpt"
            link.unlink(missing_ok=True)
            link.symlink_to(f"{step}.ckpt")


def test_the_resume_decision_of_a_model_folder(tmp_path):
    folder = tmp_path / "rnn"
    assert peer.resume_decision(folder) == "new"
    (folder / "part-1").mkdir(parents=True)  # killed before its first checkpoint
    assert peer.resume_decision(folder) == "new" and peer.next_part(folder).name == "part-2"
    _checkpoint(folder / "part-2", 360, best=True)
    _checkpoint(folder / "part-2", 720)
    assert peer.resume_decision(folder) == "resumable"
    assert peer.latest_checkpoint(folder) == (folder / "part-2" / "720.ckpt").resolve()
    (folder / "part-3").mkdir()  # the next sitting, killed before its first checkpoint
    assert peer.latest_checkpoint(folder) == (folder / "part-2" / "720.ckpt").resolve()
    assert peer.best_checkpoint(folder) == (folder / "part-2" / "360.ckpt").resolve()
    _checkpoint(folder / "part-4", 1080)  # a sitting without a new best: the earlier best stays the best
    assert peer.best_checkpoint(folder) == (folder / "part-2" / "360.ckpt").resolve()
    assert peer.next_part(folder).name == "part-5"
    (folder / "finished.json").write_text('{"ended": "min_lr"}', encoding="utf-8")
    assert peer.resume_decision(folder) == "finished"


def test_pruning_keeps_the_latest_the_best_and_anything_newer(tmp_path):
    part = tmp_path / "part-1"
    for step in (360, 720, 1080):
        _checkpoint(part, step, best=step == 360)
    (part / "1440.ckpt").write_bytes(b"being written")  # saved, its link not yet moved
    removed = peer.prune_checkpoints(part)
    assert [p.name for p in removed] == ["720.ckpt"]
    assert sorted(p.name for p in part.glob("*.ckpt") if not p.is_symlink()) == ["1080.ckpt", "1440.ckpt", "360.ckpt"]


def test_the_source_patch_applies_once_and_refuses_another_text():
    (patch,) = peer.PATCHES
    original = ('        kwargs = {\n            "mode": scheduler_mode,\n            "verbose": False,\n'
                '            "threshold_mode": "abs",\n')
    patched, state = peer.apply_patch(original, patch)
    assert state == "applied" and '"verbose"' not in patched and '"threshold_mode": "abs"' in patched
    assert peer.apply_patch(patched, patch) == (patched, "already applied")
    with pytest.raises(ValueError, match="neither"):
        peer.apply_patch("def build_scheduler(): pass\n", patch)


def test_missing_or_other_versions_are_installed():
    everything = {"torch": "2.13.0+cpu", "joeynmt": "2.3.0"} | {
        name.split("==")[0].lower().replace("_", "-"): name.split("==")[1] for name in peer.PEER_REQUIREMENTS}
    assert peer.install_needed(everything) == []
    assert peer.install_needed(everything | {"torch": "2.14.1"}) == ["torch"]
    assert "joeynmt" in peer.install_needed({})


def _peer_row(model="rnn", bleus=(27.0, 29.5)):
    return {"model": model, "name": peer.MODEL_LABELS[model], "direction": "zh-en",
            "greedy": {"bleu": bleus[0], "chrf": 50.1},
            "beam5": {"bleu": bleus[1], "chrf": 51.2, "length_penalty": 1.0}, "parameters": 3_953_920,
            "sizes": {"embedding_size": 256, "dropout": 0.3},
            "training": {"hours": 3.25, "target_tokens": 40_000_123, "target_tokens_at_best": 36_100_000,
                         "epochs": 179, "ended": "the token budget (its steps)", "budget_tokens": 40_000_000}}


def _report_result():
    return {"name": "zh-en-additive", "scorer": "additive", "direction": "zh-en", "parameters": 1000, "n": 30,
            "train_pairs": 21_000, "split_rule": "strict", "greedy": {"bleu": 28.4, "chrf": 50.0},
            "beam5": {"bleu": 31.5, "chrf": 52.0, "n": 30},
            "unseen_source": {"greedy": {"bleu": 28.0, "chrf": 49.0, "n": 30},
                              "beam5": {"bleu": 31.0, "chrf": 51.0, "n": 30}},
            "signature": "BLEU sig", "buckets": [{"bucket": "1-5", "n": 30, "bleu": 28.4}],
            "attention": {"mean_row_entropy": 1.0}, "speed": {"greedy_batched_sentences_per_second": 1.0,
                                                              "greedy_one_by_one_sentences_per_second": 1.0,
                                                              "beam5_sentences_per_second": 1.0},
            "training": {"minutes": 228.0, "epochs": 57, "steps": 100, "tokens_per_second": 3000.0, "best_epoch": 49,
                         "reason": "early stopping", "hardware": "cpu", "command": "python -m engine train …",
                         "threads": 1, "target_tokens": 32_800_000},
            "sizes": {"embedding_size": 256, "dropout": 0.3},
            "examples": [{"source": "你好", "reference": "Hello.", "output": "Hi.", "chrf": 20.0}]}


def test_the_report_adds_the_same_budget_peer_rows_and_changes_nothing_else():
    quality_report = load_script("quality_report")
    without = quality_report.render([_report_result()], plotted=False)
    peers = [_peer_row(), _peer_row("transformer", (30.2, 32.0))]
    with_peers = quality_report.add_same_budget_peers(without, peers)
    assert quality_report.add_same_budget_peers(without, None) == without
    lines = without.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("| Joey NMT 2.3 (peer) |"))
    assert not lines[at + 1].startswith("|")  # the 25-minute peer row ends the table
    added = with_peers.split("\n")[at + 1:at + 5]
    assert with_peers.split("\n") == lines[:at + 1] + added + lines[at + 1:]  # nothing else changed
    assert added[0] == ("| Joey NMT 2.3 GRU + Bahdanau (peer, same budget) | 3.2 h of training, 40.0 M target tokens "
                        "(the best model at 36.1 M), ended by the token budget (its steps); embeddings 256, dropout 0.3, "
                        "3,953,920 parameters, 179 epochs | 27.0 / 50.1 | 29.5 / 51.2 (α 1.0) | — |")
    assert added[1].startswith("| Joey NMT 2.3 Transformer (peer, same budget) | ") and "| 30.2 / 50.1 |" in added[1]
    assert added[2] == "" and "to our budget of 40 M target tokens" in added[3]


def test_the_report_sets_every_model_of_the_peers_direction_against_each_same_budget_peer():
    quality_report = load_script("quality_report")
    results = [_report_result(), {**_report_result(), "name": "en-zh-additive", "direction": "en-zh"}]
    without = quality_report.render(results, plotted=False)
    peers = [_peer_row(), _peer_row("transformer", (30.2, 35.0))]
    lines = quality_report.add_same_budget_peers(without, peers, results).split("\n")
    at = lines.index("Beam 5 BLEU against the peer at the same budget (zh-en):")
    assert lines[at + 2] == ("| model | against Joey NMT 2.3 GRU + Bahdanau (29.5) | against Joey NMT 2.3 Transformer "
                             "(35.0) |")
    assert lines[at + 4] == "| zh-en-additive | +2.00 (1.07×) | -3.50 (0.90×) |"  # 31.5 against 29.5 and 35.0
    assert not lines[at + 5].startswith("|")  # the other direction's model is not set against a zh→en peer


def test_the_report_reads_the_peer_rows_beside_it_when_they_exist(tmp_path):
    quality_report = load_script("quality_report")
    out = tmp_path / "quality-report.md"
    assert quality_report.same_budget_peers(out) is None
    peer.publish([_peer_row("transformer")], out.with_name("quality-peer.json"))
    peer.publish([_peer_row("rnn")], out.with_name("quality-peer.json"))  # merged, in the models' order
    assert [row["model"] for row in quality_report.same_budget_peers(out)] == ["rnn", "transformer"]
