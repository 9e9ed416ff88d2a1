"""Calendar arithmetic for resolving time expressions (:mod:`ogmemory.distill.dates`): weeks
start on Monday, months are clamped to their length, and a month or day named without a year is
placed by the sentence's tense (``past``: True, False, or None when it has no clear one)."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Literal

__all__ = [
    "MONTHS_EN",
    "SEASON_MONTH",
    "WEEKDAYS_EN",
    "Granularity",
    "add_months",
    "day_guess",
    "monday",
    "month_guess",
    "period",
    "safe_date",
    "season",
    "unit_offset",
    "weekday_last",
    "weekday_near",
    "weekday_next",
]

#: English weekday names and abbreviations -> weekday (Monday = 0).
WEEKDAYS_EN: dict[str, int] = {
    "monday": 0,
    "mon": 0,
    "tuesday": 1,
    "tues": 1,
    "tue": 1,
    "wednesday": 2,
    "wed": 2,
    "thursday": 3,
    "thurs": 3,
    "thur": 3,
    "thu": 3,
    "friday": 4,
    "fri": 4,
    "saturday": 5,
    "sat": 5,
    "sunday": 6,
    "sun": 6,
}
#: English month names and abbreviations -> month number.
MONTHS_EN: dict[str, int] = {
    "january": 1,
    "jan": 1,
    "february": 2,
    "feb": 2,
    "march": 3,
    "mar": 3,
    "april": 4,
    "apr": 4,
    "may": 5,
    "june": 6,
    "jun": 6,
    "july": 7,
    "jul": 7,
    "august": 8,
    "aug": 8,
    "september": 9,
    "sept": 9,
    "sep": 9,
    "october": 10,
    "oct": 10,
    "november": 11,
    "nov": 11,
    "december": 12,
    "dec": 12,
}

#: How much of the calendar a resolved expression names.
Granularity = Literal["day", "week", "weekend", "month", "season", "year"]


def monday(d: date) -> date:
    """The Monday of ``d``'s week."""
    return d - timedelta(days=d.weekday())


def add_months(d: date, n: int) -> date:
    """``d`` moved by ``n`` months, the day clamped to the month's length."""
    m = d.month - 1 + n
    y, m = d.year + m // 12, m % 12 + 1
    for day in (d.day, 30, 29, 28):
        try:
            return date(y, m, day)
        except ValueError:
            continue
    return date(y, m, 28)


def safe_date(y: int, m: int, d: int) -> date | None:
    """The date, or ``None`` when there is no such day (February 30)."""
    try:
        return date(y, m, d)
    except ValueError:
        return None


def month_guess(ref: date, month: int, past: bool | None) -> int:
    """The year of a month named without one: the latest past one, the next future one, or
    (tense unknown) the nearest one, ties going to the past."""
    if past:
        return ref.year if month <= ref.month else ref.year - 1
    if past is False:
        return ref.year if month >= ref.month else ref.year + 1
    ahead = (month - ref.month) % 12
    if ahead == 0:
        return ref.year
    return ref.year + (month < ref.month) if ahead < 12 - ahead else ref.year - (month > ref.month)


def day_guess(ref: date, month: int, day: int, past: bool | None) -> date | None:
    """The year of a day named without one (``May 7``): by tense, else the nearest."""
    options = [d for d in (safe_date(ref.year + k, month, day) for k in (-1, 0, 1)) if d]
    if not options:
        return None
    if past:
        options = [d for d in options if d <= ref + timedelta(days=7)] or options
        return max(options)
    if past is False:
        options = [d for d in options if d >= ref - timedelta(days=7)] or options
        return min(options)
    return min(options, key=lambda d: (abs((d - ref).days), d > ref))


def weekday_last(ref: date, wd: int) -> date:
    """The latest weekday ``wd`` strictly before ``ref``."""
    delta = (ref.weekday() - wd) % 7 or 7
    return ref - timedelta(days=delta)


def weekday_next(ref: date, wd: int) -> date:
    """The first weekday ``wd`` strictly after ``ref``."""
    delta = (wd - ref.weekday()) % 7 or 7
    return ref + timedelta(days=delta)


def weekday_near(ref: date, wd: int, past: bool | None) -> date:
    """A bare weekday: today if it is one, else the next (future tense) or the last one."""
    if wd == ref.weekday():
        return ref
    return weekday_next(ref, wd) if past is False else weekday_last(ref, wd)


def unit_offset(ref: date, unit: str, n: int) -> tuple[date, Granularity]:
    """``ref`` moved by ``n`` units (negative: back in time), with the unit as granularity."""
    if unit.startswith("day"):
        return ref + timedelta(days=n), "day"
    if unit.startswith("weekend"):
        return monday(ref) + timedelta(days=5 + 7 * n), "weekend"
    if unit.startswith("week"):
        return ref + timedelta(days=7 * n), "week"
    if unit.startswith("month"):
        return add_months(ref, n), "month"
    return safe_date(ref.year + n, ref.month, min(ref.day, 28)) or ref, "year"


def period(ref: date, unit: str, shift: int) -> tuple[date, Granularity]:
    """The calendar period (``week``/``weekend``/``month``/``year``) ``shift`` periods away."""
    if unit == "week":
        return monday(ref) + timedelta(days=7 * shift), "week"
    if unit == "weekend":
        return monday(ref) + timedelta(days=5 + 7 * shift), "weekend"
    if unit == "month":
        return add_months(ref.replace(day=1), shift), "month"
    return date(ref.year + shift, 1, 1), "year"


SEASON_MONTH = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}


def season(ref: date, name: str, shift: int) -> date:
    """First day of a season: the current one (0), the last finished one (-1), the next (1)."""
    month = SEASON_MONTH[name]
    starts = [date(y, month, 1) for y in range(ref.year - 2, ref.year + 2)]
    if shift < 0:
        return max(s for s in starts if add_months(s, 3) <= ref)
    if shift > 0:
        return min(s for s in starts if s > ref)
    if name == "winter" and ref.month < 3:
        return date(ref.year - 1, 12, 1)
    return date(ref.year, month, 1)
