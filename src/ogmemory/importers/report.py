"""What an agent-history import did, per file and in total (the CLI's final table, the REST
answer, the facade's return value)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .model import Issue

__all__ = ["FileOutcome", "ImportReport", "SessionOutcome"]

Status = Literal["new", "updated", "unchanged", "empty", "skipped"]


@dataclass(frozen=True)
class SessionOutcome:
    """One session an import touched: created, given new turns, or left as it was."""

    session_id: str
    status: Literal["new", "updated", "unchanged"]
    turns: int = 0
    messages: int = 0


@dataclass(frozen=True)
class FileOutcome:
    """One source file: what became of it, and what was left out of it."""

    path: str
    status: Status
    sessions: tuple[SessionOutcome, ...] = ()
    left_out: Mapping[str, int] = field(default_factory=dict)
    issues: tuple[Issue, ...] = ()

    @property
    def messages(self) -> int:
        return sum(s.messages for s in self.sessions)

    @property
    def turns(self) -> int:
        return sum(s.turns for s in self.sessions)

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "status": self.status,
            "messages": self.messages,
            "turns": self.turns,
            "sessions": [
                {
                    "session_id": s.session_id,
                    "status": s.status,
                    "turns": s.turns,
                    "messages": s.messages,
                }
                for s in self.sessions
            ],
            "left_out": dict(self.left_out),
            "issues": [i.to_dict() for i in self.issues],
        }


@dataclass(frozen=True)
class ImportReport:
    """Every file of one import run.

    ``left_out`` counts lines skipped on purpose (thinking, progress, hooks, snapshots...) by
    reason; ``issues`` are the lines and files that could not be read (file, line, reason).
    """

    format: str
    files: tuple[FileOutcome, ...] = ()

    @classmethod
    def of(cls, fmt: str, files: Iterable[FileOutcome]) -> ImportReport:
        return cls(fmt, tuple(files))

    def _sessions(self, status: str) -> int:
        return len({s.session_id for f in self.files for s in f.sessions if s.status == status})

    @property
    def sessions_new(self) -> int:
        return self._sessions("new")

    @property
    def sessions_updated(self) -> int:
        return self._sessions("updated")

    @property
    def sessions_unchanged(self) -> int:
        return self._sessions("unchanged")

    @property
    def turns(self) -> int:
        return sum(f.turns for f in self.files)

    @property
    def messages(self) -> int:
        return sum(f.messages for f in self.files)

    @property
    def left_out(self) -> dict[str, int]:
        total: Counter[str] = Counter()
        for f in self.files:
            total.update(f.left_out)
        return dict(sorted(total.items(), key=lambda kv: (-kv[1], kv[0])))

    @property
    def issues(self) -> tuple[Issue, ...]:
        return tuple(i for f in self.files for i in f.issues)

    @property
    def changed(self) -> bool:
        """Whether anything new was recorded."""
        return self.messages > 0

    def to_dict(self) -> dict[str, Any]:
        issues: Counter[str] = Counter(i.reason for i in self.issues)
        return {
            "format": self.format,
            "files": len(self.files),
            "sessions_new": self.sessions_new,
            "sessions_updated": self.sessions_updated,
            "sessions_unchanged": self.sessions_unchanged,
            "turns": self.turns,
            "messages": self.messages,
            "left_out": self.left_out,
            "issues_by_reason": dict(issues),
            "issues": [i.to_dict() for i in self.issues],
            "file_results": [f.to_dict() for f in self.files],
        }
