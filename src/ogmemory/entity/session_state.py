"""Small JSON state files beside a session's history: ``context/<name>.json``.

The context engine keeps what it must carry from one process to the next here (the context
assembled for the turn in progress, whether the session is closed, its archive), next to the
per-turn context views in ``context/commits/``. ``context/`` is excluded from the session's git
repository: these files describe the record, they are not part of it. Writes are atomic and a
read-modify-write holds a file lock, so hook processes running at once never lose an update.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import InvalidInput
from ..storage.files import atomic_write_json, file_lock, read_json

__all__ = ["STATE_NAMES", "edit_state", "read_state"]

#: The state files a caller may name (a fixed set: names become file names).
STATE_NAMES = frozenset({"engine", "archive", "pending-context"})
_NAME = re.compile(r"[a-z][a-z-]{0,31}")


def _path(session_dir: Path, name: str) -> Path:
    if name not in STATE_NAMES or not _NAME.fullmatch(name):
        known = ", ".join(sorted(STATE_NAMES))
        raise InvalidInput(f"unknown session state {name!r}; known: {known}")
    return session_dir / "context" / f"{name}.json"


def read_state(session_dir: Path, name: str) -> dict[str, Any] | None:
    """The state ``name`` of the session at ``session_dir``, or ``None`` when there is none
    (or it is unreadable: state is advisory, the session's history is the record)."""
    data = read_json(_path(session_dir, name))
    return data if isinstance(data, dict) else None


def edit_state(
    session_dir: Path,
    name: str,
    change: Callable[[dict[str, Any]], dict[str, Any] | None],
    *,
    fsync: bool = False,
) -> dict[str, Any]:
    """Read-modify-write under a file lock: ``change(current)`` returns the new state (``None``
    keeps the current one). Returns the state as it is afterwards.

    >>> edit_state(Path("/tmp/s1"), "engine", lambda s: {**s, "closed": True})  # doctest: +SKIP
    {'closed': True}
    """
    path = _path(session_dir, name)
    with file_lock(path.with_suffix(".lock")):
        current = read_json(path)
        state = dict(current) if isinstance(current, dict) else {}
        new = change(dict(state))
        if new is None:
            return state
        if not isinstance(new, dict):
            raise InvalidInput(f"session state {name!r} must be a JSON object")
        atomic_write_json(path, new, fsync=fsync)
        return new
