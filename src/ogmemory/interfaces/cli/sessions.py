"""``ogmem sessions``: list, show, log, rename and delete the recorded conversations."""

from __future__ import annotations

from typing import Annotated

import typer

from ...tenancy import validate_id
from .common import (
    AccountOption,
    HomeOption,
    JsonOption,
    SpaceOption,
    emit_json,
    fmt_time,
    last_active,
    open_memory,
    show_records,
    stdout_console,
    table,
)

__all__ = ["sessions_app"]

sessions_app = typer.Typer(
    name="sessions",
    help="List, inspect, rename and delete recorded sessions (one git repository each).",
    no_args_is_help=True,
)

SessionId = Annotated[
    str,
    typer.Argument(metavar="SESSION_ID", help="The session id, as shown by 'ogmem sessions list'."),
]


@sessions_app.command("list")
def list_sessions(
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """List every session of the tenant, most recently active first (imported history by
    when it happened)."""
    with open_memory(home, account, space, read=True) as mem:
        sessions = mem.list_sessions()
    show_records(
        as_json,
        sessions,
        f"{len(sessions)} session(s)",
        ("ID", "Title", "Project", "Turns", "Last active"),
        lambda s: (
            s.session_id,
            s.display_title,
            s.project_id,
            s.turns,
            last_active(s),
        ),
    )


@sessions_app.command("show")
def show_session(
    session_id: SessionId,
    head: Annotated[
        str | None,
        typer.Option(
            "--head",
            metavar="NODE",
            help="Show the branch ending at this node id instead of the current head.",
        ),
    ] = None,
    all_nodes: Annotated[
        bool,
        typer.Option(
            "--all-nodes",
            help="Show every node of every branch, tool calls included, in write "
            "order (ignores --head).",
        ),
    ] = False,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show a session's messages: the current branch from its root to the head, with node ids."""
    with open_memory(home, account, space, read=True) as mem:
        nodes = mem.get_nodes(session_id) if all_nodes else mem.get_branch_nodes(session_id, head)
    if as_json:
        emit_json([n.to_dict() for n in nodes])
        return
    what = "all nodes" if all_nodes else f"branch to {head or 'head'}"
    columns = (
        ("Node", "Parent", "Role", "Time", "Message")
        if all_nodes
        else ("Node", "Role", "Time", "Message")
    )
    rows = []
    for n in nodes:
        role = f"{n.role} ({n.name})" if n.name else n.role
        cells = [n.id, n.parent_id or "-", role] if all_nodes else [n.id, role]
        rows.append((*cells, fmt_time(n.event_time), n.text))
    stdout_console().print(
        table(f"Session {session_id}: {what}, {len(nodes)} node(s)", columns, rows)
    )


@sessions_app.command("log")
def session_log(
    session_id: SessionId,
    branch: Annotated[
        str | None, typer.Option("--branch", help="Branch to walk (default: the checked-out one).")
    ] = None,
    limit: Annotated[
        int | None, typer.Option("--limit", metavar="N", min=1, help="Show at most N commits.")
    ] = None,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show a session's git log: one commit per turn, newest first."""
    with open_memory(home, account, space, read=True) as mem:
        commits = mem.session_commits(session_id, branch, limit)
    show_records(
        as_json,
        commits,
        f"Session {session_id}: {len(commits)} commit(s)",
        ("Commit", "Time", "Nodes", "Message"),
        lambda c: (c.sha[:10], fmt_time(c.time), len(c.node_ids), c.message),
    )


@sessions_app.command("rename")
def rename_session(
    session_id: SessionId,
    title: Annotated[
        str,
        typer.Argument(
            metavar="TITLE",
            help="The new title; a manual title is never overwritten by automatic titles.",
        ),
    ],
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Give a session a title of your own."""
    with open_memory(home, account, space) as mem:
        info = mem.rename_session(session_id, title)
    if as_json:
        emit_json(info.to_dict())
        return
    typer.echo(f"Renamed {info.session_id}: {info.title}")


@sessions_app.command("delete")
def delete_session(
    session_id: SessionId,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
) -> None:
    """Delete a session and its git history (memories derived from it keep dangling pointers)."""
    validate_id(session_id, "session id")  # refuse a bad id before asking anything
    if not yes:
        typer.confirm(f"Delete session {session_id} and its git history?", abort=True)
    with open_memory(home, account, space) as mem:
        mem.delete_session(session_id)
    typer.echo(f"Deleted session {session_id}")
