"""The web UI in a real headless Chromium against the real server (uvicorn on loopback) and a real
home: every tab loads, memories are created, edited, disabled and enabled through the page (and
the API agrees), conflicts are shown, a rollback from the page restores the before state, the
time slider changes the graph, and a second tenant's key sees nothing of the first. Screenshots
of each tab go to ``docs/screenshots/`` (the README shows them), checked for not being blank.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import pytest
from browser import (
    chromium,
    click,
    confirm,
    console_errors,
    contains,
    css,
    go,
    require_browser,
    require_cjk_font,
    same_origin,
    shot,
    sign_in,
    text,
    visible,
    wait,
    wait_ready,
)
from web_home import WebHome, build_home, settings

from ogmemory import Memory
from ogmemory.interfaces.rest import create_app
from ogmemory.interfaces.rest.keys import KeyStore
from ogmemory.interfaces.rest.server import BackgroundServer

ALICE_ONLY = [
    "JavaScript",
    "TypeScript",
    "PostgreSQL",
    "Python over Java",
    "webshop",
    "Frontend stack",
    "团队",
    "pytest",
]

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> WebHome:
    require_browser()
    return build_home(tmp_path_factory.mktemp("web"))


@pytest.fixture(scope="module")
def server(web: WebHome) -> Iterator[BackgroundServer]:
    with BackgroundServer(create_app(settings(web.home))) as srv:
        yield srv


@pytest.fixture(scope="module")
def api(web: WebHome, server: BackgroundServer) -> Iterator[httpx.Client]:
    with httpx.Client(
        base_url=server.url, timeout=60, headers={"Authorization": f"Bearer {web.alice}"}
    ) as client:
        yield client


@pytest.fixture(scope="module")
def page(web: WebHome, server: BackgroundServer) -> Iterator[Any]:
    """Alice's browser: the page asks for a key, she gives hers."""
    with chromium() as driver:
        driver.get(server.url + "/#/memories")
        sign_in(driver, web.alice)
        wait_ready(driver, "memories")
        yield driver


def ok(resp: httpx.Response) -> Any:
    assert resp.status_code < 300, resp.text
    return resp.json() if resp.content else None


def memory_by_text(api: httpx.Client, fragment: str) -> dict[str, Any]:
    found: list[dict[str, Any]] = [m for m in ok(api.get("/v1/memories")) if fragment in m["text"]]
    assert len(found) == 1, found
    return found[0]


# ====================================================================== every tab


TABS = [
    ("memories", "#memory-list article.memory", "我们团队有 3 个人。"),
    ("facts", "#facts-results tr[data-fact-id]", "switched from JavaScript to TypeScript"),
    ("graph", "#graph-status[data-nodes]", "entities"),
    ("timeline", "#timeline-results section.month", "All 5 tests pass."),
    ("sessions/s1", "#session-dag .msg", "Frontend stack"),
    ("batches", "#batch-list article.batch", "distill (rules)"),
    ("core", "#core-text", "ogmemory"),
]


def test_every_tab_loads_offline_and_is_screenshotted(page: Any, server: BackgroundServer) -> None:
    console_errors(page)  # forget the sign-in
    for where, selector, expected in TABS:
        go(page, server, where)
        wait(partial(css, page, selector), message=f"{selector} on {where}")
        wait(partial(contains, page, expected), message=f"{expected!r} on {where}")
        assert not css(page, ".error-box"), f"{where}: {text(page)[:500]}"
        if where == "graph":
            wait(lambda: int(css(page, "#graph-status")[0].get_attribute("data-nodes")) > 3)
        shot(page, where.split("/")[0])
        assert console_errors(page) == [], where
    same_origin(page, server)
    # Swagger UI: the vendored one, not the CDN's (whose page stays blank offline).
    page.get(server.url + "/docs")
    wait(lambda: len(css(page, ".opblock")) > 20, message="the Swagger UI operations")
    wait(lambda: "/v1/memories/{memory_id}/versions" in text(page))
    shot(page, "api-docs")
    same_origin(page, server)
    assert console_errors(page) == []
    page.get(server.url + "/#/memories")
    wait_ready(page, "memories")


