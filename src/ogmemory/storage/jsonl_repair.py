"""Recovering the JSONL knowledge logs from damaged lines (``ogmem fsck --repair``).

Every line carries a checksum (``storage.lines``), so a damaged line is known. What it held
comes back from a second place, never from the damaged bytes:

- a data line (a record version): from its batch's commit marker, which holds the after-state
  of every change the batch made;
- a commit marker: from ``oplog/user-batches.jsonl``, the second copy of every batch that is
  not a distillation over session turns (what a user wrote, rollbacks, facts of a user's
  memory); the copy is the same bytes, put back in the same place;
- the marker of a distillation batch, which has no copy: it is *lost*, and its records come
  back by distilling its turns again. ``LostBatch`` says where the distillation cursor stood
  before it and after it (from the nearest intact markers), so the caller can rewind the
  cursor and distil (``DistillService.rederive``). The lost batch's data lines stay in their
  files, never read (like the lines of a batch a crash interrupted).

A damaged line is moved to ``<log>.quarantine`` beside its log (one JSON line: its byte offset,
line number, the time and the bytes in base64), so nothing is ever dropped. Repaired files are
written to a temporary name and renamed; readers notice the new file and read it from the start.
The caller holds the store's commit lock.
"""

from __future__ import annotations

import base64
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .jsonl import JOURNAL, MARKERS, journaled, route
from .lines import decode_line, encode_line

__all__ = ["LogFile", "LogPlan", "LostBatch", "apply_plan", "plan_repair", "scan_logs"]


@dataclass(frozen=True)
class LogFile:
    """One log as read: its whole lines ``(offset, bytes, object or None = damaged)`` and a
    torn last line (bytes after the last newline)."""

    rel: str
    lines: tuple[tuple[int, bytes, dict[str, Any] | None], ...]
    torn: bytes

    @property
    def bad(self) -> list[tuple[int, int]]:
        """``(line number, byte offset)`` of every damaged line."""
        return [(n, at) for n, (at, _raw, obj) in enumerate(self.lines, start=1) if obj is None]


@dataclass(frozen=True)
class LostBatch:
    """A distillation batch whose marker is gone: the cursor before and after it (``None``
    after: up to the newest cursor)."""

    before: dict[str, Any] | None
    after: dict[str, Any] | None


@dataclass
class LogPlan:
    """What a repair writes: the new content of every file it changes, and what it recovers."""

    files: dict[str, list[bytes]] = field(default_factory=dict)
    restored_markers: int = 0
    restored_lines: int = 0
    copied: int = 0
    lost: list[LostBatch] = field(default_factory=list)
    had_copy: bool = True


def scan_logs(root: Path) -> dict[str, LogFile]:
    """Every ``*.jsonl`` under ``root``, by path relative to it."""
    found: dict[str, LogFile] = {}
    for path in sorted(p for p in root.rglob("*.jsonl") if p.is_file()):
        data = path.read_bytes()
        cut = data.rfind(b"\n") + 1
        lines, at = [], 0
        for raw in data[:cut].split(b"\n")[:-1]:
            if raw.strip():
                lines.append((at, raw, decode_line(raw)))
            at += len(raw) + 1
        found[path.relative_to(root).as_posix()] = LogFile(
            path.relative_to(root).as_posix(), tuple(lines), data[cut:]
        )
    return found


def _batch_id(obj: dict[str, Any] | None) -> str | None:
    value = obj.get("batch") if obj else None
    return value if isinstance(value, str) else None


def _markers(logs: dict[str, LogFile], plan: LogPlan) -> list[tuple[bytes, dict[str, Any]]]:
    """The commit markers after recovery from the second copy; damaged slots left unfilled
    become ``plan.lost``."""
    slots: list[tuple[bytes, dict[str, Any]] | None] = [
        (raw, obj) if obj is not None and _batch_id(obj) else None
        for _at, raw, obj in (logs[MARKERS].lines if MARKERS in logs else ())
    ]
    journal = logs.get(JOURNAL)
    plan.had_copy = journal is not None
    present = {_batch_id(s[1]) for s in slots if s is not None}
    for raw, obj in [(r, o) for _a, r, o in (journal.lines if journal else ()) if _batch_id(o)]:
        assert obj is not None
        if obj["batch"] in present:
            continue
        prev = _previous_copy(journal, obj["batch"])
        after = next((i for i, s in enumerate(slots) if s and _batch_id(s[1]) == prev), -1)
        hole = next((i for i in range(after + 1, len(slots)) if slots[i] is None), None)
        if hole is None:
            slots.insert(after + 1, (raw, obj))
        else:
            slots[hole] = (raw, obj)
        present.add(obj["batch"])
        plan.restored_markers += 1
    for i, slot in enumerate(slots):
        if slot is None:
            plan.lost.append(LostBatch(_cursor(slots[:i][::-1]), _cursor(slots[i + 1 :])))
    return [s for s in slots if s is not None]


