"""Session-Git (seed 001 §2-3): creation, turns, DAG, retry branches, discovery, tenancy."""

from __future__ import annotations

import itertools
import json
import re
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest import commit_count, fsck, git_out, make_project, turn

from ogmemory import (
    Conflict,
    InvalidId,
    InvalidInput,
    Memory,
    NotFound,
    SessionNotFound,
    Settings,
)
from ogmemory.entity.session_store import SessionStore


def session_dir(mem: Memory, sid: str) -> Path:
    return Path(mem.get_session(sid).path)


def all_files(root: Path) -> set[Path]:
    return set(root.rglob("*")) if root.exists() else set()


# ---------------------------------------------------------------- creation


def test_no_session_before_first_message(mem: Memory) -> None:
    assert mem.list_sessions() == []
    with pytest.raises(SessionNotFound):
        mem.get_session("s1")
    assert not (mem.tenant.sessions_dir / "s1").exists()


def test_lazy_creation_on_first_message(mem: Memory) -> None:
    node = mem.append_message("s1", {"role": "user", "content": "hello there"}, agent_id="coder")
    path = mem.tenant.sessions_dir / "s1"
    assert (path / ".git").is_dir()
    for sub in ("history", "context/commits", "workdir"):
        assert (path / sub).is_dir(), sub
    meta = json.loads((path / "meta.json").read_text())
    assert meta["agent_id"] == "coder"
    assert meta["project_id"] == "default"
    assert "title" in meta
    assert isinstance(meta["created_at"], float) and isinstance(meta["updated_at"], float)
    assert meta["created_at"] <= meta["updated_at"]
    files = sorted(p.name for p in (path / "history").iterdir())
    assert files == [f"000001-u-{node.id}.json"]
    # The node is on disk synchronously, before any commit.
    stored = json.loads((path / "history" / files[0]).read_text())
    assert stored["content"] == "hello there" and stored["role"] == "user"


def test_history_file_names_and_context(mem: Memory) -> None:
    u = mem.append_message("s1", {"role": "user", "content": "list files"})
    a = mem.append_message(
        "s1",
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
            ],
        },
    )
    t = mem.append_message("s1", {"role": "tool", "tool_call_id": "call_1", "content": "a.txt"})
    a2 = mem.append_message("s1", {"role": "assistant", "content": "There is a.txt"})
    res = mem.commit_turn("s1", context={"system": "be brief"})
    path = session_dir(mem, "s1")
    names = sorted(p.name for p in (path / "history").iterdir())
    assert names == [
        f"000001-u-{u.id}.json",
        f"000002-a-{a.id}.json",
        f"000003-t-{t.id}.json",
        f"000004-a-{a2.id}.json",
    ]
    for name in names:
        assert re.fullmatch(r"\d{6}-[uat]-[A-Za-z0-9._-]+\.json", name)
    ctx = json.loads((path / "context" / "commits" / f"{res.commit}.json").read_text())
    assert ctx["commit"] == res.commit
    assert ctx["node_ids"] == [u.id, a.id, t.id, a2.id]
    assert ctx["context"] == {"system": "be brief"}
    assert res.node_ids == (u.id, a.id, t.id, a2.id)
    # history/ is versioned, meta.json / context / workdir are not.
    tracked = git_out(path, "ls-files").splitlines()
    assert sorted(tracked) == [f"history/{n}" for n in names]


def test_one_commit_per_turn(mem: Memory) -> None:
    for i in range(1, 5):
        mem.append_message("s1", {"role": "user", "content": f"question {i}"})
        mem.append_message("s1", {"role": "assistant", "content": f"answer {i}"})
        res = mem.commit_turn("s1")
        assert res.turn == i and res.commit is not None
        path = session_dir(mem, "s1")
        assert commit_count(path) == i
    assert git_out(path, "rev-parse", "HEAD") == res.commit
    assert git_out(path, "log", "-1", "--format=%s") == "turn 4: question 4"
    assert mem.get_session("s1").turns == 4
    assert git_out(path, "status", "--porcelain") == ""
    fsck(path)


