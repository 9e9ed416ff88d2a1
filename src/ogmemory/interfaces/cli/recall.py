"""``ogmem recall``, ``ogmem search``, ``ogmem open`` and ``ogmem git-log``: reading memory back.

``recall`` is what an agent gets before inference: at most 20 items within a token budget, each
citing the turns it came from (``--context`` prints exactly the text an agent would inject).
``search`` lists raw hits across every level (turns, memories, events, facts, entities,
sessions). ``open`` and ``git-log`` are the navigation tools: they follow a pointer
(``↪ session:<id>@<commit>``) back to the conversation and its commits.

These commands never start a background embedding worker (the process exits in a second).
``recall`` and ``search`` first embed what is pending, up to ``EMBED_ON_READ`` documents
(``--embed-pending``); documents still waiting after that are found by full text, and a notice
on stderr says how many there are.
"""

from __future__ import annotations

import dataclasses
import logging
import sqlite3
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from ...entity.records import pointer_to
from ...errors import InvalidInput, StorageError
from ...memory import Memory
from ...recall.config import BUDGET_DEFAULT, BUDGET_MAX, BUDGET_MIN
from ...recall.results import RecallResult
from ...tenancy import validate_id
from .common import (
    READ_WARNINGS,
    UNWRAPPED,
    AccountOption,
    HomeOption,
    JsonOption,
    ScopeOption,
    SpaceOption,
    emit_json,
    fmt_time,
    notice,
    open_memory,
    parse_when,
    show_records,
    stdout_console,
    table,
)
from .vectors import EMBED_ON_READ, embed_pending, one_thread, pending_vectors

EmbedPendingOption = Annotated[
    int,
    typer.Option(
        "--embed-pending",
        metavar="N",
        min=0,
        help="Before answering, embed up to N documents still waiting for their vectors "
        "(0: none; they are found by full text until embedded).",
    ),
]

__all__ = [
    "DOC_KINDS",
    "EmbedPendingOption",
    "git_log",
    "open_reader",
    "open_session",
    "recall",
    "search",
]

#: The kinds of indexed documents, as ``search --kind`` accepts them.
DOC_KINDS = ("turn", "session", "memory", "event", "fact", "entity")
_TABLE_TEXT = 240  # characters of a hit's text shown in the table (--json has all of it)


def open_reader(home: Path | None, account: str | None, space: str | None) -> Memory:
    """The facade for a one-shot read: like ``open_memory``, but without the in-process
    embedding worker (a process that exits in a second would only start and abandon it); a
    home or tenant that does not exist is read as empty (with a warning), never created."""
    return open_memory(home, account, space, read=True, index_worker=False)


class _OneLine(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return f"warning: {record.getMessage()}"


@contextmanager
def one_line_warnings() -> Iterator[None]:
    """Library warnings (e.g. why recall fell back) as one line on stderr, not a traceback:
    the result itself already says what happened."""
    logger = logging.getLogger("ogmemory")
    handler = logging.StreamHandler()  # the current sys.stderr
    handler.setLevel(logging.WARNING)
    handler.setFormatter(_OneLine())
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)


def warn_pending_vectors(mem: Memory) -> None:
    """Say on stderr when documents still wait for vectors (they are found by full text only)."""
    if mem.embedder is None:
        return
    try:
        status = mem.outbox_status()
    except (OSError, sqlite3.Error, StorageError):  # no usable index: the result says so
        return
    waiting = pending_vectors(mem)
    if waiting:
        notice(
            f"note: {waiting} document(s) are still waiting for their vectors and are found by "
            "full text only; run 'ogmem worker' (or 'ogmem worker --once') to embed them"
        )
    if status["dead"]:
        notice(f"note: {status['dead']} index job(s) failed for good; see 'ogmem outbox status'")


def _pointer(session_id: str | None, commit: str | None) -> str:
    ptr = pointer_to(session_id=session_id, commit=commit)
    return str(ptr) if ptr else "-"


