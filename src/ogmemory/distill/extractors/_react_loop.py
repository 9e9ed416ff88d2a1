"""The tool side of the ReAct loop: each action the model takes (read, list, get_relations,
extract_*) answered from the knowledge base and the loop's own accepted candidates, with the
checks that keep known facts from being added again (see ``react``)."""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, unquote, urlsplit

from pydantic import BaseModel, ConfigDict

from ...entity.records import NodeRecord
from ...knowledge.names import normalize_name
from ..types import Candidate
from ._llm_common import (
    BatchContext,
    InvalidOutput,
    to_candidate,
    validate_memory,
)

if TYPE_CHECKING:
    from .react import ReActExtractor

__all__ = ["ReActLoop", "norm_text"]

STAT_KEYS = (
    "react_batches",
    "react_calls",
    "react_steps",
    "react_tokens",
    "react_accepted",
    "react_known_skipped",
    "react_repeats",
    "react_budget_stops",
    "react_stalled",
    "react_errors",
    "react_invalid",
    "react_empty",
    "react_fallback_batches",
)

MAX_THOUGHT = 400
MAX_URI = 200
LIST_LIMIT = 12
RELATION_LIMIT = 12
KNOWN_HINT_LIMIT = 10
#: the same step this many times in a row ends the loop: the model is making no progress
STALL_REPEATS = 3

_COMMON = ("type", "text", "node_ids")
_SCORES = ("confidence", "importance")
#: the arguments of each extract action (all required; the optional ones may be null)
EXTRACT_FIELDS: dict[str, tuple[str, ...]] = {
    "extract_memory": (*_COMMON, "kind", "date", *_SCORES),
    "extract_entity": (*_COMMON, "subject", *_SCORES),
    "extract_relation": (
        *_COMMON,
        "subject",
        "relation",
        "object",
        "slot",
        "kind",
        "date",
        *_SCORES,
    ),
}
LOOKUP_ACTIONS = ("read", "list", "get_relations")
ACTIONS = (*LOOKUP_ACTIONS, *EXTRACT_FIELDS, "finish")