def test_commit_without_pending_makes_no_commit(mem: Memory) -> None:
    turn(mem, "s1", "hi")
    res = mem.commit_turn("s1")
    assert res.commit is None and res.turn == 1 and res.node_ids == ()
    assert commit_count(session_dir(mem, "s1")) == 1


def test_commit_turn_unknown_session(mem: Memory) -> None:
    with pytest.raises(SessionNotFound):
        mem.commit_turn("nope")
    assert mem.list_sessions() == []


def test_tool_node_called_by_the_assistant_holding_the_call(mem: Memory) -> None:
    mem.append_message("s1", {"role": "user", "content": "read two files"})
    a1 = mem.append_message(
        "s1",
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "read", "arguments": '{"p":"x"}'},
                },
                {
                    "id": "c2",
                    "type": "function",
                    "function": {"name": "read", "arguments": '{"p":"y"}'},
                },
            ],
        },
    )
    t1 = mem.append_message("s1", {"role": "tool", "tool_call_id": "c1", "content": "X"})
    t2 = mem.append_message("s1", {"role": "tool", "tool_call_id": "c2", "content": "Y"})
    a2 = mem.append_message(
        "s1",
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c3", "type": "function", "function": {"name": "write", "arguments": "{}"}}
            ],
        },
    )
    t3 = mem.append_message("s1", {"role": "tool", "tool_call_id": "c3", "content": "done"})
    # A tool result for an earlier call (c1) still points at the assistant that made it.
    t4 = mem.append_message("s1", {"role": "tool", "tool_call_id": "c1", "content": "late"})
    mem.commit_turn("s1")
    assert (t1.called_by, t2.called_by, t3.called_by, t4.called_by) == (a1.id, a1.id, a2.id, a1.id)
    stored = {n.id: n for n in Memory(home=mem.settings.home).get_nodes("s1")}
    assert stored[t3.id].called_by == a2.id and stored[t1.id].called_by == a1.id
    raw = json.loads((session_dir(mem, "s1") / "history" / f"000003-t-{t1.id}.json").read_text())
    assert raw["called_by"] == a1.id


@pytest.mark.parametrize(
    "msg",
    [
        {"role": "system", "content": "x"},
        {"role": "robot", "content": "x"},
        {"content": "no role"},
        {"role": "tool", "content": "result"},  # no tool_call_id
        {"role": "tool", "content": "result", "tool_call_id": ""},
        {"role": "user", "content": "x", "tool_call_id": "c1"},
        {"role": "user", "content": "x", "tool_calls": [{"id": "c"}]},
        {"role": "user", "content": 42},
        {"role": "user"},
        {"role": "user", "content": "x", "event_time": "yesterday-ish"},
        {"role": "user", "content": "x", "event_time": -5},
        {"role": "user", "content": "x", "event_time": True},
        {"role": "user", "content": "x", "metadata": "not a dict"},
        "just a string",
        ["role", "user"],
        None,
    ],
)
def test_invalid_messages_write_nothing(mem: Memory, msg: object) -> None:
    with pytest.raises(InvalidInput):
        mem.append_message("s1", msg)  # type: ignore[arg-type]
    assert mem.list_sessions() == []
    assert all_files(mem.tenant.sessions_dir) <= {mem.tenant.sessions_dir / ".locations.lock"}


def test_invalid_message_on_existing_session_writes_nothing(mem: Memory) -> None:
    turn(mem, "s1", "hi")
    path = session_dir(mem, "s1")
    before = sorted((path / "history").iterdir())
    with pytest.raises(InvalidInput):
        mem.append_message("s1", {"role": "tool", "content": "no id"})
    with pytest.raises(InvalidInput):
        mem.append_message("s1", {"role": "user", "content": "x", "parent_id": "missing"})
    assert sorted((path / "history").iterdir()) == before
    assert len(mem.get_nodes("s1")) == 2


