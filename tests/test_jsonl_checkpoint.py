"""The JSONL knowledge store's checkpoint (``storage.jsonl_checkpoint``): a store opened from
it and the lines appended since must be exactly the store that folds every log from the start,
and a checkpoint that no longer describes the logs must never be used."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from ogmemory import MemoryItem
from ogmemory.knowledge.models import Edge, Entity, Evidence, TimelineEvent, record_to_json
from ogmemory.storage import jsonl_checkpoint
from ogmemory.storage.folded import BatchInfo
from ogmemory.storage.jsonl import MARKERS, JsonlKnowledgeStore
from ogmemory.storage.lines import encode_line


@pytest.fixture(autouse=True)
def small_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonl_checkpoint, "_WORTH", 1)  # any read is worth a checkpoint here


def item(mid: str, text: str, version: int = 1) -> MemoryItem:
    return MemoryItem(id=mid, text=text, type="profile", version=version)


def _write(store: JsonlKnowledgeStore, n: int, start: int = 0) -> None:
    for i in range(start, start + n):
        batch = store.begin("t")
        batch.put(item(f"m{i}", f"memory {i}"))
        batch.commit(cursor={"sessions": {"s": i}}, note=f"batch {i}")


def _seen(store: JsonlKnowledgeStore) -> dict[str, Any]:
    """Everything a reader can ask the store (its records, batches with operations, meta)."""
    return {
        "records": {
            kind.__name__: sorted(
                (str(record_to_json(r)) for r in store.all(kind)), key=lambda x: x
            )
            for kind in (MemoryItem, Edge, Entity, Evidence, TimelineEvent)
        },
        "batches": [b.to_marker() | {"by": b.rolled_back_by} for b in store.batches()],
        "cursor": store.last_meta("cursor"),
        "note": store.last_meta("note"),
        "count": len(store.batches()),
    }


def test_a_store_opened_from_its_checkpoint_is_the_store_folded_from_the_logs(
    tmp_path: Path,
) -> None:
    first = JsonlKnowledgeStore(tmp_path)
    _write(first, 5)
    # the lines of a batch whose marker is not written yet (a writer between the two appends)
    late = {"id": "late", "text": "late", "type": "profile", "_batch": "b_late", "_kind": "memory"}
    with open(tmp_path / "memories" / "memories.jsonl", "ab") as fh:
        fh.write(encode_line(late))
    first.refresh()
    first.close()
    assert (tmp_path / jsonl_checkpoint.NAME).exists()

    # more batches after the checkpoint, by another process (a store that does not close),
    # one of them rolled back, and a batch whose marker is not written yet
    other = JsonlKnowledgeStore(tmp_path)
    _write(other, 3, start=5)
    other.rollback(other.batches()[1].id)

    restored = JsonlKnowledgeStore(tmp_path)
    assert restored._light  # started from the checkpoint, read only the tail
    shutil.copytree(tmp_path, tmp_path.parent / "no-checkpoint")
    (tmp_path.parent / "no-checkpoint" / jsonl_checkpoint.NAME).unlink()
    reference = JsonlKnowledgeStore(tmp_path.parent / "no-checkpoint")
    assert not reference._light
    assert _seen(restored) == _seen(reference)
    assert _seen(restored)["note"] == "batch 7" and len(_seen(restored)["batches"]) == 9
    # operations read back from the log: a rollback from a restored store works
    again = JsonlKnowledgeStore(tmp_path)
    assert again._light
    again.rollback(again.batches()[2].id)
    assert "m2" not in {m.id for m in JsonlKnowledgeStore(tmp_path).all(MemoryItem)}
    assert "late" not in {m.id for m in restored.all(MemoryItem)}
    marker = BatchInfo("b_late", time.time(), "late", (), {})  # now its marker lands
    with open(tmp_path / MARKERS, "ab") as fh:
        fh.write(encode_line(marker.to_marker()))
    restored.refresh()  # the lines the checkpoint kept as pending become visible
    assert "late" in {m.id for m in restored.all(MemoryItem)}


@pytest.mark.parametrize("damage", ["replaced log", "rewritten log", "torn", "foreign"])
def test_a_checkpoint_that_no_longer_describes_the_logs_is_not_used(
    tmp_path: Path, damage: str
) -> None:
    store = JsonlKnowledgeStore(tmp_path)
    _write(store, 4)
    store.close()
    markers = tmp_path / MARKERS
    ck = tmp_path / jsonl_checkpoint.NAME
    if damage == "replaced log":  # a repair writes a new file and moves it into place
        fresh = markers.with_name("fresh")
        fresh.write_bytes(markers.read_bytes())
        os.replace(fresh, markers)
        assert os.stat(markers).st_ino != store._tails[MARKERS].inode
    elif damage == "rewritten log":  # same file, other bytes before where it stopped
        raw = bytearray(markers.read_bytes())
        raw[-20] = ord("x") if raw[-20] != ord("x") else ord("y")
        with open(markers, "r+b") as fh:
            fh.write(bytes(raw))
    elif damage == "torn":
        ck.write_bytes(ck.read_bytes()[:-50])
    else:
        ck.write_bytes(b'{"format": 99}\n')
    opened = JsonlKnowledgeStore(tmp_path)
    assert not opened._light
    if damage != "rewritten log":  # (a damaged marker line is skipped by the full read)
        assert [m.id for m in sorted(opened.all(MemoryItem), key=lambda m: m.id)] == [
            "m0",
            "m1",
            "m2",
            "m3",
        ]


def test_an_index_catching_up_reads_the_operations_of_the_new_batches_only(
    tmp_path: Path,
) -> None:
    """The index syncs on every recall with ``batches_since(seen)``: a store opened from its
    checkpoint must not read every marker back for that (it did, through ``batches()``: a
    second of a hook's start at 1,000 turns)."""
    first = JsonlKnowledgeStore(tmp_path)
    _write(first, 6)
    first.close()
    JsonlKnowledgeStore(tmp_path).close()
    later = JsonlKnowledgeStore(tmp_path)
    _write(later, 2, start=6)
    restored = JsonlKnowledgeStore(tmp_path)
    assert restored._light
    assert restored.batches_since(8) == []
    new = restored.batches_since(5)
    assert [b.meta["note"] for b in new] == ["batch 5", "batch 6", "batch 7"]
    assert all(b.ops for b in new)  # the restored one (batch 5) with its operations too
    assert restored._light  # batches 0-4 were not read back
    assert restored.batch(new[0].id).ops
    full = restored.batches()
    assert not restored._light and all(b.ops for b in full) and len(full) == 8
    assert [b.to_marker() for b in full] == [b.to_marker() for b in later.batches()]
