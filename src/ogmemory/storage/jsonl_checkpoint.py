"""A checkpoint of the JSONL knowledge store: what folding its logs gave, so that a new process
starts from it and reads only what was appended since.

A Claude Code hook without a server runs one process per event, and each folded every log from
the first line: at 1,000 turns 7 MB (4.5 MB of it the operation log, the before/after of every
change), a second of a loaded machine, growing with every turn. With the checkpoint a start
reads the current records (not their history) and the lines appended after it.

It is a cache, like the index: one checksummed line (``storage.lines``) written atomically
beside the logs as ``.checkpoint.json`` when a store that read much of the logs closes. It is
used only while every log it covers is the same file (inode) holding the same bytes just before
where it stopped reading; anything else (a repair rewrote a log, a damaged or foreign
checkpoint, another format) and the store reads the logs from the start, as without it. Batches
are restored without their operations and with only the ``meta`` that ``last_meta`` reads;
``batches()`` and ``batch()`` (the operation log's views, rollback) read the full markers from
the log first.
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING, Any

from ..knowledge.models import record_from_json, record_to_json
from .files import atomic_write_bytes
from .folded import BatchInfo
from .lines import decode_line, encode_line

if TYPE_CHECKING:
    from .jsonl import JsonlKnowledgeStore

__all__ = ["NAME", "load", "save", "worth_saving"]

NAME = ".checkpoint.json"
FORMAT = 1
#: bytes before each log's offset kept to recognise the same file with the same content
_PROBE = 64
#: a store that read more than this from the logs since the checkpoint writes a new one
_WORTH = 256 * 1024

log = logging.getLogger(__name__)


def worth_saving(store: JsonlKnowledgeStore) -> bool:
    """Whether this store read enough of the logs since the checkpoint to write a new one."""
    read = sum(t.offset for t in store._tails.values())
    return read - store._checkpointed >= _WORTH


def save(store: JsonlKnowledgeStore) -> None:
    """Write the checkpoint of what ``store`` has folded (a cache: failures are logged)."""
    with store._lock:
        store._catch_up()
        try:
            tails = {
                rel: [tail.inode, tail.offset, _probe(store.root / rel, tail.offset)]
                for rel, tail in store._tails.items()
                if tail.inode is not None
            }
            data = {
                "format": FORMAT,
                "epoch": store._epoch,
                "tails": tails,
                "order": list(store._order),
                "batches": _light_batches(store),
                "state": {
                    kind: [[rid, record_to_json(rec)] for rid, rec in bucket.items()]
                    for kind, bucket in store._state.items()
                },
                "pending": store._pending,
            }
            atomic_write_bytes(store.root / NAME, encode_line(data))
        except (OSError, ValueError, TypeError) as exc:
            log.warning("%s: checkpoint not written: %s", store.root, exc)
            return
        store._checkpointed = sum(t.offset for t in store._tails.values() if t.inode is not None)


def load(store: JsonlKnowledgeStore) -> bool:
    """Restore ``store`` from its checkpoint, if it still describes the logs; False (and
    nothing changed) otherwise."""
    try:
        raw = (store.root / NAME).read_bytes()
    except OSError:
        return False
    data = decode_line(raw.rstrip(b"\n")) if raw.endswith(b"\n") else None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return False
    try:
        tails = {rel: _check(store, rel, *where) for rel, where in data["tails"].items()}
        if not all(tails.values()):
            return False
        batches = {
            bid: BatchInfo(bid, float(time), str(reason), (), dict(meta), rolled_back_by=by)
            for bid, time, reason, meta, by in data["batches"]
        }
        order = [str(b) for b in data["order"]]
        state = {
            kind: {str(rid): record_from_json(kind, rec) for rid, rec in rows}
            for kind, rows in data["state"].items()
        }
        pending = {str(b): list(lines) for b, lines in data["pending"].items()}
        epoch = int(data["epoch"])
        if set(order) != set(batches):
            return False
    except (KeyError, TypeError, ValueError) as exc:
        log.info("%s: checkpoint not used (%s); reading the logs", store.root, exc)
        return False
    store._state, store._batches, store._order = state, batches, order
    store._pending, store._epoch = pending, epoch
    for rel, where in data["tails"].items():
        tail = store._tail(rel)
        tail.inode, tail.offset = int(where[0]), int(where[1])
    store._checkpointed = sum(int(w[1]) for w in data["tails"].values())
    store._light_ids = set(order)
    return True


def _light_batches(store: JsonlKnowledgeStore) -> list[list[Any]]:
    """Every batch without its operations, and with each ``meta`` key only where the newest
    batch holding it has it (what ``last_meta`` reads; a distillation cursor names every
    session, and every batch carries one): the full markers are read back for the rest."""
    out: list[list[Any]] = []
    seen: set[str] = set()
    for bid in reversed(store._order):
        b = store._batches[bid]
        meta = {k: v for k, v in b.meta.items() if k not in seen or k == "rollback_of"}
        seen.update(b.meta)
        out.append([b.id, b.time, b.reason, meta, b.rolled_back_by])
    out.reverse()
    return out


def _probe(path: Any, offset: int) -> str:
    with open(path, "rb") as fh:
        fh.seek(max(0, offset - _PROBE))
        return fh.read(min(offset, _PROBE)).hex()


def _check(store: JsonlKnowledgeStore, rel: str, inode: Any, offset: Any, probe: Any) -> bool:
    """Whether the log ``rel`` is still the file the checkpoint read up to ``offset``."""
    if os.path.isabs(rel) or ".." in rel.split("/") or not isinstance(offset, int):
        return False
    try:
        with open(store.root / rel, "rb") as fh:
            st = os.fstat(fh.fileno())
            if st.st_ino != inode or st.st_size < offset:
                return False
            fh.seek(max(0, offset - _PROBE))
            return bool(fh.read(min(offset, _PROBE)).hex() == probe)
    except OSError:
        return False
