"""Micro-batching of query embeddings: concurrent recalls share one ``encode`` call.

Embedding one query costs nearly as much as embedding several together (the engine's setup and
threads dominate), so a server answering many recalls at once should not embed them one by one.
``QueryBatcher`` is a leader/follower queue: a caller that finds no batch running becomes the
leader and embeds everything queued, again and again until the queue is empty; callers that
arrive meanwhile wait for the leader's next round. An idle server adds no delay (a lone query
is embedded at once); a busy one embeds what arrived during the previous call in one go.

>>> import numpy as np
>>> batcher = QueryBatcher(lambda texts: np.ones((len(texts), 2), dtype=np.float32))
>>> batcher("hello").tolist()
[1.0, 1.0]
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import numpy as np

__all__ = ["QueryBatcher"]


class _Slot:
    __slots__ = ("done", "error", "text", "vector")

    def __init__(self, text: str) -> None:
        self.text = text
        self.vector: np.ndarray | None = None
        self.error: BaseException | None = None
        self.done = threading.Event()


class QueryBatcher:
    """Embeds queries of concurrent callers together (at most ``max_batch`` per call)."""

    def __init__(
        self, encode: Callable[[Sequence[str]], np.ndarray], *, max_batch: int = 64
    ) -> None:
        self._encode = encode
        self._max_batch = max(1, max_batch)
        self._lock = threading.Lock()
        self._queue: list[_Slot] = []
        self._leading = False
        self.calls = 0  # encode calls made (batches), for benchmarks
        self.queries = 0

    def __call__(self, text: str) -> np.ndarray:
        slot = _Slot(text)
        with self._lock:
            self._queue.append(slot)
            lead = not self._leading
            if lead:
                self._leading = True
        if lead:
            self._lead()
        slot.done.wait()
        if slot.error is not None:
            raise slot.error
        assert slot.vector is not None
        return slot.vector

    def _lead(self) -> None:
        while True:
            with self._lock:
                batch = self._queue[: self._max_batch]
                del self._queue[: self._max_batch]
                if not batch:
                    self._leading = False
                    return
            try:
                vectors = self._encode([s.text for s in batch])
            except BaseException as exc:  # every waiter of this batch gets the error
                for s in batch:
                    s.error = exc
                    s.done.set()
                continue
            self.calls += 1
            self.queries += len(batch)
            for s, v in zip(batch, vectors, strict=True):
                s.vector = v
                s.done.set()
