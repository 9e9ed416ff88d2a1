"""Workers that drain the index outbox, and the embedding handler.

Delivery is **at least once**, so **handlers must be idempotent**: a job may run again after a
crash, a lease expiry, or a batch retried job by job. The embedding handler stores vectors keyed
by document rowid, so running a job twice leaves one vector.

>>> from ogmemory.storage.inmemory import InMemoryQueue
>>> queue = InMemoryQueue()
>>> _ = queue.submit("embed", "doc-1", {"rowid": 1, "text": "hello"})
>>> seen = []
>>> Worker(queue, {"embed": seen.extend}, owner="w1").run_once()
1
>>> [job.key for job in seen], queue.status()["done"]
(['doc-1'], 1)
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Self

import numpy as np

from ..embed.base import Embedder
from ..errors import InvalidInput, StorageError
from ..storage.jobs import DEAD, Job, format_error, worker_name
from ..storage.protocols import IndexStore, JobQueue

__all__ = [
    "DRAIN_BATCH",
    "Handler",
    "Worker",
    "WorkerThread",
    "default_owner",
    "drain",
    "embedding_handler",
]

log = logging.getLogger(__name__)

#: A handler gets every claimed job of its topic in one call; it raises to fail them.
Handler = Callable[[list[Job]], None]


def default_owner(tag: str = "") -> str:
    """A worker name unique across machines, processes and threads: ``host:pid:[tag-]random``
    (a queue reads the host and pid back to hand on the jobs of a worker that died)."""
    return worker_name(tag)


class Worker:
    """Claims batches from a ``JobQueue`` and runs the handler registered for each topic.

    Delivery is at least once, so **handlers must be idempotent**: a job may run again after a
    crash, a lease expiry, or a batch retried job by job. If a handler raises for a batch, each
    job of that batch is retried alone, so one poison job fails by itself while the good ones
    complete. A job whose topic has no handler here fails with an error naming the topic (another
    worker that knows the topic may take it on the next attempt).

    >>> from ogmemory.storage.inmemory import InMemoryQueue
    >>> box = InMemoryQueue()
    >>> Worker(box, {"embed": lambda jobs: None}, owner="w").run_once()
    0
    """

    def __init__(
        self,
        jobs: JobQueue,
        handlers: Mapping[str, Handler],
        *,
        owner: str | None = None,
        batch: int = 32,
    ) -> None:
        if batch < 1:
            raise InvalidInput(f"batch must be >= 1, got {batch}")
        self.jobs = jobs
        self.handlers = dict(handlers)
        self.owner = owner or default_owner()
        self.batch = batch
        self.completed = 0
        self.failed = 0

    def run_once(self) -> int:
        """Claim one batch and process it; returns how many jobs were claimed (0: idle)."""
        jobs = self.jobs.claim(self.owner, self.batch)
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
                self._fail(
                    job,
                    f"no handler for topic {topic!r} in worker {self.owner} (it handles: {known})",
                )
            return
        # A handler is foreign code: any exception it raises is a job failure to record, never
        # a reason to stop the worker.
        try:
            handler(list(group))
        except Exception as exc:
            if len(group) == 1:
                self._fail(group[0], exc)
                return
            log.info(
                "outbox: %s batch of %d failed (%s); retrying job by job", topic, len(group), exc
            )
            for job in group:
                try:
                    handler([job])
                except Exception as one:
                    self._fail(job, one)
                else:
                    self.completed += self.jobs.complete(self.owner, [job.id])
        else:
            self.completed += self.jobs.complete(self.owner, [job.id for job in group])

    def _fail(self, job: Job, error: BaseException | str) -> None:
        state = self.jobs.fail(self.owner, job, error)
        self.failed += 1
        if state == DEAD:
            log.warning(
                "outbox: job %d (%s/%s) is dead after %d attempts: %s",
                job.id,
                job.topic,
                job.key,
                self.jobs.max_attempts,
                format_error(error)[:200],
            )

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
            except Exception as exc:
                log.warning("outbox worker %s: %s; retrying", self.owner, exc)
                claimed = 0
            if claimed == 0:
                stop.wait(poll)


class WorkerThread(threading.Thread):
    """A daemon thread running a ``Worker``: the default, in-process way to drain the outbox.

    Being a daemon, it never keeps the interpreter alive; jobs it leaves leased are taken over
    by the next worker once their lease expires.

    >>> from ogmemory.storage.inmemory import InMemoryQueue
    >>> box = InMemoryQueue()
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
            self.worker.jobs.disconnect()

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


