"""Parsing what arrives as text in a URL: times, and the path parameters shared by routes."""

from __future__ import annotations

import math
from datetime import UTC, date, datetime, timedelta
from typing import Annotated

from fastapi import Path

from ...errors import InvalidInput
from ...tenancy import MAX_ID_LEN
from .schemas import ID_PATTERN

__all__ = ["BatchIdPath", "EntityPath", "KeyIdPath", "MemoryIdPath", "SessionIdPath",
           "parse_time"]

SessionIdPath = Annotated[str, Path(min_length=1, max_length=MAX_ID_LEN, pattern=ID_PATTERN,
                                    description="The session id.")]
MemoryIdPath = Annotated[str, Path(min_length=1, max_length=200,
                                   description="The memory id (`m_...`).")]
EntityPath = Annotated[str, Path(min_length=1, max_length=200,
                                 description="An entity id (`tool.postgresql`), name or alias.")]
BatchIdPath = Annotated[str, Path(min_length=1, max_length=200,
                                  description="The batch id, as listed by `GET /v1/batches`.")]
KeyIdPath = Annotated[str, Path(min_length=1, max_length=200, description="The key id (`k_...`).")]


def parse_time(text: str | None, name: str, *, end_of_day: bool = False) -> float | None:
    """An ISO-8601 date or datetime, or epoch seconds, as epoch seconds (``None`` stays).

    A time without an offset is UTC (the server's zone is nobody's business). A date alone is
    its midnight, or with ``end_of_day`` the next midnight, so ``until=2024-05-01`` includes
    that day.

    >>> parse_time("2024-05-01", "since")
    1714521600.0
    >>> parse_time("2024-05-01", "until", end_of_day=True)
    1714608000.0
    """
    if text is None:
        return None
    raw = text.strip()
    try:
        value = float(raw)
    except ValueError:
        pass
    else:
        if not math.isfinite(value):
            raise InvalidInput(f"{name}: {text!r} is not a finite number of seconds")
        return value
    try:
        moment = datetime.combine(date.fromisoformat(raw), datetime.min.time())
        is_day = True
    except ValueError:
        try:
            moment, is_day = datetime.fromisoformat(raw), False
        except ValueError:
            raise InvalidInput(f"{name}: {text!r} is not a time; use YYYY-MM-DD, "
                               "YYYY-MM-DDTHH:MM[:SS][+HH:MM] or epoch seconds") from None
    try:
        if is_day and end_of_day:
            moment += timedelta(days=1)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        return moment.timestamp()
    except (OverflowError, OSError, ValueError):
        raise InvalidInput(f"{name}: {text!r} is out of range") from None
