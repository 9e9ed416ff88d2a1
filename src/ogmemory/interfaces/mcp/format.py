"""Records as the JSON the model reads: compact, dated in ISO, each with its provenance
(``session_id``, ``node_ids``, ``commit``) and a ``next`` hint naming the tool call that opens
the evidence. Also the ISO date parsing of tool arguments."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from ...knowledge.models import Edge, Entity, MemoryItem, TimelineEvent
from ...entity.records import CommitInfo, Node, Provenance
from ...recall.results import SearchHit
from ...entity.times import parse_when

__all__ = [
    "bare_memory_id",
    "call_hint",
    "fmt_commit",
    "fmt_edge",
    "fmt_entity",
    "fmt_event",
    "fmt_hit",
    "fmt_memory",
    "fmt_node",
    "fmt_recall_item",
    "parse_when",
]


def call_hint(tool: str, **args: str | None) -> str:
    """A tool call as the model would write it: ``memory_open_session(session_id="s1")``."""
    inner = ", ".join(
        f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in args.items() if v is not None
    )
    return f"{tool}({inner})"


def _open_hint(session_id: str | None, node_ids: Sequence[str]) -> str | None:
    if not session_id:
        return None
    return call_hint(
        "memory_open_session", session_id=session_id, around=node_ids[0] if node_ids else None
    )


def _iso(ts: float | None) -> str | None:
    """Epoch seconds as a local ISO datetime with its offset (``None`` stays ``None``)."""
    if ts is None:
        return None
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds")


def _unique(ids: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(ids))


def _provenance(prov: Provenance | None) -> dict[str, Any]:
    if prov is None:
        return {"session_id": None, "node_ids": [], "commit": None, "next": None}
    node_ids = _unique(prov.node_ids)
    return {
        "session_id": prov.session_id or None,
        "node_ids": node_ids,
        "commit": prov.commit,
        "next": _open_hint(prov.session_id, node_ids),
    }


def fmt_hit(found: SearchHit) -> dict[str, Any]:
    hit = found.to_dict()
    node_ids = _unique(hit.get("node_ids") or [])
    session_id = hit.get("session_id")
    next_call = _open_hint(session_id, node_ids)
    if next_call is None and hit.get("kind") == "entity":
        next_call = call_hint("memory_graph_neighbors", entity=str(hit["id"]).split(":", 1)[-1])
    return {
        "id": hit["id"],
        "kind": hit["kind"],
        "text": hit["text"],
        "score": hit["score"],
        "date": _iso(hit.get("event_time")),
        "session_id": session_id,
        "node_ids": node_ids,
        "commit": hit.get("commit"),
        "next": next_call,
    }


def fmt_recall_item(item: dict[str, Any]) -> dict[str, Any]:
    node_ids = _unique(item.get("node_ids") or [])
    return {
        "text": item["text"],
        "kind": item["kind"],
        "score": item["score"],
        "date": _iso(item.get("event_time")),
        "session_id": item.get("session_id"),
        "node_ids": node_ids,
        "commit": item.get("commit"),
        "pointer": item.get("pointer"),
        "tokens": item.get("tokens"),
        "next": _open_hint(item.get("session_id"), node_ids),
    }


def fmt_event(ev: TimelineEvent) -> dict[str, Any]:
    return {
        "id": ev.id,
        "date": _iso(ev.event_time),
        "kind": ev.kind,
        "summary": ev.summary,
        "entities": list(ev.entities),
        "scope": ev.scope,
        "importance": ev.importance,
        **_provenance(ev.provenance),
    }


def fmt_entity(ent: Entity) -> dict[str, Any]:
    return {
        "id": ent.id,
        "type": ent.type,
        "name": ent.name,
        "aliases": list(ent.aliases),
        "scope": ent.scope,
    }


def fmt_edge(edge: Edge) -> dict[str, Any]:
    return {
        "id": edge.id,
        "from": edge.src,
        "relation": edge.relation,
        "to": edge.dst,
        "fact": edge.fact,
        "valid_from": _iso(edge.valid_from),
        "valid_to": _iso(edge.valid_to),
        "current": edge.current,
        "confidence": edge.confidence,
        "scope": edge.scope,
        **_provenance(edge.provenance),
    }


def fmt_node(node: Node, around: str | None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": node.id,
        "seq": node.seq,
        "role": node.role,
        "time": _iso(node.event_time),
        "text": node.text,
        "parent_id": node.parent_id,
    }
    for key in ("name", "tool_call_id", "called_by"):
        if getattr(node, key) is not None:
            data[key] = getattr(node, key)
    if around is not None and node.id == around:
        data["cited"] = True
    return data


def fmt_commit(commit: CommitInfo, session_id: str | None) -> dict[str, Any]:
    data = {
        "sha": commit.sha,
        "message": commit.message,
        "author": commit.author,
        "time": _iso(commit.time),
        "branch": commit.branch,
        "node_ids": list(commit.node_ids),
        "files": list(commit.files),
    }
    if session_id is not None:
        data["next"] = _open_hint(session_id, commit.node_ids)
    return data


def fmt_memory(item: MemoryItem) -> dict[str, Any]:
    return {
        "id": item.id,
        "text": item.text,
        "type": item.type,
        "scope": item.scope,
        "enabled": item.enabled,
        "deleted": item.deleted,
        "version": item.version,
        "source": item.source,
        "created": _iso(item.created_at),
        "updated": _iso(item.updated_at),
    }


def bare_memory_id(text: str) -> str:
    """Accept a search hit's ``memory:<id>`` as well as the bare id."""
    return text.removeprefix("memory:")


