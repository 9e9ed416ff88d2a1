"""The knowledge logs' health (``memory/**/*.jsonl``, seeds 000 and 003), read as plain files.

Checked: every line parses as a JSON object; the last line is whole (a torn tail is what a
killed writer leaves; readers skip it and the next writer cuts it, ``--repair`` cuts it now);
data lines of batches without a commit marker are counted (a crash mid-batch leaves them; they
are invisible by design). A corrupt line in the middle of a log is reported and not repaired
here: that needs the per-line checksums and re-derivation of issue 10's second phase.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..storage.files import file_lock
from .findings import Finding

__all__ = ["LogHealth", "check_logs"]

MARKERS = Path("oplog") / "batches.jsonl"


@dataclass(frozen=True)
class LogHealth:
    findings: tuple[Finding, ...]
    files: int
    uncommitted_lines: int
    committed_batches: int


def _parse(line: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def check_logs(memory_dir: Path, where: str, *, repair: bool) -> LogHealth:
    """Findings for the JSONL logs under ``memory_dir`` (``where``: how to name it)."""
    if not memory_dir.is_dir():
        return LogHealth((), 0, 0, 0)
    files = sorted(p for p in memory_dir.rglob("*.jsonl") if p.is_file())
    findings: list[Finding] = []
    batches: set[str] = set()
    data_batches: list[str] = []
    with file_lock(memory_dir / "oplog" / ".lock"):  # no batch commits while we look
        for path in files:
            rel = f"{where}/{path.relative_to(memory_dir)}"
            raw = path.read_bytes()
            lines = raw.split(b"\n")
            tail = lines.pop()  # b"" when the file ends with a newline
            if tail:
                if repair:
                    _cut_tail(path, len(raw) - len(tail))
                findings.append(Finding("log", rel, f"torn last line ({len(tail)} bytes; a "
                                        "write was cut short)", True, repair,
                                        "cut off" if repair else ""))
            bad = []
            for number, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                record = _parse(line)
                if record is None:
                    bad.append(number)
                elif path.relative_to(memory_dir) == MARKERS:
                    if isinstance(record.get("batch"), str):
                        batches.add(record["batch"])
                elif isinstance(record.get("_batch"), str):
                    data_batches.append(record["_batch"])
            if bad:
                shown = ", ".join(str(n) for n in bad[:10]) + (" ..." if len(bad) > 10 else "")
                findings.append(Finding("log", rel, f"{len(bad)} corrupt line(s): {shown} "
                                        "(their records are not read)", False))
    residue = sum(1 for b in data_batches if b not in batches)
    return LogHealth(tuple(findings), len(files), residue, len(batches))


def _cut_tail(path: Path, size: int) -> None:
    with open(path, "r+b") as fh:
        fh.truncate(size)
        fh.flush()
        os.fsync(fh.fileno())
