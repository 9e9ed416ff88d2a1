"""The index-store contract: every backend (SQLite, memory; PostgreSQL next) passes these.

Documents at three levels with full text (words, and single CJK characters), their tree
(children, a session's window of turns), cursors in meta, embedding jobs written with the
documents, vectors that never revive a deleted document, a dense top-k, and ``reset``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from ogmemory.embed import make_embedder
from ogmemory.index.docs import Doc, session_doc_id, turn_doc_id
from ogmemory.index.worker import Worker, embedding_handler
from ogmemory.storage.inmemory_index import InMemoryIndexStore
from ogmemory.storage.protocols import IndexStore
from ogmemory.storage.sqlite_index import SqliteIndexStore

Open = Callable[..., IndexStore]


@pytest.fixture(params=["sqlite", "memory"])
def open_index(request: pytest.FixtureRequest, tmp_path: Path) -> Open:
    def build(embedder_name: str | None = None) -> IndexStore:
        if request.param == "sqlite":
            return SqliteIndexStore(tmp_path / "index.sqlite", embedder_name=embedder_name)
        return InMemoryIndexStore(embedder_name=embedder_name)

    return build


def turn(sid: str, seq: int, text: str, when: float = 1000.0) -> Doc:
    return Doc(
        id=turn_doc_id(sid, f"n{seq}"),
        kind="turn",
        level=2,
        text=text,
        parent=session_doc_id(sid, 1),
        session_id=sid,
        seq=seq,
        event_time=when + seq,
        node_ids=(f"n{seq}",),
        cites=(f"n{seq}",),
        prov={"speaker": "user"},
    )


def fact(fid: str, text: str, ends: tuple[str, str]) -> Doc:
    return Doc(
        id=f"edge:{fid}",
        kind="fact",
        level=0,
        text=text,
        event_time=5.0,
        support=("m1",),
        prov={"entities": list(ends)},
    )


def test_write_read_and_upsert(open_index: Open) -> None:
    idx = open_index()
    assert (
        idx.write(
            [turn("s1", 1, "We deploy with Kubernetes."), turn("s1", 2, "ok")],
            meta={"turn_cursor": {"s1": 2}},
        )
        == 2
    )
    assert idx.count() == 2 and idx.count("turn") == 2 and idx.count("fact") == 0
    assert idx.get_meta("turn_cursor") == {"s1": 2} and idx.get_meta("nope", 7) == 7
    found = idx.docs_by_id([turn_doc_id("s1", "n1")])
    doc = found[turn_doc_id("s1", "n1")]
    assert doc.text == "We deploy with Kubernetes." and doc.rowid is not None
    assert idx.docs([doc.rowid])[doc.rowid].id == doc.id
    # the same text again is an update in place (no new document, no new job)
    assert idx.write([turn("s1", 1, "We deploy with Kubernetes.")]) == 0
    # a changed text is a new document under the same id
    assert idx.write([turn("s1", 1, "We deploy with Nomad.")]) == 1
    assert idx.count() == 2
    assert idx.docs_by_id([doc.id])[doc.id].text == "We deploy with Nomad."
    idx.write([], deletes=[doc.id])
    assert idx.docs_by_id([doc.id]) == {} and idx.count() == 1


def test_text_search_ranks_words_and_cjk_characters(open_index: Open) -> None:
    idx = open_index()
    idx.write(
        [
            turn("s1", 1, "The database is PostgreSQL, not MySQL."),
            turn("s1", 2, "Lunch was a sandwich."),
            turn("s1", 3, "PostgreSQL PostgreSQL replication lag again."),
            turn("s1", 4, "我喜欢喝绿茶。"),
        ]
    )
    hits = idx.text_search(["postgresql"], [], 10)
    ids = {r: d.id for r, d in idx.docs([r for r, _ in hits]).items()}
    ranked = [ids[r] for r, _ in hits]
    assert set(ranked) == {turn_doc_id("s1", "n1"), turn_doc_id("s1", "n3")}
    assert all(a[1] >= b[1] for a, b in itertools.pairwise(hits))  # best first
    chinese = idx.text_search([], ["茶"], 10)
    assert [idx.docs([r])[r].id for r, _ in chinese] == [turn_doc_id("s1", "n4")]
    assert idx.text_search([], [], 10) == [] and idx.text_search(["zzz"], [], 10) == []
    shares = idx.word_shares(["postgresql", "zzz"])
    assert shares == {"postgresql": 0.5, "zzz": 0.0}


def test_tree_window_latest_and_entity_facts(open_index: Open) -> None:
    idx = open_index()
    idx.write(
        [turn("s1", i, f"message {i}") for i in range(1, 8)]
        + [
            turn("s2", 1, "other session", when=9000.0),
            fact("e1", "Ann uses Rust", ("person.ann", "tool.rust")),
            fact("e2", "Ann likes tea", ("person.ann", "concept.tea")),
        ]
    )
    kids = idx.children(session_doc_id("s1", 1))
    assert [d.seq for d in kids] == [1, 2, 3, 4, 5, 6, 7]
    assert [i for _, i in idx.child_refs(session_doc_id("s1", 1), limit=3)] == [
        turn_doc_id("s1", f"n{i}") for i in (1, 2, 3)
    ]
    assert idx.window_ids("s1", 4, 2, 1) == [turn_doc_id("s1", f"n{i}") for i in (2, 3, 4, 5)]
    assert idx.window_ids("s1", 99, 2, 2) == []
    assert [d.id for d in idx.latest(2, ["turn"])] == [
        turn_doc_id("s2", "n1"),
        turn_doc_id("s1", "n7"),
    ]
    assert idx.latest_event_time() == 9001.0
    assert idx.entity_facts("person.ann") == ["edge:e1", "edge:e2"]
    assert idx.entity_facts("tool.rust") == ["edge:e1"]
    idx.write([], deletes=["edge:e1"])
    assert idx.entity_facts("tool.rust") == []


def test_in_period_answers_what_happened_then_most_important_first(open_index: Open) -> None:
    from dataclasses import replace

    idx = open_index()
    idx.write(
        [turn("s1", i, f"message {i}", when=100.0) for i in range(1, 6)]
        + [
            replace(turn("s1", 9, "important", when=100.0), importance=0.9),
            fact("e1", "Ann uses Rust", ("person.ann", "tool.rust")),  # happened at 5.0
        ]
    )
    got = idx.in_period(102.0, 106.0, ["turn"], 10)
    assert [d.seq for d in got] == [2, 3, 4, 5]  # [start, end): 106 is not in it
    got = idx.in_period(0.0, 1000.0, ["turn", "fact"], 3)
    assert [d.id for d in got] == [turn_doc_id("s1", "n9"), "edge:e1", turn_doc_id("s1", "n1")]
    assert idx.in_period(0.0, 1000.0, ["event"], 10) == []
    # an entity's time is when it was learned: not the newest thing that happened
    idx.write([Doc(id="entity:ann", kind="entity", level=0, text="Ann", event_time=9e9)])
    assert idx.latest_event_time() == 109.0


def test_writes_queue_embeddings_and_vectors_never_revive_deleted_docs(open_index: Open) -> None:
    idx = open_index("test-embedder")
    idx.write([turn("s1", 1, "alpha"), turn("s1", 2, "beta")])
    jobs = idx.jobs.claim("w", 10)
    assert sorted(j.payload["text"] for j in jobs) == ["alpha", "beta"]
    rowid = {j.payload["text"]: j.payload["rowid"] for j in jobs}
    idx.write([], deletes=[turn_doc_id("s1", "n2")])
    stored = idx.put_vectors(
        {
            rowid["alpha"]: np.array([1.0, 0.0], dtype=np.float32),
            rowid["beta"]: np.array([0.0, 1.0], dtype=np.float32),
        }
    )
    assert stored == 1 and idx.vector_count() == 1
    assert idx.dense(np.array([0.6, 0.8], dtype=np.float32), 5) == [
        (rowid["alpha"], pytest.approx(0.6))
    ]
    assert list(idx.vectors([rowid["alpha"], rowid["beta"]])) == [rowid["alpha"]]


def test_equal_scores_rank_in_rowid_order_whatever_order_vectors_arrived(
    open_index: Open,
) -> None:
    # A statement repeated in several sessions gives identical texts, so identical vectors:
    # an index whose embedding jobs completed in another order (a worker killed mid-batch,
    # its jobs reclaimed after the lease) must rank them as one rebuilt without interruption.
    idx = open_index("test-embedder")
    idx.write([turn("s1", i, f"the same statement {i % 2}") for i in range(1, 9)])
    rowids = sorted(j.payload["rowid"] for j in idx.jobs.claim("w", 10))
    same, other = np.array([0.6, 0.8], dtype=np.float32), np.array([1.0, 0.0], dtype=np.float32)
    for r in reversed(rowids):  # the newest vector arrives first
        idx.put_vectors({r: same if r != rowids[-1] else other})
    top = idx.dense(np.array([0.6, 0.8], dtype=np.float32), 3)
    assert [r for r, _ in top] == rowids[:3]
    assert [r for r, _ in idx.dense(np.array([0.0, 1.0], dtype=np.float32), 8)] == [
        *rowids[:-1],
        rowids[-1],
    ]


def test_reset_drops_documents_vectors_and_jobs(open_index: Open) -> None:
    idx = open_index("test-embedder")
    idx.write([turn("s1", 1, "alpha")], meta={"turn_cursor": {"s1": 1}})
    [job] = idx.jobs.claim("w", 10)
    idx.put_vectors({job.payload["rowid"]: np.array([1.0, 0.0], dtype=np.float32)})
    idx.reset()
    assert idx.count() == 0 and idx.vector_count() == 0
    assert idx.get_meta("turn_cursor") is None
    assert idx.jobs.status()["total"] == 0
    assert idx.dense(np.array([1.0, 0.0], dtype=np.float32), 5) == []
    idx.write([turn("s1", 1, "alpha again")])
    assert idx.count() == 1


def test_embedding_worker_fills_the_dense_index(open_index: Open) -> None:
    emb = make_embedder("use")
    assert emb is not None
    idx = open_index(emb.name)
    texts = [
        "The cat sleeps on the sofa.",
        "A kitten naps on the couch.",
        "Quarterly stock market report.",
        "我喜欢喝绿茶。",
    ]
    idx.write([turn("s1", i + 1, t) for i, t in enumerate(texts)])
    Worker(idx.jobs, {"embed": embedding_handler(idx, emb)}, owner="w").run_until_idle()
    assert idx.vector_count() == len(texts)
    query = emb.encode(["a small cat is sleeping"])[0]
    [(best, score), *_] = idx.dense(query, 2)
    assert idx.docs([best])[best].text in texts[:2] and score > 0.3