@pytest.mark.parametrize("bad_id", ["../x", "a/b", ".hidden"])
def test_invalid_node_id_writes_nothing(mem: Memory, bad_id: str) -> None:
    with pytest.raises(InvalidId):
        mem.append_message("s1", {"role": "user", "content": "x", "id": bad_id})
    assert mem.list_sessions() == []


def test_caller_event_time_is_kept(mem: Memory) -> None:
    a = mem.append_message("s1", {"role": "user", "content": "x", "event_time": 1_600_000_000})
    b = mem.append_message(
        "s1", {"role": "assistant", "content": "y", "event_time": "2023-05-08T13:56:00Z"}
    )
    c = mem.append_message(
        "s1", {"role": "user", "content": "z", "event_time": "2023-05-08T15:56:00+02:00"}
    )
    d = mem.append_message("s1", {"role": "assistant", "content": "w"})
    mem.commit_turn("s1")
    iso = datetime(2023, 5, 8, 13, 56, tzinfo=UTC).timestamp()
    assert a.event_time == 1_600_000_000.0
    assert b.event_time == iso and c.event_time == iso
    assert d.event_time >= c.ingestion_time  # default: now
    fresh = {n.id: n for n in Memory(home=mem.settings.home).get_nodes("s1")}
    assert fresh[a.id].event_time == 1_600_000_000.0 and fresh[b.id].event_time == iso
    assert fresh[a.id].ingestion_time > 1_700_000_000  # ingestion is when we wrote it


# ---------------------------------------------------------------- reads


def test_get_branch_get_nodes_session_commits(mem: Memory) -> None:
    r1 = turn(mem, "s1", "first", "one")
    mem.append_message("s1", {"role": "user", "content": "second"})
    mem.append_message(
        "s1",
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c9", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        },
    )
    mem.append_message("s1", {"role": "tool", "tool_call_id": "c9", "content": "r"})
    r2 = mem.commit_turn("s1")
    branch = mem.get_branch("s1")
    assert [m["role"] for m in branch] == ["user", "assistant", "user", "assistant", "tool"]
    assert branch[0] == {"role": "user", "content": "first"}
    assert branch[3]["tool_calls"][0]["id"] == "c9"
    assert branch[4]["tool_call_id"] == "c9"
    nodes = mem.get_nodes("s1")
    assert [n.seq for n in nodes] == [1, 2, 3, 4, 5]
    assert nodes[4].called_by == nodes[3].id
    # get_branch up to an earlier head
    assert [m["content"] for m in mem.get_branch("s1", nodes[1].id)] == ["first", "one"]
    commits = mem.session_commits("s1")
    assert [c.sha for c in commits] == [r2.commit, r1.commit]  # newest first
    assert commits[0].node_ids == r2.node_ids and commits[1].node_ids == r1.node_ids
    path = session_dir(mem, "s1")
    assert git_out(path, "log", "--format=%H").splitlines() == [r2.commit, r1.commit]
    assert mem.session_commits("s1", limit=1)[0].sha == r2.commit


# ---------------------------------------------------------------- retry / branches


