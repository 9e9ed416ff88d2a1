"""What the LLM and ReAct extractors share: batching, prompts, JSON schemas, strict validation.

Model output is never trusted (DESIGN §2.4). Every item is checked against the batch it came
from: its memory type is declared in YAML, its node ids are nodes of this batch (all of one
session), its text is non-empty and bounded, its scores lie in [0, 1] and its date parses. One
bad item makes the whole answer invalid; callers then hand the batch to the fallback extractor.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from ...entity.records import NodeRecord
from ...entity.times import day_label
from ...knowledge.models import ENTITY_TYPES, TIMELINE_KINDS, TimelineKind
from ...knowledge.names import detect_language
from ...knowledge.schema import SchemaRegistry
from ..types import Candidate, EntityRef, Extractor

__all__ = [
    "BatchContext",
    "InvalidOutput",
    "MemoryOut",
    "extraction_schema",
    "memory_item_schema",
    "parse_extraction",
    "plan_batches",
    "render_nodes",
    "render_types",
    "run_fallback",
    "to_candidate",
]

MAX_TEXT = 500
MAX_NAME = 120
MAX_NODE_CHARS = 1200
MAX_TOOL_CHARS = 300
#: scores the grammar lets a constrained decoder choose from (any value in [0, 1] validates)
SCORES = [round(i / 10, 1) for i in range(11)]
_IDENT = re.compile(r"[a-z][a-z0-9_]{0,39}")
#: a slot: an identifier, optionally ":" and what it is of ("deadline:beta", "version:python")
_SLOT = re.compile(r"[a-z][a-z0-9_]{0,29}(?::[^\s:][^:\n]{0,39})?")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


class InvalidOutput(ValueError):
    """The model's answer is not valid JSON, or violates the schema of this batch."""


# ====================================================================== batches


@dataclass(frozen=True)
class BatchContext:
    """What a model answer about one batch is validated against."""

    node_sessions: Mapping[str, str]  # node id -> session id
    memory_types: frozenset[str]
    entity_types: frozenset[str]
    relations: frozenset[str]  # declared in YAML; offered to the model, any identifier validates
    max_items: int = 20
    project_types: frozenset[str] = frozenset()  # types a bound project owns (scope: project)

    @classmethod
    def build(
        cls, registry: SchemaRegistry, records: Sequence[NodeRecord], max_items: int = 20
    ) -> BatchContext:
        return cls(
            node_sessions={r.node.id: r.session_id for r in records},
            memory_types=frozenset(registry.names()),
            entity_types=frozenset(entity_types(registry)),
            relations=frozenset(r for t in registry.all() for r in t.relations),
            max_items=max_items,
            project_types=frozenset(t.name for t in registry.all() if t.scope == "project"),
        )


def entity_types(registry: SchemaRegistry) -> list[str]:
    """The built-in entity types plus those the YAML memory types declare."""
    return sorted(set(ENTITY_TYPES) | {t.entity_type for t in registry.all()})


def plan_batches(
    records: Sequence[NodeRecord], max_nodes: int, max_chars: int
) -> list[list[NodeRecord]]:
    """Split records into model calls: one session per batch (a candidate's evidence must come
    from one session), in order, at most ``max_nodes`` nodes and about ``max_chars`` of text."""
    by_session: dict[str, list[NodeRecord]] = {}
    for rec in records:
        by_session.setdefault(rec.session_id, []).append(rec)
    batches: list[list[NodeRecord]] = []
    for recs in by_session.values():
        current: list[NodeRecord] = []
        size = 0
        for rec in recs:
            cost = min(len(rec.node.text), MAX_NODE_CHARS) + 80
            if current and (len(current) >= max_nodes or size + cost > max_chars):
                batches.append(current)
                current, size = [], 0
            current.append(rec)
            size += cost
        if current:
            batches.append(current)
    return batches


