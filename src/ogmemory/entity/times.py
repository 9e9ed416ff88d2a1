"""Times as ogmemory reads and writes them: the one parser for every entry point (messages'
``event_time``, and dates typed on the CLI, over REST and MCP), and the day label of views.

The rule: a number is epoch seconds; an ISO-8601 date or date-time **without an offset is UTC**
(everywhere, so one command means the same on every machine); ``Z`` or ``+08:00`` say otherwise.
A date alone is its midnight, or with ``end_of_day`` the next midnight (so ``--until 2024-05-01``
includes that day). Times must lie within ``TIME_MIN``..``TIME_MAX`` (years 1970-2999), so date
arithmetic downstream never overflows.

>>> parse_time("2024-05-01")
1714521600.0
>>> parse_time("2024-05-01", end_of_day=True) - parse_time("2024-05-01")
86400.0
>>> day_label(1714521600.0)
'2024-05-01'
"""

from __future__ import annotations

import math
import re
from datetime import UTC, date, datetime, timedelta
from typing import Any

from ..errors import InvalidInput

__all__ = ["TIME_MAX", "TIME_MIN", "clamp_time", "day_label", "parse_time", "parse_when"]

_NUMBER = re.compile(r"[+-]?\d+(?:\.\d+)?")
TIME_MIN = 0.0  # 1970-01-01T00:00:00Z
TIME_MAX = datetime(3000, 1, 1, tzinfo=UTC).timestamp()  # the end of 2999-12-31


def day_label(t: float | None) -> str:
    """The UTC day of an epoch time, as texts, views and prompts are dated ("2026-01-10").
    Total: a time outside the range (only files written before it was enforced hold one) is
    clamped into it."""
    return datetime.fromtimestamp(clamp_time(t or 0), UTC).strftime("%Y-%m-%d")


def clamp_time(value: float) -> float:
    """``value`` moved into ``TIME_MIN .. TIME_MAX`` (NaN: ``TIME_MIN``). For reading times
    already stored, so that one record written before the range was enforced breaks no
    date arithmetic; input is refused instead (``parse_time``).

    >>> clamp_time(-62135596800.0), clamp_time(1714521600.0)
    (0.0, 1714521600.0)
    """
    if math.isnan(value):
        return TIME_MIN
    return min(max(float(value), TIME_MIN), TIME_MAX)


def parse_time(value: Any, what: str = "time", *, end_of_day: bool = False) -> float:
    """Epoch seconds from a number, an ISO-8601 string or a datetime (no offset = UTC)."""
    if isinstance(value, bool) or value is None:
        raise InvalidInput(f"{what} must be a number or an ISO-8601 date/time, not {value!r}")
    if isinstance(value, (int, float)):
        seconds = float(value)
    elif isinstance(value, str) and _NUMBER.fullmatch(value.strip()):
        seconds = float(value)  # epoch seconds written as text (URLs, command lines)
    elif isinstance(value, (datetime, date)):
        seconds = _from_moment(value, end_of_day, what)
    elif isinstance(value, str):
        seconds = _from_moment(_parse_iso(value.strip(), what), end_of_day, what)
    else:
        raise InvalidInput(f"{what} must be a number or an ISO-8601 date/time")
    if not TIME_MIN <= seconds <= TIME_MAX:  # also NaN
        raise InvalidInput(f"{what} {value!r} is outside 1970-01-01 .. 2999-12-31 (UTC)")
    return seconds


def parse_when(text: str | None, what: str, *, end_of_day: bool = False) -> float | None:
    """``parse_time`` for an optional argument typed by a person: ``None`` or blank stays
    ``None``."""
    if text is None or not str(text).strip():
        return None
    return parse_time(text, what, end_of_day=end_of_day)


def _parse_iso(text: str, what: str) -> date | datetime:
    try:
        return date.fromisoformat(text)
    except ValueError:
        pass
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00") if text.endswith("Z") else text)
    except ValueError:
        raise InvalidInput(
            f"{what}: {text!r} is not a date; use YYYY-MM-DD or "
            "YYYY-MM-DDTHH:MM[:SS] (UTC unless it has an offset such as +08:00 "
            "or Z)"
        ) from None


def _from_moment(moment: date | datetime, end_of_day: bool, what: str) -> float:
    try:
        if not isinstance(moment, datetime):
            moment = datetime(moment.year, moment.month, moment.day, tzinfo=UTC) + timedelta(
                days=1 if end_of_day else 0
            )
        elif moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        return moment.timestamp()
    except (OverflowError, ValueError):  # year 1 or 9999 once its offset or a day is added
        raise InvalidInput(
            f"{what} {moment.isoformat()} is outside 1970-01-01 .. 2999-12-31 (UTC)"
        ) from None
