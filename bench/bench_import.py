"""Agent-history import benchmark: messages/s, incremental re-sync cost, time to first recall.

One synthetic Claude Code session of a coding agent at work (prompts, answers, tool calls with
outputs, hook progress lines, thinking), written in Claude Code's own line format, is imported
three ways in the same process, on the same messages:

  * ``import claude-code``     - the incremental importer (parse, DAG, turns, sync state);
  * baseline: OpenAI JSONL     - the same messages as an OpenAI-format file, through the
                                 existing whole-file importer (``import_conversations``);
  * baseline: raw facade       - ``append_message``/``commit_turn`` with the same turns, no
                                 parsing at all (the floor the importers build on).

Then: re-importing the unchanged file, and after 10 appended lines (the ``--watch`` case), and
the time from the end of the import to the first recall that finds an imported turn (the index
catches up on the first recall), before and after distillation.

    python bench/bench_import.py [--exchanges 300] [--embedder none|e5]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from ogmemory import Memory, Settings
from ogmemory.importers import Conversation, read_openai_jsonl

SESSION = "5f0c1d2e-0000-4000-8000-00000000beef"


def _uid(n: int) -> str:
    return f"00000000-0000-4000-8000-{n:012d}"


def claude_lines(exchanges: int, first: int = 1, parent: str | None = None) -> list[str]:
    """``exchanges`` agent exchanges: prompt, thinking, answer + tool call, hook progress, tool
    result, final answer (5 messages and 2 left-out lines each)."""
    out: list[dict[str, Any]] = []
    n = first
    base = {
        "isSidechain": False,
        "userType": "external",
        "cwd": "/home/dev/bench",
        "sessionId": SESSION,
        "version": "2.1.39",
        "gitBranch": "main",
    }

    def add(kind: str, **kw: Any) -> None:
        nonlocal n, parent
        uid = _uid(n)
        stamp = (
            f"2026-02-{1 + n // 80000:02d}T{(n // 3600) % 24:02d}:{(n // 60) % 60:02d}:"
            f"{n % 60:02d}.000Z"
        )
        out.append(
            {**base, "parentUuid": parent, "type": kind, "uuid": uid, "timestamp": stamp, **kw}
        )
        parent = uid
        n += 1

    for i in range(exchanges):
        command = {"command": f"pytest -q tests/test_w{i}.py"}
        add(
            "user",
            message={
                "role": "user",
                "content": f"Task {i}: make worker {i} retry on timeout {i % 7} times.",
            },
        )
        add(
            "assistant",
            message={
                "role": "assistant",
                "model": "claude-opus-4-6",
                "id": f"msg_{i}a",
                "content": [{"type": "thinking", "thinking": "plan"}],
            },
        )
        add(
            "assistant",
            message={
                "role": "assistant",
                "model": "claude-opus-4-6",
                "id": f"msg_{i}a",
                "content": [{"type": "text", "text": f"Editing worker {i}."}],
            },
        )
        add(
            "assistant",
            message={
                "role": "assistant",
                "model": "claude-opus-4-6",
                "id": f"msg_{i}a",
                "content": [
                    {"type": "tool_use", "id": f"toolu_{i}", "name": "Bash", "input": command}
                ],
            },
        )
        add("progress", data={"type": "hook_progress", "hookEvent": "PreToolUse"})
        add(
            "user",
            message={
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": f"toolu_{i}",
                        "content": f"{i % 5 + 1} passed in 0.{i % 9}s\n" + "log line\n" * 20,
                    }
                ],
            },
        )
        add(
            "assistant",
            message={
                "role": "assistant",
                "model": "claude-opus-4-6",
                "id": f"msg_{i}b",
                "content": [
                    {"type": "text", "text": f"Worker {i} now retries {i % 7} times; tests pass."}
                ],
            },
        )
    return [json.dumps(o) + "\n" for o in out]


def openai_messages(exchanges: int) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = []
    for i in range(exchanges):
        command = json.dumps({"command": f"pytest -q tests/test_w{i}.py"})
        msgs += [
            {
                "role": "user",
                "content": f"Task {i}: make worker {i} retry on timeout {i % 7} times.",
            },
            {"role": "assistant", "content": f"Editing worker {i}."},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"toolu_{i}",
                        "type": "function",
                        "function": {"name": "Bash", "arguments": command},
                    }
                ],
            },
            {
                "role": "tool",
                "tool_call_id": f"toolu_{i}",
                "content": f"{i % 5 + 1} passed in 0.{i % 9}s\n" + "log line\n" * 20,
            },
            {"role": "assistant", "content": f"Worker {i} now retries {i % 7} times; tests pass."},
        ]
    return msgs


def _mem(home: Path, embedder: str) -> Memory:
    return Memory(settings=Settings(home=home, distill_on_turn=False, embedder=embedder))


def timed(fn: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def run(tmp: Path, exchanges: int, embedder: str) -> dict[str, Any]:
    src = tmp / "claude" / "-home-dev-bench"
    src.mkdir(parents=True)
    path = src / f"{SESSION}.jsonl"
    path.write_text("".join(claude_lines(exchanges)))
    messages = openai_messages(exchanges)
    jsonl = tmp / "chat.jsonl"
    jsonl.write_text("".join(json.dumps(m) + "\n" for m in messages))
    res: dict[str, Any] = {"messages": len(messages), "bytes": path.stat().st_size}

    mem = _mem(tmp / "h-claude", embedder)
    res["claude"], report = timed(lambda: mem.import_claude_code([path]))
    assert report.messages == len(messages), report.to_dict()
    res["turns"] = report.turns
    res["again"], again = timed(lambda: mem.import_claude_code([path]))
    assert again.messages == 0
    with open(path, "a") as fh:
        fh.write("".join(claude_lines(2, first=10_000_000, parent=_uid(7 * exchanges))[:10]))
    res["grow"], grown = timed(lambda: mem.import_claude_code([path]))
    res["grow_messages"] = grown.messages
    query = f"How many times does worker {exchanges // 2} retry on timeout?"
    sid = f"claude-{SESSION}"
    res["recall"], hit = timed(lambda: mem.recall(query))
    res["recall_hit"] = any(i.session_id == sid for i in hit.items)
    res["recall_warm"], _ = timed(lambda: mem.recall(query))
    res["distill"], _ = timed(lambda: mem.sleep("light"))
    res["recall_after_distill"], hit = timed(lambda: mem.recall(query))
    res["recall_after_distill_hit"] = any(i.session_id == sid for i in hit.items)
    mem.close()

    mem = _mem(tmp / "h-openai", embedder)
    res["openai"], _ = timed(lambda: mem.import_conversations(read_openai_jsonl(jsonl)))
    mem.close()

    mem = _mem(tmp / "h-raw", embedder)
    conv = Conversation("raw", messages)

    def raw() -> None:
        for turn in conv.turns:
            for msg in turn:
                mem.append_message("raw", msg)
            mem.commit_turn("raw")

    res["raw"], _ = timed(raw)
    mem.close()
    return res


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--exchanges",
        type=int,
        default=300,
        help="agent exchanges (5 messages and 2 left-out lines each)",
    )
    parser.add_argument("--embedder", default="none", choices=("none", "e5", "use"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        r = run(Path(tmp), args.exchanges, args.embedder)
    n = r["messages"]
    console = Console()
    table = Table(
        title=f"import throughput: {n:,} messages, {r['turns']:,} turns, "
        f"{r['bytes'] / 1e6:.1f} MB of Claude Code JSONL ({os.cpu_count()} cores)"
    )
    for col in ("implementation", "seconds", "messages/s", "note"):
        table.add_column(col, justify="left" if col in ("implementation", "note") else "right")
    table.add_row(
        "ogmemory import claude-code",
        f"{r['claude']:.2f}",
        f"{n / r['claude']:,.0f}",
        "parse, DAG, turns as the agent saw them, sync state",
    )
    table.add_row(
        "baseline: OpenAI JSONL importer",
        f"{r['openai']:.2f}",
        f"{n / r['openai']:,.0f}",
        "same messages, whole-file import_conversations",
    )
    table.add_row(
        "baseline: raw append/commit",
        f"{r['raw']:.2f}",
        f"{n / r['raw']:,.0f}",
        "same turns, no parsing",
    )
    console.print(table)
    table = Table(title="incremental sync and recall after import")
    table.add_column("step")
    table.add_column("ms", justify="right")
    table.add_column("note")
    table.add_row("re-import, file unchanged", f"{r['again'] * 1000:.1f}", "stat only")
    table.add_row(
        "re-import after 10 appended lines",
        f"{r['grow'] * 1000:.1f}",
        f"{r['grow_messages']} new messages, new bytes parsed only",
    )
    table.add_row(
        "first recall after import",
        f"{r['recall'] * 1000:.0f}",
        f"index catches up; finds an imported turn: {r['recall_hit']}",
    )
    table.add_row("second recall", f"{r['recall_warm'] * 1000:.0f}", "")
    table.add_row("sleep light (distill everything)", f"{r['distill'] * 1000:.0f}", "rules")
    table.add_row(
        "recall after distillation",
        f"{r['recall_after_distill'] * 1000:.0f}",
        f"finds an imported turn: {r['recall_after_distill_hit']}",
    )
    console.print(table)


if __name__ == "__main__":
    main()
