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
import time
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from ...config import LLMSettings
from ...entity.records import NodeRecord
from ...knowledge.base import KnowledgeBase
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
)
from ._react_loop import (
    ACTIONS,
    EXTRACT_FIELDS,
    MAX_THOUGHT,
    MAX_URI,
    STALL_REPEATS,
    STAT_KEYS,
    ReActLoop,
    _Step,
)

__all__ = ["ReActExtractor", "ReActLoop"]

log = logging.getLogger(__name__)

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


class ReActExtractor:
    """Extract with a ReAct loop over tools on the knowledge base; fall back per batch.

    Budgets per batch: ``max_steps`` model calls, ``max_total_tokens`` (prompt + completion as
    reported by the endpoint) and ``max_seconds``. When a budget ends the loop, the candidates
    accepted so far (each one valid) are kept and ``react_budget_stops`` counts it. The prompt
    keeps the opening messages and the last ``max_history_steps`` steps, so it fits a small
    context window however long the loop runs (what was accepted stays in the loop's state).
    """

    name = "react"

    def __init__(
        self,
        settings: LLMSettings,
        registry: SchemaRegistry,
        kb: KnowledgeBase,
        fallback: Extractor,
        *,
        max_steps: int = 8,
        max_nodes_per_call: int = 20,
        max_chars_per_call: int = 6000,
        max_step_tokens: int = 320,
        max_total_tokens: int = 40000,
        max_seconds: float = 180.0,
        max_observation_chars: int = 800,
        max_history_steps: int = 4,
    ) -> None:
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

    def new_loop(
        self, records: Sequence[NodeRecord], stats: dict[str, int] | None = None
    ) -> ReActLoop:
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
        system = SYSTEM_PROMPT.format(
            types=render_types(self.registry),
            rules=RULES,
            entity_types=", ".join(entity_types(self.registry)),
        )
        user = (
            "Messages (one per line: [node id] role (speaker) date: text):\n"
            f"{render_nodes(loop.records)}\n\n"
            f"Known entities named here (read them first): {loop.known_hint()}\n"
            "Next step as JSON."
        )
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def step_schema(self, ctx: BatchContext) -> dict[str, Any]:
        """One step: an ``anyOf`` with one branch per action and its arguments."""
        uri = {
            "type": "object",
            "properties": {"uri": {"type": "string", "maxLength": MAX_URI}},
            "required": ["uri"],
        }
        branches = []
        for action in ACTIONS:
            if action in EXTRACT_FIELDS:
                args: dict[str, Any] = memory_item_schema(ctx, EXTRACT_FIELDS[action])
            elif action == "finish":
                args = {"type": "object", "properties": {}, "required": []}
            else:
                args = uri
            branches.append(
                {
                    "type": "object",
                    "properties": {
                        "thought": {"type": "string", "maxLength": MAX_THOUGHT},
                        "action": {"const": action},
                        "args": args,
                    },
                    "required": ["thought", "action", "args"],
                }
            )
        return {"anyOf": branches}

    def _run(
        self,
        client: ChatClient,
        batch: Sequence[NodeRecord],
        stats: dict[str, int],
        trace: list[dict[str, Any]],
        number: int,
    ) -> list[Candidate] | None:
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
                messages = opening + history[max(0, len(history) - 2 * self.max_history_steps) :]
                reply = client.chat(
                    messages, max_tokens=self.max_step_tokens, response_format=response_format
                )
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
                parsed, key, observation = self._observe(loop, reply.content, seen, stats)
            except InvalidOutput as exc:
                stats["react_invalid"] += 1
                trace.append(
                    {"batch": number, "step": step, "raw": reply.content[:500], "invalid": str(exc)}
                )
                log.warning("ReAct step invalid; the fallback extracts this batch: %s", exc)
                return None
            run = run + 1 if key == last_key else 1
            last_key = key
            stats["react_steps"] += 1
            trace.append(
                {
                    "batch": number,
                    "step": step,
                    "thought": parsed.thought,
                    "action": parsed.action,
                    "args": parsed.args,
                    "observation": observation,
                }
            )
            if loop.finished:
                break
            if run >= STALL_REPEATS:
                stats["react_stalled"] += 1
                log.info("ReAct loop stalled (the same step %d times); ending it", run)
                break
            history.append({"role": "assistant", "content": reply.content})
            history.append(
                {"role": "user", "content": f"Observation: {observation}\nNext step as JSON."}
            )
        if not loop.accepted:  # stalled, stopped or finished with nothing: the rules read it
            stats["react_empty"] += 1
            trace.append({"batch": number, "empty": True})
            return None
        return loop.accepted

    @staticmethod
    def _observe(
        loop: ReActLoop, content: str, seen: dict[str, str], stats: dict[str, int]
    ) -> tuple[_Step, str, str]:
        """Parse one answer and act on it: ``(step, its key, the observation)``. The same tool
        call again is answered from ``seen`` (an extract would only be skipped as known), with
        a nudge to move on."""
        parsed = _parse_step(content)
        key = json.dumps([parsed.action, parsed.args], sort_keys=True)
        if key in seen:
            stats["react_repeats"] += 1
            return (
                parsed,
                key,
                (f"{seen[key]}\n(You did exactly this already. Extract what is new, or finish.)"),
            )
        seen[key] = loop.act(parsed.action, parsed.args)
        return parsed, key, seen[key]


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
