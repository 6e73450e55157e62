"""The quality report's attention statistics and example picking."""


import numpy as np
import pytest

from tests.scripts import load_script

quality_report = load_script("quality_report")


def test_a_diagonal_alignment_is_diagonal_monotonic_and_sharp():
    eye = np.vstack([np.eye(5), np.full((1, 5), 0.2)])  # the last (EOS) row is excluded
    stats = quality_report.attention_statistics([eye])
    assert stats["diagonality"] == pytest.approx(1.0)
    assert stats["monotonicity"] == pytest.approx(1.0)
    assert stats["mean_row_entropy"] == pytest.approx(0.0, abs=1e-6)
    assert stats["stuck_share"] == pytest.approx(1 / 5)


def test_attention_stuck_on_one_token_is_reported():
    stuck = np.zeros((6, 5))
    stuck[:, -1] = 1.0
    stats = quality_report.attention_statistics([stuck])
    assert stats["stuck_share"] == pytest.approx(1.0)
    assert stats["monotonicity"] == pytest.approx(1.0)  # never moves back, yet aligns nothing


def test_a_reversed_uniform_alignment_scores_accordingly():
    reversed_rows = np.vstack([np.eye(4)[::-1], np.full((1, 4), 0.25)])
    uniform = np.full((5, 4), 0.25)
    stats = quality_report.attention_statistics([reversed_rows])
    assert stats["diagonality"] == pytest.approx(-1.0)
    assert stats["monotonicity"] == pytest.approx(0.0)
    assert quality_report.attention_statistics([uniform])["mean_row_entropy"] == pytest.approx(np.log(4), abs=1e-3)


def test_no_attention_means_no_statistics():
    assert quality_report.attention_statistics([None]) is None


def _result(name, scorer, bleus, threads=2, embedding_size=256, dropout=0.3, direction="zh-en", rule="peer",
            unseen_drop=2.0, attention_dropout=None):
    buckets = [{"bucket": b, "n": 10, "bleu": v} for b, v in zip(("1-5", "6-10", "11-15"), bleus, strict=True)]
    return {
        "name": name, "scorer": scorer, "direction": direction, "parameters": 1000, "n": 30,
        "train_pairs": 25_909 if rule == "peer" else 21_000, "split_rule": rule,
        "greedy": {"bleu": bleus[1], "chrf": 40.0}, "beam5": {"bleu": bleus[1] + 1, "chrf": 41.0, "n": 30},
        "unseen_source": {"greedy": {"bleu": bleus[1] - unseen_drop, "chrf": 38.0, "n": 24},
                          "beam5": {"bleu": bleus[1] - 1, "chrf": 39.0, "n": 24}},
        "signature": "BLEU sig", "buckets": buckets,
        "attention": None if scorer == "none" else {"mean_row_entropy": 1.0, "diagonality": 0.5,
                                                     "monotonicity": 0.8, "stuck_share": 0.3},
        "speed": {"greedy_batched_sentences_per_second": 1.0, "greedy_one_by_one_sentences_per_second": 1.0,
                  "beam5_sentences_per_second": 1.0},
        "training": {"minutes": 25.0, "epochs": 20, "steps": 100, "tokens_per_second": 3000.0, "best_epoch": 20,
                     "reason": "time budget", "hardware": "cpu", "command": "python -m engine train …",
                     "threads": threads},
        "sizes": {"embedding_size": embedding_size, "dropout": dropout, "attention_dropout": attention_dropout},
        "examples": [{"source": "你好|", "reference": "Hello.", "output": "Hi.", "chrf": 20.0}],
    }


def test_the_report_sets_each_model_against_the_peer_and_shows_the_gain_over_c_by_length():
    results = [_result("zh-en-additive", "additive", [36.0, 29.5, 13.0]),
               _result("zh-en-none", "none", [28.0, 15.0, 3.0], unseen_drop=5.0),  # C loses most off its data
               _result("zh-en-dot", "dot", [33.0, 24.2, 11.0], attention_dropout=0.2),
               _result("en-zh-additive", "additive", [40.0, 30.0, 20.0], threads=1, embedding_size=128,
                       dropout=0.2, direction="en-zh", rule="strict")]
    text = quality_report.render(results, plotted=False)
    both_cores = "both cores, 25.0 min; embeddings 256, dropout 0.3, 1,000 parameters, 20 epochs"
    assert f"| zh-en-additive | {both_cores} | 29.5 / 40.0 | 30.5 / 41.0 (α 1.0) | +5.30 (1.21×) |" in text  # Joey: 25.2
    with_attention_dropout = both_cores.replace("dropout 0.3", "dropout 0.3 (attention 0.2)")
    assert f"| zh-en-dot | {with_attention_dropout} | 24.2 / 40.0 | 25.2 / 41.0 (α 1.0) | +0.00 (1.00×) |" in text
    one_core = "one core, 25.0 min; embeddings 128, dropout 0.2, 1,000 parameters, 20 epochs"
    assert f"| en-zh-additive | {one_core} | 30.0 / 40.0 | 31.0 / 41.0 (α 1.0) | — |" in text  # no peer for en→zh
    assert "`zh-en-additive`, `zh-en-none` and `zh-en-dot` — `--split-rule peer`, 25,909 training pairs" in text
    assert "`en-zh-additive` — `--split-rule strict`, 21,000 training pairs" in text
    assert "| zh-en-additive | 24 of 30 | 27.5 / 38.0 | 28.5 / 39.0 |" in text  # unseen sources only
    assert "| additive | 14.5 | 17.5 | +8.0 | +14.5 | +10.0 |" in text  # gain over C: all, unseen, by length
    assert "| dot | 9.2 | 12.2 | +5.0 | +9.2 | +8.0 |" in text
    assert "你好\\|" in text  # table cells escape the pipe


