"""``ogmem reindex``, ``ogmem worker`` and ``ogmem outbox``: looking after the index.

The index (full text, vectors, cursors) is a cache derived from the files: ``reindex`` deletes
it and rebuilds it, with the same answers as before. Vectors are made by workers draining the
outbox of embedding jobs; ``ogmem worker`` is one (run as many as you like, on one machine or
several sharing the state directory), and ``ogmem outbox`` shows and retries the queue.
"""

from __future__ import annotations

import threading
from typing import Annotated, Any

import typer

from ...errors import InvalidInput, StorageError
from .common import (
    AccountOption,
    HomeOption,
    JsonOption,
    SpaceOption,
    emit_json,
    notice,
    stderr_console,
    stdout_console,
    table,
)
from .recall import open_reader
from .signals import stop_on_signals
from .vectors import embed_pending

__all__ = ["outbox_app", "reindex", "worker"]

_STATS = ("documents", "turns", "vectors", "bytes", "embedder")


def _cell(value: Any) -> str:
    if value is None:
        return "none"
    return f"{value:,}" if isinstance(value, int) else str(value)


def _stats_table(title: str, columns: dict[str, dict[str, Any]]) -> Any:
    rows = [(key, *(_cell(columns[c].get(key)) for c in columns)) for key in _STATS]
    return table(title, ("Index", *columns), rows)


def reindex(
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Delete the index and rebuild it from the files (sessions, memories, timeline, graph),
    then embed every document; searches answer the same as before."""
    with open_reader(home, account, space) as mem:
        try:
            before: dict[str, Any] = mem.index_stats()
        except StorageError as exc:  # a broken index is what reindex is for
            notice(f"the current index is unreadable ({exc}); rebuilding it")
            before = {}
        with stderr_console().status("Rebuilding the full-text index"):
            counts = mem.reindex(wait_for_vectors=False)
        embedded = embed_pending(mem, "Embedding")
        after = mem.index_stats()
    if as_json:
        emit_json({"before": before, "after": after, "indexed": counts, "embedded": embedded})
        return
    stdout_console().print(_stats_table("Index rebuilt", {"Before": before, "After": after}))
    typer.echo(
        f"Reindexed {counts.get('turns', 0)} turn(s) and {counts.get('knowledge', 0)} "
        f"knowledge record(s); embedded {embedded} document(s)."
    )


def _status_line(status: dict[str, Any]) -> str:
    return (
        f"{status['pending']} pending, {status['leased']} leased, {status['done']} done, "
        f"{status['dead']} dead"
    )


def worker(
    batch: Annotated[
        int, typer.Option("--batch", metavar="N", help="Jobs claimed per round (1-1000).")
    ] = 32,
    poll: Annotated[
        float,
        typer.Option("--poll", metavar="SECONDS", help="How long to sleep when no job is ready."),
    ] = 0.5,
    once: Annotated[
        bool,
        typer.Option("--once", help="Process the jobs that are ready now, then exit."),
    ] = False,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
) -> None:
    """Consume index jobs (embeddings) until SIGINT or SIGTERM; several workers may run at
    once, each job goes to one of them."""
    if not 1 <= batch <= 1000:
        raise InvalidInput(f"--batch must be between 1 and 1000, not {batch}")
    if not 0 < poll <= 3600:
        raise InvalidInput(f"--poll must be a number of seconds in (0, 3600], not {poll:g}")
    with open_reader(home, account, space) as mem:
        if mem.embedder is None:
            raise InvalidInput(
                "the embedder is 'none' (OGMEM_EMBEDDER): there is no index work a worker "
                "could do; set OGMEM_EMBEDDER=use"
            )
        if once:
            n = mem.drain_outbox()
            typer.echo(f"Processed {n} job(s); outbox: {_status_line(mem.outbox_status())}")
            return
        stop = threading.Event()
        with stop_on_signals(stop, "ogmem worker: {signal} received, stopping after this batch"):
            notice(
                f"ogmem worker: consuming index jobs of {mem.tenant.root} "
                f"(batch {batch}, poll {poll:g}s); Ctrl-C to stop"
            )
            mem.run_worker(stop, batch=batch, poll=poll)
        notice(f"ogmem worker: stopped; outbox: {_status_line(mem.outbox_status())}")


outbox_app = typer.Typer(
    name="outbox",
    help="Show and retry the queue of index jobs (embeddings) that workers consume.",
    no_args_is_help=True,
)


def _last_line(error: str | None) -> str:
    lines = [line for line in (error or "").splitlines() if line.strip()]
    return lines[-1].strip() if lines else "-"


@outbox_app.command("status")
def outbox_status(
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Count the index jobs per state, and list the dead ones with their last error."""
    with open_reader(home, account, space) as mem:
        status = mem.outbox_status()
    if as_json:
        emit_json(status)
        return
    age = status["oldest_pending_age"]
    rows = [
        *((state, status[state]) for state in ("pending", "leased", "done", "dead", "total")),
        ("ready now", status["ready"]),
        ("oldest pending", "-" if age is None else f"{age:.1f} s"),
    ]
    console = stdout_console()
    console.print(table("Index jobs", ("State", "Jobs"), rows))
    dead = status["dead_jobs"]
    if dead:
        console.print(
            table(
                f"{len(dead)} dead job(s) ('ogmem outbox retry' puts them back)",
                ("ID", "Topic", "Key", "Attempts", "Last worker", "Last error"),
                [
                    (
                        j["id"],
                        j["topic"],
                        j["key"],
                        j["attempts"],
                        j["last_owner"] or "-",
                        _last_line(j["last_error"]),
                    )
                    for j in dead
                ],
                no_wrap=("ID",),
            )
        )


@outbox_app.command("retry")
def outbox_retry(
    ids: Annotated[
        list[int] | None,
        typer.Argument(
            metavar="[ID]...",
            help="Dead job ids to retry (see 'ogmem outbox status'). Default: all.",
        ),
    ] = None,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Put dead index jobs back in the queue, with their attempts reset."""
    wanted = list(dict.fromkeys(ids or []))
    bad = [i for i in wanted if i < 1]
    if bad:
        raise InvalidInput(f"job ids are positive integers, not {bad[0]}")
    with open_reader(home, account, space) as mem:
        moved = mem.outbox_retry(wanted or None)
    if as_json:
        emit_json({"retried": moved, "requested": wanted or None})
        return
    if wanted and moved < len(wanted):
        typer.echo(
            f"Retried {moved} of {len(wanted)} job(s); the others are not dead "
            "(see 'ogmem outbox status')."
        )
    else:
        typer.echo(f"Retried {moved} dead job(s); a worker will pick them up.")
