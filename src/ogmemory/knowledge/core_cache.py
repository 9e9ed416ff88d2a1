"""core.md per scope, rendered once per knowledge change and reused until the next one.

Rendering core.md reads every current fact and event of the scope (``knowledge.core``): at
1,000 turns it was a fifth of the context engine's assembly time, because fast-path distillation
commits a batch after nearly every turn and the next assembly rendered it again in the
foreground. Here a text is kept per ``(scope, knowledge version, day)`` (the day: deadlines
before it are past and the title names it), and when a batch commits (``KnowledgeStore``'s
``on_commit``, which also fires for batches another process committed, when this one catches
up) a background thread renders again the scopes asked for before, so the next reader finds
the text ready.

Correctness never depends on that thread: a reader whose version differs from the text's
renders it itself (waiting for a render of the same scope already under way, never rendering
twice), and the version is read *before* rendering, so a batch landing mid-render only makes
the text look older than it is. Every change a user makes (remember, edit, enable, disable,
forget, rollback) is a committed batch, so it shows in the next read.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

from ..entity.times import day_label

__all__ = ["CoreCache"]

log = logging.getLogger(__name__)

#: scopes re-rendered in the background after a commit (the most recently read ones)
_WARM_SCOPES = 8


class CoreCache:
    """``get(scope)``: core.md of ``scope``; ``render(scope)`` does the work, ``version()``
    is the knowledge version (any process), ``subscribe(listener)`` calls ``listener`` after
    every committed batch (returns False when the store cannot tell)."""

    def __init__(
        self,
        render: Callable[[str], str],
        version: Callable[[], int],
        subscribe: Callable[[Callable[[Any], None]], bool],
    ) -> None:
        self._render = render
        self._version = version
        self._subscribe = subscribe
        self._texts: dict[str, tuple[tuple[int, str], str]] = {}
        self._scope_locks: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._subscribed = False
        self._closed = False
        self.renders = 0  #: texts rendered (foreground and background), for tests and benches

    def get(self, scope: str) -> str:
        """core.md of ``scope`` as of the knowledge now (rendered only if it changed)."""
        self._start()
        key = self._key()
        with self._lock:
            hit = self._texts.get(scope)
        if hit is not None and hit[0] == key:
            return hit[1]
        return self._refresh(scope)

    def ready(self, scope: str) -> bool:
        """Whether the text of ``scope`` is rendered for the knowledge as it is now."""
        key = self._key()
        with self._lock:
            hit = self._texts.get(scope)
        return hit is not None and hit[0] == key

    def close(self) -> None:
        """Stop the background thread (texts already rendered stay readable)."""
        self._closed = True
        self._wake.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)

    # ------------------------------------------------------------------ internals

    def _key(self) -> tuple[int, str]:
        return self._version(), day_label(time.time())

    def _refresh(self, scope: str) -> str:
        with self._lock:
            lock = self._scope_locks.setdefault(scope, threading.Lock())
        with lock:  # one render per scope at a time; who waited finds it done
            key = self._key()  # before rendering: a batch landing meanwhile makes it stale
            with self._lock:
                hit = self._texts.get(scope)
            if hit is not None and hit[0] == key:
                return hit[1]
            text = self._render(scope)
            self.renders += 1
            with self._lock:
                self._texts.pop(scope, None)
                self._texts[scope] = (key, text)  # newest last: the warm set is the tail
            return text

    def _start(self) -> None:
        if self._subscribed or self._closed:
            return
        with self._lock:
            if self._subscribed:
                return
            self._subscribed = True
        ref = weakref.ref(self)

        def changed(_info: Any) -> None:  # called under the store's lock: only wake
            cache = ref()
            if cache is not None:
                cache._wake.set()

        if not self._subscribe(changed):
            return  # a store that cannot tell: every read checks the version (still correct)
        thread = threading.Thread(
            target=_warm, args=(ref, self._wake), name="ogmem-core-md", daemon=True
        )
        self._thread = thread
        thread.start()

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


def _warm(ref: weakref.ref[CoreCache], wake: threading.Event) -> None:
    """The background thread: after each commit, render again what was read before. Holds the
    cache only while working, so a cache nobody holds any more is collected and this ends."""
    while True:
        wake.wait(timeout=30)
        cache = ref()
        if cache is None or cache._closed:
            return
        if wake.is_set():
            wake.clear()
            cache._warm_once()
        del cache
