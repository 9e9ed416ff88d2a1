"""The version history of a memory, read from the operation log.

Every change to the memory list is a batch whose marker holds the before/after of each record it
changed (``logstore.py``), so the history of one memory is the sequence of those changes: its
creation, every edit, enable, disable and deletion, and every rollback that restored an earlier
state. Nothing is stored twice; this module only reads the batches.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..storage.folded import BatchInfo

__all__ = ["MemoryVersion", "memory_versions"]

#: Fields that change with every version and say nothing about what changed.
_BOOKKEEPING = frozenset({"version", "updated_at", "_batch", "_kind"})


@dataclass(frozen=True)
class MemoryVersion:
    """One change of a memory: the state a batch left it in, and what that batch changed.

    ``after`` is ``None`` when the batch removed the record (the rollback of its creation);
    ``changed`` names the fields whose value differs from ``before`` (all of them for the
    creation). ``rollback_of`` is set when the change was a rollback of that batch;
    ``rolled_back_by`` when this change was itself undone later.
    """

    batch_id: str
    time: float
    reason: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    changed: tuple[str, ...]
    rollback_of: str | None = None
    rolled_back_by: str | None = None

    @property
    def version(self) -> int | None:
        """The memory's version number after this change (``None``: removed)."""
        value = (self.after or {}).get("version")
        return value if isinstance(value, int) else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "batch_id": self.batch_id,
            "time": self.time,
            "reason": self.reason,
            "version": self.version,
            "before": self.before,
            "after": self.after,
            "changed": list(self.changed),
            "rollback_of": self.rollback_of,
            "rolled_back_by": self.rolled_back_by,
        }


def changed_fields(before: dict[str, Any] | None, after: dict[str, Any] | None) -> tuple[str, ...]:
    """The fields whose value differs between two versions of a record, sorted.

    >>> changed_fields({"text": "a", "enabled": True}, {"text": "b", "enabled": True})
    ('text',)
    """
    old, new = before or {}, after or {}
    keys = (set(old) | set(new)) - _BOOKKEEPING
    return tuple(sorted(k for k in keys if old.get(k) != new.get(k)))


def memory_versions(batches: Iterable[BatchInfo], memory_id: str) -> list[MemoryVersion]:
    """Every change of ``memory_id`` in ``batches`` (the operation log), oldest first.

    >>> [v.version for v in memory_versions(mem.batches(), "m_0123")]   # doctest: +SKIP
    [1, 2, 3]
    """
    out = []
    for info in batches:
        for op in info.ops:
            if op.kind != "memory" or op.id != memory_id:
                continue
            target = info.meta.get("rollback_of")
            out.append(
                MemoryVersion(
                    batch_id=info.id,
                    time=info.time,
                    reason=info.reason,
                    before=_clean(op.before),
                    after=_clean(op.after),
                    changed=changed_fields(op.before, op.after),
                    rollback_of=target if isinstance(target, str) else None,
                    rolled_back_by=info.rolled_back_by,
                )
            )
    return out


def _clean(record: dict[str, Any] | None) -> dict[str, Any] | None:
    if record is None or record.get("_deleted"):
        return None
    return {k: v for k, v in record.items() if k not in ("_batch", "_kind")}
