"""A session's L0 abstract and L1 overview kept in step turn by turn read only the turns since
the last sync (a turn end decoded every turn document of its session before): the documents
are the ones a rebuild from scratch writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from ogmemory import Memory, Settings
from ogmemory.index.docs import session_doc_id

pytestmark = pytest.mark.timeout(300)


def _session_docs(mem: Memory, sid: str) -> list[tuple[str, str, tuple[str, ...], object]]:
    docs = mem.retrieval.index.docs_by_id([session_doc_id(sid, 0), session_doc_id(sid, 1)])
    return [(d.id, d.text, d.node_ids, d.prov) for d in sorted(docs.values(), key=lambda d: d.id)]


@pytest.mark.parametrize("distil", [False, True])  # the overview: turns, or memories
def test_session_documents_synced_turn_by_turn_equal_a_rebuild(
    tmp_path: Path, distil: bool
) -> None:
    settings = Settings(
        home=tmp_path / "home", embedder="none", distill_on_turn=False, index_worker=False
    )
    with Memory(settings=settings) as mem:
        for i in range(150):
            speaker = "Carl" if i == 120 else ("Ana" if i % 2 == 0 else "Ben")  # Carl comes late
            mem.append_message(
                "talk",
                {
                    "role": "user",
                    "name": speaker,
                    "content": f"Turn {i}: the deploy of service {i} is at "
                    f"{i % 24}:00 on host h{i}.",
                },
            )
            mem.append_message("talk", {"role": "assistant", "content": f"Noted, turn {i}."})
            if distil and i % 10 == 3:
                mem.append_message(
                    "talk",
                    {
                        "role": "user",
                        "name": "Ana",
                        "content": f"I prefer tea number {i} over coffee.",
                    },
                )
            mem.commit_turn("talk")
            if i % 7 == 0 or i > 140:
                if distil and i % 35 == 0:
                    mem.distill()
                mem.sync_index()
        if distil:
            mem.distill()
        mem.sync_index()
        synced = _session_docs(mem, "talk")
        assert ("prefers tea" in synced[1][1]) == distil
        assert "Carl" in synced[0][1]  # the speaker of turn 120 is in the abstract
        mem.reindex(wait_for_vectors=False)
        assert _session_docs(mem, "talk") == synced