#: Jobs a worker of a multi-worker ``drain`` claims at a time. A batch must finish within its
#: lease (30 s) however busy the machine, or another worker takes it over and embeds it again:
#: with 32 at a time, two workers at load 14 on two cores embedded 32 passages twice and left
#: 32 behind. Smaller batches cost nothing per passage (70-75 CPU ms a turn from 1 to 128).
DRAIN_BATCH = 8


def drain(
    jobs: JobQueue,
    handlers: Mapping[str, Handler],
    *,
    threads: int = 1,
    limit: int | None = None,
    on_batch: Callable[[int], None] | None = None,
    max_rounds: int = 100_000,
    batch: int | None = None,
) -> int:
    """Process the outbox in this process until no job is pending or leased (or ``limit`` jobs
    were claimed): ``threads`` workers at once, this thread one of them, each claiming its own
    batches (``batch`` jobs; default 32 for one worker, ``DRAIN_BATCH`` for several). What a
    one-shot command (``ogmem import``, ``reindex``, the demo) runs while the user waits;
    ``on_batch(n)`` is told after each batch (a progress bar). Jobs another worker holds, or
    that back off after a failure, are waited for. Returns the jobs claimed.

    >>> from ogmemory.storage.inmemory import InMemoryQueue
    >>> box = InMemoryQueue()
    >>> for i in range(5):
    ...     _ = box.submit("embed", f"doc-{i}", {"rowid": i, "text": "hi"})
    >>> drain(box, {"embed": lambda jobs: None}, threads=2, batch=2), box.status()["done"]
    (5, 5)
    """
    size = batch or (32 if threads <= 1 else DRAIN_BATCH)
    lock = threading.Lock()
    count = {"claimed": 0, "reserved": 0, "rounds": 0}

    def run(worker: Worker) -> None:
        while True:
            with lock:  # reserve this round's share of the limit before claiming it
                room = size if limit is None else min(size, limit - count["reserved"])
                if room <= 0 or count["rounds"] >= max_rounds:
                    return
                count["rounds"] += 1
                count["reserved"] += room
            worker.batch = room
            n = worker.run_once()
            with lock:
                count["reserved"] -= room - n
                count["claimed"] += n
                if n and on_batch is not None:
                    on_batch(n)
            if n == 0:
                status = jobs.status()
                if not status.get("pending") and not status.get("leased"):
                    return
                time.sleep(0.05)  # another worker holds leases (or a retry is backing off)

    def helper(i: int) -> None:
        try:
            run(Worker(jobs, handlers, owner=default_owner(f"drain{i}")))
        finally:
            jobs.disconnect()  # this thread's connection

    extra = [
        threading.Thread(target=helper, args=(i,), name=f"ogmem-drain-{i}", daemon=True)
        for i in range(1, max(1, threads))
    ]
    for thread in extra:
        thread.start()
    try:
        run(Worker(jobs, handlers, owner=default_owner("drain0")))
    finally:
        for thread in extra:
            thread.join()
    return count["claimed"]


def _embed_payload(job: Job) -> tuple[int, str]:
    p = job.payload
    if (
        isinstance(p, dict)
        and isinstance(p.get("rowid"), int)
        and not isinstance(p.get("rowid"), bool)
        and isinstance(p.get("text"), str)
    ):
        return p["rowid"], p["text"]
    raise InvalidInput(
        f"embed job {job.id} (key {job.key!r}): payload needs an integer "
        f"'rowid' and a string 'text', got {str(p)[:200]}"
    )


def embedding_handler(index: IndexStore, embedder: Embedder) -> Handler:
    """A handler for topic ``"embed"``: payload ``{"rowid": int, "text": str}`` → a vector.

    All texts of a batch are embedded in one ``encode`` call and stored in one
    ``put_vectors`` call (keyed by rowid, so idempotent). A job whose document is gone is
    completed without embedding anything: a document whose text changed has a new rowid and a
    job of its own, so the old job's text is stale (a session's overview changes with every
    turn, and one-shot hook calls leave a job per turn behind).
    """

    def handle(jobs: list[Job]) -> None:
        latest: dict[int, str] = {}
        for job in jobs:  # jobs come in id order: a later job for a rowid wins
            rowid, text = _embed_payload(job)
            latest[rowid] = text
        live = index.docs(latest) if latest else {}
        rowids = [r for r in latest if r in live]
        if not rowids:
            return
        vectors = np.asarray(embedder.encode([latest[r] for r in rowids]), dtype="<f4")
        if vectors.shape != (len(rowids), embedder.dim):
            raise StorageError(
                f"embedder {embedder.name} returned shape {vectors.shape}, "
                f"expected {(len(rowids), embedder.dim)}"
            )
        index.put_vectors(dict(zip(rowids, vectors, strict=True)))

    handle.__doc__ = f"Embed jobs with {embedder.name}."
    return handle
