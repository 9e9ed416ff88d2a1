"""The knowledge logs' health (``memory/**/*.jsonl``, seeds 000 and 003), read as plain files.

Checked: every line parses and matches its checksum (``storage.lines``); the last line is whole
(a torn tail is what a killed writer leaves; readers skip it and the next writer cuts it,
``--repair`` cuts it now); every batch that needs one has its second copy; data lines of batches
without a commit marker are counted (a crash mid-batch leaves them; they are invisible by
design). ``--repair`` quarantines damaged lines and recovers what they held
(``storage.jsonl_repair``); distillation batches it cannot restore are returned as ``lost``, for
the caller to distil again.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..storage.files import file_lock
from ..storage.jsonl import JOURNAL, MARKERS
from ..storage.jsonl_repair import LogFile, LogPlan, LostBatch, apply_plan, plan_repair, scan_logs
from .findings import Finding

__all__ = ["LogHealth", "check_logs"]


@dataclass(frozen=True)
class LogHealth:
    findings: tuple[Finding, ...]
    files: int
    uncommitted_lines: int
    committed_batches: int
    lost: tuple[LostBatch, ...] = ()
    rewritten: bool = False


def check_logs(memory_dir: Path, where: str, *, repair: bool) -> LogHealth:
    """Findings for the JSONL logs under ``memory_dir`` (``where``: how to name it)."""
    if not memory_dir.is_dir():
        return LogHealth((), 0, 0, 0)
    with file_lock(memory_dir / "oplog" / ".lock"):  # no batch commits while we look
        logs = scan_logs(memory_dir)
        plan = plan_repair(logs)
        findings = [*_torn(memory_dir, where, logs, repair), *_damaged(where, logs, plan, repair)]
        if plan.copied:
            findings.append(
                Finding(
                    "log",
                    f"{where}/{JOURNAL}",
                    f"{plan.copied} batch(es) written by users have "
                    "no second copy (a writer stopped before copying, or the home predates the "
                    "copies)",
                    True,
                    repair,
                    "copied from the operation log" if repair else "",
                )
            )
        if repair and plan.files:
            apply_plan(memory_dir, logs, plan)
    markers = (
        {o["batch"] for _a, _r, o in logs[MARKERS].lines if o and isinstance(o.get("batch"), str)}
        if MARKERS in logs
        else set()
    )
    residue = sum(
        1
        for rel, log in logs.items()
        if rel not in (MARKERS, JOURNAL)
        for _a, _r, o in log.lines
        if o and isinstance(o.get("_batch"), str) and o["_batch"] not in markers
    )
    return LogHealth(
        tuple(findings),
        len(logs),
        residue,
        len(markers),
        tuple(plan.lost),
        repair and bool(plan.files),
    )


def _torn(memory_dir: Path, where: str, logs: dict[str, LogFile], repair: bool) -> list[Finding]:
    found = []
    for rel, log in logs.items():
        if not log.torn:
            continue
        if repair:
            _cut_tail(memory_dir / rel, (memory_dir / rel).stat().st_size - len(log.torn))
        found.append(
            Finding(
                "log",
                f"{where}/{rel}",
                f"torn last line ({len(log.torn)} bytes; a write was cut short)",
                True,
                repair,
                "cut off" if repair else "",
            )
        )
    return found


def _damaged(where: str, logs: dict[str, LogFile], plan: LogPlan, repair: bool) -> list[Finding]:
    found = []
    for rel, log in logs.items():
        bad = log.bad
        if not bad:
            continue
        shown = ", ".join(f"{n} (byte {at})" for n, at in bad[:10]) + (
            " ..." if len(bad) > 10 else ""
        )
        if rel == MARKERS:
            how = (
                f"{plan.restored_markers} batch(es) restored from {JOURNAL}, "
                f"{len(plan.lost)} distillation batch(es) distilled again from the sessions"
            )
            if plan.lost and not plan.had_copy:
                how += " (this home had no second copy: a lost batch a user wrote is gone)"
        elif rel == JOURNAL:
            how = "copied again from the operation log"
        else:
            how = f"{plan.restored_lines} record version(s) restored from their batch markers"
        found.append(
            Finding(
                "log",
                f"{where}/{rel}",
                f"{len(bad)} corrupt line(s): {shown} (their records are not read)",
                True,
                repair,
                f"quarantined in {Path(rel).name}.quarantine; {how}" if repair else "",
            )
        )
    return found


def _cut_tail(path: Path, size: int) -> None:
    with open(path, "r+b") as fh:
        fh.truncate(size)
        fh.flush()
        os.fsync(fh.fileno())
