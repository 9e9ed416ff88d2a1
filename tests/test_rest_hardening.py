"""Issue 10 against the REST server: fail-closed keys, the peer-address decision, body limits,
invalid text and strict bodies, the docs behind keys, the last admin key.

Live uvicorn servers on real sockets; the peer-address decision is also driven through httpx's
ASGI transport, which lets a test say which address the request comes from.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from ogmemory import Memory
from ogmemory.config import Settings
from ogmemory.interfaces.rest import create_app
from ogmemory.interfaces.rest.keys import KeyStore
from ogmemory.interfaces.rest.server import BackgroundServer

PROBLEM = "application/problem+json"


def _settings(home: Path, **kw: Any) -> Settings:
    return Settings(home=home, embedder="none", distill_on_turn=False, index_worker=False, **kw)


def _problem(resp: httpx.Response, status: int) -> dict[str, Any]:
    assert resp.status_code == status, (resp.status_code, resp.text[:500])
    assert resp.headers["content-type"] == PROBLEM
    body: dict[str, Any] = resp.json()
    assert body["status"] == status and body["detail"]
    return body


def _outward_address() -> str | None:
    """An address of this machine that is not loopback (none on an isolated host)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.123", 9))  # no packet is sent: this only picks a route
        except OSError:
            return None
        address: str = s.getsockname()[0]
    return None if address.startswith("127.") or address == "0.0.0.0" else address


@pytest.fixture
def keyed(tmp_path: Path) -> Iterator[tuple[Path, str, str]]:
    """A home with an admin key and a user key: ``(home, admin token, user token)``."""
    home = tmp_path / "home"
    keys = KeyStore(home)
    admin = keys.create("ops", "root", label="admin", admin=True)[1]
    user = keys.create("acme", "alice", label="alice")[1]
    yield home, admin, user


# ====================================================================== 3. fail closed


