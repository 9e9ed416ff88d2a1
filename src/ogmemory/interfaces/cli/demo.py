"""``ogmem demo``: import the LoCoMo development conversations and show the sessions recorded.

Where the data comes from, in order: ``--data``; ``$OGMEM_LOCOMO``; the first
``shared/data/locomo/locomo-dev.json`` found walking up from the current directory; else the
small sample bundled with the package (``ogmemory/data/sample_locomo.json``). The first thing it
says is which one, and how to point it at another file.

Where it writes: ``--home``, else ``./demo-home``. Never ``$OGMEM_HOME``, even when it is set:
that is the user's real memory, and the demo imports a benchmark's conversations. To build the
demo there anyway, say so: ``--home "$OGMEM_HOME"``.

Every step that takes a while (import, distill, embed) shows its progress on stderr. The report
ends with commands to copy as printed: absolute paths to this installation's ``ogmem`` (unless
that same one is on ``PATH``) and to the demo home, for the next commands and for an MCP client
(``mcp_command``).
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

from ...config import Settings
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
    last_active,
    notice,
    open_memory,
    stdout_console,
    table,
)
from .imports import print_summary, run_import
from .progress import progress
from .vectors import embed_pending

__all__ = [
    "BUNDLED_SAMPLE",
    "DEMO_HOME",
    "DEV_SET",
    "SESSION_ROWS",
    "demo",
    "demo_home",
    "find_locomo",
    "load_samples",
    "mcp_command",
    "mcp_instructions",
    "ogmem_command",
    "ogmem_executable",
]

#: The sample shipped inside the package, used when the development set is not around.
BUNDLED_SAMPLE = ("data", "sample_locomo.json")
#: Where the demo writes unless ``--home`` says otherwise (relative to the current directory).
DEMO_HOME = "demo-home"
#: Sessions shown in the report (the most recently active); the rest are counted.
SESSION_ROWS = 5


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


def ogmem_command(*args: str) -> str:
    """A command line to copy: ``ogmem`` when that name on ``PATH`` is this installation's,
    else the absolute path to it.

    >>> ogmem_command("sessions", "list").endswith("sessions list")
    True
    """
    exe = ogmem_executable()
    found = shutil.which("ogmem")
    if len(exe) == 1 and found and Path(found).resolve() == Path(exe[0]).resolve():
        exe = ["ogmem"]
    return shlex.join([*exe, *args])


def _path_hint() -> str | None:
    """How to type plain ``ogmem``, when this installation's is not on ``PATH``."""
    exe = ogmem_executable()
    if len(exe) != 1 or ogmem_command().split()[0] == "ogmem":
        return None
    return f"To type plain 'ogmem': export PATH=\"{Path(exe[0]).parent}:$PATH\""


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


def _session_summary(
    source: str, sessions: list[SessionInfo], conversations: int, home: Path
) -> None:
    """How many sessions were recorded, the most recently active few (as ``sessions list``
    orders and dates them: when the conversation happened), and how to list them all."""
    turns = sum(s.turns for s in sessions)
    shown = sessions if len(sessions) <= SESSION_ROWS + 1 else sessions[:SESSION_ROWS]
    title = (
        f"{len(sessions)} session(s), {turns} turn(s) of {conversations} conversation(s) "
        f"recorded from {source}"
    )
    if len(shown) < len(sessions):
        title += f"; the {len(shown)} most recently active:"
    rows = [(s.session_id, s.display_title, s.turns, last_active(s)) for s in shown]
    stdout_console().print(table(title, ("ID", "Title", "Turns", "Last active"), rows))
    if len(shown) < len(sessions):
        listing = ogmem_command("sessions", "list", "--home", str(home))
        typer.echo(f"... and {len(sessions) - len(shown)} more; all of them: {listing}")


def _print_report(
    sessions: list[SessionInfo],
    result: ImportResult,
    knowledge: dict[str, int],
    core: str,
    question: str,
    recalled: RecallResult,
    home: Path,
) -> None:
    """What the demo imported, distilled and recalled, for a person to read, and what to run
    next."""
    print_summary(result)
    typer.echo(
        f"Distilled: {knowledge['memories']} memories, {knowledge['facts']} current facts, "
        f"{knowledge['events']} timeline events.\n"
    )
    typer.echo(core)
    typer.echo(f"Recall for {question!r}: {len(recalled.items)} items, {recalled.tokens} tokens")
    for item in recalled.items[:3]:
        typer.echo(f"  [{', '.join(item.cites)}] {_best_line(item.text, question)[:110]}")
    where = ("--home", str(home))
    typer.echo("\nNext (copy and paste):")
    if sessions:
        typer.echo(f"  {ogmem_command('sessions', 'show', sessions[0].session_id, *where)}")
    typer.echo(f"  {ogmem_command('memories', 'list', *where)}")
    typer.echo(f"  {ogmem_command('recall', question, *where)}")
    hint = _path_hint()
    if hint:
        typer.echo(f"  ({hint})")


