"""``ogmem demo``: import the LoCoMo development conversations and show the sessions recorded.

Where the data comes from, in order: ``--data``; ``$OGMEM_LOCOMO``; the first
``shared/data/locomo/locomo-dev.json`` found walking up from the current directory; else the
small sample bundled with the package (``ogmemory/data/sample_locomo.json``).

It ends by printing how to serve this memory to an MCP client, as commands to copy: absolute
paths to this installation's ``ogmem`` and to the demo home (``mcp_command``).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

import typer

from ...entity.records import ImportResult, SessionInfo
from ...evaluation.data import DEV_SET, find_locomo
from ...importers import parse_locomo, read_locomo
from ...memory import Memory
from ...recall.results import RecallResult
from .common import (
    AccountOption,
    JsonOption,
    SpaceOption,
    emit_json,
    fmt_time,
    notice,
    open_memory,
    stdout_console,
    table,
)
from .imports import print_summary, run_import
from .vectors import embed_pending

__all__ = [
    "BUNDLED_SAMPLE",
    "DEV_SET",
    "demo",
    "find_locomo",
    "load_samples",
    "mcp_command",
    "mcp_instructions",
    "ogmem_executable",
]

#: The sample shipped inside the package, used when the development set is not around.
BUNDLED_SAMPLE = ("data", "sample_locomo.json")
DEMO_HOME = "demo-home"


def load_samples(data: Path | None) -> tuple[list[dict[str, Any]], Path | None]:
    """The LoCoMo samples to import, and the file they came from (``None``: the bundled one)."""
    found = data or find_locomo(Path.cwd(), os.environ)
    if found is not None:
        return read_locomo(found), found
    resource = resources.files("ogmemory").joinpath(*BUNDLED_SAMPLE)
    with resources.as_file(resource) as path:
        return read_locomo(path), None


def ogmem_executable() -> list[str]:
    """How to start this installation's ``ogmem``, with absolute paths: the script beside the
    running interpreter (a venv's ``bin/``), else the one on ``PATH``, else ``python -m``."""
    beside = Path(sys.executable).absolute().with_name("ogmem")
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    found = shutil.which("ogmem")
    if found:
        return [str(Path(found).absolute())]
    return [str(Path(sys.executable).absolute()), "-m", "ogmemory.interfaces.cli"]


def mcp_command(home: Path, account: str | None = None, space: str | None = None) -> list[str]:
    """The command an MCP client runs to serve ``home`` over stdio (absolute paths)."""
    cmd = [*ogmem_executable(), "mcp", "--home", str(home.expanduser().absolute())]
    if account:
        cmd += ["--account", account]
    if space:
        cmd += ["--space", space]
    return cmd


def mcp_instructions(
    home: Path, account: str | None = None, space: str | None = None
) -> dict[str, Any]:
    """Registering ``home`` with MCP clients: the Claude Code command line, and the
    ``mcpServers`` JSON block that Cursor, Claude Desktop and others read."""
    cmd = mcp_command(home, account, space)
    return {
        "command": cmd,
        "claude": "claude mcp add ogmemory -- " + shlex.join(cmd),
        "mcpServers": {"ogmemory": {"command": cmd[0], "args": cmd[1:]}},
    }


def _print_mcp(info: dict[str, Any]) -> None:
    typer.echo("\nServe this memory to an MCP client. Claude Code (copy and paste):\n")
    typer.echo(f"  {info['claude']}\n")
    typer.echo("Cursor, Claude Desktop and other clients with an mcpServers JSON file:\n")
    block = json.dumps({"mcpServers": info["mcpServers"]}, indent=2)
    typer.echo("\n".join(f"  {line}" for line in block.splitlines()))


def _print_report(
    source: str,
    sessions: list[SessionInfo],
    result: ImportResult,
    knowledge: dict[str, int],
    core: str,
    question: str,
    recalled: RecallResult,
    home: Path,
) -> None:
    """What the demo recorded, distilled and recalled, for a person to read."""
    rows = [(s.session_id, s.display_title, s.turns, fmt_time(s.updated_at)) for s in sessions]
    stdout_console().print(
        table(
            f"{len(sessions)} session(s) recorded from {source}",
            ("ID", "Title", "Turns", "Updated"),
            rows,
        )
    )
    print_summary(result)
    typer.echo(
        f"Distilled: {knowledge['memories']} memories, {knowledge['facts']} current facts, "
        f"{knowledge['events']} timeline events.\n"
    )
    typer.echo(core)
    typer.echo(f"Recall for {question!r}: {len(recalled.items)} items, {recalled.tokens} tokens")
    for item in recalled.items[:3]:
        typer.echo(f"  [{', '.join(item.cites)}] {_best_line(item.text, question)[:110]}")
    if sessions:
        typer.echo(
            f"Next: ogmem sessions show {sessions[0].session_id} --home {shlex.quote(str(home))}"
        )


def _announce_source(found: Path | None) -> str:
    """Say where the conversations come from; returns how to name that source."""
    if found is None:
        notice(
            "LoCoMo development set not found (pass --data, set OGMEM_LOCOMO, or run from "
            f"below a directory holding {DEV_SET}); using the bundled sample."
        )
        return "the bundled sample"
    notice(f"Using LoCoMo data from {found}")
    return str(found)


def _distill(mem: Memory) -> dict[str, int]:
    """Distill what was imported (rules, no LLM) and embed it (recall below, and the MCP
    server, get vectors); returns what distillation derived, counted."""
    notice("Distilling (rule-based, no LLM) ...")
    distilled = mem.sleep("deep")
    mem.wait_background()
    embed_pending(mem, "Embedding")
    return {
        "memories": len(mem.memories()),
        "facts": len(mem.facts()),
        "events": len(mem.timeline()),
        "batches": len(distilled.batches),
    }


def demo(
    data: Annotated[
        Path | None,
        typer.Option(
            "--data",
            exists=True,
            dir_okay=False,
            readable=True,
            help="A LoCoMo-format file to import. \\[default: $OGMEM_LOCOMO, else "
            "shared/data/locomo/locomo-dev.json above the current directory, else the "
            "bundled sample]",
        ),
    ] = None,
    home: Annotated[
        Path | None,
        typer.Option(
            "--home",
            envvar="OGMEM_HOME",
            file_okay=False,
            show_default=False,
            help="State directory for the demo. \\[default: ./demo-home]",
        ),
    ] = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Import the LoCoMo development conversations, distill them, and show what was recorded.

    Shows the sessions, what distillation derived (memories, facts, events), core.md, and one
    bounded recall. Running it again is harmless: sessions already imported are skipped.
    """
    samples, found = load_samples(data)
    source = _announce_source(found)
    conversations = list(parse_locomo(samples))
    home = home or Path.cwd() / DEMO_HOME
    notice(f"Memory home: {home}")
    question = next(
        (str(qa["question"]) for s in samples for qa in s.get("qa", []) if qa.get("question")),
        "What happened recently?",
    )
    with open_memory(home, account, space, index_worker=False) as mem:
        result = run_import(mem, conversations)
        by_id = {s.session_id: s for s in mem.list_sessions()}
        knowledge = _distill(mem)
        core = mem.core()
        recalled = mem.recall(question)
    sessions = [by_id[c.session_id] for c in conversations if c.session_id in by_id]
    mcp = mcp_instructions(home, account, space)
    if as_json:
        emit_json(
            {
                "source": str(found) if found else None,
                "bundled_sample": found is None,
                "home": str(home),
                "import": result.to_dict(),
                "sessions": [s.to_dict() for s in sessions],
                "knowledge": knowledge,
                "core": core,
                "recall": recalled.to_dict(),
                "mcp": mcp,
            }
        )
        return
    _print_report(source, sessions, result, knowledge, core, question, recalled, home)
    _print_mcp(mcp)
    # --- context engine (issue 11): the second half of the main job, with an LLM endpoint
    from .chat import demo_chat

    demo_chat(home, account, space, question)


def _best_line(text: str, question: str) -> str:
    """The line of a recalled item that shares the most words with the question (an item is
    several turns; its first line is often a greeting)."""
    asked = {w for w in re.findall(r"\w+", question.lower()) if len(w) > 2}
    lines = [line.strip().strip("()") for line in text.splitlines() if line.strip()]
    return max(lines, key=lambda line: len(asked & set(re.findall(r"\w+", line.lower()))))
