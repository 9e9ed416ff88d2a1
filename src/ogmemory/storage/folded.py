"""What every knowledge-store backend shares: committed state folded from atomic batches.

A backend persists batches (the JSONL files, memory, a database); this module holds the rules
that must not differ between them:

- a batch stages typed record versions and becomes visible only when it commits, all at once;
- committing computes the operation log: the before/after of every record it changes (a put
  that changes nothing is dropped), and fails with ``Conflict`` when an optimistic version check
  no longer holds;
- a rollback is a new batch that restores every before-state, refused when a later batch
  changed one of the same records (unless forced).

Record versions travel as their JSON form (``record_to_json``) in the operation log, so what
``ogmem batches`` shows is exactly what was written.
"""

from __future__ import annotations

import threading
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..errors import Conflict, InvalidInput, NotFound
from ..knowledge.models import KnowledgeRecord, kind_of, record_from_json, record_to_json

__all__ = ["BatchInfo", "FoldedStore", "Op", "StagedBatch", "new_batch_id"]

R = TypeVar("R")


@dataclass(frozen=True)
class Op:
    """One record change inside a batch (JSON forms; ``None`` = absent)."""

    kind: str
    id: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "id": self.id, "before": self.before, "after": self.after}


@dataclass(frozen=True)
class BatchInfo:
    """A committed batch, as ``ogmem batches`` lists it."""

    id: str
    time: float
    reason: str
    ops: tuple[Op, ...]
    meta: dict[str, Any] = field(default_factory=dict)
    rolled_back_by: str | None = None

    def to_dict(self) -> dict[str, Any]:
        counts: dict[str, int] = {}
        for op in self.ops:
            counts[op.kind] = counts.get(op.kind, 0) + 1
        return {
            "id": self.id,
            "time": self.time,
            "reason": self.reason,
            "ops": len(self.ops),
            "by_kind": counts,
            "rolled_back_by": self.rolled_back_by,
            **{k: v for k, v in self.meta.items() if k != "cursor"},
        }

    @classmethod
    def from_marker(cls, marker: dict[str, Any]) -> BatchInfo:
        """A batch from its stored commit marker."""
        ops = tuple(
            Op(o["kind"], o["id"], o.get("before"), o.get("after")) for o in marker.get("ops", [])
        )
        return cls(
            id=marker["batch"],
            time=float(marker.get("time", 0)),
            reason=str(marker.get("reason", "")),
            ops=ops,
            meta=dict(marker.get("meta") or {}),
        )

    def to_marker(self) -> dict[str, Any]:
        """The stored commit marker of this batch."""
        return {
            "batch": self.id,
            "time": self.time,
            "reason": self.reason,
            "ops": [op.to_dict() for op in self.ops],
            "meta": self.meta,
        }


def new_batch_id() -> str:
    return f"b_{time.strftime('%Y%m%dT%H%M%S')}_{uuid.uuid4().hex[:8]}"


class StagedBatch:
    """Record versions staged for one atomic commit, with a read-your-writes view.

    >>> batch = store.begin("distill")                                  # doctest: +SKIP
    >>> batch.put(edge)                                                 # doctest: +SKIP
    >>> batch.commit(cursor={"s1": 4})                                  # doctest: +SKIP
    """

    def __init__(self, store: FoldedStore, reason: str) -> None:
        self.store = store
        self.reason = reason
        self.id = new_batch_id()
        self.now = time.time()
        self._puts: dict[tuple[str, str], KnowledgeRecord | None] = {}
        self._checks: dict[tuple[str, str], int | None] = {}

    def get(self, kind: type[R], rid: str) -> R | None:
        """The record as this batch would leave it (staged version, else committed)."""
        key = (kind_of(kind), rid)
        if key in self._puts:
            return self._puts[key]  # type: ignore[return-value]
        return self.store.get(kind, rid)

    def put(
        self,
        record: KnowledgeRecord,
        *,
        expect_version: int | None = None,
        check_version: bool = False,
    ) -> None:
        """Stage a new version of ``record``. With ``check_version``, the commit fails with
        ``Conflict`` unless the committed record's ``version`` still equals ``expect_version``
        (optimistic concurrency; ``None`` = absent)."""
        rid = getattr(record, "id", None)
        kind = kind_of(record)
        if not isinstance(rid, str) or not rid:
            raise InvalidInput(f"a {kind} record needs a string id")
        if check_version:
            self._checks[(kind, rid)] = expect_version
        self._puts[(kind, rid)] = record

    def remove(self, kind: type[Any], rid: str) -> None:
        """Stage the removal of a record (only rollbacks of the batch that created it do this)."""
        self._puts[(kind_of(kind), rid)] = None

    def __len__(self) -> int:
        return len(self._puts)

    def resolve(self) -> list[Op]:
        """The changes this batch makes to the committed state (raises ``Conflict``)."""
        for (kind, rid), expected in self._checks.items():
            current = self.store._get_kind(kind, rid)
            version = getattr(current, "version", None) if current is not None else None
            if version != expected:
                raise Conflict(f"{kind} {rid}: version is {version}, expected {expected}")
        ops = []
        for (kind, rid), rec in self._puts.items():
            old = self.store._get_kind(kind, rid)
            before = record_to_json(old) if old is not None else None
            after = record_to_json(rec) if rec is not None else None
            if before != after:
                ops.append(Op(kind, rid, before, after))
        return ops

    def commit(self, **meta: Any) -> BatchInfo | None:
        """Write the batch; ``None`` if it changed nothing (and carried no forced marker)."""
        return self.store._commit(self, meta)


