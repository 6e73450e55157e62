"""The built-in "dates" task: human-written dates, English and Chinese, to ISO 8601.

"29 Nov 2026", "November 29, 2026", "11/29/26", "二〇二六年十一月二十九日", "2026年11月29日" all map
to "2026-11-29". The task needs no download and trains to a high exact match in minutes on a CPU,
and its attention is easy to read: each ISO digit attends to the source characters that carry it,
with visible reordering (month before day in "11/29/26", day before month in "29.11.2026", year
last in English and first in Chinese). It is the app's embedded default for training and the
engine's end-to-end test.

Everything is deterministic by seed (a private ``random.Random``, never the global one). Dates lie
between 1950-01-01 and 2049-12-31, so a two-digit year is never ambiguous: 50-99 means 19xx and
00-49 means 20xx.
"""

from __future__ import annotations

import datetime
import random
from collections.abc import Callable, Sequence

from engine.corpus.corpus_read import Pair
from engine.corpus.data import Split
from engine.settings.errors import DataError

FIRST_DATE = datetime.date(1950, 1, 1)
LAST_DATE = datetime.date(2049, 12, 31)

# Language names of the two sides, as model folders record them.
SOURCE_LANGUAGE = "dates-src"
TARGET_LANGUAGE = "iso"
ATTRIBUTION = "generated"

MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
ZH_DIGITS = "〇一二三四五六七八九"
_SUFFIXES = {1: "st", 2: "nd", 3: "rd"}
ZH_WEEKDAYS = ("星期一", "星期二", "星期三", "星期四", "星期五", "星期六", "星期日")


def ordinal(day: int) -> str:
    """English ordinal of a day of the month: 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st..."""
    if 11 <= day % 100 <= 13:
        return f"{day}th"
    return f"{day}{_SUFFIXES.get(day % 10, 'th')}"


def zh_year(year: int) -> str:
    """A year read digit by digit in Chinese: 2026 -> 二〇二六."""
    return "".join(ZH_DIGITS[int(digit)] for digit in str(year))


def zh_number(value: int) -> str:
    """A month or day (1-31) in Chinese numerals: 10 -> 十, 11 -> 十一, 20 -> 二十, 31 -> 三十一."""
    if not 1 <= value <= 99:
        raise DataError(f"zh_number covers 1 to 99; got {value}")
    tens, units = divmod(value, 10)
    if tens == 0:
        return ZH_DIGITS[units]
    prefix = "十" if tens == 1 else ZH_DIGITS[tens] + "十"
    return prefix + (ZH_DIGITS[units] if units else "")


def _zh_numerals(date: datetime.date) -> str:
    return f"{zh_year(date.year)}年{zh_number(date.month)}月{zh_number(date.day)}日"


def _month(date: datetime.date) -> str:
    return MONTHS[date.month - 1]


def _mon(date: datetime.date) -> str:
    return MONTHS[date.month - 1][:3]


# Style name -> formatter. The examples are for Sunday 2026-11-29.
_FORMATTERS: dict[str, Callable[[datetime.date], str]] = {
    "d_mon_yyyy": lambda d: f"{d.day} {_mon(d)} {d.year}",  # 29 Nov 2026
    "d_month_yyyy": lambda d: f"{d.day} {_month(d)} {d.year}",  # 29 November 2026
    "month_d_yyyy": lambda d: f"{_month(d)} {d.day}, {d.year}",  # November 29, 2026
    "mon_d_yyyy": lambda d: f"{_mon(d)} {d.day}, {d.year}",  # Nov 29, 2026
    "weekday_month_d_yyyy": lambda d: f"{WEEKDAYS[d.weekday()]}, {_month(d)} {d.day}, {d.year}",
    "mm_dd_yy": lambda d: f"{d.month}/{d.day}/{d.year % 100:02d}",  # 11/29/26
    "mm_dd_yyyy": lambda d: f"{d.month}/{d.day}/{d.year}",  # 11/29/2026
    "dd_mm_yyyy_dots": lambda d: f"{d.day:02d}.{d.month:02d}.{d.year}",  # 29.11.2026
    "yyyy_mm_dd_slashes": lambda d: f"{d.year}/{d.month:02d}/{d.day:02d}",  # 2026/11/29
    "the_dth_of_month_yyyy": lambda d: f"the {ordinal(d.day)} of {_month(d)} {d.year}",
    "dth_mon_yyyy": lambda d: f"{ordinal(d.day)} {_mon(d)} {d.year}",  # 29th Nov 2026
    "d_month_yyyy_lower": lambda d: f"{d.day} {_month(d).lower()} {d.year}",  # 29 november 2026
    "month_d_yyyy_lower": lambda d: f"{_month(d).lower()} {d.day}, {d.year}",  # november 29, 2026
    "d_mon_yyyy_upper": lambda d: f"{d.day} {_mon(d).upper()} {d.year}",  # 29 NOV 2026
    "mon_d_yyyy_upper": lambda d: f"{_mon(d).upper()} {d.day}, {d.year}",  # NOV 29, 2026
    "zh_arabic": lambda d: f"{d.year}年{d.month}月{d.day}日",  # 2026年11月29日
    "zh_numerals": _zh_numerals,  # 二〇二六年十一月二十九日
    "zh_arabic_weekday": lambda d: f"{d.year}年{d.month}月{d.day}日{ZH_WEEKDAYS[d.weekday()]}",
    "zh_numerals_weekday": lambda d: f"{_zh_numerals(d)} {ZH_WEEKDAYS[d.weekday()]}",
}

