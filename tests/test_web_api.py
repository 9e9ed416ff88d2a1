"""What the web UI stands on, without a browser: how the page and its assets are served (offline,
strict CSP, vendored files as pinned), and the REST routes it reads (memory versions, batch
changes, the graph as of a date, entity pages, branches, memory types, whoami), tenant-isolated.
Real server on loopback, real home built through the public API."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from web_home import SWITCH_DAY, WebHome, build_home, settings

from ogmemory import Memory
from ogmemory.errors import NotFound
from ogmemory.interfaces.rest import create_app
from ogmemory.interfaces.rest.server import BackgroundServer
from ogmemory.interfaces.web import STATIC_DIR

ROOT = Path(__file__).resolve().parent.parent
PROBLEM = "application/problem+json"


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> WebHome:
    return build_home(tmp_path_factory.mktemp("webapi"))


@pytest.fixture(scope="module")
def server(web: WebHome) -> Iterator[BackgroundServer]:
    with BackgroundServer(create_app(settings(web.home))) as srv:
        yield srv


def client(server: BackgroundServer, token: str | None) -> httpx.Client:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.Client(base_url=server.url, headers=headers, timeout=60)


@pytest.fixture(scope="module")
def alice(web: WebHome, server: BackgroundServer) -> Iterator[httpx.Client]:
    with client(server, web.alice) as http:
        yield http


@pytest.fixture(scope="module")
def bob(web: WebHome, server: BackgroundServer) -> Iterator[httpx.Client]:
    with client(server, web.bob) as http:
        yield http


def ok(resp: httpx.Response) -> Any:
    assert resp.status_code < 300, (resp.status_code, resp.text)
    return resp.json() if resp.content else None


def same_404(http: httpx.Client, url: str, real: str, ghost: str) -> None:
    """Another tenant's id and one that exists nowhere answer alike: the same bytes once the id
    the caller typed is put back."""
    got, ref = http.get(url.format(real)), http.get(url.format(ghost))
    assert got.status_code == ref.status_code == 404, got.text
    assert got.headers["content-type"] == ref.headers["content-type"] == PROBLEM
    assert got.content == ref.content.replace(ghost.encode(), real.encode())


# ====================================================================== serving the page


def test_the_page_is_served_with_a_strict_policy(server: BackgroundServer) -> None:
    resp = httpx.get(server.url + "/")
    assert resp.status_code == 200 and resp.headers["content-type"].startswith("text/html")
    csp = resp.headers["content-security-policy"]
    directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
    assert directives["script-src"] == "'self'"  # no inline script, no eval, no other host
    assert directives["connect-src"] == "'self'" and directives["default-src"] == "'none'"
    assert "unsafe" not in csp and "http" not in csp
    assert resp.headers["x-frame-options"] == "DENY"
    assert resp.headers["x-content-type-options"] == "nosniff"
    for asset in re.findall(r'(?:src|href)="(/static/[^"]+)"', resp.text):
        got = httpx.get(server.url + asset)
        assert got.status_code == 200, asset
        assert got.headers["content-security-policy"] == csp
    js = httpx.get(server.url + "/static/js/app.js")
    assert js.headers["content-type"].startswith("text/javascript")


def test_the_page_needs_no_key_but_the_data_does(server: BackgroundServer) -> None:
    assert httpx.get(server.url + "/").status_code == 200  # the page holds no data
    assert httpx.get(server.url + "/v1/memories").status_code == 401
    assert httpx.get(server.url + "/v1/whoami").status_code == 401


def test_swagger_ui_is_the_vendored_one(server: BackgroundServer, alice: httpx.Client) -> None:
    assert httpx.get(server.url + "/openapi.json").status_code == 401  # behind the keys
    docs = httpx.get(server.url + "/docs")  # a page without data: it needs no key
    assert docs.status_code == 200
    assert "/static/vendor/swagger-ui/swagger-ui-bundle.js" in docs.text
    assert "cdn" not in docs.text.lower() and "http" not in docs.text
    assert httpx.get(server.url + "/redoc").status_code == 404  # FastAPI's page loads a CDN
    paths = alice.get("/openapi.json").json()["paths"]
    assert not [p for p in paths if p in ("/", "/docs") or p.startswith("/static")]


def test_static_files_stay_inside_their_directory(server: BackgroundServer) -> None:
    for probe in (
        "/static/../site.py",
        "/static/..%2fsite.py",
        "/static/%2e%2e/site.py",
        "/static/vendor/../../site.py",
        "/static/nope.js",
    ):
        resp = httpx.get(server.url + probe)
        assert resp.status_code == 404, probe
        assert b"install_web" not in resp.content


# ====================================================================== the assets


def test_vendored_files_are_the_pinned_ones_with_their_licences() -> None:
    vendor = STATIC_DIR / "vendor"
    manifest = json.loads((vendor / "MANIFEST.json").read_text())
    assert {"cytoscape", "swagger-ui"} <= set(manifest)
    script = (ROOT / "scripts" / "vendor-web-assets").read_text()
    for folder, entry in manifest.items():
        assert f"{entry['package']} {entry['version']} {entry['integrity']}" in script
        files = {p.name for p in (vendor / folder).iterdir()}
        assert files == set(entry["files"]), folder
        assert "LICENSE" in files
        for name, digest in entry["files"].items():
            assert hashlib.sha256((vendor / folder / name).read_bytes()).hexdigest() == digest


def test_our_own_assets_load_nothing_from_the_network() -> None:
    own = [
        p
        for p in STATIC_DIR.rglob("*")
        if p.is_file() and "vendor" not in p.parts and p.suffix in {".html", ".js", ".css"}
    ]
    assert len(own) >= 12
    for path in own:
        body = path.read_text(encoding="utf-8")
        assert not re.search(r"https?://|//cdn", body), path
        if path.suffix == ".css":
            assert not re.search(r"@import|url\(", body), path
        assert not re.search(r"\.innerHTML\s*=|insertAdjacentHTML|eval\(", body), path
    imports = {
        m
        for p in own
        if p.suffix == ".js"
        for m in re.findall(r'from "\./([\w-]+\.js)"', p.read_text())
    }
    assert imports and all((STATIC_DIR / "js" / name).is_file() for name in imports)


def test_the_assets_are_package_data() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '"interfaces/web/static/**/*"' in pyproject
    assert (STATIC_DIR / "index.html").is_file() and (STATIC_DIR / "docs.html").is_file()


def test_the_readme_shows_every_screenshot_it_names() -> None:
    readme = (ROOT / "README.md").read_text()
    shown = re.findall(r"\]\((docs/screenshots/[\w.-]+\.png)\)", readme)
    assert len(shown) >= 8
    assert all((ROOT / name).is_file() for name in shown), shown
    taken = {f"docs/screenshots/{p.name}" for p in (ROOT / "docs" / "screenshots").glob("*.png")}
    assert taken == set(shown)  # every screenshot the tests take is in the README


# ====================================================================== who am I


def test_whoami_names_the_key_s_tenant(
    alice: httpx.Client, bob: httpx.Client, server: BackgroundServer
) -> None:
    assert {k: v for k, v in ok(alice.get("/v1/whoami")).items() if k != "key_id"} == {
        "account": "acme",
        "space": "alice",
        "admin": False,
        "auth": "keys",
    }
    assert ok(bob.get("/v1/whoami"))["space"] == "bob"
    resp = httpx.get(server.url + "/v1/whoami", headers={"Authorization": "Bearer ogm_nope"})
    assert resp.status_code == 401 and resp.headers["content-type"] == PROBLEM


def test_local_mode_serves_loopback_names_only(tmp_path: Path) -> None:
    with BackgroundServer(create_app(settings(tmp_path / "local"))) as srv:
        me = ok(httpx.get(srv.url + "/v1/whoami"))
        assert me == {
            "account": "local",
            "space": "default",
            "key_id": None,
            "admin": True,
            "auth": "local",
        }
        foreign = {"Host": f"memory.example.com:{srv.port}"}
        assert httpx.get(srv.url + "/v1/whoami", headers=foreign).status_code == 403
        assert httpx.get(srv.url + "/", headers=foreign).status_code == 200  # no data in it


# ====================================================================== memory versions


def test_memory_versions_follow_every_change(alice: httpx.Client) -> None:
    mid = ok(alice.post("/v1/memories", json={"text": "Deploys happen on Tuesdays."}))["id"]
    ok(alice.patch(f"/v1/memories/{mid}", json={"text": "Deploys happen on Thursdays."}))
    ok(alice.post(f"/v1/memories/{mid}/disable"))
    disabled = next(
        b
        for b in reversed(ok(alice.get("/v1/batches")))
        if any(c["id"] == mid for c in ok(alice.get(f"/v1/batches/{b['id']}/changes"))["changes"])
    )
    undo = ok(alice.post(f"/v1/batches/{disabled['id']}/rollback"))
    versions = ok(alice.get(f"/v1/memories/{mid}/versions"))
    assert [v["version"] for v in versions] == [1, 2, 3, 2]
    created, edited, off, back = versions
    assert created["before"] is None and created["after"]["text"] == "Deploys happen on Tuesdays."
    assert "text" in edited["changed"] and "enabled" not in edited["changed"]
    assert edited["before"]["text"].endswith("Tuesdays.")
    assert edited["after"]["text"].endswith("Thursdays.")
    assert off["changed"] == ["enabled"] and off["rolled_back_by"] == undo["id"]
    assert back["rollback_of"] == disabled["id"] and back["after"] == off["before"]
    assert ok(alice.get(f"/v1/memories/{mid}")) == back["after"]


def test_versions_of_another_tenant_s_memory_are_not_found(
    alice: httpx.Client, bob: httpx.Client
) -> None:
    mid = ok(alice.get("/v1/memories"))[0]["id"]
    ok(alice.get(f"/v1/memories/{mid}/versions"))
    same_404(bob, "/v1/memories/{}/versions", mid, "m_000000000000")


def test_a_deleted_memory_has_no_versions_to_read(tmp_path: Path) -> None:
    with Memory(settings=settings(tmp_path / "h")) as mem:
        item = mem.remember("I like plain text.")
        assert [v.version for v in mem.memory_versions(item.id)] == [1]
        mem.forget(item.id)
        with pytest.raises(NotFound):
            mem.memory_versions(item.id)


# ====================================================================== batch changes


def test_batch_changes_page_through_before_and_after(
    alice: httpx.Client, bob: httpx.Client
) -> None:
    distill = max(
        (b for b in ok(alice.get("/v1/batches")) if b["reason"].startswith("distill")),
        key=lambda b: b["ops"],
    )
    whole = ok(alice.get(f"/v1/batches/{distill['id']}/changes"))
    assert whole["total"] == distill["ops"] == len(whole["changes"]) > 3
    assert whole["batch"]["id"] == distill["id"]
    kinds = {c["kind"] for c in whole["changes"]}
    assert {"memory", "evidence", "edge"} <= kinds
    assert all(c["before"] is None for c in whole["changes"] if c["kind"] == "evidence")
    page = ok(alice.get(f"/v1/batches/{distill['id']}/changes", params={"offset": 2, "limit": 2}))
    assert page["offset"] == 2 and page["changes"] == whole["changes"][2:4]
    resp = alice.get(f"/v1/batches/{distill['id']}/changes", params={"limit": 0})
    assert resp.status_code == 422
    same_404(bob, "/v1/batches/{}/changes", distill["id"], "b_20000101T000000_00000000")


# ====================================================================== the graph as of a date


def _edges(snapshot: dict[str, Any]) -> set[tuple[str, str, str]]:
    return {(e["from"], e["relation"], e["to"]) for e in snapshot["edges"]}


def test_the_graph_as_of_a_date(alice: httpx.Client) -> None:
    now = ok(alice.get("/v1/graph"))
    before = ok(alice.get("/v1/graph", params={"at": "2023-04-15"}))
    early = ok(alice.get("/v1/graph", params={"at": "2023-01-01"}))
    assert ("person.user", "uses", "tool.typescript") in _edges(now)
    assert ("person.user", "uses", "tool.javascript") not in _edges(now)
    assert ("person.user", "uses", "tool.javascript") in _edges(before)
    assert "tool.typescript" not in {e["id"] for e in before["entities"]}
    assert early["entities"] == [] and early["edges"] == []
    # Both ends of every relation are in the snapshot; first_seen is never after the date.
    for snap, at in ((now, None), (before, before["at"])):
        ids = {e["id"] for e in snap["entities"]}
        assert all(e["from"] in ids and e["to"] in ids for e in snap["edges"])
        if at is not None:
            assert all(e["first_seen"] <= at for e in snap["entities"])
    assert now["start"] <= before["at"] <= now["end"]
    switch = ok(alice.get("/v1/graph", params={"at": f"{SWITCH_DAY}T12:00:00Z"}))
    assert ("person.user", "uses", "tool.typescript") in _edges(switch)
    assert ("person.user", "uses", "tool.javascript") not in _edges(switch)


def test_the_graph_rejects_bad_input_clearly(alice: httpx.Client) -> None:
    for params in ({"at": "yesterday"}, {"scope": "team"}):
        resp = alice.get("/v1/graph", params=params)
        assert resp.status_code == 400 and resp.headers["content-type"] == PROBLEM
        assert next(iter(params)) in resp.json()["detail"]


def test_a_disabled_memory_leaves_the_graph(tmp_path: Path) -> None:
    with Memory(settings=settings(tmp_path / "h")) as mem:
        item = mem.remember("I use Rust for the parser.", type="tool")
        assert "tool.rust" in {e.id for e in mem.graph_at().entities}
        mem.disable_memory(item.id)
        assert "tool.rust" not in {e.id for e in mem.graph_at().entities}
        assert not [e for e in mem.graph_at().edges if e.dst == "tool.rust"]


def test_bob_s_graph_holds_only_bob_s_knowledge(bob: httpx.Client) -> None:
    ids = {e["id"] for e in ok(bob.get("/v1/graph"))["entities"]}
    assert "tool.emacs" in ids
    assert not ids & {"tool.typescript", "tool.javascript", "tool.python"}


# ================================================================ entity pages, branches, types


def test_entity_pages(alice: httpx.Client, bob: httpx.Client) -> None:
    page = ok(alice.get("/v1/entities/TypeScript/view"))
    assert page["entity"] == "TypeScript"
    assert page["markdown"].startswith("# TypeScript\n") and "tool.typescript" in page["markdown"]
    same_404(bob, "/v1/entities/{}/view", "tool.typescript", "tool.nothing-here")


def test_branches(alice: httpx.Client, bob: httpx.Client, web: WebHome) -> None:
    assert ok(alice.get("/v1/sessions/s1/branches")) == sorted(["main", web.retry_branch])
    same_404(bob, "/v1/sessions/{}/branches", "s1", "s9")
    assert alice.get("/v1/sessions/..%2fb1/branches").status_code in (400, 404, 422)


def test_memory_types(alice: httpx.Client) -> None:
    types = {t["name"]: t for t in ok(alice.get("/v1/memory-types"))}
    assert {"profile", "preference", "tool", "decision"} <= set(types)
    assert types["preference"]["description"]
    assert "source" not in types["profile"]  # no server paths