def _announce_source(found: Path | None, samples: list[dict[str, Any]], sessions: int) -> str:
    """Say first what the demo imports and how to choose another file; returns how to name
    that source in the report."""
    size = f"{len(samples)} conversation(s), {sessions} session(s)"
    if found is None:
        notice(
            f"Using the small sample bundled with ogmemory ({size}): the LoCoMo development "
            f"set ({DEV_SET}) is not in this directory or above it.\n"
            "For the full demo pass --data FILE (or set OGMEM_LOCOMO=FILE) with a LoCoMo-format "
            "file, e.g. data/locomo10.json of the LoCoMo release "
            "(https://github.com/snap-research/locomo); it is read in place, never copied."
        )
        return "the bundled sample"
    notice(f"Using LoCoMo data from {found} ({size})")
    return str(found)


def demo_home(home: Path | None) -> Path:
    """Where the demo writes: ``home`` when given, else ``./demo-home``, made absolute. Never
    ``$OGMEM_HOME`` unless passed as ``--home``: the user's real memory is not for a demo."""
    if home is None:
        home = Path.cwd() / DEMO_HOME
        real = os.environ.get("OGMEM_HOME")
        if real:
            notice(
                f"OGMEM_HOME is set ({real}), but the demo does not write into your memory; it "
                f'uses {home}. To build it there anyway: --home "$OGMEM_HOME"'
            )
    return home.expanduser().absolute()


def _distill(mem: Memory, imported: int) -> dict[str, int]:
    """Distill the ``imported`` messages (rules, no LLM), batch by batch with its progress,
    then the views and core.md, and embed it all (recall below, and the MCP server, get
    vectors); returns what distillation derived, counted.

    The progress counts every imported message: the fast path distils each session as the
    import commits it, so most are done before this step starts (it said "5/5 messages"
    after a 1,451-message import)."""
    left = mem.pending_nodes()
    total = max(imported, left)
    with progress(
        "Distilling (rule-based, no LLM)",
        total,
        unit="messages",
        done=total - left,
        before="distilled while importing",
    ) as advance:
        while left:
            batches = len(mem.distill(max_batches=1).batches)
            now = mem.pending_nodes()
            advance(left - now)
            if not batches and now == left:
                break  # what is left is not the pipeline's to take (another process holds it)
            left = now
        mem.wait_background()
    mem.rebuild_views()
    embed_pending(mem, "Embedding")
    return {
        "memories": len(mem.memories()),
        "facts": len(mem.facts()),
        "events": len(mem.timeline()),
    }


def demo(
    data: Annotated[
        Path | None,
        typer.Option(
            "--data",
            metavar="FILE",
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
            metavar="DIR",
            file_okay=False,
            show_default=False,
            help="State directory for the demo. \\[default: ./demo-home, never $OGMEM_HOME "
            '(your memory): pass --home "$OGMEM_HOME" to build the demo there]',
        ),
    ] = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Import the LoCoMo development conversations, distill them, and show what was recorded.

    Shows the sessions, what distillation derived (memories, facts, events), core.md, and one
    bounded recall, then the commands to go on from there (and to serve this memory to an MCP
    client). Running it again is harmless: sessions already imported are skipped.
    """
    samples, found = load_samples(data)
    conversations = list(parse_locomo(samples))
    source = _announce_source(found, samples, len(conversations))
    home = demo_home(home)
    notice(f"Memory home: {home}")
    question = next(
        (str(qa["question"]) for s in samples for qa in s.get("qa", []) if qa.get("question")),
        "What happened recently?",
    )
    with open_memory(home, account, space, index_worker=False) as mem:
        result = run_import(mem, conversations)
        knowledge = _distill(mem, result.messages)
        listed = mem.list_sessions()  # most recently active first, as `sessions list`
        by_id = {s.session_id: s for s in listed}
        sessions = [by_id[c.session_id] for c in conversations if c.session_id in by_id]
        recent = [s for s in listed if s.session_id in {c.session_id for c in conversations}]
        core = mem.core()
        recalled = mem.recall(question)
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
    _session_summary(source, recent, len(samples), home)
    _print_report(sessions, result, knowledge, core, question, recalled, home)
    _print_mcp(mcp)
    _chat(home, account, space, question)


def _chat(home: Path, account: str | None, space: str | None, question: str) -> None:
    """The second half of the main job (issue 11): ``ogmem chat`` on this memory when an LLM
    endpoint is configured, else how to start it."""
    if Settings.from_env(home=home, account=account, space=space).llm is None:
        notice(
            "Set OGMEM_LLM_BASE_URL (and OGMEM_LLM_MODEL) to chat with this memory: "
            + ogmem_command("chat", "--home", str(home))
        )
        return
    from .chat import demo_chat

    demo_chat(home, account, space, question)


def _best_line(text: str, question: str) -> str:
    """The line of a recalled item that shares the most words with the question (an item is
    several turns; its first line is often a greeting)."""
    asked = {w for w in re.findall(r"\w+", question.lower()) if len(w) > 2}
    lines = [line.strip().strip("()") for line in text.splitlines() if line.strip()]
    return max(lines, key=lambda line: len(asked & set(re.findall(r"\w+", line.lower()))))