def test_retry_branch_sibling_and_switch_head(mem: Memory) -> None:
    u1 = mem.append_message("s1", {"role": "user", "content": "tell a joke"})
    a1 = mem.append_message("s1", {"role": "assistant", "content": "joke A"})
    mem.commit_turn("s1")
    path = session_dir(mem, "s1")
    assert git_out(path, "rev-parse", "--abbrev-ref", "HEAD") == "main"

    branch = mem.retry("s1", a1.id)
    assert branch == f"retry-{a1.id}"
    assert git_out(path, "rev-parse", "--abbrev-ref", "HEAD") == branch
    assert branch in git_out(path, "branch", "--list").replace("*", " ").split()
    a2 = mem.append_message("s1", {"role": "assistant", "content": "joke B"})
    assert a2.parent_id == u1.id == a1.parent_id  # a sibling of the retried reply
    mem.commit_turn("s1")
    assert [m["content"] for m in mem.get_branch("s1")] == ["tell a joke", "joke B"]
    assert commit_count(path, branch) == 2 and commit_count(path, "main") == 1

    # Back on main, then switch the head to the retried reply: its branch is checked out.
    mem.checkout("s1", "main")
    assert git_out(path, "rev-parse", "--abbrev-ref", "HEAD") == "main"
    assert [m["content"] for m in mem.get_branch("s1")] == ["tell a joke", "joke A"]
    assert not (path / "history" / f"000003-a-{a2.id}.json").exists()
    assert mem.switch_head("s1", a2.id) == branch
    assert git_out(path, "rev-parse", "--abbrev-ref", "HEAD") == branch
    assert [m["content"] for m in mem.get_branch("s1")] == ["tell a joke", "joke B"]

    # Continue main with another turn, then switch to a node only main holds.
    mem.checkout("s1", "main")
    u3 = mem.append_message("s1", {"role": "user", "content": "another"})
    assert u3.parent_id == a1.id
    mem.append_message("s1", {"role": "assistant", "content": "sure"})
    mem.commit_turn("s1")
    mem.switch_head("s1", a2.id)
    assert git_out(path, "rev-parse", "--abbrev-ref", "HEAD") == branch
    assert mem.switch_head("s1", u3.id) == "main"
    assert git_out(path, "rev-parse", "--abbrev-ref", "HEAD") == "main"
    assert [m["content"] for m in mem.get_branch("s1")] == ["tell a joke", "joke A", "another"]

    # Both branches' nodes stay readable; a fresh Memory follows the same head.
    assert {n.id for n in mem.get_nodes("s1")} >= {u1.id, a1.id, a2.id, u3.id}
    fresh = Memory(home=mem.settings.home)
    assert [m["content"] for m in fresh.get_branch("s1")] == ["tell a joke", "joke A", "another"]
    assert sorted(fresh.branches("s1")) == sorted(["main", branch])
    fsck(path)


def test_retry_requires_committed_assistant(mem: Memory) -> None:
    u = mem.append_message("s1", {"role": "user", "content": "q"})
    a = mem.append_message("s1", {"role": "assistant", "content": "a"})
    with pytest.raises(Conflict, match="commit"):  # the turn is not committed yet
        mem.retry("s1", a.id)
    mem.commit_turn("s1")
    with pytest.raises(NotFound):
        mem.retry("s1", u.id)  # not an assistant node
    path = session_dir(mem, "s1")
    assert git_out(path, "branch", "--format=%(refname:short)") == "main"


def test_switch_head_within_branch_is_persisted(mem: Memory) -> None:
    turn(mem, "s1", "one", "1")
    nodes = mem.get_nodes("s1")
    turn(mem, "s1", "two", "2")
    mem.switch_head("s1", nodes[1].id)
    assert [m["content"] for m in mem.get_branch("s1")] == ["one", "1"]
    assert [m["content"] for m in Memory(home=mem.settings.home).get_branch("s1")] == ["one", "1"]
    nxt = mem.append_message("s1", {"role": "user", "content": "fork"})
    assert nxt.parent_id == nodes[1].id


# ---------------------------------------------------------------- discovery


def test_discovery_skips_invalid_directories(mem: Memory) -> None:
    turn(mem, "good", "hello")
    sdir = mem.tenant.sessions_dir
    (sdir / "leftover" / "steering").mkdir(parents=True)  # no meta.json
    (sdir / "broken").mkdir()
    (sdir / "broken" / "meta.json").write_text("{not json")  # unparsable
    (sdir / "listy").mkdir()
    (sdir / "listy" / "meta.json").write_text("[1, 2]")  # JSON, not an object
    (sdir / "stray.txt").write_text("hello")  # a stray file
    (sdir / "empty").mkdir()
    assert [s.session_id for s in mem.list_sessions()] == ["good"]
    with pytest.raises(SessionNotFound):
        mem.get_session("broken")
    with pytest.raises(SessionNotFound):
        mem.get_nodes("leftover")


