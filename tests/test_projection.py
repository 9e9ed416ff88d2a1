"""Facts are projected from enabled evidence: disabling, deleting or enabling the memory that
superseded a fact, editing a memory, rolling back a distillation batch. Real sessions in git,
the JSONL knowledge files, the CLI for the rollback message."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ogmemory import Memory, Settings
from ogmemory.interfaces.cli import app

pytestmark = pytest.mark.usefixtures("no_ogmem_env")


def ts(day: str) -> float:
    return datetime.fromisoformat(day).replace(tzinfo=UTC).timestamp()


def make(home: Path) -> Memory:
    return Memory(
        settings=Settings(home=home, distill_on_turn=False, embedder=None, index_worker=False)
    )


def say(mem: Memory, sid: str, day: str, text: str) -> None:
    mem.append_message(sid, {"role": "user", "content": text, "event_time": ts(day)})
    mem.append_message(sid, {"role": "assistant", "content": "ok", "event_time": ts(day) + 1})
    mem.commit_turn(sid)


def database(mem: Memory) -> list[str]:
    return sorted(mem.entity(e.dst).name for e in mem.facts() if e.slot == "database")


def memory_saying(mem: Memory, words: str) -> str:
    (found,) = [m.id for m in mem.memories() if words in m.text]
    return found


def test_disabling_the_superseding_memory_makes_the_older_fact_current_again(
    tmp_path: Path,
) -> None:
    mem = make(tmp_path / "home")
    say(mem, "s1", "2026-03-02", "Let's use MySQL for the database.")
    say(mem, "s1", "2026-03-05", "Actually, let's switch from MySQL to PostgreSQL.")
    mem.sleep("deep")
    assert database(mem) == ["PostgreSQL"]
    switch = memory_saying(mem, "PostgreSQL")
    mem.disable_memory(switch)
    assert database(mem) == ["MySQL"]
    core = mem.core(regenerate=True)
    assert "MySQL for the database" in core and "PostgreSQL" not in core
    mysql = next(e for e in mem.facts() if e.slot == "database")
    assert mysql.valid_to is None and mysql.superseded_by is None
    assert [e.summary for e in mem.timeline(kind="decision")] == [
        "The team decided to use MySQL for the database."
    ]
    mem.enable_memory(switch)
    assert database(mem) == ["PostgreSQL"]
    assert database(mem) == database(make(tmp_path / "home"))  # a fresh reader agrees
    mem.forget(switch)
    assert database(mem) == ["MySQL"]
    # the files still hold everything that was written: the projection is read-time only
    assert len(mem.knowledge.kb.edges(include_history=True, include_hidden=True)) == 2


def test_a_hidden_link_in_a_chain_is_skipped(tmp_path: Path) -> None:
    mem = make(tmp_path / "home")
    say(mem, "s1", "2026-03-02", "Let's use MySQL for the database.")
    say(mem, "s1", "2026-03-05", "Actually, let's switch from MySQL to PostgreSQL.")
    say(mem, "s1", "2026-03-09", "Let's switch from PostgreSQL to SQLite.")
    mem.sleep("light")
    mem.disable_memory(memory_saying(mem, "from MySQL to PostgreSQL"))
    assert database(mem) == ["SQLite"]
    mysql = next(e for e in mem.facts(include_history=True) if mem.entity(e.dst).name == "MySQL")
    sqlite = next(e for e in mem.facts() if e.slot == "database")
    assert mysql.valid_to == sqlite.valid_from and mysql.superseded_by == sqlite.id
    assert [
        mem.entity(e.dst).name for e in mem.facts(at=ts("2026-03-07")) if e.slot == "database"
    ] == ["MySQL"]


def test_editing_a_distilled_memory_rederives_its_fact_in_one_batch(tmp_path: Path) -> None:
    mem = make(tmp_path / "home")
    say(mem, "s1", "2026-03-02", "I prefer pnpm over npm.")
    mem.sleep("light")
    pref = memory_saying(mem, "pnpm")
    assert [mem.entity(e.dst).name for e in mem.facts(relation="prefers")] == ["pnpm"]
    edited = mem.edit_memory(pref, "The user prefers yarn over npm.")
    assert edited.version == 2 and edited.attrs.get("edited")
    assert [mem.entity(e.dst).name for e in mem.facts(relation="prefers")] == ["Yarn"]
    assert "yarn" in mem.core(regenerate=True) and "pnpm" not in mem.core()
    last = mem.batches()[-1]
    assert last.reason == "memory edit" and {op.kind for op in last.ops} >= {"memory", "edge"}
    mem.rollback(last.id)
    assert [mem.entity(e.dst).name for e in mem.facts(relation="prefers")] == ["pnpm"]
    assert mem.get_memory(pref).text == "The user prefers pnpm over npm."


def test_an_edit_that_changes_a_slot_value_wins(tmp_path: Path) -> None:
    mem = make(tmp_path / "home")
    m = mem.remember("We use MySQL for the database.", type="decision")
    assert database(mem) == ["MySQL"]
    mem.edit_memory(m.id, "We use PostgreSQL for the database.")
    assert database(mem) == ["PostgreSQL"]
    mem.edit_memory(m.id, "我住在杭州。")
    assert database(mem) == []  # nothing rests on MySQL or PostgreSQL any more
    assert [mem.entity(e.dst).name for e in mem.facts(relation="lives_in")] == ["杭州"]


def test_a_rolled_back_batch_returns_its_turns_to_the_pending_set(tmp_path: Path) -> None:
    home = tmp_path / "home"
    mem = make(home)
    say(mem, "s1", "2026-03-02", "Let's use MySQL for the database.")
    say(mem, "s1", "2026-03-03", "I prefer dark themes in every editor.")
    mem.sleep("light")
    before = sorted(m.text for m in mem.memories())
    assert mem.pending_nodes() == 0
    (distilled,) = [b for b in mem.batches() if b.reason.startswith("distill")]
    runner = CliRunner()
    result = runner.invoke(app, ["rollback", distilled.id, "-y", "--home", str(home)])
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    assert "4 node(s) of 1 session(s) are pending again" in result.stdout
    assert "ogmem distill" in result.stdout
    mem.knowledge.kb.refresh()
    assert mem.memories() == [] and mem.facts() == []
    assert mem.pending_nodes() == 4
    report = mem.distill()
    assert report.nodes == 4
    assert sorted(m.text for m in mem.memories()) == before
    assert database(mem) == ["MySQL"]
    # a memory edit is no distillation: rolling it back returns nothing to the pending set
    mem.edit_memory(memory_saying(mem, "dark themes"), "I prefer light themes.")
    undo = mem.rollback(mem.batches()[-1].id)
    assert "returned" not in undo.meta and mem.pending_nodes() == 0
