"""``ogmem mcp`` end to end: a real server subprocess, the SDK's own client, over stdio and over
streamable HTTP on loopback; the memory home is prepared beforehand with the facade."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args

import anyio
import pytest
from mcp.client import Client, ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, TextResourceContents
from typer.testing import CliRunner

from ogmemory import Memory, Settings
from ogmemory.interfaces.cli import app
from ogmemory.interfaces.mcp import CORE_URI, TOOL_NAMES, TimelineKind, build_server
from ogmemory.knowledge.models import TIMELINE_KINDS

CLI = [sys.executable, "-m", "ogmemory.interfaces.cli"]
#: Full text only and no background worker: the server starts and answers fast.
SERVER_ENV = {"OGMEM_EMBEDDER": "none", "OGMEM_INDEX_WORKER": "0", "OGMEM_DISTILL_ON_TURN": "0"}


@dataclass(frozen=True)
class Prepared:
    home: Path
    cited_node: str  # the user node "I prefer Python over Java."


def _settings(home: Path) -> Settings:
    return Settings(home=home, distill_on_turn=False, embedder="none")


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> Prepared:
    """Two recorded sessions with clear statements, distilled by a deep sleep."""
    home = tmp_path_factory.mktemp("mcp") / "home"
    sessions = {
        "s-lang": [
            ("I prefer Python over Java.", "Noted."),
            ("We decided to use PostgreSQL for the backend.", "OK."),
        ],
        "s-team": [("Alice works at Acme.", "Got it."), ("I live in Berlin.", "Nice.")],
    }
    with Memory(settings=_settings(home)) as mem:
        for sid, turns in sessions.items():
            for user, reply in turns:
                mem.append_message(sid, {"role": "user", "content": user})
                mem.append_message(sid, {"role": "assistant", "content": reply})
                mem.commit_turn(sid)
        mem.sleep("deep")
        cited = next(n.id for n in mem.get_nodes("s-lang") if "Python" in n.text)
    return Prepared(home, cited)


def _server_params(home: Path) -> StdioServerParameters:
    env = {**SERVER_ENV}
    for name in ("PYTHONPATH", "TMPDIR"):
        if name in os.environ:
            env[name] = os.environ[name]
    return StdioServerParameters(
        command=CLI[0], args=[*CLI[1:], "mcp", "--home", str(home)], env=env
    )


@asynccontextmanager
async def stdio_session(home: Path) -> AsyncIterator[ClientSession]:
    """``ogmem mcp`` as a subprocess, initialised, over stdio."""
    # The server's notices and logs (its stderr) are dropped; opening /dev/null never blocks.
    with open(os.devnull, "w") as errlog:
        async with (
            stdio_client(_server_params(home), errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


async def call(session: ClientSession, tool: str, **args: Any) -> str:
    """Call a tool that must succeed; its text answer (one block, no structured copy)."""
    result = await session.call_tool(tool, args)
    assert isinstance(result, CallToolResult)
    assert not result.is_error, (tool, args, result.content)
    assert len(result.content) == 1 and result.structured_content is None
    return result.content[0].text  # type: ignore[union-attr]


def records(text: str) -> list[dict[str, str]]:
    """The records of a listing: each ``- <head>: <text>`` line with its ``next:`` line."""
    found: list[dict[str, str]] = []
    for line in text.splitlines():
        if line.startswith("- "):
            head, _, body = line[2:].partition(": ")
            found.append(
                {"head": head, "id": head.split(" ")[0].rstrip(":"), "text": body, "next": ""}
            )
        elif line.startswith("  next: ") and found:
            found[-1]["next"] = line.removeprefix("  next: ")
    return found


def cursor_of(text: str) -> str | None:
    """The cursor a page ends with (``None`` on the last page)."""
    last = text.splitlines()[-1]
    return last.split('cursor="', 1)[1].split('"', 1)[0] if 'cursor="' in last else None


async def call_error(session: ClientSession, tool: str, **args: Any) -> str:
    result = await session.call_tool(tool, args)
    assert isinstance(result, CallToolResult)
    assert result.is_error, (tool, args, result.content)
    return result.content[0].text  # type: ignore[union-attr]


def _check_tool_listing(tools: list[Any]) -> None:
    assert sorted(t.name for t in tools) == sorted(TOOL_NAMES)
    for tool in tools:
        assert tool.description and len(tool.description) > 40, tool.name
        schema = tool.input_schema
        assert schema["type"] == "object", tool.name
        for prop, spec in schema.get("properties", {}).items():
            assert spec.get("description"), f"{tool.name}.{prop} has no description"


# ====================================================================== stdio


def test_stdio_lists_tools_and_resources(prepared: Prepared) -> None:
    async def main() -> None:
        async with stdio_session(prepared.home) as session:
            _check_tool_listing((await session.list_tools()).tools)
            resources = (await session.list_resources()).resources
            assert [str(r.uri) for r in resources] == [CORE_URI]
            templates = (await session.list_resource_templates()).resource_templates
            assert [t.uri_template for t in templates] == ["memory://session/{session_id}"]

    anyio.run(main)


def test_stdio_navigation_tools_follow_provenance(prepared: Prepared) -> None:
    async def main() -> None:
        async with stdio_session(prepared.home) as session:
            # search → a hit that names its session and nodes → open the session around it
            found = await call(session, "memory_search", query="Python Java")
            hit = next(
                h
                for h in records(found)
                if 'session_id="s-lang"' in h["next"] and prepared.cited_node in h["next"]
            )
            assert hit["next"].startswith('memory_open_session(session_id="s-lang", around="')
            around = hit["next"].split('around="', 1)[1].split('"', 1)[0]
            opened = await call(
                session, "memory_open_session", session_id="s-lang", around=around, radius=1
            )
            nodes = [line for line in opened.splitlines() if line.startswith("#")]
            assert len(nodes) <= 3 and any(around in line for line in nodes)
            cited = next(line for line in nodes if "(cited)" in line)
            assert around in cited and "Python" in cited
            assert opened.endswith('memory_git_log(session_id="s-lang")')

            whole = await call(session, "memory_open_session", session_id="s-lang")
            roles = [line.split(" ")[2] for line in whole.splitlines() if line.startswith("#")]
            assert roles == ["user", "assistant"] * 2

            # recall: bounded, every item with its provenance
            recalled = await call(
                session, "memory_recall", query="Which language do I prefer?", budget=500
            )
            head = recalled.splitlines()[0]
            used = int(head.split(" items, ")[1].split("/")[0])
            assert head.startswith("recall: ") and 0 < used <= 500
            # an item may span lines; its pointer ends its last line
            after = recalled[recalled.index("Python") :]
            assert "↪ session:s-lang@" in after
            commit = after.split("↪ session:s-lang@", 1)[1].split()[0]
            # the pointer opens the evidence: the turn it names holds the cited message
            opened = await call(
                session, "memory_open_session", session_id="s-lang", around=commit, radius=0
            )
            assert prepared.cited_node in opened and "Python" in opened

            # timeline: the decision, dated, with its evidence
            timeline = await call(session, "memory_timeline", since="2000-01-01", kind="decision")
            event = next(e for e in records(timeline) if "PostgreSQL" in e["text"])
            assert 'memory_open_session(session_id="s-lang", around="' in event["next"]
            assert " · 20" in event["head"] and "decision" in event["head"]  # dated, with kind
            assert records(await call(session, "memory_timeline", until="2000-01-01")) == []

            # graph around an entity named by the user
            graph = await call(session, "memory_graph_neighbors", entity="Python")
            assert graph.startswith("entity tool.python ")
            fact = next(r for r in records(graph) if " prefers " in r["head"])
            assert 'session_id="s-lang"' in fact["next"] and prepared.cited_node in fact["next"]
            assert fact["head"].endswith("..now")  # current: valid until now

            # git log of the session: one commit per turn, with the node ids it holds
            log = await call(session, "memory_git_log", session_id="s-lang", limit=5)
            commits = records(log)
            assert len(commits) == 2 and cursor_of(log) is None
            assert prepared.cited_node in commits[-1]["next"]

            # core.md with its pointers
            core = await call(session, "memory_core")
            assert "↪ session:s-lang" in core

    anyio.run(main)


def test_stdio_remember_forget_errors_and_resources(prepared: Prepared) -> None:
    async def main() -> None:
        async with stdio_session(prepared.home) as session:
            saved = await call(
                session,
                "memory_remember",
                text="The user prefers tabs over spaces.",
                scope="global",
            )
            assert saved.startswith("remembered m_") and "disabled" not in saved
            memory_id = saved.split(" ")[1]
            assert saved.endswith(f'next: memory_forget(memory_id="{memory_id}")')
            hits = records(await call(session, "memory_search", query="tabs spaces"))
            assert any(h["id"] == f"memory:{memory_id}" for h in hits)

            gone = await call(session, "memory_forget", memory_id=memory_id)
            assert gone.startswith(f"forgot {memory_id} (") and "deleted" in gone
            hits = records(await call(session, "memory_search", query="tabs spaces"))
            assert all(h["id"] != f"memory:{memory_id}" for h in hits)

            # errors the facade raises come back as tool errors with its message
            message = await call_error(session, "memory_open_session", session_id="no-such")
            assert "session not found: no-such" in message
            message = await call_error(session, "memory_forget", memory_id=memory_id)
            assert f"memory not found: {memory_id}" in message
            message = await call_error(
                session, "memory_open_session", session_id="s-lang", around="not-a-node"
            )
            assert "no node or turn commit not-a-node" in message
            message = await call_error(session, "memory_git_log")
            assert "exactly one of project_id and session_id" in message
            message = await call_error(session, "memory_timeline", since="last tuesday")
            assert "is not a date" in message
            message = await call_error(session, "memory_search", query="x", scope="team")
            assert "scope must be" in message
            message = await call_error(session, "memory_graph_neighbors", entity="Nobody")
            assert "entity not found" in message
            message = await call_error(session, "memory_remember", text="x", type="nonsense")
            assert "unknown memory type" in message
            # the schema bounds arguments before the facade is reached
            assert "limit" in await call_error(session, "memory_search", query="x", limit=0)

            # ... and the server is still alive
            assert records(await call(session, "memory_search", query="Python"))

            core = (await session.read_resource(CORE_URI)).contents[0]
            assert isinstance(core, TextResourceContents) and "↪ session:" in core.text
            transcript = (await session.read_resource("memory://session/s-team")).contents[0]
            assert isinstance(transcript, TextResourceContents)
            lines = transcript.text.splitlines()
            assert lines[0].startswith("session s-team ") and "Berlin" in lines[3]
            with pytest.raises(MCPError, match="session not found: gone"):
                await session.read_resource("memory://session/gone")

    anyio.run(main)


@pytest.mark.timeout(60)
def test_stdio_stdout_carries_only_protocol_messages(prepared: Prepared) -> None:
    """Raw JSON-RPC: every line the server prints on stdout is a JSON message, and a facade
    error is a tool result with ``isError``, not a crash."""
    env = {**os.environ, **SERVER_ENV}
    proc = subprocess.Popen(
        [*CLI, "mcp", "--home", str(prepared.home)],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None

    def send(message: dict[str, Any]) -> None:
        proc.stdin.write(json.dumps(message) + "\n")  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]

    def receive() -> dict[str, Any]:
        line = proc.stdout.readline()  # type: ignore[union-attr]
        return json.loads(line)  # type: ignore[no-any-return]  # anything else fails here

    send(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "0"},
            },
        }
    )
    assert receive()["result"]["serverInfo"]["name"] == "ogmemory"
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send(
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "memory_open_session", "arguments": {"session_id": "nope"}},
        }
    )
    answer = receive()
    assert answer["id"] == 2 and answer["result"]["isError"] is True
    stdout, stderr = proc.communicate(timeout=30)  # closes stdin: the server exits
    assert stdout.strip() == ""
    assert "ogmem mcp: serving" in stderr
    assert proc.returncode == 0


# ====================================================================== HTTP


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture()
def http_server(prepared: Prepared) -> Iterator[str]:
    port = _free_port()
    env = {**os.environ, **SERVER_ENV}
    proc = subprocess.Popen(
        [*CLI, "mcp", "--transport", "http", "--port", str(port), "--home", str(prepared.home)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        for _ in range(600):  # until it listens (or dies)
            if proc.poll() is not None:
                pytest.fail(f"ogmem mcp --transport http exited: {proc.stderr.read()}")  # type: ignore[union-attr]
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                anyio.run(anyio.sleep, 0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_streamable_http_transport(http_server: str, prepared: Prepared) -> None:
    async def main() -> None:
        async with (
            streamable_http_client(http_server) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            _check_tool_listing((await session.list_tools()).tools)
            found = await call(session, "memory_search", query="Berlin")
            assert any('session_id="s-team"' in h["next"] for h in records(found))
            assert "session not found" in await call_error(
                session, "memory_git_log", session_id="missing"
            )
            core = (await session.read_resource(CORE_URI)).contents[0]
            assert isinstance(core, TextResourceContents) and core.text

    anyio.run(main)


# ====================================================================== in process


def test_every_tool_has_a_description(tmp_path: Path) -> None:
    """The docs check: every tool and every argument explains itself to the model."""
    with Memory(settings=_settings(tmp_path / "home")) as mem:
        server = build_server(mem)

        async def main() -> None:
            async with Client(server) as client:
                _check_tool_listing((await client.list_tools()).tools)
                resources = (await client.list_resources()).resources
                assert all(r.description for r in resources)

        anyio.run(main)
    assert set(get_args(TimelineKind)) == set(TIMELINE_KINDS)


def test_core_on_an_empty_home_and_host_without_http(tmp_path: Path) -> None:
    with Memory(settings=_settings(tmp_path / "home")) as mem:
        server = build_server(mem)

        async def main() -> None:
            async with Client(server) as client:
                result = await client.call_tool("memory_core", {})
                assert not result.is_error

        anyio.run(main)
    result = CliRunner().invoke(app, ["mcp", "--home", str(tmp_path / "h"), "--port", "9000"])
    assert result.exit_code == 2
    assert "only apply with --transport http" in result.stderr
