"""The Length study's table of a bucket's inputs at 1280×800: several rows in view (it showed one
and a half, each a 41–60-token input of eight lines) and every column title whole (the scorers'
labels were cut: ``Bilinear (Luong "ge…``)."""

from __future__ import annotations

from engine.settings.scorer_table import SCORER_TABLE
from engine.studies.length_study import BucketScore, LengthStudy, StudyRow
from gui.translate.length_study.model import gather
from gui.translate.length_study.view import LengthStudyView
from tests.gui.conftest import shown

LONG_SOURCE = "汤姆告诉玛丽她应该停止假装醉酒。她说她会考虑的，但是她明天还要早起去上班。" * 2
LONG_OUTPUT = "Tom told Mary that she should stop pretending to be drunk. She said she would think about it. " * 2


def _study(scorer: str) -> LengthStudy:
    rows = tuple(StudyRow("41–60", f"{index}{LONG_SOURCE}", LONG_OUTPUT, f"{scorer} {LONG_OUTPUT}", 50)
                 for index in range(5))
    return LengthStudy(1, 120, (BucketScore("41–60", 120, 28.0, 48.0),), rows, "sig")


def test_the_bucket_table_shows_several_rows_and_whole_titles_at_1280x800(qtbot):
    view = LengthStudyView()
    scorers = [(name, info.label, _study(name)) for name, info in SCORER_TABLE.items() if info.family == "rnn"]
    assert len(scorers) >= 6  # the mechanisms of the shipped models, each a column
    view.set_data(gather(scorers))
    shown(qtbot, view, 1078, 668)  # its size in the dialog at 1280×800 (measured under Xvfb)
    table = view.table
    assert view.select_bucket("41–60") and table.rowCount() == 5
    qtbot.waitUntil(lambda: table.viewport().height() > 0)
    whole = [row for row in range(table.rowCount())
             if table.rowViewportPosition(row) + table.rowHeight(row) <= table.viewport().height()]
    assert len(whole) >= 3, f"{len(whole)} rows in view, viewport {table.viewport().height()} px"
    header, metrics = table.horizontalHeader(), table.horizontalHeader().fontMetrics()
    for column in range(1, table.columnCount()):
        title = table.horizontalHeaderItem(column).text()
        assert metrics.horizontalAdvance(title) + 8 <= header.sectionSize(column), f"title cut: {title!r}"
        assert table.horizontalHeaderItem(column).toolTip() in ({"Source", "Reference"}
                                                                | {info.label for info in SCORER_TABLE.values()})
    assert "Bahdanau" in table.horizontalHeaderItem(3).toolTip()  # the whole label in the tooltip
    assert table.item(0, 1).toolTip().startswith(f"0{LONG_SOURCE}")  # a row's text is whole in its tooltip
