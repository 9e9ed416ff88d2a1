"""The record type and states of the index job queue (the outbox), shared by its backends."""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from typing import Any

__all__ = ["DEAD", "DONE", "LEASED", "PENDING", "STATES", "Job", "format_error"]

PENDING, LEASED, DONE, DEAD = "pending", "leased", "done", "dead"
STATES = (PENDING, LEASED, DONE, DEAD)
_MAX_ERROR_CHARS = 4000


@dataclass(frozen=True)
class Job:
    """One claimed unit of work. ``attempts`` counts failures before this claim."""

    id: int
    topic: str
    key: str
    payload: Any
    attempts: int
    created_at: float


def format_error(error: BaseException | str) -> str:
    """An error with its traceback, bounded, as a queue keeps it for operators."""
    if isinstance(error, BaseException):
        head = "".join(traceback.format_exception_only(type(error), error)).strip()
        tb = "".join(traceback.format_tb(error.__traceback__)) if error.__traceback__ else ""
        text = f"{head}\n{tb}".rstrip() if tb else head
    else:
        text = str(error)
    return text if len(text) <= _MAX_ERROR_CHARS else text[: _MAX_ERROR_CHARS - 1] + "…"