def test_chinese_text_renders_with_real_glyphs(page: Any, server: BackgroundServer) -> None:
    require_cjk_font()
    go(page, server, "memories")
    item = wait(lambda: [e for e in css(page, ".memory-text") if "团队" in e.text])
    assert item[0].text == "我们团队有 3 个人。"
    # Drawn with the page's own font stack: a font without CJK glyphs draws the same
    # "missing glyph" box for every character, so distinct characters must differ.
    glyphs = page.execute_script(
        """
        const family = getComputedStyle(arguments[0]).fontFamily;
        const canvas = document.createElement('canvas');
        canvas.width = 64; canvas.height = 64;
        const g = canvas.getContext('2d');
        const draw = (ch) => {
          g.clearRect(0, 0, 64, 64);
          g.font = `48px ${family}`;
          g.fillText(ch, 4, 52);
          const d = g.getImageData(0, 0, 64, 64).data;
          let ink = 0;
          for (let i = 3; i < d.length; i += 4) ink += d[i] > 0 ? 1 : 0;
          return [ink, Array.from(d).join(',')];
        };
        return [draw('中'), draw('团'), draw('队'), draw('\\u{10FFFD}')];
    """,
        item[0],
    )
    (ink_a, zhong), (ink_b, tuan), (_, dui), (_, missing) = glyphs
    assert ink_a > 50 and ink_b > 50
    assert len({zhong, tuan, dui}) == 3, "CJK characters draw identical boxes: no CJK font"
    assert missing not in {zhong, tuan, dui}


# ====================================================================== memories


def test_create_edit_disable_enable_through_the_page(
    page: Any, server: BackgroundServer, api: httpx.Client
) -> None:
    go(page, server, "memories")
    click(page, "#new-memory")
    wait(lambda: visible(page, "#new-memory-text")).send_keys(
        "Our staging database is called Otter."
    )
    click(page, "#new-memory-save")
    wait(lambda: "Remembered" in text(page), message="the confirmation")
    created = memory_by_text(api, "called Otter")
    assert created["source"] == "user" and created["version"] == 1 and created["enabled"]
    card = f'article[data-memory-id="{created["id"]}"]'
    wait(lambda: css(page, card))

    click(page, f"{card} [data-action=edit]")
    box = wait(lambda: visible(page, f"{card} textarea.edit-text"))
    box.clear()
    box.send_keys("Our staging database is called Beaver.")
    click(page, f"{card} [data-action=save]")
    wait(lambda: ok(api.get(f"/v1/memories/{created['id']}"))["version"] == 2)
    assert (
        ok(api.get(f"/v1/memories/{created['id']}"))["text"]
        == "Our staging database is called Beaver."
    )
    wait(lambda: "called Beaver" in css(page, card)[0].text)

    click(page, f"{card} [data-action=disable]")
    wait(lambda: not ok(api.get(f"/v1/memories/{created['id']}"))["enabled"])
    wait(lambda: css(page, card)[0].get_attribute("data-enabled") == "false")
    hidden = ok(api.get("/v1/memories", params={"include_disabled": "false"}))
    assert created["id"] not in {m["id"] for m in hidden}

    click(page, f"{card} [data-action=enable]")
    wait(lambda: ok(api.get(f"/v1/memories/{created['id']}"))["enabled"])
    wait(lambda: css(page, card)[0].get_attribute("data-enabled") == "true")

    # Its versions, as the operation log has them: added, edited, disabled, enabled.
    click(page, f"{card} [data-action=details]")
    versions = ok(api.get(f"/v1/memories/{created['id']}/versions"))
    assert [v["version"] for v in versions] == [1, 2, 3, 4]
    wait(lambda: len(css(page, f"{card} .versions li")) == len(versions))
    assert "called Otter" in css(page, f"{card} .versions li")[1].text
    assert "called Beaver" in css(page, f"{card} .versions li")[1].text
    wait(lambda: "added by hand" in css(page, f"{card} .evidence")[0].text)
    shot(page, "memory-details", notice=True)


