"""The REST server, for real: uvicorn on a loopback port, httpx clients, API keys on disk."""

from __future__ import annotations

import json
import multiprocessing
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from ogmemory.config import Settings
from ogmemory.errors import InvalidInput
from ogmemory.interfaces.cli.app import app as cli_app
from ogmemory.interfaces.rest import check_bind, create_app, is_loopback
from ogmemory.interfaces.rest.keys import KeyStore
from ogmemory.interfaces.rest.server import BackgroundServer

PROBLEM = "application/problem+json"


def _settings(home: Path) -> Settings:
    return Settings(home=home, embedder="none")


class Api:
    """An httpx client of one tenant (one API key)."""

    def __init__(self, base: str, token: str | None) -> None:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.http = httpx.Client(base_url=base, headers=headers, timeout=60)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.http, name)

    def ok(self, method: str, url: str, **kwargs: Any) -> Any:
        resp = self.http.request(method, url, **kwargs)
        assert resp.status_code < 300, (method, url, resp.status_code, resp.text)
        return resp.json() if resp.content else None

    def turn(self, sid: str, user: str, reply: str = "Noted.") -> dict[str, Any]:
        self.ok("POST", f"/v1/sessions/{sid}/messages", json={"role": "user", "content": user})
        self.ok(
            "POST", f"/v1/sessions/{sid}/messages", json={"role": "assistant", "content": reply}
        )
        result: dict[str, Any] = self.ok("POST", f"/v1/sessions/{sid}/commit")
        return result


class Site:
    def __init__(self, home: Path, server: BackgroundServer, tokens: dict[str, str]) -> None:
        self.home = home
        self.server = server
        self.url = server.url
        self.tokens = tokens
        self.keys = KeyStore(home)

    def api(self, who: str | None) -> Api:
        return Api(self.url, self.tokens[who] if who else None)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    home = tmp_path_factory.mktemp("rest") / "home"
    keys = KeyStore(home)
    tokens = {}
    for who, account, space, admin in (
        ("admin", "ops", "root", True),
        ("alice", "acme", "alice", False),
        ("bob", "acme", "bob", False),
        ("carol", "globex", "alice", False),
    ):
        tokens[who] = keys.create(account, space, label=who, admin=admin)[1]
    with BackgroundServer(create_app(_settings(home))) as server:
        yield Site(home, server, tokens)


def _problem(resp: httpx.Response, status: int) -> dict[str, Any]:
    assert resp.status_code == status, resp.text
    assert resp.headers["content-type"] == PROBLEM
    body: dict[str, Any] = resp.json()
    assert {"type", "title", "status", "detail"} <= set(body)
    assert body["status"] == status
    return body


# ====================================================================== authentication


def test_health_needs_no_key(site: Site) -> None:
    body = site.api(None).ok("GET", "/health")
    assert body["status"] == "ok" and body["auth"] == "keys"


def test_missing_and_invalid_keys_are_401(site: Site) -> None:
    anon = site.api(None)
    resp = anon.get("/v1/sessions")
    _problem(resp, 401)
    assert resp.headers["www-authenticate"] == "Bearer"
    for header in (
        "Bearer ogm_not-a-real-key",
        "Bearer nonsense",
        "Basic dXNlcjpwYXNz",
        f"Token {site.tokens['alice']}",
    ):
        _problem(anon.get("/v1/memories", headers={"Authorization": header}), 401)


def test_revoked_key_is_401_at_once(site: Site) -> None:
    info, token = site.keys.create("acme", "dave", label="short-lived")
    dave = Api(site.url, token)
    assert dave.get("/v1/sessions").status_code == 200
    site.keys.revoke(info.key_id)  # as `ogmem keys revoke` would, from outside the server
    body = _problem(dave.get("/v1/sessions"), 401)
    assert token not in json.dumps(body)


