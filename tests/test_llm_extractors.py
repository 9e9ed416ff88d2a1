"""The LLM and ReAct extractors against a real local model server (no fakes, no mocked HTTP).

SmolLM2-135M is weak: these tests pin the protocol (calls made, answers validated, fallbacks
counted, bounds kept) and the validity of every candidate, never what the model understood.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from ogmemory.config import LLMSettings
from ogmemory.distill.extractors._llm_common import (
    BatchContext,
    InvalidOutput,
    extraction_schema,
    parse_extraction,
    plan_batches,
)
from ogmemory.distill.extractors.llm import LLMExtractor
from ogmemory.distill.extractors.react import ReActExtractor, ReActLoop, _parse_step
from ogmemory.distill.types import Candidate, ExtractionResult
from ogmemory.entity.records import Node, NodeRecord, Provenance
from ogmemory.knowledge.base import KnowledgeBase
from ogmemory.knowledge.models import Edge, Entity
from ogmemory.knowledge.schema import SchemaRegistry
from ogmemory.storage.jsonl import JsonlKnowledgeStore

DAY = 1714521600.0  # 2024-05-01 00:00 UTC
UNREACHABLE = LLMSettings(base_url="http://127.0.0.1:9/v1", timeout=0.5, max_retries=0)


class FixedExtractor:
    """Stands in for the rule extractor: one fixed candidate per call, and a counter."""

    name = "fixed"

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def extract(self, records: Sequence[NodeRecord]) -> ExtractionResult:
        self.calls.append([r.node.id for r in records])
        first = records[0]
        cand = Candidate(
            type="profile",
            text="fallback fact",
            session_id=first.session_id,
            node_ids=(first.node.id,),
            attrs={"extractor": "fixed"},
        )
        return ExtractionResult([cand], {"fixed_calls": 1})


def record(
    session: str, nid: str, seq: int, role: str, text: str, name: str | None = None
) -> NodeRecord:
    node = Node(
        id=nid,
        seq=seq,
        role=role,
        content=text,
        parent_id=None,  # type: ignore[arg-type]
        event_time=DAY + 3600 * seq,
        ingestion_time=DAY + 3600 * seq,
        name=name,
    )
    return NodeRecord(
        session_id=session,
        project_id="default",
        agent_id=None,
        node=node,
        commit="0" * 40,
        turn=1 + seq // 2,
    )


def conversation() -> list[NodeRecord]:
    return [
        record("s1", "n1", 1, "user", "I prefer Python over Go for backend work.", "alice"),
        record("s1", "n2", 2, "assistant", "Noted: Python for the backend."),
        record("s2", "n3", 1, "user", "我在上海的 Acme 公司工作。", "alice"),
        record("s2", "n4", 2, "assistant", "好的，记住了。"),
    ]


@pytest.fixture(scope="module")
def registry() -> SchemaRegistry:
    return SchemaRegistry.load()


def assert_valid(
    cands: Sequence[Candidate], records: Sequence[NodeRecord], registry: SchemaRegistry
) -> None:
    sessions = {r.node.id: r.session_id for r in records}
    for c in cands:
        assert c.type in registry, c
        assert c.text.strip() and len(c.text) <= 500
        assert c.node_ids and set(c.node_ids) <= set(sessions), c
        assert {sessions[n] for n in c.node_ids} == {c.session_id}, c
        assert 0 <= c.confidence <= 1 and 0 <= c.importance <= 1
        assert c.language in ("en", "zh")
        assert c.relation is None or (c.subject is not None and c.object is not None)


def settings_for(url: str) -> LLMSettings:
    # Generous: on 2 busy cores one 400-token answer of the small model took over 60 s.
    return LLMSettings(base_url=url, model="smollm2", timeout=150, max_retries=0)


# ====================================================================== LLMExtractor, real server


@pytest.mark.timeout(300)
def test_llm_extractor_end_to_end(llama_server: str, registry: SchemaRegistry) -> None:
    records = conversation()
    fallback = FixedExtractor()
    extractor = LLMExtractor(settings_for(llama_server), registry, fallback, max_tokens=400)
    result = extractor.extract(records)
    stats = result.stats
    # One call per session: a candidate's evidence must come from one session.
    assert stats["llm_batches"] == 2 and stats["llm_calls"] == 2
    assert stats["llm_errors"] == 0
    assert stats["llm_tokens"] > 0
    assert stats["llm_fallback_batches"] == (
        stats["llm_invalid"] + stats["llm_errors"] + stats["llm_empty"]
    )
    assert len(fallback.calls) == stats["llm_fallback_batches"]
    from_llm = [c for c in result.candidates if c.attrs.get("extractor") == "llm"]
    assert len(from_llm) == stats["llm_candidates"]
    assert len(result.candidates) == len(from_llm) + len(fallback.calls)
    assert_valid(result.candidates, records, registry)


@pytest.mark.timeout(60)
def test_truncated_answer_falls_back_whole_batch(
    llama_server: str, registry: SchemaRegistry
) -> None:
    records = conversation()[:2]
    fallback = FixedExtractor()
    extractor = LLMExtractor(settings_for(llama_server), registry, fallback, max_tokens=3)
    result = extractor.extract(records)
    assert result.stats["llm_calls"] == 1
    assert result.stats["llm_truncated"] == 1 and result.stats["llm_invalid"] == 1
    assert result.stats["llm_fallback_batches"] == 1
    assert result.stats["fixed_calls"] == 1  # the fallback's own counters are kept
    assert fallback.calls == [["n1", "n2"]]
    assert [c.text for c in result.candidates] == ["fallback fact"]


class UndeclaredTypeExtractor(LLMExtractor):
    """Constrains the model to answer one memory of a type no YAML declares."""

    def response_schema(self, ctx: BatchContext) -> dict[str, Any]:
        schema = extraction_schema(ctx)
        memories = schema["properties"]["memories"]
        memories["minItems"], memories["maxItems"] = 1, 1
        memories["items"]["properties"]["type"] = {"enum": ["not_a_declared_type"]}
        return schema


@pytest.mark.timeout(60)
def test_schema_violation_falls_back(llama_server: str, registry: SchemaRegistry) -> None:
    records = conversation()[:2]
    fallback = FixedExtractor()
    extractor = UndeclaredTypeExtractor(
        settings_for(llama_server), registry, fallback, max_tokens=300
    )
    result = extractor.extract(records)
    assert result.stats["llm_calls"] == 1 and result.stats["llm_errors"] == 0
    assert result.stats["llm_invalid"] == 1 and result.stats["llm_fallback_batches"] == 1
    assert result.stats["llm_candidates"] == 0
    assert [c.text for c in result.candidates] == ["fallback fact"]  # nothing half-valid


def test_unreachable_endpoint_falls_back(registry: SchemaRegistry) -> None:
    records = conversation()
    fallback = FixedExtractor()
    result = LLMExtractor(UNREACHABLE, registry, fallback).extract(records)
    assert result.stats["llm_calls"] == 2 and result.stats["llm_errors"] == 2
    assert result.stats["llm_fallback_batches"] == 2 and result.stats["fixed_calls"] == 2
    assert fallback.calls == [["n1", "n2"], ["n3", "n4"]]
    assert [c.session_id for c in result.candidates] == ["s1", "s2"]


def test_no_records_no_calls(registry: SchemaRegistry) -> None:
    result = LLMExtractor(UNREACHABLE, registry, FixedExtractor()).extract([])
    assert result.candidates == [] and result.stats["llm_calls"] == 0


# ====================================================================== validation, no server


def test_batches_are_per_session_and_bounded() -> None:
    records = [record("a", f"a{i}", i, "user", "x" * 10) for i in range(5)]
    records.insert(2, record("b", "b1", 1, "user", "y"))
    batches = plan_batches(records, max_nodes=2, max_chars=10_000)
    assert [[r.node.id for r in b] for b in batches] == [["a0", "a1"], ["a2", "a3"], ["a4"], ["b1"]]
    big = [record("a", f"a{i}", i, "user", "z" * 1000) for i in range(4)]
    assert [len(b) for b in plan_batches(big, max_nodes=40, max_chars=2500)] == [2, 2]


GOOD = {
    "type": "preference",
    "text": "Alice prefers Python.",
    "node_ids": ["n1"],
    "subject": {"name": "Alice", "type": "person"},
    "relation": "prefers",
    "object": {"name": "Python", "type": "tool"},
    "slot": "language",
    "kind": None,
    "date": "2024-05-01",
    "confidence": 0.8,
    "importance": 0.6,
}


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"type": "gossip"}, "not a declared memory type"),
        ({"node_ids": []}, "must not be empty"),
        ({"node_ids": ["n9"]}, "not in this batch"),
        ({"node_ids": ["n1", "n3"]}, "one session"),
        ({"text": "   "}, "text"),
        ({"text": "x" * 501}, "text"),
        ({"confidence": 1.5}, "between 0 and 1"),
        ({"importance": -0.1}, "between 0 and 1"),
        ({"confidence": True}, "confidence"),
        ({"date": "2024-13-40"}, "date"),
        ({"date": "May 1st"}, "YYYY-MM-DD"),
        ({"kind": "party"}, "kind"),
        ({"object": None}, "needs a subject and an object"),
        ({"relation": None}, "an object needs a relation"),
        ({"relation": "Prefers Strongly"}, "identifier"),
        ({"subject": {"name": "Alice", "type": "alien"}}, "entity type"),
        ({"extra": 1}, "extra"),
    ],
)
def test_invalid_items_reject_the_whole_answer(
    registry: SchemaRegistry, change: dict[str, Any], why: str
) -> None:
    ctx = BatchContext.build(registry, conversation())
    good = dict(GOOD)
    assert len(parse_extraction(json.dumps({"memories": [good]}), ctx)) == 1
    bad = {**GOOD, **change}
    with pytest.raises(InvalidOutput, match=re.escape(why)):
        parse_extraction(json.dumps({"memories": [good, bad]}), ctx)


@pytest.mark.parametrize(
    "raw",
    [
        '{"memories": [{"type": "pref',
        "[]",
        "not json",
        '{"memories": {}}',
        '{"memories": [], "more": 1}',
    ],
)
def test_unparsable_answers_are_invalid(registry: SchemaRegistry, raw: str) -> None:
    ctx = BatchContext.build(registry, conversation())
    with pytest.raises(InvalidOutput):
        parse_extraction(raw, ctx)


def test_too_many_memories_is_invalid(registry: SchemaRegistry) -> None:
    ctx = BatchContext.build(registry, conversation(), max_items=2)
    with pytest.raises(InvalidOutput, match="more than 2"):
        parse_extraction(json.dumps({"memories": [GOOD] * 3}), ctx)


# ====================================================================== ReAct


@pytest.fixture
def kb(tmp_path: Path) -> KnowledgeBase:
    """A knowledge base that knows Alice prefers Python (entity, edge, memory)."""
    kb = KnowledgeBase(JsonlKnowledgeStore(tmp_path / "kb"), tmp_path / "kb")
    prov = Provenance(
        project_id="default",
        session_id="s0",
        node_ids=("old1",),
        commit=None,
        event_time=DAY - 86400,
        ingestion_time=DAY - 86400,
    )
    batch = kb.begin("t")
    mem = batch.new_memory(
        "Alice prefers Python for backend work.",
        type="preference",
        provenance=prov,
        source="distilled",
    )
    batch.put(Entity(id="person.alice", type="person", name="Alice", support=(mem.id,)))
    batch.put(
        Entity(id="tool.python", type="tool", name="Python", aliases=("py",), support=(mem.id,))
    )
    batch.put(
        Edge(
            id="e1",
            src="person.alice",
            dst="tool.python",
            relation="prefers",
            fact="Alice prefers Python",
            provenance=prov,
            event_time=DAY - 86400,
            ingestion_time=DAY - 86400,
            valid_from=DAY - 86400,
            support=(mem.id,),
        )
    )
    batch.commit()
    return kb


def relation_args(**change: Any) -> dict[str, Any]:
    args = {
        "type": "preference",
        "text": "Alice likes Python a lot.",
        "node_ids": ["n1"],
        "subject": {"name": "alice", "type": "person"},
        "relation": "prefers",
        "object": {"name": "PY", "type": "tool"},
        "slot": None,
        "kind": None,
        "date": None,
        "confidence": 0.9,
        "importance": 0.7,
    }
    args.update(change)
    return args


def test_known_facts_are_not_re_added(kb: KnowledgeBase, registry: SchemaRegistry) -> None:
    extractor = ReActExtractor(UNREACHABLE, registry, kb, FixedExtractor())
    loop: ReActLoop = extractor.new_loop(conversation()[:2])
    # The edge exists (names resolved through kb.lookup, aliases and case included).
    obs = loop.act("extract_relation", relation_args())
    assert obs.startswith("skipped") and "e1" in obs
    # The same statement as a stored memory, in other case and punctuation.
    obs = loop.act(
        "extract_memory",
        {
            "type": "preference",
            "text": "alice PREFERS python for backend work",
            "node_ids": ["n1"],
            "kind": None,
            "date": None,
            "confidence": 0.5,
            "importance": 0.5,
        },
    )
    assert obs.startswith("skipped")
    # An entity that exists.
    obs = loop.act(
        "extract_entity",
        {
            "type": "entity",
            "text": "Alice is a person.",
            "node_ids": ["n1"],
            "subject": {"name": "ALICE", "type": "person"},
            "confidence": 0.5,
            "importance": 0.5,
        },
    )
    assert obs.startswith("skipped")
    assert loop.accepted == [] and loop.stats["react_known_skipped"] == 3
    # Something new is accepted once; the same fact again in this loop is skipped.
    new = relation_args(
        text="Alice dislikes Go.", relation="dislikes", object={"name": "Go", "type": "tool"}
    )
    assert loop.act("extract_relation", new).startswith("accepted")
    assert loop.act("extract_relation", {**new, "text": "Alice really dislikes Go."}).startswith(
        "skipped"
    )
    assert loop.stats["react_accepted"] == 1 and loop.stats["react_known_skipped"] == 4
    [cand] = loop.accepted
    assert (cand.subject and cand.subject.name, cand.relation) == ("alice", "dislikes")
    assert cand.session_id == "s1" and cand.node_ids == ("n1",)


def test_read_tools_are_bounded_and_tolerant(kb: KnowledgeBase, registry: SchemaRegistry) -> None:
    extractor = ReActExtractor(
        UNREACHABLE, registry, kb, FixedExtractor(), max_observation_chars=300
    )
    loop = extractor.new_loop(conversation()[:2])
    alice = json.loads(loop.act("read", {"uri": "ogm://entity/Alice"}))
    assert alice["id"] == "person.alice"
    assert alice["relations"] == ["Alice --prefers--> Python: Alice prefers Python"]
    rels = json.loads(loop.act("get_relations", {"uri": "ogm://entity/tool.python"}))
    assert rels["entity"] == "tool.python" and len(rels["relations"]) == 1
    people = json.loads(loop.act("list", {"uri": "ogm://entities?type=person"}))
    assert people == {"total": 1, "entities": [{"id": "person.alice", "name": "Alice"}]}
    prefs = json.loads(loop.act("list", {"uri": "ogm://memories?type=preference"}))
    assert prefs["total"] == 1
    mem_id = prefs["memories"][0]["id"]
    assert json.loads(loop.act("read", {"uri": f"ogm://memory/{mem_id}"}))["enabled"] is True
    # Unknown things and malformed URIs are observations, not failures.
    assert "error" in json.loads(loop.act("read", {"uri": "ogm://entity/Bob"}))
    assert "error" in json.loads(loop.act("read", {"uri": "http://example.com"}))
    assert len(loop.act("read", {"uri": "ogm://entity/" + "x" * 5000})) <= 300 + 20
    assert "ogm://entity/person.alice" in loop.known_hint()
    # An unknown action or bad extract arguments are invalid output.
    with pytest.raises(InvalidOutput):
        loop.act("delete_everything", {})
    with pytest.raises(InvalidOutput):
        loop.act("extract_relation", relation_args(node_ids=["n3"]))  # another session's node
    with pytest.raises(InvalidOutput):
        loop.act("extract_memory", relation_args())  # relation fields on extract_memory
    with pytest.raises(InvalidOutput):
        loop.act("read", {"path": "ogm://entity/Alice"})


@pytest.mark.parametrize(
    "raw",
    [
        "nope",
        '{"thought": "t", "action": "dance", "args": {}}',
        '{"thought": "t", "action": "read"}',
        '{"action": "finish", ',
    ],
)
def test_invalid_steps(raw: str) -> None:
    with pytest.raises(InvalidOutput):
        _parse_step(raw)


@pytest.mark.timeout(300)
def test_react_loop_end_to_end(
    llama_server: str, kb: KnowledgeBase, registry: SchemaRegistry
) -> None:
    records = conversation()[:2]
    fallback = FixedExtractor()
    extractor = ReActExtractor(
        settings_for(llama_server), registry, kb, fallback, max_steps=5, max_history_steps=2
    )
    result = extractor.extract(records)
    stats = result.stats
    assert stats["react_batches"] == 1 and 1 <= stats["react_calls"] <= 5
    assert stats["react_errors"] == 0
    steps = [t for t in extractor.last_trace if "action" in t]
    assert len(steps) == stats["react_steps"] <= 5
    for step in steps:
        assert set(step) >= {"thought", "action", "args", "observation"}
    if stats["react_fallback_batches"]:
        assert stats["react_invalid"] + stats["react_empty"] == 1
        assert fallback.calls == [["n1", "n2"]]
        assert [c.text for c in result.candidates] == ["fallback fact"]
    else:
        assert fallback.calls == []
        assert len(result.candidates) == stats["react_accepted"]
        assert_valid(result.candidates, records, registry)
        # Nothing accepted repeats what the knowledge base knows.
        loop = extractor.new_loop(records)
        assert all(loop.known_reason(c) is None for c in result.candidates)


@pytest.mark.timeout(60)
def test_react_truncated_step_falls_back(
    llama_server: str, kb: KnowledgeBase, registry: SchemaRegistry
) -> None:
    fallback = FixedExtractor()
    extractor = ReActExtractor(
        settings_for(llama_server), registry, kb, fallback, max_step_tokens=3
    )
    result = extractor.extract(conversation()[:2])
    assert result.stats["react_calls"] == 1 and result.stats["react_invalid"] == 1
    assert result.stats["react_fallback_batches"] == 1
    assert [c.text for c in result.candidates] == ["fallback fact"]
    assert extractor.last_trace[-1] == {"batch": 0, "fallback": True}
    assert "cut off" in extractor.last_trace[0]["invalid"]


class DancingReAct(ReActExtractor):
    """Constrains the model to answer an action no tool implements."""

    def step_schema(self, ctx: BatchContext) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "thought": {"type": "string", "maxLength": 40},
                "action": {"const": "dance"},
                "args": {"type": "object", "properties": {}, "required": []},
            },
            "required": ["thought", "action", "args"],
        }


@pytest.mark.timeout(60)
def test_react_unknown_action_falls_back(
    llama_server: str, kb: KnowledgeBase, registry: SchemaRegistry
) -> None:
    fallback = FixedExtractor()
    extractor = DancingReAct(settings_for(llama_server), registry, kb, fallback)
    result = extractor.extract(conversation()[:2])
    assert result.stats["react_invalid"] == 1 and result.stats["react_fallback_batches"] == 1
    assert result.stats["react_accepted"] == 0
    assert "unknown action 'dance'" in extractor.last_trace[0]["invalid"]
    assert [c.text for c in result.candidates] == ["fallback fact"]


def test_react_unreachable_falls_back(kb: KnowledgeBase, registry: SchemaRegistry) -> None:
    fallback = FixedExtractor()
    extractor = ReActExtractor(UNREACHABLE, registry, kb, fallback)
    result = extractor.extract(conversation())
    assert result.stats["react_errors"] == 2 and result.stats["react_fallback_batches"] == 2
    assert len(result.candidates) == 2
    assert [t.get("fallback") for t in extractor.last_trace if "fallback" in t] == [True, True]