def test_existence_follows_meta_json_at_once(mem: Memory) -> None:
    """Whether a session exists (asked for every session recall reads) is not remembered
    past a change of its meta.json: spoilt, repaired, or the directory gone."""
    turn(mem, "s1", "hello")
    meta = session_dir(mem, "s1") / "meta.json"
    good = meta.read_text()
    assert mem.sessions.session_exists("s1") and mem.sessions.session_exists("s1")
    meta.write_text("{not json")
    assert not mem.sessions.session_exists("s1")
    meta.write_text(good)
    assert mem.sessions.session_exists("s1")
    mem.wait_background()  # the turn's distillation writes into the repository meanwhile
    shutil.rmtree(session_dir(mem, "s1"))
    assert not mem.sessions.session_exists("s1")
    assert not mem.sessions.session_exists("../etc")


def test_listing_merges_locations_dedups_and_sorts(mem: Memory, tmp_path: Path) -> None:
    project = make_project(tmp_path)
    turn(mem, "a", "first")
    turn(mem, "p", "in project", project=project)
    turn(mem, "b", "second")
    # A stale duplicate and a dangling entry in locations.json must not show up twice / at all.
    loc = mem.tenant.locations_file
    data = json.loads(loc.read_text())
    assert data == {"p": str(project / ".ogmemory" / "sessions" / "p")}
    data["gone"] = str(tmp_path / "nowhere")
    data["a"] = str(mem.tenant.sessions_dir / "a")
    loc.write_text(json.dumps(data))
    assert [s.session_id for s in mem.list_sessions()] == ["b", "p", "a"]
    turn(mem, "a", "again")
    listed = mem.list_sessions()
    assert [s.session_id for s in listed] == ["a", "b", "p"]
    assert all(x.updated_at >= y.updated_at for x, y in itertools.pairwise(listed))
    assert listed[2].path == str(project / ".ogmemory" / "sessions" / "p")


def test_just_created_session_is_listed(mem: Memory) -> None:
    mem.append_message("s1", {"role": "user", "content": "pending, no commit yet"})
    [info] = mem.list_sessions()
    assert info.session_id == "s1" and info.turns == 0
    assert info.display_title == "pending, no commit yet"


def test_update_session(mem: Memory) -> None:
    turn(mem, "s1", "hello")
    info = mem.update_session("s1", title="My chat", agent_id="bot2", project_id="other")
    assert (info.title, info.agent_id, info.project_id) == ("My chat", "bot2", "other")
    meta = json.loads((session_dir(mem, "s1") / "meta.json").read_text())
    assert meta["title"] == "My chat" and meta["agent_id"] == "bot2"
    assert Memory(home=mem.settings.home).get_session("s1").title == "My chat"
    with pytest.raises(InvalidInput):
        mem.update_session("s1", colour="red")
    with pytest.raises(InvalidId):
        mem.update_session("s1", project_id="../up")
    with pytest.raises(SessionNotFound):
        mem.update_session("missing", title="x")


def test_delete_session(mem: Memory, tmp_path: Path) -> None:
    project = make_project(tmp_path)
    turn(mem, "home1", "hi")
    turn(mem, "proj1", "hi", project=project)
    node = mem.get_nodes("proj1")[0]
    assert mem.node_provenance("proj1", node.id) is not None
    pdir = session_dir(mem, "proj1")
    mem.delete_session("proj1")
    assert not pdir.exists()
    assert "proj1" not in json.loads(mem.tenant.locations_file.read_text())
    assert mem.node_provenance("proj1", node.id) is None
    assert [s.session_id for s in mem.list_sessions()] == ["home1"]
    hdir = session_dir(mem, "home1")
    hnode = mem.get_nodes("home1")[0]
    mem.delete_session("home1")
    assert not hdir.exists()
    assert mem.node_provenance("home1", hnode.id) is None
    assert mem.list_sessions() == []
    with pytest.raises(SessionNotFound):
        mem.delete_session("home1")
    # The user's project is untouched.
    assert commit_count(project) == 1
    fsck(project)
    # The id can be reused for a brand-new session.
    turn(mem, "home1", "new life")
    assert len(mem.get_nodes("home1")) == 2