def run_fallback(
    fallback: Extractor, records: Sequence[NodeRecord], stats: dict[str, int]
) -> list[Candidate]:
    """The fallback extractor's candidates for ``records``; its counters are added to ``stats``."""
    result = fallback.extract(records)
    for key, value in result.stats.items():
        stats[key] = stats.get(key, 0) + value
    return list(result.candidates)


# ====================================================================== prompts


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def render_nodes(records: Iterable[NodeRecord]) -> str:
    """One block per node: ``[id] role (speaker) YYYY-MM-DD: text``; tool output clipped."""
    lines = []
    for rec in records:
        node = rec.node
        speaker = node.name or node.role
        limit = MAX_TOOL_CHARS if node.role == "tool" else MAX_NODE_CHARS
        text = _clip(node.text.strip(), limit) or "(empty)"
        if node.role == "tool":
            text = f"(tool result) {text}"
        body = text.replace("\n", "\n    ")
        lines.append(f"[{node.id}] {node.role} ({speaker}) {day_label(node.event_time)}: {body}")
    return "\n".join(lines)


def render_types(registry: SchemaRegistry) -> str:
    """The memory types declared in YAML, one line each, for the system prompt."""
    lines = []
    for mt in registry.all():
        line = f"- {mt.name}: {mt.description}"
        if mt.hint:
            line += f" Extract: {mt.hint}"
        if mt.relations:
            line += f" Relations: {', '.join(mt.relations)}."
        lines.append(line)
    return "\n".join(lines)


RULES = """\
Rules:
- Only facts the messages state; nothing guessed. Skip greetings, thanks and small talk.
- What to keep: who the user is (name, role, employer, where they live, moves); other people,
  their roles, how they relate to the user and what they expect (a recurring report); standing
  rules ("always ...", "never ...", "please don't ..."); preferences and dislikes; decisions in
  any phrasing ("let's switch from A to B", "we'll go with X", "don't use X"); configuration
  the user states (ports, versions, regions, hosts, paths); deadlines and their changes;
  lessons (a cause the user asked about, a lesson they draw); dated events of their life.
- Between people talking (named speakers), also what each says of themselves: their family,
  friends and pets (by name), work, what they did, plan, own, like and feel, where and when;
  what they value ("family time matters to me"), believe ("taking care of yourself is
  vital"), find rewarding or hard, need ("help with marketing"), offer the other person, suggest
  to them, and are about to do. How two people stand to each other (one encourages, admires,
  thanks or cares for the other) is no memory: it says nothing a reader would note of either.
- The assistant's echoes and confirmations ("Noted: ...", "Summary: ...", "Okay, I'll ...")
  are never memories of their own. Tool calls of one turn are one "work" memory that says what
  was achieved ("fixed the failing tests by pinning numpy below 2"), never one per command,
  never a raw command or a commit message.
- node_ids: the ids in [brackets] of the messages that say it.
- text: one short self-contained sentence in the third person that names who it is about
  ("The user prefers pnpm.", "Priya Raman is the team's product owner."), with relative dates
  resolved ("yesterday" -> the date). No "you", "it" or "we" that the sentence alone does not
  explain: name the person spoken to, the thing, the family or team. Write it in the language
  of its evidence (Chinese messages give Chinese text, English messages English text).
- subject/relation/object: only for a relation between two named things, e.g. subject
  {"name": "Alice", "type": "person"}, relation "prefers", object {"name": "Python",
  "type": "tool"}; otherwise null.
- slot: the specific attribute the relation fills, one value at a time: "database", "cache",
  "language", "employer", "residence", "manager", "port", "region", "version:python",
  "deadline:beta" (a deadline of one named thing); null when several can hold at once.
- kind: "work", "decision", "learning" or "event" when it is something that happened, else null.
- date: YYYY-MM-DD when the fact has a date (resolve "yesterday" against the message date),
  else null.
- confidence and importance: numbers from 0 to 1."""


# ====================================================================== JSON schemas


