"""A durable outbox of index work in SQLite, and the workers that drain it.

Why an outbox (seed 004): embedding a text and upserting its vector takes 100-500 ms, too long
to do inside ``after_turn``. So a write only *enqueues* a job, in the same transaction as the
write itself; workers claim jobs later, run the handler for their topic (e.g. embed + upsert)
and mark them done. Because the job row commits or rolls back together with the data it
describes, there is never a document without its job, nor a job for a write that did not happen.

Delivery is **at least once**: a worker that dies mid-batch leaves its jobs leased, and once the
lease expires another worker claims them again. Handlers must therefore be idempotent (an upsert
keyed by the job's key, never a blind append). A job that fails ``max_attempts`` times (a
handler error, or a lease that expired under a dead worker) moves to state ``dead``, the
dead-letter queue, with its last error kept for ``status()`` and ``retry_dead()``.

Life of a job::

    enqueue ─► pending ─claim─► leased ─complete─► done ─purge_done─► (deleted)
    leased  ─fail (then a backoff) or lease expired─► pending, or dead at max_attempts
    dead    ─retry_dead─► pending (attempts reset)

Several processes may share one queue: a claim is one ``BEGIN IMMEDIATE`` transaction (SQLite's
single writer plays the part of Postgres' ``FOR UPDATE SKIP LOCKED``), so two workers never hold
the same job at once. Jobs with the same ``(topic, key)`` run in enqueue order, one at a time, so
an older text can never overwrite the vector of a newer one.

>>> import sqlite3, tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "index.db")
>>> box = Outbox(path)
>>> conn = connect(path)
>>> with transaction(conn):                    # the caller's own write + its index work
...     job_id = Outbox.enqueue(conn, "embed", "doc-1", {"rowid": 1, "text": "hello"})
>>> seen = []
>>> Worker(box, {"embed": seen.extend}, owner="w1").run_once()
1
>>> [job.key for job in seen], box.status()["done"]
(['doc-1'], 1)
"""

from __future__ import annotations

import json
import logging
import os
import re
import socket
import sqlite3
import threading
import time
import traceback
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

import numpy as np

from ..embed.base import Embedder
from ..errors import InvalidInput, StorageError

__all__ = [
    "DEAD",
    "DONE",
    "LEASED",
    "PENDING",
    "Handler",
    "Job",
    "Outbox",
    "Worker",
    "WorkerThread",
    "connect",
    "default_owner",
    "embedding_handler",
    "transaction",
]

log = logging.getLogger(__name__)

PENDING, LEASED, DONE, DEAD = "pending", "leased", "done", "dead"
_STATES = (PENDING, LEASED, DONE, DEAD)
BUSY_TIMEOUT_MS = 30_000
_MAX_ERROR_CHARS = 4000

_SCHEMA = (
    # lease_owner names the worker holding the lease while leased, and the last one afterwards.
    """CREATE TABLE IF NOT EXISTS outbox(
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      topic TEXT NOT NULL,
      key TEXT NOT NULL,
      payload TEXT NOT NULL,
      state TEXT NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      available_at REAL NOT NULL,
      lease_owner TEXT,
      lease_until REAL,
      last_error TEXT,
      created_at REAL NOT NULL,
      done_at REAL)""",
    "CREATE INDEX IF NOT EXISTS outbox_ready ON outbox(state, available_at)",
    # Serves the per-key ordering test in claim() and lookups by key.
    "CREATE INDEX IF NOT EXISTS outbox_key ON outbox(topic, key, id)",
)

_REAP_SQL = """
UPDATE outbox SET attempts = attempts + 1,
  state = CASE WHEN attempts + 1 >= :max_attempts THEN 'dead' ELSE 'pending' END,
  last_error = 'lease held by ' || coalesce(lease_owner, '?')
               || ' expired before the job completed (worker died or was too slow)',
  lease_until = NULL, available_at = :now
WHERE state = 'leased' AND lease_until <= :now
"""

