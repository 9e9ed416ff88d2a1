"""Stage 2 as a ReAct loop (seed 004): read what is known, then write only what is new.

Each step the model answers one JSON object ``{"thought": ..., "action": ..., "args": {...}}``
and gets the tool's result back as the next message:

``read``              ``ogm://entity/<id or name>`` (the entity and its current relations) or
                      ``ogm://memory/<id>``
``list``              ``ogm://entities?type=person`` or ``ogm://memories?type=preference``
                      (a few entries, bounded)
``get_relations``     ``ogm://entity/<id or name>``: its current relations
``extract_memory``    a memory (type, text, node_ids, kind, date, confidence, importance)
``extract_entity``    a named thing: the same plus ``subject`` ``{"name", "type"}``
``extract_relation``  the same plus ``relation``, ``object`` and ``slot``
``finish``            nothing new is left

Before an ``extract_*`` is accepted it is checked against the knowledge base and the
candidates this loop already accepted: a known fact (same normalised text, an existing entity,
or a current edge with the same subject, relation and object) is skipped, so known facts are
not added again. A repeated step gets a reminder; the same step three times in a row ends the
loop. The loop is bounded by ``max_steps``, a token budget and a time budget. An
answer that is not valid JSON, names an unknown action or breaks the schema, or a transport
error, hands the whole batch to the fallback extractor: nothing half-valid is returned.

``stats`` keys: ``react_batches``, ``react_calls``, ``react_steps``, ``react_tokens``,
``react_accepted``, ``react_known_skipped``, ``react_repeats``, ``react_budget_stops``,
``react_stalled``, ``react_errors``, ``react_invalid``, ``react_empty`` (a loop that stalled,
stopped or finished with nothing accepted: the rules read that batch),
``react_fallback_batches``.
``last_trace`` holds the steps of the last ``extract`` call (thought, action, args,
observation) for debugging.
"""

from __future__ import annotations

import json
import logging
import re
import time
import unicodedata
from collections.abc import Sequence
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from pydantic import BaseModel, ConfigDict, ValidationError

from ...config import LLMSettings
from ...entity.records import NodeRecord
from ...knowledge.base import KnowledgeBase, normalize_name
from ...knowledge.schema import SchemaRegistry
from ...llm.client import ChatClient, LLMError
from ..types import Candidate, ExtractionResult, Extractor
from ._llm_common import (
    RULES,
    BatchContext,
    InvalidOutput,
    entity_types,
    memory_item_schema,
    parse_json_object,
    plan_batches,
    render_nodes,
    render_types,
    run_fallback,
    to_candidate,
    validate_memory,
)

__all__ = ["ReActExtractor", "ReActLoop"]

log = logging.getLogger(__name__)

STAT_KEYS = ("react_batches", "react_calls", "react_steps", "react_tokens", "react_accepted",
             "react_known_skipped", "react_repeats", "react_budget_stops", "react_stalled",
             "react_errors", "react_invalid", "react_empty", "react_fallback_batches")

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
    "extract_relation": (*_COMMON, "subject", "relation", "object", "slot", "kind", "date",
                         *_SCORES),
}
LOOKUP_ACTIONS = ("read", "list", "get_relations")
ACTIONS = (*LOOKUP_ACTIONS, *EXTRACT_FIELDS, "finish")

