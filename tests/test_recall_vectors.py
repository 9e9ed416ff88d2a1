"""Recall's vector ranking ranks what it returns: a turn, lifted by the abstractions citing it,
counted once however many levels repeat it (a memory, its overview, its event, the event's
overview), so a question with many answers across sessions reaches many of them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from ogmemory.embed import encode_queries, make_embedder
from ogmemory.index.docs import Doc, overview_id, record_doc_id, session_doc_id, turn_doc_id
from ogmemory.recall.config import RECIPES
from ogmemory.recall.recaller import Recaller
from ogmemory.recall.tokens import count_tokens
from ogmemory.storage.sqlite_index import SqliteIndexStore

DONE = [
    "went kayaking on the lake",
    "hiked up the ridge trail",
    "went rock climbing at the crag",
    "rode her bike along the river path",
    "went camping in the forest",
    "played beach volleyball with friends",
    "went surfing at dawn",
    "went skiing in the mountains",
    "went fishing off the pier",
    "went horseback riding on the farm",
    "ran a trail race in the hills",
    "went bird watching in the marsh",
    "went sailing around the bay",
    "went paddleboarding on the river",
    "went snowshoeing through the woods",
    "played a round of golf",
    "went canoeing down the creek",
    "went mountain biking",
    "went ice skating on the frozen pond",
    "went stargazing in the desert",
    "went scuba diving at the reef",
    "went orienteering in the woods",
    "played frisbee in the park",
    "went rowing on the lake",
    "went caving in the hills",
]


def _session(i: int, done: str) -> list[Doc]:
    """One day's talk: Ana tells what she did, then small talk; the distilled memory, its
    overview, its event and the event's overview all say it again."""
    sid, day = f"s{i}", 1_700_000_000.0 + i * 86_400
    said = f"[day {i}] Ana: Oh, and on Saturday I {done.replace('her', 'my')}. Loved it!"
    turns = [
        Doc(
            id=turn_doc_id(sid, f"n{k}"),
            kind="turn",
            level=2,
            text=text,
            parent=session_doc_id(sid, 1),
            session_id=sid,
            seq=k,
            event_time=day + k,
            node_ids=(f"n{k}",),
            cites=(f"D{i}:{k}",),
            prov={"speaker": speaker, "session_id": sid},
        )
        for k, (speaker, text) in enumerate(
            [
                ("Ana", said),
                ("Ben", f"[day {i}] Ben: How was work this week? Still the budget meetings?"),
                ("Ana", f"[day {i}] Ana: Busy, yes, the quarterly report is due on Friday."),
            ]
        )
    ]
    records = []
    for kind, rid, text in (
        ("memory", f"m{i}", f"Ana {done}."),
        ("event", f"e{i}", f"[day {i}] Ana {done} (on Saturday)."),
    ):
        l0 = Doc(
            id=record_doc_id(kind, rid),
            kind=kind,
            level=0,
            text=text,
            session_id=sid,
            event_time=day,
            support=(f"m{i}",),
            node_ids=("n0",),
            cites=(f"D{i}:0",),
            prov={"session_id": sid},
        )
        overview = replace(
            l0, id=overview_id(l0.id), level=1, parent=l0.id, text=f"{text}\n{said}"
        )
        records += [l0, overview]
    return turns + records


@pytest.fixture(scope="module")
def embedder():  # type: ignore[no-untyped-def]
    return make_embedder("e5")


def test_a_question_with_answers_in_many_sessions_reaches_past_repeated_levels(
    tmp_path: Path, embedder: object
) -> None:
    store = SqliteIndexStore(tmp_path / "index.sqlite", embedder_name=embedder.name)  # type: ignore[attr-defined]
    docs = [d for i, done in enumerate(DONE) for d in _session(i, done)]
    wrote = Doc(  # a memory the user wrote: no turn to lend to, it stands for itself
        id=record_doc_id("memory", "mine"),
        kind="memory",
        level=0,
        text="Ana also went paragliding over the valley.",
        support=("mine",),
    )
    store.write(docs + [wrote])
    found = store.docs_by_id([d.id for d in docs + [wrote]])
    vectors = embedder.encode([d.text for d in docs + [wrote]])  # type: ignore[attr-defined]
    store.put_vectors({found[d.id].rowid: v for d, v in zip(docs + [wrote], vectors, strict=True)})
    active = {f"m{i}" for i in range(len(DONE))} | {"mine"}
    recaller = Recaller(
        store,
        embed=lambda q: encode_queries(embedder, [q])[0],  # type: ignore[arg-type]
        count_tokens=count_tokens,
        visibility=lambda: (active, set()),
    )
    # Full text out of the way: what reaches the answer is the vector ranking's doing.
    config = replace(RECIPES["default"], fts_limit=0)
    result = recaller.recall("What outdoor activities has Ana done?", budget=2000, config=config)
    text = "\n".join(i.text for i in result.items)
    reached = [done for done in DONE if done.replace("her", "my") in text]
    # Each activity is said five times (turn, memory, overview, event, overview): a ranking
    # of documents 60 deep reaches about a dozen of them; one of turns reaches 20 items' worth.
    assert len(reached) >= 18, reached
    assert len(result.items) <= 20 and result.tokens <= 2000
    for item in result.items:  # items still hold one session's turns, pointers intact
        assert item.kind != "turns" or {c.split(":")[0] for c in item.cites} <= {
            f"D{item.session_id[1:]}"  # type: ignore[index]
        }
    # What the user wrote has no turn to lend its score to: it ranks as itself.
    mine = recaller.recall("Has Ana ever been paragliding?", budget=2000, config=config)
    assert "paragliding" in mine.items[0].text
    store.close()
