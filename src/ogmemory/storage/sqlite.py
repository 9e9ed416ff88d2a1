"""SQLite connections as every SQLite store here uses them: WAL, a 30 s busy timeout,
autocommit with explicit ``BEGIN IMMEDIATE`` transactions, one connection per thread."""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import StorageError

__all__ = ["BUSY_TIMEOUT_MS", "PerThread", "connect", "transaction"]

BUSY_TIMEOUT_MS = 30_000


def connect(db_path: str | os.PathLike[str]) -> sqlite3.Connection:
    """A connection to ``db_path`` in WAL mode with a 30 s busy timeout, in autocommit mode.

    Autocommit (``isolation_level=None``) means transactions are explicit: use ``transaction``.
    One connection per thread; never carry one across ``fork``.

    >>> import tempfile, os
    >>> connect(os.path.join(tempfile.mkdtemp(), "x.db")).execute("PRAGMA journal_mode").fetchone()
    ('wal',)
    """
    path = os.fspath(db_path)
    conn = sqlite3.connect(
        path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
    )
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    _enable_wal(conn, path)
    conn.execute("PRAGMA synchronous=NORMAL")  # WAL: a crash never corrupts, at worst loses
    return conn  # the last transactions of a derived store


def _enable_wal(conn: sqlite3.Connection, path: str) -> None:
    # WAL is persistent in the file, so this is a read after the first time. Switching needs an
    # exclusive lock and SQLite may report "locked" without waiting on the busy handler when
    # several processes open a fresh file together, hence the retry loop.
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
            if mode != "wal":
                mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            break
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise StorageError(f"cannot open {path}: {exc}") from exc
            if time.monotonic() > deadline:
                raise StorageError(f"cannot switch {path} to WAL mode: {exc}") from exc
            time.sleep(0.02)
    if str(mode).lower() != "wal":
        raise StorageError(
            f"{path}: SQLite refused WAL mode (journal_mode={mode}); it needs a local file system"
        )


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE`` ... ``COMMIT``, or ``ROLLBACK`` if the block raises.

    IMMEDIATE takes the write lock up front (waiting up to the busy timeout). A deferred
    transaction that reads first and writes later can fail at once with "database is locked"
    in WAL mode, because its read snapshot is stale by the time it asks for the lock.

    >>> conn = sqlite3.connect(":memory:", isolation_level=None)
    >>> with transaction(conn):
    ...     _ = conn.execute("CREATE TABLE t(x)")
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


# Connections inherited through fork(): never used nor closed in the child (closing them
# could disturb the parent's locks), only kept alive here.
_FORK_ORPHANS: list[sqlite3.Connection] = []


class PerThread:
    """One connection per thread and per process, all closable from any thread."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._pid = os.getpid()
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()

    def get(self) -> sqlite3.Connection:
        if os.getpid() != self._pid:
            _FORK_ORPHANS.extend(self._all)
            self._pid, self._local, self._all = os.getpid(), threading.local(), []
            self._lock = threading.Lock()
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = connect(self.path)
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        return conn

    def close_current(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            self._local.conn = None
            with self._lock:
                if conn in self._all:
                    self._all.remove(conn)
            conn.close()

    def close_all(self) -> None:
        with self._lock:
            conns, self._all = self._all, []
            self._local = threading.local()
        for conn in conns:
            conn.close()
