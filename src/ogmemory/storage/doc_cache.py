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


class DocCache:
    """Documents by rowid and by id, and memoised lookups, for one index file. Thread-safe."""

    def __init__(self, limit: int = 20_000) -> None:
        self.limit = limit  # documents kept (then everything is dropped and refilled)
        self._lock = threading.Lock()
        self._gen = 0
        self._by_rowid: dict[int, Doc] = {}
        self._by_id: dict[str, Doc] = {}
        self._memo: dict[tuple[Any, ...], Any] = {}
        self._seen = threading.local()  # this thread's (connection, data_version)

    def changed(self) -> None:
        """Drop everything (the store wrote, or another connection did)."""
        with self._lock:
            self._gen += 1
            self._by_rowid.clear()
            self._by_id.clear()
            self._memo.clear()

    def check(self, conn: sqlite3.Connection) -> int:
        """Drop everything if another connection committed since this thread last looked;
        returns the generation a read that starts now stores its results under."""
        version = conn.execute("PRAGMA data_version").fetchone()[0]
        now = (id(conn), version)
        if getattr(self._seen, "at", None) != now:
            self._seen.at = now
            self.changed()
        return self._gen

    def docs(
        self,
        conn: sqlite3.Connection,
        column: str,
        keys: Iterable[K],
        read: Callable[[str, list[K]], list[Doc]],
    ) -> dict[K, Doc]:
        """The documents whose ``column`` (``rowid`` or ``id``) is one of ``keys``: those kept,
        and the others from ``read(column, missing)`` (then kept), in the order SQLite gives
        them (each block of 500 keys ascending, as ``SqliteIndexStore._rows_in`` reads)."""
        wanted = list(dict.fromkeys(keys))
        gen = self.check(conn)
        index: dict[Any, Doc] = self._by_rowid if column == "rowid" else self._by_id
        with self._lock:
            found = {k: d for k in wanted if (d := index.get(k)) is not None}
        missing = [k for k in wanted if k not in found]
        if missing:
            fresh = read(column, missing)
            self._keep(gen, fresh)
            for doc in fresh:
                found[doc.rowid if column == "rowid" else doc.id] = doc  # type: ignore[index]
        out: dict[K, Doc] = {}
        for i in range(0, len(wanted), 500):
            for key in sorted(wanted[i : i + 500]):
                if key in found:
                    out[key] = found[key]
        return out

    def _keep(self, gen: int, docs: Iterable[Doc]) -> None:
        """Keep documents read under generation ``gen`` (unless something changed since)."""
        with self._lock:
            if gen != self._gen:
                return
            if len(self._by_rowid) >= self.limit:
                self._by_rowid.clear()
                self._by_id.clear()
            for doc in docs:
                if doc.rowid is not None:
                    self._by_rowid[doc.rowid] = doc
                self._by_id[doc.id] = doc

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