def _print_recall(result: RecallResult) -> None:
    """Each item's header line (with recipe "dialogue" the one the prompt gets: number, day,
    pointer), what it is and cites, then its text, indented: whole and copyable, which a table
    column would not allow."""
    typer.echo(
        f"Recall {result.query!r}: {len(result.items)} item(s), "
        f"{result.tokens} of {result.budget} tokens"
    )
    if result.fallback:
        typer.echo(
            f"FALLBACK: ranked recall was not possible ({result.reason}). The items below are "
            "the latest ones, not a ranked answer."
        )
    elif result.reason:
        typer.echo(f"Note: {result.reason}")
    for i, item in enumerate(result.items, 1):
        cites = ", ".join(item.cites) or "-"
        if item.headers:  # the item as the prompt reads it (header line, then its turns)
            head, _, body = item.render(i).partition("\n")
            typer.echo(f"\n{head}\n    ({item.kind}, {item.tokens} tokens, cites {cites})")
        else:  # the prompt reads its text, then its pointer
            pointer = _pointer(item.session_id, item.commit)
            typer.echo(f"\n[{i}] {item.kind} · {item.tokens} tokens · cites {cites} · {pointer}")
            body = item.text
        if body:
            typer.echo(textwrap.indent(body, "    "))


def recall(
    query: Annotated[
        str, typer.Argument(metavar="QUERY", help="What the agent is about to answer or do.")
    ],
    budget: Annotated[
        int,
        typer.Option(
            "--budget",
            metavar="TOKENS",
            help=f"Token budget of the whole context (o200k_base tokens, "
            f"{BUDGET_MIN}-{BUDGET_MAX}).",
        ),
    ] = BUDGET_DEFAULT,
    scope: ScopeOption = None,
    at: Annotated[
        str | None,
        typer.Option(
            "--at",
            metavar="DATE",
            help="Answer as of this moment: recency and relative dates in the query ('last "
            "week') count from it. YYYY-MM-DD or an ISO datetime. "
            "\\[default: the latest recorded time]",
        ),
    ] = None,
    recipe: Annotated[
        str,
        typer.Option(
            "--recipe",
            metavar="NAME",
            help="Retrieval recipe: 'default' (full text + vectors, graph expansion), "
            "'fulltext' (no vectors), 'flat' (no expansion, no neighbouring turns) or "
            "'dialogue' (items as dialogue, each under a numbered header line).",
        ),
    ] = "default",
    session: Annotated[
        str | None,
        typer.Option(
            "--session",
            metavar="ID",
            help="The session asking. A temporary session (one that must not read memory) "
            "gets nothing.",
        ),
    ] = None,
    context: Annotated[
        bool,
        typer.Option(
            "--context", help="Print only the context block an agent would inject, nothing else."
        ),
    ] = False,
    embed: EmbedPendingOption = EMBED_ON_READ,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Recall what matters for QUERY within a token budget, each item with its evidence.

    Falls back to the latest items (and says so) when the index cannot answer."""
    if as_json and context:
        raise InvalidInput("give --json or --context, not both")
    when = parse_when(at, "--at")
    if session is not None:
        validate_id(session, "session id")
    with open_reader(home, account, space) as mem, one_line_warnings():
        embed_pending(mem, "Embedding pending documents", embed)
        with one_thread(mem.embedder):
            result = mem.recall(
                query, budget=budget, scope=scope, at=when, recipe=recipe, session_id=session
            )
        warn_pending_vectors(mem)
    if READ_WARNINGS and not result.items:  # nothing came back because nothing is there
        result = dataclasses.replace(result, reason="; ".join(READ_WARNINGS))
    if as_json:
        emit_json(result.to_dict())
    elif context:
        text = result.as_context()
        if text:
            typer.echo(text)
    else:
        _print_recall(result)


def search(
    query: Annotated[str, typer.Argument(metavar="QUERY", help="Words to look for, any language.")],
    limit: Annotated[
        int, typer.Option("--limit", metavar="N", help="Show at most N hits (1-100).")
    ] = 10,
    kind: Annotated[
        list[str] | None,
        typer.Option(
            "--kind",
            metavar="KIND",
            help=f"Only hits of this kind; repeat for several ({', '.join(DOC_KINDS)}).",
        ),
    ] = None,
    scope: ScopeOption = None,
    embed: EmbedPendingOption = EMBED_ON_READ,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Search everything indexed (full text + vectors): turns, memories, events, facts,
    entities and sessions, best first, each with the pointer to open it."""
    kinds = list(dict.fromkeys(kind or []))
    unknown = [k for k in kinds if k not in DOC_KINDS]
    if unknown:
        raise InvalidInput(
            f"--kind: unknown kind {unknown[0]!r}; choose from {', '.join(DOC_KINDS)}"
        )
    with open_reader(home, account, space) as mem, one_line_warnings():
        embed_pending(mem, "Embedding pending documents", embed)
        with one_thread(mem.embedder):
            found = mem.search(query, limit=limit, scope=scope, kinds=kinds or None)
        hits = [h.to_dict() for h in found]
        warn_pending_vectors(mem)
    if as_json:
        emit_json(hits)
        return
    rows = [
        (
            h["id"],
            h["kind"],
            f"{h['score']:.4f}",
            _pointer(h["session_id"], h["commit"]),
            textwrap.shorten(h["text"], _TABLE_TEXT, placeholder=" …"),
        )
        for h in hits
    ]
    stdout_console().print(
        table(
            f"{len(hits)} hit(s) for {query!r}",
            ("ID", "Kind", "Score", "Pointer", "Text"),
            rows,
            no_wrap=UNWRAPPED,
        )
    )


def open_session(
    session_id: Annotated[
        str,
        typer.Argument(
            metavar="SESSION_ID",
            help="The session to open (from a pointer 'session:<id>@<commit>').",
        ),
    ],
    around: Annotated[
        str | None,
        typer.Option(
            "--around",
            metavar="NODE",
            help="Show only the messages around this node id (see --radius).",
        ),
    ] = None,
    radius: Annotated[
        int,
        typer.Option(
            "--radius", metavar="N", help="With --around: how many messages on each side (0-200)."
        ),
    ] = 5,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Open a session: its messages in order, or the neighbourhood of one node (--around)."""
    with open_reader(home, account, space) as mem:
        nodes = mem.open_session(session_id, around=around, radius=radius)
    if as_json:
        emit_json([n.to_dict() for n in nodes])
        return
    rows = []
    for n in nodes:
        role = f"{n.role} ({n.name})" if n.name else n.role
        mark = "▶" if n.id == around else ""
        rows.append((mark, n.id, role, fmt_time(n.event_time), n.text))
    what = f"around {around} (±{radius})" if around else "all messages"
    stdout_console().print(
        table(
            f"Session {session_id}: {what}, {len(nodes)} node(s)",
            ("", "Node", "Role", "Time", "Message"),
            rows,
            no_wrap=("Node", "Time"),
        )
    )


def git_log(
    project: Annotated[
        str | None,
        typer.Option(
            "--project",
            metavar="P",
            help="A project id: the commits the agent made in its repository.",
        ),
    ] = None,
    session: Annotated[
        str | None,
        typer.Option(
            "--session", metavar="S", help="A session id: its turn commits (one per turn)."
        ),
    ] = None,
    limit: Annotated[
        int, typer.Option("--limit", metavar="N", help="Show at most N commits (1-1000).")
    ] = 20,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show the git log behind a pointer: a project's agent commits or a session's turns,
    newest first."""
    if not 1 <= limit <= 1000:
        raise InvalidInput(f"--limit must be between 1 and 1000, not {limit}")
    if (project is None) == (session is None):
        raise InvalidInput("give exactly one of --project P or --session S")
    with open_reader(home, account, space) as mem:
        commits = mem.git_log(project, session_id=session, limit=limit)
    what = f"Session {session}" if session else f"Project {project}"
    # a session's commits name the DAG nodes of their turn; a project's, the agent that made them
    show_records(
        as_json,
        commits,
        f"{what}: {len(commits)} commit(s)",
        ("Commit", "Time", "Nodes" if session else "Author", "Message"),
        lambda c: (
            c.sha[:10],
            fmt_time(c.time),
            ", ".join(c.node_ids) if session else c.author,
            c.message,
        ),
        no_wrap=("Commit", "Time"),
    )