def test_admin_routes_need_an_admin_key(site: Site) -> None:
    alice, admin = site.api("alice"), site.api("admin")
    _problem(alice.get("/v1/admin/keys"), 403)
    _problem(alice.post("/v1/admin/keys", json={"account": "acme", "space": "x"}), 403)
    created = admin.ok(
        "POST", "/v1/admin/keys", json={"account": "initech", "space": "peter", "label": "api-made"}
    )
    token = created["token"]
    assert token.startswith("ogm_") and created["account"] == "initech"
    listed = admin.ok("GET", "/v1/admin/keys")
    assert {k["label"] for k in listed} >= {"alice", "bob", "api-made"}
    assert all("token" not in k and "hash" not in k for k in listed)
    assert token not in (site.home / "keys.json").read_text()
    peter = Api(site.url, token)
    assert peter.ok("GET", "/v1/sessions") == []
    revoked = admin.ok("DELETE", f"/v1/admin/keys/{created['key_id']}")
    assert revoked["revoked"] is True
    _problem(peter.get("/v1/sessions"), 401)
    _problem(admin.delete("/v1/admin/keys/k_doesnotexist"), 404)
    _problem(admin.post("/v1/admin/keys", json={"account": "a..b", "space": "x"}), 400)


# ====================================================================== the round trip


def test_round_trip(site: Site) -> None:
    api = site.api("alice")
    created = api.ok("POST", "/v1/sessions", json={"session_id": "trip", "title": "Stack talk"})
    assert created["session_id"] == "trip" and created["temporary"] is False
    assert "path" not in created and "meta" not in created  # no server internals
    _problem(api.post("/v1/sessions", json={"session_id": "trip"}), 409)
    first = api.turn("trip", "I switched from JavaScript to TypeScript last week.")
    assert first["turn"] == 1 and len(first["node_ids"]) == 2 and first["commit"]
    api.turn("trip", "My manager is Alice Chen. We decided to use PostgreSQL for the backend.")
    assert api.ok("POST", "/v1/sessions/trip/commit")["commit"] is None  # nothing pending
    renamed = api.ok("PATCH", "/v1/sessions/trip", json={"title": "Languages"})
    assert renamed["title"] == "Languages" and renamed["turns"] == 2
    assert [s["session_id"] for s in api.ok("GET", "/v1/sessions")] == ["trip"]
    nodes = api.ok("GET", "/v1/sessions/trip/nodes")
    assert [n["role"] for n in nodes] == ["user", "assistant"] * 2
    branch = api.ok("GET", "/v1/sessions/trip/branch", params={"head": nodes[1]["id"]})
    assert [n["id"] for n in branch] == [nodes[0]["id"], nodes[1]["id"]]
    log = api.ok("GET", "/v1/sessions/trip/log")
    assert len(log) == 2 and log[0]["node_ids"] == [n["id"] for n in nodes[2:]]

    report = api.ok("POST", "/v1/sleep", json={"mode": "deep"})
    assert report["nodes"] >= 0
    memories = api.ok("GET", "/v1/memories")
    assert any("TypeScript" in m["text"] for m in memories), memories
    ts = next(m for m in memories if "TypeScript" in m["text"])
    assert api.ok("GET", f"/v1/memories/{ts['id']}")["id"] == ts["id"]
    ev = api.ok("GET", f"/v1/memories/{ts['id']}/evidence")
    assert ev[0]["provenance"]["session_id"] == "trip"
    assert ev[0]["provenance"]["node_ids"][0] == nodes[0]["id"]

    facts = api.ok("GET", "/v1/facts")
    assert any(f["to"] == "tool.typescript" for f in facts)
    assert api.ok("GET", "/v1/facts", params={"entity": "TypeScript", "history": True})
    assert api.ok("GET", "/v1/facts", params={"at": "1990-01-01"}) == []
    entity = api.ok("GET", "/v1/entities/TypeScript")
    assert entity["id"] == "tool.typescript"
    assert any(e["id"] == "tool.typescript" for e in api.ok("GET", "/v1/entities"))
    near = api.ok("GET", "/v1/entities/tool.typescript/neighbors", params={"hops": 2})
    assert {e["id"] for e in near["entities"]} >= {"tool.typescript"} and near["edges"]
    events = api.ok("GET", "/v1/timeline", params={"since": "2000-01-01", "until": "2999-12-31"})
    assert events and all(e["kind"] in ("work", "decision", "learning", "event") for e in events)
    assert api.ok("GET", "/v1/timeline", params={"until": "2000-01-01"}) == []
    core = api.ok("GET", "/v1/core", params={"regenerate": True})
    assert "TypeScript" in core["text"] and core["bytes"] <= 2048

    recalled = api.ok(
        "POST", "/v1/recall", json={"query": "Which language do I use now?", "budget": 500}
    )
    assert recalled["items"] and recalled["tokens"] <= 500
    assert any("TypeScript" in item["text"] for item in recalled["items"])
    hits = api.ok("GET", "/v1/search", params={"q": "PostgreSQL", "limit": 5})
    assert hits and len(hits) <= 5

    added = api.ok("POST", "/v1/memories", json={"text": "I prefer green tea.", "type": "profile"})
    assert added["source"] == "user"
    edited = api.ok(
        "PATCH",
        f"/v1/memories/{added['id']}",
        json={"text": "I prefer jasmine tea.", "expected_version": 1},
    )
    assert edited["version"] == 2
    _problem(
        api.patch(f"/v1/memories/{added['id']}", json={"text": "stale", "expected_version": 1}), 409
    )
    assert api.ok("POST", f"/v1/memories/{added['id']}/disable")["enabled"] is False
    assert api.ok("POST", f"/v1/memories/{added['id']}/enable")["enabled"] is True
    assert api.ok("DELETE", f"/v1/memories/{added['id']}")["deleted"] is True
    _problem(api.get(f"/v1/memories/{added['id']}"), 404)

    batches = api.ok("GET", "/v1/batches")
    distilled = next(b for b in batches if b["reason"].startswith("distill"))
    assert api.ok("GET", f"/v1/batches/{distilled['id']}")["ops"] == distilled["ops"]
    undo = api.ok("POST", f"/v1/batches/{distilled['id']}/rollback", json={"force": True})
    assert undo["rollback_of"] == distilled["id"]
    assert not any(m["id"] == ts["id"] for m in api.ok("GET", "/v1/memories"))
    _problem(api.post(f"/v1/batches/{distilled['id']}/rollback"), 409)

    api.ok("POST", "/v1/sessions/trip/end")
    api.ok("DELETE", "/v1/sessions/trip")
    _problem(api.get("/v1/sessions/trip"), 404)


