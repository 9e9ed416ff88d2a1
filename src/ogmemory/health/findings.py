"""What ``ogmem fsck`` reports: findings, and the exit code they add up to.

Exit codes follow fsck(8): 0 nothing wrong; 1 problems were found and all repaired; 4 problems
remain (found without ``--repair``, or not repairable); 8 the check itself could not run.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

__all__ = ["EXIT_CLEAN", "EXIT_LEFT", "EXIT_OPERATIONAL", "EXIT_REPAIRED", "Finding", "FsckReport"]

EXIT_CLEAN = 0
EXIT_REPAIRED = 1
EXIT_LEFT = 4
EXIT_OPERATIONAL = 8

Area = Literal["session", "log", "index"]


@dataclass(frozen=True)
class Finding:
    """One problem: where (a path relative to the home), what, and what was done about it."""

    area: Area
    where: str
    problem: str
    repairable: bool
    repaired: bool = False
    action: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class FsckReport:
    """The outcome of checking one or more tenants of a home."""

    tenants: tuple[str, ...]
    sessions: int
    logs: int
    index_documents: int
    findings: tuple[Finding, ...]
    notes: tuple[str, ...] = field(default_factory=tuple)
    repair: bool = False

    @property
    def exit_code(self) -> int:
        """0 clean, 1 everything found was repaired, 4 problems remain."""
        if not self.findings:
            return EXIT_CLEAN
        return EXIT_REPAIRED if all(f.repaired for f in self.findings) else EXIT_LEFT

    @property
    def ok(self) -> bool:
        return self.exit_code == EXIT_CLEAN

    def merged(self, other: FsckReport) -> FsckReport:
        return FsckReport(
            self.tenants + other.tenants,
            self.sessions + other.sessions,
            self.logs + other.logs,
            self.index_documents + other.index_documents,
            self.findings + other.findings,
            self.notes + other.notes,
            self.repair or other.repair,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "tenants": list(self.tenants),
            "sessions": self.sessions,
            "logs": self.logs,
            "index_documents": self.index_documents,
            "repair": self.repair,
            "exit_code": self.exit_code,
            "findings": [f.to_dict() for f in self.findings],
            "notes": list(self.notes),
        }