_CLAIM_SQL = """
UPDATE outbox SET state = 'leased', lease_owner = :owner, lease_until = :until
WHERE id IN (
  SELECT o.id FROM outbox AS o
  WHERE o.state = 'pending' AND o.available_at <= :now
    AND NOT EXISTS (SELECT 1 FROM outbox AS p
                    WHERE p.topic = o.topic AND p.key = o.key AND p.id < o.id
                      AND p.state IN ('pending', 'leased'))
  ORDER BY o.available_at, o.id
  LIMIT :limit)
RETURNING id, topic, key, payload, attempts, created_at
"""


# ---------------------------------------------------------------------------- connections


def connect(db_path: str | os.PathLike[str]) -> sqlite3.Connection:
    """A connection to ``db_path`` in WAL mode with a 30 s busy timeout, in autocommit mode.

    Autocommit (``isolation_level=None``) means transactions are explicit: use ``transaction``.
    One connection per thread; never carry one across ``fork``.

    >>> import tempfile, os
    >>> connect(os.path.join(tempfile.mkdtemp(), "x.db")).execute("PRAGMA journal_mode").fetchone()
    ('wal',)
    """
    path = os.fspath(db_path)
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                           check_same_thread=False)
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    _enable_wal(conn, path)
    return conn


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
        raise StorageError(f"{path}: SQLite refused WAL mode (journal_mode={mode}); "
                           "the outbox needs a local file system")


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


class _PerThread:
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


# ---------------------------------------------------------------------------- the queue


@dataclass(frozen=True)
class Job:
    """One claimed unit of work. ``attempts`` counts failures before this claim."""

    id: int
    topic: str
    key: str
    payload: Any
    attempts: int
    created_at: float


def _job_id(job: Job | int) -> int:
    return job.id if isinstance(job, Job) else int(job)


def _format_error(error: BaseException | str) -> str:
    if isinstance(error, BaseException):
        head = "".join(traceback.format_exception_only(type(error), error)).strip()
        tb = "".join(traceback.format_tb(error.__traceback__)) if error.__traceback__ else ""
        text = f"{head}\n{tb}".rstrip() if tb else head
    else:
        text = str(error)
    return text if len(text) <= _MAX_ERROR_CHARS else text[:_MAX_ERROR_CHARS - 1] + "…"


