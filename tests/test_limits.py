"""Issue 10, through the facade and the CLI: poisoned times, huge messages, invalid text, a turn
commit that fails half-way, unsafe scope ids, the environment and fsync.

Every test here failed on the code before the hardening (each names the failure it covers).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from conftest import fsck, git_out
from mcp.client import Client

from ogmemory import Memory, Settings
from ogmemory.entity import session_git
from ogmemory.entity.times import TIME_MAX, TIME_MIN
from ogmemory.errors import InvalidInput
from ogmemory.interfaces.mcp import build_server
from ogmemory.limits import INDEX_MAX_CHARS
from ogmemory.recall.tokens import count_tokens

CLI = [sys.executable, "-m", "ogmemory.interfaces.cli"]
POISON = ("0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59")
TEXT = "Yesterday I moved to Berlin, and next week I start at Acme. I prefer green tea."


def _settings(home: Path, **kw: Any) -> Settings:
    return Settings(home=home, embedder="none", distill_on_turn=False, index_worker=False, **kw)


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    with Memory(settings=_settings(tmp_path / "home")) as m:
        yield m


def _turn(mem: Memory, sid: str, text: str, **extra: Any) -> None:
    mem.append_message(sid, {"role": "user", "content": text, **extra})
    mem.append_message(sid, {"role": "assistant", "content": "Noted."})
    mem.commit_turn(sid)


# ====================================================================== 1. event_time


@pytest.mark.parametrize("when", [*POISON, -1, 1e11, "1969-12-31T23:59:59Z"])
def test_an_event_time_outside_the_range_is_refused_at_the_door(mem: Memory, when: Any) -> None:
    with pytest.raises(InvalidInput, match="outside 1970-01-01"):
        mem.append_message("s1", {"role": "user", "content": TEXT, "event_time": when})
    assert mem.list_sessions() == []  # nothing written, not even the session


def test_the_edges_of_the_range_are_accepted(mem: Memory) -> None:
    _turn(mem, "s1", TEXT, event_time="1970-01-01T00:00:00Z")
    _turn(mem, "s1", TEXT, event_time=TIME_MAX - 1)
    times = [n.event_time for n in mem.get_nodes("s1") if n.role == "user"]
    assert times == [TIME_MIN, TIME_MAX - 1]
    mem.sleep("deep")
    assert mem.search("Berlin") and not mem.recall("Where did I move?").fallback


@pytest.mark.parametrize("when", POISON)
def test_a_poisoned_turn_already_on_disk_breaks_nothing(tmp_path: Path, when: str) -> None:
    """Homes written before the range was enforced: search, recall, sleep and reindex work."""
    from datetime import datetime

    epoch = datetime.fromisoformat(when).timestamp()
    with Memory(settings=_settings(tmp_path / "home")) as mem:
        _turn(mem, "good", "I live in Paris and I like jazz.")
        session = mem.sessions.store.create("bad")  # below the facade: no door in the way
        session.append(
            {
                "role": "user",
                "content": TEXT,
                "name": None,
                "tool_calls": None,
                "tool_call_id": None,
                "metadata": {},
                "event_time": epoch,
            }
        )
        session.commit("poisoned turn")  # what the door let through before
        assert {h.session_id for h in mem.search("Berlin")} == {"bad"}
        assert mem.search("Paris")
        report = mem.sleep("deep")
        assert report.nodes == 3
        assert mem.memories() and mem.timeline() is not None
        result = mem.recall("Where do I live?")
        assert not result.fallback and result.items
        mem.reindex()
        assert mem.search("jazz")


def test_query_times_outside_the_range_are_clear_errors(mem: Memory) -> None:
    _turn(mem, "s1", TEXT, event_time="2024-05-08T10:00:00Z")
    mem.sleep("light")
    everything = mem.timeline()
    assert everything
    server = build_server(mem)

    async def main() -> None:
        async with Client(server) as client:
            for args in (
                {"since": "0001-01-01"},
                {"until": "9999-12-31"},
                {"since": "0001-01-01", "until": "9999-12-31T23:59:59+00:00"},
            ):
                result = await client.call_tool("memory_timeline", args)
                text = result.content[0].text  # type: ignore[union-attr]
                assert result.is_error and "outside 1970-01-01" in text, (args, text)
            result = await client.call_tool(
                "memory_timeline", {"since": "1970-01-01", "until": "2999-12-31"}
            )
            assert not result.is_error
            listing = result.content[0].text  # type: ignore[union-attr]
            assert all(f"- {ev.id} · " in listing for ev in everything), listing
            result = await client.call_tool(
                "memory_graph_neighbors", {"entity": "user", "at": "0001-01-01"}
            )
            assert "internal" not in str(result.content).lower()

    anyio.run(main)


# ====================================================================== 2. huge messages


def test_a_message_of_a_million_characters_is_stored_whole_and_breaks_no_recall(
    mem: Memory,
) -> None:
    big = " ".join(f"word{i % 977} billing" for i in range(110_000)) + " zanzibar"
    assert len(big) > 1_000_000
    _turn(mem, "big", big)
    _turn(mem, "small", "We moved billing to PostgreSQL last week.")
    stored = next(n for n in mem.get_nodes("big") if n.role == "user")
    assert stored.content == big  # stored whole
    result = mem.recall("Which database does billing use?")
    assert not result.fallback, result.reason
    assert any(item.session_id == "small" for item in result.items)
    assert all(item.tokens <= 2000 for item in result.items)
    hits = mem.search("billing", limit=5)
    assert {h.session_id for h in hits} >= {"big", "small"}
    big_hit = next(h for h in hits if h.session_id == "big")
    assert len(big_hit.text) < INDEX_MAX_CHARS + 200  # the index holds a bound
    assert "more characters in the message" in big_hit.text
    assert mem.sleep("light").nodes == 4


def test_tokens_are_counted_in_chunks() -> None:
    text = "a1 " * 400_000  # 1.2 M characters, beyond the tokenizer's own limits
    assert count_tokens(text) == pytest.approx(count_tokens("a1 " * 1000) * 400, rel=0.01)


# ====================================================================== 5. invalid text


BAD = "\ud800"
INVALID_MESSAGES = [
    {"role": "user", "content": f"a{BAD}b"},
    {"role": "user", "content": "x", "metadata": {f"k{BAD}": 1}},
    {"role": "user", "content": "x", "metadata": {"k": [f"{BAD}"]}},
    {"role": "user", "content": [{"type": "text", "text": "\udfff"}]},
    {"role": "user", "content": "x", "name": f"n{BAD}"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": f"run{BAD}", "arguments": "{}"}}
        ],
    },
]


@pytest.mark.parametrize("msg", INVALID_MESSAGES)
def test_invalid_text_anywhere_in_a_message_is_refused(mem: Memory, msg: dict[str, Any]) -> None:
    with pytest.raises(InvalidInput, match="not valid Unicode"):
        mem.append_message("s1", msg)
    assert mem.list_sessions() == []


def test_invalid_text_elsewhere_is_refused_before_anything_is_written(mem: Memory) -> None:
    with pytest.raises(InvalidInput):
        mem.create_session("s9", title=f"t{BAD}")
    with pytest.raises(InvalidInput):
        mem.remember(f"I like tea{BAD}")
    _turn(mem, "s1", "I like coffee.")
    memory = mem.remember("I like coffee.")
    with pytest.raises(InvalidInput):
        mem.edit_memory(memory.id, f"I like tea{BAD}")
    with pytest.raises(InvalidInput):
        mem.update_session("s1", title=f"t{BAD}")
    assert [s.session_id for s in mem.list_sessions()] == ["s1"]
    assert mem.get_memory(memory.id).text == "I like coffee."


def test_a_commit_with_invalid_context_commits_nothing(mem: Memory) -> None:
    mem.append_message("s1", {"role": "user", "content": "hello"})
    session_dir = Path(mem.get_session("s1").path)
    for bad in ({"x": BAD}, {BAD: 1}, {"x": {1, 2}}):
        with pytest.raises(InvalidInput):
            mem.commit_turn("s1", context=bad)
        assert git_out(session_dir, "rev-list", "--all") == ""  # no commit landed
    with pytest.raises(InvalidInput):
        mem.commit_turn("s1", f"message {BAD}")
    turn = mem.commit_turn("s1", context={"model": "m"})
    assert turn.turn == 1 and turn.commit
    view = json.loads((session_dir / "context" / "commits" / f"{turn.commit}.json").read_text())
    assert view["context"] == {"model": "m"}
    assert mem.get_session("s1").turns == 1
    fsck(session_dir)


def test_a_commit_that_fails_after_the_branch_moved_is_repaired_on_next_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    real = session_git.atomic_write_json

    def full_disk_for_meta(path: Path, data: Any, *, fsync: bool = False) -> None:
        if path.name == "meta.json" and data.get("last_commit"):
            raise OSError(28, "No space left on device", str(path))
        real(path, data, fsync=fsync)

    with Memory(settings=_settings(home)) as mem:
        mem.append_message("s1", {"role": "user", "content": "Remember the deploy key."})
        mem.append_message("s1", {"role": "assistant", "content": "Noted."})
        monkeypatch.setattr(session_git, "atomic_write_json", full_disk_for_meta)
        with pytest.raises(OSError):
            mem.commit_turn("s1", context={"seen": "everything"})
        monkeypatch.undo()
        session_dir = Path(mem.get_session("s1").path)
        head = git_out(session_dir, "rev-parse", "HEAD")
        # The turn is committed, with its context view; only meta.json missed it.
        view = json.loads((session_dir / "context" / "commits" / f"{head}.json").read_text())
        assert view["context"] == {"seen": "everything"} and len(view["node_ids"]) == 2
        assert json.loads((session_dir / "meta.json").read_text())["turns"] == 0
    with Memory(settings=_settings(home)) as mem:  # the next open repairs meta.json
        assert mem.get_nodes("s1")
        meta = json.loads((session_dir / "meta.json").read_text())
        assert meta["turns"] == 1 and meta["last_commit"] == head
        assert mem.get_session("s1").turns == 1
        again = mem.commit_turn("s1")
        assert again.commit is None and again.turn == 1
        _turn(mem, "s1", "Second turn.")
        assert mem.get_session("s1").turns == 2
    assert git_out(session_dir, "status", "--porcelain") == ""
    fsck(session_dir)


# ====================================================================== 8. env and fsync


def test_what_a_user_writes_is_fsynced_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[str] = []
    real_fsync = os.fsync

    def spy(fd: int) -> None:  # the real fsync, noting which file it made durable
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    monkeypatch.delenv("OGMEM_FSYNC", raising=False)
    with Memory(home=tmp_path / "home") as mem:  # defaults: fsync=False for everything else
        assert mem.settings.fsync is False
        monkeypatch.setattr(os, "fsync", spy)
        memory = mem.remember("I prefer tabs over spaces.")
        added = {Path(p).name for p in synced}
        assert {"memories.jsonl", "evidence.jsonl", "batches.jsonl"} <= added
        for change in (
            lambda: mem.edit_memory(memory.id, "I prefer spaces."),
            lambda: mem.disable_memory(memory.id),
            lambda: mem.enable_memory(memory.id),
            lambda: mem.forget(memory.id),
        ):
            synced.clear()
            change()
            assert {"memories.jsonl", "batches.jsonl"} <= {Path(p).name for p in synced}


def test_only_config_reads_the_environment() -> None:
    """One documented place (Settings.from_env); the facade and every layer take Settings."""
    root = Path(__file__).resolve().parents[1] / "src" / "ogmemory"
    readers = sorted(
        str(p.relative_to(root))
        for p in root.rglob("*.py")
        if "os.environ" in p.read_text() or "getenv" in p.read_text()
    )
    assert [r for r in readers if not r.startswith("interfaces/")] == ["config.py"]


def test_settings_take_a_string_home(tmp_path: Path) -> None:
    assert Settings(home=str(tmp_path)).home == tmp_path  # type: ignore[arg-type]


# ====================================================================== 9. contracts


@pytest.mark.parametrize(
    "scope",
    [
        "project:../x",
        "project:/etc/passwd",
        "project:a\x00b",
        "agent:..",
        "project:",
        "team:x",
        f"project:{BAD}",
    ],
)
def test_unsafe_scope_ids_are_refused(mem: Memory, scope: str) -> None:
    with pytest.raises(InvalidInput):
        mem.remember("I like tea.", scope=scope)
    with pytest.raises(InvalidInput):
        mem.memories(scope=scope)
    with pytest.raises(InvalidInput):
        mem.recall("tea", scope=scope)
    assert mem.memories() == []


def test_cli_scope_with_invalid_utf8_is_a_clear_error(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "OGMEM_EMBEDDER": "none",
        "OGMEM_DISTILL_ON_TURN": "0",
        "OGMEM_INDEX_WORKER": "0",
    }
    home = str(tmp_path / "home")
    for args in (["memories", "add", "I like tea."], ["memories", "list"], ["recall", "tea"]):
        argv = [a.encode() for a in [*CLI, *args, "--home", home, "--scope"]] + [b"project:\xff"]
        res = subprocess.run(argv, capture_output=True, env=env, check=False)
        stderr = res.stderr.decode("utf-8", "replace")
        assert res.returncode == 2, (args, stderr)
        assert "Traceback" not in stderr and "with a safe id" in stderr, stderr
