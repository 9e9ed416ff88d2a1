"""Decoded documents and small lookups of one SQLite index, kept while nothing commits.

A recall decodes about 130 document rows (JSON columns, a ``Doc`` each) and asks a few dozen
small questions (a turn's neighbours, a session's children, the document count): a third of
its CPU outside the embedder, and the same rows again and again for a server's recalls. They
are kept here and dropped whenever the index changes:

* another connection (another thread's, the outbox's, another process's) committed: SQLite's
  ``PRAGMA data_version`` on the calling thread's connection moves, and the first read that sees
  it drops everything (a thread's first read drops everything too: it has seen nothing yet);
* this store committed on the calling thread's own connection (which ``data_version`` does not
  report): the store calls ``changed()`` after each of its writes.

What a reader decoded is kept only if nothing was dropped while it read (the generation it
started under), so a row read before a commit never outlives the commit's discovery.

>>> import sqlite3
>>> conn = sqlite3.connect(":memory:")
>>> cache = DocCache()
>>> cache.memo(conn, ("count",), lambda: 3), cache.memo(conn, ("count",), lambda: 4)
(3, 3)
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from ..index.docs import Doc

__all__ = ["DocCache"]

T = TypeVar("T")
K = TypeVar("K", int, str)
V = TypeVar("V")


class DocCache:
    """Documents by rowid and by id, vectors by rowid, and memoised lookups, for one index
    file. Thread-safe."""

    def __init__(self, limit: int = 20_000) -> None:
        self.limit = limit  # entries kept per table (then it is dropped and refilled)
        self._lock = threading.Lock()
        self._gen = 0
        self._tables: dict[str, dict[Any, Any]] = {}  # "rowid", "id", "vector": key -> value
        self._memo: dict[tuple[Any, ...], Any] = {}
        self._seen = threading.local()  # this thread's (connection, data_version)

    def changed(self) -> None:
        """Drop everything (the store wrote, or another connection did)."""
        with self._lock:
            self._gen += 1
            self._tables = {}
            self._memo = {}

    def check(self, conn: sqlite3.Connection) -> int:
        """Drop everything if another connection committed since this thread last looked;
        returns the generation a read that starts now stores its results under."""
        version = conn.execute("PRAGMA data_version").fetchone()[0]
        seen = getattr(self._seen, "at", None)  # (the connection itself: an id can be reused)
        if seen is None or seen[0] is not conn or seen[1] != version:
            self._seen.at = (conn, version)
            self.changed()
        return self._gen

    def rows(
        self,
        conn: sqlite3.Connection,
        table: str,
        keys: Iterable[K],
        read: Callable[[list[K]], dict[K, V]],
        *,
        block: int = 500,
    ) -> dict[K, V]:
        """The values of ``keys`` in ``table``: those kept, and the others from
        ``read(missing)`` (then kept), in the order SQLite gives them: each ``block`` of keys
        ascending (``SqliteIndexStore._rows_in`` reads 500 keys per statement)."""
        wanted = list(dict.fromkeys(keys))
        gen = self.check(conn)
        with self._lock:
            kept = self._tables.get(table, {})
            found: dict[K, V] = {k: kept[k] for k in wanted if k in kept}
        missing = [k for k in wanted if k not in found]
        if missing:
            fresh = read(missing)
            found.update(fresh)
            with self._lock:
                if gen == self._gen:
                    kept = self._tables.setdefault(table, {})
                    if len(kept) >= self.limit:
                        kept.clear()
                    kept.update(fresh)
        out: dict[K, V] = {}
        for i in range(0, len(wanted), block):
            for key in sorted(wanted[i : i + block]):
                if key in found:
                    out[key] = found[key]
        return out

    def docs(
        self,
        conn: sqlite3.Connection,
        column: str,
        keys: Iterable[K],
        read: Callable[[str, list[K]], list[Doc]],
    ) -> dict[K, Doc]:
        """The documents whose ``column`` (``rowid`` or ``id``) is one of ``keys``."""

        def fresh(missing: list[K]) -> dict[K, Doc]:
            docs = read(column, missing)
            return {(d.rowid if column == "rowid" else d.id): d for d in docs}  # type: ignore[misc]

        return self.rows(conn, column, keys, fresh)

    def memo(self, conn: sqlite3.Connection, key: tuple[Any, ...], compute: Callable[[], T]) -> T:
        """``compute()``'s answer for ``key``, computed once while nothing commits."""
        gen = self.check(conn)
        with self._lock:
            if key in self._memo:
                found: T = self._memo[key]
                return found
        value = compute()
        with self._lock:
            if gen == self._gen:
                if len(self._memo) >= self.limit:
                    self._memo.clear()
                self._memo[key] = value
        return value
