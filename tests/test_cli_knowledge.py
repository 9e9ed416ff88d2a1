"""The knowledge commands of ``ogmem``: memories, timeline, graph, core, sleep/distill, the
operation log and rollback, and the daemon, on real files with the default rule extractor."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner, Result

from ogmemory import Memory, Settings
from ogmemory.interfaces.cli import app

runner = CliRunner(env={"COLUMNS": "300"})  # wide tables: one row per line, easy to assert

#: What the sessions say, and on which (UTC) day.
STATEMENTS = [
    ("s1", "I prefer Python over Java.", date(2025, 1, 10)),
    ("s1", "We switched from JavaScript to TypeScript last week.", date(2025, 3, 3)),
    ("s2", "我喜欢喝茶。", date(2025, 5, 20)),
    ("s1", "We switched from TypeScript to Rust.", date(2025, 6, 2)),
    ("s3", "Yesterday I fixed the login bug in the billing service.", date(2025, 6, 3)),
]


pytestmark = pytest.mark.usefixtures("no_ogmem_env")


@pytest.fixture()
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def noon(day: date) -> float:
    return datetime(day.year, day.month, day.day, 12, tzinfo=UTC).timestamp()  # dates are UTC


def record_sessions(home: Path) -> None:
    """The statements as real sessions (one committed turn each), not distilled yet."""
    with Memory(settings=Settings(home=home, distill_on_turn=False)) as mem:
        for sid, text, day in STATEMENTS:
            mem.append_message(sid, {"role": "user", "content": text, "event_time": noon(day)})
            mem.append_message(
                sid, {"role": "assistant", "content": "Noted.", "event_time": noon(day) + 5}
            )
            mem.commit_turn(sid)


@pytest.fixture()
def distilled(home: Path) -> Path:
    record_sessions(home)
    ok("sleep", "deep", "--home", home)
    return home


def ogmem(*args: str | Path, input: str | None = None) -> Result:
    return runner.invoke(app, [str(a) for a in args], input=input)


def ok(*args: str | Path, input: str | None = None) -> Result:
    result = ogmem(*args, input=input)
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result


def ok_json(*args: str | Path) -> Any:
    return json.loads(ok(*args, "--json").stdout)


def user_error(code: int, *args: str | Path, input: str | None = None) -> Result:
    """A command that must fail cleanly: ``code``, one line on stderr, no traceback."""
    result = ogmem(*args, input=input)
    assert result.exit_code == code, (result.stdout, result.stderr, result.exception)
    assert isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    assert result.stderr.startswith("Error: ")
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    return result


def day_before(ts: float) -> str:
    return (datetime.fromtimestamp(ts).date() - timedelta(days=1)).isoformat()


def day_of(ts: float) -> str:
    return datetime.fromtimestamp(ts).date().isoformat()


# ---------------------------------------------------------------------------- sleep / distill


def test_sleep_light_then_deep_json_summary(home: Path) -> None:
    record_sessions(home)
    light = ok_json("sleep", "light", "--home", home)
    assert light["mode"] == "light"
    assert light["nodes"] == 2 * len(STATEMENTS)
    assert light["batches"] and light["candidates"] >= 1
    assert light["stats"]["memories_new"] >= 1
    assert light["pending"] == 0

    deep = ok_json("sleep", "deep", "--home", home)
    assert deep["mode"] == "deep"
    assert deep["batches"] == [] and deep["nodes"] == 0 and deep["pending"] == 0

    text = ok("sleep", "light", "--home", home).stdout
    assert text.startswith("Light sleep: 0 batch(es), 0 node(s)")
    assert "0 node(s) still pending" in text


def test_distill_one_session_then_the_rest(home: Path) -> None:
    record_sessions(home)
    only_s2 = ok_json("distill", "--session", "s2", "--home", home)
    assert only_s2["sessions"] == ["s2"]
    assert only_s2["nodes"] == 2 and len(only_s2["batches"]) == 1
    others = 2 * sum(1 for sid, _, _ in STATEMENTS if sid != "s2")
    assert only_s2["pending"] == others  # the other sessions' turns are still waiting
    rest = ok_json("distill", "--max-batches", "1", "--home", home)
    assert rest["nodes"] == others and rest["pending"] == 0
    assert "Distilled: 0 batch(es)" in ok("distill", "--home", home).stdout
    assert (
        "session not found"
        in user_error(1, "distill", "--session", "nope", "--home", home).stderr.lower()
    )


# ---------------------------------------------------------------------------- memories


def _supported_facts(home: Path, memory_id: str) -> list[dict[str, Any]]:
    return [f for f in ok_json("graph", "facts", "--home", home) if memory_id in f["support"]]


def test_memories_add_list_show_edit_disable_enable_delete(home: Path) -> None:
    ok("sleep", "deep", "--home", home)  # an empty home: core.md exists from now on
    added = ok_json("memories", "add", "I prefer Python over Java.", "--home", home)
    mid = added["id"]
    # no --type: the type distillation gives the statement
    assert added["type"] == "preference" and added["scope"] == "global" and added["enabled"]
    assert added["version"] == 1 and added["source"] == "user"
    listed = ok_json("memories", "list", "--home", home)
    assert [m["id"] for m in listed] == [mid]
    assert mid in ok("memories", "list", "--home", home).stdout

    shown = ok_json("memories", "show", mid, "--home", home)
    assert shown["memory"]["text"] == "I prefer Python over Java."
    [evidence] = shown["evidence"]
    assert evidence["quote"] == "I prefer Python over Java." and evidence["memory_id"] == mid
    text = ok("memories", "show", mid, "--home", home).stdout
    assert "evidence snapshot" in text and "I prefer Python over Java." in text

    # its facts are derived at once, supported by it, and reach core.md
    facts = _supported_facts(home, mid)
    assert facts, ok_json("graph", "facts", "--home", home)
    core = ok("core", "--home", home).stdout
    assert any(f["fact"][:40] in core for f in facts), core

    edited = ok_json(
        "memories", "edit", mid, "I prefer Python over Go.", "--expect-version", "1", "--home", home
    )
    assert edited["version"] == 2 and edited["text"] == "I prefer Python over Go."
    assert (
        "version"
        in user_error(
            1, "memories", "edit", mid, "stale", "--expect-version", "1", "--home", home
        ).stderr
    )

    disabled = ok_json("memories", "disable", mid, "--home", home)
    assert disabled["enabled"] is False
    assert _supported_facts(home, mid) == []
    core = ok("core", "--home", home).stdout
    assert not any(f["fact"][:40] in core for f in facts), core
    assert ok_json("memories", "list", "--enabled-only", "--home", home) == []
    assert "off" in ok("memories", "list", "--home", home).stdout

    assert "Enabled" in ok("memories", "enable", mid, "--home", home).stdout
    assert [f["id"] for f in _supported_facts(home, mid)] == [f["id"] for f in facts]
    core = ok("core", "--home", home).stdout
    assert any(f["fact"][:40] in core for f in facts), core

    # delete asks first; "no" keeps it
    refused = ogmem("memories", "delete", mid, "--home", home, input="n\n")
    assert refused.exit_code == 1 and "Aborted" in refused.output
    assert [m["id"] for m in ok_json("memories", "list", "--home", home)] == [mid]
    assert "Deleted" in ok("memories", "delete", mid, "--yes", "--home", home).stdout
    assert ok_json("memories", "list", "--home", home) == []
    assert _supported_facts(home, mid) == []
    assert "memory not found" in user_error(1, "memories", "show", mid, "--home", home).stderr
    assert (
        "memory not found" in user_error(1, "memories", "delete", mid, "-y", "--home", home).stderr
    )


def test_memories_filters_and_bad_input(home: Path) -> None:
    profile = ok_json("memories", "add", "My name is Ada.", "--home", home)["id"]
    scoped = ok_json(
        "memories", "add", "We deploy with Docker.", "--scope", "project:web", "--home", home
    )["id"]
    assert ok_json("memories", "show", scoped, "--home", home)["memory"]["scope"] == "project:web"
    assert [m["id"] for m in ok_json("memories", "list", "--scope", "global", "--home", home)] == [
        profile
    ]
    assert {
        m["id"] for m in ok_json("memories", "list", "--scope", "project:web", "--home", home)
    } == {profile, scoped}
    assert [m["id"] for m in ok_json("memories", "list", "--type", "profile", "--home", home)] == [
        profile
    ]
    assert ok_json("memories", "list", "--type", "preference", "--home", home) == []

    assert (
        "unknown memory type"
        in user_error(2, "memories", "list", "--type", "nope", "--home", home).stderr
    )
    assert (
        "unknown memory type"
        in user_error(2, "memories", "add", "x", "--type", "nope", "--home", home).stderr
    )
    assert "non-empty" in user_error(2, "memories", "add", "  ", "--home", home).stderr
    assert (
        "scope must be"
        in user_error(2, "memories", "add", "x", "--scope", "team", "--home", home).stderr
    )
    assert (
        "scope must be"
        in user_error(2, "memories", "list", "--scope", "project:", "--home", home).stderr
    )
    assert (
        "memory not found"
        in user_error(1, "memories", "edit", "m_nope", "x", "--home", home).stderr
    )
    assert "memory not found" in user_error(1, "memories", "enable", "../x", "--home", home).stderr
    # another tenant sees nothing of it
    assert ok_json("memories", "list", "--account", "other", "--home", home) == []
    user_error(1, "memories", "show", profile, "--account", "other", "--home", home)


def _at(columns: int, *args: str | Path) -> list[str]:
    result = CliRunner(env={"COLUMNS": str(columns)}).invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return result.stdout.splitlines()


def test_memories_list_reads_at_80_columns_with_date_and_session(distilled: Path) -> None:
    items = ok_json("memories", "list", "--home", distilled)
    assert len(items) >= 3
    said = {m["id"]: ok_json("memories", "show", m["id"], "--home", distilled) for m in items}
    narrow = _at(80, "memories", "list", "--home", distilled)
    assert max(len(line) for line in narrow) <= 80
    assert len(narrow) == 3 + 2 * len(items)  # a title, a legend of two lines, two per memory
    assert narrow[1].split() == ["ID", "Date", "Session", "Type"] and narrow[2].split() == ["Text"]
    pairs = zip(narrow[3::2], narrow[4::2], strict=True)
    for m, (fields, text) in zip(items, pairs, strict=True):
        [evidence] = said[m["id"]]["evidence"]
        prov = evidence["provenance"]
        assert fields.split()[:4] == [
            m["id"],
            day_of(prov["event_time"]),
            prov["session_id"],
            m["type"],
        ]
        assert text.strip().rstrip("…") in m["text"]  # the text, cut to the width at most
    wide = _at(160, "memories", "list", "--home", distilled)
    assert wide[1].split() == ["ID", "Date", "Session", "Type", "Text"]
    assert len(wide) == 2 + len(items)  # a title, the header, one line per memory
    for m, line in zip(items, wide[2:], strict=True):
        assert line.split()[0] == m["id"] and line.rstrip().endswith(m["text"][-20:])


def test_memories_list_by_session_and_by_entity(distilled: Path) -> None:
    everything = ok_json("memories", "list", "--home", distilled)
    by_session: dict[str, set[str]] = {}
    for m in everything:
        for ev in ok_json("memories", "show", m["id"], "--home", distilled)["evidence"]:
            by_session.setdefault(ev["provenance"]["session_id"], set()).add(m["id"])
    for sid, ids in by_session.items():
        listed = ok_json("memories", "list", "--session", sid, "--home", distilled)
        assert {m["id"] for m in listed} == ids, sid
    assert ok_json("memories", "list", "--session", "nope", "--home", distilled) == []
    # an entity: the memories its facts rest on
    facts = ok_json("graph", "facts", "--home", distilled)
    support: dict[str, set[str]] = {}
    for f in facts:
        for end in (f["from"], f["to"]):
            support.setdefault(end, set()).update(f["support"])
    entity = min(support, key=lambda e: len(support[e]))  # not the user, whom all is about
    about = {m["id"] for m in ok_json("memories", "list", "--entity", entity, "--home", distilled)}
    assert support[entity] and support[entity] <= about < {m["id"] for m in everything}
    assert (
        "entity not found"
        in user_error(
            1, "memories", "list", "--entity", "nobody-at-all", "--home", distilled
        ).stderr
    )
    user_error(2, "memories", "list", "--session", "../x", "--home", distilled)


def test_memories_show_gives_the_quote_the_width(home: Path) -> None:
    quote = "I prefer Python over Java because its standard library covers most of what I need."
    mid = ok_json("memories", "add", quote, "--home", home)["id"]
    lines = _at(80, "memories", "show", mid, "--home", home)
    start = next(i for i, line in enumerate(lines) if line.startswith("│ Quote"))
    cells = [line.split("│")[2].strip() for line in lines[start:] if line.startswith("│")]
    assert " ".join(cells) == quote
    assert all(len(c) >= 40 for c in cells[:-1])  # wrapped in a wide cell, not a syllable a line


# ---------------------------------------------------------------------------- timeline


def test_timeline_dates_filters_and_pointers(distilled: Path) -> None:
    home = distilled
    events = ok_json("timeline", "--home", home)
    assert events, "the statements should give at least one timeline event"
    times = [e["event_time"] for e in events]
    assert times == sorted(times)
    for ev in events:
        since = ok_json("timeline", "--since", day_of(ev["event_time"]), "--home", home)
        assert ev["id"] in {e["id"] for e in since}
        assert all(e["event_time"] >= ev["event_time"] - 86400 for e in since)
        until = ok_json("timeline", "--until", day_before(ev["event_time"]), "--home", home)
        assert ev["id"] not in {e["id"] for e in until}
        same_day = ok_json(
            "timeline",
            "--since",
            day_of(ev["event_time"]),
            "--until",
            day_of(ev["event_time"]),
            "--home",
            home,
        )
        assert ev["id"] in {e["id"] for e in same_day}
    assert ok_json("timeline", "--since", "2099-01-01", "--home", home) == []
    assert ok_json("timeline", "--until", "2000-01-01T00:00:00Z", "--home", home) == []

    first = events[0]
    kind_only = ok_json("timeline", "--kind", first["kind"], "--home", home)
    assert first["id"] in {e["id"] for e in kind_only}
    assert all(e["kind"] == first["kind"] for e in kind_only)
    assert ok_json("timeline", "--scope", "global", "--home", home) == events
    assert len(ok_json("timeline", "--all-versions", "--home", home)) >= len(events)

    text = ok("timeline", "--home", home).stdout
    prov = first["provenance"]
    assert f"session:{prov['session_id']}@{prov['commit'][:7]}" in text
    assert day_of(first["event_time"]) in text and first["kind"] in text

    bad = user_error(2, "timeline", "--since", "yesterday", "--home", home)
    assert bad.stderr.strip().startswith("Error: --since: 'yesterday' is not a date")
    assert "--until" in user_error(2, "timeline", "--until", "2025-13-01", "--home", home).stderr
    assert (
        "later than"
        in user_error(
            2, "timeline", "--since", "2025-05-01", "--until", "2025-04-01", "--home", home
        ).stderr
    )
    assert "--kind" in user_error(2, "timeline", "--kind", "party", "--home", home).stderr
    assert (
        "entity not found"
        in user_error(1, "timeline", "--entity", "Nobody Atall", "--home", home).stderr
    )


# ---------------------------------------------------------------------------- graph


def test_graph_entities_show_neighbors_facts(distilled: Path) -> None:
    home = distilled
    entities = ok_json("graph", "entities", "--home", home)
    assert entities
    facts = ok_json("graph", "facts", "--home", home)
    assert facts, "the statements should give at least one relation"
    fact = facts[0]
    src = next(e for e in entities if e["id"] == fact["from"])

    by_type = ok_json("graph", "entities", "--type", src["type"], "--home", home)
    assert src["id"] in {e["id"] for e in by_type} and {e["type"] for e in by_type} == {src["type"]}
    assert ok_json("graph", "entities", "--scope", "global", "--home", home) == entities
    assert src["name"] in ok("graph", "entities", "--home", home).stdout

    shown = ok_json("graph", "show", src["name"], "--home", home)
    assert shown["entity"]["id"] == src["id"]
    assert fact["id"] in {f["id"] for f in shown["facts"]}
    assert all(f["valid_to"] is None for f in shown["facts"])
    by_id = ok_json("graph", "show", src["id"], "--home", home)
    assert by_id["entity"] == shown["entity"]
    text = ok("graph", "show", src["name"], "--home", home).stdout
    assert "Now:" in text and "History:" in text and fact["relation"] in text

    near = ok_json("graph", "neighbors", src["name"], "--home", home)
    assert near["entity"] == src["id"] and near["hops"] == 1
    assert fact["to"] in {e["id"] for e in near["entities"]}
    assert fact["id"] in {f["id"] for f in near["facts"]}
    two = ok_json("graph", "neighbors", src["name"], "--hops", "2", "--home", home)
    assert {e["id"] for e in near["entities"]} <= {e["id"] for e in two["entities"]}
    before = day_before(fact["valid_from"])
    assert ok_json("graph", "neighbors", src["name"], "--at", before, "--home", home)["facts"] == []

    # --at: nothing held before the first statement; the fact holds from its day on
    assert ok_json("graph", "facts", "--at", "2000-01-01", "--home", home) == []
    assert fact["id"] not in {
        f["id"] for f in ok_json("graph", "facts", "--at", before, "--home", home)
    }
    later = datetime.fromtimestamp(fact["valid_from"] + 60).isoformat(timespec="seconds")
    assert fact["id"] in {f["id"] for f in ok_json("graph", "facts", "--at", later, "--home", home)}
    history = ok_json("graph", "facts", "--history", "--home", home)
    assert {f["id"] for f in facts} <= {f["id"] for f in history}
    about = ok_json("graph", "facts", "--entity", src["name"], "--home", home)
    assert fact["id"] in {f["id"] for f in about}
    assert all(src["id"] in (f["from"], f["to"]) for f in about)
    only = ok_json("graph", "facts", "--relation", fact["relation"], "--home", home)
    assert only and {f["relation"] for f in only} == {fact["relation"]}
    assert ok_json("graph", "facts", "--relation", "no_such_relation", "--home", home) == []

    text = ok("graph", "facts", "--home", home).stdout
    prov = fact["provenance"]
    assert f"→ {fact['relation']} →" in text
    assert f"session:{prov['session_id']}@{prov['commit'][:7]}" in text
    assert f"{day_of(fact['valid_from'])} .. now" in text

    assert (
        "entity not found" in user_error(1, "graph", "show", "Nobody Atall", "--home", home).stderr
    )
    assert (
        "hops"
        in user_error(2, "graph", "neighbors", src["name"], "--hops", "9", "--home", home).stderr
    )
    assert "--at" in user_error(2, "graph", "facts", "--at", "soon", "--home", home).stderr


def test_contradiction_ends_a_fact_and_history_keeps_it(distilled: Path) -> None:
    """'switched from TypeScript to Rust' ends the TypeScript relation instead of deleting it."""
    home = distilled
    now = ok_json("graph", "facts", "--home", home)
    history = ok_json("graph", "facts", "--history", "--home", home)
    ended = [f for f in history if f["valid_to"] is not None]
    assert ended, history
    assert {f["id"] for f in now}.isdisjoint({f["id"] for f in ended})
    text = ok("graph", "facts", "--history", "--home", home).stdout
    for old in ended:
        assert f"{day_of(old['valid_from'])} .. {day_of(old['valid_to'])}" in text
        moment = datetime.fromtimestamp(old["valid_from"] + 60).isoformat(timespec="seconds")
        at = ok_json("graph", "facts", "--at", moment, "--home", home)
        assert old["id"] in {f["id"] for f in at}
        shown = ok_json("graph", "show", old["to"], "--home", home)
        assert old["id"] in {f["id"] for f in shown["history"]}
        assert old["id"] not in {f["id"] for f in shown["facts"]}


# ---------------------------------------------------------------------------- core


def test_core_is_small_and_every_bullet_points_back(distilled: Path) -> None:
    home = distilled
    text = ok("core", "--home", home).stdout
    assert len(text.encode()) <= 2048
    bullets = [line for line in text.splitlines() if line.startswith("·")]
    assert bullets
    assert all("↪" in line for line in bullets), bullets
    assert ok_json("core", "--home", home) == {"core": text}
    regenerated = ok_json("core", "--regenerate", "--home", home)["core"]
    assert regenerated.splitlines()[3:] == text.splitlines()[3:]  # line 2 carries today's date
    scoped = ok("core", "--scope", "global", "--home", home).stdout
    assert len(scoped.encode()) <= 2048
    assert "scope must be" in user_error(2, "core", "--scope", "everyone", "--home", home).stderr


# ---------------------------------------------------------------------------- batches, rollback


def test_batches_list_show_and_rollback(home: Path) -> None:
    record_sessions(home)
    report = ok_json("distill", "--home", home)
    [batch_id] = report["batches"]
    made = ok_json("memories", "list", "--home", home)
    assert made

    listed = ok_json("batches", "--home", home)
    assert ok_json("batches", "list", "--home", home) == listed
    [info] = [b for b in listed if b["id"] == batch_id]
    assert info["ops"] > 0 and info["by_kind"]["memory"] == len(made)
    assert info["rolled_back_by"] is None and info["reason"].startswith("distill")
    text = ok("batches", "--home", home).stdout
    assert batch_id in text and "memory" in text

    shown = ok_json("batches", "show", batch_id, "--home", home)
    # options given before the subcommand count too
    assert ok_json("batches", "--home", home, "show", batch_id) == shown
    assert shown["id"] == batch_id and len(shown["operations"]) == info["ops"]
    created = [op for op in shown["operations"] if op["kind"] == "memory"]
    assert {op["id"] for op in created} == {m["id"] for m in made}
    assert all(op["before"] is None and op["after"]["id"] == op["id"] for op in created)
    text = ok("batches", "show", batch_id, "--home", home).stdout
    assert "∅ →" in text and made[0]["id"] in text

    refused = ogmem("rollback", batch_id, "--home", home, input="n\n")
    assert refused.exit_code == 1 and "Aborted" in refused.output
    assert len(ok_json("memories", "list", "--home", home)) == len(made)

    undo = ok_json("rollback", batch_id, "--yes", "--home", home)
    assert undo["rollback_of"] == batch_id
    assert ok_json("memories", "list", "--home", home) == []
    assert ok_json("graph", "facts", "--home", home) == []
    after = {b["id"]: b for b in ok_json("batches", "--home", home)}
    assert after[batch_id]["rolled_back_by"] == undo["id"]
    assert "→ ∅" in ok("batches", "show", undo["id"], "--home", home).stdout

    again = user_error(1, "rollback", batch_id, "--yes", "--home", home)
    assert f"batch {batch_id} was already rolled back by {undo['id']}" in again.stderr
    assert "batch not found" in user_error(1, "rollback", "b_nope", "-y", "--home", home).stderr
    assert "batch not found" in user_error(1, "batches", "show", "b_nope", "--home", home).stderr


def test_rollback_of_a_memory_edit_restores_the_old_text(home: Path) -> None:
    mid = ok_json("memories", "add", "I live in Paris.", "--home", home)["id"]
    ok("memories", "edit", mid, "I live in Berlin.", "--home", home)
    edit = ok_json("batches", "--home", home)[-1]
    assert edit["reason"] == "memory edit"
    ok("rollback", edit["id"], "-y", "--home", home)
    assert ok_json("memories", "show", mid, "--home", home)["memory"]["text"] == "I live in Paris."


# ---------------------------------------------------------------------------- daemon


def test_daemon_distils_an_idle_session_and_stops_on_sigterm(home: Path, tmp_path: Path) -> None:
    record_sessions(home)
    env = {k: v for k, v in os.environ.items() if not k.startswith("OGMEM_")}
    command = [sys.executable, "-m", "ogmemory.interfaces.cli", "daemon", "--interval", "0.2"]
    command += ["--idle-minutes", "0.001", "--home", str(home)]
    # Files, not pipes: a chatty daemon must never block on a full pipe nobody reads yet.
    out_path, err_path = tmp_path / "daemon.out", tmp_path / "daemon.err"
    with open(out_path, "w") as out, open(err_path, "w") as err:
        proc = subprocess.Popen(command, stdout=out, stderr=err, env=env)
    try:
        memories: list[Any] = []
        deadline = time.monotonic() + 60  # a guard against hanging, not a speed assertion
        while not memories and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
            with Memory(home=home) as mem:  # a fresh facade sees what the daemon wrote
                memories = mem.memories()
        assert memories, (proc.poll(), err_path.read_text()[-3000:])
        with Memory(home=home) as mem:
            assert mem.pending_nodes() == 0
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    log = err_path.read_text()
    assert proc.returncode == 0, log
    assert out_path.read_text() == ""
    assert "ogmem daemon: watching" in log
    assert "idle watcher: distilling" in log
    assert "SIGTERM received" in log and log.rstrip().endswith("ogmem daemon: stopped")
    assert "Traceback" not in log and "ERROR" not in log


def test_daemon_bad_input_exits_2(home: Path) -> None:
    assert "HH:MM" in user_error(2, "daemon", "--daily-at", "25:00", "--home", home).stderr
    assert "--interval" in user_error(2, "daemon", "--interval", "0", "--home", home).stderr
    assert (
        "--idle-minutes" in user_error(2, "daemon", "--idle-minutes", "-1", "--home", home).stderr
    )


def test_sleep_bad_mode_exits_2(home: Path) -> None:
    assert "light or deep" in user_error(2, "sleep", "nap", "--home", home).stderr


# ---------------------------------------------------------------------------- help


KNOWLEDGE_COMMANDS = {
    "memories list",
    "memories show",
    "memories add",
    "memories edit",
    "memories enable",
    "memories disable",
    "memories delete",
    "timeline",
    "graph entities",
    "graph show",
    "graph neighbors",
    "graph facts",
    "core",
    "sleep",
    "distill",
    "batches",
    "batches list",
    "batches show",
    "rollback",
    "daemon",
}
READ_COMMANDS = {
    "memories list",
    "memories show",
    "timeline",
    "graph entities",
    "graph show",
    "graph neighbors",
    "graph facts",
    "core",
    "batches",
    "batches list",
    "batches show",
}


def test_every_knowledge_command_has_help_and_the_shared_options() -> None:
    root = typer.main.get_command(app)
    found: dict[str, Any] = {}
    for group_name, group in [("", root), *root.commands.items()]:  # type: ignore[attr-defined]
        found[group_name] = group
        for name, command in getattr(group, "commands", {}).items():
            found[f"{group_name} {name}".strip()] = command
    assert set(found) >= KNOWLEDGE_COMMANDS
    for path in KNOWLEDGE_COMMANDS:
        command = found[path]
        assert (command.help or "").strip(), path
        options = {opt for param in command.params for opt in getattr(param, "opts", [])}
        assert {"--home", "--account", "--space"} <= options, path
        if path in READ_COMMANDS:
            assert "--json" in options, path
        for param in command.params:
            assert (getattr(param, "help", None) or "").strip(), f"{path}: {param.name}"
        result = ok(*path.split(), "--help")
        assert "Usage: ogmem" in result.stdout


def test_a_memory_whose_facts_all_ended_shows_as_outdated(home: Path) -> None:
    """'now listens on 9090' ends the 8080 fact: the 8080 memory is listed and shown as
    outdated, with what superseded it, and the stored record is unchanged; disable the newer
    memory and the old one holds again."""
    with Memory(settings=Settings(home=home, distill_on_turn=False)) as mem:
        for day, text in enumerate(
            ["The API listens on port 8080.", "The API now listens on 9090."]
        ):
            when = noon(date(2026, 2, 10 + day))
            mem.append_message("dev", {"role": "user", "content": text, "event_time": when})
            mem.append_message(
                "dev", {"role": "assistant", "content": "Noted.", "event_time": when}
            )
            mem.commit_turn("dev")
    ok("sleep", "deep", "--home", home)
    before = ok_json("memories", "list", "--home", home)
    old = next(m for m in before if "8080" in m["text"])
    new = next(m for m in before if "9090" in m["text"])

    listed = _at(80, "memories", "list", "--home", home)
    fields = {line.split()[0]: line for line in listed if line.startswith("m_")}
    assert fields[old["id"]].split()[-2:] == [old["type"], "(outdated)"]
    assert "outdated" not in fields[new["id"]]
    shown = _at(80, "memories", "show", old["id"], "--home", home)
    cells = [[c.strip() for c in line.split("│")[1:3]] for line in shown if "│" in line]
    assert ["State", "on, outdated"] in cells
    superseded = next(line for line in shown if "Superseded by" in line)
    assert f"{new['id']}: {new['text']}" in superseded
    assert "outdated" not in " ".join(_at(80, "memories", "show", new["id"], "--home", home))
    assert ok_json("memories", "list", "--home", home) == before  # the records are as they were

    ok("memories", "disable", new["id"], "--home", home)
    again = _at(80, "memories", "list", "--home", home)
    assert "outdated" not in next(line for line in again if line.startswith(old["id"]))


def test_memories_list_by_session_shows_that_session(home: Path) -> None:
    """A statement repeated in a second session is one memory with two evidence snapshots:
    listed with --session s2, its Session column says s2 (and that there is one more), with
    the day it was said there; without a filter, its first session and the same count."""
    with Memory(settings=Settings(home=home, distill_on_turn=False)) as mem:
        for sid, day in (("s1", date(2026, 2, 10)), ("s2", date(2026, 2, 11))):
            mem.append_message(
                sid,
                {"role": "user", "content": "I prefer Python over Java.", "event_time": noon(day)},
            )
            mem.append_message(
                sid, {"role": "assistant", "content": "Noted.", "event_time": noon(day) + 5}
            )
            mem.commit_turn(sid)
    ok("sleep", "deep", "--home", home)
    [item] = ok_json("memories", "list", "--session", "s2", "--home", home)
    assert len(ok_json("memories", "show", item["id"], "--home", home)["evidence"]) == 2
    for columns in (80, 160):
        [line] = [
            x
            for x in _at(columns, "memories", "list", "--session", "s2", "--home", home)
            if x.startswith("m_")
        ]
        assert line.split()[:4] == [item["id"], "2026-02-11", "s2", "(+1)"]
        [line] = [x for x in _at(columns, "memories", "list", "--home", home) if x.startswith("m_")]
        assert line.split()[:4] == [item["id"], "2026-02-10", "s1", "(+1)"]