SYSTEM_PROMPT = """\
You extract long-term memories from a conversation, step by step, with tools. Each step,
answer one JSON object {{"thought": "...", "action": "<tool>", "args": {{...}}}}; the tool's
result comes back as the next message.

Tools:
- read {{"uri": "ogm://entity/<id or name>"}} or {{"uri": "ogm://memory/<id>"}}: what is known.
- list {{"uri": "ogm://entities?type=<entity type>"}} or
  {{"uri": "ogm://memories?type=<memory type>"}}: a few known entries.
- get_relations {{"uri": "ogm://entity/<id or name>"}}: the entity's current relations.
- extract_memory {{"type", "text", "node_ids", "kind", "date", "confidence", "importance"}}
- extract_entity {{"type", "text", "node_ids", "subject", "confidence", "importance"}}
- extract_relation {{"type", "text", "node_ids", "subject", "relation", "object", "slot",
  "kind", "date", "confidence", "importance"}}
- finish {{}}: when nothing new is left.

Read what is known before writing, so that known facts are not added again. Extract each new
fact once. Finish when done. Example step:
{{"thought": "Alice is known; check what we know first.", "action": "read",
  "args": {{"uri": "ogm://entity/person.alice"}}}}

Memory types ("type"):
{types}

Entity types: {entity_types}.

{rules}"""


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

    def __init__(self, extractor: ReActExtractor, records: Sequence[NodeRecord],
                 stats: dict[str, int]) -> None:
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
        return {"id": entity.id, "type": entity.type, "name": entity.name,
                "aliases": list(entity.aliases[:5]), "relations": relations}

    def _name_of(self, entity_id: str) -> str:
        entity = self.kb.lookup(entity_id)
        return entity.name if entity else entity_id

    def _relations(self, entity_id: str) -> list[str]:
        edges = self.kb.edges(entity=entity_id)[:RELATION_LIMIT]
        return [f"{self._name_of(e.src)} --{e.relation}--> {self._name_of(e.dst)}: {e.fact}"
                for e in edges]

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
        return {"total": len(found),
                "entities": [{"id": e.id, "name": e.name} for e in found[:LIST_LIMIT]]}

    def _list_memories(self, type_: str | None) -> Any:
        found = self.kb.memories(include_disabled=False, type=type_)
        found.reverse()  # newest first
        return {"total": len(found),
                "memories": [{"id": m.id, "type": m.type, "text": m.text[:160]}
                             for m in found[:LIST_LIMIT]]}

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
            same = [c for c in self.accepted if c.subject and c.relation is None
                    and normalize_name(c.subject.name) == normalize_name(subject.name)]
            return "entity extracted earlier in this loop" if same else None
        triple = (normalize_name(subject.name), candidate.relation, normalize_name(obj.name))
        for c in self.accepted:
            if c.subject and c.object and (normalize_name(c.subject.name), c.relation,
                                           normalize_name(c.object.name)) == triple:
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
            if any(len(n) >= 2 and re.search(r"(?<!\w)" + re.escape(n.casefold()) + r"(?!\w)",
                                              text) for n in names):
                hits.append(f"ogm://entity/{entity.id} ({entity.name})")
                if len(hits) >= KNOWN_HINT_LIMIT:
                    break
        return ", ".join(hits) if hits else "none"


