"""A Transformer's layer and head chooser in the other language: each item is two messages put together
("Layer 2 · " + "Mean of 4 heads"), which the catalog's in-place rewriting cannot find whole, so the chooser
makes its items again on the language change, its choice kept."""

from __future__ import annotations

import pytest

from gui.attention.heads import HeadChooser
from gui.i18n import set_language


@pytest.fixture(autouse=True)
def english_afterwards():
    yield
    set_language("en", remember=False)


def test_the_layer_and_head_items_are_made_again_in_chinese_and_back_with_the_choice_kept(qtbot):
    chooser = HeadChooser()
    qtbot.addWidget(chooser)
    chooser.set_head_count(4, 2)
    assert chooser.itemText(0) == "Layer 2 · Mean of 4 heads"
    chooser.setCurrentIndex(7)  # layer 1, head 2
    chosen = (chooser.layer, chooser.head)
    heard = []
    chooser.headChanged.connect(heard.append)
    assert set_language("zh_CN", remember=False) == ""
    qtbot.waitUntil(lambda: chooser.itemText(0) == "第 2 层 · 4 个头的平均")
    assert chooser.itemText(7) == "第 1 层 · 头 2" and (chooser.layer, chooser.head) == chosen and not heard
    set_language("en", remember=False)
    qtbot.waitUntil(lambda: chooser.itemText(0) == "Layer 2 · Mean of 4 heads")
    assert chooser.itemText(7) == "Layer 1 · Head 2" and (chooser.layer, chooser.head) == chosen
