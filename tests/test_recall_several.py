"""A question asking for several things ("What activities has Ana done?") draws a wider pool
than one asking for one: its answers are spread over many sessions and stand far down the
fused ranking, behind turns that only say its words. And what the person it names did ranks
among what they did (the subject ranking), not among what anyone did alike."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from test_contract_index import turn

from ogmemory.embed import Embedder, encode_queries, make_embedder
from ogmemory.index.docs import Doc
from ogmemory.recall.config import RECIPES
from ogmemory.recall.hops import asks_several, named
from ogmemory.recall.recaller import Recaller
from ogmemory.recall.tokens import count_tokens
from ogmemory.storage.sqlite_index import SqliteIndexStore

DAY = 1_700_000_000.0
DONE = ("kayaking on the lake", "a pottery class", "the climbing gym", "a salsa night")


def _turn(sid: str, k: int, text: str, speaker: str) -> Doc:
    said = turn(sid, k, f"[day {sid}] {speaker}: {text}", when=DAY + int(sid[1:]) * 86_400)
    return replace(said, cites=(f"{sid}:{k}",), prov={"speaker": speaker, "session_id": sid})


def _store(path: Path, docs: list[Doc], embedder: Embedder | None = None) -> SqliteIndexStore:
    store = SqliteIndexStore(path, embedder_name=embedder.name if embedder else None)
    store.write(docs)
    if embedder is not None:
        rows = store.docs_by_id(d.id for d in docs)
        vectors = embedder.encode([d.text for d in docs])
        store.put_vectors({rows[d.id].rowid: v for d, v in zip(docs, vectors, strict=True)})  # type: ignore[misc]
    return store


def _recaller(store: SqliteIndexStore, embedder: Embedder | None = None) -> Recaller:
    return Recaller(
        store,
        embed=(lambda q: encode_queries(embedder, [q])[0]) if embedder else None,
        count_tokens=count_tokens,
        visibility=lambda: (set(), set()),
    )


@pytest.fixture
def crowded(tmp_path: Path) -> Iterator[Recaller]:
    """Five sessions of Ana only musing about activities (36 short turns that say the word
    three times), then four sessions where she did one, said once in a longer turn: full text
    ranks every musing above every answer."""
    docs = [
        _turn(f"s{i}", k, "activities, activities, more activities!", "Ana")
        for i in range(5)
        for k in range(8)
    ]
    for j, done in enumerate(DONE):
        sid = f"s{10 + j}"
        docs.append(_turn(sid, 0, f"Weekend activities: I did {done}, it was great fun.", "Ana"))
        docs.append(_turn(sid, 1, "How was the budget meeting on Friday?", "Ben"))
    store = _store(tmp_path / "index.sqlite", docs)
    yield _recaller(store)
    store.close()


def test_a_question_asking_for_several_things_reaches_past_the_crowd(crowded: Recaller) -> None:
    result = crowded.recall("What activities has Ana done?", budget=2000)
    text = "\n".join(i.text for i in result.items)
    assert all(done in text for done in DONE), text
    assert result.stats["candidates"] > RECIPES["default"].candidates
    assert len(result.items) <= 20 and result.tokens <= 2000


def test_a_question_asking_for_one_thing_keeps_the_narrow_pool(crowded: Recaller) -> None:
    # The same words asked of one thing draw the usual 30 candidates: the crowd fills them.
    result = crowded.recall("Did Ana enjoy activities?", budget=2000)
    text = "\n".join(i.text for i in result.items)
    assert result.stats["candidates"] == RECIPES["default"].candidates
    assert not all(done in text for done in DONE), text
    # and with the wider pool switched off, the question for several is narrow too
    off = replace(RECIPES["default"], several_candidates=0, several_subject_weight=0.0)
    narrow = crowded.recall("What activities has Ana done?", budget=2000, config=off)
    assert narrow.stats["candidates"] == off.candidates


@pytest.mark.parametrize(
    ("question", "several"),
    [
        ("What activities has Ana done?", True),
        ("What kind of music does Ben like?", True),
        ("What are some foods Ana likes?", True),
        ("How many times did Ana go hiking?", True),
        ("Which books have they read?", True),
        ("Where did Ana move from?", False),
        ("What is Ben's favourite food?", False),
        ("When did Ana go hiking?", False),
    ],
)
def test_what_asks_for_several_things(question: str, several: bool) -> None:
    assert asks_several(question) is several


def test_the_names_a_question_mentions() -> None:
    assert named("What did Ana's brother and Ben see?") == {"ana", "ben"}
    assert named("Where is the café?") == set()  # the first word is no name


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    found = make_embedder("e5")
    assert found is not None
    return found


def test_what_the_named_person_did_ranks_among_what_they_did(
    tmp_path: Path, embedder: Embedder
) -> None:
    """Ben did outdoor things in many sessions, each said more like the question than Ana's
    one; asked what Ana did, her turn ranks among her own turns and reaches the answer."""
    docs: list[Doc] = []
    ben = ("went hiking", "went camping", "went fishing", "went cycling", "went sailing")
    for i in range(40):
        did = ben[i % len(ben)]
        docs.append(_turn(f"s{i}", 0, f"I {did} outdoors with friends, such outdoor fun.", "Ben"))
        docs.append(_turn(f"s{i}", 1, "Nice! I stayed home and read a novel.", "Ana"))
    docs.append(_turn("s90", 0, "Saturday I tried rock climbing at the crag.", "Ana"))
    docs.append(_turn("s90", 1, "How was work this week?", "Ben"))
    store = _store(tmp_path / "index.sqlite", docs, embedder)
    try:
        recaller = _recaller(store, embedder)
        question = "What outdoor activities has Ana done?"
        off = replace(RECIPES["default"], several_subject_weight=0.0)
        assert "rock climbing" not in "\n".join(
            i.text for i in recaller.recall(question, budget=2000, config=off).items
        )
        result = recaller.recall(question, budget=2000)
        assert result.stats["subject"] == ["ana"]
        assert "rock climbing" in "\n".join(i.text for i in result.items)
    finally:
        store.close()


def test_a_second_hop_follows_the_names_the_best_turns_mention(tmp_path: Path) -> None:
    """``hop_weight`` (an option, off by default): the names the first pass's best documents
    mention and the question does not are searched too, so a turn that speaks of Ana's dog by
    its name only is reached behind a crowd of her turns that say "dogs"."""
    docs = [_turn("s1", 0, "My dogs, my dear dogs, are Rexford and Biscuit.", "Ana")]
    docs += [
        _turn(f"s{i}", k, "So many dogs at the show today!", "Ana")
        for i in range(2, 8)
        for k in range(6)
    ]
    docs.append(_turn("s20", 0, "Took Rexford to the beach on Sunday, he swam a lot.", "Ana"))
    store = _store(tmp_path / "index.sqlite", docs)
    try:
        recaller = _recaller(store)
        question = "Did Ana like her dogs?"
        off = recaller.recall(question, budget=2000)
        assert "beach" not in "\n".join(i.text for i in off.items)
        on = recaller.recall(
            question, budget=2000, config=replace(RECIPES["default"], hop_weight=1.0)
        )
        assert "rexford" in on.stats["hop"]
        assert "beach" in "\n".join(i.text for i in on.items)
    finally:
        store.close()
