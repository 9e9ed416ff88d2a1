"""``ogmem memories``: the memory list the user sees and controls (seed 003).

Every entry keeps its history: an edit is a new version, disabling hides the entry and what was
derived only from it (graph facts, timeline events, core.md lines) from every read, and delete
is a ``deleted`` version. The evidence snapshots frozen when an entry was created never change.
"""

from __future__ import annotations

from typing import Annotated

import typer

from ...knowledge.models import Evidence, MemoryItem
from .common import (
    UNWRAPPED,
    AccountOption,
    HomeOption,
    JsonOption,
    ScopeOption,
    SpaceOption,
    emit_json,
    fmt_pointer,
    fmt_time,
    open_memory,
    show_records,
    stdout_console,
    table,
)

__all__ = ["memories_app"]

memories_app = typer.Typer(
    name="memories",
    help="List, inspect, add, edit, enable, disable and delete remembered items.",
    no_args_is_help=True,
)

MemoryId = Annotated[
    str,
    typer.Argument(metavar="MEMORY_ID", help="The memory id, as shown by 'ogmem memories list'."),
]


def _state(mem: MemoryItem) -> str:
    return "deleted" if mem.deleted else ("on" if mem.enabled else "off")


def _report(verb: str, mem: MemoryItem, as_json: bool) -> None:
    if as_json:
        emit_json(mem.to_dict())
        return
    typer.echo(f"{verb} {mem.id} (v{mem.version}, {mem.type}, {_state(mem)}): {mem.text}")


@memories_app.command("list")
def list_memories(
    type_: Annotated[
        str | None,
        typer.Option("--type", metavar="TYPE", help="Only memories of this type (e.g. profile)."),
    ] = None,
    enabled_only: Annotated[
        bool, typer.Option("--enabled-only", help="Leave out disabled memories.")
    ] = False,
    scope: ScopeOption = None,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """List the memories, oldest first (disabled ones included unless --enabled-only)."""
    with open_memory(home, account, space, read=True) as mem:
        if type_ is not None:
            mem.schema.get(type_)  # an unknown type is a typo, not an empty list
        items = mem.memories(include_disabled=not enabled_only, type=type_, scope=scope)
    show_records(
        as_json,
        items,
        f"{len(items)} memory(ies)",
        ("ID", "Type", "Scope", "State", "Source", "Text"),
        lambda m: (m.id, m.type, m.scope, f"{_state(m)} v{m.version}", m.source, m.text),
        no_wrap=UNWRAPPED,
    )


@memories_app.command("show")
def show_memory(
    memory_id: MemoryId,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show a memory and its evidence: the quote, the session, DAG node ids and commit."""
    with open_memory(home, account, space, read=True) as mem:
        item = mem.get_memory(memory_id)
        evidence = mem.evidence(memory_id)
    if as_json:
        emit_json({"memory": item.to_dict(), "evidence": [e.to_dict() for e in evidence]})
        return
    console = stdout_console()
    fields = [
        ("ID", item.id),
        ("Text", item.text),
        ("Type", item.type),
        ("Scope", item.scope),
        ("State", _state(item)),
        ("Version", item.version),
        ("Source", item.source),
        ("Created", fmt_time(item.created_at)),
        ("Updated", fmt_time(item.updated_at)),
    ]
    console.print(table(f"Memory {item.id}", ("Field", "Value"), fields))
    console.print(
        table(
            f"{len(evidence)} evidence snapshot(s)",
            ("Evidence", "Captured", "Session", "Nodes", "Commit", "Pointer", "Quote"),
            [_evidence_row(e) for e in evidence],
            no_wrap=UNWRAPPED,
        )
    )


def _evidence_row(ev: Evidence) -> tuple[object, ...]:
    prov = ev.provenance
    if prov is None:
        return (ev.id, fmt_time(ev.created_at), "-", "-", "-", "-", ev.quote)
    return (
        ev.id,
        fmt_time(ev.created_at),
        prov.session_id or "-",
        ", ".join(prov.node_ids) or "-",
        prov.commit or "-",
        fmt_pointer(prov),
        ev.quote,
    )


@memories_app.command("add")
def add_memory(
    text: Annotated[str, typer.Argument(metavar="TEXT", help="What to remember, in any language.")],
    type_: Annotated[
        str,
        typer.Option("--type", metavar="TYPE", help="Memory type (declared in the YAML schemas)."),
    ] = "profile",
    scope: Annotated[
        str,
        typer.Option(
            "--scope",
            metavar="SCOPE",
            help="Where it applies: 'global', 'project:<id>' or 'agent:<id>'.",
        ),
    ] = "global",
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Remember something by hand; its graph facts are derived at once."""
    with open_memory(home, account, space) as mem:
        item = mem.remember(text, type=type_, scope=scope)
    _report("Added", item, as_json)


@memories_app.command("edit")
def edit_memory(
    memory_id: MemoryId,
    text: Annotated[str, typer.Argument(metavar="TEXT", help="The new text of the memory.")],
    expect_version: Annotated[
        int | None,
        typer.Option(
            "--expect-version",
            metavar="N",
            help="Refuse (exit 1) unless the memory is still at version N, so a concurrent "
            "edit is never overwritten.",
        ),
    ] = None,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Change a memory's text (a new version; the old one stays in the history)."""
    with open_memory(home, account, space) as mem:
        item = mem.edit_memory(memory_id, text, expected_version=expect_version)
    _report("Edited", item, as_json)


@memories_app.command("enable")
def enable_memory(
    memory_id: MemoryId,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Enable a memory again: what was derived from it comes back."""
    with open_memory(home, account, space) as mem:
        item = mem.enable_memory(memory_id)
    _report("Enabled", item, as_json)


@memories_app.command("disable")
def disable_memory(
    memory_id: MemoryId,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Disable a memory: it and whatever was derived only from it leave every read."""
    with open_memory(home, account, space) as mem:
        item = mem.disable_memory(memory_id)
    _report("Disabled", item, as_json)


@memories_app.command("delete")
def delete_memory(
    memory_id: MemoryId,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Delete a memory from the list (its history and evidence stay in the logs)."""
    with open_memory(home, account, space) as mem:
        item = mem.get_memory(memory_id)  # a missing id fails before anything is asked
        if not yes:
            typer.confirm(f"Delete memory {item.id} ({item.text!r})?", abort=True, err=True)
        deleted = mem.forget(memory_id)
    _report("Deleted", deleted, as_json)