def _previous_copy(journal: LogFile | None, batch: str) -> str | None:
    ids = [_batch_id(o) for _a, _r, o in (journal.lines if journal else ())]
    at = ids.index(batch)
    return next((b for b in reversed(ids[:at]) if b), None)


def _cursor(slots: list[tuple[bytes, dict[str, Any]] | None]) -> dict[str, Any] | None:
    for slot in slots:
        meta = slot[1].get("meta") if slot else None
        if isinstance(meta, dict) and isinstance(meta.get("cursor"), dict):
            return dict(meta["cursor"])
    return None


def plan_repair(logs: dict[str, LogFile]) -> LogPlan:
    """What ``apply_plan`` would write (nothing is changed here)."""
    plan = LogPlan()
    markers = _markers(logs, plan)
    restored = {_batch_id(obj) or "" for _raw, obj in markers} - {
        _batch_id(obj) for _a, _r, obj in (logs[MARKERS].lines if MARKERS in logs else ())
    }
    old = logs.get(MARKERS)
    new = [raw for raw, _obj in markers]
    if old is None or new != [raw for _a, raw, _o in old.lines]:
        plan.files[MARKERS] = new
    copies = [raw for raw, obj in markers if journaled(dict(obj.get("meta") or {}))]
    held = [raw for _a, raw, obj in logs[JOURNAL].lines] if JOURNAL in logs else []
    if copies != held:
        have = {_batch_id(decode_line(r)) for r in held}
        plan.copied = sum(1 for r in copies if _batch_id(decode_line(r)) not in have)
        plan.files[JOURNAL] = copies
    _data_lines(logs, markers, plan, restored)
    return plan


def _data_lines(
    logs: dict[str, LogFile],
    markers: list[tuple[bytes, dict[str, Any]]],
    plan: LogPlan,
    restored: set[str],
) -> None:
    """Data lines the markers say were written and that are not (intact) in their files: in a
    file with a damaged line, or of a batch whose marker was restored (an intact home is never
    rewritten)."""
    damaged = {rel for rel, log in logs.items() if log.bad}
    present: set[tuple[str, str, str, str]] = set()
    for rel, log in logs.items():
        for _at, _raw, obj in log.lines:
            if obj and isinstance(obj.get("_batch"), str):
                present.add((rel, obj["_batch"], str(obj.get("_kind")), str(obj.get("id"))))
    missing: dict[str, list[bytes]] = {}
    for _raw, marker in markers:
        for op in marker.get("ops") or []:
            after = op.get("after")
            rel = route(op["kind"], after if after is not None else {"event_time": 0})
            if rel not in damaged and marker["batch"] not in restored:
                continue
            if (rel, marker["batch"], op["kind"], op["id"]) in present:
                continue
            line = {"id": op["id"], "_deleted": True} if after is None else dict(after)
            line.update(_batch=marker["batch"], _kind=op["kind"])
            missing.setdefault(rel, []).append(encode_line(line))
    for rel, log in logs.items():
        if rel in (MARKERS, JOURNAL) or not (log.bad or rel in missing):
            continue
        kept = [raw for _at, raw, obj in log.lines if obj is not None]
        first_bad = next((i for i, (_a, _r, o) in enumerate(log.lines) if o is None), None)
        at = (
            len(kept)
            if first_bad is None
            else sum(1 for _a, _r, o in log.lines[:first_bad] if o is not None)
        )
        plan.files[rel] = kept[:at] + missing.pop(rel, []) + kept[at:]
    for rel, lines in missing.items():  # a file that is gone altogether
        plan.files[rel] = lines
    plan.restored_lines = sum(len(v) for v in missing.values()) + sum(
        len(lines) - sum(1 for _a, _r, o in logs[rel].lines if o is not None)
        for rel, lines in plan.files.items()
        if rel in logs and rel not in (MARKERS, JOURNAL)
    )


def apply_plan(root: Path, logs: dict[str, LogFile], plan: LogPlan) -> dict[str, int]:
    """Quarantine every damaged line and write the planned files; lines quarantined per file."""
    moved: dict[str, int] = {}
    now = time.time()
    for rel, log in logs.items():
        bad = [(n, at, raw) for n, (at, raw, obj) in enumerate(log.lines, start=1) if obj is None]
        if not bad:
            continue
        entries = b"".join(
            json.dumps(
                {
                    "offset": at,
                    "line": n,
                    "quarantined": now,
                    "bytes": base64.b64encode(raw).decode(),
                }
            ).encode()
            + b"\n"
            for n, at, raw in bad
        )
        _append_durably(root / f"{rel}.quarantine", entries)
        moved[rel] = len(bad)
        plan.files.setdefault(rel, [raw for _a, raw, obj in log.lines if obj is not None])
    for rel, lines in plan.files.items():  # a torn tail is left by a crash: not kept
        _replace(root / rel, b"".join(ln if ln.endswith(b"\n") else ln + b"\n" for ln in lines))
    return moved


def _append_durably(path: Path, data: bytes) -> None:
    with open(path, "ab") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def _replace(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.repair-{os.getpid()}")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
