"""The knowledge base of one tenant: timeline, graph and memory list over one ``LogStore``.

Files (under ``<tenant>/memory/``)::

    timeline/YYYY-MM.jsonl     events, by the month they happened
    graph/entities.jsonl       entities (alias-resolved; merged ones point to the survivor)
    graph/edges.jsonl          relations with valid_from / valid_to / superseded_by
    memories/memories.jsonl    the memory list (every edit a new version)
    memories/evidence.jsonl    immutable evidence snapshots
    records/<kind>.jsonl       records of other kinds (e.g. the mutable profile)
    oplog/batches.jsonl        batch commit markers with before/after of every change

Reads are projections: a derived record is visible only while one of the memories supporting
it is enabled, and only within the requested scopes.
"""

from __future__ import annotations

import re
import threading
import time
import unicodedata
import uuid
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..errors import InvalidInput, NotFound
from ..records import Provenance
from .logstore import Batch, BatchInfo, LogStore
from .models import Edge, Entity, Evidence, MemoryItem, TimelineEvent, from_dict

__all__ = ["KnowledgeBase", "follow_merges", "normalize_name", "scope_allows"]

_FILES = {"entity": "graph/entities.jsonl", "edge": "graph/edges.jsonl",
          "memory": "memories/memories.jsonl", "evidence": "memories/evidence.jsonl"}


def _route(kind: str, record: dict[str, Any]) -> str:
    if kind == "event":
        when = record.get("event_time")
        if not isinstance(when, (int, float)):
            when = (record.get("provenance") or {}).get("event_time") or 0
        return f"timeline/{datetime.fromtimestamp(float(when), timezone.utc):%Y-%m}.jsonl"
    return _FILES.get(kind) or f"records/{kind}.jsonl"


def follow_merges(entity_id: str,
                  get: Callable[[str, str], dict[str, Any] | None]) -> str:
    """The surviving entity of ``entity_id`` along ``merged_into`` (``get(kind, id)`` reads a
    record: the committed state, or a batch's view of it). Stops on a cycle."""
    seen = set()
    while entity_id not in seen:
        seen.add(entity_id)
        rec = get("entity", entity_id)
        if rec is None or not rec.get("merged_into"):
            return entity_id
        entity_id = rec["merged_into"]
    return entity_id


def normalize_name(name: str) -> str:
    """Case-, width- and punctuation-insensitive key for alias resolution."""
    text = unicodedata.normalize("NFKC", name).casefold().strip()
    text = re.sub(r"^(the|a|an|my|our)\s+", "", text)
    return re.sub(r"[\s\-_.·'\"`“”‘’()（）]+", "", text)


def scope_allows(scope: str, scopes: Sequence[str] | None) -> bool:
    return scopes is None or scope in scopes