class Outbox:
    """The job queue in one SQLite file, shared by any number of threads and processes.

    ``lease_seconds`` must exceed the longest time a handler takes for one batch: a lease that
    expires counts as a failed attempt and the job is handed to another worker.

    >>> import tempfile, os
    >>> box = Outbox(os.path.join(tempfile.mkdtemp(), "q.db"), lease_seconds=10, max_attempts=3)
    >>> conn = connect(box.db_path)
    >>> _ = Outbox.enqueue(conn, "embed", "k", {"rowid": 7, "text": "hi"})   # autocommit
    >>> [job] = box.claim("me", limit=10)
    >>> box.fail("me", job, "boom"), box.status()["pending"]
    ('pending', 1)
    """

    def __init__(self, db_path: str | os.PathLike[str], *, lease_seconds: float = 30.0,
                 max_attempts: int = 5, backoff_base: float = 0.5, max_backoff: float = 300.0,
                 clock: Callable[[], float] = time.time) -> None:
        if lease_seconds <= 0:
            raise InvalidInput(f"lease_seconds must be > 0, got {lease_seconds}")
        if max_attempts < 1:
            raise InvalidInput(f"max_attempts must be >= 1, got {max_attempts}")
        if backoff_base < 0 or max_backoff < 0:
            raise InvalidInput("backoff_base and max_backoff must be >= 0")
        self.db_path = Path(db_path)
        self.lease_seconds = float(lease_seconds)
        self.max_attempts = int(max_attempts)
        self.backoff_base = float(backoff_base)
        self.max_backoff = float(max_backoff)
        self._clock = clock  # wall clock: leases are compared across processes
        self.db_path.parent.mkdir(parents=True, exist_ok=True)
        self._conns = _PerThread(self.db_path)
        with transaction(self._conns.get()) as conn:
            self.ensure_schema(conn)

    def __repr__(self) -> str:
        return f"Outbox({str(self.db_path)!r}, lease_seconds={self.lease_seconds})"

    # -- in the caller's transaction

    @staticmethod
    def ensure_schema(conn: sqlite3.Connection) -> None:
        """Create the ``outbox`` table and its indexes if missing, on the caller's connection.

        Uses single ``execute`` calls (never ``executescript``, which would commit the caller's
        open transaction).
        """
        for statement in _SCHEMA:
            conn.execute(statement)

    @staticmethod
    def enqueue(conn: sqlite3.Connection, topic: str, key: str, payload: Any, *,
                delay: float = 0.0) -> int:
        """Add a job on the **caller's** connection, inside the caller's transaction.

        This is the point of the outbox pattern: write the document and enqueue its index work
        in one transaction, so both commit or neither does. ``enqueue`` never begins nor commits
        anything itself (on an autocommit connection with no open transaction, the insert commits
        alone). ``payload`` must be JSON-serialisable. Returns the job id.

        >>> conn = sqlite3.connect(":memory:")
        >>> Outbox.ensure_schema(conn)
        >>> with conn:                                  # the caller's transaction
        ...     _ = conn.execute("CREATE TABLE docs(text)")
        ...     _ = conn.execute("INSERT INTO docs VALUES ('hi')")
        ...     Outbox.enqueue(conn, "embed", "doc-1", {"rowid": 1, "text": "hi"})
        1
        """
        if not isinstance(topic, str) or not topic:
            raise InvalidInput(f"outbox topic must be a non-empty string, got {topic!r}")
        if not isinstance(key, str) or not key:
            raise InvalidInput(f"outbox key must be a non-empty string, got {key!r}")
        try:
            body = json.dumps(payload, ensure_ascii=False, sort_keys=True, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise InvalidInput(f"outbox payload for {topic}/{key} is not JSON: {exc}") from exc
        now = time.time()
        cur = conn.execute(
            "INSERT INTO outbox(topic, key, payload, state, attempts, available_at, created_at) "
            "VALUES (?, ?, ?, 'pending', 0, ?, ?)", (topic, key, body, now + max(delay, 0.0), now))
        assert cur.lastrowid is not None
        return cur.lastrowid

    # -- workers

    def claim(self, owner: str, limit: int = 32) -> list[Job]:
        """Lease up to ``limit`` ready jobs to ``owner`` until now + ``lease_seconds``.

        Ready means pending with ``available_at`` reached, and no earlier unfinished job with
        the same topic and key. Expired leases are first returned to pending (counting as a
        failed attempt, so a job that keeps killing its worker still ends in ``dead``).
        """
        if not owner:
            raise InvalidInput("a worker needs a non-empty owner name")
        if limit < 1:
            return []
        now = self._clock()
        with transaction(self._conns.get()) as conn:
            conn.execute(_REAP_SQL, {"now": now, "max_attempts": self.max_attempts})
            rows = conn.execute(_CLAIM_SQL, {"owner": owner, "now": now, "limit": int(limit),
                                             "until": now + self.lease_seconds}).fetchall()
        jobs = [Job(id=r[0], topic=r[1], key=r[2], payload=json.loads(r[3]), attempts=r[4],
                    created_at=r[5]) for r in rows]
        return sorted(jobs, key=lambda job: job.id)

    def complete(self, owner: str, job_ids: Iterable[Job | int]) -> int:
        """Mark done the given jobs that ``owner`` still leases; returns how many.

        A job whose lease expired and was claimed by another worker is left to that worker.
        """
        now = self._clock()
        ids = [(now, _job_id(j), owner) for j in job_ids]
        if not ids:
            return 0
        with transaction(self._conns.get()) as conn:
            cur = conn.executemany(
                "UPDATE outbox SET state = 'done', done_at = ?, lease_until = NULL "
                "WHERE id = ? AND state = 'leased' AND lease_owner = ?", ids)
            return max(cur.rowcount, 0)

    def fail(self, owner: str, job: Job | int, error: BaseException | str) -> str | None:
        """Record a failed attempt; returns the job's new state, or None if not leased by owner.

        Below ``max_attempts`` the job goes back to pending, available again after an exponential
        backoff (``backoff_base * 2**(attempts-1)``, capped by ``max_backoff``); at
        ``max_attempts`` it goes to ``dead``. The error (with its traceback) is kept.
        """
        job_id, message, now = _job_id(job), _format_error(error), self._clock()
        with transaction(self._conns.get()) as conn:
            row = conn.execute("SELECT attempts FROM outbox WHERE id = ? AND state = 'leased' "
                               "AND lease_owner = ?", (job_id, owner)).fetchone()
            if row is None:
                return None
            attempts = int(row[0]) + 1
            state = DEAD if attempts >= self.max_attempts else PENDING
            delay = min(self.max_backoff, self.backoff_base * 2.0 ** (attempts - 1))
            conn.execute(
                "UPDATE outbox SET state = ?, attempts = ?, last_error = ?, lease_until = NULL, "
                "available_at = ? WHERE id = ?", (state, attempts, message, now + delay, job_id))
        return state

    # -- operators

    def status(self, *, dead_limit: int = 100) -> dict[str, Any]:
        """Counts per state, the age of the oldest pending job, and the dead jobs with errors.

        >>> import tempfile, os
        >>> Outbox(os.path.join(tempfile.mkdtemp(), "q.db")).status()["pending"]
        0
        """
        now = self._clock()
        conn = self._conns.get()
        conn.execute("BEGIN")  # one snapshot for all three reads
        try:
            counts = dict(conn.execute("SELECT state, count(*) FROM outbox GROUP BY state"))
            ready, oldest = conn.execute(
                "SELECT count(*) FILTER (WHERE available_at <= ?), min(created_at) FROM outbox "
                "WHERE state = 'pending'", (now,)).fetchone()
            dead = conn.execute(
                "SELECT id, topic, key, attempts, last_error, lease_owner FROM outbox "
                "WHERE state = 'dead' ORDER BY id LIMIT ?", (dead_limit,)).fetchall()
        finally:
            conn.execute("COMMIT")
        out: dict[str, Any] = {state: int(counts.get(state, 0)) for state in _STATES}
        out["total"] = sum(int(n) for n in counts.values())
        out["ready"] = int(ready)
        out["oldest_pending_age"] = None if oldest is None else max(0.0, now - oldest)
        out["dead_jobs"] = [
            {"id": r[0], "topic": r[1], "key": r[2], "attempts": r[3], "last_error": r[4],
             "last_owner": r[5]} for r in dead]
        return out

    def retry_dead(self, ids: Iterable[int] | None = None) -> int:
        """Move dead jobs (all, or those in ``ids``) back to pending with attempts reset."""
        sql = ("UPDATE outbox SET state = 'pending', attempts = 0, available_at = ?, "
               "lease_until = NULL WHERE state = 'dead'")
        now = self._clock()
        with transaction(self._conns.get()) as conn:
            if ids is None:
                return max(conn.execute(sql, (now,)).rowcount, 0)
            cur = conn.executemany(sql + " AND id = ?", [(now, int(i)) for i in ids])
            return max(cur.rowcount, 0)

    def purge_done(self, older_than_seconds: float) -> int:
        """Delete done jobs finished at least ``older_than_seconds`` ago; returns how many."""
        if older_than_seconds < 0:
            raise InvalidInput(f"older_than_seconds must be >= 0, got {older_than_seconds}")
        with transaction(self._conns.get()) as conn:
            cur = conn.execute("DELETE FROM outbox WHERE state = 'done' AND done_at <= ?",
                               (self._clock() - older_than_seconds,))
            return max(cur.rowcount, 0)

    def disconnect(self) -> None:
        """Close the calling thread's connection (a worker thread does this when it stops)."""
        self._conns.close_current()

    def close(self) -> None:
        """Close every connection of this ``Outbox``; call when no thread is using it."""
        self._conns.close_all()


# ---------------------------------------------------------------------------- workers

#: A handler gets every claimed job of its topic in one call; it raises to fail them.
Handler = Callable[[list[Job]], None]


def default_owner() -> str:
    """A worker name unique across machines, processes and threads: ``host:pid:random``."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class Worker:
    """Claims batches from an ``Outbox`` and runs the handler registered for each topic.

    Delivery is at least once, so **handlers must be idempotent**: a job may run again after a
    crash, a lease expiry, or a batch retried job by job. If a handler raises for a batch, each
    job of that batch is retried alone, so one poison job fails by itself while the good ones
    complete. A job whose topic has no handler here fails with an error naming the topic (another
    worker that knows the topic may take it on the next attempt).

    >>> import tempfile, os
    >>> box = Outbox(os.path.join(tempfile.mkdtemp(), "q.db"))
    >>> Worker(box, {"embed": lambda jobs: None}, owner="w").run_once()
    0
    """

    def __init__(self, outbox: Outbox, handlers: Mapping[str, Handler], *,
                 owner: str | None = None, batch: int = 32) -> None:
        if batch < 1:
            raise InvalidInput(f"batch must be >= 1, got {batch}")
        self.outbox = outbox
        self.handlers = dict(handlers)
        self.owner = owner or default_owner()
        self.batch = batch
        self.completed = 0
        self.failed = 0

    def run_once(self) -> int:
        """Claim one batch and process it; returns how many jobs were claimed (0: idle)."""
        jobs = self.outbox.claim(self.owner, self.batch)
        groups: dict[str, list[Job]] = {}
        for job in jobs:
            groups.setdefault(job.topic, []).append(job)
        for topic, group in groups.items():
            self._run_group(topic, group)
        return len(jobs)

    def _run_group(self, topic: str, group: list[Job]) -> None:
        handler = self.handlers.get(topic)
        if handler is None:
            known = ", ".join(sorted(self.handlers)) or "none"
            for job in group:
                self._fail(job, f"no handler for topic {topic!r} in worker {self.owner} "
                                f"(it handles: {known})")
            return
        # A handler is foreign code: any exception it raises is a job failure to record, never
        # a reason to stop the worker.
        try:
            handler(list(group))
        except Exception as exc:  # noqa: BLE001
            if len(group) == 1:
                self._fail(group[0], exc)
                return
            log.info("outbox: %s batch of %d failed (%s); retrying job by job",
                     topic, len(group), exc)
            for job in group:
                try:
                    handler([job])
                except Exception as one:  # noqa: BLE001
                    self._fail(job, one)
                else:
                    self.completed += self.outbox.complete(self.owner, [job.id])
        else:
            self.completed += self.outbox.complete(self.owner, [job.id for job in group])

    def _fail(self, job: Job, error: BaseException | str) -> None:
        state = self.outbox.fail(self.owner, job, error)
        self.failed += 1
        if state == DEAD:
            log.warning("outbox: job %d (%s/%s) is dead after %d attempts: %s", job.id,
                        job.topic, job.key, self.outbox.max_attempts, _format_error(error)[:200])

    def run_until_idle(self) -> int:
        """Run batches until none is ready right now (backed-off jobs wait); returns jobs claimed.

        For synchronous callers such as ``ogmem reindex`` and tests.
        """
        total = 0
        while n := self.run_once():
            total += n
        return total

    def run_forever(self, stop: threading.Event, poll: float = 0.2) -> None:
        """Process batches until ``stop`` is set, sleeping ``poll`` seconds whenever idle."""
        while not stop.is_set():
            try:
                claimed = self.run_once()
            except sqlite3.OperationalError as exc:  # e.g. locked beyond the busy timeout
                log.warning("outbox worker %s: %s; retrying", self.owner, exc)
                claimed = 0
            if claimed == 0:
                stop.wait(poll)


class WorkerThread(threading.Thread):
    """A daemon thread running a ``Worker``: the default, in-process way to drain the outbox.

    Being a daemon, it never keeps the interpreter alive; jobs it leaves leased are taken over
    by the next worker once their lease expires.

    >>> import tempfile, os
    >>> box = Outbox(os.path.join(tempfile.mkdtemp(), "q.db"))
    >>> with WorkerThread(Worker(box, {"embed": lambda jobs: None})) as thread:
    ...     thread.is_alive()
    True
    """

    def __init__(self, worker: Worker, *, poll: float = 0.2) -> None:
        super().__init__(name=f"ogmem-outbox-{worker.owner}", daemon=True)
        self.worker = worker
        self.poll = poll
        self.stop_event = threading.Event()

    def run(self) -> None:
        try:
            self.worker.run_forever(self.stop_event, self.poll)
        finally:
            self.worker.outbox.disconnect()

    def stop(self, timeout: float | None = 30.0) -> None:
        """Ask the worker to stop after its current batch, and wait for it."""
        self.stop_event.set()
        if self.is_alive():
            self.join(timeout)

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


# ---------------------------------------------------------------------------- embedding

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _embed_payload(job: Job) -> tuple[int, str]:
    p = job.payload
    if (isinstance(p, dict) and isinstance(p.get("rowid"), int)
            and not isinstance(p.get("rowid"), bool) and isinstance(p.get("text"), str)):
        return p["rowid"], p["text"]
    raise InvalidInput(f"embed job {job.id} (key {job.key!r}): payload needs an integer "
                       f"'rowid' and a string 'text', got {str(p)[:200]}")


def embedding_handler(db_path: str | os.PathLike[str], embedder: Embedder, *,
                      doc_table: str | None = None) -> Handler:
    """A handler for topic ``"embed"``: payload ``{"rowid": int, "text": str}`` → a vector.

    All texts of a batch are embedded in one ``encode`` call, then upserted in one transaction
    as ``vecs(doc_rowid, dim, v)`` with ``v`` the little-endian float32 bytes (read them back
    with ``numpy.frombuffer(v, dtype="<f4")``). ``INSERT OR REPLACE`` keyed by rowid makes it
    idempotent: running a job twice leaves one row. When ``doc_table`` is given, rowids no longer
    in that table are skipped, so a late job never revives the vector of a deleted document.

    >>> from ogmemory.embed import make_embedder
    >>> handler = embedding_handler("/tmp/index.db", make_embedder("use"))   # doctest: +SKIP
    >>> Worker(Outbox("/tmp/index.db"), {"embed": handler}).run_until_idle()  # doctest: +SKIP
    """
    if doc_table is not None and not _IDENT.fullmatch(doc_table):
        raise InvalidInput(f"doc_table must be a plain SQL identifier, got {doc_table!r}")
    conns = _PerThread(Path(db_path))
    with transaction(conns.get()) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS vecs(doc_rowid INTEGER PRIMARY KEY, "
                     "dim INTEGER NOT NULL, v BLOB NOT NULL)")

    def handle(jobs: list[Job]) -> None:
        latest: dict[int, str] = {}
        for job in jobs:  # jobs come in id order: a later job for a rowid wins
            rowid, text = _embed_payload(job)
            latest[rowid] = text
        if not latest:
            return
        rowids = list(latest)
        vectors = np.asarray(embedder.encode([latest[r] for r in rowids]), dtype="<f4")
        if vectors.shape != (len(rowids), embedder.dim):
            raise StorageError(f"embedder {embedder.name} returned shape {vectors.shape}, "
                               f"expected {(len(rowids), embedder.dim)}")
        with transaction(conns.get()) as conn:
            if doc_table is not None:
                marks = ",".join("?" * len(rowids))
                live = {r for (r,) in conn.execute(
                    f"SELECT rowid FROM {doc_table} WHERE rowid IN ({marks})", rowids)}
            else:
                live = set(rowids)
            conn.executemany(
                "INSERT OR REPLACE INTO vecs(doc_rowid, dim, v) VALUES (?, ?, ?)",
                [(r, embedder.dim, np.ascontiguousarray(vec).tobytes())
                 for r, vec in zip(rowids, vectors, strict=True) if r in live])

    handle.__doc__ = f"Embed jobs with {embedder.name} into vecs of {db_path}."
    return handle
