"""The outbox's job queue in SQLite, shared by any number of threads and processes.

Why an outbox (seed 004): embedding a text and upserting its vector takes 100-500 ms, too long
to do inside ``after_turn``. So a write only *enqueues* a job, in the same transaction as the
write itself (``Outbox.enqueue`` on the writer's connection); workers claim jobs later, run the
handler for their topic and mark them done. Because the job row commits or rolls back together
with the data it describes, there is never a document without its job, nor a job for a write
that did not happen.

Delivery is **at least once**: a worker that dies mid-batch leaves its jobs leased, and once the
lease expires another worker claims them again; a worker of this machine whose process is gone
(``jobs.owner_gone``) loses its leases at the next claim, without waiting for them to expire.
A job that fails ``max_attempts`` times (a handler error, or a lease that expired under a dead
worker) moves to state ``dead``, the dead-letter queue, with its last error kept for
``status()`` and ``retry_dead()``.

Life of a job::

    enqueue ─► pending ─claim─► leased ─complete─► done ─purge_done─► (deleted)
    leased  ─fail (then a backoff) or lease expired─► pending, or dead at max_attempts
    dead    ─retry_dead─► pending (attempts reset)

A claim is one ``BEGIN IMMEDIATE`` transaction (SQLite's single writer plays the part of
Postgres' ``FOR UPDATE SKIP LOCKED``), so two workers never hold the same job at once. Jobs with
the same ``(topic, key)`` run in enqueue order, one at a time, so an older text can never
overwrite the vector of a newer one.

>>> import tempfile, os
>>> box = Outbox(os.path.join(tempfile.mkdtemp(), "q.db"))
>>> box.submit("embed", "doc-1", {"rowid": 1, "text": "hello"})
1
>>> [job.key for job in box.claim("w1")], box.status()["leased"]
(['doc-1'], 1)
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..errors import InvalidInput
from .jobs import DEAD, PENDING, STATES, Job, format_error, owner_gone
from .sqlite import PerThread, transaction

__all__ = ["Outbox"]

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


def _job_id(job: Job | int) -> int:
    return job.id if isinstance(job, Job) else int(job)


class Outbox:
    """The job queue in one SQLite file, shared by any number of threads and processes.

    ``lease_seconds`` must exceed the longest time a handler takes for one batch: a lease that
    expires counts as a failed attempt and the job is handed to another worker.

    >>> import tempfile, os
    >>> box = Outbox(os.path.join(tempfile.mkdtemp(), "q.db"), lease_seconds=10, max_attempts=3)
    >>> _ = box.submit("embed", "k", {"rowid": 7, "text": "hi"})
    >>> [job] = box.claim("me", limit=10)
    >>> box.fail("me", job, "boom"), box.status()["pending"]
    ('pending', 1)
    """

    def __init__(
        self,
        db_path: str | os.PathLike[str],
        *,
        lease_seconds: float = 30.0,
        max_attempts: int = 5,
        backoff_base: float = 0.5,
        max_backoff: float = 300.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
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
        self._conns = PerThread(self.db_path)
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
    def enqueue(
        conn: sqlite3.Connection, topic: str, key: str, payload: Any, *, delay: float = 0.0
    ) -> int:
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
            "VALUES (?, ?, ?, 'pending', 0, ?, ?)",
            (topic, key, body, now + max(delay, 0.0), now),
        )
        assert cur.lastrowid is not None
        return cur.lastrowid

    def submit(self, topic: str, key: str, payload: Any, *, delay: float = 0.0) -> int:
        """Add a job in a transaction of its own (``enqueue`` joins the caller's instead)."""
        with transaction(self._conns.get()) as conn:
            return self.enqueue(conn, topic, key, payload, delay=delay)

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
            self._expire_gone_owners(conn, now)
            conn.execute(_REAP_SQL, {"now": now, "max_attempts": self.max_attempts})
            rows = conn.execute(
                _CLAIM_SQL,
                {
                    "owner": owner,
                    "now": now,
                    "limit": int(limit),
                    "until": now + self.lease_seconds,
                },
            ).fetchall()
        jobs = [
            Job(
                id=r[0],
                topic=r[1],
                key=r[2],
                payload=json.loads(r[3]),
                attempts=r[4],
                created_at=r[5],
            )
            for r in rows
        ]
        return sorted(jobs, key=lambda job: job.id)

    @staticmethod
    def _expire_gone_owners(conn: sqlite3.Connection, now: float) -> None:
        """End now the leases of workers of this machine whose process is gone (SIGKILL, OOM),
        so the reap below hands their jobs on without waiting out the lease."""
        owners = [
            o
            for (o,) in conn.execute(
                "SELECT DISTINCT lease_owner FROM outbox "
                "WHERE state = 'leased' AND lease_until > ?",
                (now,),
            )
        ]
        for owner in owners:
            if owner_gone(owner):
                conn.execute(
                    "UPDATE outbox SET lease_until = ? WHERE state = 'leased' AND lease_owner = ?",
                    (now, owner),
                )

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
                "WHERE id = ? AND state = 'leased' AND lease_owner = ?",
                ids,
            )
            return max(cur.rowcount, 0)

    def fail(self, owner: str, job: Job | int, error: BaseException | str) -> str | None:
        """Record a failed attempt; returns the job's new state, or None if not leased by owner.

        Below ``max_attempts`` the job goes back to pending, available again after an exponential
        backoff (``backoff_base * 2**(attempts-1)``, capped by ``max_backoff``); at
        ``max_attempts`` it goes to ``dead``. The error (with its traceback) is kept.
        """
        job_id, message, now = _job_id(job), format_error(error), self._clock()
        with transaction(self._conns.get()) as conn:
            row = conn.execute(
                "SELECT attempts FROM outbox WHERE id = ? AND state = 'leased' AND lease_owner = ?",
                (job_id, owner),
            ).fetchone()
            if row is None:
                return None
            attempts = int(row[0]) + 1
            state = DEAD if attempts >= self.max_attempts else PENDING
            delay = min(self.max_backoff, self.backoff_base * 2.0 ** (attempts - 1))
            conn.execute(
                "UPDATE outbox SET state = ?, attempts = ?, last_error = ?, lease_until = NULL, "
                "available_at = ? WHERE id = ?",
                (state, attempts, message, now + delay, job_id),
            )
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
                "WHERE state = 'pending'",
                (now,),
            ).fetchone()
            dead = conn.execute(
                "SELECT id, topic, key, attempts, last_error, lease_owner FROM outbox "
                "WHERE state = 'dead' ORDER BY id LIMIT ?",
                (dead_limit,),
            ).fetchall()
        finally:
            conn.execute("COMMIT")
        out: dict[str, Any] = {state: int(counts.get(state, 0)) for state in STATES}
        out["total"] = sum(int(n) for n in counts.values())
        out["ready"] = int(ready)
        out["oldest_pending_age"] = None if oldest is None else max(0.0, now - oldest)
        out["dead_jobs"] = [
            {
                "id": r[0],
                "topic": r[1],
                "key": r[2],
                "attempts": r[3],
                "last_error": r[4],
                "last_owner": r[5],
            }
            for r in dead
        ]
        return out

    def retry_dead(self, ids: Iterable[int] | None = None) -> int:
        """Move dead jobs (all, or those in ``ids``) back to pending with attempts reset."""
        sql = (
            "UPDATE outbox SET state = 'pending', attempts = 0, available_at = ?, "
            "lease_until = NULL WHERE state = 'dead'"
        )
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
            cur = conn.execute(
                "DELETE FROM outbox WHERE state = 'done' AND done_at <= ?",
                (self._clock() - older_than_seconds,),
            )
            return max(cur.rowcount, 0)

    def disconnect(self) -> None:
        """Close the calling thread's connection (a worker thread does this when it stops)."""
        self._conns.close_current()

    def close(self) -> None:
        """Close every connection of this ``Outbox``; call when no thread is using it."""
        self._conns.close_all()