def test_lists_page_with_limit_and_cursor_and_recall_gives_its_context(site: Site) -> None:
    api = site.api("admin")
    for i in range(7):
        api.ok("POST", "/v1/memories", json={"text": f"Pager fact {i}: I collect kites no. {i}."})
        api.turn(f"pager-{i}", f"kite {i} is red")  # no memory of its own
    every = api.ok("GET", "/v1/memories")
    assert len(every) >= 7  # no limit: the whole list, as before
    for url, params in (
        ("/v1/memories", {}),
        ("/v1/sessions", {}),
        ("/v1/sessions/pager-0/nodes", {}),
        ("/v1/entities", {}),
        ("/v1/facts", {}),
        ("/v1/timeline", {}),
        ("/v1/search", {"q": "kite"}),
    ):
        whole = api.ok("GET", url, params={**params, "limit": 100})
        seen: list[Any] = []
        cursor = None
        while True:
            resp = api.get(
                url, params={**params, "limit": 2, **({"cursor": cursor} if cursor else {})}
            )
            assert resp.status_code == 200, (url, resp.text)
            assert len(resp.json()) <= 2
            seen += resp.json()
            cursor = resp.headers.get("x-next-cursor")
            if cursor is None:
                break
        assert seen == whole, url
    assert len(api.ok("GET", "/v1/sessions/pager-0/nodes")) == 2
    first = api.get("/v1/memories", params={"limit": 3})
    assert first.headers["x-total-count"] == str(len(every))
    cursor = first.headers["x-next-cursor"]
    body = _problem(api.get("/v1/timeline", params={"cursor": cursor}), 400)  # other list
    assert "invalid cursor" in body["detail"]
    _problem(api.get("/v1/memories", params={"cursor": "garbage!"}), 400)
    _problem(api.get("/v1/memories", params={"limit": 0}), 422)

    recalled = api.ok("POST", "/v1/recall", json={"query": "Which kites do I collect?"})
    assert recalled["items"] and recalled["context"]
    # the items one after another, each its text and its pointer
    assert recalled["context"] == "\n".join(
        f"{i['text']}  {i['pointer']}".rstrip() for i in recalled["items"]
    )


