"""``ogmem graph``: the knowledge graph — entities, relations with their validity, neighbours.

Relations are bi-temporal: each is valid from ``valid_from`` until ``valid_to`` (open while it
still holds); a contradiction ends the old relation instead of deleting it, so ``--history`` and
``--at DATE`` show what was true before.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

import typer

from ...errors import NotFound
from ...knowledge.models import Edge, Entity
from ...memory import Memory
from .common import (
    UNWRAPPED,
    AccountOption,
    HomeOption,
    JsonOption,
    ScopeOption,
    SpaceOption,
    emit_json,
    fmt_day,
    fmt_pointer,
    open_memory,
    parse_when,
    show_records,
    stdout_console,
    table,
)

__all__ = ["graph_app"]

graph_app = typer.Typer(
    name="graph",
    help="Explore the knowledge graph: entities, relations (with validity) and neighbours.",
    no_args_is_help=True,
)

EntityName = Annotated[
    str,
    typer.Argument(metavar="NAME", help="An entity's name, alias or id (e.g. tool.python)."),
]
AtOption = Annotated[
    str | None,
    typer.Option(
        "--at",
        metavar="DATE",
        help="Relations valid at this moment instead of now: YYYY-MM-DD (its midnight) or an "
        "ISO datetime, UTC unless it carries an offset.",
    ),
]

FACT_COLUMNS = ("Relation", "Valid", "Fact", "Pointer")


class _Names:
    """Entity ids → display names, looked up once each (ids that no longer resolve stay ids)."""

    def __init__(self, mem: Memory) -> None:
        self.mem = mem
        self.cache: dict[str, str] = {}

    def __call__(self, entity_id: str) -> str:
        if entity_id not in self.cache:
            try:
                self.cache[entity_id] = self.mem.entity(entity_id).name
            except NotFound:
                self.cache[entity_id] = entity_id
        return self.cache[entity_id]

    def load(self, edges: Sequence[Edge]) -> _Names:
        for edge in edges:
            self(edge.src)
            self(edge.dst)
        return self


def _validity(edge: Edge) -> str:
    end = fmt_day(edge.valid_to) if edge.valid_to is not None else "now"
    if edge.superseded_by and edge.valid_to is None:
        end = "superseded"
    return f"{fmt_day(edge.valid_from)} .. {end}"


def _fact_rows(edges: Sequence[Edge], names: _Names) -> list[tuple[object, ...]]:
    return [
        (
            f"{names(e.src)} → {e.relation} → {names(e.dst)}",
            _validity(e),
            e.fact,
            fmt_pointer(e.provenance),
        )
        for e in edges
    ]


def _entity_row(ent: Entity) -> tuple[object, ...]:
    return (ent.id, ent.type, ent.name, ", ".join(ent.aliases) or "-", ent.scope)


@graph_app.command("entities")
def list_entities(
    type_: Annotated[
        str | None,
        typer.Option(
            "--type",
            metavar="TYPE",
            help="Only entities of this type (person, tool, project, preference, ...).",
        ),
    ] = None,
    scope: ScopeOption = None,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """List the entities that something enabled still supports."""
    with open_memory(home, account, space, read=True) as mem:
        entities = mem.entities(type=type_, scope=scope)
    show_records(
        as_json,
        entities,
        f"{len(entities)} entity(ies)",
        ("ID", "Type", "Name", "Aliases", "Scope"),
        _entity_row,
        no_wrap=UNWRAPPED,
    )


@graph_app.command("show")
def show_entity(
    name: EntityName,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show an entity: its aliases, the relations that hold now, their history and its events."""
    with open_memory(home, account, space, read=True) as mem:
        entity = mem.entity(name)
        every = mem.facts(entity=entity.id, include_history=True)
        events = mem.timeline(entity=entity.id)
        names = _Names(mem).load(every)
    current = [e for e in every if e.current]
    history = [e for e in every if not e.current]
    if as_json:
        emit_json(
            {
                "entity": entity.to_dict(),
                "facts": [e.to_dict() for e in current],
                "history": [e.to_dict() for e in history],
                "timeline": [e.to_dict() for e in events],
            }
        )
        return
    console = stdout_console()
    fields: list[tuple[object, ...]] = [
        ("ID", entity.id),
        ("Name", entity.name),
        ("Type", entity.type),
        ("Aliases", ", ".join(entity.aliases) or "-"),
        ("Scope", entity.scope),
        *((key, value) for key, value in sorted(entity.attrs.items())),
    ]
    console.print(table(f"Entity {entity.id}", ("Field", "Value"), fields))
    console.print(
        table(
            f"Now: {len(current)} fact(s)",
            FACT_COLUMNS,
            _fact_rows(current, names),
            no_wrap=UNWRAPPED,
        )
    )
    console.print(
        table(
            f"History: {len(history)} ended fact(s)",
            FACT_COLUMNS,
            _fact_rows(history, names),
            no_wrap=UNWRAPPED,
        )
    )
    console.print(
        table(
            f"Timeline: {len(events)} event(s)",
            ("Date", "Kind", "Summary", "Pointer"),
            [(fmt_day(e.event_time), e.kind, e.summary, fmt_pointer(e.provenance)) for e in events],
            no_wrap=UNWRAPPED,
        )
    )