def _entity_schema(ctx: BatchContext) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": MAX_NAME},
            "type": {"enum": sorted(ctx.entity_types)},
        },
        "required": ["name", "type"],
    }


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


def memory_item_schema(ctx: BatchContext, fields: Iterable[str] | None = None) -> dict[str, Any]:
    """JSON schema of one memory (restricted to ``fields`` if given). Constrained decoders
    (llama.cpp) follow it; the answer is validated again either way."""
    ids = sorted(ctx.node_sessions)
    props: dict[str, Any] = {
        "type": {"enum": sorted(ctx.memory_types)},
        "text": {"type": "string", "minLength": 1, "maxLength": MAX_TEXT},
        "node_ids": {
            "type": "array",
            "items": {"enum": ids},
            "minItems": 1,
            "maxItems": min(len(ids), 8),
        },
        "subject": _nullable(_entity_schema(ctx)),
        "relation": _nullable(
            {"enum": sorted(ctx.relations)}
            if ctx.relations
            else {"type": "string", "maxLength": 40}
        ),
        "object": _nullable(_entity_schema(ctx)),
        "slot": _nullable(
            {
                "type": "string",
                "maxLength": 70,
                "pattern": "^[a-z][a-z0-9_]{0,29}(:[^:\\n]{1,40})?$",
            }
        ),
        "kind": _nullable({"enum": list(TIMELINE_KINDS)}),
        "date": _nullable({"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"}),
        "confidence": {"enum": SCORES},
        "importance": {"enum": SCORES},
    }
    if fields is not None:
        wanted = list(fields)
        props = {k: props[k] for k in wanted}
    return {"type": "object", "properties": props, "required": list(props)}


def extraction_schema(ctx: BatchContext) -> dict[str, Any]:
    """``{"memories": [memory, ...]}`` with at most ``ctx.max_items`` memories."""
    return {
        "type": "object",
        "properties": {
            "memories": {
                "type": "array",
                "items": memory_item_schema(ctx),
                "maxItems": ctx.max_items,
            }
        },
        "required": ["memories"],
    }


# ====================================================================== validation


def _ctx(info: ValidationInfo) -> BatchContext:
    ctx = info.context
    if not isinstance(ctx, BatchContext):
        raise TypeError("validation needs the batch context")  # a programming error
    return ctx


class EntityOut(BaseModel):
    """An entity as the model names it."""

    model_config = ConfigDict(extra="forbid", strict=True)

    name: str
    type: str

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        value = " ".join(value.split())
        if not value or len(value) > MAX_NAME:
            raise ValueError(f"entity name must have 1 to {MAX_NAME} characters")
        return value

    @field_validator("type")
    @classmethod
    def _type(cls, value: str, info: ValidationInfo) -> str:
        if value not in _ctx(info).entity_types:
            raise ValueError(f"unknown entity type {value!r}")
        return value


