"""The ``ogmem`` application: the command tree, and the one place errors become exit codes.

Exit codes: 0 success; 1 something named does not exist (``NotFound``), the request conflicts
with the current state (``Conflict``) or another ogmemory error; 2 bad input (``InvalidInput``,
and usage errors found while parsing the command line). User errors print one line on stderr,
never a traceback; with ``--json`` they are one JSON object on stdout instead,
``{"error": {"type": ..., "message": ..., "exit_code": N}}``, and the exit code is the same.
"""

from __future__ import annotations

import json
import sys
from difflib import get_close_matches
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from ... import __version__
from ...errors import Conflict, InvalidInput, NotFound, OgmemError
from .bench import bench_app
from .chat import chat
from .common import READ_WARNINGS, notice
from .consolidate import core, distill, sleep
from .daemon import daemon
from .demo import demo
from .fsck import fsck
from .graph import graph_app
from .helptext import tidy
from .history import import_claude_code  # noqa: F401  (adds claude-code, codex, aider)
from .hooks import hook, hook_work, hooks_app
from .imports import import_app
from .index import outbox_app, reindex, worker
from .mcp_cmd import mcp
from .memories import memories_app
from .oplog import batches_app, rollback
from .projects import project_app
from .recall import git_log, open_session, recall, search
from .serve import keys_app, serve
from .sessions import sessions_app
from .timeline import timeline

try:  # typer >= 0.2x carries its own click
    from typer._click.exceptions import ClickException
except ImportError:  # pragma: no cover - older typer, on click itself
    from click.exceptions import ClickException  # type: ignore[assignment]

__all__ = ["EXIT_CODES", "app", "error_json", "exit_code", "main"]
_JSON_KEY = "ogmem.json"  # ctx.meta: was --json given on the command line

#: Checked in order; the first matching class decides the exit code.
EXIT_CODES: tuple[tuple[type[Exception], int], ...] = (
    (InvalidInput, 2),
    (NotFound, 1),
    (Conflict, 1),
    (OgmemError, 1),
    (OSError, 1),
)


def exit_code(exc: Exception) -> int:
    """The exit code for an error raised by a command.

    >>> exit_code(InvalidInput("bad"))
    2
    """
    return next(code for kind, code in EXIT_CODES if isinstance(exc, kind))


class _OgmemGroup(TyperGroup):
    """The root group: every subcommand runs inside its ``invoke``, so errors are mapped here."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        tidy(self)  # help: reflowed descriptions, named values (helptext.py)

    def make_context(
        self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any
    ) -> Any:
        wants_json = "--json" in (args[: args.index("--")] if "--" in args else args)
        ctx = super().make_context(info_name, args, parent, **extra)
        ctx.meta[_JSON_KEY] = wants_json
        return ctx

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        """As click's, but a name that is not a command here and has no close match among
        them is looked for one level down: ``ogmem facts`` suggests ``graph facts``."""
        try:
            return super().resolve_command(ctx, args)
        except ClickException as exc:
            message = getattr(exc, "message", "")
            nested = _nested_matches(self, args[0]) if args else []
            if nested and "Did you mean" not in message:
                exc.message = f"{message} Did you mean {', '.join(map(repr, nested))}?"
            raise

    def invoke(self, ctx: Any) -> Any:
        as_json = bool(ctx.meta.get(_JSON_KEY))
        READ_WARNINGS.clear()
        try:
            result = super().invoke(ctx)
        except BrokenPipeError:
            raise  # the reader went away (``ogmem ... | head``); the runner exits quietly
        except (OgmemError, OSError) as exc:
            code = exit_code(exc)
            message = _describe(exc)
            if READ_WARNINGS and isinstance(exc, NotFound):  # why it is not there
                message += f" ({'; '.join(READ_WARNINGS)})"
            READ_WARNINGS.clear()
            if as_json:
                typer.echo(error_json(type(exc).__name__, message, code))
            else:
                typer.echo(f"Error: {message}", err=True)
            raise typer.Exit(code) from None
        except ClickException as exc:  # a usage error in a subcommand's arguments
            READ_WARNINGS.clear()
            if not as_json:
                raise
            typer.echo(error_json(type(exc).__name__, exc.format_message(), exc.exit_code))
            raise typer.Exit(exc.exit_code) from None
        except BaseException:
            READ_WARNINGS.clear()
            raise
        for missing in READ_WARNINGS:
            notice(f"warning: {missing}; nothing to read (nothing was created there)")
        READ_WARNINGS.clear()
        return result


def _nested_matches(group: Any, name: str) -> list[str]:
    """``'<group> <command>'`` for the subcommands of ``group``'s groups named ``name`` (or
    nearly: ``fact`` finds ``facts``), exact names first, at most three."""
    exact, close = [], []
    for parent, command in sorted(group.commands.items()):
        for sub, leaf in sorted(getattr(command, "commands", {}).items()):
            if getattr(leaf, "hidden", False) or getattr(command, "hidden", False):
                continue
            if sub == name:
                exact.append(f"{parent} {sub}")
            elif get_close_matches(name, [sub], cutoff=0.8):
                close.append(f"{parent} {sub}")
    return [*exact, *close][:3]


def error_json(kind: str, message: str, code: int) -> str:
    """The JSON object a command prints on stdout, with ``--json``, when it fails.

    >>> print(error_json("NotFound", "no session 'x'", 1))
    {"error": {"type": "NotFound", "message": "no session 'x'", "exit_code": 1}}
    """
    return json.dumps(
        {"error": {"type": kind, "message": message, "exit_code": code}}, ensure_ascii=False
    )


def _describe(exc: Exception) -> str:
    if isinstance(exc, OSError) and not isinstance(exc, OgmemError) and exc.strerror:
        return f"{exc.strerror}: {exc.filename}" if exc.filename else exc.strerror
    return str(exc)


app = typer.Typer(
    name="ogmem",
    cls=_OgmemGroup,
    help="ogmemory: local-first long-term memory for LLM agents. Sessions are git "
    "repositories; what is distilled from them (memories, timeline, graph, core.md) is "
    "append-only JSONL; everything lives under --home (default $OGMEM_HOME or ~/.ogmemory).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"ogmem {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """ogmemory: local-first long-term memory for LLM agents."""


app.add_typer(sessions_app)
app.add_typer(project_app)
app.add_typer(import_app)
app.add_typer(memories_app)
app.command("timeline")(timeline)
app.add_typer(graph_app)
app.command("core")(core)
app.command("sleep")(sleep)
app.command("distill")(distill)
app.add_typer(batches_app)
app.command("rollback")(rollback)
app.command("daemon")(daemon)
app.command("demo")(demo)
app.command("serve")(serve)
app.add_typer(keys_app)
app.command("mcp")(mcp)
app.command("recall")(recall)
app.command("search")(search)
app.command("open")(open_session)
app.command("git-log")(git_log)
app.command("reindex")(reindex)
app.command("fsck")(fsck)
app.command("worker")(worker)
app.add_typer(outbox_app)
app.add_typer(bench_app)
app.command("chat")(chat)
app.add_typer(hooks_app)
app.command("hook")(hook)
app.command("hook-work", hidden=True)(hook_work)


def main() -> None:
    """Entry point of the ``ogmem`` script. ``ogmem hook ...`` goes to the hook client before
    the command line is parsed: a usage error there would exit 2, which Claude Code reads as
    "block the prompt" (the client reports it on stderr and exits 0)."""
    if sys.argv[1:2] == ["hook"] and "--help" not in sys.argv[2:]:
        import ogmemory_hook

        sys.exit(ogmemory_hook.main(sys.argv[2:]))
    app()
