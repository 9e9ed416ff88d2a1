"""``ogmem import claude-code|codex|aider``: agent histories, synced incrementally.

Each command parses its options, calls ``Memory.import_history`` and prints what it did: a
progress bar on stderr while it runs, then a table (sessions new / updated / unchanged, turns,
messages, lines left out by reason, problems by reason, and the first problems by file and
line). Running it again records only what is new. ``--watch`` keeps syncing until Ctrl-C.
The default locations (when no PATH is given) are read here, from the environment the
agents themselves use (``CLAUDE_CONFIG_DIR``, ``CODEX_HOME``).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ...errors import InvalidInput
from ...importers.aider import HISTORY_FILE
from ...importers.report import FileOutcome, ImportReport
from ...memory import Memory
from .common import (
    AccountOption,
    HomeOption,
    JsonOption,
    SpaceOption,
    emit_json,
    notice,
    open_memory,
    stderr_console,
    stdout_console,
    table,
)
from .imports import NoEmbedOption, import_app
from .signals import stop_on_signals
from .vectors import finish_import

__all__ = ["default_paths", "import_aider", "import_claude_code", "import_codex", "print_report"]

#: Problems listed one by one in the final table; the rest are counted.
SHOWN_PROBLEMS = 20

PathsArg = Annotated[
    list[Path] | None,
    typer.Argument(
        exists=True,
        metavar="PATH",
        show_default=False,
        help="Files or folders to import (folders are searched). "
        "Default: the agent's own history folder.",
    ),
]
WatchOption = Annotated[
    bool,
    typer.Option("--watch", help="Keep syncing new lines as the agent writes them (until Ctrl-C)."),
]
IntervalOption = Annotated[
    float, typer.Option("--interval", min=0.05, help="Seconds between checks with --watch.")
]
ProjectsOption = Annotated[
    bool,
    typer.Option(
        "--projects/--no-projects",
        help="Bind each session to the git repository it worked in (its cwd), "
        "when that repository exists here.",
    ),
]


def default_paths(fmt: str, env: Mapping[str, str], cwd: Path) -> list[Path]:
    """Where each agent keeps its history when no PATH is given.

    >>> default_paths("codex", {"CODEX_HOME": "/c"}, Path("/w"))
    [PosixPath('/c/sessions'), PosixPath('/c/archived_sessions')]
    """
    home = Path(env.get("HOME") or Path.home())
    if fmt == "claude-code":
        root = Path(env["CLAUDE_CONFIG_DIR"]) if env.get("CLAUDE_CONFIG_DIR") else home / ".claude"
        return [root / "projects"]
    if fmt == "codex":
        root = Path(env["CODEX_HOME"]) if env.get("CODEX_HOME") else home / ".codex"
        return [root / "sessions", root / "archived_sessions"]
    # aider writes its log at the root of the repository it runs in
    for folder in (cwd, *cwd.parents):
        if (folder / HISTORY_FILE).is_file() or (folder / ".git").exists():
            return [folder / HISTORY_FILE]
    return [cwd / HISTORY_FILE]


def _run(
    fmt: str,
    paths: list[Path] | None,
    *,
    watch: bool,
    interval: float,
    projects: bool,
    embed: bool,
    home: Path | None,
    account: str | None,
    space: str | None,
    as_json: bool,
) -> None:
    if paths:
        targets = paths
    else:
        targets = [p for p in default_paths(fmt, os.environ, Path.cwd()) if p.exists()]
        if not targets:
            where = ", ".join(str(p) for p in default_paths(fmt, os.environ, Path.cwd()))
            raise InvalidInput(f"no {fmt} history found at {where}; give a PATH")
    # a one-shot import embeds in the foreground; --watch keeps the background worker
    with open_memory(home, account, space, index_worker=watch) as mem:
        if not watch:
            report = _sync(mem, fmt, targets, projects, progress=not as_json)
            finish_import(mem, embed=embed)
            _show(report, as_json)
            return
        _watch(mem, fmt, targets, projects, interval=interval, as_json=as_json)


def _watch(
    mem: Memory, fmt: str, targets: list[Path], projects: bool, *, interval: float, as_json: bool
) -> None:
    """Sync, then sync again every ``interval`` seconds until SIGINT or SIGTERM (the sync under
    way finishes first; a second Ctrl-C interrupts it)."""
    stop = threading.Event()
    try:
        with stop_on_signals(stop):  # before the first sync: a Ctrl-C during it stops too
            report = _sync(mem, fmt, targets, projects, progress=not as_json)
            if as_json:  # one JSON object per line, one line per sync
                typer.echo(json.dumps(report.to_dict(), ensure_ascii=False))
            else:
                _show(report, as_json)
            notice(f"Watching {len(targets)} path(s) for new lines; Ctrl-C to stop.")
            while not stop.wait(interval):
                report = _sync(mem, fmt, targets, projects, progress=False)
                if report.changed or any(f.status == "new" for f in report.files):
                    _show_change(report, as_json)
    except KeyboardInterrupt:  # the second Ctrl-C
        pass
    notice("Stopped watching.")


def _sync(
    mem: Memory, fmt: str, targets: list[Path], projects: bool, *, progress: bool
) -> ImportReport:
    if not progress:
        return mem.import_history(fmt, targets, bind_projects=projects)
    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=stderr_console(),
        transient=True,
    )
    with bar:
        task = bar.add_task("Importing", total=None)

        def on_file(outcome: FileOutcome, done: int, total: int) -> None:
            name = Path(outcome.path).name
            bar.update(
                task,
                completed=done,
                total=total,
                description=escape(f"{outcome.status:>9} {name[:48]}"),
            )

        return mem.import_history(fmt, targets, bind_projects=projects, on_file=on_file)


def _show(report: ImportReport, as_json: bool) -> None:
    if as_json:
        emit_json(report.to_dict())
    else:
        print_report(report)


def _show_change(report: ImportReport, as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(report.to_dict(), ensure_ascii=False))
        return
    touched = [s.session_id for f in report.files for s in f.sessions if s.messages]
    stamp = datetime.now().strftime("%H:%M:%S")
    typer.echo(
        f"{stamp} +{report.messages} message(s), {report.turns} turn(s) in "
        f"{', '.join(dict.fromkeys(touched)) or 'no session'}"
    )
    for issue in report.issues[:SHOWN_PROBLEMS]:
        notice(f"  skipped {issue}")


def print_report(report: ImportReport) -> None:
    """The final table: what was recorded, what was left out and why, what could not be read."""
    rows: list[tuple[str, object]] = [
        ("files", len(report.files)),
        ("sessions new", report.sessions_new),
        ("sessions updated", report.sessions_updated),
        ("sessions unchanged", report.sessions_unchanged),
        ("turns", report.turns),
        ("messages", report.messages),
    ]
    rows += [(f"left out: {reason}", count) for reason, count in report.left_out.items()]
    problems: dict[str, int] = {}
    for issue in report.issues:
        problems[issue.reason] = problems.get(issue.reason, 0) + 1
    rows += [(f"skipped: {reason}", count) for reason, count in problems.items()]
    console = stdout_console()
    console.print(table(f"Imported {report.format} history", ["", "count"], rows))
    if report.issues:
        shown = report.issues[:SHOWN_PROBLEMS]
        console.print(
            table(
                "Skipped (file, line, reason)",
                ["File", "Line", "Reason"],
                [
                    (
                        i.path,
                        i.line if i.line is not None else "-",
                        f"{i.reason}: {i.detail}" if i.detail else i.reason,
                    )
                    for i in shown
                ],
                no_wrap=("Line", "File"),
            )
        )
        if len(report.issues) > len(shown):
            typer.echo(f"... and {len(report.issues) - len(shown)} more (--json lists all)")


def _command(fmt: str, doc: str) -> Callable[..., None]:
    def command(
        paths: PathsArg = None,
        watch: WatchOption = False,
        interval: IntervalOption = 2.0,
        projects: ProjectsOption = True,
        no_embed: NoEmbedOption = False,
        home: HomeOption = None,
        account: AccountOption = None,
        space: SpaceOption = None,
        as_json: JsonOption = False,
    ) -> None:
        _run(
            fmt,
            paths,
            watch=watch,
            interval=interval,
            projects=projects,
            embed=not no_embed,
            home=home,
            account=account,
            space=space,
            as_json=as_json,
        )

    command.__doc__ = doc
    command.__name__ = f"import_{fmt.replace('-', '_')}"
    return command


import_claude_code = import_app.command("claude-code")(
    _command(
        "claude-code",
        "Import Claude Code sessions (default: ~/.claude/projects, or "
        "$CLAUDE_CONFIG_DIR/projects): one session per file, rewinds as branches, subagents as "
        "linked sessions. Run again to add only what is new.",
    )
)
import_codex = import_app.command("codex")(
    _command(
        "codex",
        "Import Codex CLI rollouts (default: ~/.codex/sessions and archived_sessions, or under "
        "$CODEX_HOME). Preambles (AGENTS.md, environment context) are kept as metadata. Run again "
        "to add only what is new.",
    )
)
import_aider = import_app.command("aider")(
    _command(
        "aider",
        "Import aider chat logs (.aider.chat.history.md; default: the one of the current git "
        "repository), dated by .aider.input.history when present. Run again to add only what "
        "is new.",
    )
)
