"""Tests of the built-in dates task (engine.corpus.tasks.dates)."""

from __future__ import annotations

import datetime
import re

import pytest

from engine.corpus.tasks import TASKS, task_split
from engine.corpus.tasks.dates import (
    FIRST_DATE,
    LAST_DATE,
    STYLES,
    ZH_WEEKDAYS,
    dates_split,
    format_date,
    generate_pairs,
    ordinal,
    zh_number,
)
from engine.settings.errors import DataError

SUNDAY = datetime.date(2026, 11, 29)
ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def test_generate_pairs_is_deterministic_by_seed() -> None:
    assert generate_pairs(300, seed=7) == generate_pairs(300, seed=7)
    assert generate_pairs(300, seed=7) != generate_pairs(300, seed=8)
    assert generate_pairs(0, seed=7) == []


def test_sources_are_unique_even_where_styles_coincide() -> None:
    # "May" is its own abbreviation: two styles write May dates the same way.
    may = datetime.date(2000, 5, 5)
    assert format_date(may, "mon_d_yyyy") == format_date(may, "month_d_yyyy") == "May 5, 2000"
    pairs = generate_pairs(20000, seed=11)
    assert len({p.source for p in pairs}) == 20000


def test_targets_are_valid_iso_dates_in_range() -> None:
    pairs = generate_pairs(2000, seed=3)
    assert len({(p.source, p.target) for p in pairs}) == len(pairs)
    for pair in pairs:
        assert ISO.match(pair.target)
        date = datetime.date.fromisoformat(pair.target)
        assert FIRST_DATE <= date <= LAST_DATE
        assert pair.english == pair.target
        assert pair.attribution == "generated"
        assert pair.source
        assert pair.source != pair.target


def test_every_style_is_produced() -> None:
    pairs = generate_pairs(3000, seed=1)
    produced = set()
    for pair in pairs:
        date = datetime.date.fromisoformat(pair.target)
        matches = {style for style in STYLES if format_date(date, style) == pair.source}
        assert matches, pair
        produced |= matches
    assert produced == set(STYLES)


def test_english_examples() -> None:
    expected = {
        "29 Nov 2026",
        "29 November 2026",
        "November 29, 2026",
        "Nov 29, 2026",
        "Sunday, November 29, 2026",
        "11/29/26",
        "11/29/2026",
        "29.11.2026",
        "2026/11/29",
        "the 29th of November 2026",
        "29th Nov 2026",
        "29 november 2026",
        "NOV 29, 2026",
    }
    assert expected <= {format_date(SUNDAY, style) for style in STYLES}
    assert format_date(datetime.date(1961, 7, 9), "mm_dd_yy") == "7/9/61"
    assert format_date(datetime.date(2003, 1, 2), "dd_mm_yyyy_dots") == "02.01.2003"


def test_chinese_examples() -> None:
    produced = {format_date(SUNDAY, style) for style in STYLES}
    assert {
        "2026年11月29日",
        "二〇二六年十一月二十九日",
        "2026年11月29日星期日",
        "二〇二六年十一月二十九日 星期日",
    } <= produced
    assert format_date(datetime.date(2010, 10, 10), "zh_numerals") == "二〇一〇年十月十日"
    assert format_date(datetime.date(1999, 12, 31), "zh_numerals") == "一九九九年十二月三十一日"
    assert format_date(datetime.date(2000, 1, 20), "zh_numerals") == "二〇〇〇年一月二十日"
    assert format_date(datetime.date(2049, 2, 1), "zh_numerals") == "二〇四九年二月一日"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1, "一"),
        (9, "九"),
        (10, "十"),
        (11, "十一"),
        (19, "十九"),
        (20, "二十"),
        (29, "二十九"),
        (30, "三十"),
        (31, "三十一"),
    ],
)
def test_zh_number(value: int, text: str) -> None:
    assert zh_number(value) == text


@pytest.mark.parametrize(
    ("day", "text"),
    [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"), (12, "12th"), (13, "13th"),
     (21, "21st"), (22, "22nd"), (23, "23rd"), (30, "30th"), (31, "31st")],
)  # fmt: skip
def test_ordinal(day: int, text: str) -> None:
    assert ordinal(day) == text


def test_weekdays_match_the_date() -> None:
    names = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
    for pair in generate_pairs(3000, seed=5):
        date = datetime.date.fromisoformat(pair.target)
        english = [name for name in names if name in pair.source]
        chinese = [name for name in ZH_WEEKDAYS if name in pair.source]
        if english:
            assert english == [date.strftime("%A")]
        if chinese:
            assert chinese == [ZH_WEEKDAYS[date.weekday()]]
    assert format_date(datetime.date(2000, 1, 1), "weekday_month_d_yyyy") == "Saturday, January 1, 2000"
    assert format_date(datetime.date(2000, 1, 1), "zh_arabic_weekday") == "2000年1月1日星期六"


def test_unknown_style_names_the_choices() -> None:
    with pytest.raises(DataError, match="mon_d_yyyy"):
        format_date(SUNDAY, "klingon")


def test_split_sizes_and_determinism() -> None:
    split = dates_split(seed=2, train_size=3000, valid_size=200, test_size=150)
    assert split.sizes() == {"train": 3000, "valid": 200, "test": 150, "train_removed_overlap": 0}
    assert split == dates_split(seed=2, train_size=3000, valid_size=200, test_size=150)
    assert split != dates_split(seed=3, train_size=3000, valid_size=200, test_size=150)


def test_split_held_out_dates_are_disjoint_from_train() -> None:
    split = dates_split(seed=1)
    assert split.sizes() == {"train": 20000, "valid": 500, "test": 500, "train_removed_overlap": 0}
    train_dates = {p.target for p in split.train}
    valid_dates = {p.target for p in split.valid}
    test_dates = {p.target for p in split.test}
    assert len(valid_dates) == 500
    assert len(test_dates) == 500
    assert not train_dates & valid_dates
    assert not train_dates & test_dates
    assert not valid_dates & test_dates
    assert len({(p.source, p.target) for p in split.train}) == 20000


def test_split_rejects_impossible_sizes() -> None:
    with pytest.raises(DataError, match="count must be between"):
        dates_split(train_size=10**9)
    with pytest.raises(DataError, match="valid_size"):
        dates_split(valid_size=-1)


def test_task_registry() -> None:
    assert "dates" in TASKS
    assert task_split("dates", seed=4) == dates_split(seed=4)
    with pytest.raises(DataError, match="dates"):
        task_split("weather")
