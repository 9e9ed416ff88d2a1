"""Concurrent REST recalls share query embedding calls (micro-batching), on a real server."""

from __future__ import annotations

import threading
from pathlib import Path

import httpx

from ogmemory.config import Settings
from ogmemory.interfaces.rest import create_app
from ogmemory.interfaces.rest.server import BackgroundServer
from ogmemory.memory import Memory

CLIENTS = 16
PER_CLIENT = 4


def test_sixteen_concurrent_recalls_are_embedded_in_fewer_calls(tmp_path: Path) -> None:
    settings = Settings(
        home=tmp_path / "home", embedder="use", distill_on_turn=False, index_worker=False
    )
    with Memory(settings=settings) as mem:
        for i, text in enumerate(
            (
                "We moved billing to PostgreSQL.",
                "My manager is Alice Chen.",
                "I am training for the Berlin marathon.",
            )
        ):
            mem.create_session(f"s{i}")
            mem.append_message(f"s{i}", {"role": "user", "content": text})
            mem.commit_turn(f"s{i}")
        mem.sync_index()
        mem.drain_outbox()
    app = create_app(settings)
    errors: list[BaseException] = []
    barrier = threading.Barrier(CLIENTS)
    with BackgroundServer(app) as server:

        def client(c: int) -> None:
            with httpx.Client(base_url=server.url, timeout=120) as http:
                barrier.wait()
                try:
                    for i in range(PER_CLIENT):
                        resp = http.post(
                            "/v1/recall",
                            json={"query": f"question {c} {i}: which database runs billing?"},
                        )
                        assert resp.status_code == 200, resp.text
                        assert "PostgreSQL" in resp.json()["context"]
                except BaseException as exc:
                    errors.append(exc)

        threads = [threading.Thread(target=client, args=(c,)) for c in range(CLIENTS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(300)
        stats = app.state.pool.local().retrieval.query_batching()
    assert not errors, errors[0]
    assert stats["queries"] == CLIENTS * PER_CLIENT
    assert stats["calls"] < stats["queries"]  # concurrent queries shared encode calls