class KnowledgeBase:
    """Timeline, graph and memory list of one tenant. Thread-safe; process-safe per batch."""

    def __init__(self, root: Path, *, fsync: bool = False) -> None:
        self.root = root
        self.log = LogStore(root, _route, fsync=fsync)
        self._lock = threading.RLock()
        self._cache_key = -1
        self._active: set[str] = set()
        self._aliases: dict[str, str] = {}

    # ================================================================== derived caches

    def refresh(self) -> None:
        self.log.refresh()

    def _derived(self) -> None:
        with self._lock:
            key = self.log.version
            if key == self._cache_key:
                return
            self._active = {m["id"] for m in self.log.all("memory")
                            if m.get("enabled", True) and not m.get("deleted")}
            aliases: dict[str, str] = {}
            for ent in self.log.all("entity"):
                for name in [ent.get("name", ""), *ent.get("aliases", [])]:
                    key_name = normalize_name(str(name))
                    if key_name:
                        aliases.setdefault(key_name, ent["id"])
            self._aliases = aliases
            self._cache_key = self.log.version

    def active_memory_ids(self) -> set[str]:
        self.log.refresh()
        self._derived()
        return set(self._active)

    def visible(self, support: Iterable[str]) -> bool:
        """A derived record is visible while any supporting memory is active; one that no
        memory supports any more (all withdrawn) is not."""
        self._derived()
        return any(i in self._active for i in support)

    # ================================================================== entities

    def resolve_id(self, entity_id: str) -> str:
        """Follow ``merged_into`` to the surviving entity."""
        return follow_merges(entity_id, self.log.get)

    def lookup(self, name: str) -> Entity | None:
        """The entity a name (or alias, or id) refers to."""
        self.log.refresh()  # see what other processes committed
        self._derived()
        rec = self.log.get("entity", name)
        if rec is None:
            eid = self._aliases.get(normalize_name(name))
            rec = self.log.get("entity", eid) if eid else None
        if rec is None:
            return None
        survivor = self.log.get("entity", self.resolve_id(rec["id"]))
        return from_dict(Entity, survivor) if survivor else None

    def entity(self, entity_id: str) -> Entity:
        ent = self.lookup(entity_id)
        if ent is None:
            raise NotFound(f"entity not found: {entity_id}")
        return ent

    def entities(self, *, scopes: Sequence[str] | None = None, type: str | None = None,
                 include_hidden: bool = False) -> list[Entity]:
        self.log.refresh()  # see what other processes committed
        out = []
        for rec in self.log.all("entity"):
            ent = from_dict(Entity, rec)
            if ent.merged_into or (type and ent.type != type) or not scope_allows(ent.scope, scopes):
                continue
            if include_hidden or self.visible(ent.support):
                out.append(ent)
        return sorted(out, key=lambda e: e.id)

    # ================================================================== edges

    def edges(self, *, at: float | None = None, include_history: bool = False,
              scopes: Sequence[str] | None = None, entity: str | None = None,
              relation: str | None = None, include_hidden: bool = False) -> list[Edge]:
        """Relations. By default the current ones; ``at=t`` gives those valid at time t;
        ``include_history`` gives every version (ended and superseded included)."""
        self.log.refresh()  # see what other processes committed
        target = self.resolve_id(self.entity(entity).id) if entity else None
        out = []
        for rec in self.log.all("edge"):
            edge = Edge.from_json(rec)
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

    def neighbors(self, entity: str, hops: int = 1, *, scopes: Sequence[str] | None = None,
                  at: float | None = None) -> tuple[list[Entity], list[Edge]]:
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

    def events(self, *, since: float | None = None, until: float | None = None,
               entity: str | None = None, kind: str | None = None,
               scopes: Sequence[str] | None = None, include_superseded: bool = False,
               include_hidden: bool = False) -> list[TimelineEvent]:
        """Timeline events in ``[since, until)`` (by when they happened), oldest first."""
        self.log.refresh()  # see what other processes committed
        target = self.entity(entity).id if entity else None
        out = []
        for rec in self.log.all("event"):
            ev = from_dict(TimelineEvent, rec)
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

    def memories(self, *, include_disabled: bool = True, include_deleted: bool = False,
                 scopes: Sequence[str] | None = None, type: str | None = None) -> list[MemoryItem]:
        self.log.refresh()  # see what other processes committed
        out = []
        for rec in self.log.all("memory"):
            mem = from_dict(MemoryItem, rec)
            if mem.deleted and not include_deleted:
                continue
            if not mem.enabled and not include_disabled:
                continue
            if (type and mem.type != type) or not scope_allows(mem.scope, scopes):
                continue
            out.append(mem)
        return sorted(out, key=lambda m: (m.created_at, m.id))

    def memory(self, memory_id: str) -> MemoryItem:
        self.log.refresh()  # see what other processes committed
        rec = self.log.get("memory", memory_id)
        if rec is None:
            raise NotFound(f"memory not found: {memory_id}")
        return from_dict(MemoryItem, rec)

    def evidence(self, memory_id: str) -> list[Evidence]:
        mem = self.memory(memory_id)
        out = [self.log.get("evidence", i) for i in mem.evidence_ids]
        return [from_dict(Evidence, e) for e in out if e is not None]

    def begin(self, reason: str) -> KnowledgeBatch:
        return KnowledgeBatch(self, self.log.begin(reason))

    def add_memory(self, text: str, *, type: str = "profile", scope: str = "global",
                   provenance: Provenance | None = None, quote: str | None = None,
                   source: str = "user", importance: float = 0.5, language: str | None = None,
                   ) -> MemoryItem:
        """Create a memory list entry with its frozen evidence snapshot (one batch)."""
        batch = self.begin("memory add")
        mem = batch.new_memory(text, type=type, scope=scope, provenance=provenance, quote=quote,
                               source=source, importance=importance, language=language)
        batch.commit()
        return self.memory(mem.id)

    def edit_memory(self, memory_id: str, *, text: str | None = None,
                    expected_version: int | None = None, **changes: Any) -> MemoryItem:
        """A new version of the entry (the old one stays in the file and the operation log).
        With ``expected_version``, a concurrent edit makes this fail with ``Conflict``."""
        current = self.memory(memory_id)
        if current.deleted:
            raise NotFound(f"memory not found: {memory_id}")
        updates: dict[str, Any] = dict(changes)
        if text is not None:
            if not text.strip():
                raise InvalidInput("memory text must not be empty")
            updates["text"] = text.strip()
        batch = self.begin("memory edit")
        new = current.evolve(version=current.version + 1, updated_at=time.time(), **updates)
        batch.batch.put("memory", new.to_dict(), check_version=True,
                        expect_version=current.version if expected_version is None else expected_version)
        batch.commit()
        return self.memory(memory_id)

    def batches(self) -> list[BatchInfo]:
        return self.log.batches()

    def rollback(self, batch_id: str, *, force: bool = False) -> BatchInfo:
        return self.log.rollback(batch_id, force=force)


