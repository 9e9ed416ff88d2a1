"""From the demo to a registered MCP server in one copy-paste: the command the demo prints,
run as printed, is a working MCP server on the demo's memory (the SDK's own stdio client)."""

from __future__ import annotations

import json
import os
import shlex
import sys
from importlib import resources
from pathlib import Path

import anyio
import pytest
from mcp.client import ClientSession
from mcp.client.stdio import StdioServerParameters, get_default_environment, stdio_client
from mcp.types import CallToolResult
from typer.testing import CliRunner

from ogmemory.interfaces.cli import app
from ogmemory.interfaces.cli.demo import mcp_command, ogmem_executable

runner = CliRunner()


pytestmark = pytest.mark.usefixtures("no_ogmem_env")


def _printed_claude_command(stdout: str) -> list[str]:
    line = next(
        ln.strip()
        for ln in stdout.splitlines()
        if ln.strip().startswith("claude mcp add ogmemory -- ")
    )
    return shlex.split(line.split(" -- ", 1)[1])


def _printed_json_block(stdout: str) -> dict[str, object]:
    lines = stdout.splitlines()
    first = next(
        i
        for i, ln in enumerate(lines)
        if ln.strip() == "{" and lines[i + 1].strip().startswith('"mcpServers"')
    )
    depth, block = 0, []
    for ln in lines[first:]:
        block.append(ln)
        depth += ln.count("{") - ln.count("}")
        if depth == 0:
            break
    return dict(json.loads("\n".join(block)))


async def _recall_over_stdio(command: list[str], query: str) -> tuple[list[str], str]:
    env = get_default_environment()  # what a client passes: no PYTHONPATH, no OGMEM_*
    if "PYTHONPATH" in os.environ:  # the test runs this checkout, not an installed copy
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    params = StdioServerParameters(command=command[0], args=command[1:], env=env)
    with open(os.devnull, "w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            tools = [t.name for t in (await session.list_tools()).tools]
            result = await session.call_tool("memory_recall", {"query": query})
    assert isinstance(result, CallToolResult) and not result.is_error, result.content
    text = "\n".join(getattr(c, "text", "") for c in result.content)
    return tools, text


def test_demo_prints_a_working_mcp_registration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the default ./demo-home, given relative on purpose
    sample = resources.files("ogmemory").joinpath("data", "sample_locomo.json")
    with resources.as_file(sample) as path:
        result = runner.invoke(app, ["demo", "--data", str(path), "--home", "demo-home"])
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    command = _printed_claude_command(result.stdout)
    home = (tmp_path / "demo-home").absolute()
    assert command == [*ogmem_executable(), "mcp", "--home", str(home)]
    assert Path(command[0]).is_absolute() and Path(command[0]).is_file()
    block = _printed_json_block(result.stdout)
    assert block == {"mcpServers": {"ogmemory": {"command": command[0], "args": command[1:]}}}

    tools, text = anyio.run(_recall_over_stdio, command, "Riverside half marathon")
    assert "memory_recall" in tools and "memory_open_session" in tools
    assert "Riverside half marathon" in text  # the demo's conversation, not an empty memory


def test_mcp_command_names_the_tenant_and_an_absolute_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    cmd = mcp_command(Path("rel-home"), "acme", "team")
    assert cmd[-6:] == [
        "--home",
        str(tmp_path / "rel-home"),
        "--account",
        "acme",
        "--space",
        "team",
    ]
    assert cmd[:-6] == [*ogmem_executable(), "mcp"]
    # in a venv the script sits beside the interpreter: that is the one printed
    beside = Path(sys.executable).absolute().with_name("ogmem")
    if beside.is_file():
        assert ogmem_executable() == [str(beside)]


def test_the_demo_previews_the_line_of_an_item_that_answers() -> None:
    from ogmemory.interfaces.cli.demo import _best_line

    item = (
        "[2023-05-08] Caroline: Hey Mel! Good to see you! How have you been?\n"
        "Melanie: Hey Caroline! I'm swamped with the kids & work.\n"
        "Caroline: I went to a LGBTQ support group yesterday and it was so powerful.\n"
        "  ([2023-05-07] Caroline went to a LGBTQ support group (2023-05-07).)"
    )
    best = _best_line(item, "When did Caroline go to the LGBTQ support group?")
    assert best == "Caroline: I went to a LGBTQ support group yesterday and it was so powerful."