class ReActExtractor:
    """Extract with a ReAct loop over tools on the knowledge base; fall back per batch.

    Budgets per batch: ``max_steps`` model calls, ``max_total_tokens`` (prompt + completion as
    reported by the endpoint) and ``max_seconds``. When a budget ends the loop, the candidates
    accepted so far (each one valid) are kept and ``react_budget_stops`` counts it. The prompt
    keeps the opening messages and the last ``max_history_steps`` steps, so it fits a small
    context window however long the loop runs (what was accepted stays in the loop's state).
    """

    name = "react"

    def __init__(self, settings: LLMSettings, registry: SchemaRegistry, kb: KnowledgeBase,
                 fallback: Extractor, *, max_steps: int = 8, max_nodes_per_call: int = 20,
                 max_chars_per_call: int = 6000, max_step_tokens: int = 320,
                 max_total_tokens: int = 40000, max_seconds: float = 180.0,
                 max_observation_chars: int = 800, max_history_steps: int = 4) -> None:
        if max_steps < 1 or max_nodes_per_call < 1 or max_step_tokens < 1:
            raise ValueError("max_steps, max_nodes_per_call and max_step_tokens must be >= 1")
        self.settings = settings
        self.registry = registry
        self.kb = kb
        self.fallback = fallback
        self.max_steps = max_steps
        self.max_nodes_per_call = max_nodes_per_call
        self.max_chars_per_call = max_chars_per_call
        self.max_step_tokens = max_step_tokens
        self.max_total_tokens = max_total_tokens
        self.max_seconds = max_seconds
        self.max_observation_chars = max_observation_chars
        self.max_history_steps = max_history_steps
        #: the steps of the last ``extract`` call: batch, step, thought, action, args,
        #: observation (or error / fallback entries)
        self.last_trace: list[dict[str, Any]] = []

    def new_loop(self, records: Sequence[NodeRecord],
                 stats: dict[str, int] | None = None) -> ReActLoop:
        """A loop over ``records`` (one session) without calling the model: for tools and tests."""
        return ReActLoop(self, records, stats if stats is not None else dict.fromkeys(STAT_KEYS, 0))

    def extract(self, records: Sequence[NodeRecord]) -> ExtractionResult:
        """Candidates for ``records``: the loop's where it ran cleanly, else the fallback's,
        batch by batch. Never raises for what the endpoint does."""
        stats = dict.fromkeys(STAT_KEYS, 0)
        trace: list[dict[str, Any]] = []
        candidates: list[Candidate] = []
        batches = plan_batches(records, self.max_nodes_per_call, self.max_chars_per_call)
        if batches:
            with ChatClient(self.settings) as client:
                for number, batch in enumerate(batches):
                    stats["react_batches"] += 1
                    got = self._run(client, batch, stats, trace, number)
                    if got is None:
                        stats["react_fallback_batches"] += 1
                        trace.append({"batch": number, "fallback": True})
                        candidates.extend(run_fallback(self.fallback, batch, stats))
                    else:
                        candidates.extend(got)
        self.last_trace = trace
        return ExtractionResult(candidates, stats)

    def messages(self, loop: ReActLoop) -> list[dict[str, Any]]:
        """The opening messages of a batch's loop."""
        system = SYSTEM_PROMPT.format(types=render_types(self.registry), rules=RULES,
                                      entity_types=", ".join(entity_types(self.registry)))
        user = ("Messages (one per line: [node id] role (speaker) date: text):\n"
                f"{render_nodes(loop.records)}\n\n"
                f"Known entities named here (read them first): {loop.known_hint()}\n"
                "Next step as JSON.")
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def step_schema(self, ctx: BatchContext) -> dict[str, Any]:
        """One step: an ``anyOf`` with one branch per action and its arguments."""
        uri = {"type": "object", "properties": {"uri": {"type": "string", "maxLength": MAX_URI}},
               "required": ["uri"]}
        branches = []
        for action in ACTIONS:
            if action in EXTRACT_FIELDS:
                args: dict[str, Any] = memory_item_schema(ctx, EXTRACT_FIELDS[action])
            elif action == "finish":
                args = {"type": "object", "properties": {}, "required": []}
            else:
                args = uri
            branches.append({"type": "object",
                             "properties": {"thought": {"type": "string",
                                                        "maxLength": MAX_THOUGHT},
                                            "action": {"const": action}, "args": args},
                             "required": ["thought", "action", "args"]})
        return {"anyOf": branches}

    def _run(self, client: ChatClient, batch: Sequence[NodeRecord], stats: dict[str, int],
             trace: list[dict[str, Any]], number: int) -> list[Candidate] | None:
        """One batch's loop: its accepted candidates, or ``None`` for the fallback."""
        loop = self.new_loop(batch, stats)
        opening = self.messages(loop)
        history: list[dict[str, Any]] = []
        response_format = {"type": "json_object", "schema": self.step_schema(loop.ctx)}
        started, tokens = time.monotonic(), 0
        seen: dict[str, str] = {}  # step key -> observation
        last_key, run = "", 0
        for step in range(self.max_steps):
            if tokens >= self.max_total_tokens or time.monotonic() - started >= self.max_seconds:
                stats["react_budget_stops"] += 1
                trace.append({"batch": number, "step": step, "budget_stop": True})
                break
            stats["react_calls"] += 1
            try:
                messages = opening + history[max(0, len(history) - 2 * self.max_history_steps):]
                reply = client.chat(messages, max_tokens=self.max_step_tokens,
                                    response_format=response_format)
            except LLMError as exc:
                stats["react_errors"] += 1
                trace.append({"batch": number, "step": step, "error": str(exc)})
                log.warning("ReAct extraction failed; the fallback extracts this batch: %s", exc)
                return None
            tokens += reply.total_tokens
            stats["react_tokens"] += reply.total_tokens
            try:
                if reply.truncated:
                    raise InvalidOutput(f"answer cut off at max_tokens={self.max_step_tokens}")
                parsed = _parse_step(reply.content)
                key = json.dumps([parsed.action, parsed.args], sort_keys=True)
                run = run + 1 if key == last_key else 1
                last_key = key
                if key in seen:
                    # The same tool call again: answer from memory (an extract would only be
                    # skipped as known) and nudge the model on.
                    stats["react_repeats"] += 1
                    observation = (f"{seen[key]}\n(You did exactly this already. Extract what is "
                                   "new, or finish.)")
                else:
                    observation = loop.act(parsed.action, parsed.args)
                    seen[key] = observation
            except InvalidOutput as exc:
                stats["react_invalid"] += 1
                trace.append({"batch": number, "step": step, "raw": reply.content[:500],
                              "invalid": str(exc)})
                log.warning("ReAct step invalid; the fallback extracts this batch: %s", exc)
                return None
            stats["react_steps"] += 1
            trace.append({"batch": number, "step": step, "thought": parsed.thought,
                          "action": parsed.action, "args": parsed.args,
                          "observation": observation})
            if loop.finished:
                break
            if run >= STALL_REPEATS:
                stats["react_stalled"] += 1
                log.info("ReAct loop stalled (the same step %d times); ending it", run)
                break
            history.append({"role": "assistant", "content": reply.content})
            history.append({"role": "user",
                            "content": f"Observation: {observation}\nNext step as JSON."})
        if not loop.accepted:  # stalled, stopped or finished with nothing: the rules read it
            stats["react_empty"] += 1
            trace.append({"batch": number, "empty": True})
            return None
        return loop.accepted


def _parse_step(raw: str) -> _Step:
    data = parse_json_object(raw)
    try:
        step = _Step.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        raise InvalidOutput(f"step {where}: {first.get('msg')}") from None
    if len(step.thought) > MAX_THOUGHT * 2:
        raise InvalidOutput("thought too long")
    if step.action not in ACTIONS:
        raise InvalidOutput(f"unknown action {step.action!r}")
    return step
