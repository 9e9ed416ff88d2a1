"""ogm:// URIs (seed 004): one grammar, one resolver, the same answers through the facade, the
REST server and the MCP server; tenants never see each other's records."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import httpx
import pytest
from test_mcp import call, call_error, stdio_session

from ogmemory import ContextEngine, Memory, Settings
from ogmemory.errors import InvalidInput, NotFound
from ogmemory.interfaces.rest import create_app
from ogmemory.interfaces.rest.server import BackgroundServer
from ogmemory.resolver import URIResolver, uri_for_doc
from ogmemory.tenancy import URI, format_uri, parse_uri


@pytest.mark.parametrize(
    "uri, parsed",
    [
        ("ogm://session/s1", URI("session", ("s1",))),
        ("ogm://node/s1/0136d4f58e14", URI("node", ("s1", "0136d4f58e14"))),
        ("ogm://memory/m_1?x=1#frag", URI("memory", ("m_1",))),
        ("ogm://entity/Alice%20Smith", URI("entity", ("Alice Smith",))),
        ("ogm://fact/e_9", URI("fact", ("e_9",))),
    ],
)
def test_grammar_round_trips(uri: str, parsed: URI) -> None:
    assert parse_uri(uri) == parsed
    assert parse_uri(str(parsed)) == parsed


@pytest.mark.parametrize(
    "bad",
    [
        "",
        None,
        "memory/m1",
        "http://memory/m1",
        "ogm://",
        "ogm://memory",
        "ogm://memory/",
        "ogm://memory/../../etc",
        "ogm://node/s1",
        "ogm://node/s1/n1/n2",
        "ogm://widget/1",
        "ogm://session/a b",
        "ogm://entity/" + "x" * 300,
        "ogm://entity/%0a",
        "ogm://" + "m" * 700,
    ],
)
def test_bad_uris_are_refused_with_a_clear_error(bad: object) -> None:
    with pytest.raises(InvalidInput):
        parse_uri(bad)
    with pytest.raises(InvalidInput):
        format_uri("node", "s1", "../x")


def test_doc_ids_map_to_uris() -> None:
    assert uri_for_doc("memory:m_1") == "ogm://memory/m_1"
    assert uri_for_doc("memory:m_1:1") == "ogm://memory/m_1"
    assert uri_for_doc("session:s1:0") == "ogm://session/s1"
    assert uri_for_doc("entity:person.alice") == "ogm://entity/person.alice"
    assert uri_for_doc("nonsense") is None


@pytest.fixture
def filled(tmp_path: Path) -> Memory:
    mem = Memory(settings=Settings(home=tmp_path / "home", embedder="none"))
    engine = ContextEngine(mem)
    engine.on_message("s1", "My manager is Alice Smith. I prefer Python over Java.")
    engine.after_turn("s1", reply="Noted.")
    mem.wait_background(30)
    mem.sleep("deep")
    engine.on_session_close("s1")
    return mem


def test_every_kind_resolves_at_three_levels(filled: Memory) -> None:
    mem = filled
    memory = next(m for m in mem.memories() if "Python" in m.text)
    node = mem.get_nodes("s1")[0]
    fact = mem.facts()[0]
    entity = mem.entities()[0]
    event_uris = [f"ogm://event/{e.id}" for e in mem.timeline()]
    for uri in (
        f"ogm://memory/{memory.id}",
        f"ogm://node/s1/{node.id}",
        "ogm://session/s1",
        f"ogm://fact/{fact.id}",
        f"ogm://entity/{entity.id}",
        "ogm://archive/s1",
        *event_uris[:1],
    ):
        full = mem.resolve_uri(uri)
        assert full.uri == uri and full.abstract and full.overview and full.content, uri
        assert len(full.abstract) <= 400 and len(full.overview) <= 2000
        brief = mem.resolve_uri(uri, level=0)
        assert brief.abstract == full.abstract and not brief.overview and brief.content is None
    # by name, as the ReAct extractor reads entities
    assert (
        mem.resolve_uri(f"ogm://entity/{entity.name.replace(' ', '%20')}").uri
        == f"ogm://entity/{entity.id}"
    )
    # links lead on: a memory to the nodes it rests on, a session to its archive
    assert f"ogm://node/s1/{node.id}" in mem.resolve_uri(f"ogm://memory/{memory.id}").links
    assert "ogm://archive/s1" in mem.resolve_uri("ogm://session/s1").links
    # knowledge alone (as the ReAct extractor has it): memories resolve, sessions do not
    reader = URIResolver(mem.knowledge.kb)
    assert reader.resolve(f"ogm://memory/{memory.id}").abstract == memory.text
    with pytest.raises(InvalidInput):
        reader.resolve("ogm://session/s1")


def test_hidden_and_missing_records_are_not_found(filled: Memory, tmp_path: Path) -> None:
    mem = filled
    memory = next(m for m in mem.memories() if "Python" in m.text)
    mem.forget(memory.id)
    for uri in (
        f"ogm://memory/{memory.id}",
        "ogm://memory/m_000000000000",
        "ogm://session/nope",
        "ogm://node/s1/nope",
        "ogm://archive/nope",
        "ogm://entity/Nobody",
        "ogm://project/p_none",
    ):
        with pytest.raises(NotFound):
            mem.resolve_uri(uri)
    other = Memory(settings=Settings(home=mem.settings.home, account="other", embedder="none"))
    errors = []
    for sid in ("s1", "zz"):  # another tenant's session, and one that exists nowhere
        with pytest.raises(NotFound) as caught:
            other.resolve_uri(f"ogm://session/{sid}")
        errors.append(str(caught.value).replace(sid, "<id>"))
    assert errors[0] == errors[1]
    other.close()


def test_rest_and_mcp_resolve_the_same_uri(filled: Memory) -> None:
    mem = filled
    uri = "ogm://session/s1"
    expected = mem.resolve_uri(uri, level=1).to_dict()
    home = mem.settings.home
    mem.close()
    with BackgroundServer(create_app(Settings(home=home, embedder="none"))) as server:
        got = httpx.get(f"{server.url}/v1/resolve", params={"uri": uri, "level": 1}, timeout=60)
        assert got.status_code == 200 and got.json()["abstract"] == expected["abstract"]
        bad = httpx.get(f"{server.url}/v1/resolve", params={"uri": "ogm://memory/../x"})
        assert bad.status_code == 400
        missing = httpx.get(f"{server.url}/v1/resolve", params={"uri": "ogm://session/zz"})
        assert missing.status_code == 404

    async def main() -> None:
        async with stdio_session(home) as session:
            read = await call(session, "memory_read", uri=uri)  # compact text for the model
            assert read.startswith(f"{uri} · session")
            assert f"abstract: {expected['abstract'].strip()}" in read and "overview:" in read
            error = await call_error(session, "memory_read", uri="ogm://session/zz")
            assert "not found" in error

    anyio.run(main)


def test_the_react_extractor_reads_facts_and_events_through_the_resolver(filled: Memory) -> None:
    from ogmemory import LLMSettings
    from ogmemory.distill.extractors import default_extractor
    from ogmemory.distill.extractors.react import ReActExtractor

    mem = filled
    unreachable = LLMSettings(base_url="http://127.0.0.1:9/v1", timeout=0.5, max_retries=0)
    kb = mem.knowledge.kb
    extractor = ReActExtractor(unreachable, mem.schema, kb, default_extractor(mem.schema))
    loop = extractor.new_loop(list(mem.iter_nodes_since()))
    fact = mem.facts()[0]
    read = json.loads(loop.act("read", {"uri": f"ogm://fact/{fact.id}"}))
    assert read["uri"] == f"ogm://fact/{fact.id}" and read["overview"]
    assert read["abstract"] == mem.resolve_uri(f"ogm://fact/{fact.id}").abstract
    # (without the index the overview is the abstract; through the facade it adds the turns)
    missing = json.loads(loop.act("read", {"uri": "ogm://event/ev_nothing"}))
    assert "not found" in missing["error"]
