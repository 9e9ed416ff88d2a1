"""The outbox (durable index-work queue) and the embedders, on real SQLite files and processes.

Worker processes are real ``python`` subprocesses running ``WORKER_SRC``; their handler records
every application in ``applied(job_key, owner)`` and upserts the job's *effect* into
``effect(job_key, value)``, which is what an idempotent handler looks like.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from ogmemory.embed import E5Embedder, Embedder, USEEmbedder, make_embedder
from ogmemory.errors import InvalidInput
from ogmemory.index.worker import Worker
from ogmemory.storage.jobs import DONE, Job
from ogmemory.storage.sqlite import connect, transaction
from ogmemory.storage.sqlite_queue import Outbox

SRC = str(Path(__file__).resolve().parents[1] / "src")

WORKER_SRC = r"""
import json, sys, time
from pathlib import Path
from ogmemory.index.worker import Worker
from ogmemory.storage.jobs import worker_name
from ogmemory.storage.sqlite import connect, transaction
from ogmemory.storage.sqlite_queue import Outbox

db, owner, cfg = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
if cfg.get("named"):  # host:pid:owner-random, as real workers are named
    owner = worker_name(owner)
box = Outbox(db, lease_seconds=cfg["lease"], max_attempts=5, backoff_base=0.01)
conn = connect(db)
applied = 0

def handler(jobs):
    global applied
    for job in jobs:
        with transaction(conn):
            conn.execute("INSERT INTO applied(job_key, owner) VALUES (?, ?)", (job.key, owner))
            conn.execute("INSERT OR REPLACE INTO effect(job_key, value) VALUES (?, ?)",
                         (job.key, job.payload["n"]))
        applied += 1
        if cfg.get("stall_after") is not None and applied >= cfg["stall_after"]:
            time.sleep(3600)  # hang mid-batch until the test kills us
    time.sleep(cfg.get("batch_sleep", 0))

if cfg.get("barrier"):  # start together with the other workers
    Path(cfg["barrier"], "ready-" + owner).touch()
    while not Path(cfg["barrier"], "go").exists():
        time.sleep(0.01)

worker = Worker(box, {"work": handler}, owner=owner, batch=cfg["batch"])
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    if worker.run_once() == 0:
        st = box.status(dead_limit=0)
        if st["pending"] == 0 and st["leased"] == 0:
            sys.exit(0)
        time.sleep(0.05)
