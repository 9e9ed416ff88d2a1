"""Vectors for one-shot commands: a CLI call exits before a background worker would embed
anything, so the commands that need vectors build them in the foreground.

``ogmem import`` (and the demo) end by embedding everything they wrote (``--no-embed`` skips
it); ``ogmem recall`` and ``ogmem search`` first embed what is still pending, at most
``EMBED_ON_READ`` documents (``--embed-pending N`` changes the bound, 0 turns it off), so a
CLI-only user gets vector search without running ``ogmem worker``.
"""

from __future__ import annotations

import sqlite3
from contextlib import ExitStack
from typing import Any

from ...embed import Embedder
from ...embed.omp import foreground_passages
from ...errors import OgmemError, StorageError
from ...memory import Memory
from .progress import progress

__all__ = ["EMBED_ON_READ", "embed_pending", "finish_import", "one_thread", "pending_vectors"]

#: How many pending documents a one-shot ``recall``/``search`` embeds before answering: about a
#: second of e5-small on two cores once the model is loaded; the rest waits for the next call
#: or for ``ogmem worker``.
EMBED_ON_READ = 128


def pending_vectors(mem: Memory) -> int:
    """How many documents wait for their vectors (0 without an embedder or a usable index)."""
    if mem.embedder is None:
        return 0
    try:
        status = mem.outbox_status()
    except (OSError, sqlite3.Error, StorageError):  # no usable index: recall says so itself
        return 0
    return int(status["pending"]) + int(status["leased"])


def embed_pending(mem: Memory, label: str, limit: int | None = None) -> int:
    """Index what is new (full text at once), then embed the documents waiting for vectors, at
    most ``limit`` of them (``None``: all), while the user waits: passage batches side by side,
    one per core (``embed.omp.foreground_passages``), with a progress display on stderr (a bar
    in a terminal, a plain line every few seconds otherwise). Returns how many were embedded.

    A damaged index is left alone: recall detects it and answers from the session files.
    """
    if mem.embedder is None or limit == 0:
        return 0
    try:
        mem.sync_index()
    except (OSError, sqlite3.Error, OgmemError):
        return 0
    total = pending_vectors(mem)
    if limit is not None:
        total = min(total, limit)
    if total <= 0:
        return 0
    with foreground_passages() as batches, progress(label, total, unit="documents") as advance:
        return mem.drain_outbox(threads=batches, limit=limit, on_batch=advance)


def finish_import(mem: Memory, *, embed: bool) -> int:
    """The end of a one-shot import: wait for the background distillation, index everything
    (full text), and embed all of it unless ``embed`` is false (then the jobs wait in the
    outbox for ``ogmem worker`` or the next recall). Returns how many were embedded."""
    mem.wait_background()  # what the fast path distilled is indexed (and embedded) too
    if embed:
        return embed_pending(mem, "Embedding")
    mem.sync_index()
    return 0


def one_thread(embedder: Embedder | None = None) -> Any:
    """A context in which the embedder's thread pools (OpenMP, BLAS) use one thread: what a
    one-shot query needs. One short query is too small to share out, and pool threads that
    spin-wait on a busy two-core machine made embedding it 20x slower (2.5 s against 0.1 s,
    measured with ``bench/bench_cli.py`` under load). BLAS pools through ``threadpoolctl``;
    the E5 engine, which sets its OpenMP threads on every call (``embed/omp.py``), through
    that module's cap, which holds even when the engine is loaded inside the block."""
    from threadpoolctl import threadpool_limits

    from ...embed.omp import thread_cap

    del embedder  # every embedder is covered: the argument stays for the callers' clarity
    stack = ExitStack()
    stack.enter_context(threadpool_limits(limits=1))
    stack.enter_context(thread_cap(1))
    return stack
