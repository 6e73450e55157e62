"""The example inputs translated by every model, as docs/shipped-models.md quotes them."""

import shutil

import pytest

from engine.corpus.examples import load_examples
from engine.models.bundle import load_model_folder
from tests.scripts import load_script

report = load_script("examples_report")


@pytest.mark.slow  # a trained model, or the real window
def test_every_model_translates_the_examples_greedy_and_with_its_own_beam_settings(dates_models, tmp_path):
    models = tmp_path / "models"
    for scorer in ("none", "additive"):
        shutil.copytree(dates_models[scorer], models / f"dates-{scorer}")
    found = report.gather(models, ("long",))
    [(direction, (examples, results))] = found.items()
    bundle = load_model_folder(models / "dates-additive")
    assert direction == f"{bundle.source_language} → {bundle.target_language}"
    assert [e.text for e in examples] == [e.text for e in load_examples()[bundle.source_language] if e.length == "long"]
    assert [r.scorer for r in results] == ["additive", "none"]  # the registry's order, not the folders'
    beam = bundle.translator.translate_many([e.text for e in examples], bundle.decode_config(5))
    assert [o.text for o in results[0].outputs["beam 5"]] == [t.text for t in beam]
    greedy = bundle.translator.translate_many([e.text for e in examples])
    assert [o.text for o in results[0].outputs["greedy"]] == [t.text for t in greedy]
    text = report.render(found)
    assert f"### long: {examples[0].text}" in text
    assert f"| additive | {greedy[0].text}" in text
    assert report.gather(models, ("paragraph",)) == {}  # the dates task has no paragraph inputs


def test_a_cell_marks_kept_content_and_loops_and_escapes_the_table():
    cell = report._cell(report.Output("a | b b b b b b", 0.5, True))
    assert cell == "a \\| b b b b b b *(50% kept)* **(loops)**"
    assert report._cell(report.Output("fine", None, False)) == "fine"
