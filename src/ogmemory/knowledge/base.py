"""The knowledge base of one tenant: timeline, graph and memory list as read-time projections
over a ``KnowledgeStore`` (seeds 000 + 003).

Reads are projections: a derived record (entity, edge, event) is visible only while one of the
memories supporting it is enabled, and only within the requested scopes. Writes are atomic
batches (``begin``); what a backend keeps and how is the store's business.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from ..entity.records import Provenance
from ..errors import InvalidInput, NotFound
from ..storage.folded import BatchInfo
from ..storage.protocols import KnowledgeStore
from .batch import KnowledgeBatch
from .models import Edge, Entity, Evidence, MemoryItem, TimelineEvent
from .names import follow_merges, normalize_name
from .projection import project_edges, project_events
from .scopes import scope_allows

__all__ = ["KnowledgeBase"]


class KnowledgeBase:
    """Timeline, graph and memory list of one tenant. Thread-safe; process-safe per batch.

    ``root`` is where the projections people read are written (core.md, entity views).
    """

    def __init__(self, store: KnowledgeStore, root: Path) -> None:
        self.store = store
        self.root = root
        self._lock = threading.RLock()
        self._cache_key = -1
        self._active: set[str] = set()
        self._aliases: dict[str, str] = {}
        self._vis_key = -1
        self._vis: tuple[set[str], set[str]] = (set(), set())

    @property
    def views_dir(self) -> Path:
        """Where the entity views (``<id>.md``) are projected."""
        return self.root / "graph" / "views" / "entity"

    @property
    def core_path(self) -> Path:
        """Where core.md is projected."""
        return self.root / "core.md"

    # ================================================================== derived caches

    def refresh(self) -> None:
        """See what other processes committed."""
        self.store.refresh()

    @property
    def version(self) -> int:
        return self.store.version

    def _derived(self) -> None:
        with self._lock:
            key = self.store.version
            if key == self._cache_key:
                return
            self._active = {m.id for m in self.store.all(MemoryItem) if m.active}
            aliases: dict[str, str] = {}
            for ent in self.store.all(Entity):
                for name in [ent.name, *ent.aliases]:
                    key_name = normalize_name(str(name))
                    if key_name:
                        aliases.setdefault(key_name, ent.id)
            self._aliases = aliases
            self._cache_key = key

    def active_memory_ids(self) -> set[str]:
        self.store.refresh()
        self._derived()
        return set(self._active)

    def visible(self, support: Iterable[str]) -> bool:
        """A derived record is visible while any supporting memory is active; one that no
        memory supports any more (all withdrawn) is not."""
        self._derived()
        return any(i in self._active for i in support)

    def visibility(self) -> tuple[set[str], set[str]]:
        """``(active memory ids, hidden node ids)``, cached per batch: what recall and search
        may show. A turn is hidden while it is evidence of a disabled or deleted memory and of
        no enabled one (forget means forget; another memory resting on it keeps it)."""
        self.store.refresh()
        with self._lock:
            key = self.store.version
            if key != self._vis_key:
                active = self.active_memory_ids()
                hidden: set[str] = set()
                kept: set[str] = set()
                for mem in self.store.all(MemoryItem):
                    nodes = hidden if mem.id not in active else kept
                    for ev in self.evidence_of(mem):
                        if ev.provenance is not None:
                            nodes.update(ev.provenance.node_ids)
                self._vis = (active, hidden - kept)
                self._vis_key = key
            return self._vis

    # ================================================================== entities

    def resolve_id(self, entity_id: str) -> str:
        """Follow ``merged_into`` to the surviving entity."""
        return follow_merges(entity_id, lambda i: self.store.get(Entity, i))

    def lookup(self, name: str) -> Entity | None:
        """The entity a name (or alias, or id) refers to."""
        self.store.refresh()
        self._derived()
        ent = self.store.get(Entity, name)
        if ent is None:
            eid = self._aliases.get(normalize_name(name))
            ent = self.store.get(Entity, eid) if eid else None
        if ent is None:
            return None
        return self.store.get(Entity, self.resolve_id(ent.id))

    def entity(self, entity_id: str) -> Entity:
        ent = self.lookup(entity_id)
        if ent is None:
            raise NotFound(f"entity not found: {entity_id}")
        return ent

    def entities(
        self,
        *,
        scopes: Sequence[str] | None = None,
        type: str | None = None,
        include_hidden: bool = False,
    ) -> list[Entity]:
        self.store.refresh()
        out = []
        for ent in self.store.all(Entity):
            if (
                ent.merged_into
                or (type and ent.type != type)
                or not scope_allows(ent.scope, scopes)
            ):
                continue
            if include_hidden or self.visible(ent.support):
                out.append(ent)
        return sorted(out, key=lambda e: e.id)

    # ================================================================== edges

    def edges(
        self,
        *,
        at: float | None = None,
        include_history: bool = False,
        scopes: Sequence[str] | None = None,
        entity: str | None = None,
        relation: str | None = None,
        include_hidden: bool = False,
    ) -> list[Edge]:
        """Relations. By default the current ones; ``at=t`` gives those valid at time t;
        ``include_history`` gives every version (ended and superseded included)."""
        self.store.refresh()
        target = self.resolve_id(self.entity(entity).id) if entity else None
        out = []
        for edge in project_edges({e.id: e for e in self.store.all(Edge)}, self.visible).values():
            if relation and edge.relation != relation:
                continue
            if target and target not in (self.resolve_id(edge.src), self.resolve_id(edge.dst)):
                continue
            if not scope_allows(edge.scope, scopes):
                continue
            if not include_hidden and not self.visible(edge.support):
                continue
            if at is not None:
                if not edge.valid_at(at):
                    continue
            elif not include_history and not edge.current:
                continue
            out.append(edge)
        return sorted(out, key=lambda e: (e.valid_from, e.id))

    def neighbors(
        self,
        entity: str,
        hops: int = 1,
        *,
        scopes: Sequence[str] | None = None,
        at: float | None = None,
    ) -> tuple[list[Entity], list[Edge]]:
        """Entities within ``hops`` of ``entity`` over visible edges (valid now, or at ``at``)."""
        if hops < 1 or hops > 5:
            raise InvalidInput("hops must be between 1 and 5")
        start = self.entity(entity)
        adjacency: dict[str, list[Edge]] = {}
        for edge in self.edges(at=at, scopes=scopes):
            for end in (self.resolve_id(edge.src), self.resolve_id(edge.dst)):
                adjacency.setdefault(end, []).append(edge)
        frontier, seen, found_edges = {start.id}, {start.id}, {}
        for _ in range(hops):
            nxt = set()
            for node in frontier:
                for edge in adjacency.get(node, []):
                    found_edges[edge.id] = edge
                    for end in (self.resolve_id(edge.src), self.resolve_id(edge.dst)):
                        if end not in seen:
                            seen.add(end)
                            nxt.add(end)
            frontier = nxt
        ents = [e for e in (self.lookup(i) for i in sorted(seen)) if e is not None]
        return ents, sorted(found_edges.values(), key=lambda e: e.id)

    # ================================================================== timeline

    def events(
        self,
        *,
        since: float | None = None,
        until: float | None = None,
        entity: str | None = None,
        kind: str | None = None,
        scopes: Sequence[str] | None = None,
        include_superseded: bool = False,
        include_hidden: bool = False,
    ) -> list[TimelineEvent]:
        """Timeline events in ``[since, until)`` (by when they happened), oldest first."""
        self.store.refresh()
        target = self.entity(entity).id if entity else None
        out = []
        for ev in project_events(
            {e.id: e for e in self.store.all(TimelineEvent)}, self.visible
        ).values():
            if ev.superseded_by and not include_superseded:
                continue
            if kind and ev.kind != kind:
                continue
            if since is not None and ev.event_time < since:
                continue
            if until is not None and ev.event_time >= until:
                continue
            if target and target not in {self.resolve_id(e) for e in ev.entities}:
                continue
            if not scope_allows(ev.scope, scopes):
                continue
            if not include_hidden and not self.visible(ev.support):
                continue
            out.append(ev)
        return sorted(out, key=lambda e: (e.event_time, e.id))

    # ================================================================== memory list

    def memories(
        self,
        *,
        include_disabled: bool = True,
        include_deleted: bool = False,
        scopes: Sequence[str] | None = None,
        type: str | None = None,
    ) -> list[MemoryItem]:
        self.store.refresh()
        out = []
        for mem in self.store.all(MemoryItem):
            if mem.deleted and not include_deleted:
                continue
            if not mem.enabled and not include_disabled:
                continue
            if (type and mem.type != type) or not scope_allows(mem.scope, scopes):
                continue
            out.append(mem)
        return sorted(out, key=lambda m: (m.created_at, m.id))

    def memory(self, memory_id: str) -> MemoryItem:
        self.store.refresh()
        mem = self.store.get(MemoryItem, memory_id)
        if mem is None:
            raise NotFound(f"memory not found: {memory_id}")
        return mem

    def evidence(self, memory_id: str) -> list[Evidence]:
        return self.evidence_of(self.memory(memory_id))

    def evidence_of(self, memory: MemoryItem) -> list[Evidence]:
        found = (self.store.get(Evidence, i) for i in memory.evidence_ids)
        return [e for e in found if e is not None]

    def begin(self, reason: str) -> KnowledgeBatch:
        return KnowledgeBatch(self, self.store.begin(reason))

    def add_memory(
        self,
        text: str,
        *,
        type: str = "profile",
        scope: str = "global",
        provenance: Provenance | None = None,
        quote: str | None = None,
        source: str = "user",
        importance: float = 0.5,
        language: str | None = None,
    ) -> MemoryItem:
        """Create a memory list entry with its frozen evidence snapshot (one batch)."""
        batch = self.begin("memory add")
        mem = batch.new_memory(
            text,
            type=type,
            scope=scope,
            provenance=provenance,
            quote=quote,
            source=source,
            importance=importance,
            language=language,
        )
        batch.commit(durable=source == "user")  # a user's own words: fsync'd before returning
        return self.memory(mem.id)

    def edit_memory(
        self,
        memory_id: str,
        *,
        text: str | None = None,
        expected_version: int | None = None,
        rederive: Callable[[MemoryItem, KnowledgeBatch], None] | None = None,
        **changes: Any,
    ) -> MemoryItem:
        """A new version of the entry (the old one stays in the log and the operation log).
        With ``expected_version``, a concurrent edit makes this fail with ``Conflict``. With
        ``text`` and ``rederive``, what the old text supported is withdrawn and ``rederive``
        stages the new text's facts: one batch holds all three (a rollback restores all)."""
        current = self.memory(memory_id)
        if current.deleted:
            raise NotFound(f"memory not found: {memory_id}")
        updates: dict[str, Any] = dict(changes)
        if text is not None:
            if not text.strip():
                raise InvalidInput("memory text must not be empty")
            updates["text"] = text.strip()
            if updates["text"] != current.text:
                # the user's own words now: recall shows them, not the turn they replace
                updates["attrs"] = {**current.attrs, "edited": time.time()}
        batch = self.begin("memory edit")
        new = current.evolve(version=current.version + 1, updated_at=time.time(), **updates)
        batch.writer.put(
            new,
            check_version=True,
            expect_version=current.version if expected_version is None else expected_version,
        )
        if text is not None and rederive is not None:
            batch.withdraw_support(memory_id)
            rederive(new, batch)
        batch.commit(durable=True)  # edits, enable/disable and forget are the user's decisions
        return self.memory(memory_id)

    def withdraw_support(self, memory_id: str) -> BatchInfo | None:
        """What was derived from a memory no longer rests on it (its text changed): every edge,
        event and entity it supports loses that support, in one batch."""
        batch = self.begin("memory edit: withdraw derived facts")
        batch.withdraw_support(memory_id)
        return batch.commit()

    def batches(self) -> list[BatchInfo]:
        self.store.refresh()
        return self.store.batches()

    def batches_since(self, start: int) -> list[BatchInfo]:
        """The batches after the first ``start`` (what an index has not seen yet)."""
        self.store.refresh()
        return self.store.batches_since(start)

    def batch(self, batch_id: str) -> BatchInfo:
        return self.store.batch(batch_id)

    def rollback(self, batch_id: str, *, force: bool = False, **meta: Any) -> BatchInfo:
        """Undo a batch; ``meta`` goes into the undo's marker (a rewound distillation
        ``cursor``)."""
        return self.store.rollback(batch_id, force=force, **meta)
