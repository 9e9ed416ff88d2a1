"""The context view of a turn, kept until the turn's commit records it.

``before_inference`` assembles the context; the turn end (possibly in another process: a
Claude Code hook runs one process per event) commits the turn with a record of what that
context held and why. The record waits in the session's ``pending-context`` state file, written
here in a thread beside the caller's inference instead of before it returns (an atomic file
write was a tenth of an assembly on a busy disk at 1,000 turns). A reader calls ``flush``
first; a process exits only once its writes are done (the threads are not daemons).
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any

from ..errors import OgmemError

if TYPE_CHECKING:
    from ..memory import Memory

__all__ = ["PENDING", "PendingViews"]

PENDING = "pending-context"

log = logging.getLogger(__name__)


#: the newest write per (tenant root, session) in this process, shared by every engine and
#: ``Memory`` over the same files, so that any turn end waits for any engine's write
_WRITERS: dict[tuple[str, str], tuple[int, threading.Thread]] = {}
_LOCK = threading.Lock()


class PendingViews:
    """Writes of the pending context view, per session in order (the newest last)."""

    def __init__(self, memory: Memory) -> None:
        self._memory = memory
        self._root = str(memory.tenant.root)

    def save(self, sid: str, record: dict[str, Any]) -> None:
        """Write ``record`` as the session's pending context view, in the background."""
        key = (self._root, sid)
        with _LOCK:
            previous = _WRITERS.get(key)
            seq = previous[0] + 1 if previous is not None else 1

            def write() -> None:
                if previous is not None:
                    previous[1].join()
                with _LOCK:
                    if _WRITERS.get(key, (seq,))[0] != seq:
                        return  # a newer context view supersedes this one
                try:
                    self._memory.edit_session_state(sid, PENDING, lambda _: record)
                except (OgmemError, OSError) as exc:  # the turn commits without its view
                    log.warning("context view of %s not saved: %s", sid, exc)

            thread = threading.Thread(target=write, name="ogmem-context-view", daemon=False)
            _WRITERS[key] = (seq, thread)
        thread.start()

    def flush(self, sid: str | None = None) -> None:
        """Wait until the writes so far (of ``sid``, or of every session) are done."""
        with _LOCK:
            keys = [k for k in _WRITERS if k[0] == self._root and sid in (None, k[1])]
        for key in keys:
            with _LOCK:
                writer = _WRITERS.get(key)
            if writer is None:
                continue
            writer[1].join()
            with _LOCK:
                if _WRITERS.get(key) is writer:
                    del _WRITERS[key]
