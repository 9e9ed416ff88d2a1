"""Dates typed by people (CLI options, MCP and REST arguments), shared by every interface."""

from __future__ import annotations

from datetime import date, datetime, timedelta

from ..errors import InvalidInput

__all__ = ["parse_when"]


def parse_when(text: str | None, option: str, *, end_of_day: bool = False) -> float | None:
    """An ISO date or datetime from the command line as epoch seconds (``None`` stays ``None``).

    Without a UTC offset the time is local. A date alone means its midnight, or with
    ``end_of_day`` the midnight after it (so ``--until 2024-05-01`` includes that day).

    >>> parse_when("2024-05-01T12:00:00+00:00", "--at")
    1714564800.0
    """
    if text is None or not text.strip():
        return None
    raw = text.strip()
    try:
        day = date.fromisoformat(raw)
    except ValueError:
        try:
            moment = datetime.fromisoformat(raw)
        except ValueError:
            raise InvalidInput(
                f"{option}: {text!r} is not a date; use YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS] "
                "(optionally with an offset such as +08:00 or Z)"
            ) from None
    else:
        moment = datetime(day.year, day.month, day.day) + timedelta(days=1 if end_of_day else 0)
    if moment.tzinfo is None:
        moment = moment.astimezone()  # a naive time is the user's local time
    return moment.timestamp()
