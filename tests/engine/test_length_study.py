"""The length study: bucketed BLEU / chrF on the long test set, stored in the model folder."""

import json

import pytest

from engine.__main__ import main
from engine.corpus.concat import long_test_set
from engine.corpus.tasks import dates
from engine.decoding.repetition import looping_share
from engine.models.bundle import load_model_folder
from engine.studies.length_study import (
    STUDY_BUCKETS,
    LengthStudy,
    format_study,
    read_length_study,
    record_length_study,
    run_length_study,
    stored_length_study,
    stored_study_beams,
    study_bucket_label,
    study_bucket_of,
    study_problem,
)


def test_buckets_cover_every_length_from_one():
    assert [study_bucket_label(*b) for b in STUDY_BUCKETS] == ["1–10", "11–20", "21–30", "31–40", "41–60", "61+"]
    assert study_bucket_of(0) is None
    assert (study_bucket_of(1), study_bucket_of(10), study_bucket_of(11)) == ("1–10", "1–10", "11–20")
    assert (study_bucket_of(60), study_bucket_of(61), study_bucket_of(200)) == ("41–60", "61+", "61+")


@pytest.mark.slow  # a trained model, or the real window
def test_a_tiny_model_is_studied_by_length_and_the_study_is_stored(dates_models, tmp_path):
    import shutil

    folder = tmp_path / "model"
    shutil.copytree(dates_models["additive"], folder)
    bundle = load_model_folder(folder)
    test = dates.dates_split(seed=1, train_size=100, valid_size=10, test_size=120).test
    long_pairs = long_test_set(test, bundle.source_language, bundle.target_language)
    study = run_length_study(bundle.translator, long_pairs, bundle.target_language, examples_per_bucket=2)
    assert study.n == len(long_pairs) and study.beam == 1
    assert sum(b.n for b in study.buckets) == len(long_pairs)
    assert len(study.buckets) >= 3 and all(0 <= b.bleu <= 100 and 0 <= b.chrf <= 100 for b in study.buckets)
    long_inputs = sum(b.n for b in study.buckets if b.label in ("41–60", "61+"))
    assert long_inputs == (study.bucket("41+").n if study.bucket("41+") else 0)
    for bucket in study.buckets:
        rows = study.rows_in(bucket.label)
        assert 1 <= len(rows) <= 2
        assert all(study_bucket_of(row.source_length) == bucket.label for row in rows)
    outputs = [t.text for t in bundle.translator.translate_many([p.source for p in long_pairs])]
    assert study.looping_share == looping_share(outputs, bundle.target_language)
    assert study.references_looping_share == looping_share([p.target for p in long_pairs], "en")
    record_length_study(folder, study)
    assert read_length_study(folder).to_json() == study.to_json()  # stored rounded to 2 decimals
    assert read_length_study(folder, beam=5) is None
    load_model_folder(folder)  # the folder's hashes still hold


def test_a_study_stored_before_loops_were_measured_still_reads_and_the_loops_round_trip():
    assert LengthStudy.from_json(STUDY).looping_share is None  # no key: not measured, not 0
    measured = dict(STUDY, looping_share=0.125, references_looping_share=0.0)
    study = LengthStudy.from_json(measured)
    assert (study.looping_share, study.references_looping_share) == (0.125, 0.0)
    assert LengthStudy.from_json(study.to_json()) == study
    assert "looping outputs 12.5% (references 0.0%)" in format_study(study)


def test_the_stored_beams_are_listed_smallest_first_without_a_damaged_or_misfiled_study():
    beam5 = dict(STUDY, beam=5)
    info = {"metrics": {"length_study": {"beam5": beam5, "beam1": STUDY, "beam3": {"beam": 3},
                                         "beam4": dict(STUDY, beam=7)}}}
    assert stored_study_beams(info) == (1, 5)  # beam3 is damaged; "beam4" holds a beam-7 study
    assert stored_study_beams({"metrics": {}}) == () == stored_study_beams({"metrics": {"length_study": []}})
    assert stored_study_beams("nonsense") == ()


def test_a_malformed_stored_study_reads_as_none():
    assert LengthStudy.from_json({"beam": 1}) is None
    assert LengthStudy.from_json("nonsense") is None
    assert LengthStudy.from_json({"beam": 1, "n": 2, "buckets": [{"bucket": "1–10", "n": "x"}]}) is None


STUDY = {"beam": 1, "n": 20, "signature": "sig",
         "buckets": [{"bucket": "1–10", "n": 12, "bleu": 30.0, "chrf": 50.0},
                     {"bucket": "11–20", "n": 8, "bleu": 20.0, "chrf": 40.0}],
         "aggregates": [], "rows": [{"bucket": "1–10", "source": "a", "reference": "b", "output": "b",
                                     "source_length": 3}]}


@pytest.mark.parametrize("change, reason", [
    (lambda s: s["buckets"][0].update(bleu=float("inf")), "buckets/0/bleu: must be a finite number"),
    (lambda s: s["buckets"][1].update(chrf=float("nan")), "buckets/1/chrf: must be a finite number"),
    (lambda s: s.update(n=float("inf")), "n: expected an integer"),
    (lambda s: s["buckets"][0].update(n="12"), "buckets/0/n: expected an integer"),
    (lambda s: s["rows"][0].update(source_length=-1), "source_length: must be at least 0"),
    (lambda s: s["buckets"][0].update(bleu=250.0), "bleu: must be between 0 and 100"),
    (lambda s: s.update(looping_share=1.5), "looping_share: must be between 0 and 1"),
    (lambda s: s.update(n=5), "its buckets hold more inputs than the 5 it translated"),
    (lambda s: s["rows"][0].update(bucket="61+"), "in the bucket '61+', which it does not score"),
])
def test_a_stored_study_with_a_non_finite_or_inconsistent_figure_reads_as_none(tmp_path, change, reason):
    assert LengthStudy.from_json(STUDY) is not None and study_problem(STUDY) is None
    study = json.loads(json.dumps(STUDY))
    change(study)
    assert reason in study_problem(study)
    assert LengthStudy.from_json(study) is None
    info = {"metrics": {"length_study": {"beam1": study}}}
    assert stored_length_study(json.loads(json.dumps(info)), 1) is None  # Infinity and NaN round-trip as JSON


@pytest.mark.slow  # a trained model, or the real window
def test_evaluate_long_set_prints_buckets_and_records_them(dates_models, tmp_path, capsys):
    import shutil

    folder = tmp_path / "model"
    shutil.copytree(dates_models["none"], folder)
    assert main(["evaluate", "--model", str(folder), "--task", "dates", "--long-set", "--record", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)["length_study"]
    assert result["buckets"] and {"bucket", "n", "bleu", "chrf"} <= set(result["buckets"][0])
    assert read_length_study(folder).n == result["n"]
    assert main(["evaluate", "--model", str(folder), "--task", "dates", "--long-set"]) == 0
    assert "source sub-words" in capsys.readouterr().out
    assert main(["evaluate", "--model", str(folder), "--task", "dates", "--record"]) == 2
