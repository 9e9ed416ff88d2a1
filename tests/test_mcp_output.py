"""What the MCP tools answer is sized for a model: on a realistic memory (the first LoCoMo
development conversation, the demo's data, 19 sessions; a generated conversation of the same
shape where the data set is not around) every tool called with its default arguments stays under
its bound, recall within its budget plus a fixed envelope; lists page with ``limit`` and a cursor;
the tool definitions stay under 2,500 tokens. Real MCP client sessions over in-memory streams."""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client import Client
from mcp.types import CallToolResult

from ogmemory import Memory, Settings
from ogmemory.evaluation.data import find_locomo
from ogmemory.importers import parse_locomo, read_locomo
from ogmemory.interfaces.mcp import TOOL_NAMES, build_server
from ogmemory.interfaces.mcp.format import RECALL_ENVELOPE
from ogmemory.recall.config import BUDGET_DEFAULT
from ogmemory.recall.tokens import count_tokens

#: The most tokens each tool may answer with, called with its default arguments.
BOUNDS = {
    "memory_search": 2_000,  # 10 hits, one line each plus next:
    "memory_timeline": 2_500,  # 20 events
    "memory_graph_neighbors": 3_000,  # 20 relations, the neighbours on one line
    "memory_open_session": 4_000,  # 20 messages, each clipped at 1,500 characters
    "memory_git_log": 2_000,  # 20 commits
    "memory_recall": BUDGET_DEFAULT + RECALL_ENVELOPE,
    "memory_core": 1_000,  # core.md is at most 2 KB
    "memory_remember": 300,
    "memory_forget": 300,
    "memory_read": 2_500,  # level 1: abstract, overview, 20 links
}
DEFINITIONS_MAX = 2_500
LONG_SESSION = 250  # messages in the long session


