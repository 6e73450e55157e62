"""The note a model without attention shows in place of the map suggests every mechanism that
attends, as the scorer registry (engine/settings/scorer_table.py) lists them: it named three of five."""

from __future__ import annotations

from dataclasses import replace

from engine.settings.scorer_table import SCORER_TABLE
from gui.attention import no_attention as panel_module
from gui.attention.panel import AttentionPanel


def test_the_fixed_context_note_suggests_every_attending_mechanism_of_the_registry(qtbot):
    panel = AttentionPanel()
    qtbot.addWidget(panel)
    note = panel.note.text()
    attending = [info for info in SCORER_TABLE.values() if info.uses_attention]
    assert {"scaled_dot", "multihead"} <= {info.name for info in attending}
    for info in attending:
        assert info.label.split(" (")[0] in note, info.name
    assert "None" not in note.split("Switch", 1)[1]


def test_the_note_follows_a_row_added_to_the_registry():
    table = dict(SCORER_TABLE)
    table["cosine"] = replace(SCORER_TABLE["dot"], name="cosine", label="Cosine (Graves)")
    note = panel_module.no_attention_note(table)
    assert "Cosine or" not in note and note.count("Cosine") == 1 and "Graves" not in note
    assert panel_module.no_attention_note({"dot": SCORER_TABLE["dot"]}).count("Switch the scorer to Dot product to") == 1