class KnowledgeBatch:
    """Stages changes of one atomic batch with a read-your-writes view."""

    def __init__(self, kb: KnowledgeBase, batch: Batch) -> None:
        self.kb = kb
        self.batch = batch
        self.now = time.time()

    @property
    def id(self) -> str:
        return self.batch.id

    def get(self, kind: str, rid: str) -> dict[str, Any] | None:
        return self.batch.get(kind, rid)

    def new_memory(self, text: str, *, type: str, scope: str = "global",
                   provenance: Provenance | None = None, quote: str | None = None,
                   source: str = "user", importance: float = 0.5,
                   language: str | None = None, attrs: dict[str, Any] | None = None) -> MemoryItem:
        text = text.strip()
        if not text:
            raise InvalidInput("memory text must not be empty")
        mid = f"m_{uuid.uuid4().hex[:12]}"
        ev = Evidence(id=f"ev_{uuid.uuid4().hex[:12]}", memory_id=mid, quote=quote or text,
                      provenance=provenance, created_at=self.now)
        mem = MemoryItem(id=mid, text=text, type=type, source=source, scope=scope,
                         created_at=self.now, updated_at=self.now, evidence_ids=(ev.id,),
                         importance=importance, language=language or detect_language(text),
                         attrs=attrs or {})
        self.batch.put("evidence", ev.to_dict())
        self.batch.put("memory", mem.to_dict())
        return mem

    def add_evidence(self, memory_id: str, provenance: Provenance, quote: str) -> Evidence:
        rec = self.get("memory", memory_id)
        if rec is None:
            raise NotFound(f"memory not found: {memory_id}")
        ev = Evidence(id=f"ev_{uuid.uuid4().hex[:12]}", memory_id=memory_id, quote=quote,
                      provenance=provenance, created_at=self.now)
        self.batch.put("evidence", ev.to_dict())
        mem = from_dict(MemoryItem, rec)
        self.batch.put("memory", mem.evolve(evidence_ids=(*mem.evidence_ids, ev.id)).to_dict())
        return ev

    def put_entity(self, entity: Entity) -> None:
        self.batch.put("entity", entity.to_dict())

    def put_edge(self, edge: Edge) -> None:
        self.batch.put("edge", edge.to_dict())

    def put_event(self, event: TimelineEvent) -> None:
        self.batch.put("event", event.to_dict())

    def put(self, kind: str, record: dict[str, Any], **kwargs: Any) -> None:
        self.batch.put(kind, record, **kwargs)

    def commit(self, **meta: Any) -> BatchInfo | None:
        return self.batch.commit(**meta)


_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def detect_language(text: str) -> str:
    """"zh" when the text is mostly CJK ideographs, else "en"."""
    cjk = len(_CJK.findall(text))
    return "zh" if cjk and cjk * 3 >= len(re.sub(r"\s", "", text)) * 1 else "en"
