"""In-memory twins of the knowledge store and the job queue (as dulwich's ``MemoryRepo``).

They keep the same contracts as the files/SQLite backends (the contract suites in ``tests/``
run against both) but hold everything in this process: nothing survives ``close`` and nothing
is shared with other processes. Use them where the backend is not the subject (tests, quick
experiments): ``Memory(home, backend=InMemoryBackend())``.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidInput
from .folded import BatchInfo, FoldedStore
from .jobs import DEAD, DONE, LEASED, PENDING, Job, format_error

__all__ = ["InMemoryKnowledgeStore", "InMemoryQueue"]


class InMemoryKnowledgeStore(FoldedStore):
    """Knowledge records of one tenant in this process."""

    def __init__(self) -> None:
        super().__init__()
        self._named: dict[str, threading.RLock] = {}

    def _persist(
        self,
        info: BatchInfo,
        records: list[tuple[str, str, dict[str, Any] | None]],
        *,
        durable: bool = False,
    ) -> None:
        for _kind, _rid, data in records:  # the same check the file backend makes
            try:
                json.dumps(data, ensure_ascii=False, allow_nan=False).encode()
            except (TypeError, ValueError) as exc:
                raise InvalidInput(f"{_kind} {_rid} is not JSON-serialisable: {exc}") from None

    def _catch_up(self) -> None:
        return None  # nobody else writes here

    @contextmanager
    def exclusive(self, name: str) -> Iterator[None]:
        with self._lock:
            lock = self._named.setdefault(name, threading.RLock())
        with lock:
            yield


@dataclass
class _Row:
    id: int
    topic: str
    key: str
    payload: Any
    state: str
    attempts: int
    available_at: float
    created_at: float
    lease_owner: str | None = None
    lease_until: float | None = None
    last_error: str | None = None
    done_at: float | None = None


class InMemoryQueue:
    """The outbox's job queue in this process, with the SQLite queue's semantics: leases that
    expire count as failed attempts, per-key order, exponential backoff, a dead-letter state."""

    def __init__(
        self,
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
        self.lease_seconds = float(lease_seconds)
        self.max_attempts = int(max_attempts)
        self.backoff_base = float(backoff_base)
        self.max_backoff = float(max_backoff)
        self._clock = clock
        self._rows: dict[int, _Row] = {}
        self._next = 1
        self._lock = threading.Lock()

    def submit(self, topic: str, key: str, payload: Any, *, delay: float = 0.0) -> int:
        if not isinstance(topic, str) or not topic or not isinstance(key, str) or not key:
            raise InvalidInput("an outbox job needs a non-empty topic and key")
        try:
            payload = json.loads(json.dumps(payload, allow_nan=False))
        except (TypeError, ValueError) as exc:
            raise InvalidInput(f"outbox payload for {topic}/{key} is not JSON: {exc}") from exc
        with self._lock:
            now = self._clock()
            row = _Row(self._next, topic, key, payload, PENDING, 0, now + max(delay, 0.0), now)
            self._rows[row.id] = row
            self._next += 1
            return row.id

    def claim(self, owner: str, limit: int = 32) -> list[Job]:
        if not owner:
            raise InvalidInput("a worker needs a non-empty owner name")
        with self._lock:
            now = self._clock()
            for row in self._rows.values():  # expired leases count as failed attempts
                if row.state == LEASED and (row.lease_until or 0) <= now:
                    row.attempts += 1
                    row.state = DEAD if row.attempts >= self.max_attempts else PENDING
                    row.last_error = (
                        f"lease held by {row.lease_owner or '?'} expired before "
                        "the job completed (worker died or was too slow)"
                    )
                    row.lease_until, row.available_at = None, now
            busy: set[tuple[str, str]] = set()
            out: list[Job] = []
            ready = sorted(self._rows.values(), key=lambda r: (r.available_at, r.id))
            first_open: dict[tuple[str, str], int] = {}
            for row in sorted(self._rows.values(), key=lambda r: r.id):
                if row.state in (PENDING, LEASED):
                    first_open.setdefault((row.topic, row.key), row.id)
            for row in ready:
                if len(out) >= limit:
                    break
                k = (row.topic, row.key)
                if (
                    row.state != PENDING
                    or row.available_at > now
                    or k in busy
                    or first_open.get(k) != row.id
                ):
                    continue
                busy.add(k)
                row.state, row.lease_owner = LEASED, owner
                row.lease_until = now + self.lease_seconds
                out.append(
                    Job(row.id, row.topic, row.key, row.payload, row.attempts, row.created_at)
                )
            return sorted(out, key=lambda j: j.id)

    def complete(self, owner: str, job_ids: Iterable[Job | int]) -> int:
        n = 0
        with self._lock:
            now = self._clock()
            for j in job_ids:
                row = self._rows.get(j.id if isinstance(j, Job) else int(j))
                if row is not None and row.state == LEASED and row.lease_owner == owner:
                    row.state, row.done_at, row.lease_until = DONE, now, None
                    n += 1
        return n

    def fail(self, owner: str, job: Job | int, error: BaseException | str) -> str | None:
        with self._lock:
            row = self._rows.get(job.id if isinstance(job, Job) else int(job))
            if row is None or row.state != LEASED or row.lease_owner != owner:
                return None
            row.attempts += 1
            row.state = DEAD if row.attempts >= self.max_attempts else PENDING
            row.last_error = format_error(error)
            delay = min(self.max_backoff, self.backoff_base * 2.0 ** (row.attempts - 1))
            row.lease_until, row.available_at = None, self._clock() + delay
            return row.state

    def status(self, *, dead_limit: int = 100) -> dict[str, Any]:
        with self._lock:
            now = self._clock()
            rows = list(self._rows.values())
        out: dict[str, Any] = {
            s: sum(1 for r in rows if r.state == s) for s in (PENDING, LEASED, DONE, DEAD)
        }
        pending = [r for r in rows if r.state == PENDING]
        out["total"] = len(rows)
        out["ready"] = sum(1 for r in pending if r.available_at <= now)
        out["oldest_pending_age"] = (
            max(0.0, now - min(r.created_at for r in pending)) if pending else None
        )
        out["dead_jobs"] = [
            {
                "id": r.id,
                "topic": r.topic,
                "key": r.key,
                "attempts": r.attempts,
                "last_error": r.last_error,
                "last_owner": r.lease_owner,
            }
            for r in rows
            if r.state == DEAD
        ][:dead_limit]
        return out

    def retry_dead(self, ids: Iterable[int] | None = None) -> int:
        wanted = None if ids is None else {int(i) for i in ids}
        n = 0
        with self._lock:
            now = self._clock()
            for row in self._rows.values():
                if row.state == DEAD and (wanted is None or row.id in wanted):
                    row.state, row.attempts, row.available_at, row.lease_until = (
                        PENDING,
                        0,
                        now,
                        None,
                    )
                    n += 1
        return n

    def purge_done(self, older_than_seconds: float) -> int:
        if older_than_seconds < 0:
            raise InvalidInput(f"older_than_seconds must be >= 0, got {older_than_seconds}")
        with self._lock:
            cutoff = self._clock() - older_than_seconds
            gone = [
                i for i, r in self._rows.items() if r.state == DONE and (r.done_at or 0) <= cutoff
            ]
            for i in gone:
                del self._rows[i]
        return len(gone)

    def forget(self, key_prefix: str = "") -> None:
        """Drop every job (``reset`` of the index it belongs to)."""
        with self._lock:
            self._rows = {
                i: r
                for i, r in self._rows.items()
                if key_prefix and not r.key.startswith(key_prefix)
            }

    def disconnect(self) -> None:
        return None

    def close(self) -> None:
        return None
