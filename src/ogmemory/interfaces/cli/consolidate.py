"""``ogmem core``, ``ogmem sleep`` and ``ogmem distill``: turn recorded sessions into knowledge
and read the ≤ 2 KB snapshot (core.md) that agents get in every prompt."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from ...distill.pipeline import DistillReport
from ...memory import Memory
from .common import (
    AccountOption,
    HomeOption,
    JsonOption,
    SpaceOption,
    emit_json,
    open_memory,
    stderr_console,
)

__all__ = ["core", "distill", "sleep"]


_CoreScope = Annotated[
    str | None,
    typer.Option(
        "--scope",
        metavar="SCOPE",
        show_default=False,
        help="Render core.md for this scope: 'project:<id>' (global + that project's stack, "
        "rules and deadlines) or 'agent:<id>'. \\[default: global, the core.md file]",
    ),
]


def core(
    scope: _CoreScope = None,
    regenerate: Annotated[
        bool,
        typer.Option(
            "--regenerate", help="Render core.md (and the entity views) from the logs now."
        ),
    ] = False,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: Annotated[
        bool, typer.Option("--json", help='Print {"core": "<the text>"} as JSON instead.')
    ] = False,
) -> None:
    """Print core.md: the ≤ 2 KB snapshot of what matters now, every line with a ↪ pointer."""
    with open_memory(home, account, space, read=True) as mem:
        text = mem.core(scope=scope, regenerate=regenerate)
    if as_json:
        emit_json({"core": text})
        return
    typer.echo(text, nl=not text.endswith("\n"))


def _run(mem: Memory, what: str, call: Any) -> tuple[DistillReport, int]:
    with stderr_console().status(what):
        report = call()
    return report, mem.pending_nodes()


def _summary(title: str, report: DistillReport, pending: int) -> str:
    line = (
        f"{title}: {len(report.batches)} batch(es), {report.nodes} node(s) and "
        f"{report.project_commits} project commit(s) read, {report.candidates} candidate(s)"
    )
    stats = ", ".join(f"{k} {v}" for k, v in sorted(report.stats.items()) if v)
    if stats:
        line += f"; {stats}"
    line += f"; {pending} node(s) still pending."
    return line


def _emit(
    title: str, extra: dict[str, Any], report: DistillReport, pending: int, as_json: bool
) -> None:
    if as_json:
        emit_json({**extra, **report.to_dict(), "pending": pending})
        return
    typer.echo(_summary(title, report, pending))
    for batch_id in report.batches:
        typer.echo(f"  batch {batch_id}")


def sleep(
    mode: Annotated[
        str,
        typer.Argument(
            metavar="light|deep",
            help="light: distill every pending turn; deep: light, then regenerate every entity "
            "view and core.md.",
        ),
    ],
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Consolidate now, as the nightly sleep does, and summarise what was distilled."""
    with open_memory(home, account, space) as mem:
        report, pending = _run(mem, f"{mode.capitalize()} sleep…", lambda: mem.sleep(mode))
    title = f"{mode.capitalize()} sleep" + (
        " (views and core.md regenerated)" if mode == "deep" else ""
    )
    _emit(title, {"mode": mode}, report, pending, as_json)


def distill(
    sessions: Annotated[
        list[str] | None,
        typer.Option(
            "--session",
            metavar="ID",
            help="Only this session (repeat for several); default: every session.",
        ),
    ] = None,
    max_batches: Annotated[
        int | None,
        typer.Option(
            "--max-batches", metavar="N", min=1, help="Stop after N batches (resume later)."
        ),
    ] = None,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Distill turns not distilled yet into memories, graph facts and timeline events.

    Work goes in atomic batches and resumes where it stopped; every batch can be rolled back."""
    with open_memory(home, account, space) as mem:
        for session_id in sessions or ():
            mem.get_session(session_id)  # a typo must not look like "nothing to do"
        report, pending = _run(
            mem, "Distilling…", lambda: mem.distill(sessions or None, max_batches=max_batches)
        )
    _emit("Distilled", {"sessions": sessions or None}, report, pending, as_json)
