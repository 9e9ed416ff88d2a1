"""Append-only JSONL record logs with atomic batches (DESIGN.md §2.2).

Every change to the abstract layer or the memory list is a *batch*: its record versions are
appended to their JSONL files tagged with the batch id, then one commit marker line is appended
to ``oplog/batches.jsonl``. Readers fold only lines whose batch has a marker, so a crash in the
middle of a batch leaves nothing visible; a torn last line is skipped by readers and cut off by
the next writer. The marker carries the operation log (before/after of every record) and any
cursor the batch advances, which is what makes batches undoable and distillation resumable.

A record is a JSON object with an ``id``; a later committed version of the same id replaces the
earlier one in the folded state. A version with ``"_deleted": true`` hides the record (used only
by rollbacks of batches that created it); the history stays in the files.
"""

from __future__ import annotations

import json
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._files import file_lock
from ..errors import Conflict, InvalidInput, NotFound

__all__ = ["Batch", "BatchInfo", "LogStore", "Op"]

MARKERS = "oplog/batches.jsonl"


@dataclass(frozen=True)
class Op:
    """One record change inside a batch."""

    kind: str
    id: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None


@dataclass(frozen=True)
class BatchInfo:
    """A committed batch, as ``ogmem batches`` lists it."""

    id: str
    time: float
    reason: str
    ops: tuple[Op, ...]
    meta: dict[str, Any]
    rolled_back_by: str | None = None

    def to_dict(self) -> dict[str, Any]:
        counts: dict[str, int] = {}
        for op in self.ops:
            counts[op.kind] = counts.get(op.kind, 0) + 1
        return {"id": self.id, "time": self.time, "reason": self.reason, "ops": len(self.ops),
                "by_kind": counts, "rolled_back_by": self.rolled_back_by,
                **{k: v for k, v in self.meta.items() if k != "cursor"}}