def test_a_token_budgeted_run_names_its_hours_and_tokens_but_no_cores_which_varied_across_its_sittings():
    converged = _result("zh-en-bilinear", "bilinear", [36.0, 29.5, 13.0], threads=2)
    converged["training"].update(minutes=233.0, target_tokens=40_000_005, reason="token budget")
    text = quality_report.render([converged, _result("zh-en-none", "none", [28.0, 15.0, 3.0])], plotted=False)
    assert ("| zh-en-bilinear | 3.9 h of training, the best model at 40.0 M target tokens; embeddings 256, "
            "dropout 0.3, 1,000 parameters, 20 epochs |") in text
    assert "| zh-en-none | both cores, 25.0 min; embeddings 256" in text  # a time budget keeps its cores


def test_a_folder_records_its_split_rule_and_older_folders_used_the_strict_one():
    from engine.corpus.data import SPLIT_RULE_TEXT

    assert quality_report.split_rule_of({"data": {"split_rule": SPLIT_RULE_TEXT["peer"]}}) == "peer"
    assert quality_report.split_rule_of({"data": {"split_rule": SPLIT_RULE_TEXT["strict"]}}) == "strict"
    assert quality_report.split_rule_of({"data": {}}) == "strict"


def test_each_gain_over_c_gets_a_paired_bootstrap_p_value_overall_unseen_and_per_bucket():
    references = [f"The {animal} ate {count} apples today." for animal in ("cat", "dog", "bird", "horse")
                  for count in ("two", "three", "five", "nine", "ten")] * 12
    weak = [f"A {s.split()[1]} eats fruit." for s in references]
    lengths = [3 if i % 4 else 12 for i in range(len(references))]  # 180 short, 60 long: too few to test

    def with_sentences(result, outputs):
        result["_sentences"] = {"outputs": outputs, "references": references, "source_lengths": lengths,
                                "unseen": list(range(0, len(references), 2))}
        return result

    none = with_sentences(_result("zh-en-none", "none", [28.0, 15.0, 3.0]), weak)
    additive = with_sentences(_result("zh-en-additive", "additive", [36.0, 29.5, 13.0]), list(references))
    dot = with_sentences(_result("zh-en-dot", "dot", [33.0, 24.2, 11.0]), list(weak))  # no better than C
    results = [additive, none, dot]
    quality_report.add_gain_significance(results)
    assert "gain_over_c" not in none
    tests = additive["gain_over_c"]
    assert tests["samples"] == 1000 and set(tests) == {"samples", "all", "unseen", "1-5"}
    assert (tests["all"]["n"], tests["unseen"]["n"], tests["1-5"]["n"]) == (240, 120, 180)
    assert tests["all"]["gain"] > 50 and tests["all"]["p"] < 0.01
    assert dot["gain_over_c"]["all"] == {"gain": 0.0, "p": 1.0, "n": 240}
    for r in results:
        del r["_sentences"]
    text = quality_report.render(results, plotted=False)
    assert "paired-bootstrap p-value (1,000 resamples, sacrebleu)" in text
    assert "| dot | 9.2 (p 1.000) | 9.2 (p 1.000) | +5.0 (p 1.000) | +9.2 | +8.0 |" in text


def test_kept_p_values_go_when_c_is_measured_again_and_stay_while_c_is_kept_too():
    def kept(*scorers):
        return {f"zh-en-{s}": {"direction": "zh-en", "scorer": s, "gain_over_c": {"all": {"p": 0.001}}} for s in scorers}

    results = kept("dot")
    quality_report.drop_stale_gain_tests(results)
    assert "gain_over_c" not in results["zh-en-dot"]
    results = kept("dot", "none")
    quality_report.drop_stale_gain_tests(results)
    assert results["zh-en-dot"]["gain_over_c"] == {"all": {"p": 0.001}}


def test_a_speed_taken_beside_other_work_is_marked_not_a_benchmark():
    quiet = _result("zh-en-additive", "additive", [36.0, 29.5, 13.0])
    busy = _result("zh-en-none", "none", [28.0, 15.0, 3.0])
    busy["speed"] |= {"load_average": 1.9, "beside_other_work": True}
    text = quality_report.render([quiet, busy], plotted=False)
    assert "| zh-en-none * | 1.0 | 1.0 | 1.0 |" in text and "| zh-en-additive | 1.0 | 1.0 | 1.0 |" in text
    assert "\\* Measured while other work (a model build) kept this CPU busy: not a benchmark" in text
    assert "not a benchmark" not in quality_report.render([quiet], plotted=False)


