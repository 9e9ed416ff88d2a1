"""English time expressions for :func:`ogmemory.distill.dates.find_times`: one precompiled
alternation, the words that gate it, the matches that name no date, and the period each match
names (its first day, granularity, and whether it is vague)."""

from __future__ import annotations

import re
from datetime import date, timedelta

from .calendar import (
    MONTHS_EN,
    SEASON_MONTH,
    WEEKDAYS_EN,
    Granularity,
    add_months,
    day_guess,
    monday,
    month_guess,
    period,
    safe_date,
    season,
    unit_offset,
    weekday_last,
    weekday_near,
    weekday_next,
)
from .numbers import parse_number

__all__ = ["EN_GATE_WORDS", "EN_RE", "names_no_date", "resolve_en"]

_WD_FULL = r"monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_WD_ANY = _WD_FULL + r"|mon|tues|tue|wed|thurs|thur|thu|fri|sat|sun"
_MONTH = (
    r"january|february|march|april|may|june|july|august|september|october|november"
    r"|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec"
)
# Month names alone only when capitalised and not also common words ("may", "march").
_MONTH_LONG = r"(?-i:January|February|April|June|July|August|September|October|November|December)"
_NUM = (
    r"\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen"
    r"|twenty|thirty|a\s+couple\s+of|a\s+couple|couple\s+of|a\s+few|few|several"
)
_UNIT = r"days?|weeks?|weekends?|months?|years?"
# "about five years ago", "roughly 2 months ago": the speaker gives a rough time
_HEDGE = (
    r"about|around|roughly|approximately|nearly|almost|over|some|maybe|probably|like"
    r"|more\s+than|less\s+than|just\s+over|just\s+under"
)
_ROUGH_PREP = frozenset({"around", "about", "circa", "approximately", "roughly"})
_VAGUE_N = frozenset({"a few", "few", "several", "a couple", "a couple of", "couple of"})
_ORD = r"(?:st|nd|rd|th)?"

EN_RE = re.compile(
    r"\b(?:"
    r"(?P<dby>the\s+day\s+before\s+yesterday)"
    r"|(?P<dat>the\s+day\s+after\s+tomorrow)"
    r"|(?P<yday>yesterday|last\s+night)"
    r"|(?P<today>today|tonight|this\s+(?:morning|afternoon|evening)|earlier\s+today)"
    r"|(?P<tmr>tomorrow)"
    rf"|(?P<ago>(?:(?P<ago_h>{_HEDGE})\s+)?(?P<ago_n>{_NUM})\s+(?P<ago_u>{_UNIT})\s+(?:ago|back))"
    rf"|(?P<inn>in\s+(?:(?P<in_h>{_HEDGE})\s+)?(?P<in_n>{_NUM})\s+(?P<in_u>{_UNIT}))"
    rf"|(?P<dur>for\s+(?:the\s+(?:past|last)\s+)?(?P<dur_n>{_NUM})\s+(?P<dur_u>{_UNIT}))"
    # "Thursday next week", "on Monday last week": the weekday of the named week
    rf"|(?P<wdweek>(?:on\s+)?(?P<wdweek_d>{_WD_FULL})\s+(?P<wdweek_m>next|last|this)\s+week)"
    rf"|(?P<relwd>(?P<relwd_m>last|this\s+past|this\s+coming|this|next|coming|past)\s+"
    rf"(?P<relwd_d>{_WD_ANY}))"
    r"|(?P<earlier>(?:earlier|later)\s+this\s+(?P<earlier_u>week|month|year))"
    r"|(?P<endof>(?:the\s+)?end\s+of\s+(?:the\s+)?(?P<endof_m>this|next|last)?\s*"
    rf"(?P<endof_u>week|month|year|{_MONTH_LONG}))"
    r"|(?P<relu>(?P<relu_m>last|this\s+past|the\s+past|past|previous|this|next|coming"
    r"|the\s+following|the\s+coming)\s+(?P<relu_u>weekend|week|month|year))"
    r"|(?P<season>(?P<season_m>last|this|next|this\s+past|this\s+coming)\s+"
    r"(?P<season_n>spring|summer|fall|autumn|winter))"
    rf"|(?P<iso>(?P<iso_y>\d{{4}})[-/.](?P<iso_m>\d{{1,2}})[-/.](?P<iso_d>\d{{1,2}}))(?!\d)"
    r"|(?P<us>(?P<us_m>\d{1,2})/(?P<us_d>\d{1,2})/(?P<us_y>\d{4}|\d{2}))(?!\d)"
    rf"|(?P<my>(?P<my_m>{_MONTH}),?\s+(?P<my_y>\d{{4}}))(?!\d)"
    rf"|(?P<mdy>(?P<mdy_m>{_MONTH})\.?\s+(?P<mdy_d>\d{{1,2}}){_ORD}(?!\d)"
    r"(?:,?\s+(?P<mdy_y>\d{4}))?)(?!\d)"
    rf"|(?P<dmy>(?:the\s+)?(?P<dmy_d>\d{{1,2}}){_ORD}(?:\s+of)?\s+(?P<dmy_m>{_MONTH})\b"
    r"(?:,?\s+(?P<dmy_y>\d{4}))?)(?!\d)"
    rf"|(?P<inmon>(?P<inmon_p>in|since|during|early|late|mid|last|next|this|until|till|by"
    rf"|back\s+in)[\s-]+(?P<inmon_m>{_MONTH}))\b(?!\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b)"
    r"(?!,?\s+\d{4}\b)"
    rf"|(?P<barmon>(?P<barmon_m>{_MONTH_LONG}))\b"
    rf"|(?P<onwd>(?:on\s+)?(?P<onwd_d>{_WD_FULL})s?|on\s+(?P<onwd_a>{_WD_ANY}))"
    r"|(?P<sy>(?:(?:in|during)\s+)?(?:the\s+)?(?P<sy_n>spring|summer|fall|autumn|winter)\s+"
    r"(?:of\s+)?"
    r"(?P<sy_y>(?:19|20)\d{2}))(?!\d)"
    r"|(?P<year>(?:(?P<year_p>in|since|during|back\s+in|until|till|by|of|from|around|about"
    r"|circa|approximately|roughly)\s+(?:(?:early|late|mid|the\s+end\s+of|the\s+start\s+of"
    r"|the\s+beginning\s+of)[\s-]*)?|(?:early|late|mid)[\s-]+|mid-)"
    r"(?P<year_y>(?:19|20)\d{2}))(?!\d)"
    r")\b",
    re.IGNORECASE,
)

