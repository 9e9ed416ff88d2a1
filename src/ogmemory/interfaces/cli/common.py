"""What every ``ogmem`` command shares: the tenant options, opening ``Memory``, and output.

Results go to stdout (a rich table, or JSON with ``--json``); notices and progress go to stderr,
so ``ogmem ... --json | jq`` always sees clean JSON.
"""

from __future__ import annotations

import atexit
import dataclasses
import json
import shutil
import tempfile
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from ...config import Settings
from ...entity.records import Provenance, SessionInfo
from ...entity.times import day_label, parse_when
from ...memory import Memory
from ...tenancy import TenantRoot
from .tables import UNWRAPPED, Listing

__all__ = [
    "READ_WARNINGS",
    "UNWRAPPED",
    "AccountOption",
    "HomeOption",
    "JsonOption",
    "ScopeOption",
    "SpaceOption",
    "emit_json",
    "fmt_day",
    "fmt_pointer",
    "fmt_time",
    "last_active",
    "missing_memory",
    "notice",
    "open_memory",
    "parse_when",
    "stderr_console",
    "stdout_console",
    "table",
]

HomeOption = Annotated[
    Path | None,
    typer.Option(
        "--home",
        envvar="OGMEM_HOME",
        file_okay=False,
        metavar="DIR",
        show_default=False,
        help="State directory holding every tenant's memory. \\[default: ~/.ogmemory]",
    ),
]
AccountOption = Annotated[
    str | None,
    typer.Option(
        "--account",
        envvar="OGMEM_ACCOUNT",
        metavar="NAME",
        show_default=False,
        help="Tenant account to act in. \\[default: local]",
    ),
]
SpaceOption = Annotated[
    str | None,
    typer.Option(
        "--space",
        envvar="OGMEM_SPACE",
        metavar="NAME",
        show_default=False,
        help="Space within the account. \\[default: default]",
    ),
]
JsonOption = Annotated[
    bool,
    typer.Option("--json", help="Print machine-readable JSON on stdout instead of a table."),
]
ScopeOption = Annotated[
    str | None,
    typer.Option(
        "--scope",
        metavar="SCOPE",
        show_default=False,
        help="Only what is visible in this scope: 'global', 'project:<id>' (global + that "
        "project) or 'agent:<id>'. \\[default: every scope]",
    ),
]


#: What reads met that did not exist (a home, a tenant). The root command says it at the end: a
#: warning on stderr after a success, a note in the error message after ``NotFound``, nothing
#: after bad input (which has nothing to do with where the memory is).
READ_WARNINGS: list[str] = []


def open_memory(
    home: Path | None,
    account: str | None,
    space: str | None,
    *,
    read: bool = False,
    index_worker: bool | None = None,
) -> Memory:
    """The facade for one tenant; the environment fills in whatever the options left unset.

    ``read=True`` is for commands that only read. A read never creates directories: when the
    home (or the tenant in it) does not exist, it is noted in ``READ_WARNINGS`` and the command
    answers from an empty memory in a throwaway directory, so ``--home /typo`` neither creates
    ``/typo`` nor silently answers "nothing found". ``index_worker=False`` opens without the
    in-process embedding worker (one-shot commands).

    >>> with open_memory(Path("/tmp/ogm"), None, None) as mem:  # doctest: +SKIP
    ...     mem.list_sessions()
    []
    """
    extra: dict[str, object] = {} if index_worker is None else {"index_worker": index_worker}
    settings = Settings.from_env(home=home, account=account, space=space, **extra)
    missing = missing_memory(settings) if read else None
    if missing is not None:
        READ_WARNINGS.append(missing)  # said once the command ends (see app.py)
        scratch = tempfile.mkdtemp(prefix="ogmem-empty-")
        atexit.register(shutil.rmtree, scratch, True)
        settings = dataclasses.replace(settings, home=Path(scratch))
    return Memory(settings=settings)


def missing_memory(settings: Settings) -> str | None:
    """What is missing for ``settings`` to name a memory that exists (``None``: nothing is):
    the home itself, or the tenant (account/space) in it."""
    home = settings.home
    if not home.is_dir():
        return f"no ogmemory home at {home} (check --home or $OGMEM_HOME)"
    if not TenantRoot(home, settings.account, settings.space).root.is_dir():
        return (
            f"nothing recorded for account {settings.account!r}, space {settings.space!r} in {home}"
        )
    return None


def stdout_console() -> Console:
    """A console on the current stdout (created per call, so test runners can swap streams)."""
    return Console(highlight=False)


def stderr_console() -> Console:
    """A console on the current stderr, for notices and progress bars."""
    return Console(stderr=True, highlight=False)


def notice(message: str) -> None:
    """Tell the user something on stderr, unwrapped (``message`` is plain text, not markup)."""
    typer.echo(message, err=True)


def emit_json(data: Any) -> None:
    """Print ``data`` as indented JSON on stdout."""
    typer.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))


def fmt_time(ts: float | None) -> str:
    """Epoch seconds as UTC ``YYYY-MM-DD HH:MM`` (``-`` when unknown).

    >>> fmt_time(None)
    '-'
    """
    if not ts:
        return "-"
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M")


def last_active(info: SessionInfo) -> str:
    """When a session's conversation last happened (imported history by its own dates, as
    ``sessions list`` orders them), else when it was last written."""
    when = info.meta.get("last_event_at")
    if not isinstance(when, (int, float)) or isinstance(when, bool):
        when = info.updated_at
    return fmt_time(float(when))


def fmt_day(ts: float | None) -> str:
    """Epoch seconds as the UTC date ``YYYY-MM-DD`` (``-`` when unknown)."""
    return day_label(ts) if ts else "-"


def fmt_pointer(prov: Provenance | None) -> str:
    """Where a record came from, as ``session:<id>@<commit7>`` (``-`` for none, e.g. a memory
    the user typed in).

    >>> fmt_pointer(Provenance("default", "s1", ("n1",), "0123456789ab", 0.0, 0.0))
    'session:s1@0123456'
    """
    ptr = prov.pointer if prov is not None else None
    return str(ptr) if ptr else "-"


def show_records(
    as_json: bool,
    records: Sequence[Any],
    title: str,
    columns: Sequence[str],
    row: Callable[[Any], Sequence[object]],
    *,
    no_wrap: Iterable[str] = (),
) -> None:
    """What a listing command prints: the records as JSON (``to_dict`` each), else a table of
    one ``row(record)`` per record."""
    if as_json:
        emit_json([r.to_dict() for r in records])
        return
    stdout_console().print(table(title, columns, [row(r) for r in records], no_wrap=no_wrap))


def table(
    title: str,
    columns: Sequence[str],
    rows: Iterable[Sequence[object]],
    *,
    no_wrap: Iterable[str] = (),
) -> Listing:
    """A listing of plain-text cells (user content is never read as markup) that reads at the
    width it is printed in: a boxed table when every column gets its longest word and the prose
    columns enough room, else one line of short fields per record with its text below (see
    ``tables``). Columns named in ``no_wrap`` (ids, pointers, dates) are never broken.
    """
    return Listing(title, columns, rows, no_wrap=no_wrap)
