"""Chinese time expressions for :func:`ogmemory.distill.dates.find_times`: one precompiled
alternation, the characters that gate it, and the period each match names. "上周五" is the Friday
of the previous calendar week (weeks start on Monday)."""

from __future__ import annotations

import re
from datetime import date, timedelta

from .calendar import (
    Granularity,
    add_months,
    day_guess,
    monday,
    month_guess,
    safe_date,
    unit_offset,
    weekday_near,
)
from .numbers import parse_number

__all__ = ["ZH_GATE", "ZH_RE", "explicit_wins", "resolve_zh"]


_ZH_NUM = r"\d{1,3}|[零〇一二两三四五六七八九十百]{1,4}|几|好几"
_ZH_WD = {
    "一": 0,
    "二": 1,
    "三": 2,
    "四": 3,
    "五": 4,
    "六": 5,
    "日": 6,
    "天": 6,
    "末": 5,
    "1": 0,
    "2": 1,
    "3": 2,
    "4": 3,
    "5": 4,
    "6": 5,
    "7": 6,
}
_ZH_SHIFT = {"上上": -2, "上": -1, "这": 0, "本": 0, "今": 0, "下下": 2, "下": 1}
_ZH_DAYS = {
    "大前天": -3,
    "前天": -2,
    "昨天": -1,
    "昨日": -1,
    "昨晚": -1,
    "今天": 0,
    "今日": 0,
    "今晚": 0,
    "今早": 0,
    "今儿": 0,
    "明天": 1,
    "明日": 1,
    "明早": 1,
    "明晚": 1,
    "后天": 2,
    "大后天": 3,
}
_ZH_YEARS = {"大前年": -3, "前年": -2, "去年": -1, "今年": 0, "明年": 1, "后年": 2}
_ZH_UNIT = {
    "天": "day",
    "日": "day",
    "周": "week",
    "星期": "week",
    "礼拜": "week",
    "月": "month",
    "年": "year",
}

ZH_RE = re.compile(
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
    rf"|(?P<zago>(?P<zago_h>大约|大概|差不多|约莫|约|将近|快)?(?P<zago_n>{_ZH_NUM})\s*(?P<zago_more>多)?"
    r"\s*(?:个)?(?P<zago_u>天|日|周|星期|礼拜|月|年)(?P<zago_more2>多)?(?:前|以前|之前)(?P<zago_h2>左右)?)"
    rf"|(?P<zin>(?P<zin_n>{_ZH_NUM})\s*(?:个)?(?P<zin_u>天|日|周|星期|礼拜|月|年)(?:后|以后|之后))"
    r"|(?P<zbwd>(?:周|星期|礼拜)(?P<zbwd_d>[一二三四五六日天1-7]))"
    r"|(?P<zbmon>(?P<zbmon_m>\d{1,2}|十[一二]?|[一二三四五六七八九])月(?:份|底|初|中旬|上旬|下旬|中)?)"
    r"(?![\d日号])"
)
ZH_GATE = re.compile(r"[\d天日晚早年周星礼月前后]")


def resolve_zh(
    m: re.Match[str], ref: date, past: bool | None
) -> tuple[date, Granularity, bool] | None:
    """The period one Chinese match names: (first day, granularity, whether it is vague)."""
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
        # "三年前" is a year; "大约三年前", "三年多前", "几年前" are rough
        hedged = kind == "zago" and any(
            g(k) for k in ("zago_h", "zago_more", "zago_more2", "zago_h2")
        )
        return day, gran, hedged or g(f"{kind}_n") in ("几", "好几")
    if kind == "zbwd":
        return weekday_near(ref, _ZH_WD[g("zbwd_d")], past), "day", False
    if kind == "zbmon":
        month = parse_number(g("zbmon_m")) or 0
        if not 1 <= month <= 12:
            return None
        return date(month_guess(ref, month, past), month, 1), "month", False
    return None


_EXPLICIT_DAY = frozenset({"zy", "zmd", "ziso"})
_RELATIVE_DAY = frozenset({"zday", "zwd", "zbwd"})
_CLAUSE_BREAK = re.compile(r"[，,；;。！？!?：:]")
# a date that modifies a noun or bounds a span ("9 月 1 日的发布", "9 月 1 日前上线") is not
# when the clause's action happened
_NOT_WHEN = re.compile(r"\s*(?:的|前|之前|以前|后|之后|以后|起|开始|截止|为止|到)")


def explicit_wins(matches: list[re.Match[str]], text: str) -> list[re.Match[str]]:
    """``matches`` without a relative day that an explicit date of the same clause names
    ("我们昨天 8 月 20 日上线了": the release is on 8 月 20 日, whatever day it is said on).

    >>> text = "我们昨天 8 月 20 日上线了"
    >>> [m.group() for m in explicit_wins(list(ZH_RE.finditer(text)), text)]
    ['8 月 20 日']
    """
    explicit = [
        m for m in matches if m.lastgroup in _EXPLICIT_DAY and not _NOT_WHEN.match(text, m.end())
    ]
    if not explicit:
        return matches
    return [
        m
        for m in matches
        if m.lastgroup not in _RELATIVE_DAY
        or not any(
            not _CLAUSE_BREAK.search(text[min(m.end(), o.end()) : max(m.start(), o.start())])
            for o in explicit
        )
    ]