def test_an_edit_conflict_is_shown_and_nothing_is_lost(
    page: Any, server: BackgroundServer, api: httpx.Client
) -> None:
    mid = ok(api.post("/v1/memories", json={"text": "The release train leaves on Fridays."}))["id"]
    go(page, server, "memories")
    card = f'article[data-memory-id="{mid}"]'
    click(page, f"{card} [data-action=edit]")
    box = wait(lambda: visible(page, f"{card} textarea.edit-text"))
    box.clear()
    box.send_keys("The release train leaves on Thursdays.")
    # Meanwhile someone else edits the same memory.
    ok(
        api.patch(
            f"/v1/memories/{mid}",
            json={"text": "The release train leaves on Wednesdays.", "expected_version": 1},
        )
    )
    click(page, f"{card} [data-action=save]")
    conflict = wait(lambda: visible(page, f"{card} [data-conflict]"), message="the conflict")
    assert "Conflict" in conflict.text and "version 1" in conflict.text
    assert "version 2" in conflict.text and "Wednesdays" in conflict.text
    assert ok(api.get(f"/v1/memories/{mid}"))["text"] == "The release train leaves on Wednesdays."
    click(page, f"{card} [data-action=overwrite]")
    wait(lambda: ok(api.get(f"/v1/memories/{mid}"))["version"] == 3)
    assert ok(api.get(f"/v1/memories/{mid}"))["text"] == "The release train leaves on Thursdays."


# ====================================================================== batches


def _batch_changing(api: httpx.Client, memory_id: str, **after: Any) -> str:
    """The newest batch whose change of ``memory_id`` left ``after`` fields."""
    for batch in reversed(ok(api.get("/v1/batches"))):
        for change in ok(api.get(f"/v1/batches/{batch['id']}/changes"))["changes"]:
            if (
                change["kind"] == "memory"
                and change["id"] == memory_id
                and change["after"]
                and all(change["after"].get(k) == v for k, v in after.items())
            ):
                return str(batch["id"])
    raise AssertionError(f"no batch changed {memory_id} to {after}")


def test_rollback_from_the_page_restores_the_before_state(
    page: Any, server: BackgroundServer, api: httpx.Client
) -> None:
    mid = ok(api.post("/v1/memories", json={"text": "Invoices are archived for ten years."}))["id"]
    before = ok(api.get(f"/v1/memories/{mid}"))
    ok(api.post(f"/v1/memories/{mid}/disable"))
    batch = _batch_changing(api, mid, enabled=False)
    go(page, server, "batches")
    row = f'article[data-batch-id="{batch}"]'
    click(page, f"{row} [data-action=changes]")
    change = wait(lambda: visible(page, f'{row} tr[data-kind=memory][data-id="{mid}"]'))
    assert "enabled" in change.text and "true" in change.text and "false" in change.text
    click(page, f"{row} [data-action=rollback]")
    confirm(page)
    wait(lambda: "Rolled back" in text(page), message="the rollback notice")
    assert ok(api.get(f"/v1/memories/{mid}")) == before
    wait(lambda: css(page, row)[0].get_attribute("data-rolled-back") == "1")
    assert not css(page, f"{row} [data-action=rollback]")


