"""bench/bench_transformer_vs_joey.py without training: Joey's step lines read into tokens/s with the warm-up
interval left out, the ratio of rounds, and both sides at the same sizes.

The step lines are copied from Joey NMT 2.3.0's own train.log under torch 2.13 (bench/peer_joey.py's smoke run).
"""

from dataclasses import replace
from pathlib import Path

import pytest

from tests.scripts.test_peer_joey import _load_bench

bench = _load_bench("bench_transformer_vs_joey")

JOEY_LOG = """\
2026-12-06 03:45:05,102 - INFO - joeynmt.training - Total params: 4234240
2026-12-06 03:45:05,110 - INFO - joeynmt.training - EPOCH 1
2026-12-06 03:45:19,650 - INFO - joeynmt.training - Epoch   1, Step:       10, Batch Loss:     5.781516, Batch Acc: 0.079761, Tokens per Sec:      399, Lr: 0.000500
2026-12-06 03:45:33,819 - INFO - joeynmt.training - Epoch   1, Step:       20, Batch Loss:     5.137241, Batch Acc: 0.104279, Tokens per Sec:      431, Lr: 0.000500
2026-12-06 03:45:47,417 - INFO - joeynmt.training - Epoch   1, Step:       30, Batch Loss:     4.892325, Batch Acc: 0.113818, Tokens per Sec:      471, Lr: 0.000500
2026-12-06 03:46:00,014 - INFO - joeynmt.training - Epoch   1, Step:       40, Batch Loss:     4.768658, Batch Acc: 0.146104, Tokens per Sec:     2489, Lr: 0.000500
2026-12-06 03:46:00,020 - INFO - joeynmt.training - Training ended since maximum num. of updates 40 was reached.
"""


def test_joeys_step_lines_become_tokens_per_second_without_the_warm_up_interval():
    rates = bench.joey_interval_rates(JOEY_LOG)
    assert rates == [399.0, 431.0, 471.0, 2489.0]
    assert bench.round_rate(rates) == pytest.approx((431 + 471 + 2489) / 3)  # 399, the warm-up, left out
    assert bench.joey_interval_rates("2026-12-06 03:45:05,102 - INFO - joeynmt.training - EPOCH 1\n") == []
    with pytest.raises(ValueError, match="at least 2"):
        bench.round_rate(rates[:1])


def test_the_ratio_is_the_median_of_the_rounds():
    assert bench.ratio_of_rounds([3000.0, 3300.0, 2000.0], [2000.0, 2000.0, 2000.0]) == pytest.approx(1.5)
    with pytest.raises(ValueError):
        bench.ratio_of_rounds([3000.0], [2000.0, 2100.0])


def test_both_sides_train_the_shipped_transformer_at_the_same_sizes(tmp_path):
    shape, config, parsed = bench.our_recipe(Path("corpus.tsv"))
    assert shape.scorer == "transformer" and config.concat_share == 0 and config.device == "cpu"
    assert parsed.src == "zh" and parsed.tgt == "en" and parsed.split_rule == "strict"
    ours = bench.our_sizes(shape, config)
    assert ours == {"layers": 2, "heads": 4, "model_size": 256, "feed_forward": 1024, "tied_output": True,
                    "batch_sentences": 64}
    joey = bench.joey_config(tmp_path / "round-1", tmp_path / "data", 300, 25)
    assert bench.joey_sizes(joey) == ours
    assert bench.our_sizes(replace(shape, feedforward_size=512), config) != bench.joey_sizes(joey)
    training = joey["training"]
    assert training["updates"] == 300 and training["logging_freq"] == 25 and training["validation_freq"] > 300
    assert joey["model_dir"] == str(tmp_path / "round-1") and joey["model"]["encoder"]["layer_norm"] == "pre"


def test_a_joey_config_whose_encoder_and_decoder_differ_is_refused(tmp_path):
    joey = bench.joey_config(tmp_path / "round-1", tmp_path / "data", 300, 25)
    joey["model"]["decoder"] = {**joey["model"]["decoder"], "num_layers": 3}
    with pytest.raises(ValueError, match="differ"):
        bench.joey_sizes(joey)
