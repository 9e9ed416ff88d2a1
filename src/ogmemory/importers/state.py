"""Incremental-sync state: per source file, how far it was imported and into which sessions.

One small JSON file per source, under the tenant's directory::

    <tenant>/imports/<format>/<sha1 of the source>.json

holding the file's identity (device, inode, the digest of its first bytes), its size and
modification time when last read, the byte offset and line number imported so far, the
sessions it maps to, and the parser's context. Each is written atomically after its file's
sessions are committed; a crash in between only means the next run reads those lines again,
and finds their nodes already recorded (node ids come from the source), so nothing doubles.
A tenant-wide lock keeps two imports (a ``--watch`` and a manual run) from interleaving.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..storage.files import atomic_write_json, file_lock, read_json

__all__ = ["HEAD_BYTES", "FileState", "StateStore", "head_digest"]

#: The first bytes of a file, hashed: the same file (moved, copied) keeps them; a file written
#: anew under the same name does not.
HEAD_BYTES = 4096


def head_digest(data: bytes) -> str:
    return hashlib.sha1(data[:HEAD_BYTES]).hexdigest()


@dataclass(frozen=True)
class FileState:
    """What the last import of one source saw and did."""

    source: str
    size: int = 0
    mtime_ns: int = 0
    device: int = 0
    inode: int = 0
    head: str = ""
    #: The digest covered this many bytes (a file shorter than ``HEAD_BYTES`` grows into it).
    head_len: int = 0
    offset: int = 0
    line: int = 0
    sessions: tuple[str, ...] = ()
    context: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "size": self.size,
            "mtime_ns": self.mtime_ns,
            "device": self.device,
            "inode": self.inode,
            "head": self.head,
            "head_len": self.head_len,
            "offset": self.offset,
            "line": self.line,
            "sessions": list(self.sessions),
            "context": self.context,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FileState:
        return cls(
            source=str(data.get("source", "")),
            size=int(data.get("size", 0)),
            mtime_ns=int(data.get("mtime_ns", 0)),
            device=int(data.get("device", 0)),
            inode=int(data.get("inode", 0)),
            head=str(data.get("head", "")),
            head_len=int(data.get("head_len", 0)),
            offset=int(data.get("offset", 0)),
            line=int(data.get("line", 0)),
            sessions=tuple(str(s) for s in data.get("sessions") or ()),
            context=dict(data.get("context") or {}),
        )

    def unchanged(self, stat: os.stat_result) -> bool:
        """Same size and modification time as when last read: nothing to do."""
        return bool(self.head) and stat.st_size == self.size and stat.st_mtime_ns == self.mtime_ns

    def same_start(self, data: bytes) -> bool:
        """The bytes already imported are still there (the file only grew)."""
        if len(data) < self.offset:
            return False
        return hashlib.sha1(data[: self.head_len]).hexdigest() == self.head

    def after(
        self,
        data: bytes,
        stat: os.stat_result | None,
        *,
        offset: int,
        line: int,
        sessions: tuple[str, ...],
        context: dict[str, Any],
    ) -> FileState:
        """The state once ``data`` was read up to ``offset``."""
        head_len = min(len(data), HEAD_BYTES)
        return replace(
            self,
            size=stat.st_size if stat else len(data),
            mtime_ns=stat.st_mtime_ns if stat else 0,
            device=stat.st_dev if stat else 0,
            inode=stat.st_ino if stat else 0,
            head=hashlib.sha1(data[:head_len]).hexdigest(),
            head_len=head_len,
            offset=offset,
            line=line,
            sessions=tuple(dict.fromkeys((*self.sessions, *sessions))),
            context=context,
        )


class StateStore:
    """The sync states of one tenant, one file per source."""

    def __init__(self, root: Path, *, fsync: bool = False) -> None:
        self.root = root / "imports"
        self.fsync = fsync

    def _path(self, fmt: str, source: str) -> Path:
        return self.root / fmt / f"{hashlib.sha1(source.encode()).hexdigest()[:24]}.json"

    def get(self, fmt: str, source: str) -> FileState:
        """The state of ``source`` (a fresh one if it was never imported)."""
        data = read_json(self._path(fmt, source))
        if isinstance(data, dict) and data.get("source") == source:
            try:
                return FileState.from_dict(data)
            except (TypeError, ValueError):
                pass  # unreadable: read the file from the start; node ids keep that harmless
        return FileState(source)

    def put(self, fmt: str, state: FileState) -> None:
        atomic_write_json(self._path(fmt, state.source), state.to_dict(), fsync=self.fsync)

    def all(self, fmt: str) -> list[FileState]:
        folder = self.root / fmt
        out = []
        for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
            data = read_json(path)
            if isinstance(data, dict):
                out.append(FileState.from_dict(data))
        return out

    @contextmanager
    def locked(self) -> Iterator[None]:
        """One import at a time per tenant (across processes)."""
        with file_lock(self.root / ".lock"):
            yield
