"""The JSONL knowledge store on disk: what only files can get wrong (orphan lines of a crashed
batch, torn tails, several processes). The batch semantics every backend shares are in
``test_contract_knowledge.py``."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

from ogmemory import Conflict, MemoryItem
from ogmemory.knowledge.base import KnowledgeBase
from ogmemory.storage.jsonl import MARKERS, JsonlKnowledgeStore


def item(mid: str, text: str, version: int = 1) -> MemoryItem:
    return MemoryItem(id=mid, text=text, type="profile", version=version)


def test_lines_without_a_marker_stay_invisible(tmp_path: Path) -> None:
    store = JsonlKnowledgeStore(tmp_path)
    batch = store.begin("t")
    batch.put(item("a", "one"))
    # Lines written by hand without a marker (as a crashed writer leaves them) stay invisible.
    path = tmp_path / "memories" / "memories.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text(
        json.dumps(
            {
                "id": "x",
                "text": "orphan",
                "type": "profile",
                "_batch": "b_orphan",
                "_kind": "memory",
            }
        )
        + "\n"
    )
    assert JsonlKnowledgeStore(tmp_path).all(MemoryItem) == []
    assert batch.commit(cursor={"s": 1}) is not None
    fresh = JsonlKnowledgeStore(tmp_path)
    assert [m.id for m in fresh.all(MemoryItem)] == ["a"]
    assert fresh.last_meta("cursor") == {"s": 1}


def test_torn_last_line_is_skipped_and_repaired(tmp_path: Path) -> None:
    store = JsonlKnowledgeStore(tmp_path)
    b = store.begin("one")
    b.put(item("a", "one"))
    b.commit()
    path = tmp_path / "memories" / "memories.jsonl"
    with open(path, "ab") as fh:
        fh.write(b'{"id": "torn", "_batch": "b_x", "_ki')  # a writer died mid-line
    with open(tmp_path / MARKERS, "ab") as fh:
        fh.write(b'{"batch": "b_x", "ti')
    reader = JsonlKnowledgeStore(tmp_path)
    assert [m.id for m in reader.all(MemoryItem)] == ["a"]
    b2 = reader.begin("two")
    b2.put(item("c", "three"))
    b2.commit()
    lines = path.read_text().splitlines()
    assert all(json.loads(line) for line in lines)  # the torn tail was cut before appending
    assert sorted(m.id for m in JsonlKnowledgeStore(tmp_path).all(MemoryItem)) == ["a", "c"]
    assert len(JsonlKnowledgeStore(tmp_path).batches()) == 2


def test_rollback_appends_and_keeps_history(tmp_path: Path) -> None:
    store = JsonlKnowledgeStore(tmp_path)
    b1 = store.begin("first")
    b1.put(item("a", "one"))
    b1.commit()
    b2 = store.begin("second")
    b2.put(item("a", "two", 2))
    info = b2.commit()
    assert info is not None
    path = tmp_path / "memories" / "memories.jsonl"
    size = path.stat().st_size
    store.rollback(info.id)
    assert path.stat().st_size > size  # appended, history kept
    assert JsonlKnowledgeStore(tmp_path).get(MemoryItem, "a") == item("a", "one")


def _bump(root: str, n: int) -> None:
    kb = KnowledgeBase(JsonlKnowledgeStore(Path(root)), Path(root))
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
    kb = KnowledgeBase(JsonlKnowledgeStore(tmp_path), tmp_path)
    mem = kb.add_memory("count", type="profile")
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_bump, args=(str(tmp_path), 15)) for _ in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    final = KnowledgeBase(JsonlKnowledgeStore(tmp_path), tmp_path).memory(mem.id)
    assert final.version == 1 + 45
    assert final.text == "count" + "+" * 45
