"""The record type and states of the index job queue (the outbox), shared by its backends."""

from __future__ import annotations

import os
import socket
import traceback
import uuid
from dataclasses import dataclass
from typing import Any

__all__ = [
    "DEAD",
    "DONE",
    "LEASED",
    "PENDING",
    "STATES",
    "Job",
    "format_error",
    "owner_gone",
    "worker_name",
]

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


def worker_name(tag: str = "") -> str:
    """A lease owner's name, unique across machines, processes and threads:
    ``host:pid:[tag-]random`` (``owner_gone`` reads the host and the pid back)."""
    suffix = uuid.uuid4().hex[:8]
    return f"{socket.gethostname()}:{os.getpid()}:{f'{tag}-' if tag else ''}{suffix}"


def owner_gone(owner: str | None) -> bool:
    """Whether the worker ``owner`` names was a process of this machine that no longer runs.

    A worker killed mid-batch leaves its jobs leased until the lease expires (30 s by
    default); a queue that knows the worker is gone hands them on at once. Only a name made by
    ``worker_name`` on this host can be judged: anything else (another machine, a name a
    caller chose) is assumed alive and waits for its lease. A pid reused by another process
    also reads as alive, which only means waiting for the lease.

    >>> owner_gone(worker_name()), owner_gone("elsewhere:1:x"), owner_gone("drain")
    (False, False, False)
    """
    host, _, rest = (owner or "").partition(":")
    pid_text = rest.partition(":")[0]
    if host != socket.gethostname() or not pid_text.isdigit():
        return False
    pid = int(pid_text)
    if pid == os.getpid() or pid <= 1:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # e.g. PermissionError: it runs, as another user
        return False
    return False
