"""The SQLite index keeps decoded documents and small lookups between reads
(``storage/doc_cache.py``); every change is seen by the next read, whoever made it: this
store on the reading thread, on another thread, another store on the same file (another
process), or a worker storing vectors."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
from test_contract_index import turn

from ogmemory.index.docs import Doc, session_doc_id, turn_doc_id
from ogmemory.storage.sqlite_index import SqliteIndexStore


def reads(store: SqliteIndexStore) -> tuple[object, ...]:
    """Everything the cache keeps, read once."""
    ids = [turn_doc_id("s", f"n{i}") for i in range(4)]
    by_id = store.docs_by_id(ids)
    by_rowid = store.docs([d.rowid for d in by_id.values() if d.rowid is not None])
    return (
        {k: (d.text, d.importance) for k, d in by_id.items()},
        sorted((d.id, d.text) for d in by_rowid.values()),
        store.window_ids("s", 1, 1, 1),
        [i for _, i in store.child_refs(session_doc_id("s", 1))],
        store.count(),
        store.count("turn"),
        store.latest_event_time(),
        store.vector_count(),
    )


def test_every_writer_is_seen_by_the_next_read(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    store = SqliteIndexStore(path)
    store.write([turn("s", i, f"turn {i}") for i in range(3)])
    first = reads(store)
    assert reads(store) == first  # kept: the same answers
    assert first[2] == [turn_doc_id("s", f"n{i}") for i in range(3)]

    # this store, this thread: a new turn, an edited one (same text, new importance)
    store.write(
        [turn("s", 3, "turn 3"), Doc(**{**turn("s", 0, "turn 0").__dict__, "importance": 0.9})]
    )
    second = reads(store)
    assert second[4] == 4 and second[0][turn_doc_id("s", "n0")] == ("turn 0", 0.9)
    assert second[2] == [turn_doc_id("s", f"n{i}") for i in range(3)]

    # this store, another thread
    writer = threading.Thread(target=store.write, args=([turn("s", 1, "turn one, rewritten")],))
    writer.start()
    writer.join()
    assert reads(store)[0][turn_doc_id("s", "n1")] == ("turn one, rewritten", 0.5)

    # another store on the same file: another process
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from ogmemory.storage.sqlite_index import SqliteIndexStore\n"
        "from ogmemory.index.docs import turn_doc_id\n"
        "s = SqliteIndexStore(Path(sys.argv[1]))\n"
        "s.write([], deletes=[turn_doc_id('s', 'n2')])\n"
    )
    subprocess.run([sys.executable, "-c", script, str(path)], check=True)
    third = reads(store)
    assert turn_doc_id("s", "n2") not in third[0]
    assert third[2] == [turn_doc_id("s", "n0"), turn_doc_id("s", "n1"), turn_doc_id("s", "n3")]
    assert third[4] == 3 and third[5] == 3

    # vectors stored by a worker's store; a session deleted
    other = SqliteIndexStore(path)
    rowid = next(iter(store.docs_by_id([turn_doc_id("s", "n0")]).values())).rowid
    assert rowid is not None
    assert store.vectors([rowid]) == {}
    other.put_vectors({rowid: np.ones(4, dtype=np.float32) / 2})
    assert reads(store)[7] == 1
    assert store.vectors([rowid])[rowid].tolist() == [0.5] * 4
    assert [r for r, _ in store.dense(np.ones(4, dtype=np.float32) / 2, 5)] == [rowid]
    other.put_vectors({rowid: np.array([1, 0, 0, 0], dtype=np.float32)})
    assert store.vectors([rowid])[rowid].tolist() == [1.0, 0.0, 0.0, 0.0]
    store.delete_session("s")
    assert reads(store)[:6] == ({}, [], [], [], 0, 0)


def test_documents_come_in_the_order_sqlite_gives_them(tmp_path: Path) -> None:
    """Whether a document was kept or read, a read answers in the same order."""
    store = SqliteIndexStore(tmp_path / "index.sqlite")
    store.write([turn("s", i, f"turn {i}") for i in range(12)])
    ids = [turn_doc_id("s", f"n{i}") for i in (7, 3, 11, 0, 5)]
    cold = list(store.docs_by_id(ids))
    store.docs_by_id(ids[:2])
    warm = list(store.docs_by_id(ids))
    assert cold == warm == sorted(ids)
    rowids = [d.rowid for d in store.docs_by_id(ids).values() if d.rowid is not None][::-1]
    assert list(store.docs(rowids)) == sorted(rowids)
