"""Long-running commands (``daemon``, ``worker``, ``import --watch``) stop on SIGINT or SIGTERM.

The first signal sets a stop event: the command finishes what it is doing (a tick, a batch, a
sync) and exits 0. A second Ctrl-C interrupts at once (``KeyboardInterrupt``).

The handlers are installed explicitly, whatever the process inherited: a process started from
a script's background job (``cmd &`` without job control) begins with SIGINT *ignored*, and
Python then never turns Ctrl-C (or ``kill -INT``) into ``KeyboardInterrupt``; a command that
relied on it would run until killed.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from .common import notice

__all__ = ["stop_on_signals"]

_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def stop_on_signals(stop: threading.Event, said: str | None = None) -> Iterator[None]:
    """Set ``stop`` on the first SIGINT/SIGTERM (telling ``said``, with ``{signal}`` replaced
    by its name, on stderr); the previous handlers come back afterwards.

    >>> stop = threading.Event()
    >>> with stop_on_signals(stop):
    ...     signal.raise_signal(signal.SIGTERM)
    >>> stop.is_set()
    True
    """
    previous = {sig: signal.getsignal(sig) for sig in _SIGNALS}

    def handler(signum: int, frame: FrameType | None) -> None:
        if said:
            notice(said.format(signal=signal.Signals(signum).name))
        stop.set()
        # A second Ctrl-C should not wait for a long tick or batch to finish.
        signal.signal(signal.SIGINT, signal.default_int_handler)

    for sig in _SIGNALS:
        signal.signal(sig, handler)
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
