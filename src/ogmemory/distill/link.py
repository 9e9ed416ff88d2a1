"""Stages 3 and 4: link entity names to graph entities, reconcile new facts with old ones.

Linking resolves a name through the entity's name and aliases (normalised), a small table of
well-known aliases, and alias statements in the evidence ("the worker, aka the daemon"); when
one entity turns out to be another's alias, the younger one is merged into the older
(``merged_into``), so both names resolve to one node and nothing is deleted.

Reconciling applies seed 003's rule: a new fact that contradicts a current one does not replace
it; the old edge's validity ends where the new one's begins (``valid_to``, ``superseded_by``)
and both stay queryable at their times. Re-extracting a known fact adds support, not a copy.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import replace
from typing import Any

from ..entity.periods import precision_of
from ..entity.records import Provenance
from ..knowledge.base import KnowledgeBase
from ..knowledge.batch import KnowledgeBatch
from ..knowledge.models import Edge, Entity, TimelineEvent
from ..knowledge.names import id_words, normalize_name
from .slots import (
    contradicts,
    ends_replaced,
    generic_deadline_slot,
    inherit_slot,
    moves_deadline,
    preference_slot,
    reverts,
)
from .types import Candidate, EntityRef

__all__ = ["KNOWN_ALIASES", "Linker", "Reconciler", "slugify"]

#: Well-known alternative names (normalised) → canonical name.
KNOWN_ALIASES = {
    "js": "JavaScript",
    "javascript": "JavaScript",
    "ts": "TypeScript",
    "typescript": "TypeScript",
    "postgres": "PostgreSQL",
    "postgresql": "PostgreSQL",
    "pg": "PostgreSQL",
    "psql": "PostgreSQL",
    "k8s": "Kubernetes",
    "kubernetes": "Kubernetes",
    "py": "Python",
    "python": "Python",
    "golang": "Go",
    "nodejs": "Node.js",
    "node": "Node.js",
    "reactjs": "React",
    "vuejs": "Vue",
    "nextjs": "Next.js",
    "mongo": "MongoDB",
    "mongodb": "MongoDB",
    "gcp": "Google Cloud",
    "aws": "AWS",
    "vscode": "VS Code",
    "visualstudiocode": "VS Code",
}


_PLAIN = frozenset({"preference", "concept", "activity", "value", "event", "rule"})


def slugify(name: str) -> str:
    """A stable, readable id part: ASCII slug, or a short hash for names without ASCII letters."""
    text = unicodedata.normalize("NFKC", name).casefold()
    slug = re.sub(r"[^a-z0-9]+", "-", text).strip("-")[:48]
    if len(slug) < max(1, len(normalize_name(name)) // 3) or not slug:
        digest = hashlib.sha1(normalize_name(name).encode()).hexdigest()[:8]
        slug = f"{slug}-{digest}" if slug else f"x{digest}"
    return slug


class Linker:
    """Resolves ``EntityRef`` names to entity ids inside one batch (read-your-writes)."""

    def __init__(self, kb: KnowledgeBase, batch: KnowledgeBatch) -> None:
        self.kb = kb
        self.batch = batch
        self._local: dict[str, str] = {}  # normalised name -> id, for entities new in this batch
        self.touched: set[str] = set()

    def _find(self, name: str) -> str | None:
        key = normalize_name(name)
        if not key:
            return None
        if key in self._local:
            return self._resolve(self._local[key])
        ent = self.kb.lookup(name)
        if ent is not None:
            return self._resolve(ent.id)
        canonical = KNOWN_ALIASES.get(key)
        if canonical and normalize_name(canonical) != key:
            return self._find(canonical)
        return None

    def _resolve(self, eid: str) -> str:
        return self.batch.resolve(eid)

    def entity(self, eid: str) -> Entity | None:
        """The entity ``eid`` resolves to, as this batch sees it."""
        return self.batch.get(Entity, self._resolve(eid))

    def link(self, ref: EntityRef, *, scope: str, support: str | None) -> str:
        """The id of the entity ``ref`` names, creating or extending it in this batch."""
        name = KNOWN_ALIASES.get(normalize_name(ref.name), ref.name.strip())
        if ref.type in _PLAIN:  # a liked thing is named the same whoever likes it
            name = id_words(name)
        eid = self._find(ref.name)
        if eid is None:
            eid = self._new_id(ref.type, name)
            entity = Entity(
                id=eid,
                type=ref.type,
                name=name,
                scope=scope,
                ingestion_time=self.batch.now,
                attrs=dict(ref.attrs),
            )
        else:
            found = self.batch.get(Entity, eid)
            assert found is not None, eid  # _find only returns ids of entities that exist
            entity = found
        aliases = list(entity.aliases)
        for alias in (ref.name, *ref.aliases):
            alias = alias.strip()
            if (
                alias
                and normalize_name(alias) != normalize_name(entity.name)
                and alias not in aliases
            ):
                other = self._find(alias)
                if other is not None and other != eid:
                    eid, entity = self._merge(eid, entity, other)
                    aliases = list(entity.aliases)
                if alias not in aliases and normalize_name(alias) != normalize_name(entity.name):
                    aliases.append(alias)
        support_ids = tuple(entity.support)
        if support and support not in support_ids:
            support_ids = (*support_ids, support)
        attrs = {**entity.attrs, **{k: v for k, v in ref.attrs.items() if k not in entity.attrs}}
        updated = replace(entity, aliases=tuple(aliases), support=support_ids, attrs=attrs)
        if updated != entity or self.batch.get(Entity, eid) is None:
            self.batch.put(updated)
        for key in [entity.name, *aliases]:
            self._local[normalize_name(key)] = eid
        self.touched.add(eid)
        return eid

    def _new_id(self, etype: str, name: str) -> str:
        base = f"{etype}.{slugify(id_words(name))}"  # no speaker's "my" in an id
        eid, n = base, 2
        while self.batch.get(Entity, eid) is not None:
            eid, n = f"{base}-{n}", n + 1
        return eid

    def _merge(self, eid: str, entity: Entity, other_id: str) -> tuple[str, Entity]:
        """Merge the younger of two entities into the older; return the survivor."""
        other = self.batch.get(Entity, other_id)
        assert other is not None, other_id
        older, younger = (
            (other, entity) if other.ingestion_time <= entity.ingestion_time else (entity, other)
        )
        if self.batch.get(Entity, younger.id) is not None:
            self.batch.put(replace(younger, merged_into=older.id))
        names = [younger.name, *younger.aliases, *older.aliases]
        aliases = tuple(
            dict.fromkeys(n for n in names if normalize_name(n) != normalize_name(older.name))
        )
        survivor = replace(
            older, aliases=aliases, support=tuple(dict.fromkeys((*older.support, *younger.support)))
        )
        self.batch.put(survivor)
        for key in [survivor.name, *aliases]:
            self._local[normalize_name(key)] = survivor.id
        self.touched.update({older.id, younger.id})
        return survivor.id, survivor


class Reconciler:
    """Writes edges and timeline events for linked candidates, ending contradicted facts."""

    def __init__(self, kb: KnowledgeBase, batch: KnowledgeBatch, linker: Linker) -> None:
        self.kb = kb
        self.batch = batch
        self.linker = linker
        self._edges: dict[str, Edge] | None = None
        self._events: dict[str, str] | None = None
        self.stats: dict[str, int] = {
            "edges_new": 0,
            "edges_supported": 0,
            "edges_ended": 0,
            "events_new": 0,
            "events_superseded": 0,
        }

    # edges as this batch would leave them (current and historical)
    def _all_edges(self) -> dict[str, Edge]:
        if self._edges is None:
            # as this batch sees them: a change staged before (a withdrawn support) counts
            self._edges = {e.id: self.batch.get(Edge, e.id) or e for e in self.kb.store.all(Edge)}
        return self._edges

    def _put_edge(self, edge: Edge) -> None:
        self._all_edges()[edge.id] = edge
        self.batch.put(edge)

    def edge(
        self, cand: Candidate, src: str, dst: str, prov: Provenance, *, scope: str, support: str
    ) -> Edge:
        when = cand.valid_from or cand.event_time or prov.event_time
        if cand.valid_until is not None and cand.valid_until < when:
            when = cand.valid_until  # "lost my job this month", said on the 20th: it held till then
        resolve = self.linker._resolve
        slot, moved = preference_slot(cand), bool(cand.attrs.get("moved"))
        slot = generic_deadline_slot(slot, src, self._all_edges().values(), resolve, moved=moved)
        cand = replace(cand, slot=slot)
        same = [
            e
            for e in self._all_edges().values()
            if e.current
            and e.relation == cand.relation
            and resolve(e.src) == src
            and resolve(e.dst) == dst
            and e.scope == scope
        ]
        if same:
            old = same[0]
            new = replace(
                old,
                support=tuple(dict.fromkeys((*old.support, support))),
                confidence=max(old.confidence, cand.confidence),
            )
            if cand.valid_until is not None and cand.valid_until >= old.valid_from:
                new = replace(new, valid_to=cand.valid_until)  # "used X until last week"
                self.stats["edges_ended"] += 1
            if new != old:
                self._put_edge(new)
            self._end_named(cand, new, when)
            self.stats["edges_supported"] += 1
            return new
        digest = hashlib.sha1(
            f"{src}|{cand.relation}|{dst}|{when}|{prov.node_ids}".encode()
        ).hexdigest()
        edge = Edge(
            id=f"e_{digest[:14]}",
            src=src,
            dst=dst,
            relation=str(cand.relation),
            fact=cand.text,
            provenance=prov,
            event_time=cand.event_time or prov.event_time,
            ingestion_time=self.batch.now,
            valid_from=when,
            valid_to=cand.valid_until,
            confidence=cand.confidence,
            scope=scope,
            slot=cand.slot,
            support=(support,),
            language=cand.language,
        )
        if edge.id in self._all_edges():
            return self._all_edges()[edge.id]
        replaced = self.linker._find(cand.replaces.name) if cand.replaces else None
        cand = inherit_slot(cand, src, replaced, self._all_edges().values(), resolve)
        edge = replace(edge, slot=cand.slot, fact=cand.text)
        newer = self._end_contradicted(cand, edge, src, dst, replaced, when, prov, scope)
        if newer:  # arrived out of order: written already ended where the newer one begins
            first = min(newer, key=lambda e: (e.valid_from, e.id))
            edge = replace(edge, valid_to=first.valid_from, superseded_by=first.id)
            self.stats["edges_late"] = self.stats.get("edges_late", 0) + 1
        self._put_edge(edge)
        self.stats["edges_new"] += 1
        return edge

    def _end_contradicted(
        self,
        cand: Candidate,
        edge: Edge,
        src: str,
        dst: str,
        replaced: str | None,
        when: float,
        prov: Provenance,
        scope: str,
    ) -> list[Edge]:
        """End what the new ``edge`` contradicts (or, for a switch, replaces); returns the
        newer facts that already hold against it (it arrived out of order)."""
        resolve = self.linker._resolve
        newer: list[Edge] = []
        gone = cand.replaces.name if cand.replaces else ""
        for old in list(self._all_edges().values()):
            # in force when the new fact begins: current, or ending later (a deadline ends
            # at its date, and a new date for it ends it before that)
            live = old.superseded_by is None and (old.valid_to is None or old.valid_to > when)
            if not live or old.scope != scope or old.id == edge.id:
                continue
            named = (
                bool(gone)
                and resolve(old.dst) != dst
                and ends_replaced(old, replaced, gone, resolve)
            ) or moves_deadline(old, cand.slot, bool(cand.attrs.get("moved")))
            named = named or (bool(cand.attrs.get("reverts")) and reverts(old, cand, dst, resolve))
            named = named or old.id in (cand.attrs.get("ends") or ())  # a follow-up names it
            # "forget the Prefect migration": the plan to use the tool ends, whoever holds it
            named = named or (
                cand.relation == "called_off"
                and cand.object is not None
                and ends_replaced(old, dst, cand.object.name, resolve)
            )
            if not named and (
                resolve(old.src) != src
                or not contradicts(old, str(cand.relation), cand.slot, dst, replaced, resolve)
            ):
                continue
            named = named or (replaced is not None and resolve(old.dst) == replaced)
            if old.valid_from > when and not named:
                newer.append(old)  # a newer fact already holds; this one is history
                continue
            # "moved from Lisbon to Berlin" ends Lisbon even if Lisbon was stated after the
            # date the move took effect: it ends when the move was said, not before it began
            end = when if old.valid_from <= when else max(old.valid_from, prov.event_time)
            self._put_edge(replace(old, valid_to=end, superseded_by=edge.id))
            self.stats["edges_ended"] += 1
        return newer

    def _end_named(self, cand: Candidate, edge: Edge, when: float) -> None:
        """End the facts a follow-up names (``attrs["ends"]``) when its value was already
        current: "the rig moved, it's hil-rig-03 now", read by a rule as well."""
        for old_id in cand.attrs.get("ends") or ():
            old = self._all_edges().get(old_id)
            if old is None or old.id == edge.id or old.superseded_by is not None:
                continue
            if old.valid_to is not None and old.valid_to <= when:
                continue
            end = max(old.valid_from, when)
            self._put_edge(replace(old, valid_to=end, superseded_by=edge.id))
            self.stats["edges_ended"] += 1

    def live_edges(self) -> list[Edge]:
        """Every edge as this batch would leave it (current and historical)."""
        return list(self._all_edges().values())

    def event(
        self,
        cand: Candidate,
        kind: str,
        entity_ids: list[str],
        prov: Provenance,
        *,
        scope: str,
        support: str,
        fact: str | None = None,
    ) -> TimelineEvent:
        """A timeline event; ``fact`` keys a decision by what it decides, so restating it
        later supersedes the old event with the support of both (seed 000 §2.4)."""
        if self._events is None:
            self._events = {}
            for rec in self.kb.store.all(TimelineEvent):
                if not rec.superseded_by:
                    key = rec.attrs.get("fact") or _event_key(rec.summary, rec.event_time)
                    self._events[key] = rec.id
        when = cand.event_time or prov.event_time
        key = f"{scope}|{fact}" if fact else _event_key(cand.text, when)
        digest = hashlib.sha1(f"{key}|{prov.session_id}|{prov.node_ids}".encode()).hexdigest()
        ev = TimelineEvent(
            id=f"ev_{digest[:14]}",
            summary=cand.text,
            kind=kind,
            provenance=prov,
            event_time=when,
            ingestion_time=self.batch.now,
            entities=tuple(entity_ids),
            scope=scope,
            importance=cand.importance,
            support=(support,),
            language=cand.language,
            attrs={**cand.attrs, **({"fact": key} if fact else {})},
            time_precision=precision_of(
                cand.attrs.get("granularity"), cand.attrs.get("approximate")
            ),
        )
        old_id = self._events.get(key)
        if old_id == ev.id:
            return ev
        if old_id is not None:
            old_ev = self.batch.get(TimelineEvent, old_id)
            if old_ev is not None and not old_ev.superseded_by:
                # Seed 000 §2.4: the same fact re-extracted supersedes the old record.
                ev = replace(ev, support=tuple(dict.fromkeys((*old_ev.support, support))))
                self.batch.put(replace(old_ev, superseded_by=ev.id))
                self.stats["events_superseded"] += 1
        self.batch.put(ev)
        self._events[key] = ev.id
        self.stats["events_new"] += 1
        return ev


def _event_key(summary: str, when: Any) -> str:
    day = int(float(when or 0) // 86400)
    return f"{normalize_name(summary)}@{day}"