@graph_app.command("neighbors")
def neighbors(
    name: EntityName,
    hops: Annotated[
        int, typer.Option("--hops", metavar="N", help="How many relations away to go (1-5).")
    ] = 1,
    at: AtOption = None,
    scope: ScopeOption = None,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show the entities within --hops relations of an entity, and those relations."""
    when = parse_when(at, "--at")
    with open_memory(home, account, space, read=True) as mem:
        start = mem.entity(name)
        entities, edges = mem.graph_neighbors(start.id, hops, scope=scope, at=when)
        names = _Names(mem).load(edges)
    if as_json:
        payload: dict[str, Any] = {
            "entity": start.id,
            "hops": hops,
            "at": when,
            "entities": [e.to_dict() for e in entities],
            "facts": [e.to_dict() for e in edges],
        }
        emit_json(payload)
        return
    console = stdout_console()
    console.print(
        table(
            f"{start.name}: {len(entities) - 1} neighbour(s) within {hops} hop(s)",
            ("ID", "Type", "Name", "Aliases", "Scope"),
            [_entity_row(e) for e in entities if e.id != start.id],
            no_wrap=UNWRAPPED,
        )
    )
    console.print(
        table(
            f"{len(edges)} relation(s)", FACT_COLUMNS, _fact_rows(edges, names), no_wrap=UNWRAPPED
        )
    )


@graph_app.command("facts")
def facts(
    entity: Annotated[
        str | None,
        typer.Option("--entity", metavar="NAME", help="Only relations from or to this entity."),
    ] = None,
    at: AtOption = None,
    history: Annotated[
        bool,
        typer.Option("--history", help="Every version: ended and superseded relations too."),
    ] = False,
    relation: Annotated[
        str | None,
        typer.Option("--relation", metavar="R", help="Only this relation (e.g. prefers, uses)."),
    ] = None,
    scope: ScopeOption = None,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """List relations: from → relation → to, when each held, the fact and its evidence pointer.

    By default the relations valid now; --at shows another moment, --history every version."""
    when = parse_when(at, "--at")
    with open_memory(home, account, space, read=True) as mem:
        edges = mem.facts(
            entity=entity, at=when, include_history=history, relation=relation, scope=scope
        )
        names = _Names(mem).load(edges)
    if as_json:
        emit_json([e.to_dict() for e in edges])
        return
    what = (
        "every version"
        if history and when is None
        else (f"valid at {at}" if when is not None else "valid now")
    )
    stdout_console().print(
        table(
            f"{len(edges)} fact(s), {what}",
            FACT_COLUMNS,
            _fact_rows(edges, names),
            no_wrap=UNWRAPPED,
        )
    )
