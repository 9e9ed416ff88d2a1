"""Codex CLI rollouts (both formats) and aider chat logs, imported for real.

Fixtures under ``fixtures/agent_history/{codex,aider}`` reproduce each format's structure (see
the README there): the Codex envelope with session_meta, turn_context, response items, display
events, preambles, shell and apply_patch calls, a compaction, a broken and a truncated line, the
pre-envelope format, an empty rollout; aider sessions with prompts over several lines, edits,
commits, ``/run`` output, status lines, a code block holding ``>`` lines, non-ASCII, a session
with no prompt, and the prompt history that dates the prompts.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest
from conftest import fsck

from ogmemory import Memory
from ogmemory.config import Settings

FIXTURES = Path(__file__).parent / "fixtures" / "agent_history"
NEW = "codex-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
OLD = "codex-6f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0"


@pytest.fixture
def xmem(tmp_path: Path) -> Iterator[Memory]:
    m = Memory(settings=Settings(home=tmp_path / "home", distill_on_turn=False, embedder="none"))
    yield m
    m.close()


@pytest.fixture
def codex_dir(tmp_path: Path) -> Path:
    dest = tmp_path / "codex" / "sessions"
    shutil.copytree(FIXTURES / "codex" / "sessions", dest)
    return dest


@pytest.fixture
def aider_repo(tmp_path: Path) -> Path:
    dest = tmp_path / "webshop"
    shutil.copytree(FIXTURES / "aider" / "webshop", dest)
    return dest


# ---------------------------------------------------------------------------- Codex


def test_codex_rollout_becomes_turns_with_tools_and_preambles(
    xmem: Memory, codex_dir: Path
) -> None:
    report = xmem.import_codex([codex_dir])
    assert {s.session_id for s in xmem.list_sessions()} == {NEW, OLD}
    assert report.left_out == {
        "display event": 4,
        "preamble": 4,
        "state marker": 3,
        "reasoning": 2,
        "session header": 2,
        "turn context": 2,
    }
    reasons = sorted((i.line, i.reason) for i in report.issues if i.line)
    assert reasons == [(19, "invalid JSON"), (26, "truncated last line")]
    assert any(i.reason == "empty file" for i in report.issues)
    nodes = xmem.get_nodes(NEW)
    first = nodes[0]
    # developer/system preambles and the CLI's scaffolding are metadata, not user turns
    assert first.role == "user" and first.content.startswith("Fix the failing test")
    assert "«café» or 東京" in first.content
    assert [p["kind"] for p in first.metadata["preamble"]] == [
        "developer",
        "AGENTS.md",
        "environment_context",
    ]
    assert "Run `pytest -q` before every commit." in first.metadata["preamble"][1]["text"]
    assert not any("<environment_context>" in (n.text or "") for n in nodes)
    by_id = {n.id: n for n in nodes}
    call, out = by_id["L9"], by_id["L11"]
    assert call.tool_calls[0]["function"]["name"] == "shell"  # type: ignore[index]
    args = json.loads(call.tool_calls[0]["function"]["arguments"])  # type: ignore[index]
    assert args["command"][-1] == "pytest -q"
    assert (out.role, out.called_by, out.tool_call_id, out.metadata["exit_code"]) == (
        "tool",
        "L9",
        "call_A1",
        1,
    )
    assert "UnicodeEncodeError" in out.content and not out.content.startswith("{")
    patch = json.loads(by_id["L12"].tool_calls[0]["function"]["arguments"])  # type: ignore[index]
    assert "*** Update File: parser.py" in patch["input"]
    assert by_id["L20"].metadata == {"kind": "compaction_summary"}
    assert call.metadata["model"] == "gpt-5-codex"
    # turns as the agent saw them: each call to the model after tool output starts one
    messages = [c.message for c in reversed(xmem.session_commits(NEW))]
    assert len(messages) == 7 and messages[5].startswith("turn 6: Thanks. Commit it")
    assert xmem.session_commits(NEW)[-1].node_ids == ("L6", "L9", "L11")
    meta = xmem.get_session(NEW).meta["import"]
    assert (meta["cwd"], meta["git_branch"], meta["cli_version"], meta["codex_source"]) == (
        "/home/dev/parser",
        "fix/unicode",
        "0.50.0",
        "cli",
    )
    assert first.event_time == datetime.fromisoformat("2025-10-29T09:15:10.501Z").timestamp()
    fsck(Path(xmem.get_session(NEW).path))


def test_codex_pre_envelope_rollout(xmem: Memory, codex_dir: Path) -> None:
    xmem.import_codex([codex_dir / "2025" / "05" / "12"])
    nodes = xmem.get_nodes(OLD)
    assert [(n.role, n.text[:20]) for n in nodes] == [
        ("user", "How many markdown fi"),
        ("assistant", '[call shell({"comman'),
        ("tool", "42\n"),
        ("assistant", "There are 42 markdow"),
    ]
    assert nodes[2].metadata == {"exit_code": 0}
    assert [p["kind"] for p in nodes[0].metadata["preamble"]] == [
        "instructions",
        "environment_context",
    ]
    # no time of their own: the session's start, never the import's
    start = datetime.fromisoformat("2025-05-12T14:02:11.512Z").timestamp()
    assert all(n.event_time == start for n in nodes)
    meta = xmem.get_session(OLD).meta["import"]
    assert (meta["cwd"], meta["git_branch"]) == ("/home/dev/notes", "main")


# ---------------------------------------------------------------------------- aider


def test_aider_sessions_prompts_and_work(xmem: Memory, aider_repo: Path) -> None:
    report = xmem.import_aider([aider_repo])
    sessions = sorted(s.session_id for s in xmem.list_sessions())
    assert len(sessions) == 2  # the third header has no prompt: no conversation
    assert all(s.startswith("aider-webshop-") for s in sessions)
    assert sessions[0].endswith("20250314-100211") and sessions[1].endswith("20250315-093000")
    assert report.left_out == {"session header": 12, "status line": 7}
    nodes = xmem.get_nodes(sessions[0])
    prompt = nodes[1]
    assert prompt.content == (
        "The cart total ignores discounts. Fix it, and keep prices in cents —\nnever floats."
    )
    # the prompt history dates each prompt; the rest of the exchange follows it
    assert prompt.event_time == datetime(2025, 3, 14, 10, 3, 5, 402117).timestamp()
    answer = nodes[2]
    assert answer.role == "assistant" and "<<<<<<< SEARCH" in answer.content
    assert answer.metadata["model"] == "anthropic/claude-3-7-sonnet-20250219"
    work = nodes[3]
    assert work.metadata == {"synthetic": True, "by": "aider"}
    calls = [
        (c["function"]["name"], json.loads(c["function"]["arguments"]))
        for c in work.tool_calls or []
    ]
    assert calls == [
        ("edit_file", {"path": "shop/cart.py"}),
        (
            "git_commit",
            {"sha": "4e1f2a9", "message": "fix: Apply discounts to the cart total in cents"},
        ),
    ]
    assert [(n.role, n.called_by, n.content) for n in nodes[4:6]] == [
        ("tool", work.id, "Applied edit to shop/cart.py"),
        ("tool", work.id, "Commit 4e1f2a9 fix: Apply discounts to the cart total in cents"),
    ]
    run = nodes[7]
    assert run.tool_calls[0]["function"]["name"] == "run"  # type: ignore[index]
    assert "1 failed, 2 passed" in nodes[8].content and "(Y)es" not in nodes[8].content
    # a "> " line inside the model's code block is its text, not aider's output
    assert "> round(9.995, 2) gives 9.99" in nodes[-1].content
    assert xmem.get_session(sessions[0]).title == (
        "The cart total ignores discounts. Fix it, and keep…"
    )
    later = xmem.get_nodes(sessions[1])
    assert later[0].content == "把货币格式改成欧元，例如 “12,50 €”。"
    assert later[-1].name == "aider" and "F401" in later[-1].content
    meta = xmem.get_session(sessions[1]).meta["import"]
    assert (meta["aider_version"], meta["cwd"]) == ("0.75.2", str(aider_repo))
    for sid in sessions:
        fsck(Path(xmem.get_session(sid).path))


def test_aider_without_input_history_uses_the_session_start(xmem: Memory, aider_repo: Path) -> None:
    (aider_repo / ".aider.input.history").unlink()
    xmem.import_aider([aider_repo / ".aider.chat.history.md"])
    sid = next(s.session_id for s in xmem.list_sessions() if s.session_id.endswith("100211"))
    start = datetime(2025, 3, 14, 10, 2, 11).timestamp()
    assert {n.event_time for n in xmem.get_nodes(sid)} == {start}