sys.exit(3)
"""


# ---------------------------------------------------------------------------- helpers


class Clock:
    """A wall clock the test moves by hand (starts a little ahead so new jobs are ready)."""

    def __init__(self) -> None:
        self.t = time.time() + 1.0

    def __call__(self) -> float:
        return self.t


def wait_for(predicate: Callable[[], bool], timeout: float = 25.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached before the deadline"
        time.sleep(0.02)


def make_queue_db(path: Path) -> Path:
    conn = connect(path)
    with transaction(conn):
        Outbox.ensure_schema(conn)
        conn.execute("CREATE TABLE applied(job_key TEXT NOT NULL, owner TEXT NOT NULL)")
        conn.execute("CREATE TABLE effect(job_key TEXT PRIMARY KEY, value INTEGER NOT NULL)")
    conn.close()
    return path


def enqueue_many(path: Path, n: int, topic: str = "work") -> list[str]:
    keys = [f"k{i:03d}" for i in range(n)]
    conn = connect(path)
    with transaction(conn):
        for i, key in enumerate(keys):
            Outbox.enqueue(conn, topic, key, {"n": i})
    conn.close()
    return keys


def query(path: Path, sql: str, *args: object) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


def states(path: Path) -> dict[str, str]:
    return {str(k): str(s) for k, s in query(path, "SELECT key, state FROM outbox")}


def spawn_worker(db: Path, owner: str, **cfg: object) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.Popen(
        [sys.executable, "-c", WORKER_SRC, str(db), owner, json.dumps(cfg)], env=env
    )


@pytest.fixture
def procs() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for proc in started:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def effect_handler(db: Path, owner: str) -> Callable[[list[Job]], None]:
    conn = connect(db)

    def handle(jobs: list[Job]) -> None:
        with transaction(conn):
            for job in jobs:
                conn.execute("INSERT INTO applied(job_key, owner) VALUES (?, ?)", (job.key, owner))
                conn.execute(
                    "INSERT OR REPLACE INTO effect(job_key, value) VALUES (?, ?)",
                    (job.key, job.payload["n"]),
                )

    return handle


# ---------------------------------------------------------------------------- enqueue


def test_enqueue_commits_and_rolls_back_with_the_callers_transaction(tmp_path: Path) -> None:
    db = tmp_path / "index.db"
    box = Outbox(db)
    conn = connect(db)
    conn.execute("CREATE TABLE docs(id INTEGER PRIMARY KEY, text TEXT)")

    conn.execute("BEGIN IMMEDIATE")
    cur = conn.execute("INSERT INTO docs(text) VALUES ('lost')")
    Outbox.enqueue(conn, "embed", "doc-lost", {"rowid": cur.lastrowid, "text": "lost"})
    conn.execute("ROLLBACK")
    assert query(db, "SELECT count(*) FROM outbox") == [(0,)]
    assert query(db, "SELECT count(*) FROM docs") == [(0,)]

    # A plain sqlite3 connection in its default mode: ``with conn`` commits or rolls back.
    legacy = sqlite3.connect(db)
    with pytest.raises(RuntimeError), legacy:
        legacy.execute("INSERT INTO docs(text) VALUES ('also lost')")
        Outbox.enqueue(legacy, "embed", "doc-x", {"rowid": 99, "text": "also lost"})
        raise RuntimeError("the caller's write failed after enqueue")
    assert query(db, "SELECT count(*) FROM outbox") == [(0,)]

    with legacy:
        rowid = legacy.execute("INSERT INTO docs(text) VALUES ('kept')").lastrowid
        Outbox.enqueue(legacy, "embed", "doc-kept", {"rowid": rowid, "text": "kept"})
    legacy.close()
    [job] = box.claim("w", 10)
    assert (job.topic, job.key, job.payload) == (
        "embed",
        "doc-kept",
        {"rowid": rowid, "text": "kept"},
    )
    assert query(db, "SELECT count(*) FROM docs") == [(1,)]


def test_enqueue_rejects_bad_input(tmp_path: Path) -> None:
    conn = connect(tmp_path / "q.db")
    Outbox.ensure_schema(conn)
    with pytest.raises(InvalidInput, match="not JSON"):
        Outbox.enqueue(conn, "embed", "k", {"vec": {1, 2}})
    with pytest.raises(InvalidInput, match="topic"):
        Outbox.enqueue(conn, "", "k", {})
    with pytest.raises(InvalidInput, match="key"):
        Outbox.enqueue(conn, "embed", "", {})
    with pytest.raises(InvalidInput):
        Outbox(tmp_path / "q.db", max_attempts=0)


# ---------------------------------------------------------------------------- claim / complete


# ---------------------------------------------------------------------------- workers


def test_at_least_once_when_a_worker_process_is_killed_mid_batch(
    tmp_path: Path, procs: list[subprocess.Popen[bytes]]
) -> None:
    db = make_queue_db(tmp_path / "q.db")
    keys = enqueue_many(db, 20)

    doomed = spawn_worker(db, "doomed", lease=1.0, batch=8, stall_after=4)
    procs.append(doomed)
    wait_for(lambda: query(db, "SELECT count(*) FROM applied") == [(4,)])
    doomed.send_signal(signal.SIGKILL)
    assert doomed.wait(timeout=10) == -signal.SIGKILL
    half_done = {str(k) for (k,) in query(db, "SELECT job_key FROM applied")}
    assert len(half_done) == 4
    assert list(states(db).values()).count("leased") == 8  # its whole batch, uncompleted

    rescuer = spawn_worker(db, "rescuer", lease=1.0, batch=8)
    procs.append(rescuer)
    assert rescuer.wait(timeout=40) == 0

    assert set(states(db).values()) == {DONE}  # none lost
    assert query(db, "SELECT count(*), count(DISTINCT job_key) FROM effect") == [(20, 20)]
    assert {str(k) for (k,) in query(db, "SELECT job_key FROM effect")} == set(keys)
    rescued = query(db, "SELECT job_key FROM applied WHERE owner='rescuer'")
    assert sorted(str(k) for (k,) in rescued) == keys  # every job ran once in the rescuer
    # the doomed batch came back after its lease expired, one attempt spent
    retried = query(
        db, "SELECT count(*) FROM outbox WHERE attempts = 1 AND last_error LIKE '%doomed%expired%'"
    )
    assert retried == [(8,)]


def test_jobs_of_a_killed_worker_process_are_handed_on_without_waiting_for_its_lease(
    tmp_path: Path, procs: list[subprocess.Popen[bytes]]
) -> None:
    db = make_queue_db(tmp_path / "q.db")
    keys = enqueue_many(db, 20)
    doomed = spawn_worker(db, "doomed", lease=600.0, batch=8, stall_after=4, named=True)
    procs.append(doomed)
    wait_for(lambda: query(db, "SELECT count(*) FROM applied") == [(4,)])
    doomed.send_signal(signal.SIGKILL)
    assert doomed.wait(timeout=10) == -signal.SIGKILL
    assert list(states(db).values()).count("leased") == 8  # leased for ten more minutes

    box = Outbox(db, lease_seconds=600.0)
    rescuer = Worker(box, {"work": effect_handler(db, "rescuer")}, owner="rescuer")
    assert rescuer.run_until_idle() == 20  # the dead worker's 8 too, at once
    assert set(states(db).values()) == {DONE}
    rescued = query(db, "SELECT job_key FROM applied WHERE owner='rescuer'")
    assert sorted(str(k) for (k,) in rescued) == keys  # each job once more, none lost
    assert query(db, "SELECT count(*) FROM effect") == [(20,)]
    retried = query(
        db, "SELECT count(*) FROM outbox WHERE attempts = 1 AND last_error LIKE '%doomed-%'"
    )
    assert retried == [(8,)]  # handed on as a failed attempt, naming the dead worker
    box.close()


def test_a_live_worker_process_keeps_its_leases(
    tmp_path: Path, procs: list[subprocess.Popen[bytes]]
) -> None:
    db = make_queue_db(tmp_path / "q.db")
    enqueue_many(db, 20)
    busy = spawn_worker(db, "busy", lease=600.0, batch=8, stall_after=1, named=True)
    procs.append(busy)
    wait_for(lambda: query(db, "SELECT count(*) FROM applied") == [(1,)])
    box = Outbox(db, lease_seconds=600.0)
    taken = box.claim("other", limit=100)
    assert len(taken) == 12  # the 12 nobody held; the busy worker's 8 stay with it
    owners = query(
        db,
        "SELECT DISTINCT lease_owner FROM outbox WHERE key NOT IN "
        f"({','.join(repr(j.key) for j in taken)})",
    )
    assert [str(o).split(":")[2].startswith("busy-") for (o,) in owners] == [True]
    box.close()


def test_concurrent_worker_processes_never_run_a_job_twice(
    tmp_path: Path, procs: list[subprocess.Popen[bytes]]
) -> None:
    db = make_queue_db(tmp_path / "q.db")
    keys = enqueue_many(db, 300)
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    owners = ["p1", "p2", "p3"]
    for owner in owners:
        procs.append(
            spawn_worker(db, owner, lease=60.0, batch=10, batch_sleep=0.01, barrier=str(barrier))
        )
    wait_for(lambda: len(list(barrier.glob("ready-*"))) == 3)
    (barrier / "go").touch()
    assert [p.wait(timeout=60) for p in procs] == [0, 0, 0]

    applied = query(db, "SELECT job_key, owner FROM applied")
    assert len(applied) == 300
    assert sorted(str(k) for k, _ in applied) == keys  # each key exactly once
    assert len({o for _, o in applied}) >= 2  # the work really was shared
    assert set(states(db).values()) == {DONE}
    assert query(db, "SELECT count(*) FROM outbox WHERE attempts > 0") == [(0,)]


# ---------------------------------------------------------------------------- embedders


@pytest.fixture(scope="module")
def use() -> USEEmbedder:
    return USEEmbedder()


def test_make_embedder() -> None:
    assert make_embedder("none") is None
    assert make_embedder(None) is None
    emb = make_embedder("USE")
    assert isinstance(emb, USEEmbedder) and isinstance(emb, Embedder)
    assert (emb.name, emb.dim) == ("use-multilingual-v3", 512)
    e5 = make_embedder()
    assert isinstance(e5, E5Embedder) and isinstance(e5, Embedder)
    assert (e5.name, e5.dim) == ("multilingual-e5-small-q4", 384)
    assert isinstance(make_embedder("multilingual-e5-small-q4"), E5Embedder)
    with pytest.raises(InvalidInput, match=r"unknown embedder 'word2vec'.*'e5', 'use', 'none'"):
        make_embedder("word2vec")


def test_e5_embeds_queries_and_passages_apart_and_ranks_the_paraphrase_first() -> None:
    e5 = E5Embedder(batch_size=2)
    assert e5.encode([]).shape == (0, 384) and "not loaded" in repr(e5)
    passages = [
        "Melanie signed up for a pottery class; working with clay calms her.",
        "The quarterly report is due on Friday.",
        "我每天早上喝绿茶。",
        "Caroline moved here from Sweden four years ago.",
    ]
    docs = e5.encode(passages)  # 4 texts → chunks of 2
    assert docs.dtype == np.float32 and docs.shape == (4, 384)
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-5)
    assert np.allclose(docs, E5Embedder().encode(passages), atol=1e-4)  # chunking changes nothing
    query = e5.encode_query(["What does Melanie do to relax?"])[0]
    passage_form = e5.encode(["What does Melanie do to relax?"])[0]
    assert not np.allclose(query, passage_form, atol=1e-3)  # the "query: " prefix is applied
    assert int(np.argmax(docs @ query)) == 0
    assert int(np.argmax(docs @ e5.encode_query(["早上喝什么茶"])[0])) == 2  # Chinese too
    results: list[np.ndarray] = []
    threads = [
        threading.Thread(target=lambda: results.append(e5.encode(passages))) for _ in range(3)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 3 and all(np.allclose(r, docs, atol=1e-4) for r in results)
    with pytest.raises(InvalidInput, match="not a single string"):
        e5.encode_query("a bare string")


def test_use_embedder_is_lazy_thread_safe_and_chunked(use: USEEmbedder) -> None:
    texts = [
        f"note number {i} about {topic}"
        for i, topic in enumerate(["cats", "databases", "猫", "travel", "music", "queues", "tea"])
    ]
    expected = use.encode(texts)
    assert expected.dtype == np.float32 and expected.shape == (7, 512)
    assert np.allclose(np.linalg.norm(expected, axis=1), 1.0, atol=1e-5)

    fresh = USEEmbedder(batch_size=3)  # 7 texts → chunks of 3, 3, 1
    assert fresh.encode([]).shape == (0, 512)
    assert "not loaded" in repr(fresh)  # the empty call did not load the model
    results: list[np.ndarray] = []
    threads = [
        threading.Thread(target=lambda: results.append(fresh.encode(texts))) for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 4
    for got in results:
        assert np.allclose(got, expected, atol=1e-4)
    with pytest.raises(InvalidInput, match="not a single string"):
        use.encode("a bare string")
    with pytest.raises(InvalidInput, match="not a str"):
        use.encode(["ok", 3])  # type: ignore[list-item]