STYLES: tuple[str, ...] = tuple(_FORMATTERS)


def format_date(date: datetime.date, style: str) -> str:
    """Write ``date`` in one of :data:`STYLES`, e.g. ``format_date(date(2026, 11, 29), "mon_d_yyyy")``."""
    formatter = _FORMATTERS.get(style)
    if formatter is None:
        raise DataError(f"date style must be one of {', '.join(STYLES)}; got {style!r}")
    return formatter(date)


def _all_dates() -> list[datetime.date]:
    first = FIRST_DATE.toordinal()
    return [datetime.date.fromordinal(day) for day in range(first, LAST_DATE.toordinal() + 1)]


def _make_pair(date: datetime.date, style: str) -> Pair:
    iso = date.isoformat()
    return Pair(source=format_date(date, style), target=iso, english=iso, attribution=ATTRIBUTION)


def _draw(rng: random.Random, dates: Sequence[datetime.date], count: int) -> list[Pair]:
    """``count`` pairs with distinct source texts, dates and styles drawn uniformly.

    Different (date, style) choices can write the same text ("May 5, 2000" is both "mon_d_yyyy"
    and "month_d_yyyy"), so repeats are redrawn; ``count`` is capped at half the combinations,
    which keeps redrawing cheap.
    """
    limit = len(dates) * len(STYLES) // 2
    if not 0 <= count <= limit:
        raise DataError(f"count must be between 0 and {limit:,} for {len(dates):,} dates; got {count:,}")
    seen: set[str] = set()
    pairs: list[Pair] = []
    while len(pairs) < count:
        pair = _make_pair(dates[rng.randrange(len(dates))], STYLES[rng.randrange(len(STYLES))])
        if pair.source not in seen:
            seen.add(pair.source)
            pairs.append(pair)
    return pairs


def generate_pairs(count: int, seed: int) -> list[Pair]:
    """``count`` (human date -> ISO date) pairs, no two alike; the same seed gives the same list.

    ``Pair.english`` holds the ISO date, so every way of writing one date falls in the same part
    of :func:`engine.corpus.data.split_pairs`.
    """
    return _draw(random.Random(seed), _all_dates(), count)


def dates_split(seed: int = 1, train_size: int = 20000, valid_size: int = 500, test_size: int = 500) -> Split:
    """A deterministic train / valid / test split of the dates task.

    Valid and test use one pair per date, on dates that appear nowhere else: no ISO date of valid
    or test occurs in train, and valid and test share none, so the scores measure generalization
    to unseen dates rather than memory.
    """
    dates = _all_dates()
    held_out_count = valid_size + test_size
    if valid_size < 0 or test_size < 0 or held_out_count > len(dates) - 1:
        raise DataError(
            f"valid_size and test_size must be at least 0 and together below {len(dates):,}; "
            f"got {valid_size:,} and {test_size:,}"
        )
    rng = random.Random(seed)
    order = rng.sample(range(len(dates)), held_out_count)
    held_out = set(order)
    valid_dates, test_dates = order[:valid_size], order[valid_size:]
    train_dates = [date for index, date in enumerate(dates) if index not in held_out]
    train = _draw(rng, train_dates, train_size)
    valid = [_make_pair(dates[index], rng.choice(STYLES)) for index in valid_dates]
    test = [_make_pair(dates[index], rng.choice(STYLES)) for index in test_dates]
    return Split(train=tuple(train), valid=tuple(valid), test=tuple(test))
