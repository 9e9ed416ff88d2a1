"""``POST /v1/import/{format}`` on a real server: uploads, re-uploads after growth, tenants."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from ogmemory.config import Settings
from ogmemory.interfaces.rest import create_app
from ogmemory.interfaces.rest.keys import KeyStore
from ogmemory.interfaces.rest.server import BackgroundServer

FIXTURES = Path(__file__).parent / "fixtures" / "agent_history"
S2 = "5f0c1d2e-7a8b-4c9d-8e0f-1a2b3c4d5e02"
CLAUDE = FIXTURES / "claude_code" / "projects" / "-home-dev-shop" / f"{S2}.jsonl"
AIDER = FIXTURES / "aider" / "webshop" / ".aider.chat.history.md"


@pytest.fixture(scope="module")
def clients(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, httpx.Client]]:
    home = tmp_path_factory.mktemp("rest-import") / "home"
    keys = KeyStore(home)
    tokens = {who: keys.create("acme", who, label=who)[1] for who in ("alice", "bob")}
    with BackgroundServer(
        create_app(Settings(home=home, embedder="none", distill_on_turn=False))
    ) as server:
        out = {
            who: httpx.Client(
                base_url=server.url, timeout=60, headers={"Authorization": f"Bearer {token}"}
            )
            for who, token in tokens.items()
        }
        yield out
        for client in out.values():
            client.close()


def upload(client: httpx.Client, fmt: str, data: bytes, name: str) -> httpx.Response:
    return client.post(
        f"/v1/import/{fmt}",
        params={"name": name},
        content=data,
        headers={"Content-Type": "application/octet-stream"},
    )


def test_upload_then_upload_the_grown_file(clients: dict[str, httpx.Client]) -> None:
    alice = clients["alice"]
    data = CLAUDE.read_bytes()
    first = upload(alice, "claude-code", data, CLAUDE.name)
    assert first.status_code == 200, first.text
    body = first.json()
    assert (body["sessions_new"], body["messages"]) == (2, 6)
    assert body["file_results"][0]["sessions"][0]["session_id"] == f"claude-{S2}"
    more = (
        b'{"parentUuid":"00000000-0000-4000-8000-000000000203","type":"user",'
        b'"message":{"role":"user","content":"Prune snapshots older than 30 days."},'
        b'"uuid":"00000000-0000-4000-8000-000000000600",'
        b'"timestamp":"2026-01-05T16:10:00.000Z"}\n'
    )
    again = upload(alice, "claude-code", data + more, CLAUDE.name).json()
    assert (again["messages"], again["sessions_updated"]) == (1, 1)
    nodes = alice.get(f"/v1/sessions/claude-{S2}/nodes").json()
    assert nodes[-1]["content"] == "Prune snapshots older than 30 days."
    # another tenant sees none of it
    assert clients["bob"].get(f"/v1/sessions/claude-{S2}").status_code == 404
    assert clients["bob"].get("/v1/sessions").json() == []


def test_aider_upload_and_bad_input(clients: dict[str, httpx.Client]) -> None:
    bob = clients["bob"]
    resp = upload(bob, "aider", AIDER.read_bytes(), AIDER.name)
    assert resp.status_code == 200 and resp.json()["sessions_new"] == 2
    broken = upload(bob, "codex", b"\xff\xfe not json\n{}\n", "rollout-x.jsonl").json()
    assert broken["messages"] == 0
    assert {i["reason"] for i in broken["issues"]} >= {"not UTF-8"}
    bad = upload(bob, "codex", b"{}", "../../etc/passwd")
    assert bad.status_code == 400 and bad.headers["content-type"].startswith(
        "application/problem+json"
    )
    assert upload(bob, "word", b"", "x.doc").status_code == 422
