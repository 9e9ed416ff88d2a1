"""The append-only batch log: atomic visibility, torn lines, rollback, optimistic versions."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path
from typing import Any

import pytest

from ogmemory import Conflict, NotFound
from ogmemory.knowledge.logstore import MARKERS, LogStore
from ogmemory.knowledge.store import KnowledgeBase


def route(kind: str, record: dict[str, Any]) -> str:
    return f"{kind}.jsonl"


def test_batch_visible_only_with_its_marker(tmp_path: Path) -> None:
    store = LogStore(tmp_path, route)
    batch = store.begin("t")
    batch.put("thing", {"id": "a", "v": 1})
    batch.put("thing", {"id": "b", "v": 1})
    # Lines written by hand without a marker (as a crashed writer leaves them) stay invisible.
    (tmp_path / "thing.jsonl").write_text(
        json.dumps({"id": "x", "_batch": "b_orphan", "_kind": "thing"}) + "\n")
    assert LogStore(tmp_path, route).all("thing") == []
    info = batch.commit(cursor={"s": 1})
    assert info is not None and info.reason == "t"
    fresh = LogStore(tmp_path, route)
    assert sorted(r["id"] for r in fresh.all("thing")) == ["a", "b"]
    assert fresh.last_meta("cursor") == {"s": 1}


def test_torn_last_line_is_skipped_and_repaired(tmp_path: Path) -> None:
    store = LogStore(tmp_path, route)
    b = store.begin("one")
    b.put("thing", {"id": "a", "v": 1})
    b.commit()
    with open(tmp_path / "thing.jsonl", "ab") as fh:
        fh.write(b'{"id": "torn", "_batch": "b_x", "_ki')  # a writer died mid-line
    with open(tmp_path / MARKERS, "ab") as fh:
        fh.write(b'{"batch": "b_x", "ti')
    reader = LogStore(tmp_path, route)
    assert [r["id"] for r in reader.all("thing")] == ["a"]
    b2 = reader.begin("two")
    b2.put("thing", {"id": "c", "v": 1})
    b2.commit()
    lines = (tmp_path / "thing.jsonl").read_text().splitlines()
    assert all(json.loads(line) for line in lines)  # the torn tail was cut before appending
    assert sorted(r["id"] for r in LogStore(tmp_path, route).all("thing")) == ["a", "c"]
    assert len(LogStore(tmp_path, route).batches()) == 2


def test_versions_fold_and_unchanged_puts_write_nothing(tmp_path: Path) -> None:
    store = LogStore(tmp_path, route)
    for v in (1, 2, 3):
        b = store.begin("v")
        b.put("thing", {"id": "a", "v": v})
        b.commit()
    assert store.get("thing", "a") == {"id": "a", "v": 3}
    b = store.begin("same")
    b.put("thing", {"id": "a", "v": 3})
    assert b.commit() is None
    assert len(store.batches()) == 3


def test_rollback_restores_exact_before_state_by_appending(tmp_path: Path) -> None:
    store = LogStore(tmp_path, route)
    b1 = store.begin("first")
    b1.put("thing", {"id": "a", "v": 1})
    b1.commit()
    before = {r["id"]: r for r in store.all("thing")}
    b2 = store.begin("second")
    b2.put("thing", {"id": "a", "v": 2})
    b2.put("thing", {"id": "new", "v": 1})
    info = b2.commit()
    assert info is not None
    size = (tmp_path / "thing.jsonl").stat().st_size
    undo = store.rollback(info.id)
    assert undo.meta["rollback_of"] == info.id
    assert {r["id"]: r for r in store.all("thing")} == before
    assert (tmp_path / "thing.jsonl").stat().st_size > size  # appended, history kept
    assert {r["id"]: r for r in LogStore(tmp_path, route).all("thing")} == before
    with pytest.raises(Conflict, match="already rolled back"):
        store.rollback(info.id)
    with pytest.raises(NotFound):
        store.rollback("b_nope")


def test_rollback_refuses_when_a_later_batch_changed_the_records(tmp_path: Path) -> None:
    store = LogStore(tmp_path, route)
    b1 = store.begin("first")
    b1.put("thing", {"id": "a", "v": 1})
    first = b1.commit()
    b2 = store.begin("second")
    b2.put("thing", {"id": "a", "v": 2})
    b2.commit()
    assert first is not None
    with pytest.raises(Conflict, match="changed after"):
        store.rollback(first.id)
    assert store.get("thing", "a") == {"id": "a", "v": 2}
    store.rollback(first.id, force=True)
    assert store.get("thing", "a") is None


def test_optimistic_version_check(tmp_path: Path) -> None:
    store = LogStore(tmp_path, route)
    b = store.begin("create")
    b.put("profile", {"id": "p", "version": 1, "name": "A"}, check_version=True, expect_version=None)
    b.commit()
    stale = store.begin("stale")
    stale.put("profile", {"id": "p", "version": 2, "name": "B"}, check_version=True, expect_version=1)
    winner = store.begin("winner")
    winner.put("profile", {"id": "p", "version": 2, "name": "C"}, check_version=True, expect_version=1)
    winner.commit()
    with pytest.raises(Conflict, match="version is 2, expected 1"):
        stale.commit()
    assert store.get("profile", "p") == {"id": "p", "version": 2, "name": "C"}


def _bump(root: str, n: int) -> None:
    kb = KnowledgeBase(Path(root))
    mid = kb.memories()[0].id
    done = 0
    while done < n:
        kb.refresh()
        current = kb.memory(mid)
        try:
            kb.edit_memory(mid, text=f"{current.text}+", expected_version=current.version)
            done += 1
        except Conflict:
            continue  # lost the race: re-read and retry


def test_no_lost_update_between_processes(tmp_path: Path) -> None:
    kb = KnowledgeBase(tmp_path)
    mem = kb.add_memory("count", type="profile")
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_bump, args=(str(tmp_path), 15)) for _ in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    final = KnowledgeBase(tmp_path).memory(mem.id)
    assert final.version == 1 + 45
    assert final.text == "count" + "+" * 45