class FoldedStore(ABC):
    """Typed committed state and the batch rules; backends add persistence.

    A backend implements ``_persist`` (write the batch's record versions and its commit marker
    so that either all become visible or none) and ``_catch_up`` (fold what other processes
    committed), and ``exclusive`` (one holder per name across every process using the store).
    """

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._state: dict[str, dict[str, KnowledgeRecord]] = {}
        self._batches: dict[str, BatchInfo] = {}
        self._order: list[str] = []
        self._listeners: list[Callable[[BatchInfo], None]] = []
        self._epoch = 0  # grows on every reset, so ``version`` never repeats a cache key

    # ------------------------------------------------------------------ backend hooks

    @abstractmethod
    def _persist(
        self,
        info: BatchInfo,
        records: list[tuple[str, str, dict[str, Any] | None]],
        *,
        durable: bool = False,
    ) -> None:
        """Make the batch durable: ``records`` are ``(kind, id, json or None=removed)``;
        ``durable``: what a user wrote, on disk (fsync'd) before this returns."""

    @abstractmethod
    def _catch_up(self) -> None:
        """Fold batches committed elsewhere since the last look (no-op for a private store)."""

    @abstractmethod
    def exclusive(self, name: str) -> AbstractContextManager[None]:
        """A lock named ``name`` held across every process sharing this store."""

    def close(self) -> None:  # noqa: B027 - a default, not an abstract method
        """Release resources (files are closed after each use; databases override this)."""

    # ------------------------------------------------------------------ folding

    def _fold(self, kind: str, rid: str, data: dict[str, Any] | None) -> None:
        bucket = self._state.setdefault(kind, {})
        if data is None:
            bucket.pop(rid, None)
        else:
            bucket[rid] = record_from_json(kind, data)

    def _reset(self) -> None:
        """Forget every folded record and batch (the backend reads its files again)."""
        self._epoch += len(self._order) + 1
        self._state.clear()
        self._batches.clear()
        self._order.clear()

    def _register(self, info: BatchInfo) -> None:
        """Record a committed batch (its records are already folded)."""
        if info.id in self._batches:
            return
        self._batches[info.id] = info
        self._order.append(info.id)
        target = info.meta.get("rollback_of")
        if isinstance(target, str) and target in self._batches:
            old = self._batches[target]
            self._batches[target] = BatchInfo(
                old.id, old.time, old.reason, old.ops, old.meta, rolled_back_by=info.id
            )
        for listener in self._listeners:
            listener(info)

    # ------------------------------------------------------------------ reading

    def refresh(self) -> None:
        """See what other processes committed."""
        with self._lock:
            self._catch_up()

    def _get_kind(self, kind: str, rid: str) -> KnowledgeRecord | None:
        with self._lock:
            return self._state.get(kind, {}).get(rid)

    def get(self, kind: type[R], rid: str) -> R | None:
        """The committed record of type ``kind`` with id ``rid``."""
        return self._get_kind(kind_of(kind), rid)  # type: ignore[return-value]

    def all(self, kind: type[R]) -> list[R]:
        """Every committed record of type ``kind`` (in no particular order)."""
        with self._lock:
            return list(self._state.get(kind_of(kind), {}).values())  # type: ignore[arg-type]

    def count(self, kind: type[Any]) -> int:
        with self._lock:
            return len(self._state.get(kind_of(kind), {}))

    def iter_all(self) -> Iterator[KnowledgeRecord]:
        with self._lock:
            items = [r for bucket in self._state.values() for r in bucket.values()]
        yield from items

    @property
    def version(self) -> int:
        """A cheap cache key that grows with every batch committed (as far as this reader has
        seen; the number of batches unless the logs were repaired under this reader)."""
        return self._epoch + len(self._order)

    def batches(self) -> list[BatchInfo]:
        with self._lock:
            return [self._batches[b] for b in self._order]

    def batches_since(self, start: int) -> list[BatchInfo]:
        """The batches after the first ``start`` (an index catching up with new ones)."""
        with self._lock:
            return [self._batches[b] for b in self._order[start:]]

    def batch(self, batch_id: str) -> BatchInfo:
        with self._lock:
            self._catch_up()
            info = self._batches.get(batch_id)
            if info is None:
                raise NotFound(f"batch not found: {batch_id}")
            return info

    def last_meta(self, key: str) -> Any:
        """``meta[key]`` of the newest committed batch that set it (e.g. a cursor)."""
        with self._lock:
            for bid in reversed(self._order):
                if key in self._batches[bid].meta:
                    return self._batches[bid].meta[key]
        return None

    def on_commit(self, listener: Callable[[BatchInfo], None]) -> None:
        """Call ``listener`` for every batch committed from now on."""
        self._listeners.append(listener)

    # ------------------------------------------------------------------ writing

    def begin(self, reason: str) -> StagedBatch:
        return StagedBatch(self, reason)

    def _commit(self, staged: StagedBatch, meta: dict[str, Any]) -> BatchInfo | None:
        with self._lock, self.exclusive("commit"):
            self._catch_up()
            ops = staged.resolve()
            force = bool(meta.pop("force_marker", False))
            durable = bool(meta.pop("durable", False))
            if not ops and not force:
                return None
            info = BatchInfo(
                id=staged.id, time=time.time(), reason=staged.reason, ops=tuple(ops), meta=meta
            )
            self._persist(info, [(op.kind, op.id, op.after) for op in ops], durable=durable)
            for op in ops:
                self._fold(op.kind, op.id, op.after)
            self._register(info)
            return self._batches[info.id]

    def rollback(self, batch_id: str, *, force: bool = False, **meta: Any) -> BatchInfo:
        """Undo a committed batch by committing a batch that restores every ``before`` state.

        Refused (``Conflict``) when the batch was already rolled back, is itself a rollback, or
        (unless ``force``) when a later batch changed one of its records. ``meta`` goes into
        the undo's marker (the distillation's rewound ``cursor``).
        """
        with self._lock:
            info = self.batch(batch_id)
            if info.rolled_back_by:
                raise Conflict(f"batch {batch_id} was already rolled back by {info.rolled_back_by}")
            if info.meta.get("rollback_of"):
                raise Conflict(
                    f"batch {batch_id} is itself a rollback; roll back "
                    f"{info.meta['rollback_of']} again by re-running it instead"
                )
            if not force:
                for op in info.ops:
                    current = self._get_kind(op.kind, op.id)
                    if (record_to_json(current) if current is not None else None) != op.after:
                        raise Conflict(
                            f"{op.kind} {op.id} changed after batch {batch_id}; "
                            "roll back the later batches first (or force)"
                        )
            undo = self.begin(f"rollback {batch_id}")
            for op in reversed(info.ops):
                if op.before is None:
                    undo._puts[(op.kind, op.id)] = None
                else:
                    undo._puts[(op.kind, op.id)] = record_from_json(op.kind, op.before)
            # The distillation cursor is not rewound here; the pipeline decides what a rollback
            # of one of its batches returns to the pending set (``meta``).
            result = undo.commit(rollback_of=batch_id, force_marker=True, durable=True, **meta)
            assert result is not None
            return result
