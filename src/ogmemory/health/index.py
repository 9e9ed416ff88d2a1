"""The index's health for ``ogmem fsck``: is ``index.sqlite`` a usable database, is every page
sound, and does it agree with the session files?

The index is derived (``ogmem reindex`` rebuilds it from the sessions and the knowledge logs), so
a damaged one is never repaired in place: fsck's repair is a reindex. Opening the index already
replaces a file that is not a usable database (``storage.sqlite_index``); fsck also reads every
page (``integrity_check``) and compares the turns it holds with the sessions.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..storage.sqlite_index_schema import damage_of

__all__ = ["check_index", "index_gaps"]


def check_index(path: Path, *, thorough: bool = False) -> str | None:
    """What is wrong with the index file at ``path``, or ``None`` (also when there is none).

    The quick check opens it read-only and reads its metadata (catches a directory in its
    place, garbage in the header, a truncated file); ``thorough`` runs SQLite's
    ``integrity_check`` over every page too (what ``ogmem fsck`` does).
    """
    if not path.exists() and not path.is_symlink():
        return None
    if not path.is_file():
        return "not a regular file (a directory or something else is in its place)"
    damage = damage_of(path)
    if damage is not None:
        return damage
    if path.stat().st_size == 0:
        return None  # SQLite's empty database: opening it creates the schema
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
    except sqlite3.Error as exc:
        return f"cannot be opened ({exc})" if _damage(exc) else None
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        if thorough:
            rows = conn.execute("PRAGMA integrity_check(20)").fetchall()
            problems = [str(r[0]) for r in rows if r[0] != "ok"]
            if problems:
                return "damaged: " + "; ".join(problems[:3])
    except sqlite3.Error as exc:
        return f"unreadable ({exc})" if _damage(exc) else None
    finally:
        conn.close()
    return None


def _damage(exc: sqlite3.Error) -> bool:
    """Whether an error says the file is damaged, not merely busy (another process writing)."""
    text = str(exc).lower()
    return any(
        m in text
        for m in (
            "not a database",
            "malformed",
            "disk image",
            "corrupt",
            "unable to open",
            "disk i/o",
        )
    )


def index_gaps(path: Path, committed: Mapping[str, Sequence[int]]) -> list[str]:
    """Where the index disagrees with the sessions. ``committed`` maps each session id to the
    seqs of its committed nodes. The index may lag (it catches up on the next sync), but it
    must hold a turn document for every committed node up to its cursor, and its cursor must
    not be ahead of the files."""
    if check_index(path) is not None or not path.is_file():
        return []
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
    try:
        row = conn.execute("SELECT value FROM meta WHERE key='turn_cursor'").fetchone()
        cursor: dict[str, int] = json.loads(row[0]) if row else {}
        held = dict(
            conn.execute(
                "SELECT session_id, COUNT(*) FROM docs WHERE kind='turn' GROUP BY session_id"
            )
        )
    except (sqlite3.Error, ValueError) as exc:
        return [f"index metadata unreadable ({exc})"]
    finally:
        conn.close()
    gaps = []
    for sid, at in sorted(cursor.items()):
        seqs = committed.get(sid)
        if seqs is None:
            continue  # a deleted session
        if seqs and at > max(seqs):
            gaps.append(
                f"session {sid}: the index cursor is at seq {at}, the files end at {max(seqs)}"
            )
        expected = sum(1 for s in seqs if s <= at)
        if held.get(sid, 0) < expected:
            gaps.append(
                f"session {sid}: the index holds {held.get(sid, 0)} of the {expected} "
                "turns its cursor covers"
            )
    return gaps