class MemoryOut(BaseModel):
    """One memory as the model states it, checked against its batch."""

    model_config = ConfigDict(extra="forbid", strict=True)

    type: str
    text: str
    node_ids: list[str]
    subject: EntityOut | None = None
    relation: str | None = None
    object: EntityOut | None = None
    slot: str | None = None
    kind: TimelineKind | None = None
    date: str | None = None
    confidence: float
    importance: float

    @field_validator("type")
    @classmethod
    def _type(cls, value: str, info: ValidationInfo) -> str:
        if value not in _ctx(info).memory_types:
            raise ValueError(f"{value!r} is not a declared memory type")
        return value

    @field_validator("text")
    @classmethod
    def _text(cls, value: str) -> str:
        value = value.strip()
        if not value or len(value) > MAX_TEXT:
            raise ValueError(f"text must have 1 to {MAX_TEXT} characters")
        return value

    @field_validator("node_ids")
    @classmethod
    def _node_ids(cls, value: list[str], info: ValidationInfo) -> list[str]:
        sessions = _ctx(info).node_sessions
        if not value:
            raise ValueError("node_ids must not be empty")
        unknown = [n for n in value if n not in sessions]
        if unknown:
            raise ValueError(f"node ids not in this batch: {unknown[:3]}")
        if len({sessions[n] for n in value}) != 1:
            raise ValueError("node_ids must all come from one session")
        return list(dict.fromkeys(value))

    @field_validator("relation")
    @classmethod
    def _ident(cls, value: str | None) -> str | None:
        if value is not None and not _IDENT.fullmatch(value):
            raise ValueError(f"{value!r} is not a lower_case identifier")
        return value

    @field_validator("slot")
    @classmethod
    def _slot(cls, value: str | None) -> str | None:
        if value is not None and not _SLOT.fullmatch(value):
            raise ValueError(f"{value!r} is not a slot (an identifier, or 'deadline:<what>')")
        return value

    @field_validator("date")
    @classmethod
    def _date(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if not _DATE.fullmatch(value):
            raise ValueError("date must be YYYY-MM-DD")
        date.fromisoformat(value)  # ValueError on 2024-13-40
        return value

    @field_validator("confidence", "importance")
    @classmethod
    def _score(cls, value: float) -> float:
        if not 0.0 <= value <= 1.0:
            raise ValueError("must be between 0 and 1")
        return value

    @model_validator(mode="after")
    def _relation_shape(self) -> MemoryOut:
        if self.relation is not None and (self.subject is None or self.object is None):
            raise ValueError("a relation needs a subject and an object")
        if self.object is not None and self.relation is None:
            raise ValueError("an object needs a relation")
        return self


def _error_text(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first.get("loc", ()))
    return f"{where}: {first.get('msg')}" + (
        f" (+{exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    )


def parse_json_object(raw: str) -> dict[str, Any]:
    """The answer as a JSON object, or ``InvalidOutput``."""
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise InvalidOutput(f"not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise InvalidOutput("the answer must be a JSON object")
    return data


def validate_memory(data: Any, ctx: BatchContext) -> MemoryOut:
    try:
        return MemoryOut.model_validate(data, context=ctx)
    except ValidationError as exc:
        raise InvalidOutput(_error_text(exc)) from None


def parse_extraction(raw: str, ctx: BatchContext) -> list[MemoryOut]:
    """Every memory of a ``{"memories": [...]}`` answer, or ``InvalidOutput`` if any is bad."""
    data = parse_json_object(raw)
    if set(data) != {"memories"} or not isinstance(data["memories"], list):
        raise InvalidOutput('the answer must be {"memories": [...]}')
    items = data["memories"]
    if len(items) > ctx.max_items:
        raise InvalidOutput(f"more than {ctx.max_items} memories")
    out = []
    for i, item in enumerate(items):
        try:
            out.append(validate_memory(item, ctx))
        except InvalidOutput as exc:
            raise InvalidOutput(f"memories[{i}].{exc}") from None
    return out


def _ref(entity: EntityOut | None) -> EntityRef | None:
    return EntityRef(name=entity.name, type=entity.type) if entity else None


def to_candidate(item: MemoryOut, ctx: BatchContext, extractor: str) -> Candidate:
    """A validated memory as a ``Candidate`` (its date is 00:00 UTC of that day)."""
    when = None
    if item.date is not None:
        day = date.fromisoformat(item.date)
        when = datetime.combine(day, time(0), tzinfo=UTC).timestamp()
    return Candidate(
        type=item.type,
        text=item.text,
        session_id=ctx.node_sessions[item.node_ids[0]],
        node_ids=tuple(item.node_ids),
        subject=_ref(item.subject),
        relation=item.relation,
        object=_ref(item.object),
        slot=item.slot,
        kind=item.kind,
        event_time=when,
        confidence=item.confidence,
        importance=item.importance,
        language=detect_language(item.text),
        attrs={"extractor": extractor},
        collective=item.type in ctx.project_types,
    )