def test_a_refused_rollback_is_shown_and_can_be_forced(
    page: Any, server: BackgroundServer, api: httpx.Client
) -> None:
    mid = ok(api.post("/v1/memories", json={"text": "Backups run at midnight."}))["id"]
    before = ok(api.get(f"/v1/memories/{mid}"))
    ok(api.post(f"/v1/memories/{mid}/disable"))
    batch = _batch_changing(api, mid, enabled=False)
    ok(api.patch(f"/v1/memories/{mid}", json={"text": "Backups run at 2 am."}))
    go(page, server, f"batches/{batch}")
    row = f'article[data-batch-id="{batch}"]'
    click(page, f"{row} [data-action=rollback]")
    confirm(page)
    error = wait(lambda: visible(page, f"{row} .error-box"), message="the refusal")
    assert "409" in error.text and "changed after batch" in error.text
    assert ok(api.get(f"/v1/memories/{mid}"))["text"] == "Backups run at 2 am."
    click(page, f"{row} [data-action=force]")
    confirm(page)
    wait(lambda: ok(api.get(f"/v1/memories/{mid}"))["enabled"], message="the forced rollback")
    restored = ok(api.get(f"/v1/memories/{mid}"))
    assert {k: restored[k] for k in ("text", "enabled", "version")} == {
        k: before[k] for k in ("text", "enabled", "version")
    }


# ====================================================================== graph


def _graph(page: Any) -> dict[str, Any]:
    """What cytoscape shows (its instance is registered on its container as ``_cyreg``)."""
    data: dict[str, Any] = page.execute_script("""
        const cy = document.getElementById('graph-canvas')._cyreg.cy;
        return {nodes: cy.nodes(':visible').map(n => n.id()),
                edges: cy.edges(':visible').map(e => [e.source().id(), e.data('label'),
                                                      e.target().id()])};""")
    return data


def _status(page: Any) -> str:
    return str(css(page, "#graph-status")[0].text)


def test_the_time_slider_changes_the_graph(
    page: Any, server: BackgroundServer, api: httpx.Client
) -> None:
    go(page, server, "graph")
    wait(lambda: "now ·" in _status(page))
    now = _graph(page)
    assert ["person.user", "uses", "tool.typescript"] in now["edges"]
    assert not any(e[2] == "tool.javascript" for e in now["edges"])
    slider = css(page, "#graph-time")[0]
    first_day = int(slider.get_attribute("min"))
    target = (date(2023, 4, 15) - date(1970, 1, 1)).days
    assert first_day < target
    slider.click()
    slider.send_keys("\ue011")  # Home: the first day
    slider.send_keys("\ue014" * (target - first_day))  # arrow right, a day per press
    wait(lambda: "as of 2023-04-15" in _status(page), message="the graph as of 2023-04-15")
    then = _graph(page)
    assert ["person.user", "uses", "tool.javascript"] in then["edges"]
    assert "tool.typescript" not in then["nodes"]
    snap = ok(api.get("/v1/graph", params={"at": "2023-04-15T23:59:59Z"}))
    assert sorted(then["nodes"]) == sorted(e["id"] for e in snap["entities"])
    assert len(then["edges"]) == len(snap["edges"])
    shot(page, "graph-2023-04-15")

    # Selecting an entity (a real click where cytoscape drew it) shows its page and facts.
    pos = page.execute_script("""
        const cy = document.getElementById('graph-canvas')._cyreg.cy;
        const node = cy.getElementById('tool.javascript');
        cy.zoom(3);
        cy.center(node);  // as a user zooms in on it: no other node under the pointer
        const p = node.renderedPosition();
        const box = cy.container().getBoundingClientRect();
        return [p.x - box.width / 2, p.y - box.height / 2];""")
    from selenium.webdriver.common.action_chains import ActionChains

    canvas = css(page, "#graph-canvas")[0]
    ActionChains(page).move_to_element_with_offset(
        canvas, int(pos[0]), int(pos[1])
    ).click().perform()
    side = wait(
        lambda: visible(page, '#graph-side .entity-page[data-entity="tool.javascript"]'),
        message="the entity page",
    )
    assert "JavaScript" in side.text
    wait(lambda: "decided to use JavaScript" in css(page, "#graph-side")[0].text)
    click(page, "#graph-fit")
    shot(page, "graph-entity")

    # Filtering by type hides the tools; "Now" brings the current graph back.
    click(page, '.type-filter input[data-type="tool"]')
    wait(lambda: not any(n.startswith("tool.") for n in _graph(page)["nodes"]))
    click(page, '.type-filter input[data-type="tool"]')
    click(page, "#graph-now")
    wait(lambda: "now ·" in _status(page))
    assert ["person.user", "uses", "tool.typescript"] in _graph(page)["edges"]


