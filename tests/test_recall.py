"""Index and bounded recall: rebuild equivalence, CJK search, budget, fallback, filtering, time."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ogmemory import Memory, Settings
from ogmemory.index.indexer import Indexer
from ogmemory.recall.tokens import count_tokens
from ogmemory.recall.visibility import doc_visible


def ts(day: str) -> float:
    return datetime.fromisoformat(day).replace(tzinfo=UTC).timestamp()


def make(tmp_path: Path, name: str = "home", **kw: object) -> Memory:
    opts: dict[str, object] = {"distill_on_turn": False, "embedder": "none", "index_worker": False}
    opts.update(kw)
    return Memory(settings=Settings(home=tmp_path / name, **opts))  # type: ignore[arg-type]


def say(mem: Memory, sid: str, user: str, day: str, reply: str = "Noted.", **kw: object) -> None:
    mem.append_message(
        sid, {"role": "user", "content": user, "event_time": ts(day), "name": "Ana"}, **kw
    )  # type: ignore[arg-type]
    mem.append_message(sid, {"role": "assistant", "content": reply, "event_time": ts(day) + 1})
    mem.commit_turn(sid)


def fill(mem: Memory) -> None:
    say(mem, "s1", "We use JavaScript for the backend.", "2026-01-10")
    say(mem, "s1", "I prefer green tea over coffee in the morning.", "2026-01-11")
    say(mem, "s2", "We switched from JavaScript to TypeScript last week.", "2026-04-08")
    say(mem, "s2", "My sister Lena moved to Berlin in March.", "2026-04-09")
    say(mem, "s3", "我们的数据库用 PostgreSQL，不用 MySQL。", "2026-04-10")
    say(mem, "s3", "我喜欢喝茶。", "2026-04-11")
    mem.sleep("deep")


def texts(result: object) -> str:
    return "\n".join(i.text for i in result.items)  # type: ignore[attr-defined]


def test_recall_items_carry_provenance(tmp_path: Path) -> None:
    mem = make(tmp_path)
    fill(mem)
    result = mem.recall("Where did Lena move?")
    assert not result.fallback
    assert "Berlin" in texts(result)
    top = next(i for i in result.items if "Berlin" in i.text)
    assert top.session_id == "s2" and top.node_ids
    nodes = {n.id for n in mem.get_nodes("s2")}
    assert set(top.node_ids) <= nodes
    assert len(result.items) <= 20


def test_cjk_and_mixed_language_search(tmp_path: Path) -> None:
    mem = make(tmp_path)
    fill(mem)
    for query in ("数据库", "茶", "PostgreSQL", "喝茶", "postgresql 数据库"):
        hits = mem.search(query)
        assert hits, query
        assert any(("茶" in h.text) or ("PostgreSQL" in h.text) for h in hits), query
    assert any("喝茶" in h.text for h in mem.search("茶"))  # a single character still finds it
    assert "green tea" in texts(mem.recall("tea"))


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    budget=st.integers(min_value=50, max_value=3000),
    query=st.sampled_from(
        ["tea", "JavaScript", "Lena Berlin", "数据库", "what happened in April?", "x", "the"]
    ),
)
def test_budget_is_never_exceeded(tmp_path_factory: object, budget: int, query: str) -> None:
    mem = _shared(tmp_path_factory)
    result = mem.recall(query, budget=budget)
    assert result.tokens <= budget
    # each item counted as the prompt shows it: numbered, one blank line after it
    assert sum(count_tokens(i.render(n)) + 1 for n, i in enumerate(result.items, 1)) == (
        result.tokens
    )
    assert count_tokens(result.as_context()) <= result.tokens
    assert len(result.items) <= 20


_SHARED: dict[str, Memory] = {}


def _shared(factory: object) -> Memory:
    if "mem" not in _SHARED:
        mem = make(factory.mktemp("shared"))  # type: ignore[attr-defined]
        fill(mem)
        for i in range(40):
            say(
                mem,
                f"bulk{i}",
                f"Filler conversation number {i} about tea, JavaScript and Berlin.",
                "2026-02-01",
            )
        mem.sleep("light")
        _SHARED["mem"] = mem
    return _SHARED["mem"]


def test_fallback_when_recall_breaks(tmp_path: Path) -> None:
    mem = make(tmp_path, embedder="use")
    fill(mem)
    mem.sync_index()
    mem.drain_outbox()
    conn = sqlite3.connect(mem.index_path)
    with conn:  # a corrupt vector (wrong dimension) breaks dense search
        conn.execute("INSERT INTO vecs(doc_rowid, dim, v) VALUES (999999, 3, ?)", (b"\0" * 12,))
    conn.close()
    result = mem.recall("tea")
    assert result.fallback and result.reason and "latest" in result.reason
    assert 0 < len(result.items) <= 20
    assert result.tokens <= 2000
    again = mem.recall("tea")
    assert [i.text for i in again.items] == [i.text for i in result.items]  # deterministic


def test_disabled_memory_and_other_scopes_never_appear(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    mem = make(tmp_path)
    fill(mem)
    say(mem, "p1", "The deploy key for staging is called ZEBRA-7.", "2026-04-12", project=project)
    mem.sleep("light")
    pid = mem.list_projects()[0].project_id
    assert "ZEBRA-7" in texts(mem.recall("deploy key staging", scope=f"project:{pid}"))
    assert "ZEBRA-7" not in texts(mem.recall("deploy key staging", scope="global"))
    assert "ZEBRA-7" not in texts(mem.recall("deploy key staging", scope="project:other"))
    tea = [m for m in mem.memories() if "green tea" in m.text]
    assert tea
    for m in tea:
        mem.disable_memory(m.id)
    hidden = mem.recall("green tea coffee morning")
    assert "green tea" not in texts(hidden)
    for m in tea:
        mem.enable_memory(m.id)
    assert "green tea" in texts(mem.recall("green tea coffee morning"))


def test_temporal_question_prefers_facts_valid_then(tmp_path: Path) -> None:
    mem = make(tmp_path)
    fill(mem)
    history = [
        e for e in mem.facts(include_history=True) if (e.slot or "").startswith("language")
    ]  # language:backend
    assert len(history) == 2  # the switch ended the JavaScript fact; both stay queryable

    def fact_lines(result: object) -> list[str]:  # facts show their validity span "a → b"
        return [
            line
            for item in result.items
            for line in item.text.splitlines()  # type: ignore[attr-defined]
            if "→" in line and "Script" in line
        ]

    february = fact_lines(mem.recall("Which language did we use for the backend in February 2026?"))
    assert february and "JavaScript" in february[0] and "TypeScript" not in february[0]
    now = fact_lines(mem.recall("Which language do we use for the backend now?"))
    assert now and "TypeScript" in now[0]


def test_reindex_gives_identical_answers(tmp_path: Path) -> None:
    mem = make(tmp_path, embedder="use")
    fill(mem)
    mem.sync_index()
    mem.drain_outbox()
    queries = ["tea", "Where does Lena live?", "数据库", "JavaScript or TypeScript?"]
    before = [[(i.text, i.cites) for i in mem.recall(q).items] for q in queries]
    stats = mem.index_stats()
    mem.reindex()
    assert mem.index_stats()["documents"] == stats["documents"]
    assert mem.index_stats()["vectors"] == stats["vectors"]
    after = [[(i.text, i.cites) for i in mem.recall(q).items] for q in queries]
    assert after == before
    fresh = make(tmp_path, embedder="use")
    fresh.reindex()
    assert [[(i.text, i.cites) for i in fresh.recall(q).items] for q in queries] == before


class _CrashBeforeSessionAbstracts:
    """The real index store, but the write of session abstracts never lands (as when the
    process is killed right before it: the transaction is rolled back)."""

    def __init__(self, store: Any) -> None:
        self._store = store

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def write(self, upserts: Any, deletes: Any = (), meta: Any = None) -> int:
        upserts = list(upserts)
        if any(d.kind == "session" for d in upserts):
            raise KeyboardInterrupt("killed")
        return int(self._store.write(upserts, deletes, meta))


def test_a_sync_cut_short_before_the_session_abstracts_writes_them_next_time(
    tmp_path: Path,
) -> None:
    mem = make(tmp_path)
    say(mem, "plain", "hello there, nothing to remember", "2026-01-10")  # no memory: only the
    say(mem, "plain", "and goodbye", "2026-01-11")  # turns say the session's abstracts changed
    svc = mem.retrieval
    idx = svc.index
    cut = Indexer(_CrashBeforeSessionAbstracts(idx), svc.sessions.provenance, svc.knowledge.kb)
    with pytest.raises(KeyboardInterrupt):
        cut.sync()
    assert idx.count("turn") == 4 and idx.count("session") == 0  # turns in, abstracts lost
    mem.close()
    again = make(tmp_path)  # the next process: its turn cursor says nothing is new
    again.sync_index()
    abstracts = again.retrieval.index.docs_by_id(["session:plain:0", "session:plain:1"])
    assert sorted(abstracts) == ["session:plain:0", "session:plain:1"]
    assert "hello there" in abstracts["session:plain:0"].text
    again.close()


def test_recall_never_waits_for_embeddings(tmp_path: Path) -> None:
    mem = make(tmp_path, embedder="use")
    fill(mem)
    result = mem.recall("green tea")  # vectors not computed yet: full text still finds it
    assert "green tea" in texts(result)
    assert mem.outbox_status()["pending"] > 0
    mem.drain_outbox()
    assert mem.outbox_status()["pending"] == 0


def test_changing_the_embedder_re_embeds_the_index(tmp_path: Path) -> None:
    mem = make(tmp_path, embedder="none")  # full text only: no vectors, no embedding jobs
    fill(mem)
    mem.sync_index()
    docs = mem.index_stats()["documents"]
    assert mem.index_stats()["vectors"] == 0 and mem.outbox_status()["pending"] == 0
    mem.close()

    use = make(tmp_path, embedder="use")  # what was written without vectors gets them now
    assert use.outbox_status()["pending"] == docs
    use.drain_outbox()
    assert use.index_stats()["vectors"] == docs
    conn = sqlite3.connect(use.index_path)
    assert {d for (d,) in conn.execute("SELECT DISTINCT dim FROM vecs")} == {512}
    use.close()

    e5 = make(tmp_path, embedder="e5")  # another model: its vectors replace the old ones
    assert e5.index_stats()["vectors"] == 0
    result = e5.recall("Where does Lena live?")  # full text while the vectors are missing
    assert not result.fallback and "Berlin" in texts(result)
    e5.drain_outbox()
    assert e5.index_stats()["vectors"] == docs
    assert {d for (d,) in conn.execute("SELECT DISTINCT dim FROM vecs")} == {384}
    result = e5.recall("Which city is Lena's home now?")
    assert not result.fallback and result.stats["dense"] > 0 and "Berlin" in texts(result)
    e5.close()
    again = make(tmp_path, embedder="e5")  # the same embedder again: nothing to redo
    assert again.outbox_status()["pending"] == 0 and again.index_stats()["vectors"] == docs
    conn.close()


def test_large_indexes_skip_words_that_are_everywhere(tmp_path: Path) -> None:
    from dataclasses import replace

    from ogmemory.recall.config import RECIPES

    mem = make(tmp_path)
    for i in range(30):
        say(mem, f"s{i}", f"Morning tea number {i} with the usual biscuits.", "2026-02-01")
    say(mem, "zebra", "We saw a zebra at the zoo with our morning tea.", "2026-02-02")
    mem.sync_index()
    recaller = mem.retrieval.recaller()
    config = replace(RECIPES["default"], common_min_docs=10, common_share=0.3)
    result = recaller.recall("zebra tea morning", budget=2000, config=config)
    assert set(result.stats["fts_skipped"]) == {"tea", "morning"}
    assert "zebra" in result.items[0].text
    plain = recaller.recall("zebra tea morning", budget=2000)  # small index: nothing skipped
    assert "fts_skipped" not in plain.stats and "zebra" in plain.items[0].text


def test_a_session_abstract_never_hides_its_own_turns(tmp_path: Path) -> None:
    mem = make(tmp_path)
    say(mem, "zebra", "We saw a zebra at the zoo with our morning tea.", "2026-02-02")
    result = mem.recall("zebra")
    assert result.items and "zebra" in result.items[0].text


def test_routing_abstracts_take_at_most_four_candidate_slots(tmp_path: Path) -> None:
    from dataclasses import replace

    from ogmemory.recall.config import RECIPES

    mem = make(tmp_path)
    for i in range(12):  # twelve sessions whose abstracts all match the question
        say(
            mem,
            f"kayak{i}",
            f"Kayak trip number {i} on the river went well.",
            f"2026-03-{i + 1:02d}",
            reply="Kayak trips sound fun.",
        )
    mem.sleep("deep")
    mem.sync_index()
    assert mem.retrieval.index.count("session") >= 12
    result = mem.recall("kayak trip on the river")
    assert result.stats["routes"] == 4 and result.stats["candidates"] > 4
    turns = sum(len(i.cites) for i in result.items)
    wide = mem.retrieval.recaller().recall(
        "kayak trip on the river", budget=2000, config=replace(RECIPES["default"], max_routes=30)
    )
    assert wide.stats["routes"] > 4  # without the cap, session abstracts crowd the candidates
    assert turns >= sum(len(i.cites) for i in wide.items)


def test_every_knowledge_record_has_an_abstract_an_overview_and_content(tmp_path: Path) -> None:
    mem = make(tmp_path)
    fill(mem)
    mem.sync_index()
    conn = sqlite3.connect(mem.index_path)
    docs = {
        i: (kind, level, parent, text, node_ids)
        for i, kind, level, parent, text, node_ids in conn.execute(
            "SELECT id, kind, level, parent, text, node_ids FROM docs"
        )
    }
    abstracts = {i: d for i, d in docs.items() if d[1] == 0 and d[0] != "session"}
    assert {d[0] for d in abstracts.values()} == {"memory", "event", "fact", "entity"}
    for doc_id, (kind, _, _, text, node_ids) in abstracts.items():
        overview = docs[f"{doc_id}:1"]  # L1 under every L0
        assert overview[:3] == (kind, 1, doc_id) and overview[3].startswith(text)
        for nid in json.loads(node_ids):  # L2: the turns it cites, quoted in the overview
            turn = next(d for d in docs.values() if d[0] == "turn" and nid in d[4])
            assert turn[3] in overview[3]
    lena = next(i for i, d in abstracts.items() if d[0] == "entity" and "Lena" in d[3])
    assert "sister" in docs[f"{lena}:1"][3]  # an entity's overview: what holds about it now

    # An overview quotes its sources: it is hidden while any of them is disabled.
    sources = {m for e in mem.facts() if "sister" in e.fact for m in e.support}
    assert sources
    for m in sources:
        mem.disable_memory(m)
    rec = mem.retrieval.recaller()
    active, hidden = mem.knowledge.kb.visibility()
    overviews = rec.store.docs_by_id([f"{lena}:1"])
    assert not doc_visible(overviews[f"{lena}:1"], None, active, hidden)
    for m in sources:
        mem.enable_memory(m)
    active, hidden = mem.knowledge.kb.visibility()
    assert doc_visible(rec.store.docs_by_id([f"{lena}:1"])[f"{lena}:1"], None, active, hidden)