# Cheap gate: most sentences name no time at all, so the big regex runs only when a word that
# every alternative needs (a unit, a day or month name, ...) or a digit occurs.
EN_GATE_WORDS = (
    frozenset(
        "yesterday today tonight tomorrow night morning afternoon evening ago day days week weeks"
        " weekend weekends month months year years spring summer fall autumn winter".split()
    )
    | frozenset(WEEKDAYS_EN)
    | frozenset(MONTHS_EN)
    | frozenset("mondays tuesdays wednesdays thursdays fridays saturdays sundays".split())
)

# "for 4 years" dates a start only in a perfect-tense sentence ("I've known them for 4 years").
_PERFECT = re.compile(r"\b(?:I've|we've|I\s+have|we\s+have|has|had)\b|\bbeen\b", re.IGNORECASE)
_RECURRING = re.compile(
    r"\bevery\s+(?:other\s+|second\s+|single\s+)?\w+day|(?:day)s\b"
    r"|\w+day\s+(?:evenings|mornings|nights|afternoons)\b"
    r"|\b(?:first|second|third|fourth|last)\s+\w+day\s+of\b",
    re.IGNORECASE,
)


def names_no_date(m: re.Match[str], text: str) -> bool:
    """Whether a match dates nothing in ``text``: the weekday of a habit ("on Thursday
    evenings", "every Monday"), or a length ("for two weeks next month") outside a
    perfect-tense sentence."""
    if m.lastgroup == "onwd" and _RECURRING.search(text, max(0, m.start() - 14), m.end() + 12):
        return True
    if m.lastgroup == "inn" and _NOT_SINCE.search(text, max(0, m.start() - 40), m.start()):
        return True  # "we haven't talked in a few days": how long until now, not a date ahead
    return m.lastgroup == "dur" and not _PERFECT.search(text)


_NOT_SINCE = re.compile(
    r"(?i)\b(?:haven['’]?t|hasn['’]?t|hadn['’]?t|have\s+not|has\s+not|had\s+not|not\s+\w+ed)"
    r"\b[^.!?,;]*$"
)


def _en_n(text: str) -> int:
    return parse_number(" ".join(text.lower().split())) or 1


def _rough(hedge: str | None, n: str) -> bool:
    """Whether "<n> <units> ago" is a rough time: hedged ("about five years ago") or counted
    vaguely ("a few years ago"). "4 years ago" is a year, known to the year."""
    return bool(hedge) or " ".join(n.lower().split()) in _VAGUE_N


_RELATIVE_EN = frozenset(
    {
        "dby",
        "dat",
        "yday",
        "today",
        "tmr",
        "ago",
        "dur",
        "inn",
        "relwd",
        "wdweek",
        "earlier",
        "relu",
        "season",
        "endof",
    }
)


def resolve_en(
    m: re.Match[str], ref: date, past: bool | None
) -> tuple[date, Granularity, bool] | None:
    """The period one English match names: (first day, granularity, whether it is vague)."""
    if m.lastgroup in _RELATIVE_EN:
        return _relative_en(m, ref)
    return _absolute_en(m, ref, past)