# ====================================================================== sessions


def test_sessions_show_the_dag_with_retries_and_tool_calls(
    page: Any, server: BackgroundServer, api: httpx.Client, web: WebHome
) -> None:
    go(page, server, "sessions/s1")
    branches = wait(lambda: css(page, "#session-dag .fork .branch"))
    assert len(branches) == 2
    assert web.retry_branch in branches[1].text and "current" in branches[1].text
    tool = css(page, f'.msg[data-node-id="{web.tool_node}"]')[0]
    assert tool.get_attribute("data-role") == "tool" and "5 passed" in tool.text
    assert 'run({"cmd": "pytest"})' in text(page)
    log = ok(api.get("/v1/sessions/s1/log"))
    wait(lambda: len(css(page, "#session-commits li")) == len(log))
    css(page, "#session-commits li button")[-1].click()  # the first turn
    wait(
        lambda: (
            {e.get_attribute("data-node-id") for e in css(page, ".msg.target")}
            == set(log[-1]["node_ids"])
        )
    )
    listed = css(page, "#session-list .session-item")
    assert {e.get_attribute("data-session-id") for e in listed} == {
        s["session_id"] for s in ok(api.get("/v1/sessions"))
    }
    assert any(f"project {web.project_id}" in e.text for e in listed)


def test_evidence_links_open_the_exact_turns(
    page: Any, server: BackgroundServer, api: httpx.Client
) -> None:
    memory = memory_by_text(api, "switched from JavaScript to TypeScript")
    evidence = ok(api.get(f"/v1/memories/{memory['id']}/evidence"))[0]["provenance"]
    go(page, server, f"memories/{memory['id']}")
    link = wait(lambda: visible(page, f'article[data-memory-id="{memory["id"]}"] a.prov-link'))
    link.click()
    wait_ready(page, "sessions")
    wait(
        lambda: (
            {e.get_attribute("data-node-id") for e in css(page, ".msg.target")}
            == set(evidence["node_ids"])
        ),
        message="the cited turns highlighted",
    )
    assert evidence["session_id"] in page.current_url


def test_rename_and_delete_a_session(
    page: Any, server: BackgroundServer, api: httpx.Client, web: WebHome
) -> None:
    for role, content in (("user", "A throwaway chat."), ("assistant", "Fine.")):
        ok(api.post("/v1/sessions/tmp-1/messages", json={"role": role, "content": content}))
    ok(api.post("/v1/sessions/tmp-1/commit"))
    go(page, server, "sessions/tmp-1")
    click(page, "[data-action=rename]")
    field = wait(lambda: visible(page, "#session-title"))
    field.clear()
    field.send_keys("临时对话 (throwaway)")
    field.submit()
    wait(lambda: ok(api.get("/v1/sessions/tmp-1"))["title"] == "临时对话 (throwaway)")
    wait(lambda: "临时对话 (throwaway)" in css(page, "#session-heading")[0].text)

    click(page, "[data-action=delete]")
    confirm(page, ok=False)
    assert api.get("/v1/sessions/tmp-1").status_code == 200
    click(page, "[data-action=delete]")
    confirm(page)
    wait(lambda: api.get("/v1/sessions/tmp-1").status_code == 404, message="the deletion")
    wait(lambda: page.current_url.endswith("#/sessions"))
    assert not (web.home / "tenants" / "acme" / "alice" / "sessions" / "tmp-1").exists()


# ====================================================================== core and recall


