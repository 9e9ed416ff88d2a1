"""``ogmem bench knowledge``: what distillation keeps, against LoCoMo's gold observations and
scripted developer sessions, with LoCoMo recall in the same table."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ...config import Settings
from ...errors import InvalidInput
from ...evaluation.devsessions import print_sessions, run_sessions, script_paths
from ...evaluation.knowledge import print_knowledge, recall_summary, run_knowledge
from .common import notice, stdout_console

__all__ = ["bench_knowledge"]


def bench_knowledge(
    data: Annotated[
        Path | None,
        typer.Option(
            "--data",
            metavar="FILE",
            show_default=False,
            help="A LoCoMo-format JSON file whose samples carry 'observation' lists.",
        ),
    ] = None,
    sessions: Annotated[
        list[Path] | None,
        typer.Option(
            "--sessions",
            metavar="PATH",
            show_default=False,
            help="A scripted developer session (YAML) or a directory of them; "
            "repeat for several (e.g. a dev and a held-out set).",
        ),
    ] = None,
    samples: Annotated[
        int | None,
        typer.Option(
            "--samples",
            metavar="N",
            show_default=False,
            help="Only the first N LoCoMo conversations. \\[default: all]",
        ),
    ] = None,
    recall: Annotated[
        bool,
        typer.Option(
            "--recall/--no-recall",
            help="Also run the LoCoMo recall benchmark on the same file (a few "
            "minutes) and print its evidence recall in the same table.",
        ),
    ] = True,
    show: Annotated[
        bool,
        typer.Option("--show", help="Print each script's memory list and core.md."),
    ] = False,
    home: Annotated[
        Path | None,
        typer.Option(
            "--home",
            metavar="DIR",
            file_okay=False,
            show_default=False,
            help="Keep the LoCoMo tenants here (accounts 'knowledge' and 'locomo', "
            "one space per sample). \\[default: a temporary directory, deleted "
            "afterwards]",
        ),
    ] = None,
) -> None:
    """Score distillation: coverage, semantic coverage and grounded against LoCoMo's gold
    observations; gold facts found, stale facts still current and junk core.md lines in
    scripted developer sessions."""
    if data is None and not sessions:
        raise InvalidInput("give --data FILE (LoCoMo format) and/or --sessions PATH")
    if data is not None and not data.is_file():
        raise InvalidInput(f"--data: no such file: {data}")
    if samples is not None and samples < 1:
        raise InvalidInput(f"--samples must be at least 1, not {samples}")
    settings = Settings.from_env(home=home)
    console = stdout_console()
    if data is not None:
        report = run_knowledge(data, home=home, settings=settings, samples=samples, progress=notice)
        if recall:
            from ...evaluation.locomo import run_locomo

            notice("running the LoCoMo recall benchmark on the same file ...")
            locomo = run_locomo(
                data, home=home, settings=settings, samples=samples, progress=notice
            )
            report.recall = recall_summary(locomo, ["ogmemory", "RRF turns"])
        print_knowledge(report, console)
    for path in sessions or []:
        paths = script_paths(path)
        scores = run_sessions(paths, settings=settings, progress=notice)
        print_sessions(scores, console, title=f"scripted developer sessions: {path}", show=show)