def _relative_en(m: re.Match[str], ref: date) -> tuple[date, Granularity, bool] | None:
    g = m.group
    kind = m.lastgroup
    if kind == "dby":
        return ref - timedelta(days=2), "day", False
    if kind == "dat":
        return ref + timedelta(days=2), "day", False
    if kind == "yday":
        return ref - timedelta(days=1), "day", False
    if kind == "today":
        return ref, "day", False
    if kind == "tmr":
        return ref + timedelta(days=1), "day", False
    if kind == "ago":
        day, gran = unit_offset(ref, g("ago_u").lower(), -_en_n(g("ago_n")))
        return day, gran, _rough(g("ago_h"), g("ago_n"))
    if kind == "dur":
        n = _en_n(g("dur_n"))
        day, gran = unit_offset(ref, g("dur_u").lower(), -n)
        return day, gran, _rough(None, g("dur_n"))
    if kind == "inn":
        day, gran = unit_offset(ref, g("in_u").lower(), _en_n(g("in_n")))
        return day, gran, _rough(g("in_h"), g("in_n"))
    if kind == "relwd":
        mod = " ".join(g("relwd_m").lower().split())
        wd = WEEKDAYS_EN[g("relwd_d").lower()]
        if mod in ("last", "this past", "past"):
            return weekday_last(ref, wd), "day", False
        if mod in ("next", "coming", "this coming"):
            return weekday_next(ref, wd), "day", False
        return monday(ref) + timedelta(days=wd), "day", False
    if kind == "wdweek":
        shift = {"next": 7, "last": -7, "this": 0}[g("wdweek_m").lower()]
        wd = WEEKDAYS_EN[g("wdweek_d").lower()]
        return monday(ref) + timedelta(days=shift + wd), "day", False
    if kind == "earlier":
        day, gran = period(ref, g("earlier_u").lower(), 0)
        return day, gran, False
    if kind == "relu":
        mod = " ".join(g("relu_m").lower().split())
        unit = g("relu_u").lower()
        if mod in ("last", "this past", "the past", "past", "previous"):
            shift = -1
        elif mod == "this":
            shift = 0
        else:
            shift = 1
        day, gran = period(ref, unit, shift)
        return day, gran, mod in ("the past", "past")
    if kind == "endof":
        return _end_of(g("endof_u"), (g("endof_m") or "").lower(), ref), "day", True
    if kind == "season":
        mod = " ".join(g("season_m").lower().split())
        shift = -1 if mod in ("last", "this past") else (0 if mod == "this" else 1)
        return season(ref, g("season_n").lower(), shift), "season", False
    return None


def _end_of(unit: str, mod: str, ref: date) -> date:
    """The last day of a period ("the end of the month"; a week ends on its Friday)."""
    shift = {"next": 1, "last": -1}.get(mod, 0)
    low = unit.lower()
    if low in ("week", "month", "year"):
        first, _ = period(ref, low, shift)
    else:  # "the end of June": the next one, unless it is this month
        month = MONTHS_EN[low]
        first = date(month_guess(ref, month, False), month, 1)
        low = "month"
    if low == "week":
        return first + timedelta(days=4)
    if low == "month":
        return add_months(first, 1) - timedelta(days=1)
    return date(first.year, 12, 31)


def _absolute_en(
    m: re.Match[str], ref: date, past: bool | None
) -> tuple[date, Granularity, bool] | None:
    g = m.group
    kind = m.lastgroup
    if kind == "iso":
        d = safe_date(int(g("iso_y")), int(g("iso_m")), int(g("iso_d")))
        return (d, "day", False) if d else None
    if kind == "us":
        y = int(g("us_y"))
        d = safe_date(y + 2000 if y < 100 else y, int(g("us_m")), int(g("us_d")))
        return (d, "day", False) if d else None
    if kind == "my":
        return date(int(g("my_y")), MONTHS_EN[g("my_m").lower()], 1), "month", False
    if kind in ("mdy", "dmy"):
        month, day_n = MONTHS_EN[g(f"{kind}_m").lower()], int(g(f"{kind}_d"))
        if g(f"{kind}_y"):
            d = safe_date(int(g(f"{kind}_y")), month, day_n)
        else:
            d = day_guess(ref, month, day_n, past)
        return (d, "day", False) if d else None
    if kind in ("inmon", "barmon"):
        month = MONTHS_EN[g(f"{kind}_m").lower()]
        prep = (g("inmon_p") or "").lower() if kind == "inmon" else ""
        if prep == "last":
            year = ref.year - 1 if month >= ref.month else ref.year
        elif prep == "next":
            year = ref.year + 1 if month <= ref.month else ref.year
        elif prep == "this":
            year = ref.year
        else:
            year = month_guess(ref, month, False if prep in ("until", "till", "by") else past)
        return date(year, month, 1), "month", False
    if kind == "onwd":
        wd = WEEKDAYS_EN[(g("onwd_d") or g("onwd_a")).lower()]
        return weekday_near(ref, wd, past), "day", False
    if kind == "year":
        if re.search(r"(?i)\bend\s+of", g("year")):  # "by the end of 2024": its last day
            return date(int(g("year_y")), 12, 31), "day", False
        rough = (g("year_p") or "").lower() in _ROUGH_PREP
        return date(int(g("year_y")), 1, 1), "year", rough
    if kind == "sy":
        return date(int(g("sy_y")), SEASON_MONTH[g("sy_n").lower()], 1), "season", False
    return None