def test_core_and_the_recall_box(page: Any, server: BackgroundServer, api: httpx.Client) -> None:
    go(page, server, "core")
    core = ok(api.get("/v1/core"))
    assert css(page, "#core-text")[0].text.strip() == core["text"].strip()
    query = "Which language does the frontend use?"
    wait(lambda: visible(page, "#recall-query")).send_keys(query)
    click(page, "#recall-run")
    summary = wait(lambda: visible(page, "#recall-summary"), message="the recall result")
    expected = ok(api.post("/v1/recall", json={"query": query, "budget": 2000}))
    assert expected["items"], "the recall found nothing to show"
    assert summary.get_attribute("data-items") == str(len(expected["items"]))
    assert summary.get_attribute("data-tokens") == str(expected["tokens"])
    items = css(page, ".recall-item")
    assert [int(i.get_attribute("data-tokens")) for i in items] == [
        i["tokens"] for i in expected["items"]
    ]
    assert sum(i["tokens"] for i in expected["items"]) <= 2000
    for item in items:
        assert (
            "tokens" in item.text and "score" in item.find_element("css selector", ".reasons").text
        )
    shot(page, "recall")


# ====================================================================== tenancy


def test_a_second_tenant_sees_nothing_of_the_first(
    web: WebHome, server: BackgroundServer, api: httpx.Client
) -> None:
    alice_memory = memory_by_text(api, "Python over Java")["id"]
    alice_batch = ok(api.get("/v1/batches"))[0]["id"]
    with chromium() as bob:
        bob.get(server.url + "/#/memories")
        wait(lambda: visible(bob, "#key-input"))
        shot(bob, "key-prompt")
        sign_in(bob, "ogm_not-a-key")
        wait(lambda: "unknown or revoked" in css(bob, "#key-error")[0].text)
        sign_in(bob, web.bob)
        wait_ready(bob, "memories")
        assert css(bob, "#tenant")[0].text.startswith("acme / bob")
        wait(lambda: "green tea over coffee" in text(bob))
        for where in ("memories", "facts", "graph", "timeline", "sessions", "batches", "core"):
            go(bob, server, where)
            wait(lambda: "Loading" not in text(bob))
            seen = text(bob)
            assert not [w for w in ALICE_ONLY if w in seen], (where, seen[:800])
            source = bob.page_source
            assert alice_memory not in source and alice_batch not in source
        # Alice's ids, typed into Bob's page, find nothing.
        go(bob, server, f"memories/{alice_memory}")
        assert "not found" in text(bob)
        go(bob, server, "sessions/s1")
        assert "404" in wait(lambda: visible(bob, "#session-detail .error-box")).text
        go(bob, server, f"batches/{alice_batch}")
        assert not css(bob, f'article[data-batch-id="{alice_batch}"]')
        assert console_errors(bob) == [] or all(
            "404" in m or "401" in m for m in console_errors(bob)
        )
        # Signing out forgets the key: the page asks again.
        click(bob, "#signout")
        wait(lambda: visible(bob, "#key-input"), message="the key dialog after signing out")
        assert bob.execute_script("return sessionStorage.length") == 0


def test_a_revoked_key_is_asked_for_again(web: WebHome, server: BackgroundServer) -> None:
    keys = KeyStore(web.home)
    info, token = keys.create("acme", "alice", label="short-lived")
    with chromium() as driver:
        driver.get(server.url + "/#/memories")
        sign_in(driver, token)
        wait_ready(driver, "memories")
        keys.revoke(info.key_id)  # as `ogmem keys revoke` does, from outside the server
        go(driver, server, "facts")
        error = wait(lambda: visible(driver, "#key-error"), message="the key dialog again")
        assert "no longer accepted" in error.text
        assert driver.execute_script("return sessionStorage.length") == 0


def test_without_keys_the_page_opens_the_local_tenant(tmp_path: Path) -> None:
    with Memory(settings=settings(tmp_path / "home")) as mem:
        mem.remember("I keep my notes in plain text files.")
    with BackgroundServer(create_app(settings(tmp_path / "home"))) as srv, chromium() as driver:
        driver.get(srv.url + "/#/memories")
        wait_ready(driver, "memories")
        assert not visible(driver, "#key-input")
        assert css(driver, "#tenant")[0].text == "local / default (local)"
        assert "plain text files" in text(driver)
        assert not visible(driver, "#signout")
        assert console_errors(driver) == []