def test_errors_are_problem_details(site: Site) -> None:
    api = site.api("alice")
    body = _problem(api.get("/v1/sessions/no-such-session"), 404)
    assert body["type"] == "urn:ogmemory:problem:not-found"
    _problem(api.get("/v1/timeline", params={"since": "last tuesday"}), 400)
    _problem(api.get("/v1/memories", params={"scope": "planet:mars"}), 400)
    _problem(api.get("/v1/sessions/a..b"), 400)
    body = _problem(api.post("/v1/recall", json={"query": "", "budget": 5}), 422)
    assert {tuple(e["loc"]) for e in body["errors"]} == {("body", "query"), ("body", "budget")}
    _problem(
        api.post("/v1/recall", content=b"{not json", headers={"content-type": "application/json"}),
        422,
    )
    _problem(api.post("/v1/sessions/x/messages", json={"role": "tool", "content": "hi"}), 400)
    _problem(api.get("/v1/no/such/route"), 404)
    _problem(api.put("/v1/sessions"), 405)


def test_unreadable_key_file_fails_closed_with_503(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "keys.json").write_text("{ this is not json")  # the server must fail closed
    with BackgroundServer(create_app(_settings(home))) as server:
        resp = httpx.get(server.url + "/v1/sessions", headers={"Authorization": "Bearer ogm_x"})
        health = httpx.get(server.url + "/health")
    for answer in (resp, health):
        body = _problem(answer, 503)
        assert str(home) not in answer.text and "keys.json" not in answer.text
        assert "Traceback" not in answer.text and "key file is unreadable" in body["detail"]


# ====================================================================== tenant isolation


def _alice_world(site: Site) -> dict[str, str]:
    """Real resources of tenant alice: a session, a memory, an entity, a batch, a node."""
    alice = site.api("alice")
    sid = f"alice-{uuid.uuid4().hex[:8]}"
    alice.turn(sid, "I switched from Vim to Emacs last month. My doctor is Dr. Ray.")
    mem = alice.ok("POST", "/v1/memories", json={"text": "Alice uses Kubernetes at work."})
    alice.ok("POST", "/v1/sleep", json={"mode": "light"})
    entity = alice.ok("GET", "/v1/entities")[0]["id"]
    batch = alice.ok("GET", "/v1/batches")[-1]["id"]
    node = alice.ok("GET", f"/v1/sessions/{sid}/nodes")[0]["id"]
    return {"session": sid, "memory": mem["id"], "entity": entity, "batch": batch, "node": node}


def _probes(ids: dict[str, str]) -> list[tuple[str, str, dict[str, Any]]]:
    s, m, e, b = ids["session"], ids["memory"], ids["entity"], ids["batch"]
    return [
        ("GET", f"/v1/sessions/{s}", {}),
        ("PATCH", f"/v1/sessions/{s}", {"json": {"title": "mine now"}}),
        ("POST", f"/v1/sessions/{s}/commit", {}),
        ("GET", f"/v1/sessions/{s}/branch", {}),
        ("GET", f"/v1/sessions/{s}/branch", {"params": {"head": ids["node"]}}),
        ("GET", f"/v1/sessions/{s}/nodes", {}),
        ("GET", f"/v1/sessions/{s}/log", {}),
        ("POST", f"/v1/sessions/{s}/end", {}),
        ("DELETE", f"/v1/sessions/{s}", {}),
        ("GET", f"/v1/memories/{m}", {}),
        ("PATCH", f"/v1/memories/{m}", {"json": {"text": "overwritten"}}),
        ("POST", f"/v1/memories/{m}/enable", {}),
        ("POST", f"/v1/memories/{m}/disable", {}),
        ("GET", f"/v1/memories/{m}/evidence", {}),
        ("DELETE", f"/v1/memories/{m}", {}),
        ("GET", f"/v1/entities/{e}", {}),
        ("GET", f"/v1/entities/{e}/neighbors", {"params": {"hops": 2}}),
        ("GET", "/v1/facts", {"params": {"entity": e}}),
        ("GET", "/v1/timeline", {"params": {"entity": e}}),
        ("GET", f"/v1/batches/{b}", {}),
        ("POST", f"/v1/batches/{b}/rollback", {"json": {"force": True}}),
    ]


