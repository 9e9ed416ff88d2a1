"""Distillation through the facade with the LLM and ReAct extractors against a real local
model server: whatever the model answers, memory stays consistent and fallbacks are counted."""

from __future__ import annotations

from pathlib import Path

import pytest

from ogmemory import LLMSettings, Memory, Settings


@pytest.mark.parametrize("extractor", ["llm", "react"])
@pytest.mark.timeout(300)
def test_sleep_with_a_real_model_keeps_memory_consistent(
    tmp_path: Path, llama_server: str, extractor: str
) -> None:
    mem = Memory(
        settings=Settings(
            home=tmp_path / "h",
            distill_on_turn=False,
            embedder="none",
            extractor=extractor,
            llm=LLMSettings(base_url=llama_server, model="smollm2", timeout=60, max_retries=0),
        )
    )
    for sid, text in (
        ("s1", "I prefer green tea over coffee."),
        ("s2", "We switched from JavaScript to TypeScript last week."),
    ):
        mem.append_message(sid, {"role": "user", "content": text, "name": "Ana"})
        mem.append_message(sid, {"role": "assistant", "content": "Noted."})
        mem.commit_turn(sid)
    report = mem.sleep("deep")
    assert report.nodes == 4 and mem.pending_nodes() == 0
    (batch,) = [b for b in mem.batches() if b.meta.get("extractor")]
    stats = batch.meta["stats"]
    calls = stats.get(f"{extractor}_calls", 0) + stats.get(f"{extractor}_errors", 0)
    assert calls >= 1  # the model was really asked
    # every memory stands on evidence from these sessions, whatever the model produced
    nodes = {n.id for sid in ("s1", "s2") for n in mem.get_nodes(sid)}
    for memory in mem.memories():
        evidence = mem.evidence(memory.id)
        assert evidence and all(
            set(e.provenance.node_ids) <= nodes for e in evidence if e.provenance
        )
    for edge in mem.facts(include_history=True):
        assert set(edge.provenance.node_ids) <= nodes
    assert len(mem.core().encode()) <= 2048
    again = mem.sleep("light")
    assert again.batches == []  # nothing distilled twice
