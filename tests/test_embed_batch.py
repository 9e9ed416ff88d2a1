"""Micro-batching of query embeddings: concurrent callers share encode calls and each gets
its own vector; errors reach every caller of the failed batch. A query does not wait for a
passage batch of the e5 engine."""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Sequence

import numpy as np
import pytest
from conftest import fresh_python

from ogmemory.embed import E5Embedder, make_embedder
from ogmemory.embed.base import encode_queries
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


def test_a_query_does_not_wait_for_a_passage_batch() -> None:
    """The e5 engine keeps no state between calls: a query runs while a passage batch holds
    the engine (the hook's recall used to wait for the background indexer's whole batch)."""
    e5 = E5Embedder()
    reference = e5.encode_query(["Which port does the billing service use?"])
    found: list[np.ndarray] = []
    with e5._locks[False]:  # a background passage batch is in flight
        asking = threading.Thread(
            target=lambda: found.append(
                e5.encode_query(["Which port does the billing service use?"])
            )
        )
        asking.start()
        asking.join(60)
        assert not asking.is_alive()
    assert np.allclose(found[0], reference, atol=1e-5)
    passages = ["The billing service listens on port 6432.", "Deploys go out on Tuesdays."] * 8
    batch = threading.Thread(target=lambda: found.append(e5.encode(passages)))
    batch.start()  # a real passage batch beside real queries: the same vectors
    queries = [e5.encode_query(["Which port does the billing service use?"]) for _ in range(5)]
    batch.join(60)
    assert all(np.allclose(q, reference, atol=1e-5) for q in queries)
    assert np.allclose(found[1], e5.encode(passages), atol=1e-5)


def test_passages_embed_on_one_openmp_thread_and_queries_on_the_idle_cores() -> None:
    """Two spinning OpenMP threads on busy cores made a query take seconds (embed/omp.py)."""
    from ogmemory.embed.omp import max_threads, set_threads

    E5Embedder().encode(["load the engine and its OpenMP runtime"])
    seen: dict[str, int] = {}

    def background() -> None:
        seen["set"] = set_threads(background=True)
        seen["max"] = max_threads()

    worker = threading.Thread(target=background)
    worker.start()
    worker.join(30)
    assert seen == {"set": 1, "max": 1}  # the runtime of the engine was found and obeys
    assert 1 <= set_threads(background=False) == max_threads() <= (os.cpu_count() or 1)


def _engine_settings(env: dict[str, str]) -> tuple[str, str]:
    """(GOMP_SPINCOUNT as the engine's runtime reports it, whether the variable was left in the
    environment) after a fresh process embedded a query."""
    script = (
        "import os\n"
        "from ogmemory.embed import E5Embedder\n"
        "E5Embedder().encode_query(['which database?'])\n"
        "print('left', os.environ.get('GOMP_SPINCOUNT'))\n"
    )
    done = fresh_python(script, OMP_DISPLAY_ENV="VERBOSE", **env)
    spin = re.search(r"GOMP_SPINCOUNT = '(\d+)'", done.stderr)
    assert spin is not None, done.stderr
    return spin.group(1), done.stdout.strip().splitlines()[-1]


def test_the_engine_threads_spin_briefly_unless_the_environment_says_otherwise() -> None:
    """libgomp's 300,000 spinning rounds at each barrier burnt 120 ms of CPU per query beside
    busy cores; the runtime is loaded with SPIN_ROUNDS, and the variable does not leak into
    child processes. A spin count or wait policy the user set wins."""
    from ogmemory.embed.omp import SPIN_ROUNDS

    assert _engine_settings({}) == (str(SPIN_ROUNDS), "left None")
    assert _engine_settings({"GOMP_SPINCOUNT": "300000"}) == ("300000", "left 300000")


def test_a_batch_of_queries_embeds_on_every_core_whatever_the_load() -> None:
    """A busy server's own request threads keep the load average up: its micro-batches used
    to get one thread, so the server's embedding ran on one core of two."""
    from ogmemory.embed.omp import max_threads, set_threads

    E5Embedder().encode_query(["load the engine and its OpenMP runtime"])
    cores = os.cpu_count() or 1
    assert set_threads(background=False, batch=8) == max_threads() == cores
    assert set_threads(background=True, batch=8) == max_threads() == 1  # passages: one
