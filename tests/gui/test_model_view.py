"""A Transformer's layers and heads in the real window: the Layers button, the grid, the map opened large."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from PySide6.QtCore import Qt

from engine.files import user_models_folder
from engine.networks.layer_maps import KINDS
from gui.attention.model_view import ModelView
from gui.screen_fit import available_geometry
from tests.gui.test_translate_support import LOAD_MS, open_window, type_and_translate, wait_run_end
from tests.model_factory import train_tiny_model

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def tiny_transformer(tmp_path_factory):
    return train_tiny_model(tmp_path_factory.mktemp("dates-transformer") / "model", "transformer", epochs=3)


def _window_with(qtbot, dates_models, tiny_transformer):
    root = user_models_folder()
    root.mkdir(parents=True, exist_ok=True)
    shutil.copytree(dates_models["additive"], root / "dates-additive", ignore=shutil.ignore_patterns("checkpoint*"))
    shutil.copytree(tiny_transformer, root / "dates-transformer", ignore=shutil.ignore_patterns("checkpoint*"))
    window = open_window(qtbot, ["--model", str(root / "dates-transformer")])
    window.resize(1280, 760)
    window.show()
    controller = window.translate_tab.controller
    qtbot.waitUntil(lambda: controller.bundle is not None and controller.bundle.scorer == "transformer"
                    and not controller.loading, timeout=LOAD_MS)
    return window


def test_the_layers_button_opens_every_layer_and_head_of_a_transformer_translation(qtbot, dates_models,
                                                                                    tiny_transformer):
    window = _window_with(qtbot, dates_models, tiny_transformer)
    tab = window.translate_tab
    button = tab.view.layers_button
    assert not button.isEnabled() and "Transformer" in button.toolTip()  # nothing decoded yet: says why
    type_and_translate(qtbot, window, "12 February 1987")
    wait_run_end(qtbot, window)
    qtbot.waitUntil(button.isEnabled, timeout=LOAD_MS)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    view = tab.model_view.window
    assert isinstance(view, ModelView) and view.isVisible()
    qtbot.waitExposed(view)
    translation = tab.last_translation
    maps = tab.model_view.maps
    assert len(view.grid.boxes) == maps.layers == 2 and all(len(row) == maps.heads == 4 for row in view.grid.boxes)
    assert view.kind == "cross"
    # the Translate map is the last layer's mean of heads; each head of it is in the grid
    last = maps.layers - 1
    assert np.allclose(np.mean([maps.map("cross", last, h) for h in range(maps.heads)], axis=0),
                       translation.attention, atol=1e-5)
    view.open_map(1, 2)
    assert view.grid.selected == (1, 2)
    view.heatmap.cellHovered.emit(2, 1)  # hover linked to the sentence: the two tokens are marked in the tab
    assert (tab.view.source_tokens._highlighted, tab.view.target_output._highlighted) == (1, 2)
    assert "→" in view.caption.text() and "layer 2, head 3" in view.caption.text()
    assert np.array_equal(view.heatmap._weights, maps.map("cross", 1, 2).astype(np.float32))
    for kind in KINDS:  # every kind draws, and the large map keeps its layer and head
        view.kind_box.setCurrentIndex(KINDS.index(kind))
        rows, columns = maps.axes(kind)
        assert view.heatmap._weights.shape == (len(rows), len(columns))
        assert view.grid.selected == (1, 2)
    view.kind_box.setCurrentIndex(KINDS.index("decoder"))
    assert np.allclose(np.triu(view.selected_weights(), 1), 0.0)  # causal: nothing later is read
    available = available_geometry(view)
    assert available.contains(view.frameGeometry()), (view.frameGeometry(), available)
    # a click on a small map opens it large
    box = view.grid.boxes[0][3]
    point = view.grid.mapFromScene(box.sceneBoundingRect().center())
    qtbot.mouseClick(view.grid.viewport(), Qt.MouseButton.LeftButton, pos=point)
    qtbot.waitUntil(lambda: view.grid.selected == (0, 3), timeout=LOAD_MS)
    view.close()


def test_an_rnn_translation_leaves_the_layers_button_off_and_says_why(qtbot, dates_models, tiny_transformer):
    window = _window_with(qtbot, dates_models, tiny_transformer)
    tab = window.translate_tab
    type_and_translate(qtbot, window, "12 February 1987")
    wait_run_end(qtbot, window)
    assert tab.view.layers_button.isEnabled()  # the Transformer's translation: on
    tab.model_view.run_started()
    tab.model_view.finished(_rnn_translation(dates_models))
    assert not tab.view.layers_button.isEnabled() and "RNN" in tab.view.layers_button.toolTip()


def _rnn_translation(dates_models):
    from engine.models.bundle import load_model_folder

    return load_model_folder(dates_models["additive"]).translator.translate("12 February 1987")


def test_the_translate_map_shows_each_layer_and_head_of_the_cross_attention(qtbot, dates_models, tiny_transformer):
    window = _window_with(qtbot, dates_models, tiny_transformer)
    tab = window.translate_tab
    type_and_translate(qtbot, window, "12 February 1987")
    wait_run_end(qtbot, window)
    panel = tab.view.attention_panel
    chooser = panel.head_chooser
    texts = [chooser.itemText(i) for i in range(chooser.count())]
    assert texts[:5] == ["Layer 2 · Mean of 4 heads", "Layer 2 · Head 1", "Layer 2 · Head 2", "Layer 2 · Head 3",
                         "Layer 2 · Head 4"]  # the last layer first: the rows each step reports
    assert texts[5:] == ["Layer 1 · Mean of 4 heads"] + [f"Layer 1 · Head {h}" for h in range(1, 5)]
    maps = tab.model_view.maps
    assert np.allclose(panel.shown_matrix(), panel.attention())  # the default: the contract's rows
    chooser.setCurrentIndex(texts.index("Layer 1 · Mean of 4 heads"))
    assert np.allclose(panel.shown_matrix(), maps.map("cross", 0, None), atol=1e-6)
    chooser.setCurrentIndex(texts.index("Layer 1 · Head 3"))
    assert np.allclose(panel.shown_matrix(), maps.map("cross", 0, 2), atol=1e-6)
    assert np.allclose(panel.attention(), maps.map("cross", 1, None), atol=1e-5)  # the contract stays the last mean
    panel.view_bar.set_word_view(False)  # pieces: the inspector's rows are the map's columns
    panel.select_step(1)
    panel.render_now()
    inspector = panel.inspector
    expected = maps.map("cross", 0, 2)[1]  # layer 1, head 3, step 1
    qtbot.waitUntil(lambda: "head 3" in inspector.title.text(), timeout=LOAD_MS)
    model = inspector.weights
    shown = [float(model.item(j, 3).text()) for j in range(model.rowCount())]
    assert np.allclose(shown, expected, atol=1e-3)
