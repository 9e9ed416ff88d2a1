"""``ogmem fsck``: check a home, and with ``repair`` fix what can be fixed from the home itself.

Per tenant: every session repository (``health.sessions``), the knowledge logs (``health.logs``;
repaired logs are read again, the turns of lost distillation batches are distilled again, and the
index is rebuilt), and the index (a usable SQLite file that agrees with the sessions; a damaged or
disagreeing index is rebuilt from the files, as ``ogmem reindex`` does).

>>> report = check_tenant(Memory(home="~/.ogmemory"))         # doctest: +SKIP
>>> report.exit_code                                          # doctest: +SKIP
0
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..config import Settings
from ..storage.jsonl_repair import LostBatch
from ..tenancy import validate_id
from .findings import Finding, FsckReport
from .index import check_index, index_gaps
from .logs import check_logs
from .sessions import check_session

if TYPE_CHECKING:
    from ..memory import Memory

__all__ = ["check_home", "check_tenant", "home_tenants"]


def check_tenant(mem: Memory, *, repair: bool = False) -> FsckReport:
    """Check (and with ``repair``, repair) the tenant ``mem`` serves."""
    tenant = mem.tenant
    home = mem.settings.home
    name = f"{tenant.account}/{tenant.space}"
    findings: list[Finding] = []
    notes: list[str] = []
    committed: dict[str, tuple[int, ...]] = {}
    sessions = mem.list_sessions()
    for info in sessions:
        path = Path(info.path)
        health = check_session(path, info.session_id, _shown(path, home), repair=repair)
        findings += health.findings
        committed[info.session_id] = health.committed_seqs
        if health.note:
            notes.append(health.note)
    logs = check_logs(tenant.memory_dir, _shown(tenant.memory_dir, home), repair=repair)
    findings += logs.findings
    if logs.uncommitted_lines:
        notes.append(
            f"{name}: {logs.uncommitted_lines} log line(s) of batches that never "
            "committed (left by interrupted writes; never read)"
        )
    if logs.rewritten:
        findings += _recover(mem, logs.lost, _shown(tenant.memory_dir, home))
    index_findings, documents = _check_index(mem, committed, repair=repair, rebuild=logs.rewritten)
    findings += index_findings
    return FsckReport(
        (name,), len(sessions), logs.files, documents, tuple(findings), tuple(notes), repair
    )


def _recover(mem: Memory, lost: Sequence[LostBatch], where: str) -> list[Finding]:
    """Read the repaired logs, and distil the turns of lost distillation batches again."""
    mem.knowledge.kb.refresh()  # the store sees the replaced files and reads them anew
    if not lost:
        return []
    try:
        mem.distillation.rederive([(b.before, b.after) for b in lost])
    except Exception as exc:
        return [
            Finding(
                "log",
                where,
                f"distilling the turns of {len(lost)} lost batch(es) "
                f"again failed: {exc}; run 'ogmem sleep'",
                True,
                False,
            )
        ]
    return []


def _check_index(
    mem: Memory, committed: dict[str, tuple[int, ...]], *, repair: bool, rebuild: bool = False
) -> tuple[list[Finding], int]:
    path = mem.index_path
    where = _shown(path, mem.settings.home)
    problems = []
    damage = check_index(path, thorough=True)
    if damage is not None:
        problems.append(f"index {damage}")
    else:
        problems += index_gaps(path, committed)
    if (problems and repair) or rebuild:
        mem.reindex(wait_for_vectors=False)  # drops the index, whatever state it is in
    findings = [
        Finding(
            "index", where, p, True, repair, "rebuilt from the files (reindex)" if repair else ""
        )
        for p in problems
    ]
    documents = mem.index_stats()["documents"] if (repair or not problems) else 0
    return findings, documents


def _shown(path: Path, home: Path) -> str:
    """``path`` relative to the home when it is inside it (sessions may live in projects)."""
    try:
        return str(path.relative_to(home))
    except ValueError:
        return str(path)


def home_tenants(home: Path) -> list[tuple[str, str]]:
    """Every ``(account, space)`` with a directory under ``<home>/tenants``."""
    root = home / "tenants"
    found = []
    for account in sorted(os.listdir(root)) if root.is_dir() else []:
        if not (root / account).is_dir():
            continue
        for space in sorted(os.listdir(root / account)):
            if (root / account / space).is_dir():
                found.append((account, space))
    return found


def check_home(
    settings: Settings, *, repair: bool = False, tenants: Iterable[tuple[str, str]] | None = None
) -> FsckReport:
    """Check every tenant of ``settings.home`` (or the given ones)."""
    from ..memory import Memory

    chosen = list(tenants) if tenants is not None else home_tenants(settings.home)
    report = FsckReport((), 0, 0, 0, ())
    for account, space in chosen:
        validate_id(account, "account")
        validate_id(space, "space")
        tenant_settings = settings.with_tenant(account, space)
        with Memory(settings=tenant_settings) as mem:
            report = report.merged(check_tenant(mem, repair=repair))
    return report
