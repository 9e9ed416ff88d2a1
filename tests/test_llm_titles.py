"""LLM session titles (seed 001 §3.3) against a real local model server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ogmemory import LLMSettings, Memory, Settings
from ogmemory.entity.titles import fallback_title

FIRST = "Please help me migrate the billing service from MySQL to PostgreSQL 16 next week"


def meta_of(mem: Memory, sid: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((Path(mem.get_session(sid).path) / "meta.json").read_text())
    return data


def turn(mem: Memory, sid: str, user: str, reply: str = "Sure, let's plan it.") -> None:
    mem.append_message(sid, {"role": "user", "content": user})
    mem.append_message(sid, {"role": "assistant", "content": reply})
    mem.commit_turn(sid)


@pytest.fixture
def llm_mem(tmp_path: Path, llama_server: str) -> Memory:
    llm = LLMSettings(base_url=llama_server, model="smollm2", timeout=60, max_retries=0)
    return Memory(settings=Settings(home=tmp_path, llm=llm))


@pytest.mark.timeout(120)
def test_llm_title_once_and_never_over_a_manual_one(llm_mem: Memory) -> None:
    mem = llm_mem
    turn(mem, "s1", FIRST)
    mem.wait_background(60)
    meta = meta_of(mem, "s1")
    title = mem.get_session("s1").title
    assert meta["_titled"] is True
    assert title == meta["title"]
    assert title.strip() and len(title) <= 80
    assert title != fallback_title(FIRST)  # the model's title replaced the first-line fallback
    assert meta["_titled_by"] == "smollm2"  # no model of its own: the configured one

    # A second turn does not title again: no background work starts, nothing changes.
    turn(mem, "s1", "Also move the reports database.")
    assert mem.sessions.background == []
    mem.wait_background(60)
    assert mem.get_session("s1").title == title

    # A manual rename after the LLM title stays.
    mem.rename_session("s1", "Billing migration (mine)")
    turn(mem, "s1", "One more thing.")
    mem.wait_background(60)
    assert mem.get_session("s1").title == "Billing migration (mine)"

    # A manual rename before the first turn ends is never overwritten by the LLM.
    mem.append_message("s2", {"role": "user", "content": "Write a haiku about autumn leaves"})
    mem.rename_session("s2", "Chosen early")
    mem.append_message("s2", {"role": "assistant", "content": "Red leaves drift and fall."})
    mem.commit_turn("s2")
    mem.wait_background(60)
    assert mem.get_session("s2").title == "Chosen early"
    assert not meta_of(mem, "s2").get("_titled")
    mem.close()


@pytest.mark.timeout(120)
def test_llm_title_asks_the_sessions_own_model_first(llm_mem: Memory) -> None:
    mem = llm_mem
    mem.create_session("s9", model="smollm2-of-the-session")  # llama.cpp serves it under any name
    turn(mem, "s9", FIRST)
    mem.wait_background(60)
    meta = meta_of(mem, "s9")
    assert meta["_titled"] is True and meta["_titled_by"] == "smollm2-of-the-session"
    assert mem.get_session("s9").title != fallback_title(FIRST)
    mem.close()
