"""Progress of the long steps of a one-shot command (import, distill, embed) on stderr, so the
command never goes silent: a rich bar in a terminal; otherwise (a log file, CI, a pipe) a plain
line when the step starts, every ``PLAIN_EVERY`` seconds while it runs, and when it ends.

>>> import io, contextlib
>>> err = io.StringIO()
>>> with contextlib.redirect_stderr(err), progress("Embedding", 3) as advance:
...     advance(2)
...     advance(1)
>>> err.getvalue().splitlines()[0]
'Embedding: 0/3 ...'
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import typer
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from .common import stderr_console

__all__ = ["PLAIN_EVERY", "Advance", "progress"]

#: Seconds between two plain progress lines (no terminal).
PLAIN_EVERY = 10.0

#: ``advance(n, description)``: ``n`` more items done; ``description`` replaces the label.
Advance = Callable[..., None]


def _duration(seconds: float) -> str:
    """``42 s``, ``3 min 05 s``.

    >>> _duration(185.2)
    '3 min 05 s'
    """
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest:02d} s"


@contextmanager
def progress(
    label: str, total: int, *, unit: str = "", done: int = 0, before: str = ""
) -> Iterator[Advance]:
    """A progress display for ``total`` items; yields ``advance``. Safe to call ``advance``
    from several threads (rich's bar locks itself; plain lines are written whole).

    ``done`` items were done before this step began (``before`` says how, e.g. "distilled
    while importing"): they count toward ``total`` but not toward the rate."""
    console = stderr_console()
    if console.is_terminal:
        bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("eta"),
            TimeRemainingColumn(),
            console=console,
            transient=False,
        )
        with bar:
            task = bar.add_task(escape(label), total=total, completed=done)

            def advance_bar(n: int = 1, description: str | None = None) -> None:
                bar.update(task, advance=n, description=escape(description or label))

            yield advance_bar
        return
    yield from _plain(label, total, unit, done, before)


def _plain(label: str, total: int, unit: str, done: int, before: str) -> Iterator[Advance]:
    start = last = time.monotonic()
    first = done
    suffix = f" {unit}" if unit else ""
    how = f" ({done} {before})" if done and before else ""
    typer.echo(f"{label}: {done}/{total}{suffix}{how} ...", err=True)

    def advance_plain(n: int = 1, description: str | None = None) -> None:
        nonlocal done, last
        done += n
        now = time.monotonic()
        if now - last >= PLAIN_EVERY and done < total:
            last = now
            share = 100 * done / total if total else 100
            typer.echo(
                f"{label}: {done}/{total}{suffix} ({share:.0f}%), {_duration(now - start)}",
                err=True,
            )

    yield advance_plain
    elapsed = time.monotonic() - start
    now_done = done - first
    rate = f", {now_done / elapsed:.1f}/s" if elapsed > 0 and now_done else ""
    typer.echo(f"{label}: {done}/{total}{suffix} done in {_duration(elapsed)}{rate}", err=True)