class _Tail:
    """Incremental reader of one append-only file (remembers how far it has read)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0

    def new_lines(self) -> Iterator[dict[str, Any]]:
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self.offset)
                data = fh.read()
        except FileNotFoundError:
            return
        end = data.rfind(b"\n")
        if end < 0:
            return  # nothing complete yet (or a torn first line)
        self.offset += end + 1
        for raw in data[: end + 1].splitlines():
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw)
            except ValueError:
                continue  # a torn line that a later writer cut short and continued after
            if isinstance(obj, dict):
                yield obj


class LogStore:
    """The folded, committed state of a set of JSONL record files under ``root``.

    ``route(kind, record)`` names the file (relative to ``root``) a record version goes to.
    Thread-safe; across processes, batches are serialised by a file lock and every reader
    catches up with what other processes appended (``refresh``).
    """

    def __init__(self, root: Path, route: Callable[[str, dict[str, Any]], str], *,
                 fsync: bool = False) -> None:
        self.root = root
        self.route = route
        self.fsync = fsync
        self._lock = threading.RLock()
        self._tails: dict[str, _Tail] = {}
        self._pending: dict[str, list[dict[str, Any]]] = {}  # lines of batches not yet committed
        self._state: dict[str, dict[str, dict[str, Any]]] = {}
        self._batches: dict[str, BatchInfo] = {}
        self._order: list[str] = []
        self._listeners: list[Callable[[BatchInfo], None]] = []
        self.refresh()

    # ------------------------------------------------------------------ reading

    def refresh(self) -> None:
        """Fold whatever committed lines were appended since the last look."""
        with self._lock:
            markers = self._tail(MARKERS)
            new_batches = [m for m in markers.new_lines() if isinstance(m.get("batch"), str)]
            for path in self._data_files():
                for line in self._tail(path).new_lines():
                    batch = line.get("_batch")
                    if isinstance(batch, str) and batch in self._batches:
                        self._fold(line)  # a line of an old batch (appended late? never) - keep order
                    elif isinstance(batch, str):
                        self._pending.setdefault(batch, []).append(line)
            for marker in new_batches:
                self._apply_marker(marker)

    def _data_files(self) -> list[str]:
        found = []
        if self.root.is_dir():
            for dirpath, _dirs, files in os.walk(self.root):
                for name in files:
                    if name.endswith(".jsonl"):
                        rel = os.path.relpath(os.path.join(dirpath, name), self.root)
                        if rel != MARKERS:
                            found.append(rel)
        return sorted(found)

    def _tail(self, rel: str) -> _Tail:
        tail = self._tails.get(rel)
        if tail is None:
            tail = self._tails[rel] = _Tail(self.root / rel)
        return tail

    def _apply_marker(self, marker: dict[str, Any]) -> None:
        bid = marker["batch"]
        if bid in self._batches:
            return
        ops = tuple(Op(o["kind"], o["id"], o.get("before"), o.get("after"))
                    for o in marker.get("ops", []))
        info = BatchInfo(id=bid, time=float(marker.get("time", 0)), reason=str(marker.get("reason", "")),
                         ops=ops, meta=dict(marker.get("meta") or {}))
        self._batches[bid] = info
        self._order.append(bid)
        for line in self._pending.pop(bid, []):
            self._fold(line)
        target = info.meta.get("rollback_of")
        if isinstance(target, str) and target in self._batches:
            old = self._batches[target]
            self._batches[target] = BatchInfo(old.id, old.time, old.reason, old.ops, old.meta,
                                              rolled_back_by=bid)
        for listener in self._listeners:
            listener(info)

    def _fold(self, line: dict[str, Any]) -> None:
        kind = line.get("_kind")
        rid = line.get("id")
        if not isinstance(kind, str) or not isinstance(rid, str):
            return
        record = {k: v for k, v in line.items() if k not in ("_batch", "_kind")}
        bucket = self._state.setdefault(kind, {})
        if record.get("_deleted"):
            bucket.pop(rid, None)
        else:
            bucket[rid] = record

    def get(self, kind: str, rid: str) -> dict[str, Any] | None:
        with self._lock:
            rec = self._state.get(kind, {}).get(rid)
            return dict(rec) if rec is not None else None

    def all(self, kind: str) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._state.get(kind, {}).values())

    def count(self, kind: str) -> int:
        with self._lock:
            return len(self._state.get(kind, {}))

    @property
    def version(self) -> int:
        """How many batches are committed (as far as this reader has seen): a cheap cache key."""
        return len(self._order)

    def batches(self) -> list[BatchInfo]:
        with self._lock:
            return [self._batches[b] for b in self._order]

    def batch(self, batch_id: str) -> BatchInfo:
        with self._lock:
            self.refresh()
            info = self._batches.get(batch_id)
            if info is None:
                raise NotFound(f"batch not found: {batch_id}")
            return info

    def last_meta(self, key: str) -> Any:
        """The value of ``meta[key]`` in the newest committed batch that set it (e.g. a cursor)."""
        with self._lock:
            for bid in reversed(self._order):
                if key in self._batches[bid].meta:
                    return self._batches[bid].meta[key]
        return None

    def on_commit(self, listener: Callable[[BatchInfo], None]) -> None:
        """Call ``listener`` for every batch committed from now on (index outbox, views)."""
        self._listeners.append(listener)

    # ------------------------------------------------------------------ writing

    def begin(self, reason: str) -> Batch:
        return Batch(self, reason)

    def _commit(self, batch: Batch, meta: dict[str, Any]) -> BatchInfo | None:
        with self._lock, file_lock(self.root / "oplog" / ".lock"):
            self.refresh()
            ops = batch.resolve(self)
            if not ops and not meta.get("force_marker"):
                return None
            bid = batch.id
            by_file: dict[str, list[bytes]] = {}
            for op, line in zip(ops, batch.lines(ops)):
                by_file.setdefault(self.route(op.kind, line), []).append(_encode(line))
            for rel, lines in by_file.items():
                self._append(rel, b"".join(lines))
            marker = {"batch": bid, "time": time.time(), "reason": batch.reason,
                      "ops": [op.__dict__ for op in ops],
                      "meta": {k: v for k, v in meta.items() if k != "force_marker"}}
            self._append(MARKERS, _encode(marker))
            self.refresh()
            return self._batches[bid]

    def _append(self, rel: str, data: bytes) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "ab+") as fh:
            size = fh.seek(0, os.SEEK_END)
            if size:
                fh.seek(size - 1)
                if fh.read(1) != b"\n":
                    # A writer died mid-line: cut the torn tail (its batch never committed).
                    fh.truncate(_last_newline(fh, size))
                    tail = self._tails.get(rel)
                    if tail is not None:
                        tail.offset = min(tail.offset, fh.seek(0, os.SEEK_END))
            fh.seek(0, os.SEEK_END)
            fh.write(data)
            fh.flush()
            if self.fsync:
                os.fsync(fh.fileno())

    def rollback(self, batch_id: str, *, force: bool = False) -> BatchInfo:
        """Undo a committed batch by appending a batch that restores every ``before`` state.

        Refused (``Conflict``) when the batch was already rolled back, or when a later batch
        changed one of its records (unless ``force``), since restoring would discard that change.
        """
        with self._lock:
            info = self.batch(batch_id)
            if info.rolled_back_by:
                raise Conflict(f"batch {batch_id} was already rolled back by {info.rolled_back_by}")
            if info.meta.get("rollback_of"):
                raise Conflict(f"batch {batch_id} is itself a rollback; roll back "
                               f"{info.meta['rollback_of']} again by re-running it instead")
            if not force:
                for op in info.ops:
                    current = self.get(op.kind, op.id)
                    if _strip(current) != _strip(op.after):
                        raise Conflict(f"{op.kind} {op.id} changed after batch {batch_id}; "
                                       "roll back the later batches first (or force)")
            undo = self.begin(f"rollback {batch_id}")
            for op in reversed(info.ops):
                if op.before is None:
                    undo.put(op.kind, {"id": op.id, "_deleted": True})
                else:
                    undo.put(op.kind, dict(op.before))
            # The distillation cursor is not rewound: a rollback undoes what a batch wrote, it
            # does not ask for the same nodes to be extracted again.
            result = undo.commit(rollback_of=batch_id, force_marker=True)
            assert result is not None
            return result


class Batch:
    """Record versions staged for one atomic commit.

    >>> batch = store.begin("distill")                      # doctest: +SKIP
    >>> batch.put("edge", {"id": "e1", "from": "a", "to": "b", "relation": "uses"})  # doctest: +SKIP
    >>> batch.commit(cursor={"s1": 4})                      # doctest: +SKIP
    """

    def __init__(self, store: LogStore, reason: str) -> None:
        self.store = store
        self.reason = reason
        self.id = f"b_{time.strftime('%Y%m%dT%H%M%S')}_{uuid.uuid4().hex[:8]}"
        self._puts: dict[tuple[str, str], dict[str, Any]] = {}
        self._checks: dict[tuple[str, str], int | None] = {}

    def get(self, kind: str, rid: str) -> dict[str, Any] | None:
        """The record as this batch would leave it (staged version, else committed)."""
        staged = self._puts.get((kind, rid))
        if staged is not None:
            return None if staged.get("_deleted") else dict(staged)
        return self.store.get(kind, rid)

    def put(self, kind: str, record: dict[str, Any], *, expect_version: int | None = None,
            check_version: bool = False) -> None:
        """Stage a new version of ``record`` (which must carry a string ``id``).

        With ``check_version``, the commit fails with ``Conflict`` unless the committed record's
        ``version`` still equals ``expect_version`` (optimistic concurrency; ``None`` = absent).
        """
        rid = record.get("id")
        if not isinstance(rid, str) or not rid:
            raise InvalidInput(f"a {kind} record needs a string id")
        try:
            json.dumps(record)
        except (TypeError, ValueError) as exc:
            raise InvalidInput(f"{kind} {rid} is not JSON-serialisable: {exc}") from None
        if check_version:
            self._checks[(kind, rid)] = expect_version
        self._puts[(kind, rid)] = dict(record)

    def __len__(self) -> int:
        return len(self._puts)

    def resolve(self, store: LogStore) -> list[Op]:
        for (kind, rid), expected in self._checks.items():
            current = store.get(kind, rid)
            version = current.get("version") if current else None
            if version != expected:
                raise Conflict(f"{kind} {rid}: version is {version}, expected {expected}")
        ops = []
        for (kind, rid), after in self._puts.items():
            before = store.get(kind, rid)
            if _strip(before) == _strip(after):
                continue  # no change: nothing to write, nothing to undo
            ops.append(Op(kind, rid, before, None if after.get("_deleted") else after))
        return ops

    def lines(self, ops: list[Op]) -> list[dict[str, Any]]:
        return [{**self._puts[(op.kind, op.id)], "_batch": self.id, "_kind": op.kind} for op in ops]

    def commit(self, **meta: Any) -> BatchInfo | None:
        """Write the batch; ``None`` if it changed nothing (and carried no forced marker)."""
        return self.store._commit(self, meta)


def _encode(obj: dict[str, Any]) -> bytes:
    return (json.dumps(obj, ensure_ascii=False, separators=(",", ":"), sort_keys=True) + "\n").encode()


def _strip(rec: dict[str, Any] | None) -> dict[str, Any] | None:
    if rec is None or rec.get("_deleted"):
        return None
    return {k: v for k, v in rec.items() if k not in ("_batch", "_kind")}


def _last_newline(fh: Any, size: int) -> int:
    pos = size
    chunk = 4096
    while pos > 0:
        start = max(0, pos - chunk)
        fh.seek(start)
        data = fh.read(pos - start)
        idx: int = data.rfind(b"\n")
        if idx >= 0:
            return start + idx + 1
        pos = start
    return 0
