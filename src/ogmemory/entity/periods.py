"""How precisely a time is known, and how it reads at that precision.

"In 2019", "4 years ago" and "about five years ago" name a year, not a day; "in June 2023" a
month. A distilled event keeps such a time as an epoch (a day inside the period, so sorting and
range filters work) together with its **precision**: ``day``, ``week``, ``weekend``, ``month``,
``season`` or ``year``, with a leading ``~`` when the speaker hedged ("about", "a few years
ago"). Every text that shows the time prints it at that precision, never a made-up day:

>>> from datetime import date
>>> period_label(date(2019, 6, 9), "year"), period_label(date(2018, 8, 28), "~year")
('2019', 'about 2018')
>>> period_label(date(2023, 6, 1), "month"), period_label(date(2023, 6, 1), "month", "zh")
('June 2023', '2023年6月')
>>> period_label(date(2023, 5, 7), "day")
'2023-05-07'
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from .times import clamp_time

__all__ = ["GRANULARITIES", "period_bounds", "period_label", "precision_of", "time_label"]

#: From the finest to the coarsest.
GRANULARITIES = ("day", "week", "weekend", "month", "season", "year")
_MONTHS = (
    "January February March April May June July August September October November December"
).split()
_SEASONS = {3: "spring", 6: "summer", 9: "autumn", 12: "winter"}
_SEASONS_ZH = {3: "春天", 6: "夏天", 9: "秋天", 12: "冬天"}


def precision_of(granularity: object, approximate: object = False) -> str:
    """The precision string of a granularity (``"day"`` when it is not one) and a hedge.

    >>> precision_of("year", True), precision_of("month"), precision_of(None)
    ('~year', 'month', 'day')
    """
    g = granularity if isinstance(granularity, str) and granularity in GRANULARITIES else "day"
    return f"~{g}" if approximate is True and g != "day" else g


def _split(precision: str | None) -> tuple[str, bool]:
    p = precision or "day"
    approximate = p.startswith("~")
    g = p.lstrip("~")
    return (g if g in GRANULARITIES else "day"), approximate


def period_label(day: date, precision: str | None = "day", lang: str = "en") -> str:
    """``day`` as text at ``precision`` (see the module docstring); ``lang`` ``"zh"`` gives
    the Chinese forms (``2019年``, ``2023年6月``, ``约2018年``)."""
    g, approximate = _split(precision)
    zh = lang == "zh"
    if g == "year":
        text = f"{day.year}年" if zh else str(day.year)
    elif g == "month":
        text = f"{day.year}年{day.month}月" if zh else f"{_MONTHS[day.month - 1]} {day.year}"
    elif g == "season":
        name = (_SEASONS_ZH if zh else _SEASONS).get(day.month)
        if name is None:
            text = f"{day.year}年{day.month}月" if zh else f"{_MONTHS[day.month - 1]} {day.year}"
        else:
            text = f"{day.year}年{name}" if zh else f"{name} {day.year}"
    elif g == "week":
        return f"{day.isoformat()} 那周" if zh else f"week of {day.isoformat()}"
    elif g == "weekend":
        return f"{day.isoformat()} 周末" if zh else f"weekend of {day.isoformat()}"
    else:
        return day.isoformat()
    if approximate:
        return f"约{text}" if zh else f"about {text}"
    return text


def _day(epoch: float | None) -> date:
    return datetime.fromtimestamp(clamp_time(epoch or 0.0), UTC).date()


def time_label(epoch: float | None, precision: str | None = "day", lang: str = "en") -> str:
    """An epoch time (UTC, as every view dates) at ``precision``.

    >>> time_label(1560038400.0, "year"), time_label(1560038400.0)
    ('2019', '2019-06-09')
    """
    return period_label(_day(epoch), precision, lang)


def period_bounds(epoch: float, precision: str | None = "day") -> tuple[float, float]:
    """The period an epoch names at ``precision``, as ``[start, end)`` epoch seconds (UTC):
    a year-precision time is the whole year, so a question about any part of it meets it."""
    g, _ = _split(precision)
    d = _day(epoch)
    if g == "year":
        start, end = date(d.year, 1, 1), date(d.year + 1, 1, 1)
    elif g in ("month", "season"):
        start = d.replace(day=1)
        months = 3 if g == "season" else 1
        m = start.month - 1 + months
        end = date(start.year + m // 12, m % 12 + 1, 1)
    elif g == "week":
        start, end = d, d + timedelta(days=7)
    elif g == "weekend":
        start, end = d, d + timedelta(days=2)
    else:
        start, end = d, d + timedelta(days=1)
    lo = datetime(start.year, start.month, start.day, tzinfo=UTC).timestamp()
    hi = datetime(end.year, end.month, end.day, tzinfo=UTC).timestamp()
    return clamp_time(lo), clamp_time(hi)
