"""The job-queue contract (the index outbox): every backend passes these.

Leased claims, a lease that expires counting as a failed attempt, exponential backoff, the
dead-letter state and its revival, per-key order, and the worker's handling of poison jobs and
unknown topics.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ogmemory.errors import InvalidInput
from ogmemory.index.worker import Worker, WorkerThread
from ogmemory.storage.inmemory import InMemoryQueue
from ogmemory.storage.jobs import DEAD, DONE, PENDING, Job
from ogmemory.storage.protocols import JobQueue
from ogmemory.storage.sqlite_queue import Outbox

Make = Callable[..., JobQueue]


class Clock:
    """A wall clock the test moves by hand (starts a little ahead so new jobs are ready)."""

    def __init__(self) -> None:
        self.t = time.time() + 1.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture(params=["sqlite", "memory"])
def make(request: pytest.FixtureRequest, tmp_path: Path) -> Make:
    def build(**kwargs: Any) -> JobQueue:
        if request.param == "sqlite":
            return Outbox(tmp_path / "q.db", **kwargs)
        return InMemoryQueue(**kwargs)

    return build


def submit_many(box: JobQueue, n: int, topic: str = "work") -> list[str]:
    keys = [f"k{i:03d}" for i in range(n)]
    for i, key in enumerate(keys):
        box.submit(topic, key, {"n": i})
    return keys


def wait_for(predicate: Callable[[], bool], timeout: float = 25.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached before the deadline"
        time.sleep(0.02)


def test_submit_rejects_bad_input(make: Make) -> None:
    box = make()
    with pytest.raises(InvalidInput, match="JSON"):
        box.submit("embed", "k", {"vec": {1, 2}})
    with pytest.raises(InvalidInput):
        box.submit("", "k", {})
    with pytest.raises(InvalidInput):
        box.submit("embed", "", {})
    with pytest.raises(InvalidInput):
        make(max_attempts=0)


def test_claim_complete_and_status(make: Make) -> None:
    clock = Clock()
    box = make(lease_seconds=10, clock=clock)
    submit_many(box, 5)
    a = box.claim("A", 3)
    b = box.claim("B", 10)
    assert [j.key for j in a] == ["k000", "k001", "k002"]
    assert [j.key for j in b] == ["k003", "k004"]
    assert box.claim("C", 10) == []  # everything is leased
    st = box.status()
    assert (st["pending"], st["leased"], st["done"], st["dead"]) == (0, 5, 0, 0)
    assert box.complete("B", a) == 0  # not B's jobs
    assert box.complete("A", [j.id for j in a]) == 3
    assert box.complete("A", a) == 0  # already done
    assert box.complete("B", b) == 2
    st = box.status()
    assert (st["pending"], st["leased"], st["done"], st["total"]) == (0, 0, 5, 5)
    assert st["oldest_pending_age"] is None
    clock.t += 100
    assert box.purge_done(1000) == 0
    assert box.purge_done(50) == 5
    assert box.status()["total"] == 0
    box.close()


def test_expired_lease_is_reclaimed_and_counts_as_an_attempt(make: Make) -> None:
    clock = Clock()
    box = make(lease_seconds=10, max_attempts=2, clock=clock)
    submit_many(box, 1)
    [first] = box.claim("A", 10)
    assert box.claim("B", 10) == []
    clock.t += 11  # A died: its lease runs out
    [again] = box.claim("B", 10)
    assert (again.id, again.attempts) == (first.id, 1)
    assert box.complete("A", [first.id]) == 0  # a late A no longer owns it
    assert box.fail("A", first, "late") is None
    clock.t += 11  # B dies too: the second expiry reaches max_attempts
    assert box.claim("C", 10) == []
    [dead] = box.status()["dead_jobs"]
    assert dead["key"] == "k000" and "expired" in dead["last_error"]
    assert dead["last_owner"] == "B"


def test_fail_backs_off_then_goes_dead(make: Make) -> None:
    clock = Clock()
    box = make(max_attempts=3, backoff_base=2.0, clock=clock)
    submit_many(box, 1)
    [job] = box.claim("A", 1)
    assert box.fail("A", job, ValueError("bad text")) == PENDING
    assert box.claim("A", 1) == []  # backing off for 2 s
    assert box.status()["ready"] == 0
    clock.t += 2.0
    [job] = box.claim("A", 1)
    assert job.attempts == 1
    assert box.fail("A", job, "again") == PENDING
    clock.t += 3.9
    assert box.claim("A", 1) == []  # second backoff is 4 s
    clock.t += 0.1
    [job] = box.claim("A", 1)
    assert box.fail("A", job, RuntimeError("third strike")) == DEAD
    clock.t += 1000
    assert box.claim("A", 1) == []
    [dead] = box.status()["dead_jobs"]
    assert dead["attempts"] == 3
    assert dead["last_error"].startswith("RuntimeError: third strike")


def test_jobs_with_the_same_key_run_in_order_one_at_a_time(make: Make) -> None:
    box = make()
    box.submit("embed", "doc", {"v": 1})
    box.submit("embed", "other", {"v": 1})
    box.submit("embed", "doc", {"v": 2})
    first = box.claim("A", 10)
    assert [(j.key, j.payload["v"]) for j in first] == [("doc", 1), ("other", 1)]
    assert box.claim("B", 10) == []  # doc v2 waits for doc v1
    box.complete("A", first)
    [second] = box.claim("B", 10)
    assert (second.key, second.payload["v"]) == ("doc", 2)


def test_poison_job_goes_dead_alone_and_retry_dead_revives_it(make: Make) -> None:
    box = make(max_attempts=3, backoff_base=0.0)
    keys = submit_many(box, 20)
    effect: dict[str, int] = {}
    healed = [False]

    def handler(jobs: list[Job]) -> None:
        if not healed[0] and any(j.key == "k007" for j in jobs):
            raise ValueError("cannot digest k007")
        effect.update({j.key: j.payload["n"] for j in jobs})

    worker = Worker(box, {"work": handler}, owner="w", batch=8)
    worker.run_until_idle()
    st = box.status()
    assert (st["done"], st["dead"], st["pending"], st["leased"]) == (19, 1, 0, 0)
    [dead] = st["dead_jobs"]
    assert (dead["key"], dead["attempts"]) == ("k007", 3)
    assert "ValueError: cannot digest k007" in dead["last_error"]
    assert set(effect) == set(keys) - {"k007"}
    assert box.retry_dead([12345]) == 0
    assert box.retry_dead() == 1
    assert box.status()["pending"] == 1
    healed[0] = True
    assert worker.run_until_idle() == 1
    st = box.status()
    assert (st["done"], st["dead"]) == (20, 0) and set(effect) == set(keys)


def test_unknown_topic_fails_with_a_clear_error(make: Make) -> None:
    box = make(max_attempts=2, backoff_base=0.0)
    box.submit("mystery", "m1", {})
    submit_many(box, 2)
    Worker(box, {"work": lambda jobs: None}, owner="w").run_until_idle()
    st = box.status()
    assert (st["done"], st["dead"]) == (2, 1)
    [dead] = st["dead_jobs"]
    assert dead["key"] == "m1"
    assert "no handler for topic 'mystery'" in dead["last_error"]
    assert "work" in dead["last_error"]


def test_worker_thread_drains_in_process(make: Make) -> None:
    box = make()
    seen: list[str] = []
    worker = Worker(
        box, {"work": lambda jobs: seen.extend(j.key for j in jobs)}, owner="t", batch=4
    )
    with WorkerThread(worker, poll=0.02) as thread:
        assert thread.daemon
        submit_many(box, 10)  # arrives while the thread is polling
        wait_for(lambda: box.status()["done"] == 10)
    assert not thread.is_alive()
    assert sorted(seen) == [f"k{i:03d}" for i in range(10)]
    assert DONE == "done"