class _Step(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    thought: str
    action: str
    args: dict[str, Any]


def norm_text(text: str) -> str:
    """Case-, width-, punctuation- and space-insensitive form of a statement."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return "".join(ch for ch in folded if ch.isalnum())


def _clip_json(value: Any, limit: int) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= limit else text[:limit] + "…(truncated)"


class ReActLoop:
    """The state of one batch's loop: its context, accepted candidates and lookups.

    ``act(action, args)`` runs one tool and returns the observation text; it raises
    ``InvalidOutput`` for an unknown action or extract arguments that break the schema.
    """

    def __init__(
        self, extractor: ReActExtractor, records: Sequence[NodeRecord], stats: dict[str, int]
    ) -> None:
        self.extractor = extractor
        self.kb = extractor.kb
        self.records = list(records)
        self.ctx = BatchContext.build(extractor.registry, records)
        self.stats = stats
        self.accepted: list[Candidate] = []
        self.finished = False
        self._known_texts: set[str] | None = None

    # ------------------------------------------------------------------ dispatch

    def act(self, action: str, args: dict[str, Any]) -> str:
        if action == "finish":
            if args:
                raise InvalidOutput("finish takes no arguments")
            self.finished = True
            return "finished"
        if action in LOOKUP_ACTIONS:
            if set(args) != {"uri"} or not isinstance(args["uri"], str):
                raise InvalidOutput(f'{action} takes {{"uri": "ogm://..."}}')
            result = self._lookup(action, args["uri"][:MAX_URI])
            return _clip_json(result, self.extractor.max_observation_chars)
        if action in EXTRACT_FIELDS:
            return self._extract(action, args)
        raise InvalidOutput(f"unknown action {action!r}")

    # ------------------------------------------------------------------ read tools

    def _lookup(self, action: str, uri: str) -> Any:
        parts = urlsplit(uri)
        if parts.scheme != "ogm":
            return {"error": "a uri looks like ogm://entity/<id or name>"}
        target = unquote(parts.path.lstrip("/"))
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        if action == "list":
            if parts.netloc == "entities":
                return self._list_entities(query.get("type"))
            if parts.netloc == "memories":
                return self._list_memories(query.get("type"))
            return {"error": "list ogm://entities?type=... or ogm://memories?type=..."}
        if parts.netloc == "memory" and action == "read":
            return self._read_memory(target)
        if parts.netloc in ("event", "fact") and action == "read":
            return self._read_uri(uri)
        if parts.netloc != "entity" or not target:
            return {"error": f"{action} takes ogm://entity/<id or name>"}
        entity = self.kb.lookup(target)
        if entity is None:
            return {"error": f"no known entity {target!r}"}
        relations = self._relations(entity.id)
        if action == "get_relations":
            return {"entity": entity.id, "relations": relations}
        return {
            "id": entity.id,
            "type": entity.type,
            "name": entity.name,
            "aliases": list(entity.aliases[:5]),
            "relations": relations,
        }

    def _name_of(self, entity_id: str) -> str:
        entity = self.kb.lookup(entity_id)
        return entity.name if entity else entity_id

    def _relations(self, entity_id: str) -> list[str]:
        edges = self.kb.edges(entity=entity_id)[:RELATION_LIMIT]
        return [
            f"{self._name_of(e.src)} --{e.relation}--> {self._name_of(e.dst)}: {e.fact}"
            for e in edges
        ]

    def _read_uri(self, uri: str) -> Any:
        """Any other record by its ogm:// URI, through the one resolver (abstract, overview)."""
        from ...errors import OgmemError
        from ...resolver import URIResolver

        try:
            found = URIResolver(self.kb).resolve(uri, level=1)
        except OgmemError as exc:
            return {"error": str(exc)}
        return {"uri": found.uri, "abstract": found.abstract, "overview": found.overview}

    def _read_memory(self, memory_id: str) -> Any:
        mem = next((m for m in self.kb.memories() if m.id == memory_id), None)
        if mem is None:
            return {"error": f"no memory {memory_id!r}"}
        return {"id": mem.id, "type": mem.type, "text": mem.text, "enabled": mem.enabled}

    def _list_entities(self, type_: str | None) -> Any:
        found = self.kb.entities(type=type_)
        return {
            "total": len(found),
            "entities": [{"id": e.id, "name": e.name} for e in found[:LIST_LIMIT]],
        }

    def _list_memories(self, type_: str | None) -> Any:
        found = self.kb.memories(include_disabled=False, type=type_)
        found.reverse()  # newest first
        return {
            "total": len(found),
            "memories": [
                {"id": m.id, "type": m.type, "text": m.text[:160]} for m in found[:LIST_LIMIT]
            ],
        }

    # ------------------------------------------------------------------ extract tools

    def _extract(self, action: str, args: dict[str, Any]) -> str:
        fields = EXTRACT_FIELDS[action]
        extra = set(args) - set(fields)
        if extra:
            raise InvalidOutput(f"{action} does not take {sorted(extra)}")
        item = validate_memory(args, self.ctx)
        if action in ("extract_entity", "extract_relation") and item.subject is None:
            raise InvalidOutput(f"{action} needs a subject")
        if action == "extract_relation" and item.relation is None:
            raise InvalidOutput("extract_relation needs a relation and an object")
        candidate = to_candidate(item, self.ctx, self.extractor.name)
        reason = self.known_reason(candidate)
        if reason is not None:
            self.stats["react_known_skipped"] += 1
            return f"skipped, already known: {reason}"
        self.accepted.append(candidate)
        self.stats["react_accepted"] += 1
        return f"accepted as candidate {len(self.accepted)}"

    def known_texts(self) -> set[str]:
        """Normalised statements the knowledge base holds: memories (disabled ones too: the
        user turned them off, re-adding them would undo that), current facts, events."""
        if self._known_texts is None:
            texts = {norm_text(m.text) for m in self.kb.memories(include_disabled=True)}
            texts |= {norm_text(e.fact) for e in self.kb.edges(include_hidden=True)}
            texts |= {norm_text(e.summary) for e in self.kb.events(include_hidden=True)}
            self._known_texts = texts - {""}
        return self._known_texts

    def known_reason(self, candidate: Candidate) -> str | None:
        """Why ``candidate`` is already known (to the knowledge base or this loop), or None."""
        key = norm_text(candidate.text)
        if key in self.known_texts():
            return "the same statement is in memory"
        if any(norm_text(c.text) == key for c in self.accepted):
            return "extracted earlier in this loop"
        subject, obj = candidate.subject, candidate.object
        if subject is None:
            return None
        if candidate.relation is None or obj is None:
            entity = self.kb.lookup(subject.name)
            if entity is not None:
                return f"entity {entity.id} exists"
            same = [
                c
                for c in self.accepted
                if c.subject
                and c.relation is None
                and normalize_name(c.subject.name) == normalize_name(subject.name)
            ]
            return "entity extracted earlier in this loop" if same else None
        triple = (normalize_name(subject.name), candidate.relation, normalize_name(obj.name))
        for c in self.accepted:
            if (
                c.subject
                and c.object
                and (normalize_name(c.subject.name), c.relation, normalize_name(c.object.name))
                == triple
            ):
                return "relation extracted earlier in this loop"
        src, dst = self.kb.lookup(subject.name), self.kb.lookup(obj.name)
        if src is None or dst is None:
            return None
        for edge in self.kb.edges(entity=src.id, relation=candidate.relation):
            if (self.kb.resolve_id(edge.src), self.kb.resolve_id(edge.dst)) == (src.id, dst.id):
                return f"current relation {edge.id}: {edge.fact}"
        return None

    # ------------------------------------------------------------------ prompt

    def known_hint(self) -> str:
        """Known entities the batch's messages or speakers name (bounded), as read() pointers."""
        text = " ".join(f"{r.node.name or ''} {r.node.text}" for r in self.records).casefold()
        hits = []
        for entity in self.kb.entities():
            names = [entity.name, *entity.aliases]
            if any(
                len(n) >= 2 and re.search(r"(?<!\w)" + re.escape(n.casefold()) + r"(?!\w)", text)
                for n in names
            ):
                hits.append(f"ogm://entity/{entity.id} ({entity.name})")
                if len(hits) >= KNOWN_HINT_LIMIT:
                    break
        return ", ".join(hits) if hits else "none"
