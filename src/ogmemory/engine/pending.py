"""The context view of a turn, kept until the turn's commit records it.

``before_inference`` assembles the context; the turn end (possibly in another process: a
Claude Code hook runs one process per event) commits the turn with a record of what that
context held and why. The record waits in the session's ``pending-context`` state file, written
here by one background thread beside the caller's inference instead of before it returns (an
atomic file write was a tenth of an assembly on a busy disk at 1,000 turns; starting a thread
per write cost as much again at load 12). A reader calls ``flush`` first; at exit the
interpreter waits for the writes queued (``atexit``).
"""

from __future__ import annotations

import atexit
import logging
import queue
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..memory import Memory

__all__ = ["PENDING", "PendingViews"]

PENDING = "pending-context"

log = logging.getLogger(__name__)

#: per (tenant root, session): the sequence number of its newest write and when it is done;
#: shared by every engine and ``Memory`` over the same files in this process, so that any
#: turn end waits for any engine's write
_LATEST: dict[tuple[str, str], tuple[int, threading.Event]] = {}
_QUEUE: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()
_LOCK = threading.Lock()
_WORKER: list[threading.Thread] = []


class PendingViews:
    """Writes of the pending context view, per session in order (the newest wins)."""

    def __init__(self, memory: Memory) -> None:
        self._memory = memory
        self._root = str(memory.tenant.root)

    def save(self, sid: str, record: dict[str, Any]) -> None:
        """Write ``record`` as the session's pending context view, in the background."""
        key = (self._root, sid)
        done = threading.Event()
        with _LOCK:
            seq = _LATEST[key][0] + 1 if key in _LATEST else 1
            _LATEST[key] = (seq, done)
            if not _WORKER or not _WORKER[0].is_alive():
                _WORKER[:] = [
                    threading.Thread(target=_work, name="ogmem-context-view", daemon=True)
                ]
                _WORKER[0].start()
        _QUEUE.put((key, seq, done, self._memory, sid, record))

    def flush(self, sid: str | None = None) -> None:
        """Wait until the writes so far (of ``sid``, or of every session) are done."""
        with _LOCK:
            waits = [
                (k, w) for k, w in _LATEST.items() if k[0] == self._root and sid in (None, k[1])
            ]
        _wait(waits)


def _wait(waits: list[tuple[tuple[str, str], tuple[int, threading.Event]]]) -> None:
    for key, (seq, done) in waits:
        done.wait(timeout=10)  # a small file: a write stuck longer is given up on
        with _LOCK:
            if _LATEST.get(key, (None,))[0] == seq:
                del _LATEST[key]


def _work() -> None:
    while True:
        key, seq, done, memory, sid, record = _QUEUE.get()
        try:
            with _LOCK:
                newest = _LATEST.get(key, (seq,))[0] == seq
            if newest:  # an older view than the newest queued is never written
                memory.edit_session_state(sid, PENDING, lambda _, r=record: r)
        except Exception as exc:  # a background boundary: the turn commits without its view
            log.warning("context view of %s not saved: %s", sid, exc)
        finally:
            done.set()


@atexit.register
def _flush_all() -> None:
    with _LOCK:
        waits = list(_LATEST.items())
    _wait(waits)
