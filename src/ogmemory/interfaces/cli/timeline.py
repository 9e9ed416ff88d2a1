"""``ogmem timeline``: what happened, by when it happened, each event with its evidence pointer."""

from __future__ import annotations

from typing import Annotated

import typer

from ...entity.periods import time_label
from ...errors import InvalidInput
from ...knowledge.models import TIMELINE_KINDS
from .common import (
    UNWRAPPED,
    AccountOption,
    HomeOption,
    JsonOption,
    ScopeOption,
    SpaceOption,
    emit_json,
    fmt_pointer,
    open_memory,
    parse_when,
    stdout_console,
    table,
)

__all__ = ["timeline"]


def timeline(
    since: Annotated[
        str | None,
        typer.Option(
            "--since",
            metavar="DATE",
            help="Only events from this moment on: YYYY-MM-DD or an ISO datetime (UTC unless "
            "it carries an offset).",
        ),
    ] = None,
    until: Annotated[
        str | None,
        typer.Option(
            "--until",
            metavar="DATE",
            help="Only events before this moment; a date alone includes that whole day.",
        ),
    ] = None,
    entity: Annotated[
        str | None,
        typer.Option(
            "--entity", metavar="NAME", help="Only events about this entity (name, alias or id)."
        ),
    ] = None,
    kind: Annotated[
        str | None,
        typer.Option(
            "--kind", metavar="KIND", help=f"Only events of this kind: {', '.join(TIMELINE_KINDS)}."
        ),
    ] = None,
    scope: ScopeOption = None,
    all_versions: Annotated[
        bool,
        typer.Option("--all-versions", help="Include events superseded by a later version."),
    ] = False,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show the timeline, oldest first: date, kind, summary and where it was said."""
    start = parse_when(since, "--since")
    end = parse_when(until, "--until", end_of_day=True)
    if start is not None and end is not None and end <= start:
        raise InvalidInput(f"--until ({until}) must be later than --since ({since})")
    if kind is not None and kind not in TIMELINE_KINDS:
        raise InvalidInput(f"--kind must be one of {', '.join(TIMELINE_KINDS)}, not {kind!r}")
    with open_memory(home, account, space, read=True) as mem:
        events = mem.timeline(
            start, end, entity=entity, kind=kind, scope=scope, include_superseded=all_versions
        )
    if as_json:
        emit_json([e.to_dict() for e in events])
        return
    columns = ["Date", "Kind", "Summary", "Pointer"]
    if all_versions:
        columns.append("Superseded by")
    rows = []
    for ev in events:
        row: list[object] = [
            time_label(ev.event_time, ev.precision, ev.language),
            ev.kind,
            ev.summary,
            fmt_pointer(ev.provenance),
        ]
        if all_versions:
            row.append(ev.superseded_by or "-")
        rows.append(row)
    stdout_console().print(
        table(f"Timeline: {len(events)} event(s)", columns, rows, no_wrap=UNWRAPPED)
    )