def test_decode_speeds_record_the_load_they_were_taken_under(monkeypatch):
    from pathlib import Path

    decode_speed = load_script("decode_speed")
    monkeypatch.setattr(decode_speed, "load_model_folder", lambda folder: _Stub())
    monkeypatch.setattr(decode_speed.os, "getloadavg", lambda: (1.5, 1.0, 1.0))
    pairs = [type("P", (), {"source": "a"})()] * 3
    speeds = decode_speed.decode_speeds([Path("m")], lambda s, t: pairs)
    assert speeds["m"]["load_average"] == 1.5 and speeds["m"]["beside_other_work"] is True
    monkeypatch.setattr(decode_speed.os, "getloadavg", lambda: (0.1, 1.0, 1.0))
    assert decode_speed.decode_speeds([Path("m")], lambda s, t: pairs)["m"][
        "beside_other_work"] is False


class _Stub:
    source_language, target_language = "zh", "en"

    class translator:  # noqa: N801 - stands in for a Translator
        @staticmethod
        def translate(source, config):
            return source

        @staticmethod
        def translate_many(sources, config):
            return list(sources)


def test_speeds_measured_again_replace_only_the_speeds_and_refuse_changed_weights(tmp_path, monkeypatch):
    import json

    models = tmp_path / "models"
    for name in ("zh-en-additive", "zh-en-none"):
        (models / name).mkdir(parents=True)
        (models / name / "config.json").write_text(json.dumps({"weights": {"sha256": f"w-{name}"}}))
    results = [_result("zh-en-additive", "additive", [36.0, 29.5, 13.0]),
               _result("zh-en-none", "none", [28.0, 15.0, 3.0])]
    for r in results:
        r["weights_sha256"] = f"w-{r['name']}"
        r["speed"]["beside_other_work"] = True
    out = tmp_path / "quality-report.md"
    out.with_suffix(".json").write_text(json.dumps(results))
    monkeypatch.setattr(quality_report, "read_config", lambda folder: json.loads((folder / "config.json").read_text()))
    quiet = {"greedy_batched_sentences_per_second": 9.0, "greedy_one_by_one_sentences_per_second": 8.0,
             "beam5_sentences_per_second": 7.0, "load_average": 0.1, "beside_other_work": False}
    measured = []
    monkeypatch.setattr(quality_report, "decode_speeds",
                        lambda folders, pairs: measured.append([f.name for f in folders]) or
                        {f.name: dict(quiet) for f in folders})
    monkeypatch.setattr(quality_report, "render_stored", lambda out, models: 0)
    assert quality_report.measure_speeds_again(out, models, tmp_path / "corpus.tsv") == 0
    assert measured == [["zh-en-additive", "zh-en-none"]]
    stored = json.loads(out.with_suffix(".json").read_text())
    assert [r["speed"] for r in stored] == [quiet, quiet]
    assert [r["greedy"] for r in stored] == [r["greedy"] for r in results]  # the other figures kept
    (models / "zh-en-none" / "config.json").write_text(json.dumps({"weights": {"sha256": "retrained"}}))
    with pytest.raises(SystemExit, match="zh-en-none changed since its figures were stored"):
        quality_report.measure_speeds_again(out, models, tmp_path / "corpus.tsv")


def test_a_measuring_run_times_the_decode_speeds_before_its_own_decoding_loads_the_cpu(tmp_path, monkeypatch):
    """decode_speeds reads the load average; measured after the report's own decoding, it would mark every
    speed "beside other work"."""
    import sys

    calls = []
    folder = tmp_path / "models" / "zh-en-additive"
    folder.mkdir(parents=True)
    corpus = tmp_path / "corpus.tsv"
    corpus.write_text("")
    result = _result("zh-en-additive", "additive", [36.0, 29.5, 13.0])
    monkeypatch.setattr(quality_report, "_model_folders", lambda models: [folder])
    monkeypatch.setattr(quality_report, "_kept_results", lambda folders, only, stored: {})
    monkeypatch.setattr(quality_report, "decode_speeds",
                        lambda folders, pairs: calls.append("speeds") or {f.name: dict(result["speed"]) for f in folders})
    monkeypatch.setattr(quality_report, "measure", lambda *args: calls.append("measure") or dict(result))
    monkeypatch.setattr(quality_report, "read_config", lambda folder: {"weights": {"sha256": "w"}})
    for name in ("drop_stale_gain_tests", "add_gain_significance", "add_alignment_studies"):
        monkeypatch.setattr(quality_report, name, lambda *args: None)
    monkeypatch.setattr(quality_report, "plot_buckets", lambda results, path: False)
    monkeypatch.setattr(quality_report, "render", lambda results, plotted, notes: "report")
    monkeypatch.setattr(quality_report, "training_notes", lambda models: {})
    monkeypatch.setattr(sys, "argv", ["quality_report.py", "--models", str(tmp_path / "models"), "--corpus", str(corpus),
                                      "--out", str(tmp_path / "quality-report.md")])
    assert quality_report.main() == 0
    assert calls == ["speeds", "measure"]
