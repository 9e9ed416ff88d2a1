"""Recall's vector ranking ranks what it returns: a turn, lifted by the abstractions citing it
and counted once however many levels repeat it, read from a search deep enough that a crowd of
near matches does not hide the answers behind it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from test_contract_index import turn

from ogmemory.embed import Embedder, encode_queries, make_embedder
from ogmemory.index.docs import Doc, overview_id, record_doc_id
from ogmemory.recall.candidates import Ask, Cand, CandidateSearch
from ogmemory.recall.config import RECIPES, RecallConfig
from ogmemory.recall.recaller import Recaller
from ogmemory.recall.tokens import count_tokens
from ogmemory.recall.visibility import LiveSessions
from ogmemory.storage.sqlite_index import SqliteIndexStore

DONE = ["went kayaking on the lake", "hiked up the ridge trail", "went rock climbing at the crag"]
VERBS = ("think about", "talk about", "read about", "plan", "dream about", "ask Ben about")
VERBS += ("write about", "care about", "keep mentioning", "look up")
TAILS = ("with her family", "for next year", "on weekends", "in the city", "with Ben")
QUESTION = "What outdoor activities has Ana done?"


def _turn(sid: str, k: int, text: str, day: float, speaker: str = "Ana") -> Doc:
    said = turn(sid, k, text, when=day)
    return replace(said, cites=(f"{sid}:{k}",), prov={"speaker": speaker, "session_id": sid})


def _record(kind: str, rid: str, text: str, sid: str, day: float, quote: str) -> list[Doc]:
    """A knowledge record citing turn ``n0`` of ``sid``: its abstract and its overview."""
    l0 = Doc(
        id=record_doc_id(kind, rid),
        kind=kind,
        level=0,
        text=text,
        session_id=sid,
        event_time=day,
        support=(rid,),
        node_ids=("n0",),
        cites=(f"{sid}:0",),
        prov={"session_id": sid},
    )
    return [l0, replace(l0, id=overview_id(l0.id), level=1, parent=l0.id, text=f"{text}\n{quote}")]


def _talk(i: int, verb: str) -> list[Doc]:
    """A day Ana only talked about the outdoors: her turn, and five memories (with their
    overviews) saying it again."""
    sid, day = f"t{i}", 1_600_000_000.0 + i * 86_400
    said = f"[talk {i}] Ana: I {verb} outdoor activities a lot these days."
    docs = [_turn(sid, 0, said, day)]
    for k, tail in enumerate(TAILS):
        first, _, rest = verb.partition(" ")
        text = f"Ana {first}s {rest} outdoor activities {tail}.".replace("  ", " ")
        docs += _record("memory", f"{sid}m{k}", text, sid, day, said)
    return docs


def _did(i: int, done: str) -> list[Doc]:
    """A day Ana did something, said in passing before small talk, and its memory."""
    sid, day = f"s{i}", 1_700_000_000.0 + i * 86_400
    said = f"[day {i}] Ana: Oh, and on Saturday I {done}. Loved it!"
    return [
        _turn(sid, 0, said, day),
        _turn(sid, 1, f"[day {i}] Ben: How was work this week? Still the budget meetings?", day),
        _turn(sid, 2, f"[day {i}] Ana: Busy, yes, the quarterly report is due on Friday.", day),
        *_record("memory", f"{sid}m", f"Ana {done}.", sid, day, said),
    ]


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    found = make_embedder("e5")
    assert found is not None
    return found


@pytest.fixture
def recaller(tmp_path: Path, embedder: Embedder) -> Iterator[Recaller]:
    store = SqliteIndexStore(tmp_path / "index.sqlite", embedder_name=embedder.name)
    wrote = Doc(  # a memory the user wrote: no turn to lend to, it stands for itself
        id=record_doc_id("memory", "mine"),
        kind="memory",
        level=0,
        text="Ana also went paragliding over the valley.",
        event_time=1_700_000_000.0,
        support=("mine",),
    )
    docs = [d for i, verb in enumerate(VERBS) for d in _talk(i, verb)]
    docs += [d for i, done in enumerate(DONE) for d in _did(i, done)] + [wrote]
    store.write(docs)
    rowids = store.docs_by_id(d.id for d in docs)
    vectors = embedder.encode([d.text for d in docs])
    store.put_vectors({rowids[d.id].rowid: v for d, v in zip(docs, vectors, strict=True)})  # type: ignore[misc]
    active = {s for d in docs for s in d.support}
    yield Recaller(
        store,
        embed=lambda q: encode_queries(embedder, [q])[0],
        count_tokens=count_tokens,
        visibility=lambda: (active, set()),
    )
    store.close()


# Full text out of the way: what reaches the answer is the vector ranking's doing (and not the
# wider pool of a question asking for several things, ``test_recall_several``).
VECTORS_ONLY = replace(
    RECIPES["default"], fts_limit=0, several_candidates=0, several_subject_weight=0.0
)


def test_answers_behind_a_crowd_of_near_matches_are_reached(recaller: Recaller) -> None:
    result = recaller.recall(QUESTION, budget=2000, config=VECTORS_ONLY)
    text = "\n".join(i.text for i in result.items)
    # Ten days Ana talked about outdoor activities, each said by eleven documents (her turn,
    # five memories, their overviews) nearer the question than any of the three days she did
    # one: the first 60 vector hits are all talk, of ten turns. Ranked by turn, the talk is
    # ten entries, and the answers come next.
    assert all(done in text for done in DONE), text
    assert len(result.items) <= 20 and result.tokens <= 2000
    for item in result.items:  # items still hold one session's turns
        assert {c.split(":")[0] for c in item.cites} <= {item.session_id}


def test_a_record_with_no_turn_ranks_as_itself(recaller: Recaller) -> None:
    result = recaller.recall("Has anyone been paragliding?", budget=2000, config=VECTORS_ONLY)
    assert "paragliding" in result.items[0].text


def test_without_lending_the_crowd_of_near_matches_hides_the_answers(recaller: Recaller) -> None:
    # The switch is real: ranked as documents by their own cosines (``lend`` off, the ranking
    # before turns were lifted by their abstractions), the first 60 vector hits are the talk.
    docs_only = replace(VECTORS_ONLY, lend=False)
    result = recaller.recall(QUESTION, budget=2000, config=docs_only)
    text = "\n".join(i.text for i in result.items)
    assert not all(done in text for done in DONE), text
    assert result.stats["dense"] == docs_only.dense_units  # searched no deeper than it fuses


def _candidates(recaller: Recaller, query: str, config: RecallConfig) -> list[Cand]:
    active, hidden = recaller.visibility()
    words = {w.lower() for w in query.split()}
    ask = Ask(query, None, active, hidden, config, qwords=words, live=LiveSessions(None))
    return CandidateSearch(recaller.store, recaller.embed, None)(ask)


def test_candidates_follow_the_fused_ranking(recaller: Recaller) -> None:
    """The candidates are the head of the fused ranking in its order: leaving one LoCoMo
    conversation out chose no novelty weight (``mmr=0``) on every fold (mean 1-4 0.921 against
    0.911 at ``mmr=0.5``, multi-hop 0.760 either way). A novelty weight is still an option: it
    reorders the crowd of near matches here."""
    cands = _candidates(recaller, QUESTION, RECIPES["default"])
    scores = [c.score for c in cands]
    assert scores == sorted(scores, reverse=True), scores
    novel = _candidates(recaller, QUESTION, replace(RECIPES["default"], mmr=0.5))
    assert [c.score for c in novel] != sorted((c.score for c in novel), reverse=True)