# ---------------------------------------------------------------- cache / persistence


def test_lru_eviction_loses_nothing(home: Path) -> None:
    mem = Memory(settings=Settings(home=home, session_cache_cap=2))
    ids = [f"s{i}" for i in range(5)]
    for rnd in range(3):
        for sid in ids:
            mem.append_message(sid, {"role": "user", "content": f"{sid} round {rnd}"})
            mem.append_message(sid, {"role": "assistant", "content": f"reply {rnd}"})
        for sid in ids:
            assert mem.commit_turn(sid).turn == rnd + 1
    store = mem.sessions.store
    assert isinstance(store, SessionStore) and store.cached() <= 2
    fresh = Memory(home=home)
    for sid in ids:
        nodes = fresh.get_nodes(sid)
        assert len(nodes) == 6 and [n.seq for n in nodes] == list(range(1, 7))
        assert [m["content"] for m in fresh.get_branch(sid)][::2] == [
            f"{sid} round {r}" for r in range(3)
        ]
        assert commit_count(session_dir(fresh, sid)) == 3
        fsck(session_dir(fresh, sid))


def test_fresh_memory_sees_everything(mem: Memory) -> None:
    turn(mem, "s1", "persist me")
    mem.rename_session("s1", "Named")
    mem.append_message("s1", {"role": "user", "content": "pending"})
    fresh = Memory(home=mem.settings.home)
    info = fresh.get_session("s1")
    assert info.title == "Named" and info.turns == 1
    assert [m["content"] for m in fresh.get_branch("s1")] == ["persist me", "ok", "pending"]
    # The uncommitted message is committed by the other instance as part of the next turn.
    fresh.append_message("s1", {"role": "assistant", "content": "done"})
    res = fresh.commit_turn("s1")
    assert res.turn == 2 and len(res.node_ids) == 2
    assert mem.get_session("s1").turns == 2
    assert len(mem.get_nodes("s1")) == 4


# ---------------------------------------------------------------- ids and tenancy


BAD_IDS = ["../x", "a/b", "..", "", "x" * 200, ".hidden", "a\\b", "/abs", "a b", "..\\x", "~"]


@pytest.mark.parametrize("bad", BAD_IDS)
def test_invalid_session_ids(mem: Memory, tmp_path: Path, bad: str) -> None:
    before = all_files(tmp_path)
    with pytest.raises(InvalidId):
        mem.append_message(bad, {"role": "user", "content": "x"})
    with pytest.raises(InvalidId):
        mem.create_session(bad)
    for call in (
        mem.get_session,
        mem.get_nodes,
        mem.get_branch,
        mem.session_commits,
        mem.delete_session,
        mem.commit_turn,
    ):
        with pytest.raises(InvalidId):
            call(bad)
    with pytest.raises(InvalidId):
        mem.update_session(bad, title="t")
    assert all_files(tmp_path) == before
    assert not (tmp_path / "x").exists() and not (mem.tenant.root / "x").exists()


