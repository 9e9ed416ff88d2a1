"""``ogmem fsck``: check a home (every tenant, or one), and with ``--repair`` fix it.

Exit codes follow fsck(8): 0 nothing wrong; 1 problems were found and all repaired; 4 problems
remain (found without ``--repair``, or not repairable); 8 the check could not run (e.g. the home
does not exist). ``--json`` prints the report (findings with what was done about each).
"""

from __future__ import annotations

from typing import Annotated

import typer

from ...config import Settings
from ...health.findings import EXIT_OPERATIONAL, FsckReport
from ...health.fsck import check_home
from .common import (
    AccountOption,
    HomeOption,
    JsonOption,
    SpaceOption,
    emit_json,
    notice,
    stdout_console,
    table,
)

__all__ = ["fsck"]


def fsck(
    repair: Annotated[
        bool,
        typer.Option(
            "--repair",
            help="Fix what the home itself can fix: stale git locks, node "
            "files and meta.json from git, torn log tails, a damaged or disagreeing "
            "index (rebuilt from the files).",
        ),
    ] = False,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Check every session repository (git fsck), every knowledge log and the index.

    Exit code 0: nothing wrong; 1: problems found and all repaired; 4: problems remain;
    8: the check could not run.
    """
    settings = Settings.from_env(home=home)
    if not settings.home.is_dir():
        notice(f"Error: no ogmemory home at {settings.home}")
        raise typer.Exit(EXIT_OPERATIONAL)
    tenants = None
    if account is not None or space is not None:
        tenants = [(account or settings.account, space or settings.space)]
    report = check_home(settings, repair=repair, tenants=tenants)
    if as_json:
        emit_json(report.to_dict())
    else:
        _show(report)
    raise typer.Exit(report.exit_code)


def _show(report: FsckReport) -> None:
    console = stdout_console()
    console.print(
        f"Checked {len(report.tenants)} tenant(s): {report.sessions} session(s), "
        f"{report.logs} log file(s), {report.index_documents:,} index document(s).",
        highlight=False,
        markup=False,
    )
    if report.findings:
        rows = [
            (
                f.area,
                f.where,
                f.problem,
                "yes" if f.repaired else ("no" if not f.repairable else "with --repair"),
            )
            for f in report.findings
        ]
        console.print(
            table(
                f"Findings ({len(report.findings)})", ("Area", "Where", "Problem", "Repaired"), rows
            )
        )
    for note in report.notes:
        notice(f"note: {note}")
    verdict = {0: "clean", 1: "every problem was repaired", 4: "problems remain"}
    notice(f"fsck: {verdict.get(report.exit_code, 'failed')} (exit {report.exit_code})")
