"""Keeps the index in step with the files: new turns from the entity layer, new batches from
the knowledge logs. Everything it writes is derived, in a deterministic order, so a rebuild
from scratch (``reindex``) gives the same documents and the same answers.

Levels (seed 004): a session has an L0 abstract and an L1 overview whose children are its turns
(L2 content); a memory, event or fact has an L0 abstract and an L1 overview (the abstract with
the turns it cites), and its children are those evidence turns; an entity has an L0 abstract
(its names) and an L1 overview (the relations that hold now), and its children are its facts.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from ..entity.periods import time_label
from ..entity.records import NodeRecord, Provenance
from ..entity.times import day_label
from ..knowledge.base import KnowledgeBase
from ..knowledge.models import Edge, Entity, Evidence, MemoryItem, TimelineEvent, type_of
from ..limits import bounded_text
from ..storage.protocols import IndexStore, ProvenanceSource
from .docs import Doc, overview_id, record_doc_id, session_doc_id, turn_doc_id

__all__ = ["Indexer"]

_SESSION_L1_CHARS = 2000
_OVERVIEW_CHARS = 2000  # an L1 overview: about 500 tokens
#: Index meta: the sessions whose abstracts are still to be rewritten (see ``Indexer.sync``).
_PENDING = "sessions_pending"


def fact_terms(edge: Edge) -> str:
    """The words of a fact's structure: its relation, its slot and the kinds of its two ends
    (``uses``, ``database``, ``person``, ``tool``), so that "which database do we use?" finds
    "The team decided to switch from MySQL to PostgreSQL." by the words the question uses."""
    parts = [
        edge.relation,
        edge.slot or "",
        *(end.split(".", 1)[0] for end in (edge.src, edge.dst)),
    ]
    words = (w for part in parts for w in re.split(r"[^\w]+|_", part) if len(w) > 1)
    return " ".join(dict.fromkeys(w.lower() for w in words))


def _speaker(rec: NodeRecord) -> str:
    node = rec.node
    if node.role == "tool":
        return f"tool {node.name}" if node.name else "tool"
    return node.name or node.role


class Indexer:
    """Absorbs what is new since the cursors stored in the index itself."""

    def __init__(
        self,
        store: IndexStore,
        source: ProvenanceSource,
        kb: KnowledgeBase,
        scope_of_project: Any = None,
    ) -> None:
        self.store = store
        self.source = source
        self.kb = kb
        self._lock = threading.Lock()

    def sync(self, *, turns: bool = True) -> dict[str, int]:
        """Index new turns (when ``turns``) and new knowledge batches. Returns counts.

        Sessions whose turns or memories changed get their abstracts rewritten last. Which
        they are is kept in the index (``sessions_pending``, written with the turns and records
        that touched them, cleared with the abstracts), so a sync killed in between (a
        SIGKILL during ``reindex``) still rewrites them on the next one."""
        with self._lock:
            counts = {"turns": 0, "knowledge": 0}
            pending = set(self.store.get_meta(_PENDING, []))
            if turns:
                counts["turns"], pending = self._sync_turns(pending)
            counts["knowledge"], pending = self._sync_knowledge(pending)
            if pending:
                self._sync_sessions(sorted(pending))
            return counts

    # ------------------------------------------------------------------ turns

    def _sync_turns(self, pending: set[str]) -> tuple[int, set[str]]:
        """Index new turns; returns how many, and ``pending`` with their sessions added."""
        cursor: dict[str, int] = dict(self.store.get_meta("turn_cursor", {}))
        docs: list[Doc] = []
        touched = set(pending)
        total = 0
        for rec in self.source.iter_nodes_since(cursor):
            docs.append(self._turn_doc(rec))
            cursor[rec.session_id] = max(cursor.get(rec.session_id, 0), rec.node.seq)
            touched.add(rec.session_id)
            if len(docs) >= 500:
                meta = {"turn_cursor": cursor, _PENDING: sorted(touched)}
                total += self.store.write(docs, meta=meta)
                docs = []
        if docs:
            total += self.store.write(docs, meta={"turn_cursor": cursor, _PENDING: sorted(touched)})
        return total, touched

    def _turn_doc(self, rec: NodeRecord) -> Doc:
        node = rec.node
        body = node.text
        if node.role == "tool":
            body = body[:600]
        body = bounded_text(body)  # a message of any length is stored; the index holds a bound
        cite = node.metadata.get("dia_id") if isinstance(node.metadata.get("dia_id"), str) else None
        scope = f"project:{rec.project_id}" if rec.project_id != "default" else "global"
        return Doc(
            id=turn_doc_id(rec.session_id, node.id),
            kind="turn",
            level=2,
            text=f"[{day_label(node.event_time)}] {_speaker(rec)}: {body}",
            scope=scope,
            parent=session_doc_id(rec.session_id, 1),
            session_id=rec.session_id,
            seq=node.seq,
            event_time=node.event_time,
            node_ids=(node.id,),
            cites=(cite or node.id,),
            prov={
                "session_id": rec.session_id,
                "project_id": rec.project_id,
                "commit": rec.commit,
                "node_ids": [node.id],
                "event_time": node.event_time,
                "speaker": _speaker(rec),
            },
        )

    def _sync_sessions(self, session_ids: list[str]) -> None:
        """Session L0 abstract and L1 overview (the session's memories, else its opening)."""
        memories = self._memories_by_session(set(session_ids))
        docs: list[Doc] = []
        scans: dict[str, Any] = {}
        for sid in session_ids:
            mems = memories.get(sid, [])
            found = self._session_turns(sid, opening=3 if mems else None, scans=scans)
            if found is not None:
                turns, last, speakers = found
                docs += self._session_docs(sid, turns, mems, last, speakers)
        self.store.write(docs, meta={**scans, _PENDING: []})

    def _session_turns(
        self, sid: str, *, opening: int | None, scans: dict[str, Any]
    ) -> tuple[list[Doc], Doc, list[str]] | None:
        """(the first turns, the last turn, every speaker in order) of a session, or None when
        it has no turn: the first ``opening`` turns, or (``None``) as many as the L1 overview
        can show. Decoding every turn document on every sync made each turn end O(turns)
        (0.3 s at 1,000 turns): the speakers are kept in the index meta with how far they were
        read (``scans``), and only the turns since are decoded; a session whose documents
        changed otherwise is read again from its start."""
        refs = self.store.child_refs(session_doc_id(sid, 1), limit=10**9)
        if not refs:
            return None
        key = f"session_scan:{sid}"
        seen = self.store.get_meta(key)
        start, speakers = 0, {}
        if (
            isinstance(seen, dict)
            and 0 < int(seen.get("n", 0)) <= len(refs)
            and refs[0][1] == seen.get("first")
            and refs[seen["n"] - 1][1] == seen.get("last")
        ):
            start, speakers = int(seen["n"]), dict.fromkeys(seen.get("speakers") or [])
        for doc in self._decoded(refs[start:]):
            if doc.kind == "turn":  # memories of the session hang there too
                speakers.setdefault(str(doc.prov.get("speaker", "")), None)
        scans[key] = {
            "n": len(refs),
            "first": refs[0][1],
            "last": refs[-1][1],
            "speakers": list(speakers),
        }
        turns: list[Doc] = []
        size = 0
        for doc in self._decoded(refs, chunk=64):
            if doc.kind != "turn":
                continue
            turns.append(doc)
            size += len(doc.text) + 1
            if len(turns) >= (opening or 3) and (opening or size > _SESSION_L1_CHARS):
                break
        if not turns:
            return None
        last = next(d for d in self._decoded(refs[::-1], chunk=8) if d.kind == "turn")
        return turns, last, list(speakers)

    def _decoded(self, refs: list[tuple[int, str]], chunk: int = 500) -> Iterable[Doc]:
        """The documents of ``refs`` in their order, decoded ``chunk`` at a time (lazily)."""
        for i in range(0, len(refs), chunk):
            part = refs[i : i + chunk]
            found = self.store.docs(r for r, _ in part)
            yield from (found[r] for r, _ in part if r in found)

    def _memories_by_session(self, wanted: set[str]) -> dict[str, list[MemoryItem]]:
        """The memories of the ``wanted`` sessions: a memory belongs to the session of its
        first evidence (direct lookups: this runs on every sync that touches a session)."""
        out: dict[str, list[MemoryItem]] = {}
        for mem in self.kb.memories(include_disabled=True):
            first = self.kb.store.get(Evidence, mem.evidence_ids[0]) if mem.evidence_ids else None
            sid = first.provenance.session_id if first and first.provenance else None
            if sid in wanted:
                out.setdefault(sid, []).append(mem)
        return out

    def _session_docs(
        self, sid: str, turns: list[Doc], mems: list[MemoryItem], last: Doc, speakers: list[str]
    ) -> list[Doc]:
        first = turns[0]
        first_day, last_day = day_label(first.event_time), day_label(last.event_time)
        when = first_day + (f" to {last_day}" if last_day != first_day else "")
        opening = " ".join(t.text.split(": ", 1)[-1] for t in turns[:3])[:300]
        l0 = f"Session {sid} ({when}) with {', '.join(speakers[:4])}: {opening}"
        support: tuple[str, ...] = ()
        nodes: tuple[str, ...] = ()
        if mems:
            lines, support = [m.text for m in mems], tuple(m.id for m in mems)
        else:
            lines, nodes = [t.text for t in turns], tuple(n for t in turns for n in t.node_ids)
        overview: list[str] = []
        size = 0
        for line in lines:
            if size + len(line) > _SESSION_L1_CHARS:
                break
            overview.append(line)
            size += len(line) + 1
        used_nodes = nodes[: len(overview)]
        # A session document shows text of its memories (or turns): it is visible only while
        # all of them are (see Recaller._visible).
        opening_nodes = tuple(n for t in turns[:3] for n in t.node_ids)
        prov: dict[str, Any] = {
            "session_id": sid,
            "project_id": first.prov.get("project_id"),
            "node_ids": [],
            "event_time": first.event_time,
        }
        common: dict[str, Any] = {
            "scope": first.scope,
            "session_id": sid,
            "event_time": first.event_time,
            "prov": prov,
        }
        l0_doc = Doc(
            id=session_doc_id(sid, 0),
            kind="session",
            level=0,
            text=l0,
            node_ids=opening_nodes,
            **common,
        )
        l1_doc = Doc(
            id=session_doc_id(sid, 1),
            kind="session",
            level=1,
            parent=session_doc_id(sid, 0),
            text="\n".join(overview),
            support=support[: len(overview)],
            node_ids=used_nodes,
            **common,
        )
        return [l0_doc, l1_doc]

    # ------------------------------------------------------------------ knowledge

    def _sync_knowledge(self, pending: set[str]) -> tuple[int, set[str]]:
        """Index new knowledge batches; returns how many documents, and ``pending`` with the
        sessions of their memories added."""
        done = int(self.store.get_meta("kb_batches", 0))
        new = self.kb.batches_since(done)  # refreshes the store first; not every batch:
        if not new:  # a store from its checkpoint reads only these
            return 0, pending
        touched: dict[str, set[str]] = {}
        for info in new:
            for op in info.ops:
                touched.setdefault(op.kind, set()).add(op.id)
        # an edge change changes the pages of both of its entities
        for eid in list(touched.get("edge", ())):
            edge = self.kb.store.get(Edge, eid)
            if edge:
                touched.setdefault("entity", set()).update((edge.src, edge.dst))
        upserts: list[Doc] = []
        deletes: list[str] = []
        sessions = set(pending)
        facts_of = self._current_facts() if touched.get("entity") else {}
        for kind, ids in sorted(touched.items()):
            for rid in sorted(ids):
                doc, session = self._knowledge_doc(kind, rid)
                if session:
                    sessions.add(session)
                if doc is None:
                    deletes += [record_doc_id(kind, rid), overview_id(record_doc_id(kind, rid))]
                else:
                    upserts += [doc, self._overview(doc, facts_of.get(rid, []))]
        meta = {"kb_batches": done + len(new), _PENDING: sorted(sessions)}
        n = self.store.write(upserts, deletes, meta=meta)
        return n, sessions

    def _current_facts(self) -> dict[str, list[Edge]]:
        """Entity id -> the relations that hold now, either end (one pass over the edges)."""
        out: dict[str, list[Edge]] = {}
        for edge in self.kb.store.all(Edge):
            if edge.current and edge.support:
                for end in dict.fromkeys(self.kb.resolve_id(e) for e in (edge.src, edge.dst)):
                    out.setdefault(end, []).append(edge)
        return out

    def _overview(self, doc: Doc, facts: list[Edge]) -> Doc:
        """The L1 overview (~500 tokens) under a knowledge record's L0 abstract: a memory, event
        or fact with the turns it cites (its L2 content), an entity with the relations that
        hold now. It shows what its sources say, so it is visible only while all of them are
        (``support``; see Recaller._visible)."""
        lines = [doc.text]
        support = doc.support
        if doc.kind == "entity":
            for edge in sorted(facts, key=lambda e: (e.valid_from, e.id)):
                lines.append(f"{edge.fact} (since {day_label(edge.valid_from)})")
            support = tuple(dict.fromkeys(m for e in facts for m in e.support))
        elif doc.session_id:
            found = self.store.docs_by_id(turn_doc_id(doc.session_id, n) for n in doc.node_ids)
            lines += [d.text for d in found.values()]
        text: list[str] = []
        size = 0
        for line in lines:
            if text and size + len(line) > _OVERVIEW_CHARS:
                break
            text.append(line[:_OVERVIEW_CHARS])
            size += len(line) + 1
        return replace(
            doc,
            id=overview_id(doc.id),
            level=1,
            parent=doc.id,
            text="\n".join(text),
            support=support or doc.support,
        )

    def _cites(self, session_id: str, node_ids: Iterable[str]) -> tuple[str, ...]:
        ids = [turn_doc_id(session_id, n) for n in node_ids]
        found = self.store.docs_by_id(ids)
        return tuple(
            found[i].cites[0] if i in found and found[i].cites else i.rsplit(":", 1)[-1]
            for i in ids
        )

    def _cites_of(self, prov: Provenance) -> tuple[str, ...]:
        return self._cites(prov.session_id, prov.node_ids) if prov.session_id else ()

    def _knowledge_doc(self, kind: str, rid: str) -> tuple[Doc | None, str | None]:
        """The L0 document of a knowledge record (``None``: it is not part of any read any
        more), and the session it belongs to (for a memory)."""
        rec = self.kb.store.get(type_of(kind), rid)
        if isinstance(rec, MemoryItem):
            return self._memory_doc(rec) if not rec.deleted else (None, None)
        if not isinstance(rec, (TimelineEvent, Edge, Entity)) or not rec.support:
            return None, None  # nothing supports it any more: it is not part of any read
        if isinstance(rec, TimelineEvent):
            return self._event_doc(rec), None
        if isinstance(rec, Edge):
            return self._fact_doc(rec), None
        return (self._entity_doc(rec) if not rec.merged_into else None), None

    def _memory_doc(self, mem: MemoryItem) -> tuple[Doc, str | None]:
        evidence = self.kb.evidence(mem.id)
        prov = next((e.provenance for e in evidence if e.provenance is not None), None)
        cited = (n for e in evidence if e.provenance for n in e.provenance.node_ids)
        nodes = tuple(dict.fromkeys(cited))[:6]
        sid = prov.session_id if prov else None
        edited = bool(mem.attrs.get("edited"))
        info: dict[str, Any] = prov.to_dict() if prov else {"memory_id": mem.id}
        if mem.attrs.get("social"):  # "X encourages Y": no note on the turns it rests on
            info["social"] = True
        if edited:  # the user rewrote it: it speaks for its evidence, and it is news
            info["edited"] = True
            when = mem.updated_at
        else:
            when = prov.event_time if prov else mem.created_at
        doc = Doc(
            id=record_doc_id("memory", mem.id),
            kind="memory",
            level=0,
            text=mem.text,
            scope=mem.scope,
            session_id=sid,
            event_time=when,
            importance=max(mem.importance, 0.9) if edited else mem.importance,
            support=(mem.id,),
            node_ids=nodes,
            cites=self._cites(sid, nodes) if sid else (),
            prov=info,
            parent=session_doc_id(sid, 1) if sid else None,
        )
        return doc, sid

    def _event_doc(self, ev: TimelineEvent) -> Doc:
        p = ev.provenance
        return Doc(
            id=record_doc_id("event", ev.id),
            kind="event",
            level=0,
            text=f"[{time_label(ev.event_time, ev.precision, ev.language)}] {ev.summary}",
            scope=ev.scope,
            session_id=p.session_id or None,
            event_time=ev.event_time,
            superseded=bool(ev.superseded_by),
            importance=ev.importance,
            support=ev.support,
            node_ids=p.node_ids,
            cites=self._cites_of(p),
            prov={**p.to_dict(), "entities": list(ev.entities)},
        )

    def _fact_doc(self, edge: Edge) -> Doc:
        p = edge.provenance
        until = day_label(edge.valid_to) if edge.valid_to else "now"
        span = f"{day_label(edge.valid_from)} → {until}"
        return Doc(
            id=record_doc_id("edge", edge.id),
            kind="fact",
            level=0,
            text=f"{edge.fact} ({span})",
            scope=edge.scope,
            session_id=p.session_id or None,
            event_time=edge.event_time,
            valid_from=edge.valid_from,
            valid_to=edge.valid_to,
            superseded=not edge.current,
            importance=edge.confidence,
            support=edge.support,
            node_ids=p.node_ids,
            cites=self._cites_of(p),
            prov={
                **p.to_dict(),
                "entities": [edge.src, edge.dst],
                "relation": edge.relation,
                "terms": fact_terms(edge),
            },
        )

    def _entity_doc(self, ent: Entity) -> Doc:
        # Names only: facts reach recall as their own documents (1-hop expansion), each
        # filtered by its own support, so a disabled memory cannot leak through a page.
        aka = f"; aka {', '.join(ent.aliases)}" if ent.aliases else ""
        text = f"{ent.name} ({ent.type}{aka})"
        return Doc(
            id=record_doc_id("entity", ent.id),
            kind="entity",
            level=0,
            text=text[:1500],
            scope=ent.scope,
            event_time=ent.ingestion_time,
            support=ent.support,
            prov={"entity": ent.id, "node_ids": []},
        )
