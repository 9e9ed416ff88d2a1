"""Stage 2 with a language model: one structured-output call per batch of DAG nodes.

Any OpenAI-compatible endpoint works (vLLM, llama.cpp, Ollama, hosted APIs). The request asks
for ``{"memories": [...]}`` with ``response_format={"type": "json_object", "schema": ...}``, so
constrained decoders (llama.cpp) can only produce memory types declared in YAML and node ids of
the batch. The answer is validated again regardless; an invalid, truncated or unparsable answer,
or a transport error, hands the whole batch to the fallback extractor (the rules), and the
result's ``stats`` count it:

``llm_batches``           batches planned (one session, at most ``max_nodes_per_call`` nodes)
``llm_calls``             requests sent (a request's retries are one call)
``llm_tokens``            prompt + completion tokens the endpoint reported
``llm_errors``            transport errors, timeouts, HTTP errors after the last retry
``llm_truncated``         answers cut off at ``max_tokens`` (also counted as invalid)
``llm_invalid``           answers that were not valid JSON or broke the schema
``llm_empty``             valid answers with no memory at all (the rules then read the batch)
``llm_fallback_batches``  batches the fallback extracted instead
``llm_candidates``        candidates taken from valid answers

>>> extractor = LLMExtractor(LLMSettings(base_url="http://127.0.0.1:8080/v1"),
...                          SchemaRegistry.load(), fallback=rules)  # doctest: +SKIP
>>> extractor.extract(records).stats["llm_calls"]  # doctest: +SKIP
1
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from ...config import LLMSettings
from ...entity.records import NodeRecord
from ...knowledge.schema import SchemaRegistry
from ...llm.client import ChatClient, LLMError
from ..types import Candidate, ExtractionResult, Extractor
from ._llm_common import (
    RULES,
    BatchContext,
    InvalidOutput,
    extraction_schema,
    parse_extraction,
    plan_batches,
    render_nodes,
    render_types,
    run_fallback,
    to_candidate,
)

__all__ = ["LLMExtractor"]

log = logging.getLogger(__name__)

STAT_KEYS = (
    "llm_batches",
    "llm_calls",
    "llm_tokens",
    "llm_errors",
    "llm_truncated",
    "llm_invalid",
    "llm_empty",
    "llm_fallback_batches",
    "llm_candidates",
)

SYSTEM_PROMPT = """\
You extract long-term memories about the user and their work from a conversation.
Answer with one JSON object: {{"memories": [...]}}; each memory has the keys type, text,
node_ids, subject, relation, object, slot, kind, date, confidence, importance.
An empty list is a good answer when nothing is worth remembering.

Memory types (the "type" of each memory):
{types}

{rules}"""


class LLMExtractor:
    """Extract candidates with one JSON-mode chat call per batch; fall back per batch.

    ``max_tokens`` bounds each answer; an answer cut off there counts as invalid (truncated).
    ``max_chars_per_call`` bounds the node text of one call, so a prompt fits small contexts.
    """

    name = "llm"

    def __init__(
        self,
        settings: LLMSettings,
        registry: SchemaRegistry,
        fallback: Extractor,
        *,
        max_nodes_per_call: int = 40,
        max_tokens: int = 1536,
        max_memories_per_call: int = 20,
        max_chars_per_call: int = 8000,
    ) -> None:
        if max_nodes_per_call < 1 or max_tokens < 1 or max_memories_per_call < 1:
            raise ValueError(
                "max_nodes_per_call, max_tokens and max_memories_per_call must be >= 1"
            )
        self.settings = settings
        self.registry = registry
        self.fallback = fallback
        self.max_nodes_per_call = max_nodes_per_call
        self.max_tokens = max_tokens
        self.max_memories_per_call = max_memories_per_call
        self.max_chars_per_call = max_chars_per_call

    def extract(self, records: Sequence[NodeRecord]) -> ExtractionResult:
        """Candidates for ``records``: the model's where its answer is valid, else the
        fallback's, batch by batch. Never raises for what the endpoint does."""
        stats = dict.fromkeys(STAT_KEYS, 0)
        candidates: list[Candidate] = []
        batches = plan_batches(records, self.max_nodes_per_call, self.max_chars_per_call)
        if not batches:
            return ExtractionResult([], stats)
        with ChatClient(self.settings) as client:
            for batch in batches:
                stats["llm_batches"] += 1
                got = self._extract_batch(client, batch, stats)
                if got is None:
                    stats["llm_fallback_batches"] += 1
                    candidates.extend(run_fallback(self.fallback, batch, stats))
                else:
                    stats["llm_candidates"] += len(got)
                    candidates.extend(got)
        return ExtractionResult(candidates, stats)

    def messages(self, batch: Sequence[NodeRecord]) -> list[dict[str, Any]]:
        """The chat messages sent for one batch."""
        system = SYSTEM_PROMPT.format(types=render_types(self.registry), rules=RULES)
        user = (
            "Messages (one per line: [node id] role (speaker) date: text):\n"
            f"{render_nodes(batch)}\n\nExtract the memories as JSON."
        )
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def response_schema(self, ctx: BatchContext) -> dict[str, Any]:
        """The JSON schema sent as ``response_format.schema`` for one batch."""
        return extraction_schema(ctx)

    def _extract_batch(
        self, client: ChatClient, batch: Sequence[NodeRecord], stats: dict[str, int]
    ) -> list[Candidate] | None:
        """The batch's candidates, or ``None`` when the fallback must take it."""
        ctx = BatchContext.build(self.registry, batch, self.max_memories_per_call)
        response_format = {"type": "json_object", "schema": self.response_schema(ctx)}
        stats["llm_calls"] += 1
        try:
            reply = client.chat(
                self.messages(batch), max_tokens=self.max_tokens, response_format=response_format
            )
        except LLMError as exc:
            stats["llm_errors"] += 1
            log.warning("LLM extraction failed; the fallback extracts this batch: %s", exc)
            return None
        stats["llm_tokens"] += reply.total_tokens
        if reply.truncated:
            stats["llm_truncated"] += 1
            stats["llm_invalid"] += 1
            log.warning(
                "LLM extraction cut off at max_tokens=%d; the fallback extracts this batch",
                self.max_tokens,
            )
            return None
        try:
            items = parse_extraction(reply.content, ctx)
        except InvalidOutput as exc:
            stats["llm_invalid"] += 1
            log.warning("LLM extraction answer invalid; the fallback extracts this batch: %s", exc)
            return None
        if not items:  # nothing valid came back: the rules read this batch instead
            stats["llm_empty"] += 1
            return None
        return [to_candidate(item, ctx, self.name) for item in items]
