"""Relative and absolute time expressions, English and Chinese, resolved against a reference day.

Distillation must turn "yesterday" in a message written on 2023-05-08 into 2023-05-07, because a
timeline event is only useful with an absolute time. :func:`find_times` scans a sentence once
(one precompiled alternation per language) and returns every expression it recognises with the
period it names: its first day and its granularity (a day, a week, a month, ...). Each
language's grammar is a module of its own (``dates_en``, ``dates_zh``), and so is the parser of
the small numbers they contain (``numbers``).

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
from datetime import date, datetime, time, tzinfo

from ..entity.periods import period_label, precision_of
from ..entity.times import TIME_MAX, TIME_MIN, clamp_time
from .calendar import Granularity
from .dates_en import EN_GATE_WORDS, EN_RE, names_no_date, resolve_en
from .dates_zh import ZH_GATE, ZH_RE, explicit_wins, resolve_zh

__all__ = [
    "Granularity",
    "TimeExpr",
    "anchor_dates",
    "day_of",
    "epoch_of",
    "find_times",
    "is_relative",
    "looks_future",
    "names_a_time",
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

    @property
    def precision(self) -> str:
        """How precisely the phrase names a time (:mod:`ogmemory.entity.periods`): ``day``,
        ``month``, ``year``, ..., ``~year`` when hedged."""
        return precision_of(self.granularity, self.approximate)

    def label(self, lang: str = "en") -> str:
        """A short human label at the phrase's precision: ``2023-05-07``, ``June 2023``,
        ``2022``, ``about 2018``, ``since 2019``."""
        text = period_label(self.day, self.precision, lang)
        if self.since:
            return f"自 {text} 起" if lang == "zh" else f"since {text}"
        return text


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


_WORD_RE = re.compile(r"[a-z]+")
_DIGIT_RE = re.compile(r"\d")


def words_of(text: str) -> frozenset[str]:
    """The lower-case ASCII words of a text (what keyword gates test against)."""
    return frozenset(_WORD_RE.findall(text.lower()))


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
    r"要|会|将|打算|准备|计划|之前|以前|截止|前要|下周|下个|明天|后天|明年|期限"
)
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


_CJK = re.compile(r"[\u4e00-\u9fff]")
_CLAUSE_END = re.compile(r"[,;:!?，；：。！？]|\.(?:\s|$)")
# a date something is moved or set to is ahead, whatever tense the clause has ("1.0 slipped to
# March 12th", "the new target is March 12th", "交付时间推到 6 月 11 日了")
_TO_DATE_EN = re.compile(
    r"(?i)(?:\b(?:moved|pushed|slipped|slips|postponed|delayed|rescheduled|bumped|shifted|changed"
    r"|pulled|brought)(?:\s+[\w.-]+){0,4}?\s+(?:back\s+|out\s+|forward\s+|in\s+)?(?:to|until|till)"
    r"|\bnew\s+(?:target|date|deadline|due\s+date|release\s+date|eta)\s+(?:is|of)"
    r"|\b(?:now|is|are)\s+due|\bdue)\s+(?:on\s+|by\s+)?(?:the\s+)?$"
)
_TO_DATE_ZH = re.compile(
    r"(?:推到|推迟到|延到|延期到|延后到|改到|挪到|提前到|定在|定于|定到|截止到|放到|顺延到)\s*$"
)
# "五月底我要调到上海了", "下个月就要上线了": what is about to happen, though the clause ends in 了
_ABOUT_TO_ZH = re.compile(r"(?:要|将|准备|打算|计划)[^了，,。；;]{0,20}了")


def _tense_at(text: str, start: int, end: int) -> bool | None:
    """The tense that places the time expression at ``text[start:end]``: the clause around it
    first (a comma can join a plan to a past reason: "I'm moving to Edinburgh in April, my
    partner got a job there"), then the whole sentence."""
    before = text[:start]
    if _TO_DATE_ZH.search(before) or _TO_DATE_EN.search(before):
        return False
    cuts = [m.end() for m in _CLAUSE_END.finditer(text, 0, start)]
    nxt = _CLAUSE_END.search(text, end)
    clause = text[cuts[-1] if cuts else 0 : nxt.start() if nxt else len(text)]
    if _CJK.search(clause) and _ABOUT_TO_ZH.search(clause):
        return False
    tense = tense_of(clause)
    return tense if tense is not None else tense_of(text)


_Resolver = Callable[[re.Match[str], date, bool | None], "tuple[date, Granularity, bool] | None"]


def _total(
    resolve: _Resolver, m: re.Match[str], ref: date, past: bool | None
) -> tuple[date, Granularity, bool] | None:
    """``resolve(m, ref, past)``, or ``None`` when the period falls outside the calendar
    ("next year" said on 9999-12-31, "1,000,000 days ago"): such a phrase dates nothing."""
    try:
        return resolve(m, ref, past)
    except (OverflowError, ValueError):
        return None


def find_times(
    text: str, ref: date, *, past: bool | None = None, words: frozenset[str] | None = None
) -> list[TimeExpr]:
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
    if _CJK.search(text) and ZH_GATE.search(text):
        for m in explicit_wins(list(ZH_RE.finditer(text)), text):
            if text[max(0, m.start() - 1) : m.start()] == "每":
                continue  # "每周五": a habit, not a date
            if text.startswith("了", m.end()) and _BARE_MONTH_ZH.fullmatch(m.group()):
                continue  # "十一月了我还穿短袖": where the year has got to, no date
            here = past if guessed else _tense_at(text, m.start(), m.end())
            res = _total(resolve_zh, m, ref, here)
            if res is not None:
                found.append(TimeExpr(m.group(), m.start(), m.end(), *res))
    if words is None:
        words = words_of(text)
    if not words.isdisjoint(EN_GATE_WORDS) or _DIGIT_RE.search(text):
        for m in EN_RE.finditer(text):
            if any(t.start < m.end() and m.start() < t.end for t in found):
                continue
            if names_no_date(m, text):
                continue  # a habit ("every Monday") or a length, not a date
            here = past if guessed else _tense_at(text, m.start(), m.end())
            res = _total(resolve_en, m, ref, here)
            if res is not None:
                since = m.lastgroup == "dur" or (
                    m.lastgroup == "year" and (m.group("year_p") or "").lower() == "since"
                )
                found.append(TimeExpr(m.group(), m.start(), m.end(), *res, since=since))
    found.sort(key=lambda t: t.start)
    return found


# a phrase whose day depends on when it was said: "next Tuesday", "tomorrow", "下周三", "明天"
_RELATIVE = re.compile(
    r"(?i)\b(?:next|last|this|coming|tomorrow|yesterday|today|tonight|ago|mon(?:day)?"
    r"|tues?(?:day)?|wed(?:nesday)?|thu(?:rs)?(?:day)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?)\b"
    r"|[下上本这明昨今后前]|周|星期|礼拜"
)


def is_relative(t: TimeExpr) -> bool:
    """Whether ``t`` names a day by when it was said ("next Tuesday", "明天"), not by the
    calendar alone."""
    return (
        t.granularity == "day"
        and not re.search(r"\d{4}", t.text)
        and bool(_RELATIVE.search(t.text))
    )


def anchor_dates(text: str, ref: date) -> str:
    """``text`` with each day it names relative to when it was said followed by that day, so a
    memory read later still says when: "the all-hands next Tuesday (2027-05-11)", "下周三
    （2027-09-15）演示". A text that already gives the day is left as it is.

    >>> anchor_dates("I'm demoing it next Tuesday.", date(2027, 5, 5))
    "I'm demoing it next Tuesday (2027-05-11)."
    """
    if not (_DIGIT_RE.search(text) or _RELATIVE.search(text)):
        return text
    out = text
    for t in reversed(find_times(text, ref)):
        if t.iso in out or not is_relative(t):
            continue
        mark = f"（{t.iso}）" if _CJK.search(t.text) else f" ({t.iso})"
        out = out[: t.end] + mark + out[t.end :]
    return out


_BARE_MONTH_ZH = re.compile(r"[一二三四五六七八九十\d]{1,3}\s*月")
_BARE_TIME = re.compile(
    r"(?i)^(?:january|february|march|april|may|june|july|august|september|october|november"
    r"|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec|monday|tuesday|wednesday"
    r"|thursday|friday|saturday|sunday|today|tomorrow|yesterday|tonight|[一二三四五六七八九十]{1,2}月"
    r"|周[一二三四五六日天]|星期[一二三四五六日天])$"
)


def names_a_time(name: str) -> bool:
    """Whether a name is only a time ("March", "March 3", "next Friday", "12 月 1 日"): a date
    is never a tool, a place or a person, whatever a pattern captured.

    >>> names_a_time("March"), names_a_time("March 3"), names_a_time("Marchetti")
    (True, True, False)
    """
    name = name.strip(" .,;:!?。，")
    if not name:
        return False
    if _BARE_TIME.match(name):
        return True
    times = find_times(name, date(2000, 1, 1), past=False)
    covered = sum(t.end - t.start for t in times)
    return bool(times) and covered >= 0.8 * len(name)
