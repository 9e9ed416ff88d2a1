"""Issue 10, failure 4: ``ogmem mcp --transport http`` with the REST server's API keys.

Real servers on loopback (the ``ogmem mcp`` command as a subprocess, and the same application
in a background thread), the SDK's own streamable-HTTP client, and schemathesis fuzzing the
``/mcp`` endpoint's authentication and body limit from an OpenAPI description of it.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from hypothesis import HealthCheck, given, settings
from mcp.client import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult

from ogmemory import Memory, Settings
from ogmemory.interfaces.mcp.http import BackgroundMCPServer
from ogmemory.interfaces.rest.keys import KeyStore

schemathesis = pytest.importorskip("schemathesis")

from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    status_code_conformance,
)

CLI = [sys.executable, "-m", "ogmemory.interfaces.cli"]
ACCEPT = "application/json, text/event-stream"
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}


def _settings(home: Path, **kw: Any) -> Settings:
    return Settings(home=home, embedder="none", distill_on_turn=False, index_worker=False, **kw)


@dataclass(frozen=True)
class Keys:
    home: Path
    alice: str
    bob: str
    revoked: str


@pytest.fixture
def keys(tmp_path: Path) -> Keys:
    home = tmp_path / "home"
    store = KeyStore(home)
    alice = store.create("acme", "alice", label="alice")[1]
    bob = store.create("acme", "bob", label="bob")[1]
    info, revoked = store.create("acme", "alice", label="old laptop")
    store.revoke(info.key_id)
    return Keys(home, alice, bob, revoked)


def _post(
    url: str, token: str | None, body: Any = INIT, *, headers: dict[str, str] | None = None
) -> httpx.Response:
    sent = {"Accept": ACCEPT, "Content-Type": "application/json", **(headers or {})}
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    return httpx.post(url, content=json.dumps(body).encode(), headers=sent, timeout=30)


async def _tool(url: str, token: str, tool: str, **args: Any) -> CallToolResult:
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        result = await session.call_tool(tool, args)
        assert isinstance(result, CallToolResult)
        return result


def _outward_address() -> str | None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.123", 9))  # picks a route; sends nothing
        except OSError:
            return None
        address: str = s.getsockname()[0]
    return None if address.startswith("127.") else address


# ====================================================================== binding


def test_refuses_to_listen_beyond_loopback_without_keys(tmp_path: Path) -> None:
    env = {**os.environ, "OGMEM_EMBEDDER": "none", "OGMEM_INDEX_WORKER": "0"}
    home = tmp_path / "home"
    proc = subprocess.Popen(
        [
            *CLI,
            "mcp",
            "--transport",
            "http",
            "--host",
            "0.0.0.0",
            "--port",
            "0",
            "--home",
            str(home),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    try:
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail("ogmem mcp --host 0.0.0.0 started serving without any API key")
    assert proc.returncode == 2, err
    assert "refusing to listen on 0.0.0.0" in err and "Traceback" not in err
    with pytest.raises(Exception, match="refusing to listen"):
        BackgroundMCPServer(_settings(home), host="0.0.0.0")


# ====================================================================== keys


def test_keys_are_required_and_pick_the_tenant(keys: Keys) -> None:
    with BackgroundMCPServer(_settings(keys.home)) as server:
        for token in (None, keys.revoked, "ogm_" + "x" * 43, "not-a-token"):
            resp = _post(server.url, token)
            assert resp.status_code == 401, (token, resp.text)
            assert resp.headers["content-type"] == "application/problem+json"
            assert resp.headers["www-authenticate"] == "Bearer"
        resp = httpx.post(server.url, headers={"Authorization": f"Basic {keys.alice}"}, json=INIT)
        assert resp.status_code == 401

        async def main() -> None:
            done = await _tool(
                server.url,
                keys.alice,
                "memory_remember",
                text="Alice keeps the deploy keys in the blue vault.",
            )
            assert not done.is_error, done.content
            found = await _tool(server.url, keys.alice, "memory_search", query="blue vault")
            assert "blue vault" in found.content[0].text  # type: ignore[union-attr]
            other = await _tool(server.url, keys.bob, "memory_search", query="blue vault")
            assert not other.is_error
            text = other.content[0].text  # type: ignore[union-attr]
            assert "(no hits)" in text and "blue vault" not in text.split("\n", 1)[1]

        anyio.run(main)
        # An MCP session opened with alice's key is unknown to bob's tenant.
        opened = _post(server.url, keys.alice)
        assert opened.status_code == 200
        sid = opened.headers["mcp-session-id"]
        listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
        assert _post(
            server.url, keys.bob, listing, headers={"mcp-session-id": sid}
        ).status_code in (400, 404)
    with Memory(settings=_settings(keys.home).with_tenant("acme", "alice")) as mem:
        assert [m.text for m in mem.memories()] == [
            "Alice keeps the deploy keys in the blue vault."
        ]
    with Memory(settings=_settings(keys.home)) as mem:
        assert mem.memories() == []  # the local tenant got nothing


def test_revocation_and_removed_keys_take_effect_at_once(keys: Keys) -> None:
    address = _outward_address()
    host = "0.0.0.0" if address else "127.0.0.1"
    with BackgroundMCPServer(_settings(keys.home), host=host) as server:
        url = f"http://{address or '127.0.0.1'}:{server.port}/mcp"
        assert _post(url, keys.alice).status_code == 200
        store = KeyStore(keys.home)
        alice = next(k for k in store.list() if k.label == "alice")
        store.revoke(alice.key_id)
        assert _post(url, keys.alice).status_code == 401
        (keys.home / "keys.json").unlink()
        for token in (None, keys.bob):
            resp = _post(url, token, headers={"Host": "localhost"})
            assert resp.status_code == 503, resp.text


def test_without_keys_only_this_machine_is_served(tmp_path: Path) -> None:
    with BackgroundMCPServer(_settings(tmp_path / "home")) as server:
        assert _post(server.url, None).status_code == 200
        resp = _post(server.url, None, headers={"Host": "evil.example"})
        assert resp.status_code == 403  # a DNS-rebound name is not this machine
        resp = _post(server.url, None, headers={"Origin": "http://evil.example"})
        assert resp.status_code == 403


def test_bodies_over_the_limit_get_413(keys: Keys) -> None:
    with BackgroundMCPServer(_settings(keys.home, max_body_bytes=32 * 1024)) as server:
        call = {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "memory_remember", "arguments": {"text": "z" * 40_000}},
        }
        resp = _post(server.url, keys.alice, call)
        assert resp.status_code == 413 and "32,768 bytes" in resp.json()["detail"]
        assert _post(server.url, None, call).status_code == 413  # size first: nothing is read


# ====================================================================== schemathesis


def _mcp_spec(tokens: dict[str, str]) -> dict[str, Any]:
    """OpenAPI for ``/mcp`` as a client sees it: JSON-RPC in, JSON or SSE out; every answer
    a failed authentication can give is documented, so conformance checks have teeth."""
    problem = {
        "application/problem+json": {
            "schema": {"type": "object", "required": ["type", "title", "status", "detail"]}
        }
    }
    errors = {
        str(code): {
            "description": "error",
            "content": {**problem, "application/json": {}, "text/plain": {}},
        }
        for code in (400, 404, 405, 406, 415, 421)
    }
    errors.update(
        {str(code): {"description": "refused", "content": problem} for code in (401, 403, 413, 503)}
    )
    auth = {
        "name": "Authorization",
        "in": "header",
        "required": True,
        "schema": {"type": "string", "enum": sorted(tokens.values())},
    }
    accept = {
        "name": "Accept",
        "in": "header",
        "required": True,
        "schema": {"type": "string", "enum": [ACCEPT, "application/json", "text/html"]},
    }
    body = {
        "type": "object",
        "required": ["jsonrpc", "method"],
        "properties": {
            "jsonrpc": {"type": "string", "enum": ["2.0", "1.0"]},
            "id": {"type": "integer", "minimum": 0, "maximum": 1000},
            "method": {
                "type": "string",
                "enum": [
                    "initialize",
                    "ping",
                    "tools/list",
                    "tools/call",
                    "resources/list",
                    "resources/read",
                    "nope",
                ],
            },
            "params": {"type": "object"},
        },
    }
    ok = {"description": "answer", "content": {"application/json": {}, "text/event-stream": {}}}
    return {
        "openapi": "3.0.3",
        "info": {"title": "ogmemory MCP over HTTP", "version": "1"},
        "paths": {
            "/mcp": {
                "post": {
                    "parameters": [auth, accept],
                    "requestBody": {
                        "required": True,
                        "content": {"application/json": {"schema": body}},
                    },
                    "responses": {"200": ok, "202": {"description": "accepted"}, **errors},
                },
                "get": {"parameters": [auth, accept], "responses": {"200": ok, **errors}},
                "delete": {"parameters": [auth], "responses": {"200": ok, **errors}},
            }
        },
    }


@pytest.fixture(scope="module")
def mcp_live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    home = tmp_path_factory.mktemp("mcp-fuzz") / "home"
    store = KeyStore(home)
    valid = store.create("fuzz", "main", label="fuzzer")[1]
    info, revoked = store.create("fuzz", "main", label="revoked")
    store.revoke(info.key_id)
    tokens = {
        "valid": f"Bearer {valid}",
        "revoked": f"Bearer {revoked}",
        "unknown": "Bearer ogm_" + "A" * 43,
        "basic": f"Basic {valid}",
        "empty": "Bearer ",
        "lowercase": f"bearer {valid}",
    }
    with BackgroundMCPServer(_settings(home, max_body_bytes=16 * 1024)) as server:
        yield server.url, tokens


def _authorised_only(tokens: dict[str, str]) -> Any:
    accepted = {tokens["valid"], tokens["lowercase"]}

    def auth_decides(ctx: Any, response: Any, case: Any) -> bool:
        sent = case.headers.get("Authorization")
        status = response.status_code
        if sent in accepted:
            assert status not in (401, 403, 503), f"a valid key got {status}"
        elif status != 413:  # the size limit is checked before the key
            assert status == 401, f"Authorization {sent!r} got {status}, not 401"
        return True

    return auth_decides


def test_mcp_http_auth_fuzz(mcp_live: tuple[str, dict[str, str]]) -> None:
    """Generated requests to every method of ``/mcp``, each with one of the Authorization
    values (valid, lowercase scheme, revoked, unknown, Basic, empty): no 5xx, only documented
    answers, and only a valid key gets past 401."""
    url, tokens = mcp_live
    schema = schemathesis.openapi.from_dict(_mcp_spec(tokens))
    checks = [
        not_a_server_error,
        status_code_conformance,
        content_type_conformance,
        _authorised_only(tokens),
    ]
    statuses: dict[str, set[int]] = {}
    for result in schema.get_all_operations():
        operation = result.ok()

        @given(case=operation.as_strategy())
        @settings(
            max_examples=40,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def run(case: Any) -> None:
            response = case.call_and_validate(
                base_url=url.removesuffix("/mcp"), timeout=30, checks=checks
            )
            sent = case.headers.get("Authorization")
            statuses.setdefault(sent, set()).add(response.status_code)

        run()
    assert statuses.get(tokens["unknown"]) == {401}
    assert statuses.get(tokens["revoked"]) == {401}
    assert any(s - {401, 403, 503} for s in statuses.values())  # valid keys got answers


def test_mcp_http_size_limit_fuzz(mcp_live: tuple[str, dict[str, str]]) -> None:
    """The same spec and checks, with bodies around the server's 16 KiB limit."""
    url, tokens = mcp_live
    schema = schemathesis.openapi.from_dict(_mcp_spec(tokens))
    operation = schema["/mcp"]["POST"]
    seen = set()
    for size in (16 * 1024 - 200, 16 * 1024 + 1, 64 * 1024, 1024 * 1024):
        for token in (tokens["valid"], tokens["unknown"]):
            body = {
                "jsonrpc": "2.0",
                "id": 7,
                "method": "tools/call",
                "params": {"name": "memory_search", "arguments": {"query": "q", "pad": "p" * size}},
            }
            case = operation.Case(
                body=body,
                headers={"Authorization": token, "Accept": ACCEPT},
                media_type="application/json",
            )
            response = case.call_and_validate(
                base_url=url.removesuffix("/mcp"),
                timeout=30,
                checks=[
                    not_a_server_error,
                    status_code_conformance,
                    content_type_conformance,
                    _authorised_only(tokens),
                ],
            )
            seen.add(response.status_code)
            if size > 16 * 1024:
                assert response.status_code == 413
    assert 413 in seen and seen - {413}
    time.sleep(0)  # nothing left running
