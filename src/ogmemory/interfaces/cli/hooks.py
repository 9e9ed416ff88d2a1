"""``ogmem hooks install|uninstall|status`` (Claude Code's settings), ``ogmem hook <event>``
(what Claude Code runs; normally dispatched before this module loads) and the hidden
``ogmem hook-work`` (the background work after a hook handled an event on its own)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from ...engine.claude_code import DOCS_URL, HOOK_EVENTS
from ...engine.claude_settings import install, installed, uninstall
from ...errors import InvalidInput
from .. import claude_hook
from .common import AccountOption, HomeOption, JsonOption, SpaceOption, emit_json, notice

__all__ = ["hook", "hook_work", "hooks_app"]

hooks_app = typer.Typer(
    name="hooks",
    help="Claude Code integration: write ogmemory's hooks into Claude Code's settings (core.md "
    "and recall as context, every prompt, tool call and reply recorded) or remove them.",
    no_args_is_help=True,
)

ProjectOption = Annotated[
    Path | None,
    typer.Option(
        "--project",
        file_okay=False,
        help="A project directory: its "
        ".claude/settings.local.json (this machine only), or .claude/settings.json "
        "with --shared.",
    ),
]
UserOption = Annotated[
    bool, typer.Option("--user", help="~/.claude/settings.json: every project (the default).")
]
SharedOption = Annotated[
    bool,
    typer.Option(
        "--shared",
        help="With --project: .claude/settings.json, committed "
        "with the project (the command names this machine's Python).",
    ),
]


def _settings_path(project: Path | None, user: bool, shared: bool) -> Path:
    if project is not None and user:
        raise InvalidInput("give --project DIR or --user, not both")
    if shared and project is None:
        raise InvalidInput("--shared applies to --project only")
    if project is None:
        return Path.home() / ".claude" / "settings.json"
    if not project.is_dir():
        raise InvalidInput(f"project directory {project} does not exist")
    name = "settings.json" if shared else "settings.local.json"
    return project.resolve() / ".claude" / name


@hooks_app.command("install")
def install_cmd(
    project: ProjectOption = None,
    user: UserOption = False,
    shared: SharedOption = False,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Add ogmemory's hooks (SessionStart, UserPromptSubmit, PostToolUse, PostToolUseFailure,
    Stop, PreCompact, SessionEnd) to Claude Code's settings, keeping everything else there.
    --home, --account and --space, when given, are written into the hooks' command."""
    path = _settings_path(project, user, shared)
    events = install(path, home=home.resolve() if home else None, account=account, space=space)
    if as_json:
        emit_json({"settings": str(path), "events": events})
        return
    typer.echo(f"Installed ogmemory hooks in {path}: {', '.join(events)}")
    notice(
        f"Hooks reference: {DOCS_URL}. With 'ogmem serve' running the hooks use it; "
        "'ogmem hooks uninstall' removes only these."
    )


@hooks_app.command("uninstall")
def uninstall_cmd(
    project: ProjectOption = None,
    user: UserOption = False,
    shared: SharedOption = False,
    as_json: JsonOption = False,
) -> None:
    """Remove ogmemory's hooks from Claude Code's settings (and nothing else)."""
    path = _settings_path(project, user, shared)
    removed = uninstall(path)
    if as_json:
        emit_json({"settings": str(path), "removed": removed})
        return
    typer.echo(
        f"Removed {removed} ogmemory hook(s) from {path}"
        if removed
        else f"No ogmemory hooks in {path}"
    )


@hooks_app.command("status")
def status_cmd(
    project: ProjectOption = None,
    user: UserOption = False,
    shared: SharedOption = False,
    as_json: JsonOption = False,
) -> None:
    """Which events run ogmemory's hooks in that settings file."""
    path = _settings_path(project, user, shared)
    events = installed(path)
    if as_json:
        emit_json({"settings": str(path), "events": events})
        return
    typer.echo(f"{path}: {', '.join(events) if events else 'no ogmemory hooks'}")


def hook(
    event: Annotated[
        str, typer.Argument(metavar="EVENT", help=f"One of {', '.join(HOOK_EVENTS)}.")
    ],
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    server: Annotated[
        str | None,
        typer.Option(
            "--server",
            help="URL of a running 'ogmem serve' "
            "(default $OGMEM_SERVER_URL or http://127.0.0.1:8765; 'off' for none).",
        ),
    ] = None,
) -> None:
    """Handle one Claude Code hook event: its JSON on stdin, additional context (if any) on
    stdout. Always exits 0; failures go to <home>/logs/hooks.log."""
    argv = [event]
    for flag, value in (
        ("--home", str(home) if home else None),
        ("--account", account),
        ("--space", space),
        ("--server", server),
    ):
        if value:
            argv += [flag, value]
    import ogmemory_hook

    raise typer.Exit(ogmemory_hook.main(argv, sys.stdin.buffer, sys.stdout))


def hook_work(
    session_id: Annotated[
        str, typer.Argument(metavar="SESSION_ID", help="The session whose turn just ended.")
    ],
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
) -> None:
    """Distil, title and embed after a hook event handled without a server (runs detached)."""
    from ...config import default_home

    result = claude_hook.background_work(session_id, home or default_home(), account, space)
    emit_json(result)