def test_keys_removed_or_emptied_while_running_fail_closed(keyed: tuple[Path, str, str]) -> None:
    home, _, user = keyed
    auth = {"Authorization": f"Bearer {user}"}
    saved = (home / "keys.json").read_bytes()
    with (
        BackgroundServer(create_app(_settings(home))) as server,
        httpx.Client(base_url=server.url) as http,
    ):
        assert http.get("/v1/sessions", headers=auth).status_code == 200
        for broken in (None, b"", b'{"format": 1, "keys": []}', saved[: len(saved) // 2]):
            if broken is None:
                (home / "keys.json").unlink()
            else:
                (home / "keys.json").write_bytes(broken)
            for headers in ({"Host": "localhost"}, auth, {}):
                body = _problem(http.get("/v1/sessions", headers=headers), 503)
                assert "key file" in body["detail"] and "keys.json" not in body["detail"]
                _problem(http.post("/v1/memories", headers=headers, json={"text": "x"}), 503)
            _problem(http.get("/health"), 503)
        (home / "keys.json").write_bytes(saved)  # keys back: served again, with keys
        assert http.get("/v1/sessions", headers=auth).status_code == 200
        _problem(http.get("/v1/sessions", headers={"Host": "localhost"}), 401)
        assert http.get("/health").json()["auth"] == "keys"
    with Memory(settings=_settings(home)) as mem:
        assert mem.memories() == []  # nothing was written while the keys were gone


def test_the_loopback_decision_uses_the_peer_address(tmp_path: Path) -> None:
    """Without keys: a request from another machine is refused whatever its Host header."""
    app = create_app(_settings(tmp_path / "home"))

    async def ask(peer: str, headers: dict[str, str]) -> httpx.Response:
        transport = httpx.ASGITransport(app=app, client=(peer, 40000))
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as http:
            return await http.get("/v1/sessions", headers=headers)

    async def main() -> None:
        for peer in ("192.0.2.10", "10.1.2.3", "2001:db8::5", "::ffff:192.0.2.10"):
            for host in ("localhost", "127.0.0.1:8765", "[::1]:8765"):
                _problem(await ask(peer, {"Host": host}), 403)
        assert (await ask("127.0.0.1", {"Host": "localhost:8765"})).status_code == 200
        assert (await ask("::1", {"Host": "[::1]:8765"})).status_code == 200
        assert (await ask("::ffff:127.0.0.1", {"Host": "localhost"})).status_code == 200
        _problem(await ask("127.0.0.1", {"Host": "evil.example"}), 403)  # DNS rebinding
        _problem(
            await ask("127.0.0.1", {"Host": "localhost", "Origin": "http://evil.example"}), 403
        )
        ok = await ask("127.0.0.1", {"Host": "localhost", "Origin": "http://127.0.0.1:8765"})
        assert ok.status_code == 200

    anyio.run(main)


def test_a_remote_peer_with_host_localhost_gets_nothing_once_keys_are_gone(
    keyed: tuple[Path, str, str],
) -> None:
    """The reproduction as run: ``--host 0.0.0.0`` with keys, then keys.json removed, then a
    request from another address carrying ``Host: localhost``."""
    address = _outward_address()
    if address is None:
        pytest.skip("this machine has no non-loopback address to connect from")
    home, _, _ = keyed
    with BackgroundServer(create_app(_settings(home)), host="0.0.0.0") as server:
        url = f"http://{address}:{server.port}"
        _problem(httpx.get(url + "/v1/sessions", headers={"Host": "localhost"}), 401)
        (home / "keys.json").unlink()
        for method, path, body in (
            ("GET", "/v1/sessions", None),
            ("POST", "/v1/memories", {"text": "written by a stranger"}),
        ):
            resp = httpx.request(method, url + path, json=body, headers={"Host": "localhost"})
            assert resp.status_code == 503, resp.text
    with Memory(settings=_settings(home)) as mem:
        assert mem.memories() == []


def test_without_keys_a_remote_peer_is_refused_on_a_live_socket(tmp_path: Path) -> None:
    """Local mode bound beyond loopback (possible in code, refused by ``ogmem serve``)."""
    address = _outward_address()
    if address is None:
        pytest.skip("this machine has no non-loopback address to connect from")
    with BackgroundServer(create_app(_settings(tmp_path / "home")), host="0.0.0.0") as server:
        resp = httpx.get(
            f"http://{address}:{server.port}/v1/sessions", headers={"Host": "localhost"}
        )
        _problem(resp, 403)
        assert httpx.get(f"http://127.0.0.1:{server.port}/v1/sessions").status_code == 200


# ====================================================================== 2. sizes


def test_bodies_over_the_limit_get_413(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with (
        BackgroundServer(create_app(_settings(home, max_body_bytes=64 * 1024))) as server,
        httpx.Client(base_url=server.url, timeout=60) as http,
    ):
        big = {"role": "user", "content": "x" * 70_000}
        body = _problem(http.post("/v1/sessions/s1/messages", json=big), 413)
        assert "65,536 bytes" in body["detail"]

        def stream() -> Iterator[bytes]:  # no Content-Length: the limit counts what arrives
            yield b'{"role": "user", "content": "'
            for _ in range(100):
                yield b"y" * 1000
            yield b'"}'

        _problem(
            http.post(
                "/v1/sessions/s2/messages",
                content=stream(),
                headers={"content-type": "application/json"},
            ),
            413,
        )
        _problem(http.post("/v1/recall", json={"query": "q" * 70_000}), 413)
        ok = http.post("/v1/sessions/s3/messages", json={"role": "user", "content": "x" * 60_000})
        assert ok.status_code == 201
        # A history file upload has its own, larger limit (64 MiB).
        upload = http.post(
            "/v1/import/claude-code",
            params={"name": "s4.jsonl"},
            content=b"{}\n" * 40_000,
            headers={"content-type": "application/octet-stream"},
        )
        assert upload.status_code == 200, upload.text
    with Memory(settings=_settings(home)) as mem:
        assert "s3" in [s.session_id for s in mem.list_sessions()]


def test_the_default_limit_refuses_a_200_mb_body_and_serves_a_million_characters(
    tmp_path: Path,
) -> None:
    with (
        BackgroundServer(create_app(_settings(tmp_path / "home"))) as server,
        httpx.Client(base_url=server.url, timeout=120) as http,
    ):
        # Announce 200 MB and send 1 KB of it: refused on the announced length, before reading.
        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
            sock.sendall(
                b"POST /v1/sessions/s1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                b"Content-Type: application/json\r\n"
                b"Content-Length: %d\r\n\r\n" % (200 * 1024 * 1024) + b"x" * 1024
            )
            head = sock.recv(4096).decode("latin-1")
        assert head.startswith("HTTP/1.1 413 "), head
        assert PROBLEM in head
        big = " ".join(f"token{i % 501}" for i in range(120_000))
        assert len(big) > 1_000_000
        for sid, text in (("big", big), ("small", "We moved billing to PostgreSQL.")):
            assert (
                http.post(
                    f"/v1/sessions/{sid}/messages", json={"role": "user", "content": text}
                ).status_code
                == 201
            )
            assert http.post(f"/v1/sessions/{sid}/commit").status_code == 200
        recalled = http.post("/v1/recall", json={"query": "Which database for billing?"})
        assert recalled.status_code == 200, recalled.text
        assert not recalled.json()["fallback"]
        assert http.get("/v1/search", params={"q": "token7"}).status_code == 200


# ====================================================================== 5, 9. bodies


def _raw(http: httpx.Client, path: str, raw: str) -> httpx.Response:
    """POST a JSON text as written (``\\ud800`` escapes survive, as a client would send them)."""
    return http.post(path, content=raw.encode(), headers={"content-type": "application/json"})


def test_invalid_text_and_coerced_types_are_422_and_write_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with (
        BackgroundServer(create_app(_settings(home))) as server,
        httpx.Client(base_url=server.url) as http,
    ):
        for raw in (
            '{"role": "user", "content": "a\\ud800b"}',
            '{"role": "user", "content": "x", "metadata": {"k\\ud800": 1}}',
            '{"role": "user", "content": [{"type": "text", "text": "\\udfff"}]}',
            (
                '{"role": "assistant", "tool_calls": [{"id": "c", "type": "function", '
                '"function": {"name": "r\\ud800", "arguments": "{}"}}]}'
            ),
            '{"role": "user", "content": "x", "event_time": "0001-01-01T00:00:00+14:00"}',
            '{"role": "user", "content": "x", "event_time": true}',
        ):
            resp = _raw(http, "/v1/sessions/s1/messages", raw)
            assert resp.status_code in (400, 422), (raw, resp.text)
            _problem(resp, resp.status_code)
        for raw in ('{"text": "tea\\ud800"}', '{"text": "tea", "scope": "project:\\ud800"}'):
            _problem(_raw(http, "/v1/memories", raw), 422)
        _problem(_raw(http, "/v1/memories", '{"text": "tea", "scope": "project:../x"}'), 400)
        _problem(_raw(http, "/v1/recall", '{"query": "tea", "budget": "2000"}'), 422)
        _problem(_raw(http, "/v1/sessions", '{"temporary": "yes"}'), 422)
        _problem(_raw(http, "/v1/sessions/s9/commit", '{"message": 5}'), 422)  # not a string
        assert http.get("/v1/sessions").json() == []
        assert http.get("/v1/memories").json() == []
        # A commit whose context cannot be stored commits nothing; the turn commits after.
        http.post("/v1/sessions/s1/messages", json={"role": "user", "content": "hello"})
        _problem(_raw(http, "/v1/sessions/s1/commit", '{"context": {"x": "\\ud800"}}'), 422)
        _problem(_raw(http, "/v1/sessions/s1/commit", '{"message": "m\\ud800"}'), 422)
        turn = http.post("/v1/sessions/s1/commit", json={"context": {"x": "ok"}}).json()
        assert turn["turn"] == 1 and turn["commit"]
        assert http.get("/v1/sessions/s1").json()["turns"] == 1
        assert http.post("/v1/recall", json={"query": "hello", "budget": 2000}).status_code == 200


# ====================================================================== 9. keys and docs


def test_docs_need_a_key_and_the_last_admin_key_stays(keyed: tuple[Path, str, str]) -> None:
    home, admin, user = keyed
    with (
        BackgroundServer(create_app(_settings(home))) as server,
        httpx.Client(base_url=server.url) as http,
    ):
        _problem(http.get("/openapi.json"), 401)
        spec = http.get("/openapi.json", headers={"Authorization": f"Bearer {user}"})
        assert "/v1/memories" in spec.json()["paths"]
        assert "/v1/" not in http.get("/docs").text  # the docs page shows the spec it is given
        assert http.get("/redoc").status_code == 404  # its page loads a CDN: not served
        root = {"Authorization": f"Bearer {admin}"}
        me = next(k for k in http.get("/v1/admin/keys", headers=root).json() if k["admin"])
        body = _problem(http.delete(f"/v1/admin/keys/{me['key_id']}", headers=root), 409)
        assert "last active admin key" in body["detail"]
        second = http.post(
            "/v1/admin/keys", headers=root, json={"account": "ops", "space": "root", "admin": True}
        ).json()
        assert http.delete(f"/v1/admin/keys/{me['key_id']}", headers=root).status_code == 200
        _problem(http.get("/v1/admin/keys", headers=root), 401)  # revoked at once
        other = {"Authorization": f"Bearer {second['token']}"}
        _problem(http.delete(f"/v1/admin/keys/{second['key_id']}", headers=other), 409)
        users = [k for k in http.get("/v1/admin/keys", headers=other).json() if not k["admin"]]
        assert http.delete(f"/v1/admin/keys/{users[0]['key_id']}", headers=other).status_code == 200
    # The owner of the machine may still revoke it with the CLI (it can create keys anyway).
    assert KeyStore(home).revoke(second["key_id"]).revoked


def test_problem_details_quote_invalid_text_safely(tmp_path: Path) -> None:
    with BackgroundServer(create_app(_settings(tmp_path / "home"))) as server:
        resp = httpx.post(
            server.url + "/v1/sessions/s1/messages",
            content=b'{"role": "user", "content": "x", "\\ud800": 1}',
            headers={"content-type": "application/json"},
        )
        body = _problem(resp, 422)
        assert json.loads(resp.text) == body
