"""Time in questions: "on 8 May 2023", "in May", "last year", "in 2023", "yesterday", "last
week", "2023年5月8日", "上周", "when ...?".

Recall uses the range to prefer facts valid then and events that happened then; a question that
asks for nothing but the period ("What happened in May 2023?", "上周发生了什么？") is ``only``
about it, and recall answers from that period alone. Relative periods ("last week") count from
``now``, which recall sets to the newest event it holds.

>>> from datetime import datetime, UTC
>>> may = datetime(2023, 6, 9, tzinfo=UTC).timestamp()
>>> tq = parse_time_query("What happened in May 2023?", may)
>>> tq.only, str(datetime.fromtimestamp(tq.start, UTC).date())
(True, '2023-05-01')
>>> parse_time_query("What did Jon find on 1 February, 2023?", may).only
False
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

__all__ = ["TimeQuery", "parse_time_query"]

_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
_ZH_MONTH = re.compile(r"(?:(\d{4})年)?(\d{1,2})月(?:(\d{1,2})[日号])?")
_ISO_DAY = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_MONTH_NAMES = "|".join(sorted(_MONTHS, key=len, reverse=True))
# "8 May 2023", "8th of May, 2023", "May 8, 2023", "May 8th"
_DAY_MONTH = re.compile(
    r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(" + _MONTH_NAMES + r")\b\.?,?(?:\s+(\d{4}))?",
    re.IGNORECASE,
)
_MONTH_DAY = re.compile(
    r"\b(" + _MONTH_NAMES + r")\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b(?!:)(?:,?\s+(\d{4}))?",
    re.IGNORECASE,
)
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
    #: the question asks for nothing but the period ("what happened in May 2023?")
    only: bool = False

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


Span = tuple[float, float]
#: what a period was found as, and where in the question it was named
_Found = tuple[Span, tuple[int, int]] | None

# words that ask for nothing but "what was there": a question of only these and a period is
# only about the period
_FRAME = frozenset(
    """what s happened happen happens happening occurred occur went go going on in during of at
    around from between to was were is are be been did do does done has had have we i you us me
    my our they there the so anything something everything else events event new news timeline
    tell show list summarize summarise summary recap remember recall catch up about all any and
    interesting important notable main key""".split()
)
_FRAME_ZH = re.compile(
    r"[我们你他她大家都有啥什么发生了事情做干过吗呢的在里期间些一下回顾总结讲说]"
)


def _time_query(query: str, now: float) -> TimeQuery:
    ref = datetime.fromtimestamp(now, UTC)
    asks_when = bool(_WHEN.search(query))
    q = query.lower()
    found = _day(query, q, ref) or _month(query, q, ref) or _year(query) or _relative(query, ref)
    if found is None:
        return TimeQuery(asks_when=asks_when)
    (start, end), (a, b) = found
    rest = query[:a] + " " + query[b:]
    only = not asks_when and _only_period(rest)
    return TimeQuery(start=start, end=end, asks_when=asks_when, only=only)


def _only_period(rest: str) -> bool:
    """The question without its period asks for nothing in particular."""
    words = {w.lower() for w in re.findall(r"[^\W\d_]+", rest) if not _CJK.match(w)}
    cjk = "".join(_CJK.findall(rest))
    return words <= _FRAME and not _FRAME_ZH.sub("", cjk)


_CJK = re.compile(r"[\u3400-\u9fff]")


def _may(q: str, m: re.Match[str], word: str, year: str | None) -> bool:
    """ "May" is a month, not the modal verb: with a year, or after a preposition."""
    before = q[: m.start()].rstrip().rsplit(" ", 1)[-1] if m.start() else ""
    return word != "may" or bool(year) or before in _PREPOSITIONS


_PREPOSITIONS = frozenset({"in", "of", "during", "since", "until", "before", "after", "on", "by"})


def _day_span(year: int, month: int, day: int) -> Span:
    start = datetime(year, month, day, tzinfo=UTC)
    return start.timestamp(), (start + timedelta(days=1)).timestamp()


def _day(query: str, q: str, ref: datetime) -> _Found:
    """A day: "2023-05-08", "8 May 2023", "May 8th", "2023年5月8日"."""
    for m in _ISO_DAY.finditer(query):
        if 1 <= int(m.group(2)) <= 12 and 1 <= int(m.group(3)) <= 31:
            try:
                return _day_span(int(m.group(1)), int(m.group(2)), int(m.group(3))), m.span()
            except ValueError:
                continue
    if (zh := _ZH_MONTH.search(query)) and zh.group(3):
        year = int(zh.group(1)) if zh.group(1) else ref.year
        try:
            return _day_span(year, int(zh.group(2)), int(zh.group(3))), zh.span()
        except ValueError:
            return None
    for pattern, day_at, month_at in ((_DAY_MONTH, 1, 2), (_MONTH_DAY, 2, 1)):
        for m in pattern.finditer(query):
            word, named = m.group(month_at).lower().rstrip("."), m.group(3)
            if not _may(q, m, word, named):
                continue
            try:
                span = _day_span(
                    int(named) if named else _year_in(query, ref.year),
                    _MONTHS[word],
                    int(m.group(day_at)),
                )
            except ValueError:
                continue
            return span, m.span()
    return None


def _month(query: str, q: str, ref: datetime) -> _Found:
    if m := _ZH_MONTH.search(query):
        year = int(m.group(1)) if m.group(1) else ref.year
        return (
            (_month_range(year, int(m.group(2))), m.span()) if 1 <= int(m.group(2)) <= 12 else None
        )
    for m in _MONTH.finditer(query):
        word = m.group(1).lower().rstrip(".")
        if _may(q, m, word, m.group(2)):
            year = int(m.group(2)) if m.group(2) else _year_in(query, ref.year)
            return _month_range(year, _MONTHS[word]), m.span()
    return None


def _year(query: str) -> _Found:
    m = _YEAR.search(query)
    return (_year_range(int(m.group(1))), m.span()) if m else None


def _relative(query: str, ref: datetime) -> _Found:
    """ "yesterday", "last week", "this month", "上周", ...: counted from ``ref``."""
    day = ref.replace(hour=0, minute=0, second=0, microsecond=0)
    week = day - timedelta(days=day.weekday())
    first = day.replace(day=1)
    prev = (first - timedelta(days=1)).replace(day=1)
    nxt = (first + timedelta(days=32)).replace(day=1)
    spans: list[tuple[str, Span]] = [
        (r"\bthe day before yesterday\b|前天", _days(day, -2, 1)),
        (r"\byesterday\b|昨天", _days(day, -1, 1)),
        (r"\btoday\b|今天", _days(day, 0, 1)),
        (r"\blast week\b|上周|上个星期|上星期", _days(week, -7, 7)),
        (r"\bthis week\b|本周|这周|这个星期", _days(week, 0, 7)),
        (r"\blast month\b|上个月", (prev.timestamp(), first.timestamp())),
        (r"\bthis month\b|本月|这个月", (first.timestamp(), nxt.timestamp())),
        (r"\blast year\b|去年", _year_range(ref.year - 1)),
        (r"\bthis year\b|今年", _year_range(ref.year)),
    ]
    for pattern, span in spans:
        if m := re.search(pattern, query, re.IGNORECASE):
            return span, m.span()
    if m := _NOW.search(query):  # "what do we use now?": what holds today
        return _days(day, 0, 1), m.span()
    return None


def _days(start: datetime, offset: int, length: int) -> Span:
    first = start + timedelta(days=offset)
    return first.timestamp(), (first + timedelta(days=length)).timestamp()


def _year_in(query: str, default: int) -> int:
    m = _YEAR.search(query)
    return int(m.group(1)) if m else default
