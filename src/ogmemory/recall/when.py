"""Time in questions: "in May", "last year", "in 2023", "yesterday", "when ...?".

Recall uses the range to prefer facts valid then and events that happened then.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

__all__ = ["TimeQuery", "parse_time_query"]

_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
_ZH_MONTH = re.compile(r"(?:(\d{4})年)?(\d{1,2})月")
_YEAR = re.compile(r"\b(19\d{2}|20\d{2})\b")
_MONTH = re.compile(
    r"\b(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\b\.?(?:\s+(\d{4}))?",
    re.IGNORECASE,
)
_WHEN = re.compile(
    r"^\s*(when|what (?:date|day|time|year|month)|how long ago|since when)\b"
    r"|什么时候|何时|哪天|哪年",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class TimeQuery:
    start: float | None = None
    end: float | None = None
    asks_when: bool = False

    @property
    def has_range(self) -> bool:
        return self.start is not None and self.end is not None

    def contains(self, t: float | None) -> bool:
        return self.has_range and t is not None and self.start <= t < self.end  # type: ignore[operator]


_NOW = re.compile(
    r"\b(?:now|currently|nowadays|these days|at the moment|at present)\b"
    r"|现在|目前|如今",
    re.IGNORECASE,
)


def _month_range(year: int, month: int) -> tuple[float, float]:
    start = datetime(year, month, 1, tzinfo=UTC)
    end = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=UTC)
    return start.timestamp(), end.timestamp()


def _year_range(year: int) -> tuple[float, float]:
    return (
        datetime(year, 1, 1, tzinfo=UTC).timestamp(),
        datetime(year + 1, 1, 1, tzinfo=UTC).timestamp(),
    )


def parse_time_query(query: str, now: float) -> TimeQuery:
    """The time range a question asks about, relative to ``now`` (epoch seconds).

    Total: a year the calendar cannot hold ("0000年5月", "December 9999" seen from 3000)
    gives no range rather than an error.
    """
    try:
        return _time_query(query, now)
    except (OverflowError, OSError, ValueError):
        return TimeQuery(asks_when=bool(_WHEN.search(query)))


def _time_query(query: str, now: float) -> TimeQuery:
    ref = datetime.fromtimestamp(now, UTC)
    asks_when = bool(_WHEN.search(query))
    q = query.lower()
    span: tuple[float, float] | None = None
    if m := _ZH_MONTH.search(query):
        year = int(m.group(1)) if m.group(1) else ref.year
        if 1 <= int(m.group(2)) <= 12:
            span = _month_range(year, int(m.group(2)))
    elif m := _MONTH.search(query):
        word = m.group(1).lower()
        if (
            word not in ("may",)
            or re.search(r"\b(in|of|during|since|until|before|after) may\b", q)
            or m.group(2)
        ):
            year = int(m.group(2)) if m.group(2) else _year_in(query, ref.year)
            month = _MONTHS[word.rstrip(".")]
            span = _month_range(year, month)
    if span is None and (m := _YEAR.search(query)):
        span = _year_range(int(m.group(1)))
    if span is None:
        day = ref.replace(hour=0, minute=0, second=0, microsecond=0)
        if "yesterday" in q or "昨天" in query:
            span = ((day - timedelta(days=1)).timestamp(), day.timestamp())
        elif "today" in q or "今天" in query:
            span = (day.timestamp(), (day + timedelta(days=1)).timestamp())
        elif "last week" in q or "上周" in query:
            start = day - timedelta(days=day.weekday() + 7)
            span = (start.timestamp(), (start + timedelta(days=7)).timestamp())
        elif "last month" in q or "上个月" in query:
            first = day.replace(day=1)
            prev = (first - timedelta(days=1)).replace(day=1)
            span = (prev.timestamp(), first.timestamp())
        elif "last year" in q or "去年" in query:
            span = _year_range(ref.year - 1)
        elif "this year" in q or "今年" in query:
            span = _year_range(ref.year)
        elif _NOW.search(query):  # "what do we use now?": what holds today
            span = (day.timestamp(), (day + timedelta(days=1)).timestamp())
    if span is None:
        return TimeQuery(asks_when=asks_when)
    return TimeQuery(start=span[0], end=span[1], asks_when=asks_when)


def _year_in(query: str, default: int) -> int:
    m = _YEAR.search(query)
    return int(m.group(1)) if m else default
