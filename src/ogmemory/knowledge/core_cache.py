"""core.md per scope, rendered once per knowledge change and reused until the next one.

Rendering core.md reads every current fact and event of the scope (``knowledge.core``): at
1,000 turns it was a fifth of the context engine's assembly time, because fast-path distillation
commits a batch after nearly every turn and the next assembly rendered it again in the
foreground. Here a text is kept per scope with the knowledge version and the day it was
rendered for (the day: deadlines before it are past, and the title names it), and when a batch
commits (``KnowledgeStore.on_commit``, which also fires for batches another process committed,
once this one catches up with them) a background thread renders again the scopes read before.

What a reader gets:

* the text of the current version, when it is rendered;
* after a change a user made (remember, edit, enable, disable, forget, rollback, the facts
  derived from a memory the user wrote: every batch that is not distillation over session
  turns) or on a new day: a text rendered now, by the reader if need be (waiting for a render
  of the same scope already under way, never rendering twice). The version is read before
  rendering, so a batch landing mid-render only makes the text look older than it is;
* after distillation batches only: the previous text while the background thread renders the
  new one. Distillation runs beside the conversation and the assembly never waits for it, so
  this is the context it would have got had distillation finished a moment later;
  ``Memory.wait_background`` waits for these renders too.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..entity.times import day_label

__all__ = ["CoreCache", "is_distillation"]

log = logging.getLogger(__name__)

#: scopes re-rendered in the background after a commit (the most recently read ones)
_WARM_SCOPES = 8


def is_distillation(meta: dict[str, Any]) -> bool:
    """Whether a batch (by its marker's ``meta``) is distillation over session turns: it
    carries the cursor it advanced; a rollback or a repair's rewind carries one too but is a
    decision (the same rule as the second copy of the operation log, ``storage.jsonl``)."""
    return "cursor" in meta and "rollback_of" not in meta and "lost" not in meta


@dataclass(frozen=True)
class _Text:
    version: int
    day: str
    user_changes: int  # changes by users seen when it was rendered
    text: str


class CoreCache:
    """``get(scope)``: core.md of ``scope``. ``render(scope)`` does the work, ``version()`` is
    the knowledge version (any process), ``subscribe(listener)`` calls ``listener(batch)``
    after every committed batch (returns False when the store cannot tell: then every change
    counts as a user's)."""

    def __init__(
        self,
        render: Callable[[str], str],
        version: Callable[[], int],
        subscribe: Callable[[Callable[[Any], None]], bool],
    ) -> None:
        self._render = render
        self._version = version
        self._subscribe = subscribe
        self._texts: dict[str, _Text] = {}
        self._scope_locks: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self._thread: threading.Thread | None = None
        self._subscribed = False
        self._notified = False  # whether commits are reported (else: all count as users')
        self._user_changes = 0
        self._closed = False
        self.renders = 0  #: texts rendered (foreground and background), for tests and benches

    def get(self, scope: str) -> str:
        """core.md of ``scope`` for the knowledge as it is now (see the module docstring)."""
        self._start()
        version, day = self._version(), day_label(time.time())  # the version first: it
        with self._lock:  # catches up with other processes, and counts their users' changes
            hit = self._texts.get(scope)
            users = self._user_changes
        if hit is not None and hit.day == day:
            if hit.version == version:
                return hit.text
            if self._notified and hit.user_changes == users:
                self._poke()  # distillation only since: the new text is on its way
                return hit.text
        return self._refresh(scope)

    def ready(self, scope: str) -> bool:
        """Whether the text of ``scope`` is rendered for the knowledge as it is now."""
        version, day = self._version(), day_label(time.time())
        with self._lock:
            hit = self._texts.get(scope)
        return hit is not None and hit.version == version and hit.day == day

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the background renders asked for so far are done."""
        return self._idle.wait(timeout)

    def close(self) -> None:
        """Stop the background thread (texts already rendered stay readable)."""
        self._closed = True
        self._poke()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)

    # ------------------------------------------------------------------ internals

    def _refresh(self, scope: str) -> str:
        with self._lock:
            lock = self._scope_locks.setdefault(scope, threading.Lock())
        with lock:  # one render per scope at a time; who waited finds it done
            version, day = self._version(), day_label(time.time())
            with self._lock:
                hit = self._texts.get(scope)
                users = self._user_changes
            if hit is not None and hit.version == version and hit.day == day:
                return hit.text
            text = self._render(scope)
            with self._lock:
                self.renders += 1
                self._texts.pop(scope, None)  # newest last: the warm set is the tail
                self._texts[scope] = _Text(version, day, users, text)
            return text

    def _changed(self, batch: Any) -> None:
        """A batch committed (called under the store's lock: count and wake, nothing more)."""
        meta = getattr(batch, "meta", None)
        with self._lock:
            if not isinstance(meta, dict) or not is_distillation(meta):
                self._user_changes += 1
        self._poke()

    def _poke(self) -> None:
        if self._thread is None:
            return
        with self._lock:  # with the idle flag, so that wait() never misses a wake-up
            self._idle.clear()
            self._wake.set()

    def _start(self) -> None:
        if self._subscribed or self._closed:
            return
        with self._lock:
            if self._subscribed:
                return
            self._subscribed = True
        ref = weakref.ref(self)

        def changed(batch: Any) -> None:
            cache = ref()
            if cache is not None:
                cache._changed(batch)

        thread = threading.Thread(
            target=_warm, args=(ref, self._wake), name="ogmem-core-md", daemon=True
        )
        self._thread = thread
        thread.start()
        self._notified = self._subscribe(changed)

    def _warm_once(self) -> None:
        with self._lock:
            scopes = list(self._texts)[-_WARM_SCOPES:]
        for scope in scopes:
            if self._closed:
                return
            try:
                self._refresh(scope)
            except Exception:  # a reader renders it again, and reports what fails
                log.warning("background core.md of %s failed", scope, exc_info=True)

    def _rest(self) -> None:
        with self._lock:
            if not self._wake.is_set():
                self._idle.set()


def _warm(ref: weakref.ref[CoreCache], wake: threading.Event) -> None:
    """The background thread: after each commit, render again what was read before. It holds
    the cache only while working, so a cache nobody holds any more is collected and this
    ends."""
    while True:
        wake.wait(timeout=30)
        cache = ref()
        if cache is None or cache._closed:
            if cache is not None:
                cache._idle.set()
            return
        if wake.is_set():
            wake.clear()
            cache._warm_once()
        cache._rest()
        del cache
