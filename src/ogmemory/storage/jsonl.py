"""The default knowledge store: append-only JSONL files with atomic batches (DESIGN.md §2.2).

Files (under ``<tenant>/memory/``)::

    timeline/YYYY-MM.jsonl     events, by the month they happened
    graph/entities.jsonl       entities (alias-resolved; merged ones point to the survivor)
    graph/edges.jsonl          relations with valid_from / valid_to / superseded_by
    memories/memories.jsonl    the memory list (every edit a new version)
    memories/evidence.jsonl    immutable evidence snapshots
    oplog/batches.jsonl        batch commit markers with before/after of every change
    oplog/user-batches.jsonl   a second copy of the marker of every batch that the sessions
                               cannot re-derive (what users wrote, rollbacks, the facts of a
                               memory a user wrote): every batch without a distillation cursor

Every line carries its own checksum (``storage.lines``); a damaged line is reported with its
file and byte offset and never read. ``ogmem fsck --repair`` puts it in quarantine and recovers
what it held (``storage.jsonl_repair``): a data line from its batch's marker (markers hold the
after-state of every change), a marker from the second copy, or, for a distillation batch,
by distilling its turns again.

A batch's record versions are appended to their files tagged with the batch id, then one commit
marker line is appended to ``oplog/batches.jsonl``. Readers fold only lines whose batch has a
marker, so a crash in the middle of a batch leaves nothing visible; a torn last line is skipped
by readers and cut off by the next writer. Batches are serialised across processes by a file
lock, and every reader catches up with what other processes appended (``refresh``).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..entity.times import clamp_time
from . import jsonl_checkpoint as checkpoint
from .files import file_lock
from .folded import BatchInfo, FoldedStore
from .lines import decode_line, encode_line

__all__ = ["JOURNAL", "MARKERS", "JsonlKnowledgeStore", "journaled", "route"]

MARKERS = "oplog/batches.jsonl"
JOURNAL = "oplog/user-batches.jsonl"
_MARKER_START = b'{"batch":"'  # how every marker line starts (encode_line sorts keys)

log = logging.getLogger(__name__)
_FILES = {
    "entity": "graph/entities.jsonl",
    "edge": "graph/edges.jsonl",
    "memory": "memories/memories.jsonl",
    "evidence": "memories/evidence.jsonl",
}


def route(kind: str, record: dict[str, Any]) -> str:
    """The file (relative to the root) a version of a record of ``kind`` is appended to."""
    if kind == "event":
        when = record.get("event_time")
        if not isinstance(when, (int, float)):
            when = (record.get("provenance") or {}).get("event_time") or 0
        # clamped: an event dated by a turn stored before the time range was enforced
        month = datetime.fromtimestamp(clamp_time(float(when)), UTC)
        return f"timeline/{month:%Y-%m}.jsonl"
    return _FILES.get(kind) or f"records/{kind}.jsonl"


def journaled(meta: dict[str, Any]) -> bool:
    """Whether a batch (by its marker's ``meta``) gets a second copy: every batch but
    distillation over session turns, whose marker carries the cursor it advanced, so that its
    turns can be distilled again. Rollbacks and the rewind of a repair carry a cursor too, but
    are decisions, not derivations: they are copied."""
    return "cursor" not in meta or "rollback_of" in meta or "lost" in meta


class _Replaced(Exception):
    """A log file was replaced (``ogmem fsck --repair`` rewrote it): read everything again."""


class _Tail:
    """Incremental reader of one append-only file (remembers how far it has read)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0
        self.inode: int | None = None

    def new_lines(self) -> Iterator[dict[str, Any]]:
        try:
            st = os.stat(self.path)
            if st.st_ino == self.inode and st.st_size == self.offset:
                return  # nothing appended (every store refreshes on every read: a stat only)
            with open(self.path, "rb") as fh:
                inode = os.fstat(fh.fileno()).st_ino
                if self.inode is not None and inode != self.inode:
                    raise _Replaced(str(self.path))
                self.inode = inode
                fh.seek(self.offset)
                data = fh.read()
        except FileNotFoundError:
            return
        end = data.rfind(b"\n")
        if end < 0:
            return  # nothing complete yet (or a torn first line)
        at = self.offset
        self.offset += end + 1
        for raw in data[:end].split(b"\n"):
            line_at, at = at, at + len(raw) + 1
            if not raw.strip():
                continue
            obj = decode_line(raw)
            if obj is not None:
                yield obj
            else:  # writers cut torn tails, so this is damage: never skip it silently
                log.warning(
                    "%s: the corrupt line at byte %d is skipped (its records are not "
                    "read); run 'ogmem fsck --repair' to recover them",
                    self.path,
                    line_at,
                )


class JsonlKnowledgeStore(FoldedStore):
    """Knowledge records in JSONL files under ``root``. Thread- and process-safe."""

    def __init__(self, root: Path, *, fsync: bool = False) -> None:
        super().__init__()
        self.root = root
        self.fsync = fsync
        self._tails: dict[str, _Tail] = {}
        self._pending: dict[str, list[dict[str, Any]]] = {}  # lines of batches not committed yet
        self._light_ids: set[str] = set()  # restored from the checkpoint without operations
        self._checkpointed = 0  # bytes of the logs the checkpoint covers
        checkpoint.load(self)  # then only what was appended since is read
        self.refresh()

    def batches(self) -> list[BatchInfo]:
        self._with_operations(None)
        return super().batches()

    def batches_since(self, start: int) -> list[BatchInfo]:
        with self._lock:
            wanted = set(self._order[start:])
        self._with_operations(wanted)  # only these: an index catching up reads the last few
        return super().batches_since(start)

    def batch(self, batch_id: str) -> BatchInfo:
        self._with_operations({batch_id})
        return super().batch(batch_id)

    def close(self) -> None:
        """Write a checkpoint when this store read much of the logs since the last one."""
        if checkpoint.worth_saving(self):
            checkpoint.save(self)

    @property
    def _light(self) -> bool:
        """Whether batches restored from the checkpoint still lack their operations."""
        return bool(self._light_ids)

    def _with_operations(self, ids: set[str] | None) -> None:
        """Batches restored from the checkpoint (of ``ids``, or all) get their operations
        (and full ``meta``) from their markers: lines whose batch id is not wanted are not
        parsed (a marker line starts with its id: keys are sorted)."""
        with self._lock:
            targets = set(self._light_ids) if ids is None else self._light_ids & ids
            if not targets:
                return
            try:
                data = (self.root / MARKERS).read_bytes()
            except FileNotFoundError:
                data = b""
            for raw in data.split(b"\n"):
                if raw.startswith(_MARKER_START):
                    end = raw.find(b'"', len(_MARKER_START))
                    if raw[len(_MARKER_START) : end].decode("utf-8", "replace") not in targets:
                        continue
                marker = decode_line(raw) if raw.strip() else None
                bid = marker.get("batch") if marker else None
                if marker is None or bid not in targets or bid not in self._batches:
                    continue
                info = BatchInfo.from_marker(marker)
                self._batches[bid] = BatchInfo(
                    info.id,
                    info.time,
                    info.reason,
                    info.ops,
                    info.meta,
                    rolled_back_by=self._batches[bid].rolled_back_by,
                )
                self._light_ids.discard(bid)
            self._light_ids -= targets  # a marker gone from the log keeps what it had

    # ------------------------------------------------------------------ reading

    def _catch_up(self) -> None:
        try:
            self._read_new()
        except _Replaced:  # repaired under us: fold the repaired files from the start
            self._light_ids.clear()
            self._reset()
            self._tails.clear()
            self._pending.clear()
            self._read_new()

    def _read_new(self) -> None:
        markers = [m for m in self._tail(MARKERS).new_lines() if isinstance(m.get("batch"), str)]
        for path in self._data_files():
            for line in self._tail(path).new_lines():
                batch = line.get("_batch")
                if isinstance(batch, str) and batch in self._batches:
                    self._fold_line(line)
                elif isinstance(batch, str):
                    self._pending.setdefault(batch, []).append(line)
        for marker in markers:
            info = BatchInfo.from_marker(marker)
            if info.id in self._batches:
                continue
            for line in self._pending.pop(info.id, []):
                self._fold_line(line)
            self._register(info)

    def _fold_line(self, line: dict[str, Any]) -> None:
        kind, rid = line.get("_kind"), line.get("id")
        if not isinstance(kind, str) or not isinstance(rid, str):
            return
        if line.get("_deleted"):
            self._fold(kind, rid, None)
            return
        try:
            self._fold(kind, rid, {k: v for k, v in line.items() if k not in ("_batch", "_kind")})
        except (TypeError, ValueError, KeyError):
            return  # a line of an unknown kind or shape: not a record this version reads

    def _data_files(self) -> list[str]:
        """The ``.jsonl`` files under ``root`` but the markers and the journal, by relative path
        (``os.walk`` without following links to directories; 0.2 ms with ``relpath``)."""
        found = []
        pending = [("", str(self.root))]
        while pending:
            rel, path = pending.pop()
            try:
                entries = list(os.scandir(path))
            except OSError:
                continue
            for entry in entries:
                name = rel + entry.name
                try:
                    is_dir = entry.is_dir()
                except OSError:
                    is_dir = False
                if is_dir:
                    if not entry.is_symlink():
                        pending.append((name + os.sep, entry.path))
                elif entry.name.endswith(".jsonl") and name not in (MARKERS, JOURNAL):
                    found.append(name)
        return sorted(found)

    def _tail(self, rel: str) -> _Tail:
        tail = self._tails.get(rel)
        if tail is None:
            tail = self._tails[rel] = _Tail(self.root / rel)
        return tail

    # ------------------------------------------------------------------ writing

    @contextmanager
    def exclusive(self, name: str) -> Iterator[None]:
        lock = self.root / "oplog" / ".lock" if name == "commit" else self.root / f".{name}.lock"
        with file_lock(lock):
            yield

    def _persist(
        self,
        info: BatchInfo,
        records: list[tuple[str, str, dict[str, Any] | None]],
        *,
        durable: bool = False,
    ) -> None:
        by_file: dict[str, list[bytes]] = {}
        for kind, rid, data in records:  # encode everything before writing anything
            line = {"id": rid, "_deleted": True} if data is None else dict(data)
            line.update(_batch=info.id, _kind=kind)
            path = route(kind, data if data is not None else {"event_time": 0})
            by_file.setdefault(path, []).append(encode_line(line))
        marker = encode_line(info.to_marker())
        # What a user wrote (a batch committed with ``durable=True``) reaches the disk before
        # the call returns even without ``fsync`` for everything: nothing can re-derive it.
        durable = durable and not self.fsync
        for rel, lines in by_file.items():
            self._append(rel, b"".join(lines))
            if durable:
                _fsync(self.root / rel)
        self._append(MARKERS, marker)
        if durable:
            _fsync(self.root / MARKERS)
        if journaled(info.meta):  # after the marker: every copy is of a committed batch
            self._append(JOURNAL, marker)
            if durable:
                _fsync(self.root / JOURNAL)
        # Our own lines are folded by the caller; move the tails past them.
        self._catch_up()

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


def _fsync(path: Path) -> None:
    """Make what was appended to ``path`` durable (fsync acts on the file, whichever
    descriptor wrote it)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


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