@pytest.mark.parametrize("intruder", ["bob", "carol"])  # same account / another account
def test_another_tenants_id_is_the_same_404_as_a_random_one(site: Site, intruder: str) -> None:
    real = _alice_world(site)
    fake = {kind: f"{value[:2]}{uuid.uuid4().hex[:10]}" for kind, value in real.items()}
    fake["entity"] = f"tool.{uuid.uuid4().hex[:8]}"
    other = site.api(intruder)
    probes = zip(_probes(real), _probes(fake), strict=True)
    for (method, url, kw), (_, fake_url, fake_kw) in probes:
        got = other.request(method, url, **kw)
        ref = other.request(method, fake_url, **fake_kw)
        assert got.status_code == ref.status_code == 404, (method, url, got.text)
        assert got.headers["content-type"] == ref.headers["content-type"] == PROBLEM
        # The same bytes once the id the caller typed is put back: nothing else differs.
        for kind in real:
            assert fake[kind] not in got.text and real[kind] not in ref.text
        normalised = ref.content
        for kind in real:
            normalised = normalised.replace(fake[kind].encode(), real[kind].encode())
        assert got.content == normalised, (method, url)
    # Random probes with the very same id give byte-identical answers across tenants.
    for method, url, kw in _probes(fake):
        a = site.api("alice").request(method, url, **kw)
        b = other.request(method, url, **kw)
        assert (a.status_code, a.content) == (b.status_code, b.content), (method, url)
    # The intruder changed nothing: alice still has all of it, untouched.
    alice = site.api("alice")
    assert alice.ok("GET", f"/v1/sessions/{real['session']}")["title"] != "mine now"
    assert (
        alice.ok("GET", f"/v1/memories/{real['memory']}")["text"]
        == "Alice uses Kubernetes at work."
    )
    assert alice.ok("GET", f"/v1/batches/{real['batch']}")["rolled_back_by"] is None
    # Lists and recall never show another tenant's data.
    assert real["session"] not in other.get("/v1/sessions").text
    assert "Kubernetes" not in other.get("/v1/memories").text
    recall = other.ok("POST", "/v1/recall", json={"query": "Kubernetes Emacs doctor"})
    assert recall["items"] == []
    assert other.ok("GET", "/v1/search", params={"q": "Kubernetes"}) == []
    # Writing to alice's session id creates the intruder's own session, never touches hers.
    other.ok(
        "POST",
        f"/v1/sessions/{real['session']}/messages",
        json={"role": "user", "content": "hello?"},
    )
    assert len(alice.ok("GET", f"/v1/sessions/{real['session']}/nodes")) == 2
    other.ok("DELETE", f"/v1/sessions/{real['session']}")


# ====================================================================== temporary sessions


def test_temporary_session_leaves_no_trace(site: Site) -> None:
    api = site.api("bob")
    api.turn("bob-kept", "I prefer tea over coffee.")
    api.ok("POST", "/v1/sleep", json={"mode": "deep"})
    tmp = api.ok("POST", "/v1/sessions", json={"temporary": True})
    sid = tmp["session_id"]
    assert tmp["temporary"] is True
    api.turn(sid, "I have a rare illness called zorbitis.", "I am sorry to hear that.")
    assert api.ok("GET", f"/v1/sessions/{sid}")["turns"] == 1
    assert len(api.ok("GET", f"/v1/sessions/{sid}/nodes")) == 2
    # Memory is not read for it...
    assert api.ok("POST", "/v1/recall", json={"query": "tea", "session_id": sid})["items"] == []
    assert api.ok("GET", "/v1/core", params={"session_id": sid})["text"] == ""
    # ...nor written from it.
    api.ok("POST", "/v1/sleep", json={"mode": "deep"})
    assert "zorbitis" not in api.ok("GET", "/v1/core")["text"]
    assert "zorbitis" not in api.get("/v1/memories").text
    assert api.ok("GET", "/v1/search", params={"q": "zorbitis"}) == []
    assert sid not in api.get("/v1/sessions").text

    def traces() -> list[str]:
        return [
            str(p)
            for p in site.home.rglob("*")
            if sid in p.name or (p.is_file() and b"zorbitis" in p.read_bytes())
        ]

    assert traces() == []
    # Another tenant cannot see it: the same 404 as for an id that exists nowhere.
    carol = site.api("carol")
    for path in (f"/v1/sessions/{sid}", f"/v1/sessions/{sid}/nodes"):
        ghost = path.replace(sid, "s_" + uuid.uuid4().hex[:12])
        got, ref = carol.get(path), carol.get(ghost)
        assert got.status_code == ref.status_code == 404
        assert got.content == ref.content.replace(ghost.split("/")[3].encode(), sid.encode())
    api.ok("POST", f"/v1/sessions/{sid}/end")
    _problem(api.get(f"/v1/sessions/{sid}"), 404)
    _problem(api.get(f"/v1/sessions/{sid}/nodes"), 404)
    assert traces() == []


