"""One atomic batch of knowledge changes, staged with a read-your-writes view: new memories
with their evidence snapshots, added evidence, withdrawn support, any record put. Opened by
``KnowledgeBase.begin``; nothing is visible to readers until ``commit``."""

from __future__ import annotations

import uuid
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from ..entity.records import Provenance
from ..errors import InvalidInput, NotFound
from ..storage.folded import BatchInfo
from ..storage.protocols import KnowledgeBatchWriter
from .models import Edge, Entity, Evidence, KnowledgeRecord, MemoryItem, TimelineEvent
from .names import detect_language, follow_merges

if TYPE_CHECKING:
    from .base import KnowledgeBase

__all__ = ["KnowledgeBatch"]

R = TypeVar("R")


class KnowledgeBatch:
    """Stages the changes of one atomic batch with a read-your-writes view."""

    def __init__(self, kb: KnowledgeBase, writer: KnowledgeBatchWriter) -> None:
        self.kb = kb
        self.writer = writer
        self.now = writer.now

    @property
    def id(self) -> str:
        return self.writer.id

    def get(self, kind: type[R], rid: str) -> R | None:
        return self.writer.get(kind, rid)

    def resolve(self, entity_id: str) -> str:
        """An entity id followed along merges as this batch would leave them."""
        return follow_merges(entity_id, lambda i: self.writer.get(Entity, i))

    def new_memory(
        self,
        text: str,
        *,
        type: str,
        scope: str = "global",
        provenance: Provenance | None = None,
        quote: str | None = None,
        source: str = "user",
        importance: float = 0.5,
        language: str | None = None,
        attrs: dict[str, Any] | None = None,
    ) -> MemoryItem:
        text = text.strip()
        if not text:
            raise InvalidInput("memory text must not be empty")
        mid = f"m_{uuid.uuid4().hex[:12]}"
        ev = Evidence(
            id=f"ev_{uuid.uuid4().hex[:12]}",
            memory_id=mid,
            quote=quote or text,
            provenance=provenance,
            created_at=self.now,
        )
        mem = MemoryItem(
            id=mid,
            text=text,
            type=type,
            source=source,
            scope=scope,
            created_at=self.now,
            updated_at=self.now,
            evidence_ids=(ev.id,),
            importance=importance,
            language=language or detect_language(text),
            attrs=attrs or {},
        )
        self.writer.put(ev)
        self.writer.put(mem)
        return mem

    def add_evidence(self, memory_id: str, provenance: Provenance, quote: str) -> Evidence:
        mem = self.writer.get(MemoryItem, memory_id)
        if mem is None:
            raise NotFound(f"memory not found: {memory_id}")
        ev = Evidence(
            id=f"ev_{uuid.uuid4().hex[:12]}",
            memory_id=memory_id,
            quote=quote,
            provenance=provenance,
            created_at=self.now,
        )
        self.writer.put(ev)
        self.writer.put(mem.evolve(evidence_ids=(*mem.evidence_ids, ev.id)))
        return ev

    def withdraw_support(self, memory_id: str) -> None:
        """Stage the removal of ``memory_id`` from the support of every edge, event and
        entity derived from it."""
        derived: list[Edge | TimelineEvent | Entity] = [
            *self.kb.store.all(Edge),
            *self.kb.store.all(TimelineEvent),
            *self.kb.store.all(Entity),
        ]
        for rec in derived:
            if memory_id in rec.support:
                kept = tuple(s for s in rec.support if s != memory_id)
                self.writer.put(replace(rec, support=kept))

    def put(
        self,
        record: KnowledgeRecord,
        *,
        expect_version: int | None = None,
        check_version: bool = False,
    ) -> None:
        self.writer.put(record, expect_version=expect_version, check_version=check_version)

    def commit(self, **meta: Any) -> BatchInfo | None:
        return self.writer.commit(**meta)
