"""The beam tree names the hypothesis it shows: once the search has ended, the node of the output
is outlined and the footer gives that hypothesis in words (it gave log p alone, and no node was
outlined until one was clicked); a node chosen, kept, finished or pruned, is named the same way."""

from __future__ import annotations

import pytest

from gui.attention.labels import join_pieces
from tests.gui.test_translate_support import install_models, open_window, wait_for_model, wait_run_end


@pytest.mark.slow  # a trained model, or the real window
def test_the_output_node_is_outlined_and_every_chosen_hypothesis_is_named_in_words(qtbot, dates_models):
    install_models(dates_models, ("additive",))
    window = open_window(qtbot)
    wait_for_model(qtbot, window, "additive")
    tab = window.translate_tab
    tab.view.choice_bar.beam_spin.setValue(3)
    dialog = tab.open_beam_tree()  # open while the search runs: the outline comes when it ends
    tab.translate_text("29 Nov 2026")
    wait_run_end(qtbot, window)
    tree, output = dialog.tree, tuple(tab.view.attention_panel.target_tokens())
    assert tree.current is not None and tree.current.node.status == "finished"
    assert tuple(tree.current.node.step.hypothesis_tokens) == output
    assert tree.outlined_box().contains(tree.current.rect().center())
    assert f"“{join_pieces(output)[0]}”" in dialog.status.text()
    others = [item for level in tree.levels for item in level if item is not tree.current]
    kept = next(item for item in others if item.node.status == "kept")
    tree.choose(kept)
    assert f"“{join_pieces(kept.node.step.hypothesis_tokens)[0]}”" in dialog.status.text()
    assert tree.outlined_box().contains(kept.rect().center())
    pruned = [item for item in others if item.node.status == "pruned" and len(item.node.ids) > 1]
    if pruned:
        tree.choose(pruned[0])
        parent = tree.items_by_ids[tuple(pruned[0].node.ids[:-1])].node.step.hypothesis_tokens
        said = join_pieces((*parent, pruned[0].node.token))[0]
        assert f"“{said}” was pruned" in dialog.status.text()
    dialog.close()