@pytest.mark.parametrize("bad", ["../x", "a/b", "..", "", "x" * 200, ".hidden"])
def test_invalid_account_and_space(home: Path, tmp_path: Path, bad: str) -> None:
    with pytest.raises(InvalidId):
        Memory(home=home, account=bad)
    with pytest.raises(InvalidId):
        Memory(home=home, space=bad)
    with pytest.raises(InvalidId):
        Memory(settings=Settings(home=home, account=bad))
    assert not home.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_tenants_do_not_see_each_other(home: Path) -> None:
    alice = Memory(home=home, account="alice")
    bob = Memory(home=home, account="bob")
    alice_work = Memory(home=home, account="alice", space="work")
    turn(alice, "shared-id", "alice secret")
    turn(bob, "shared-id", "bob secret")
    turn(bob, "bob-only", "bob")
    assert [s.session_id for s in alice.list_sessions()] == ["shared-id"]
    assert next(m["content"] for m in alice.get_branch("shared-id")) == "alice secret"
    assert next(m["content"] for m in bob.get_branch("shared-id")) == "bob secret"
    assert alice_work.list_sessions() == []
    for call in (alice.get_session, alice.get_nodes):
        with pytest.raises(SessionNotFound) as missing_here:
            call("bob-only")
        with pytest.raises(SessionNotFound) as missing_everywhere:
            call("nobody")
        assert str(missing_here.value).replace("bob-only", "X") == str(
            missing_everywhere.value
        ).replace("nobody", "X")
    with pytest.raises(SessionNotFound):
        alice_work.get_nodes("shared-id")
    assert alice.node_provenance("bob-only", bob.get_nodes("bob-only")[0].id) is None
    assert [r.node.content for r in alice.iter_nodes_since()] == ["alice secret", "ok"]
    with pytest.raises(SessionNotFound):
        alice.delete_session("bob-only")
    assert bob.get_session("bob-only").turns == 1


def test_tenants_sharing_a_project_keep_their_sessions(home: Path, tmp_path: Path) -> None:
    project = make_project(tmp_path)
    alice = Memory(home=home, account="alice")
    bob = Memory(home=home, account="bob")
    turn(alice, "same", "alice in project", project=project)
    # Bob uses the same session id in the same project: each tenant has its own folder there,
    # so neither collides with (nor learns of) the other, and Alice's history survives.
    turn(bob, "same", "bob in project", project=project)
    assert [m["content"] for m in bob.get_branch("same")] == ["bob in project", "ok"]
    assert Path(bob.get_session("same").path) != Path(alice.get_session("same").path)
    assert "tenants/bob/default" in bob.get_session("same").path
    assert [m["content"] for m in alice.get_branch("same")] == ["alice in project", "ok"]
    assert [s.session_id for s in alice.list_sessions()] == ["same"]
    assert all(
        r.session_id == "same" and r.node.content in ("alice in project", "ok")
        for r in alice.iter_nodes_since()
    )
    with pytest.raises(SessionNotFound):
        alice.get_nodes("bob-only")


def test_discovery_tolerates_odd_but_parsable_metadata(mem: Memory) -> None:
    turn(mem, "good", "hello")
    sdir = mem.tenant.sessions_dir
    (sdir / "odd").mkdir()  # parsable meta.json with wrong types, and no git repository
    (sdir / "odd" / "meta.json").write_text(
        json.dumps({"created_at": "yesterday", "updated_at": None, "turns": "many", "title": 5})
    )
    (sdir / "bad name").mkdir()  # not an id the API could ever address
    (sdir / "bad name" / "meta.json").write_text("{}")
    listed = {s.session_id: s for s in mem.list_sessions()}
    assert sorted(listed) == ["good", "odd"]
    assert listed["odd"].turns == 0 and listed["odd"].updated_at == 0.0
    assert next(s.session_id for s in mem.list_sessions()) == "good"
    # Distillation reads past an unreadable session instead of failing on it.
    assert [r.session_id for r in mem.iter_nodes_since()] == ["good", "good"]


def test_unparsable_node_files_are_skipped(mem: Memory) -> None:
    turn(mem, "s1", "hello")
    hist = session_dir(mem, "s1") / "history"
    (hist / "000090-u-bogus.json").write_text('{"not": "a node"}')
    (hist / "000091-u-bogus2.json").write_text("[1, 2]")
    (hist / "000092-u-torn.json").write_text('{"id": "torn", "se')
    fresh = Memory(home=mem.settings.home)
    assert [n.content for n in fresh.get_nodes("s1")] == ["hello", "ok"]
    assert len(fresh.session_commits("s1")) == 1


