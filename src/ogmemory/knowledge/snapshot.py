"""The knowledge graph as of a time: the entities known then and the relations that held then.

A relation (edge) has a validity interval, so "held at t" is ``valid_from <= t < valid_to``.
An entity has no interval of its own; it is *known* from the first time it was mentioned: the
earliest event time among the evidence of the enabled memories that support it, or the start of
its earliest relation if that is earlier. The graph at ``t`` therefore holds every entity known
by ``t`` and every relation valid at ``t`` (with both of its ends). Without a time it is the
graph now: every visible entity and every current relation.

Only what reads already show appears: entities and relations supported by an enabled memory,
within the requested scopes (``KnowledgeBase`` decides). This is a read-time projection; nothing
is stored.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .base import KnowledgeBase
from .models import Edge, Entity, Evidence

__all__ = ["GraphSnapshot", "graph_snapshot"]


@dataclass(frozen=True)
class GraphSnapshot:
    """Entities and relations of the graph at ``at`` (``None``: now).

    ``first_seen`` maps each entity id to the time it became known; ``start`` and ``end`` bound
    every time the graph knows of (first mentions, relations beginning and ending), which is the
    range a time slider needs. Edge ends are resolved to surviving entities (aliases merged).
    """

    at: float | None
    entities: tuple[Entity, ...]
    edges: tuple[Edge, ...]
    first_seen: dict[str, float] = field(default_factory=dict)
    start: float | None = None
    end: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "at": self.at,
            "start": self.start,
            "end": self.end,
            "entities": [
                {**e.to_dict(), "first_seen": self.first_seen.get(e.id)} for e in self.entities
            ],
            "edges": [e.to_dict() for e in self.edges],
        }


def graph_snapshot(
    kb: KnowledgeBase, *, at: float | None = None, scopes: Sequence[str] | None = None
) -> GraphSnapshot:
    """The graph at ``at`` (default: now) within ``scopes`` (default: all).

    >>> snap = graph_snapshot(kb, at=parse_time("2023-05-01", "at"))   # doctest: +SKIP
    >>> [e.relation for e in snap.edges]                               # doctest: +SKIP
    ['uses']
    """
    visible = {e.id: e for e in kb.entities(scopes=scopes)}
    history = [_resolved(kb, e) for e in kb.edges(include_history=True, scopes=scopes)]
    first_seen = _first_seen(kb, visible.values(), history)
    if at is None:
        edges = [e for e in history if e.current]
        known = set(visible)
    else:
        edges = [e for e in history if e.valid_at(at)]
        known = {eid for eid in visible if first_seen.get(eid, math.inf) <= at}
    ends = {end for e in edges for end in (e.src, e.dst)}
    entities = [visible.get(eid) or _endpoint(kb, eid) for eid in sorted(known | ends)]
    times = [
        *first_seen.values(),
        *(e.valid_from for e in history),
        *(e.valid_to for e in history if e.valid_to is not None),
    ]
    return GraphSnapshot(
        at=at,
        entities=tuple(entities),
        edges=tuple(edges),
        first_seen={e.id: first_seen[e.id] for e in entities if e.id in first_seen},
        start=min(times) if times else None,
        end=max(times) if times else None,
    )


def _resolved(kb: KnowledgeBase, edge: Edge) -> Edge:
    src, dst = kb.resolve_id(edge.src), kb.resolve_id(edge.dst)
    return edge if (src, dst) == (edge.src, edge.dst) else replace(edge, src=src, dst=dst)


def _first_seen(kb: KnowledgeBase, entities: Any, edges: list[Edge]) -> dict[str, float]:
    """When each entity became known: its earliest mention, or its earliest relation."""
    active = kb.active_memory_ids()
    mentioned: dict[str, float] = {}
    for ev in kb.store.all(Evidence):
        when = ev.provenance.event_time if ev.provenance is not None else ev.created_at
        if ev.memory_id in active:
            mentioned[ev.memory_id] = min(mentioned.get(ev.memory_id, math.inf), when)
    out: dict[str, float] = {}
    for ent in entities:
        times = [mentioned[m] for m in ent.support if m in mentioned]
        out[ent.id] = min(times) if times else ent.ingestion_time
    for edge in edges:
        for end in (edge.src, edge.dst):
            out[end] = min(out.get(end, math.inf), edge.valid_from)
    return out


def _endpoint(kb: KnowledgeBase, entity_id: str) -> Entity:
    """The entity at one end of a visible relation, even if no enabled memory supports it
    directly; a relation never points into nothing, so an unknown id gets a bare node."""
    found = kb.lookup(entity_id)
    if found is not None:
        return found
    kind = entity_id.split(".", 1)[0] if "." in entity_id else "concept"
    return Entity(id=entity_id, type=kind, name=entity_id.split(".", 1)[-1])
