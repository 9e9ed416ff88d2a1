"""Relative and absolute time expressions, English and Chinese, resolved against a reference day.

Distillation must turn "yesterday" in a message written on 2023-05-08 into 2023-05-07, because a
timeline event is only useful with an absolute time. :func:`find_times` scans a sentence once
(one precompiled alternation per language) and returns every expression it recognises with the
period it names: its first day and its granularity (a day, a week, a month, ...).

>>> from datetime import date
>>> [t.iso for t in find_times("I went there yesterday", date(2023, 5, 8))]
['2023-05-07']
>>> [t.iso for t in find_times("上周五我们发布了 2.0", date(2023, 5, 10))]
['2023-05-05']

Conventions: weeks start on Monday; "last Friday" is the latest Friday strictly before the
reference day, "next Friday" the first one strictly after it, while Chinese "上周五" is the Friday
of the previous calendar week. A bare weekday or month ("on Monday", "in May") is read in the
past unless the sentence reads as future; a month or day without a year ("in September",
"May 7") is placed by the sentence's tense when it has a clear one, else at its nearest
occurrence ("I signed up for a marathon in September", said in May, is this September).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, tzinfo

from ..entity.times import TIME_MAX, TIME_MIN, clamp_time
from .calendar import (
    MONTHS_EN,
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

__all__ = [
    "Granularity",
    "TimeExpr",
    "day_of",
    "epoch_of",
    "find_times",
    "looks_future",
    "parse_number",
    "tense_of",
    "words_of",
]



@dataclass(frozen=True)
class TimeExpr:
    """One time expression found in a text: the phrase, where it is, and the period it names."""

    text: str
    start: int
    end: int
    day: date  # first day of the period (for "N weeks ago": the day N weeks before)
    granularity: Granularity = "day"
    approximate: bool = False
    since: bool = False  # "for 4 years" in a perfect-tense sentence: the period it started

    @property
    def iso(self) -> str:
        """The first day of the period as ``YYYY-MM-DD``."""
        return self.day.isoformat()

    def label(self, lang: str = "en") -> str:
        """A short human label at the right precision: ``2023-05-07``, ``2023-04``, ``2022``."""
        if self.since:
            inner = TimeExpr(self.text, self.start, self.end, self.day, self.granularity)
            return f"自 {inner.label(lang)} 起" if lang == "zh" else f"since {inner.label()}"
        g = self.granularity
        if g == "year":
            return f"{self.day.year}年" if lang == "zh" else str(self.day.year)
        if g in ("month", "season"):
            if lang == "zh":
                return f"{self.day.year}年{self.day.month}月"
            return f"{self.day.year}-{self.day.month:02d}"
        if g == "week":
            return f"{self.iso} 那周" if lang == "zh" else f"week of {self.iso}"
        if g == "weekend":
            return f"{self.iso} 周末" if lang == "zh" else f"weekend of {self.iso}"
        return self.iso


def day_of(epoch: float, tz: tzinfo) -> date:
    """The calendar day of an epoch time in ``tz``. Total: a time outside the supported range
    (``ogmemory.limits``; only files written before it was enforced hold one) is clamped
    into it, so one bad record never stops a distillation."""
    return datetime.fromtimestamp(clamp_time(epoch), tz).date()


def epoch_of(day: date, tz: tzinfo) -> float:
    """Midnight of ``day`` in ``tz`` as epoch seconds, clamped into the supported range."""
    try:
        return clamp_time(datetime.combine(day, time(0), tzinfo=tz).timestamp())
    except (OverflowError, OSError, ValueError):
        return TIME_MIN if day.year < 1970 else TIME_MAX - 1.0


# ----------------------------------------------------------------------------- numbers

_EN_NUMBERS: dict[str, int] = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15,
    "twenty": 20, "thirty": 30, "a couple of": 2, "a couple": 2, "couple of": 2, "a few": 3,
    "few": 3, "several": 3,
}
_ZH_DIGITS: dict[str, int] = {
    "零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7,
    "八": 8, "九": 9,
}
_ZH_UNITS: dict[str, int] = {"十": 10, "百": 100, "千": 1000, "万": 10000}


def parse_number(text: str) -> int | None:
    """An integer written with digits, English words or Chinese numerals (``十二`` → 12)."""
    s = text.strip().lower()
    if not s:
        return None
    if s.isdigit():
        return int(s)
    if s in _EN_NUMBERS:
        return _EN_NUMBERS[s]
    if s in ("几", "好几"):
        return 3
    total, current = 0, 0
    for ch in s:
        if ch in _ZH_DIGITS:
            current = _ZH_DIGITS[ch]
        elif ch in _ZH_UNITS:
            unit = _ZH_UNITS[ch]
            total += (current or 1) * unit
            current = 0
        else:
            return None
    return total + current


# ----------------------------------------------------------------------------- English

_WD_FULL = r"monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_WD_ANY = _WD_FULL + r"|mon|tues|tue|wed|thurs|thur|thu|fri|sat|sun"
_MONTH = (r"january|february|march|april|may|june|july|august|september|october|november"
          r"|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec")
# Month names alone only when capitalised and not also common words ("may", "march").
_MONTH_LONG = r"(?-i:January|February|April|June|July|August|September|October|November|December)"
_NUM = (r"\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen"
        r"|twenty|thirty|a\s+couple\s+of|a\s+couple|couple\s+of|a\s+few|few|several")
_UNIT = r"days?|weeks?|weekends?|months?|years?"
_ORD = r"(?:st|nd|rd|th)?"

_EN_RE = re.compile(
    r"\b(?:"
    r"(?P<dby>the\s+day\s+before\s+yesterday)"
    r"|(?P<dat>the\s+day\s+after\s+tomorrow)"
    r"|(?P<yday>yesterday|last\s+night)"
    r"|(?P<today>today|tonight|this\s+(?:morning|afternoon|evening)|earlier\s+today)"
    r"|(?P<tmr>tomorrow)"
    rf"|(?P<ago>(?P<ago_n>{_NUM})\s+(?P<ago_u>{_UNIT})\s+ago)"
    rf"|(?P<inn>in\s+(?P<in_n>{_NUM})\s+(?P<in_u>{_UNIT}))"
    rf"|(?P<dur>for\s+(?:the\s+(?:past|last)\s+)?(?P<dur_n>{_NUM})\s+(?P<dur_u>{_UNIT}))"
    rf"|(?P<relwd>(?P<relwd_m>last|this\s+past|this\s+coming|this|next|coming|past)\s+"
    rf"(?P<relwd_d>{_WD_ANY}))"
    r"|(?P<earlier>(?:earlier|later)\s+this\s+(?P<earlier_u>week|month|year))"
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
    rf"|(?P<barmon>(?P<barmon_m>{_MONTH_LONG}))\b"
    rf"|(?P<onwd>(?:on\s+)?(?P<onwd_d>{_WD_FULL})s?|on\s+(?P<onwd_a>{_WD_ANY}))"
    r"|(?P<year>(?P<year_p>in|since|during|back\s+in|until|till|by|of|from)\s+"
    r"(?P<year_y>(?:19|20)\d{2}))(?!\d)"
    r")\b",
    re.IGNORECASE,
)

# Cheap gate: most sentences name no time at all, so the big regex runs only when a word that
# every alternative needs (a unit, a day or month name, ...) or a digit occurs.
_EN_GATE_WORDS = frozenset(
    "yesterday today tonight tomorrow night morning afternoon evening ago day days week weeks"
    " weekend weekends month months year years spring summer fall autumn winter".split()
) | frozenset(WEEKDAYS_EN) | frozenset(MONTHS_EN) | frozenset(
    "mondays tuesdays wednesdays thursdays fridays saturdays sundays".split())
_WORD_RE = re.compile(r"[a-z]+")
_DIGIT_RE = re.compile(r"\d")


def words_of(text: str) -> frozenset[str]:
    """The lower-case ASCII words of a text (what keyword gates test against)."""
    return frozenset(_WORD_RE.findall(text.lower()))


# "for 4 years" dates a start only in a perfect-tense sentence ("I've known them for 4 years").
_PERFECT = re.compile(r"\b(?:I've|we've|I\s+have|we\s+have|has|had)\b|\bbeen\b", re.IGNORECASE)
_RECURRING = re.compile(
    r"\bevery\s+(?:other\s+|second\s+|single\s+)?\w+day|(?:day)s\b"
    r"|\w+day\s+(?:evenings|mornings|nights|afternoons)\b"
    r"|\b(?:first|second|third|fourth|last)\s+\w+day\s+of\b",
    re.IGNORECASE,
)
_FUTURE_EN = re.compile(
    r"\b(?:will|won't|shall|'ll|gonna|going\s+to|plan(?:ning)?\s+to|about\s+to|next|upcoming"
    r"|tomorrow|due|deadline|by|until|till|can't\s+wait|looking\s+forward|coming\s+up|soon"
    r"|in\s+\w+\s+(?:days?|weeks?|months?)|(?:am|'m|are|'re|is)\s+\w+ing)\b",
    re.IGNORECASE,
)
_PAST_EN = re.compile(
    r"\b(?:was|were|did|had|went|got|came|took|made|ago|last|yesterday)\b", re.IGNORECASE
)
_FUTURE_ZH = re.compile(
    r"要|会|将|打算|准备|计划|之前|以前|截止|前要|下周|下个|明天|后天|明年|期限")
_PAST_ZH = re.compile(r"了|过|上周|上个|昨天|前天|去年")


def looks_future(text: str) -> bool:
    """Whether a sentence reads as about the future (used to place bare weekdays and months)."""
    return tense_of(text) is False


def tense_of(text: str) -> bool | None:
    """``True`` for a sentence clearly about the past, ``False`` for the future, else None."""
    zh = bool(_CJK.search(text))
    past = (_PAST_ZH if zh else _PAST_EN).search(text)
    if past:
        return True
    return False if (_FUTURE_ZH if zh else _FUTURE_EN).search(text) else None


def _en_n(text: str) -> int:
    return parse_number(" ".join(text.lower().split())) or 1


_RELATIVE_EN = frozenset({"dby", "dat", "yday", "today", "tmr", "ago", "dur", "inn", "relwd",
                          "earlier", "relu", "season"})


def _resolve_en(m: re.Match[str], ref: date,
                past: bool | None) -> tuple[date, Granularity, bool] | None:
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
        return day, gran, gran != "day" or _en_n(g("ago_n")) > 2
    if kind == "dur":
        n = _en_n(g("dur_n"))
        day, gran = unit_offset(ref, g("dur_u").lower(), -n)
        return day, gran, True
    if kind == "inn":
        day, gran = unit_offset(ref, g("in_u").lower(), _en_n(g("in_n")))
        return day, gran, gran != "day"
    if kind == "relwd":
        mod = " ".join(g("relwd_m").lower().split())
        wd = WEEKDAYS_EN[g("relwd_d").lower()]
        if mod in ("last", "this past", "past"):
            return weekday_last(ref, wd), "day", False
        if mod in ("next", "coming", "this coming"):
            return weekday_next(ref, wd), "day", False
        return monday(ref) + timedelta(days=wd), "day", False
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
    if kind == "season":
        mod = " ".join(g("season_m").lower().split())
        shift = -1 if mod in ("last", "this past") else (0 if mod == "this" else 1)
        return season(ref, g("season_n").lower(), shift), "season", True
    return None


def _absolute_en(m: re.Match[str], ref: date,
                 past: bool | None) -> tuple[date, Granularity, bool] | None:
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
        return date(int(g("year_y")), 1, 1), "year", False
    return None


# ----------------------------------------------------------------------------- Chinese

_ZH_NUM = r"\d{1,3}|[零〇一二两三四五六七八九十百]{1,4}|几|好几"
_ZH_WD = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6, "末": 5,
          "1": 0, "2": 1, "3": 2, "4": 3, "5": 4, "6": 5, "7": 6}
_ZH_SHIFT = {"上上": -2, "上": -1, "这": 0, "本": 0, "今": 0, "下下": 2, "下": 1}
_ZH_DAYS = {"大前天": -3, "前天": -2, "昨天": -1, "昨日": -1, "昨晚": -1, "今天": 0, "今日": 0,
            "今晚": 0, "今早": 0, "今儿": 0, "明天": 1, "明日": 1, "明早": 1, "明晚": 1,
            "后天": 2, "大后天": 3}
_ZH_YEARS = {"大前年": -3, "前年": -2, "去年": -1, "今年": 0, "明年": 1, "后年": 2}
_ZH_UNIT = {"天": "day", "日": "day", "周": "week", "星期": "week", "礼拜": "week",
            "月": "month", "年": "year"}

_ZH_RE = re.compile(
    r"(?P<zy>(?P<zy_y>\d{4})\s*年\s*(?P<zy_m>\d{1,2})\s*月\s*(?P<zy_d>\d{1,2})\s*[日号])"
    r"|(?P<zym>(?P<zym_y>\d{4})\s*年\s*(?P<zym_m>\d{1,2})\s*月(?:份)?)"
    rf"|(?P<zmd>(?P<zmd_m>\d{{1,2}}|[一二三四五六七八九十]{{1,3}})\s*月\s*"
    rf"(?P<zmd_d>\d{{1,2}}|[一二三四五六七八九十]{{1,3}})\s*[日号])"
    r"|(?P<ziso>(?P<ziso_y>\d{4})[-/.](?P<ziso_m>\d{1,2})[-/.](?P<ziso_d>\d{1,2}))(?!\d)"
    r"|(?P<zyear>(?P<zyear_y>(?:19|20)\d{2})\s*年)"
    r"|(?P<zday>大前天|前天|昨天|昨日|昨晚|今天|今日|今晚|今早|今儿|明天|明日|明早|明晚|大后天|后天)"
    r"|(?P<zrelyear>大前年|前年|去年|今年|明年|后年)"
    r"|(?P<zwd>(?P<zwd_s>上上|上|这|本|下下|下)(?:个)?(?:周|星期|礼拜)(?P<zwd_d>[一二三四五六日天末1-7]))"
    r"|(?P<zweek>(?P<zweek_s>上上|上|这|本|下下|下)(?:个)?(?:周|星期|礼拜))"
    r"|(?P<zmon>(?P<zmon_s>上上|上|这|本|下下|下)(?:个)?月)"
    rf"|(?P<zago>(?P<zago_n>{_ZH_NUM})\s*(?:个)?(?P<zago_u>天|日|周|星期|礼拜|月|年)(?:前|以前|之前))"
    rf"|(?P<zin>(?P<zin_n>{_ZH_NUM})\s*(?:个)?(?P<zin_u>天|日|周|星期|礼拜|月|年)(?:后|以后|之后))"
    r"|(?P<zbwd>(?:周|星期|礼拜)(?P<zbwd_d>[一二三四五六日天1-7]))"
    r"|(?P<zbmon>(?P<zbmon_m>\d{1,2}|十[一二]?|[一二三四五六七八九])月(?:份)?)(?![\d日号])"
)
_ZH_GATE = re.compile(r"[\d天日晚早年周星礼月前后]")


def _resolve_zh(m: re.Match[str], ref: date,
                past: bool | None) -> tuple[date, Granularity, bool] | None:
    g = m.group
    kind = m.lastgroup
    if kind == "zy":
        d = safe_date(int(g("zy_y")), int(g("zy_m")), int(g("zy_d")))
        return (d, "day", False) if d else None
    if kind == "zym":
        month = int(g("zym_m"))
        return (date(int(g("zym_y")), month, 1), "month", False) if 1 <= month <= 12 else None
    if kind == "zmd":
        month, day_n = parse_number(g("zmd_m")) or 0, parse_number(g("zmd_d")) or 0
        d = day_guess(ref, month, day_n, past) if 1 <= month <= 12 else None
        return (d, "day", False) if d else None
    if kind == "ziso":
        d = safe_date(int(g("ziso_y")), int(g("ziso_m")), int(g("ziso_d")))
        return (d, "day", False) if d else None
    if kind == "zyear":
        return date(int(g("zyear_y")), 1, 1), "year", False
    if kind == "zday":
        return ref + timedelta(days=_ZH_DAYS[m.group()]), "day", False
    if kind == "zrelyear":
        return date(ref.year + _ZH_YEARS[m.group()], 1, 1), "year", False
    if kind == "zwd":
        shift, wd_ch = _ZH_SHIFT[g("zwd_s")], g("zwd_d")
        if wd_ch == "末":
            return monday(ref) + timedelta(days=5 + 7 * shift), "weekend", False
        return monday(ref) + timedelta(days=_ZH_WD[wd_ch] + 7 * shift), "day", False
    if kind == "zweek":
        return monday(ref) + timedelta(days=7 * _ZH_SHIFT[g("zweek_s")]), "week", False
    if kind == "zmon":
        return add_months(ref.replace(day=1), _ZH_SHIFT[g("zmon_s")]), "month", False
    if kind in ("zago", "zin"):
        n = parse_number(g(f"{kind}_n"))
        if n is None:
            return None
        unit = _ZH_UNIT[g(f"{kind}_u")]
        day, gran = unit_offset(ref, unit, -n if kind == "zago" else n)
        return day, gran, gran != "day" or g(f"{kind}_n") in ("几", "好几")
    if kind == "zbwd":
        return weekday_near(ref, _ZH_WD[g("zbwd_d")], past), "day", False
    if kind == "zbmon":
        month = parse_number(g("zbmon_m")) or 0
        if not 1 <= month <= 12:
            return None
        return date(month_guess(ref, month, past), month, 1), "month", False
    return None


_CJK = re.compile(r"[\u4e00-\u9fff]")
_Resolver = Callable[[re.Match[str], date, bool | None], "tuple[date, Granularity, bool] | None"]


def _total(resolve: _Resolver, m: re.Match[str], ref: date,
           past: bool | None) -> tuple[date, Granularity, bool] | None:
    """``resolve(m, ref, past)``, or ``None`` when the period falls outside the calendar
    ("next year" said on 9999-12-31, "1,000,000 days ago"): such a phrase dates nothing."""
    try:
        return resolve(m, ref, past)
    except (OverflowError, ValueError):
        return None


def find_times(text: str, ref: date, *, past: bool | None = None,
               words: frozenset[str] | None = None) -> list[TimeExpr]:
    """Every time expression in ``text``, resolved against the reference day ``ref``.

    ``past`` places expressions without a direction ("on Monday", "in May", "周五"); by default
    it is guessed from the sentence (:func:`tense_of`).

    >>> from datetime import date
    >>> t = find_times("Last week I ran a charity race", date(2023, 5, 10))[0]
    >>> (t.iso, t.granularity, t.text)
    ('2023-05-01', 'week', 'Last week')
    """
    found: list[TimeExpr] = []
    guessed = past is not None
    if _CJK.search(text) and _ZH_GATE.search(text):
        for m in _ZH_RE.finditer(text):
            if text[max(0, m.start() - 1):m.start()] == "每":
                continue  # "每周五": a habit, not a date
            if not guessed:
                past, guessed = tense_of(text), True
            res = _total(_resolve_zh, m, ref, past)
            if res is not None:
                found.append(TimeExpr(m.group(), m.start(), m.end(), *res))
    if words is None:
        words = words_of(text)
    if not words.isdisjoint(_EN_GATE_WORDS) or _DIGIT_RE.search(text):
        for m in _EN_RE.finditer(text):
            if any(t.start < m.end() and m.start() < t.end for t in found):
                continue
            if m.lastgroup == "onwd" and _RECURRING.search(text, max(0, m.start() - 14),
                                                          m.end() + 12):
                continue  # "on Thursday evenings", "every Monday": a habit, not a date
            if m.lastgroup == "dur" and not _PERFECT.search(text):
                continue  # "for two weeks next month": a length, not a start
            if not guessed:
                past, guessed = tense_of(text), True
            res = _total(_resolve_en, m, ref, past)
            if res is not None:
                found.append(TimeExpr(m.group(), m.start(), m.end(), *res,
                                      since=m.lastgroup == "dur"))
    found.sort(key=lambda t: t.start)
    return found
