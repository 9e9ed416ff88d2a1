"""The knowledge-store contract: every backend (files, memory; PostgreSQL next) passes these.

A batch becomes visible all at once when it commits; unchanged puts write nothing; the
operation log holds before/after; a rollback restores the exact before-state and is refused
when a later batch changed the same records; optimistic version checks; ``exclusive`` is one
holder at a time.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from ogmemory import Conflict, Edge, Entity, MemoryItem, NotFound, Provenance
from ogmemory.storage.inmemory import InMemoryKnowledgeStore
from ogmemory.storage.jsonl import JsonlKnowledgeStore
from ogmemory.storage.protocols import KnowledgeStore

Factory = Callable[[], KnowledgeStore]


@pytest.fixture(params=["files", "memory"])
def open_store(request: pytest.FixtureRequest, tmp_path: Path) -> Factory:
    """A function opening the store again (files: a fresh reader; memory: the same object)."""
    if request.param == "files":
        return lambda: JsonlKnowledgeStore(tmp_path / "memory")
    shared = InMemoryKnowledgeStore()
    return lambda: shared


def item(mid: str, text: str, version: int = 1) -> MemoryItem:
    return MemoryItem(id=mid, text=text, type="profile", version=version)


def edge(eid: str, fact: str) -> Edge:
    prov = Provenance("default", "s1", ("n1",), "abc", 1.0, 2.0)
    return Edge(
        id=eid,
        src="person.a",
        dst="tool.b",
        relation="uses",
        fact=fact,
        provenance=prov,
        event_time=1.0,
        ingestion_time=2.0,
        valid_from=1.0,
        support=("m1",),
    )


def test_typed_records_round_trip(open_store: Factory) -> None:
    store = open_store()
    b = store.begin("t")
    b.put(item("m1", "likes tea"))
    b.put(edge("e1", "A uses B"))
    b.put(Entity(id="person.a", type="person", name="A", aliases=("Ay",), support=("m1",)))
    assert b.commit() is not None
    again = open_store()
    again.refresh()
    assert again.get(MemoryItem, "m1") == item("m1", "likes tea")
    assert again.get(Edge, "e1") == edge("e1", "A uses B")
    found = again.get(Entity, "person.a")
    assert found is not None and found.aliases == ("Ay",)
    assert again.count(MemoryItem) == 1 and again.get(MemoryItem, "nope") is None


def test_batch_is_invisible_until_commit(open_store: Factory) -> None:
    store = open_store()
    b = store.begin("t")
    b.put(item("a", "one"))
    b.put(item("b", "two"))
    assert b.get(MemoryItem, "a") == item("a", "one")  # read-your-writes inside the batch
    assert store.all(MemoryItem) == [] and store.version == 0
    info = b.commit(cursor={"s": 1})
    assert info is not None and info.reason == "t"
    assert sorted(m.id for m in open_store().all(MemoryItem)) == ["a", "b"]
    assert store.last_meta("cursor") == {"s": 1} and store.version == 1


def test_versions_fold_and_unchanged_puts_write_nothing(open_store: Factory) -> None:
    store = open_store()
    for v in (1, 2, 3):
        b = store.begin("v")
        b.put(item("a", f"v{v}", v))
        b.commit()
    assert store.get(MemoryItem, "a") == item("a", "v3", 3)
    b = store.begin("same")
    b.put(item("a", "v3", 3))
    assert b.commit() is None
    assert len(store.batches()) == 3
    forced = store.begin("marker only")
    info = forced.commit(force_marker=True, cursor={"s": 9})
    assert info is not None and info.ops == () and store.last_meta("cursor") == {"s": 9}


def test_operation_log_has_before_and_after(open_store: Factory) -> None:
    store = open_store()
    b1 = store.begin("create")
    b1.put(item("a", "one"))
    b1.commit()
    b2 = store.begin("edit")
    b2.put(item("a", "two", 2))
    info = b2.commit()
    assert info is not None
    (op,) = info.ops
    assert (op.kind, op.id) == ("memory", "a")
    assert op.before is not None and op.before["text"] == "one"
    assert op.after is not None and op.after["text"] == "two"
    assert [b.id for b in open_store().batches()][-1] == info.id


def test_rollback_restores_exact_before_state(open_store: Factory) -> None:
    store = open_store()
    b1 = store.begin("first")
    b1.put(item("a", "one"))
    b1.commit()
    before = {m.id: m for m in store.all(MemoryItem)}
    b2 = store.begin("second")
    b2.put(item("a", "two", 2))
    b2.put(item("new", "fresh"))
    info = b2.commit()
    assert info is not None
    undo = store.rollback(info.id)
    assert undo.meta["rollback_of"] == info.id
    assert {m.id: m for m in store.all(MemoryItem)} == before
    assert {m.id: m for m in open_store().all(MemoryItem)} == before
    assert store.batch(info.id).rolled_back_by == undo.id
    with pytest.raises(Conflict, match="already rolled back"):
        store.rollback(info.id)
    with pytest.raises(Conflict, match="itself a rollback"):
        store.rollback(undo.id)
    with pytest.raises(NotFound):
        store.rollback("b_nope")


def test_rollback_refuses_when_a_later_batch_changed_the_records(open_store: Factory) -> None:
    store = open_store()
    b1 = store.begin("first")
    b1.put(item("a", "one"))
    first = b1.commit()
    b2 = store.begin("second")
    b2.put(item("a", "two", 2))
    b2.commit()
    assert first is not None
    with pytest.raises(Conflict, match="changed after"):
        store.rollback(first.id)
    assert store.get(MemoryItem, "a") == item("a", "two", 2)
    store.rollback(first.id, force=True)
    assert store.get(MemoryItem, "a") is None


def test_optimistic_version_check(open_store: Factory) -> None:
    store = open_store()
    b = store.begin("create")
    b.put(item("p", "A"), check_version=True, expect_version=None)
    b.commit()
    stale = store.begin("stale")
    stale.put(item("p", "B", 2), check_version=True, expect_version=1)
    winner = open_store().begin("winner")
    winner.put(item("p", "C", 2), check_version=True, expect_version=1)
    winner.commit()
    with pytest.raises(Conflict, match="version is 2, expected 1"):
        stale.commit()
    store.refresh()
    assert store.get(MemoryItem, "p") == item("p", "C", 2)


def test_records_that_are_not_json_are_refused_whole(open_store: Factory) -> None:
    store = open_store()
    b = store.begin("bad")
    b.put(item("ok", "fine"))
    b.put(MemoryItem(id="bad", text="x", type="profile", attrs={"when": object()}))
    with pytest.raises(Exception, match="JSON"):
        b.commit()
    assert open_store().all(MemoryItem) == [] and store.batches() == []


def test_exclusive_is_one_holder_at_a_time(open_store: Factory) -> None:
    store = open_store()
    inside: list[int] = []
    overlaps: list[bool] = []

    def hold(n: int) -> None:
        with store.exclusive("distill"):
            overlaps.append(bool(inside))
            inside.append(n)
            time.sleep(0.05)
            inside.remove(n)

    threads = [threading.Thread(target=hold, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert overlaps == [False] * 4


def test_listeners_hear_each_commit(open_store: Factory) -> None:
    store = open_store()
    heard: list[str] = []
    store.on_commit(lambda info: heard.append(info.reason))  # type: ignore[attr-defined]
    b = store.begin("one")
    b.put(item("a", "x"))
    b.commit()
    assert heard == ["one"]
