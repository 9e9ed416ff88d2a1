"""The provenance read layer (seed 001 §5): what distillation reads from the entity layer."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from conftest import git_out, make_project

from ogmemory import Memory, NodeRecord, Provenance


def drain(mem: Memory, cursor: dict[str, int]) -> list[NodeRecord]:
    """Consume everything after ``cursor``, advancing it node by node."""
    out = []
    for rec in mem.iter_nodes_since(cursor):
        assert rec.node.seq > cursor.get(rec.session_id, 0)
        cursor[rec.session_id] = rec.node.seq
        out.append(rec)
    return out


def tool_turn(mem: Memory, sid: str, text: str) -> list[str]:
    u = mem.append_message(sid, {"role": "user", "content": text})
    a = mem.append_message(
        sid,
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"c-{text}",
                    "type": "function",
                    "function": {"name": "grep", "arguments": "{}"},
                }
            ],
        },
    )
    t = mem.append_message(sid, {"role": "tool", "tool_call_id": f"c-{text}", "content": "hit"})
    b = mem.append_message(sid, {"role": "assistant", "content": f"answer to {text}"})
    mem.commit_turn(sid)
    return [u.id, a.id, t.id, b.id]


def test_iter_nodes_since_yields_committed_nodes_with_commit_and_turn(mem: Memory) -> None:
    ids_a1 = tool_turn(mem, "a", "one")
    ids_b1 = tool_turn(mem, "b", "two")
    ids_a2 = tool_turn(mem, "a", "three")
    pending = mem.append_message("b", {"role": "user", "content": "not committed yet"})
    recs = list(mem.iter_nodes_since())
    assert [r.node.id for r in recs] == ids_a1 + ids_a2 + ids_b1  # oldest session first
    assert pending.id not in {r.node.id for r in recs}
    assert "tool" in {r.node.role for r in recs}
    by_id = {r.node.id: r for r in recs}
    commits_a = {c.sha: c for c in mem.session_commits("a")}
    for ids, turn_no in ((ids_a1, 1), (ids_a2, 2)):
        for nid in ids:
            rec = by_id[nid]
            assert rec.turn == turn_no and rec.session_id == "a"
            assert nid in commits_a[rec.commit].node_ids
    # The commit really added the node's file (checked with the git CLI).
    path = Path(mem.get_session("a").path)
    rec = by_id[ids_a2[2]]
    added = git_out(path, "show", "--name-only", "--format=", rec.commit).splitlines()
    assert rec.node.filename in [Path(p).name for p in added]
    assert all(by_id[n].turn == 1 and by_id[n].session_id == "b" for n in ids_b1)
    assert by_id[ids_b1[2]].node.called_by == ids_b1[1]
    assert all(r.project_id == "default" for r in recs)


def test_cursor_never_repeats_or_loses(mem: Memory) -> None:
    cursor: dict[str, int] = {}
    seen: list[str] = []
    written: list[str] = []
    written += tool_turn(mem, "a", "t1")
    seen += [r.node.id for r in drain(mem, cursor)]
    assert drain(mem, cursor) == []  # nothing twice
    written += tool_turn(mem, "b", "t2")
    u = mem.append_message("a", {"role": "user", "content": "half a turn"})
    seen += [r.node.id for r in drain(mem, cursor)]  # b's turn only; a's node is uncommitted
    assert u.id not in seen
    a = mem.append_message("a", {"role": "assistant", "content": "rest of it"})
    mem.commit_turn("a")
    written += [u.id, a.id]
    written += tool_turn(mem, "c", "t3")
    seen += [r.node.id for r in drain(mem, cursor)]
    assert sorted(seen) == sorted(written) and len(seen) == len(set(seen))
    # A fresh Memory with the persisted cursor agrees.
    assert drain(Memory(home=mem.settings.home), dict(cursor)) == []


def test_cursor_across_retry_branch(mem: Memory) -> None:
    cursor: dict[str, int] = {}
    seen: list[str] = []
    mem.append_message("s", {"role": "user", "content": "write a haiku"})
    a1 = mem.append_message("s", {"role": "assistant", "content": "haiku one"})
    mem.commit_turn("s")
    seen += [r.node.id for r in drain(mem, cursor)]
    branch = mem.retry("s", a1.id)
    a2 = mem.append_message("s", {"role": "assistant", "content": "haiku two"})
    mem.commit_turn("s")
    recs = drain(mem, cursor)
    assert [r.node.id for r in recs] == [a2.id]
    assert recs[0].commit == mem.session_commits("s", branch)[0].sha
    seen += [r.node.id for r in recs]
    # Back on main, a new turn there: only it is new.
    mem.checkout("s", "main")
    u3 = mem.append_message("s", {"role": "user", "content": "another"})
    a3 = mem.append_message("s", {"role": "assistant", "content": "ok"})
    mem.commit_turn("s")
    recs = drain(mem, cursor)
    assert [r.node.id for r in recs] == [u3.id, a3.id]
    assert {r.turn for r in recs} == {2}
    seen += [r.node.id for r in recs]
    # Nodes on a branch that is not checked out are still yielded from the start.
    assert sorted(r.node.id for r in mem.iter_nodes_since()) == sorted(seen)
    assert len(seen) == 5 == len(set(seen))


def test_node_provenance_fields(mem: Memory, tmp_path: Path) -> None:
    project = make_project(tmp_path)
    proj = mem.resolve_project(project)
    u = mem.append_message(
        "s1", {"role": "user", "content": "x", "event_time": 1_500_000_000}, project=project
    )
    before = mem.node_provenance("s1", u.id)
    assert isinstance(before, Provenance) and before.commit is None  # not committed yet
    mem.append_message("s1", {"role": "assistant", "content": "y"})
    res = mem.commit_turn("s1")
    prov = mem.node_provenance("s1", u.id)
    assert prov == Provenance(
        project_id=proj.project_id,
        session_id="s1",
        node_ids=(u.id,),
        commit=res.commit,
        event_time=1_500_000_000.0,
        ingestion_time=u.ingestion_time,
    )
    assert prov.ingestion_time > prov.event_time
    assert Provenance.from_dict(prov.to_dict()) == prov
    [rec] = [r for r in mem.iter_nodes_since() if r.node.id == u.id]
    assert rec.provenance == prov
    assert mem.node_provenance("s1", "no-such-node") is None
    assert mem.node_provenance("no-such-session", u.id) is None


def test_imported_past_dates_are_preserved(mem: Memory) -> None:
    # LoCoMo style: "1:56 pm on 8 May, 2023" session dates become event times.
    when = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    turns = [
        [
            {
                "role": "user",
                "content": "I went to a support group yesterday.",
                "event_time": when.isoformat(),
            },
            {"role": "assistant", "content": "How was it?", "event_time": when.timestamp() + 30},
        ],
        [
            {"role": "user", "content": "It was great.", "event_time": "2023-06-09T10:00:00"},
            {"role": "assistant", "content": "Glad to hear.", "event_time": "2023-06-09T10:00:30Z"},
        ],
    ]
    for msgs in turns:
        for msg in msgs:
            mem.append_message("conv-1", msg)
        mem.commit_turn("conv-1")
    recs = list(Memory(home=mem.settings.home).iter_nodes_since())
    june = datetime(2023, 6, 9, 10, tzinfo=UTC).timestamp()
    assert [r.node.event_time for r in recs] == [
        when.timestamp(),
        when.timestamp() + 30,
        june,
        june + 30,
    ]
    assert [r.turn for r in recs] == [1, 1, 2, 2]
    for rec in recs:
        prov = mem.node_provenance("conv-1", rec.node.id)
        assert prov is not None and prov.event_time == rec.node.event_time
        assert prov.ingestion_time > june  # ingested now, long after the event
