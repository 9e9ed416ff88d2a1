"""``ogmem batches`` and ``ogmem rollback``: the operation log, and undoing one batch of it.

Every change to the knowledge (a distillation batch, a memory edit, a rollback) is one atomic
batch that records the before and after of each record, so any batch can be undone by appending
its before-states; nothing is erased from the history.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from ...storage.folded import BatchInfo, Op
from .common import (
    UNWRAPPED,
    AccountOption,
    HomeOption,
    JsonOption,
    SpaceOption,
    emit_json,
    fmt_time,
    open_memory,
    show_records,
    stdout_console,
    table,
)

__all__ = ["batches_app", "rollback"]

batches_app = typer.Typer(
    name="batches",
    help="The operation log: every batch of changes to the knowledge, each undoable. "
    "'ogmem batches' alone lists them.",
    invoke_without_command=True,
)

BatchId = Annotated[
    str, typer.Argument(metavar="BATCH_ID", help="The batch id, as shown by 'ogmem batches'.")
]

#: What identifies a record in a before/after summary, by record kind.
_LABEL_KEYS = ("text", "fact", "summary", "name", "quote")


def _by_kind(info: BatchInfo) -> str:
    counts = info.to_dict()["by_kind"]
    return ", ".join(f"{kind} {n}" for kind, n in sorted(counts.items())) or "-"


def _list(home: Any, account: Any, space: Any, as_json: bool) -> None:
    with open_memory(home, account, space, read=True) as mem:
        infos = mem.batches()
    show_records(
        as_json,
        infos,
        f"{len(infos)} batch(es), oldest first",
        ("ID", "Time", "Reason", "Ops", "By kind", "Rolled back by"),
        lambda b: (
            b.id,
            fmt_time(b.time),
            b.reason,
            len(b.ops),
            _by_kind(b),
            b.rolled_back_by or "-",
        ),
        no_wrap=UNWRAPPED,
    )


def _given(ctx: typer.Context, name: str, value: Any) -> Any:
    """``value``, unless the option was only given before the subcommand
    (``ogmem batches --home H show ID``): then the group's value."""
    parent = ctx.parent
    if parent is not None and _on_command_line(parent, name) and not _on_command_line(ctx, name):
        return parent.params[name]
    return value


def _on_command_line(ctx: Any, name: str) -> bool:
    # By name: typer may ship its own copy of click's ParameterSource enum.
    return getattr(ctx.get_parameter_source(name), "name", None) == "COMMANDLINE"


@batches_app.callback()
def _batches(
    ctx: typer.Context,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Without a subcommand, list the batches (as 'ogmem batches list')."""
    if ctx.invoked_subcommand is None:
        _list(home, account, space, as_json)


@batches_app.command("list")
def list_batches(
    ctx: typer.Context,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """List every committed batch, oldest first, with what it changed and what undid it."""
    _list(
        _given(ctx, "home", home),
        _given(ctx, "account", account),
        _given(ctx, "space", space),
        _given(ctx, "as_json", as_json),
    )


def _label(record: dict[str, Any] | None) -> str:
    if record is None:
        return "∅"
    if record.get("_deleted"):
        return "(removed)"
    for key in _LABEL_KEYS:
        if isinstance(record.get(key), str) and record[key]:
            text = " ".join(record[key].split())
            text = text if len(text) <= 60 else text[:59] + "…"
            flags = []
            if "version" in record:
                flags.append(f"v{record['version']}")
            if record.get("enabled") is False:
                flags.append("off")
            if record.get("deleted"):
                flags.append("deleted")
            if record.get("valid_to") is not None:
                flags.append("ended")
            if record.get("superseded_by"):
                flags.append("superseded")
            return f"{text} [{', '.join(flags)}]" if flags else text
    return "(record)"


def _change(op: Op) -> str:
    return f"{_label(op.before)} → {_label(op.after)}"


@batches_app.command("show")
def show_batch(
    ctx: typer.Context,
    batch_id: BatchId,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show a batch's operations: the kind and id of each record and its before → after."""
    home, account = _given(ctx, "home", home), _given(ctx, "account", account)
    space, as_json = _given(ctx, "space", space), _given(ctx, "as_json", as_json)
    with open_memory(home, account, space, read=True) as mem:
        info = mem.batch(batch_id)
    if as_json:
        emit_json({**info.to_dict(), "operations": [op.__dict__ for op in info.ops]})
        return
    console = stdout_console()
    summary = [
        ("ID", info.id),
        ("Time", fmt_time(info.time)),
        ("Reason", info.reason),
        ("Operations", f"{len(info.ops)} ({_by_kind(info)})"),
        ("Rolled back by", info.rolled_back_by or "-"),
        *(
            (key, value)
            for key, value in sorted(info.to_dict().items())
            if key not in ("id", "time", "reason", "ops", "by_kind", "rolled_back_by")
        ),
    ]
    console.print(table(f"Batch {info.id}", ("Field", "Value"), summary))
    console.print(
        table(
            f"{len(info.ops)} operation(s)",
            ("Kind", "ID", "Before → after"),
            [(op.kind, op.id, _change(op)) for op in info.ops],
            no_wrap=UNWRAPPED,
        )
    )


def rollback(
    batch_id: BatchId,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Roll back even if later batches changed the same records (their changes to "
            "those records are lost).",
        ),
    ] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Undo one batch atomically by restoring what it changed (the history keeps both)."""
    with open_memory(home, account, space) as mem:
        info = mem.batch(batch_id)  # a missing id fails before anything is asked
        if not yes:
            typer.confirm(
                f"Roll back batch {info.id} ({info.reason}, {len(info.ops)} operation(s))?",
                abort=True,
                err=True,
            )
        undo = mem.rollback(batch_id, force=force)
    if as_json:
        emit_json(undo.to_dict())
        return
    typer.echo(
        f"Rolled back {batch_id} ({info.reason}): batch {undo.id} restored "
        f"{len(undo.ops)} record(s)"
    )
    returned = undo.meta.get("returned") or {}
    if returned:
        typer.echo(
            f"{sum(returned.values())} node(s) of {len(returned)} session(s) are pending "
            "again; `ogmem distill` distills them again"
        )