def test_reserved_session_id(mem: Memory, tmp_path: Path) -> None:
    project = make_project(tmp_path)
    turn(mem, "p", "bound", project=project)
    with pytest.raises(InvalidId):
        mem.append_message("locations.json", {"role": "user", "content": "x"})
    assert (mem.tenant.locations_file).is_file()
    assert [s.session_id for s in mem.list_sessions()] == ["p"]


def test_retrying_again_adds_more_siblings(mem: Memory) -> None:
    u1 = mem.append_message("s1", {"role": "user", "content": "name a colour"})
    a1 = mem.append_message("s1", {"role": "assistant", "content": "red"})
    mem.commit_turn("s1")
    path = session_dir(mem, "s1")
    b1 = mem.retry("s1", a1.id)
    a2 = mem.append_message("s1", {"role": "assistant", "content": "green"})
    mem.commit_turn("s1")
    # Regenerate the newest reply: a branch of its own.
    b2 = mem.retry("s1", a2.id)
    assert b2 == f"retry-{a2.id}" != b1
    a3 = mem.append_message("s1", {"role": "assistant", "content": "blue"})
    mem.commit_turn("s1")
    # Go back to the first reply (from main) and regenerate it once more.
    mem.checkout("s1", "main")
    assert mem.retry("s1", a1.id) == b1
    a4 = mem.append_message("s1", {"role": "assistant", "content": "black"})
    mem.commit_turn("s1")
    assert git_out(path, "rev-parse", "--abbrev-ref", "HEAD") == b1
    assert {a1.parent_id, a2.parent_id, a3.parent_id, a4.parent_id} == {u1.id}
    for node, text in ((a1, "red"), (a2, "green"), (a3, "blue"), (a4, "black")):
        mem.switch_head("s1", node.id)
        assert [m["content"] for m in mem.get_branch("s1")] == ["name a colour", text]
    assert sorted(mem.branches("s1")) == sorted(["main", b1, b2])
    assert len({n.seq for n in mem.get_nodes("s1")}) == 5
    fsck(path)


def test_parent_id_on_a_new_session_writes_nothing(mem: Memory) -> None:
    with pytest.raises(InvalidInput, match="parent"):
        mem.append_message("s1", {"role": "user", "content": "x", "parent_id": "elsewhere"})
    assert mem.list_sessions() == []
    assert not (mem.tenant.sessions_dir / "s1").exists()


def test_custom_commit_message_and_context(mem: Memory) -> None:
    mem.append_message("s1", {"role": "user", "content": "hi"})
    res = mem.commit_turn("s1", "my own message", context={"tokens": 12})
    path = session_dir(mem, "s1")
    assert git_out(path, "log", "-1", "--format=%B") == "my own message"
    assert git_out(path, "log", "-1", "--format=%an <%ae>") == "ogmemory <ogmemory@localhost>"
    view = json.loads((path / "context" / "commits" / f"{res.commit}.json").read_text())
    assert view["context"] == {"tokens": 12} and view["turn"] == 1


def test_non_finite_numbers_are_refused(mem: Memory) -> None:
    with pytest.raises(InvalidInput, match="JSON"):
        mem.append_message(
            "s-nan", {"role": "user", "content": "x", "metadata": {"score": float("nan")}}
        )
    assert mem.list_sessions() == []


def test_a_reused_session_id_is_distilled_and_indexed_again(mem: Memory) -> None:
    turn(mem, "s1", "I live in Lisbon.")
    turn(mem, "s1", "My dog is called Rex.")
    mem.sleep("deep")
    mem.sync_index()
    old_seqs = [n.seq for n in mem.get_nodes("s1")]
    mem.delete_session("s1")
    turn(mem, "s1", "My sister Ana moved to Oslo last year.")  # the same id, a new session
    new = mem.get_nodes("s1")
    assert min(n.seq for n in new) > max(old_seqs)  # numbering goes on from the deleted one
    mem.sleep("deep")  # the cursors kept for "s1" must not skip the new turns
    assert any("Oslo" in m.text for m in mem.memories())
    assert any("Oslo" in i.text for i in mem.recall("Where did Ana move?").items)
    fsck(session_dir(mem, "s1"))
