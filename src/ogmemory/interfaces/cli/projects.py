"""``ogmem project``: bind working directories (Project-Git), list them, read the agent's log."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .common import (
    AccountOption,
    HomeOption,
    JsonOption,
    SpaceOption,
    emit_json,
    fmt_time,
    open_memory,
    show_records,
)

__all__ = ["project_app"]

project_app = typer.Typer(
    name="project",
    help="Bind project directories whose git history records the agent's edits.",
    no_args_is_help=True,
)

ProjectId = Annotated[
    str,
    typer.Argument(metavar="PROJECT_ID", help="The project id, as shown by 'ogmem project list'."),
]


@project_app.command("bind")
def bind_project(
    path: Annotated[
        Path,
        typer.Argument(
            exists=True,
            file_okay=False,
            dir_okay=True,
            resolve_path=True,
            metavar="PATH",
            help="The project directory; its .git is reused, or created with 'git init'.",
        ),
    ],
    name: Annotated[
        str | None, typer.Option("--name", help="A display name (default: the directory name).")
    ] = None,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Bind a directory as a project (binding the same directory again returns the same id)."""
    with open_memory(home, account, space) as mem:
        project = mem.resolve_project(path, name)
    if as_json:
        emit_json(project.to_dict())
        return
    typer.echo(f"Bound project {project.project_id} ({project.name}) at {project.path}")


@project_app.command("unbind")
def unbind_project(
    project_id: ProjectId,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Forget a project binding; its git history and its sessions stay untouched."""
    with open_memory(home, account, space) as mem:
        project = mem.unbind_project(project_id)
    if as_json:
        emit_json(project.to_dict())
        return
    typer.echo(
        f"Unbound project {project.project_id}; {project.path} and its git history are unchanged"
    )


@project_app.command("log")
def project_log(
    project_id: ProjectId,
    limit: Annotated[
        int, typer.Option("--limit", metavar="N", min=1, help="Show at most N commits.")
    ] = 20,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show the commits the agent made in a project, newest first."""
    with open_memory(home, account, space, read=True) as mem:
        commits = mem.project_log(project_id, limit)
    show_records(
        as_json,
        commits,
        f"Project {project_id}: {len(commits)} agent commit(s)",
        ("Commit", "Time", "Author", "Message"),
        lambda c: (c.sha[:10], fmt_time(c.time), c.author, c.message),
    )


@project_app.command("list")
def list_projects(
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """List the bound projects."""
    with open_memory(home, account, space, read=True) as mem:
        projects = mem.list_projects()
    show_records(
        as_json,
        projects,
        f"{len(projects)} project(s)",
        ("ID", "Name", "Path", "Bound"),
        lambda p: (p.project_id, p.name, p.path, fmt_time(p.created_at)),
        no_wrap=("ID", "Path"),
    )