# ====================================================================== concurrency


def test_sixteen_clients_appending_lose_nothing(site: Site) -> None:
    sid, per_thread, threads = "crowded", 12, 16
    site.api("carol").ok("POST", "/v1/sessions", json={"session_id": sid})
    errors: list[str] = []
    barrier = threading.Barrier(threads)

    def writer(n: int) -> None:
        api = site.api("carol")
        barrier.wait()
        for i in range(per_thread):
            resp = api.post(
                f"/v1/sessions/{sid}/messages",
                json={"role": "user", "content": f"writer {n} message {i}"},
            )
            if resp.status_code != 201:
                errors.append(resp.text)

    pool = [threading.Thread(target=writer, args=(n,)) for n in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    assert errors == []
    api = site.api("carol")
    nodes = api.ok("GET", f"/v1/sessions/{sid}/nodes")
    assert len(nodes) == threads * per_thread
    assert len({n["id"] for n in nodes}) == len({n["seq"] for n in nodes}) == len(nodes)
    assert {n["content"] for n in nodes} == {
        f"writer {n} message {i}" for n in range(threads) for i in range(per_thread)
    }
    turn = api.ok("POST", f"/v1/sessions/{sid}/commit")
    assert len(turn["node_ids"]) == threads * per_thread


def test_concurrent_remembers_lose_nothing(site: Site) -> None:
    threads, each = 8, 4
    errors: list[str] = []

    def writer(n: int) -> None:
        api = site.api("bob")
        for i in range(each):
            resp = api.post("/v1/memories", json={"text": f"Fact number {n}-{i} about zephyrs."})
            if resp.status_code != 201:
                errors.append(resp.text)

    pool = [threading.Thread(target=writer, args=(n,)) for n in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    assert errors == []
    texts = {m["text"] for m in site.api("bob").ok("GET", "/v1/memories")}
    assert {
        f"Fact number {n}-{i} about zephyrs." for n in range(threads) for i in range(each)
    } <= texts


def _create_keys(home: str, n: int) -> None:
    store = KeyStore(Path(home))
    for i in range(n):
        store.create("acme", "race", label=f"p{i}")


def test_key_store_is_process_safe(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_create_keys, args=(str(tmp_path), 5)) for _ in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    store = KeyStore(tmp_path)
    assert len({k.key_id for k in store.list()}) == 20
    info, token = store.create("acme", "race", label="last")
    assert store.verify(token) == info and store.verify(token + "x") is None
    assert token not in (tmp_path / "keys.json").read_text()
    assert (tmp_path / "keys.json").stat().st_mode & 0o077 == 0


# ====================================================================== local mode, CLI


def test_local_mode_serves_the_default_tenant_on_loopback_only(tmp_path: Path) -> None:
    home = tmp_path / "home"
    keys = KeyStore(home)
    with pytest.raises(InvalidInput, match=r"refusing to listen on 0\.0\.0\.0"):
        check_bind("0.0.0.0", keys)
    for host in ("127.0.0.1", "::1", "localhost", "127.0.0.2"):
        check_bind(host, keys)
    assert not is_loopback("192.168.1.10") and not is_loopback("example.com")
    with BackgroundServer(create_app(_settings(home))) as server:
        api = Api(server.url, None)
        assert api.ok("GET", "/health")["auth"] == "local"
        api.turn("local-1", "We use Redis for caching.")
        assert [s["session_id"] for s in api.ok("GET", "/v1/sessions")] == ["local-1"]
        # A DNS name rebound onto 127.0.0.1 by a web page is refused.
        _problem(api.get("/v1/sessions", headers={"Host": "attacker.example"}), 403)
        assert (home / "tenants" / "local" / "default" / "sessions" / "local-1").is_dir()
        # Once a key exists, the same server requires it.
        _, token = keys.create("local", "default", label="first")
        _problem(api.get("/v1/sessions"), 401)
        assert Api(server.url, token).ok("GET", "/v1/sessions")[0]["session_id"] == "local-1"
    check_bind("0.0.0.0", keys)  # with a key, listening beyond loopback is allowed


def test_cli_keys_and_serve_refusal(tmp_path: Path) -> None:
    runner = CliRunner()
    home = str(tmp_path / "home")
    res = runner.invoke(cli_app, ["serve", "--host", "0.0.0.0", "--home", home])
    assert res.exit_code == 2 and "refusing to listen" in res.output
    res = runner.invoke(
        cli_app,
        [
            "keys",
            "create",
            "--account",
            "acme",
            "--space",
            "s1",
            "--label",
            "ci",
            "--admin",
            "--home",
            home,
        ],
    )
    assert res.exit_code == 0, res.output
    token = res.stdout.strip().splitlines()[0]
    assert token.startswith("ogm_")
    assert token not in (tmp_path / "home" / "keys.json").read_text()
    listed = json.loads(runner.invoke(cli_app, ["keys", "list", "--json", "--home", home]).stdout)
    assert [(k["account"], k["space"], k["label"], k["admin"]) for k in listed] == [
        ("acme", "s1", "ci", True)
    ]
    assert token not in runner.invoke(cli_app, ["keys", "list", "--home", home]).stdout
    assert (
        json.loads(
            runner.invoke(
                cli_app, ["keys", "list", "--json", "--account", "other", "--home", home]
            ).stdout
        )
        == []
    )
    res = runner.invoke(
        cli_app, ["keys", "revoke", listed[0]["key_id"], "--account", "other", "--home", home]
    )
    assert res.exit_code == 2 and KeyStore(Path(home)).verify(token) is not None
    res = runner.invoke(cli_app, ["keys", "revoke", listed[0]["key_id"], "--home", home])
    assert res.exit_code == 0 and KeyStore(Path(home)).verify(token) is None
    assert runner.invoke(cli_app, ["keys", "revoke", "k_nope", "--home", home]).exit_code == 1
    res = runner.invoke(
        cli_app, ["keys", "create", "--account", "../x", "--space", "s", "--home", home]
    )
    assert res.exit_code == 2
    for args in (["serve", "--help"], ["keys", "--help"], ["keys", "create", "--help"]):
        assert runner.invoke(cli_app, args).exit_code == 0


# ====================================================================== the spec


def test_every_route_is_documented(site: Site) -> None:
    spec = site.api("alice").ok("GET", "/openapi.json")
    operations = [(m, p, op) for p, ops in spec["paths"].items() for m, op in ops.items()]
    assert len(operations) >= 30
    for method, path, op in operations:
        assert op.get("summary") and op.get("description"), (method, path)
        for status, response in op["responses"].items():
            if status[0] in "45":
                assert list(response["content"]) == [PROBLEM], (method, path, status)
        if path != "/health":
            assert {"401", "404", "500"} <= set(op["responses"]), (method, path)
    for schema in spec["components"]["schemas"].values():
        for name, prop in schema.get("properties", {}).items():
            if schema["title"].endswith(("Create", "Update", "In", "Edit")):
                assert prop.get("description"), (schema["title"], name)
    alice = {"Authorization": f"Bearer {site.tokens['alice']}"}
    assert httpx.get(site.url + "/openapi.json", headers=alice).status_code == 200
    _problem(httpx.get(site.url + "/openapi.json"), 401)  # behind the keys, like the API
    shell = httpx.get(site.url + "/docs").text  # the page holds no part of the API
    assert "/v1/" not in shell and "swagger-ui-bundle.js" in shell
    assert httpx.get(site.url + "/redoc", headers=alice).status_code == 404  # loads a CDN
