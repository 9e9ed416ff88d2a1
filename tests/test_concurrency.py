"""Concurrency and crash safety of the entity layer: threads, processes, SIGKILL."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import threading
from pathlib import Path

from conftest import commit_count, fsck, git, turn

from ogmemory import Memory, SessionNotFound, Settings

# A writer process: ``turns`` turns of user + assistant messages to one session, printing a
# line after every step so the parent can kill it at a known point.
WRITER = r"""
import os, sys, time
from ogmemory import Memory
home, sid, tag, turns = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
go = sys.argv[5] if len(sys.argv) > 5 else ""
mem = Memory(home=home)
if go:  # line the writers up so that their first writes collide
    print("ready", flush=True)
    while not os.path.exists(go):
        time.sleep(0.0005)
for i in range(turns):
    mem.append_message(sid, {"role": "user", "content": f"{tag} user {i}"})
    print("u", i, flush=True)
    mem.append_message(sid, {"role": "assistant", "content": f"{tag} reply {i}"})
    print("a", i, flush=True)
    mem.commit_turn(sid)
    print("c", i, flush=True)
"""


def writer(
    home: Path, sid: str, tag: str, turns: int, go: Path | None = None
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(home), sid, tag, str(turns), str(go or "")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def check_session(mem: Memory, sid: str, *, all_committed: bool = True) -> list[str]:
    """Nodes readable, seqs unique, committed nodes in git's tree, fsck passes.

    Returns the contents. After a crash the last half-turn may still be uncommitted
    (``all_committed=False``); it must then come after every committed node.
    """
    nodes = mem.get_nodes(sid)
    seqs = [n.seq for n in nodes]
    assert len(seqs) == len(set(seqs)), f"duplicate seqs in {sid}: {seqs}"
    path = Path(mem.get_session(sid).path)
    fsck(path)
    tracked = set(git(path, "ls-tree", "-r", "--name-only", "HEAD", "history").stdout.split())
    committed = {n for c in mem.session_commits(sid) for n in c.node_ids}
    for node in nodes:
        assert (f"history/{node.filename}" in tracked) == (node.id in committed), node
    if all_committed:
        assert committed == {n.id for n in nodes}
    else:
        pending = [n.seq for n in nodes if n.id not in committed]
        assert all(p > n.seq for p in pending for n in nodes if n.id in committed)
    return [n.content for n in nodes]


def test_threads_same_session(mem: Memory) -> None:
    n_threads, turns = 8, 5
    shas: list[str] = []
    errors: list[BaseException] = []
    start = threading.Barrier(n_threads)

    def work(t: int) -> None:
        try:
            start.wait()
            for i in range(turns):
                mem.append_message("shared", {"role": "user", "content": f"t{t} u{i}"})
                mem.append_message("shared", {"role": "assistant", "content": f"t{t} a{i}"})
                res = mem.commit_turn("shared")
                if res.commit:
                    shas.append(res.commit)
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(n_threads)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []
    contents = check_session(mem, "shared")
    expected = {f"t{t} {r}{i}" for t in range(n_threads) for i in range(turns) for r in "ua"}
    assert sorted(contents) == sorted(expected)
    path = Path(mem.get_session("shared").path)
    assert commit_count(path) == len(shas) == len(set(shas)) >= 1
    assert mem.get_session("shared").turns == len(shas)
    assert sum(len(c.node_ids) for c in mem.session_commits("shared")) == len(expected)
    assert git(path, "status", "--porcelain").stdout == ""
    assert len(list(mem.iter_nodes_since())) == len(expected)
    # A fresh reader agrees.
    assert sorted(check_session(Memory(home=mem.settings.home), "shared")) == sorted(expected)


def test_threads_different_sessions(home: Path) -> None:
    mem = Memory(settings=Settings(home=home, session_cache_cap=3))  # evictions under load
    n_threads, turns = 8, 4
    errors: list[BaseException] = []
    start = threading.Barrier(n_threads)

    def work(t: int) -> None:
        try:
            start.wait()
            for i in range(turns):
                # Each thread writes its own session and, every other turn, a shared one.
                sid = f"own{t}" if i % 2 == 0 else "common"
                mem.append_message(sid, {"role": "user", "content": f"t{t} u{i}"})
                mem.append_message(sid, {"role": "assistant", "content": f"t{t} a{i}"})
                mem.commit_turn(sid)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(n_threads)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []
    fresh = Memory(home=home)
    assert sorted(s.session_id for s in fresh.list_sessions()) == sorted(
        ["common"] + [f"own{t}" for t in range(n_threads)]
    )
    for t in range(n_threads):
        assert sorted(check_session(fresh, f"own{t}")) == sorted(
            f"t{t} {r}{i}" for i in (0, 2) for r in "ua"
        )
        assert commit_count(Path(fresh.get_session(f"own{t}").path)) == 2
    common = check_session(fresh, "common")
    assert sorted(common) == sorted(
        f"t{t} {r}{i}" for t in range(n_threads) for i in (1, 3) for r in "ua"
    )
    assert len(list(fresh.iter_nodes_since())) == n_threads * turns * 2


def test_two_processes_same_session(mem: Memory) -> None:
    home = mem.settings.home
    turn(mem, "s", "created first", "ok")  # both writers open an existing session
    procs = [writer(home, "s", tag, 15) for tag in ("p1", "p2")]
    for p in procs:
        _out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    fresh = Memory(home=home)
    contents = check_session(fresh, "s")
    expected = {"created first", "ok"} | {
        f"{tag} {kind} {i}" for tag in ("p1", "p2") for i in range(15) for kind in ("user", "reply")
    }
    assert sorted(contents) == sorted(expected)
    path = Path(fresh.get_session("s").path)
    assert git(path, "status", "--porcelain").stdout == ""
    # Every node is in exactly one turn commit.
    committed = [n for c in fresh.session_commits("s") for n in c.node_ids]
    assert len(committed) == len(set(committed)) == len(expected)
    assert commit_count(path) == fresh.get_session("s").turns
    # The in-process instance catches up with the other processes' writes.
    assert sorted(n.content for n in mem.get_nodes("s")) == sorted(expected)
    assert len(list(mem.iter_nodes_since())) == len(expected)


def test_sigkill_mid_turn_recovers(mem: Memory) -> None:
    home = mem.settings.home
    rng = random.Random(1234)
    for round_no in range(4):
        proc = writer(home, "k", f"r{round_no}", 1000)
        assert proc.stdout is not None
        for _ in range(rng.randint(1, 8)):
            assert proc.stdout.readline(), proc.stderr.read() if proc.stderr else ""
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        assert proc.returncode == -signal.SIGKILL
        proc.stdout.close()
        if proc.stderr:
            proc.stderr.close()
        # After each kill: listed, readable, fsck passes.
        fresh = Memory(home=home)
        assert [s.session_id for s in fresh.list_sessions()] == ["k"]
        check_session(fresh, "k", all_committed=False)
    # A kill inside a commit leaves git's lock files behind; simulate that explicitly.
    path = Path(mem.get_session("k").path)
    (path / ".git" / "index.lock").write_text("")
    (path / ".git" / "refs" / "heads" / "main.lock").write_text("")
    fresh = Memory(home=home)
    before = commit_count(path)
    res = turn(fresh, "k", "after the crash", "still here")
    assert res.commit is not None  # type: ignore[attr-defined]
    assert commit_count(path) == before + 1
    assert not (path / ".git" / "index.lock").exists()
    contents = check_session(fresh, "k")
    assert "after the crash" in contents and "still here" in contents
    # Everything any writer wrote is now committed; nothing is pending.
    committed = {n for c in fresh.session_commits("k") for n in c.node_ids}
    assert committed == {n.id for n in fresh.get_nodes("k")}
    assert git(path, "status", "--porcelain").stdout == ""
    assert [m["content"] for m in fresh.get_branch("k")][-2:] == ["after the crash", "still here"]


def test_stale_index_after_kill_inside_commit(mem: Memory) -> None:
    turn(mem, "s", "one")
    path = Path(mem.get_session("s").path)
    index = path / ".git" / "index"
    saved = index.read_bytes()
    turn(mem, "s", "two")
    # Killed after the commit object and ref were written, before the index was: the index
    # on disk is one turn behind HEAD.
    index.write_bytes(saved)
    fresh = Memory(home=mem.settings.home)
    res = turn(fresh, "s", "three")
    assert res.turn == 3  # type: ignore[attr-defined]
    contents = check_session(fresh, "s")
    assert contents == ["one", "ok", "two", "ok", "three", "ok"]
    assert len(git(path, "ls-tree", "-r", "--name-only", "HEAD").stdout.split()) == 6
    assert git(path, "status", "--porcelain").stdout == ""


def test_processes_create_the_same_new_session(home: Path, tmp_path: Path) -> None:
    for attempt in range(2):
        sid = f"new{attempt}"
        go = tmp_path / f"go{attempt}"
        procs = [writer(home, sid, tag, 3, go) for tag in ("p1", "p2", "p3")]
        for p in procs:
            assert p.stdout is not None and p.stdout.readline() == "ready\n"
        go.touch()
        for p in procs:
            _out, err = p.communicate(timeout=120)
            assert p.returncode == 0, err
        fresh = Memory(home=home)
        contents = check_session(fresh, sid)
        assert sorted(contents) == sorted(
            f"{tag} {kind} {i}"
            for tag in ("p1", "p2", "p3")
            for i in range(3)
            for kind in ("user", "reply")
        )
    assert sorted(s.session_id for s in Memory(home=home).list_sessions()) == ["new0", "new1"]
    assert [
        p.name
        for p in Memory(home=home).tenant.sessions_dir.iterdir()
        if p.name.startswith(".invalid")
    ] == []


def test_delete_while_others_read(home: Path) -> None:
    for attempt in range(5):
        sid = f"doomed{attempt}"
        mem = Memory(home=home)
        for i in range(3):
            turn(mem, sid, f"message {i}")
        stop = threading.Event()
        errors: list[BaseException] = []

        def reader(
            sid: str = sid, stop: threading.Event = stop, errors: list[BaseException] = errors
        ) -> None:
            # Readers in other Memory instances open their own objects for the session.
            while not stop.is_set():
                try:
                    other = Memory(home=home)
                    list(other.iter_nodes_since())
                    other.node_provenance(sid, "x")
                except BaseException as exc:  # only "it is gone" is acceptable
                    if not isinstance(exc, SessionNotFound):
                        errors.append(exc)

        threads = [threading.Thread(target=reader) for _ in range(2)]
        for th in threads:
            th.start()
        try:
            mem.delete_session(sid)
        finally:
            stop.set()
            for th in threads:
                th.join()
        assert errors == []
        assert sid not in [s.session_id for s in Memory(home=home).list_sessions()]
        assert not (mem.tenant.sessions_dir / sid / "meta.json").exists()
        assert [
            p.name for p in mem.tenant.sessions_dir.iterdir() if p.name.startswith(".deleted")
        ] == []


def test_a_view_taken_mid_append_is_not_trusted(home: Path) -> None:
    """A reader that loads between a writer's seq reservation and its node file must look
    again before committing, or the turn would leave the node out."""
    from ogmemory.entity.git_plumbing import HISTORY
    from ogmemory.entity.records import Node
    from ogmemory.entity.session_git import GitSession
    from ogmemory.storage.files import atomic_write_json

    writer = Memory(home=home)
    writer.append_message("s", {"role": "user", "content": "first"})
    writer.commit_turn("s")
    path = Path(writer.get_session("s").path)
    reader = GitSession(path, "s")
    # a writer's append, frozen between its two steps: 1. reserve the seq ...
    nxt = Path(reader.repo.path) / "ogmemory.next"
    seq = int(nxt.read_text())
    nxt.write_text(str(seq + 1))
    reader.refresh()  # ... a reader loads a view without the node being written ...
    node = Node(
        id="late",
        seq=seq,
        role="user",
        content="second",
        parent_id=None,
        event_time=1.0,
        ingestion_time=1.0,
    )
    atomic_write_json(path / HISTORY / node.filename, node.to_dict())  # ... 2. the node file
    sha, _, node_ids = reader.commit("turn 2")
    assert sha is not None and "late" in node_ids
