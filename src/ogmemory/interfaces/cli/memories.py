"""``ogmem memories``: the memory list the user sees and controls (seed 003).

Every entry keeps its history: an edit is a new version, disabling hides the entry and what was
derived only from it (graph facts, timeline events, core.md lines) from every read, and delete
is a ``deleted`` version. The evidence snapshots frozen when an entry was created never change.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Annotated

import typer
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ...knowledge.models import Evidence, MemoryItem
from ...tenancy import validate_id
from .common import (
    AccountOption,
    HomeOption,
    JsonOption,
    ScopeOption,
    SpaceOption,
    emit_json,
    fmt_day,
    fmt_pointer,
    fmt_time,
    open_memory,
    stdout_console,
    table,
)
from .tables import Listing

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


def _state(mem: MemoryItem, outdated: Collection[str] = ()) -> str:
    """``on``, ``off`` or ``deleted``; ``outdated`` when it is on but every fact derived from
    it has ended (``outdated`` holds the ids of such memories)."""
    if mem.deleted:
        return "deleted"
    if not mem.enabled:
        return "off"
    return "outdated" if mem.id in outdated else "on"


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
    session: Annotated[
        str | None,
        typer.Option("--session", metavar="ID", help="Only memories said in this session."),
    ] = None,
    entity: Annotated[
        str | None,
        typer.Option(
            "--entity",
            metavar="NAME",
            help="Only memories about this entity (a name, alias or id, as 'ogmem graph "
            "entities' shows): those its facts and events rest on.",
        ),
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
    """List the memories, oldest first, one line each: id, when it was said, the session, the
    type and the text (cut to the width; 'ogmem memories show ID' has all of it)."""
    if session is not None:
        validate_id(session, "session id")
    with open_memory(home, account, space, read=True) as mem:
        if type_ is not None:
            mem.schema.get(type_)  # an unknown type is a typo, not an empty list
        items = mem.memories(
            include_disabled=not enabled_only,
            type=type_,
            scope=scope,
            session=session,
            entity=entity,
        )
        evidence = mem.evidence_by_memory(items)
        outdated = mem.outdated_memories(items)
    if as_json:
        emit_json([m.to_dict() for m in items])
        return
    console = stdout_console()
    console.print(_listing(items, evidence, outdated, console.width, session))


def _said(mem: MemoryItem, evidence: list[Evidence], session: str | None = None) -> tuple[str, str]:
    """(the day, the session) a memory was said in: its first evidence's (the first in
    ``session`` when the listing is of one), with ``(+N)`` when its evidence is in N more
    sessions; else the day it was typed in and '(you)'.

    >>> from ogmemory.entity.records import Provenance
    >>> ev = [Evidence(f"ev{i}", "m", "q", Provenance("default", s, ("n",), "c", t, t), t)
    ...       for i, (s, t) in enumerate([("s1", 0.0), ("s2", 86400.0)])]
    >>> _said(MemoryItem("m", "text", "note", created_at=0.0, updated_at=0.0), ev, "s2")
    ('1970-01-02', 's2 (+1)')
    """
    provs = [e.provenance for e in evidence if e.provenance is not None and e.provenance.session_id]
    if not provs:
        return fmt_day(mem.created_at), "(you)" if mem.source == "user" else "-"
    prov = next((p for p in provs if p.session_id == session), provs[0])
    more = len({p.session_id for p in provs} - {prov.session_id})
    return fmt_day(prov.event_time or mem.created_at), prov.session_id + (
        f" (+{more})" if more else ""
    )


#: Narrower than this, a listing gives each memory two lines (its fields, then its text).
WIDE = 100


def _listing(
    items: list[MemoryItem],
    evidence: dict[str, list[Evidence]],
    outdated: Collection[str],
    width: int,
    session: str | None = None,
) -> RenderableType:
    """Every memory on one line of the terminal (the text cut with an ellipsis, the other
    columns whole); below ``WIDE`` columns on two, the text on the second, so it keeps the
    width. The type says when a memory is off or outdated. A scope column only when some
    memory is not global."""
    scoped = any(m.scope != "global" for m in items)
    rows = []
    for m in items:
        day, where = _said(m, evidence.get(m.id, []), session)
        state = _state(m, outdated)
        kind = m.type if state == "on" else f"{m.type} ({state})"
        rows.append([m.id, day, where, kind, *((m.scope,) if scoped else ())])
    title = f"{len(items)} memory(ies), oldest first; all of one: ogmem memories show ID"
    texts = [" ".join(m.text.split()) for m in items]
    names = ("ID", "Date", "Session", "Type", *(("Scope",) if scoped else ()))
    if width < WIDE:
        cells = [[*row, text] for row, text in zip(rows, texts, strict=True)]
        return Group(*Listing(title, (*names, "Text"), cells, cut=True).stacked(width))
    out = Table(
        title=Text(title),
        title_justify="left",
        box=None,
        pad_edge=False,
        expand=True,
        header_style="bold",
    )
    for i, name in enumerate(names):
        out.add_column(name, no_wrap=True, width=max([len(name), *(len(r[i]) for r in rows)]))
    out.add_column("Text", no_wrap=True, overflow="ellipsis", ratio=1)
    for row, text in zip(rows, texts, strict=True):
        out.add_row(*(Text(cell) for cell in [*row, text]))
    return out


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
        later = mem.outdated_memories([item]).get(item.id)
        successors = [m for m in mem.memories() if m.id in (later or ())]
    if as_json:
        emit_json({"memory": item.to_dict(), "evidence": [e.to_dict() for e in evidence]})
        return
    console = stdout_console()
    fields: list[tuple[str, object]] = [
        ("ID", item.id),
        ("Text", item.text),
        ("Type", item.type),
        ("Scope", item.scope),
        ("State", "on, outdated" if later is not None and item.enabled else _state(item)),
        *_superseded(later, successors),
        ("Version", item.version),
        ("Source", item.source),
        ("Created", fmt_time(item.created_at)),
        ("Updated", fmt_time(item.updated_at)),
    ]
    console.print(table(f"Memory {item.id}", ("Field", "Value"), fields))
    typer.echo(f"{len(evidence)} evidence snapshot(s)")
    for ev in evidence:
        console.print(table(f"Evidence {ev.id}", ("Field", "Value"), _evidence_fields(ev)))


def _superseded(later: list[str] | None, successors: list[MemoryItem]) -> list[tuple[str, str]]:
    """The rows saying why a memory is outdated: what superseded its facts, or that they
    ended."""
    if later is None:
        return []
    if not successors:
        return [("Outdated", "every fact derived from it has ended")]
    return [("Superseded by", "\n".join(f"{m.id}: {m.text}" for m in successors))]


def _evidence_fields(ev: Evidence) -> list[tuple[str, object]]:
    """One snapshot as field/value rows: the quote gets the width (a column of a wide table
    was three characters at 80 columns)."""
    prov = ev.provenance
    rows: list[tuple[str, object]] = [("Captured", fmt_time(ev.created_at))]
    if prov is not None:
        rows += [
            ("Said", fmt_time(prov.event_time)),
            ("Session", prov.session_id or "-"),
            ("Pointer", fmt_pointer(prov)),
            ("Nodes", ", ".join(prov.node_ids) or "-"),
            ("Commit", prov.commit or "-"),
        ]
    return [*rows, ("Quote", ev.quote)]


@memories_app.command("add")
def add_memory(
    text: Annotated[str, typer.Argument(metavar="TEXT", help="What to remember, in any language.")],
    type_: Annotated[
        str | None,
        typer.Option(
            "--type",
            metavar="TYPE",
            help="Memory type (declared in the YAML schemas); by default the type "
            "distillation gives the text, else 'note'.",
        ),
    ] = None,
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
