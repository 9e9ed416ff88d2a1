"""Micro-batching of query embeddings: concurrent callers share encode calls and each gets
its own vector; errors reach every caller of the failed batch. A query waiting for the model
goes before the rest of a passage batch."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

import numpy as np
import pytest

from ogmemory.embed import make_embedder
from ogmemory.embed.base import QueryFirstLock, encode_queries
from ogmemory.embed.batch import QueryBatcher


def test_concurrent_queries_share_calls_and_get_their_own_vectors() -> None:
    emb = make_embedder("use")
    assert emb is not None
    calls: list[int] = []

    def encode(texts: Sequence[str]) -> np.ndarray:
        calls.append(len(texts))
        time.sleep(0.02)  # an embedding call takes a while: others queue meanwhile
        return encode_queries(emb, texts)

    batcher = QueryBatcher(encode)
    texts = [f"question number {i} about topic {i % 5}" for i in range(32)]
    results: dict[str, np.ndarray] = {}
    barrier = threading.Barrier(len(texts))

    def ask(text: str) -> None:
        barrier.wait()
        results[text] = batcher(text)

    threads = [threading.Thread(target=ask, args=(t,)) for t in texts]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sum(calls) == len(texts) and len(calls) < len(texts) / 2  # batched
    expected = encode_queries(emb, texts)
    for i, text in enumerate(texts):
        assert np.allclose(results[text], expected[i], atol=1e-4)
    assert batcher("alone").shape == (emb.dim,) and calls[-1] == 1  # idle: no waiting


def test_an_encode_error_reaches_every_caller_and_the_next_batch_works() -> None:
    fail = [True]

    def encode(texts: Sequence[str]) -> np.ndarray:
        if fail[0]:
            raise RuntimeError("engine down")
        return np.zeros((len(texts), 3), dtype=np.float32)

    batcher = QueryBatcher(encode)
    with pytest.raises(RuntimeError, match="engine down"):
        batcher("x")
    fail[0] = False
    assert batcher("y").shape == (3,)


def test_a_waiting_query_goes_before_the_next_passage_chunk() -> None:
    lock = QueryFirstLock()
    order: list[str] = []
    first_chunk, release = threading.Event(), threading.Event()

    def passages() -> None:  # background indexing: three chunks, one at a time
        for i in range(3):
            with lock.hold(query=False):
                order.append(f"passages {i}")
                if i == 0:
                    first_chunk.set()
                    release.wait(30)

    def query() -> None:
        with lock.hold(query=True):
            order.append("query")

    background = threading.Thread(target=passages)
    background.start()
    assert first_chunk.wait(30)
    asking = threading.Thread(target=query)
    asking.start()
    for _ in range(3000):  # until the query is queued behind the chunk in flight
        with lock._cond:
            if lock._queries:
                break
        time.sleep(0.01)
    assert order == ["passages 0"]
    release.set()
    background.join(30)
    asking.join(30)
    assert order == ["passages 0", "query", "passages 1", "passages 2"]