def _generated_sample() -> dict[str, Any]:
    """A LoCoMo-shaped conversation: 12 dated sessions of 24 varied turns."""
    topics = [
        "pottery class",
        "PostgreSQL migration",
        "trip to Lisbon",
        "adoption agency",
        "guitar lessons",
        "marathon training",
        "book club",
        "new job at Acme",
    ]
    conv: dict[str, Any] = {"speaker_a": "Caroline", "speaker_b": "Melanie"}
    for s in range(1, 13):
        conv[f"session_{s}_date_time"] = f"1:56 pm on {s + 2} May, 2023"
        turns = []
        for t in range(24):
            topic = topics[(s + t) % len(topics)]
            speaker = ("Caroline", "Melanie")[t % 2]
            turns.append(
                {
                    "speaker": speaker,
                    "dia_id": f"D{s}:{t + 1}",
                    "text": f"I went to the {topic} yesterday; it was great and I decided "
                    f"to keep going every week with {('Alex', 'Sam')[t % 2]}.",
                }
            )
        conv[f"session_{s}"] = turns
    return {"sample_id": "gen-1", "conversation": conv, "qa": []}


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    found = find_locomo(Path(__file__).resolve().parent, os.environ)
    samples = read_locomo(found)[:1] if found else [_generated_sample()]
    path = tmp_path_factory.mktemp("mcpout") / "home"
    with Memory(settings=_settings(path)) as mem:
        mem.import_conversations(list(parse_locomo(samples)))
        for i in range(LONG_SESSION // 2):
            mem.append_message("long", {"role": "user", "content": f"Step {i}: run the tests."})
            mem.append_message(
                "long", {"role": "assistant", "content": "x" * 4000 if i == 3 else f"Done {i}."}
            )
            mem.commit_turn("long")
        mem.sleep("deep")
    return path


def _settings(home: Path) -> Settings:
    return Settings(home=home, distill_on_turn=False, embedder="none")


@pytest.fixture()
def mem(home: Path) -> Iterator[Memory]:
    with Memory(settings=_settings(home)) as memory:
        yield memory


def _run(mem: Memory, calls: list[tuple[str, dict[str, Any]]]) -> list[CallToolResult]:
    async def main() -> list[CallToolResult]:
        async with Client(build_server(mem)) as client:
            return [await client.call_tool(name, args) for name, args in calls]

    return anyio.run(main)


def _text(result: CallToolResult) -> str:
    assert len(result.content) == 1 and result.structured_content is None
    return result.content[0].text  # type: ignore[union-attr]


def _cursor(text: str) -> str | None:
    last = text.splitlines()[-1]
    return last.split('cursor="', 1)[1].split('"', 1)[0] if 'cursor="' in last else None


def _default_calls(mem: Memory) -> list[tuple[str, dict[str, Any]]]:
    """Every tool with only its required arguments, on real records of the memory."""
    biggest = max((s for s in mem.list_sessions() if s.session_id != "long"), key=lambda s: s.turns)
    entity = max(mem.entities(), key=lambda e: len(mem.facts(entity=e.id))).id
    return [
        ("memory_search", {"query": "what happened at the support group"}),
        ("memory_timeline", {}),
        ("memory_graph_neighbors", {"entity": entity}),
        ("memory_open_session", {"session_id": biggest.session_id}),
        ("memory_open_session", {"session_id": "long"}),
        ("memory_git_log", {"session_id": biggest.session_id}),
        ("memory_recall", {"query": "What did Caroline do recently, and how did it go?"}),
        ("memory_core", {}),
        ("memory_remember", {"text": "The user prefers tabs over spaces."}),
        ("memory_read", {"uri": f"ogm://session/{biggest.session_id}"}),
    ]


def test_every_tool_with_default_arguments_stays_within_its_bound(mem: Memory) -> None:
    calls = _default_calls(mem)
    results = _run(mem, calls)
    saved = _text(results[8]).split(" ")[1]
    results += _run(mem, [("memory_forget", {"memory_id": saved})])
    calls.append(("memory_forget", {"memory_id": saved}))
    assert {name for name, _ in calls} == set(TOOL_NAMES)
    over = []
    for (name, args), result in zip(calls, results, strict=True):
        assert not result.is_error, (name, args, result.content)
        tokens = count_tokens(_text(result))
        if tokens > BOUNDS[name]:
            over.append(f"{name}({args}): {tokens} tokens > {BOUNDS[name]}")
    assert not over, over
    timeline, recall = _text(results[1]), _text(results[6])
    assert len([line for line in timeline.splitlines() if line.startswith("- ")]) == 20
    assert recall.startswith("recall: ") and "↪ session:" in recall
    assert "{" not in recall.splitlines()[0]  # text, not JSON


def test_recall_is_its_context_plus_a_fixed_envelope(mem: Memory) -> None:
    query = "What did Caroline do recently, and how did it go?"
    for budget in (300, 800, 2000):
        result = mem.recall(query, budget=budget)
        (answer,) = _run(mem, [("memory_recall", {"query": query, "budget": budget})])
        text = _text(answer)
        assert result.as_context() in text  # the context, once
        assert text.count(result.items[0].text) == 1
        assert count_tokens(text) - count_tokens(result.as_context()) <= RECALL_ENVELOPE
        assert count_tokens(text) <= budget + RECALL_ENVELOPE


def test_search_answers_one_hit_per_record(mem: Memory) -> None:
    (answer,) = _run(mem, [("memory_search", {"query": "support group adoption", "limit": 50})])
    ids = [line[2:].split(" · ")[0] for line in _text(answer).splitlines() if line.startswith("- ")]
    assert ids and len(ids) == len(set(ids))
    texts = [line.split(": ", 1)[1] for line in _text(answer).splitlines() if line.startswith("- ")]
    assert len(texts) == len(set(texts)), "the same text twice"


def test_a_long_session_comes_in_pages_that_cover_it_once(mem: Memory) -> None:
    nodes = mem.get_nodes("long")
    assert len(nodes) == LONG_SESSION
    seen: list[str] = []
    cursor: str | None = None
    pages = 0
    while True:
        args: dict[str, Any] = {"session_id": "long", "limit": 40}
        if cursor:
            args["cursor"] = cursor
        (answer,) = _run(mem, [("memory_open_session", args)])
        text = _text(answer)
        assert count_tokens(text) <= 40 * 450
        seen += [line.split(" ")[1] for line in text.splitlines() if line.startswith("#")]
        pages += 1
        cursor = _cursor(text.rsplit("\n", 1)[0])
        if cursor is None:
            break
    assert seen == [n.id for n in nodes] and pages == 7
    # the long message is clipped, and the clip names the call that reads it whole
    assert f'memory_read(uri="ogm://node/long/{nodes[7].id}")' in _text(
        _run(mem, [("memory_open_session", {"session_id": "long"})])[0]
    )
    # around= gives a window; its cursor continues after the window
    (answer,) = _run(
        mem, [("memory_open_session", {"session_id": "long", "around": nodes[100].id, "radius": 2})]
    )
    text = _text(answer)
    window = [line.split(" ")[1] for line in text.splitlines() if line.startswith("#")]
    assert window == [n.id for n in nodes[98:103]]
    assert f"{nodes[100].id} user (cited)" in text
    (after,) = _run(
        mem,
        [
            (
                "memory_open_session",
                {"session_id": "long", "limit": 3, "cursor": _cursor(text.rsplit("\n", 1)[0])},
            )
        ],
    )
    assert [line.split(" ")[1] for line in _text(after).splitlines() if line.startswith("#")] == [
        n.id for n in nodes[103:106]
    ]


def test_lists_page_with_a_cursor_and_refuse_a_bad_one(mem: Memory) -> None:
    events = mem.timeline()
    assert len(events) > 25
    page = ("memory_timeline", {"limit": 10})
    first, second = (_text(r) for r in _run(mem, [page, page]))
    assert first == second  # stable pages
    cursor = _cursor(first)
    assert cursor is not None
    (nxt,) = _run(mem, [("memory_timeline", {"limit": 10, "cursor": cursor})])
    ids = [
        line[2:].split(" · ")[0]
        for line in (first + "\n" + _text(nxt)).splitlines()
        if line.startswith("- ")
    ]
    assert ids == [e.id for e in events[:20]]
    bad = _run(
        mem,
        [
            ("memory_timeline", {"cursor": "not-a-cursor"}),
            ("memory_timeline", {"kind": "event", "cursor": cursor}),  # other list
            ("memory_search", {"query": "x", "cursor": cursor}),
            ("memory_timeline", {"limit": 101}),
        ],
    )
    for result in bad[:3]:
        assert result.is_error and "invalid cursor" in _text(result), _text(result)
    assert bad[3].is_error and "limit" in _text(bad[3])
    # search and git log page too
    session = next(
        s.session_id for s in mem.list_sessions() if s.turns > 6 and s.session_id != "long"
    )
    # the session's most frequent long word: it has hits whether the data is LoCoMo's or the
    # generated stand-in
    words = Counter(
        w.lower() for n in mem.get_nodes(session) for w in re.findall(r"[A-Za-z]{6,}", n.text or "")
    )
    query = words.most_common(1)[0][0]
    (s1, g1) = _run(
        mem,
        [
            ("memory_search", {"query": query, "limit": 3}),
            ("memory_git_log", {"session_id": session, "limit": 3}),
        ],
    )
    (s2, g2) = _run(
        mem,
        [
            ("memory_search", {"query": query, "limit": 3, "cursor": _cursor(_text(s1))}),
            ("memory_git_log", {"session_id": session, "limit": 3, "cursor": _cursor(_text(g1))}),
        ],
    )
    for a, b in ((s1, s2), (g1, g2)):
        heads_a = [line for line in _text(a).splitlines() if line.startswith("- ")]
        heads_b = [line for line in _text(b).splitlines() if line.startswith("- ")]
        assert len(heads_a) == 3 and heads_b and not set(heads_a) & set(heads_b)


def test_tool_definitions_stay_under_their_budget(mem: Memory) -> None:
    async def main() -> list[dict[str, Any]]:
        async with Client(build_server(mem)) as client:
            tools = (await client.list_tools()).tools
        return [
            {"name": t.name, "description": t.description, "inputSchema": t.input_schema}
            for t in tools
        ]

    definitions = anyio.run(main)
    assert len(definitions) == len(TOOL_NAMES)
    tokens = count_tokens(json.dumps(definitions, ensure_ascii=False))
    assert tokens < DEFINITIONS_MAX, tokens
    for tool in definitions:
        props = tool["inputSchema"].get("properties", {})
        if tool["name"] in (
            "memory_search",
            "memory_timeline",
            "memory_graph_neighbors",
            "memory_open_session",
            "memory_git_log",
            "memory_read",
        ):
            assert {"limit", "cursor"} <= set(props), tool["name"]
            assert props["limit"]["maximum"] == 100
