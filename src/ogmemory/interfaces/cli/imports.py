"""``ogmem import``: record conversation files as sessions, one git commit per turn.

Every file is parsed before anything is written, so a file that is not valid JSONL (or LoCoMo
JSON) changes nothing. Sessions that already exist are skipped, so importing the same file
twice is harmless. The command ends with the vectors of what it wrote built (a progress bar on
stderr in a terminal); ``--no-embed`` leaves them to ``ogmem worker`` or the next recall.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ...entity.records import ImportResult
from ...errors import InvalidInput
from ...importers import Conversation, parse_locomo, read_locomo, read_openai_jsonl
from ...memory import Memory
from .common import (
    AccountOption,
    HomeOption,
    JsonOption,
    SpaceOption,
    emit_json,
    open_memory,
)
from .progress import progress
from .vectors import finish_import

__all__ = ["NoEmbedOption", "import_app", "print_summary", "run_import"]

NoEmbedOption = Annotated[
    bool,
    typer.Option(
        "--no-embed",
        help="Do not build the vectors now: what was imported is found "
        "by full text until 'ogmem worker' (or the next recall) embeds it.",
    ),
]

import_app = typer.Typer(
    name="import",
    help="Import history as sessions: agent histories (Claude Code, Codex CLI, aider; run "
    "again to add only what is new) and conversation files (OpenAI chat JSONL, LoCoMo JSON).",
    no_args_is_help=True,
)


def run_import(mem: Memory, conversations: list[Conversation]) -> ImportResult:
    """``Memory.import_conversations`` with a progress display (on stderr) advancing per
    session."""
    with progress("Importing", len(conversations), unit="sessions") as advance:

        def on_session(conv: Conversation, created: bool) -> None:
            advance(1, f"{'Imported' if created else 'Skipped'} {conv.session_id}")

        return mem.import_conversations(conversations, on_session=on_session)


def print_summary(result: ImportResult) -> None:
    """One line a person can read: what was created, skipped and dropped."""
    line = (
        f"Imported {result.sessions_created} session(s): {result.turns} turn(s), "
        f"{result.messages} message(s)."
    )
    if result.sessions_skipped:
        line += f" Skipped {result.sessions_skipped} session(s) that already exist."
    if result.messages_skipped:
        line += f" Left out {result.messages_skipped} system message(s)."
    typer.echo(line)


def _finish(result: ImportResult, as_json: bool) -> None:
    if as_json:
        emit_json(result.to_dict())
    else:
        print_summary(result)


@import_app.command("openai")
def import_openai(
    files: Annotated[
        list[Path],
        typer.Argument(
            exists=True,
            dir_okay=False,
            readable=True,
            metavar="FILE",
            help="JSONL files: one OpenAI-style message per line (optional 'session_id' key; "
            'default: one session per file), or one {"messages": [...]} object per line '
            "(one session per line).",
        ),
    ],
    no_embed: NoEmbedOption = False,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Import OpenAI-format chat JSONL files; a new turn starts at each user message."""
    conversations: list[Conversation] = []
    origin: dict[str, Path] = {}
    for path in files:
        for conv in read_openai_jsonl(path):
            first = origin.setdefault(conv.session_id, path)
            if first != path:
                raise InvalidInput(
                    f"{path} and {first} both hold session {conv.session_id!r}; "
                    "rename one file or give its lines distinct session_id keys"
                )
            conversations.append(conv)
    with open_memory(home, account, space, index_worker=False) as mem:
        result = run_import(mem, conversations)
        finish_import(mem, embed=not no_embed)
    _finish(result, as_json)


@import_app.command("locomo")
def import_locomo(
    file: Annotated[
        Path,
        typer.Argument(
            exists=True,
            dir_okay=False,
            readable=True,
            metavar="FILE",
            help="A LoCoMo-format JSON file (a list of samples, each with a 'conversation').",
        ),
    ],
    prefix: Annotated[
        str,
        typer.Option("--prefix", help="Prepended to every session id (<prefix><sample_id>-s<N>)."),
    ] = "",
    no_embed: NoEmbedOption = False,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Import a LoCoMo benchmark file: one session per conversation session, dates as event
    times, speaker A as the user."""
    conversations = list(parse_locomo(read_locomo(file), prefix=prefix))
    with open_memory(home, account, space, index_worker=False) as mem:
        result = run_import(mem, conversations)
        finish_import(mem, embed=not no_embed)
    _finish(result, as_json)
