"""What an ``ogm://`` URI names, at the three levels of seed 004 (L0 abstract, L1 overview,
L2 content): the one resolver behind ``Memory.resolve_uri``, the engine's context reports, the
MCP ``memory_read`` tool, REST ``GET /v1/resolve`` and the ReAct extractor's ``read`` tool.

The grammar (``format_uri``/``parse_uri``) is in ``tenancy``: a URI never names a tenant, it is
resolved inside the caller's root, so another tenant's record and a missing one are the same
``NotFound``. What reads hide stays hidden here: a deleted memory, or a fact or event no enabled
memory supports any more, does not resolve.

>>> resolver = URIResolver(mem.kb, mem, mem.index)           # doctest: +SKIP
>>> resolver.resolve("ogm://memory/m_0123").abstract        # doctest: +SKIP
'The user prefers Python over Java.'
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from .entity.provenance import is_derived as _derived
from .entity.records import Node, Project, Provenance, SessionInfo
from .entity.times import day_label
from .errors import InvalidInput, NotFound
from .knowledge.base import KnowledgeBase
from .knowledge.models import Edge, Entity, TimelineEvent
from .tenancy import URI, format_uri, parse_uri

__all__ = ["Resolved", "SessionSource", "URIResolver", "uri_for_doc"]

_R = TypeVar("_R", TimelineEvent, Edge)
ABSTRACT_CHARS = 400  # an L0 abstract: about 100 tokens
OVERVIEW_CHARS = 2000  # an L1 overview: about 500 tokens


class SessionSource(Protocol):
    """The entity-layer reads the resolver needs (``Memory`` provides them)."""

    def get_session(self, session_id: str) -> SessionInfo: ...

    def get_nodes(self, session_id: str) -> list[Node]: ...

    def get_project(self, project_id: str) -> Project: ...

    def session_state(self, session_id: str, name: str) -> dict[str, Any] | None: ...


class DocSource(Protocol):
    """Index reads: the L0/L1 documents the indexer already wrote (``IndexStore``)."""

    def docs_by_id(self, ids: Sequence[str]) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Resolved:
    """One record named by a URI: its L0 abstract, L1 overview and (``level=2``) L2 content,
    where it came from, and the URIs to follow from it."""

    uri: str
    type: str
    title: str
    abstract: str
    overview: str
    content: dict[str, Any] | None = None
    provenance: tuple[Provenance, ...] = ()
    links: tuple[str, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "uri": self.uri,
            "type": self.type,
            "title": self.title,
            "abstract": self.abstract,
            "overview": self.overview,
            "content": self.content,
            "provenance": [p.to_dict() for p in self.provenance],
            "links": list(self.links),
            "meta": self.meta,
        }


def uri_for_doc(doc_id: str) -> str | None:
    """The URI of an index document id (``memory:m_1``, ``turn:s1:n1``, ``edge:e1:1`` ...).

    >>> uri_for_doc("turn:s1:n1"), uri_for_doc("edge:e_9:1")
    ('ogm://node/s1/n1', 'ogm://fact/e_9')
    """
    kind, _, rest = doc_id.partition(":")
    try:
        if kind == "turn":
            sid, _, nid = rest.rpartition(":")
            return format_uri("node", sid, nid)
        if kind == "session":
            return format_uri("session", rest.rsplit(":", 1)[0])
        mapped = {"memory": "memory", "event": "event", "edge": "fact", "entity": "entity"}
        if kind in mapped:
            rid = rest.removesuffix(":1")
            return format_uri(mapped[kind], rid)
    except InvalidInput:
        return None
    return None


def _clip(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


class URIResolver:
    """Resolves URIs of one tenant. ``sessions`` and ``index`` are optional: with only the
    knowledge base (as the ReAct extractor has it) memories, events, facts and entities
    resolve; sessions, nodes, archives and projects need ``sessions``."""

    def __init__(
        self,
        kb: KnowledgeBase,
        sessions: SessionSource | None = None,
        index: DocSource | None = None,
    ) -> None:
        self.kb = kb
        self.sessions = sessions
        self.index = index

    def resolve(self, uri: str | URI, *, level: int = 2) -> Resolved:
        """The record ``uri`` names; ``level`` 0 or 1 leaves out the L2 content.
        Raises ``InvalidInput`` for a malformed URI and ``NotFound`` for one naming nothing."""
        if level not in (0, 1, 2):
            raise InvalidInput("level must be 0 (abstract), 1 (overview) or 2 (content)")
        parsed = uri if isinstance(uri, URI) else parse_uri(uri)
        handler = getattr(self, f"_{parsed.type}")
        found: Resolved = handler(*parsed.ids)
        if level < 2:
            return Resolved(
                found.uri,
                found.type,
                found.title,
                found.abstract,
                found.overview if level == 1 else "",
                None,
                found.provenance,
                found.links,
                found.meta,
            )
        return found

    # ------------------------------------------------------------------ knowledge

    def _overview_doc(self, doc_id: str) -> str:
        if self.index is None:
            return ""
        try:
            doc = self.index.docs_by_id([doc_id]).get(doc_id)
        except (sqlite3.Error, OSError):  # the index is a cache: a broken one costs the overview
            return ""
        return str(doc.text) if doc is not None else ""

    def _memory(self, memory_id: str) -> Resolved:
        try:
            mem = self.kb.memory(memory_id)
        except NotFound:
            mem = None
        if mem is None or mem.deleted:
            raise NotFound(f"memory not found: {memory_id}")
        evidence = self.kb.evidence(mem.id)
        provs = tuple(e.provenance for e in evidence if e.provenance is not None)
        quotes = [f"evidence: {e.quote}" for e in evidence if e.quote and e.quote != mem.text]
        overview = _clip("\n".join([mem.text, *quotes]), OVERVIEW_CHARS)
        links = tuple(
            dict.fromkeys(format_uri("node", p.session_id, n) for p in provs for n in p.node_ids)
        )
        content = {"memory": mem.to_dict(), "evidence": [e.to_dict() for e in evidence]}
        return Resolved(
            format_uri("memory", mem.id),
            "memory",
            _clip(mem.text, 80),
            _clip(mem.text, ABSTRACT_CHARS),
            overview,
            content,
            provs,
            links,
            {"enabled": mem.enabled, "memory_type": mem.type, "scope": mem.scope},
        )

    def _record(self, kind: type[_R], rid: str, what: str) -> _R:
        self.kb.refresh()
        rec = self.kb.store.get(kind, rid)
        if rec is None or not self.kb.visible(rec.support):
            raise NotFound(f"{what} not found: {rid}")
        return rec

    def _event(self, event_id: str) -> Resolved:
        ev = self._record(TimelineEvent, event_id, "event")
        abstract = f"[{day_label(ev.event_time)}] {ev.summary}"
        return self._knowledge(
            "event",
            ev.id,
            abstract,
            ev.provenance,
            ev.to_dict(),
            {"kind": ev.kind, "superseded_by": ev.superseded_by},
        )

    def _fact(self, edge_id: str) -> Resolved:
        edge = self._record(Edge, edge_id, "fact")
        until = day_label(edge.valid_to) if edge.valid_to else "now"
        abstract = f"{edge.fact} ({day_label(edge.valid_from)} → {until})"
        return self._knowledge(
            "fact",
            edge.id,
            abstract,
            edge.provenance,
            edge.to_dict(),
            {"relation": edge.relation, "current": edge.current},
        )

    def _knowledge(
        self,
        type_: str,
        rid: str,
        abstract: str,
        prov: Provenance,
        content: dict[str, Any],
        meta: dict[str, Any],
    ) -> Resolved:
        doc_kind = "edge" if type_ == "fact" else type_
        overview = self._overview_doc(f"{doc_kind}:{rid}:1") or abstract
        links = tuple(
            format_uri("node", prov.session_id, n) for n in prov.node_ids if prov.session_id
        )
        return Resolved(
            format_uri(type_, rid),
            type_,
            _clip(abstract, 80),
            _clip(abstract, ABSTRACT_CHARS),
            _clip(overview, OVERVIEW_CHARS),
            content,
            (prov,),
            links,
            meta,
        )

    def _entity(self, name: str) -> Resolved:
        ent = self.kb.lookup(name)
        if ent is None or not self.kb.visible(ent.support):
            raise NotFound(f"entity not found: {name}")
        return self._entity_record(ent)

    def _entity_record(self, ent: Entity) -> Resolved:
        edges = self.kb.edges(entity=ent.id)
        aka = f"; aka {', '.join(ent.aliases[:5])}" if ent.aliases else ""
        abstract = f"{ent.name} ({ent.type}{aka})"
        lines = [abstract] + [f"{e.fact} (since {day_label(e.valid_from)})" for e in edges]
        links = tuple(format_uri("fact", e.id) for e in edges[:20])
        content = {"entity": ent.to_dict(), "relations": [e.to_dict() for e in edges]}
        return Resolved(
            format_uri("entity", ent.id),
            "entity",
            ent.name,
            _clip(abstract, ABSTRACT_CHARS),
            _clip("\n".join(lines), OVERVIEW_CHARS),
            content,
            (),
            links,
            {"entity_type": ent.type},
        )

    # ------------------------------------------------------------------ entity layer

    def _source(self) -> SessionSource:
        if self.sessions is None:
            raise InvalidInput(
                "this resolver reads knowledge only (memories, events, facts, entities)"
            )
        return self.sessions

    def _session(self, session_id: str) -> Resolved:
        src = self._source()
        info = src.get_session(session_id)
        abstract = self._overview_doc(f"session:{session_id}:0")
        overview = self._overview_doc(f"session:{session_id}:1")
        nodes = [n for n in src.get_nodes(session_id) if not _derived(n)]
        if not abstract or not overview:
            opening = " ".join(n.text for n in nodes[:3] if n.role != "tool")
            abstract = abstract or f"{info.display_title or session_id}: {opening}"
            overview = overview or "\n".join(
                f"{n.role}: {_clip(n.text, 300)}" for n in nodes if n.role != "tool"
            )
        links = [format_uri("node", session_id, n.id) for n in nodes[:50]]
        if src.session_state(session_id, "archive") is not None:
            links.insert(0, format_uri("archive", session_id))
        content = {"session": info.to_dict(), "nodes": [n.to_dict() for n in nodes]}
        return Resolved(
            format_uri("session", session_id),
            "session",
            info.display_title or session_id,
            _clip(abstract, ABSTRACT_CHARS),
            _clip(overview, OVERVIEW_CHARS),
            content,
            (),
            tuple(links),
            {"turns": info.turns, "project_id": info.project_id},
        )

    def _node(self, session_id: str, node_id: str) -> Resolved:
        src = self._source()
        node = next((n for n in src.get_nodes(session_id) if n.id == node_id), None)
        if node is None:
            raise NotFound(f"session {session_id}: no node {node_id}")
        links = [format_uri("session", session_id)]
        if node.called_by:
            links.append(format_uri("node", session_id, node.called_by))
        replaced = node.metadata.get("replaces") if _derived(node) else None
        if isinstance(replaced, list):
            links += [format_uri("node", session_id, str(n)) for n in replaced[:200]]
        label = f"{node.role}{f' ({node.name})' if node.name else ''}"
        prov = Provenance("", session_id, (node.id,), None, node.event_time, node.ingestion_time)
        return Resolved(
            format_uri("node", session_id, node.id),
            "node",
            f"{label}: {_clip(node.text, 60)}",
            _clip(node.text, ABSTRACT_CHARS),
            _clip(node.text, OVERVIEW_CHARS),
            node.to_dict(),
            (prov,),
            tuple(links),
            {"role": node.role, "derived": _derived(node)},
        )

    def _archive(self, session_id: str) -> Resolved:
        src = self._source()
        src.get_session(session_id)
        archive = src.session_state(session_id, "archive")
        if archive is None:
            raise NotFound(f"session {session_id} has no archive (it was never closed)")
        return Resolved(
            format_uri("archive", session_id),
            "archive",
            str(archive.get("title") or session_id),
            _clip(str(archive.get("abstract") or ""), ABSTRACT_CHARS),
            _clip(str(archive.get("overview") or ""), OVERVIEW_CHARS),
            archive,
            (),
            (format_uri("session", session_id),),
            {"closed_at": archive.get("closed_at")},
        )

    def _project(self, project_id: str) -> Resolved:
        project = self._source().get_project(project_id)
        text = f"{project.name} ({project.path})"
        return Resolved(
            format_uri("project", project.project_id),
            "project",
            project.name,
            text,
            text,
            project.to_dict(),
        )
