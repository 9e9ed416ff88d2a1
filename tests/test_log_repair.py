"""A damaged line in the knowledge logs never loses data silently (issue 10, failure 6): every
line carries a checksum, ``ogmem fsck`` finds the line, ``--repair`` quarantines it and recovers
what it held: user-written batches from their second copy, record versions from their batch's
marker, distilled records by distilling their turns again. Real files, a real CLI."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ogmemory import Memory, Settings
from ogmemory.interfaces.cli import app
from ogmemory.storage.lines import decode_line

ENV = {
    **os.environ,
    "OGMEM_EMBEDDER": "none",
    "OGMEM_DISTILL_ON_TURN": "0",
    "OGMEM_INDEX_WORKER": "0",
}
FIRST = [
    "I moved to Berlin in 2019 and I work at Acme as a backend engineer.",
    "My manager is Alice Chen; she joined last March.",
    "We decided to use PostgreSQL instead of MySQL for billing.",
    "I prefer green tea over coffee in the morning.",
    "My sister Lena lives in Vienna and studies medicine.",
    "We chose Grafana for dashboards after comparing it with Kibana.",
]
LATER = [
    "Next week we start the Kubernetes rollout with Bob.",
    "The deploy runs every Friday at noon from the main branch.",
    "I learned that the cache must be warmed before the load test.",
    "I started running three times a week in May.",
]


def _settings(home: Path) -> Settings:
    return Settings(
        home=home, embedder="none", distill_on_turn=False, index_worker=False, distill_batch_nodes=4
    )


def _turns(mem: Memory, texts: list[str], prefix: str) -> None:
    for i, text in enumerate(texts):
        sid = f"{prefix}{i % 2}"
        mem.append_message(sid, {"role": "user", "content": text})
        mem.append_message(sid, {"role": "assistant", "content": "Noted."})
        mem.commit_turn(sid)


def _home(tmp_path: Path) -> Path:
    """Distilled turns, then what a user did (add, edit, disable, forget), then more turns."""
    home = tmp_path / "home"
    with Memory(settings=_settings(home)) as mem:
        _turns(mem, FIRST, "a")
        mem.sleep("light")
        distilled = sorted(
            (m for m in mem.memories() if m.source == "distilled"), key=lambda m: m.created_at
        )
        assert len(distilled) >= 4
        mem.edit_memory(distilled[0].id, "I moved to Berlin in 2019 (from Hamburg).")
        mem.disable_memory(distilled[1].id)
        kept = mem.remember("My favourite editor is Helix.")
        mem.edit_memory(kept.id, "My favourite editor is Helix, with its default keymap.")
        gone = mem.remember("I am allergic to peanuts.")
        mem.forget(gone.id)
        mem.remember("I speak German and Portuguese.")
        _turns(mem, LATER, "b")
        mem.sleep("light")
    return home


def _memory_dir(home: Path) -> Path:
    return home / "tenants" / "local" / "default" / "memory"


def _state(home: Path) -> dict[str, Any]:
    with Memory(settings=_settings(home)) as mem:
        memories = mem.memories(include_disabled=True)
        return {
            "user": {
                m.id: (m.text, m.enabled, m.deleted, m.version)
                for m in memories
                if m.source == "user"
            },
            "distilled": sorted(
                (m.text, m.enabled, m.deleted, m.version) for m in memories if m.source != "user"
            ),
            "events": len(mem.timeline(include_superseded=True)),
            "facts": sorted((f.src, f.relation, f.dst) for f in mem.facts(include_history=True)),
            "entities": sorted(e.id for e in mem.entities()),
        }


def _fsck(home: Path, *args: str) -> tuple[int, dict[str, Any]]:
    res = CliRunner().invoke(app, ["fsck", "--home", str(home), "--json", *args], env=ENV)
    return res.exit_code, json.loads(res.stdout)


def _marker_lines(home: Path) -> list[dict[str, Any]]:
    raw = (_memory_dir(home) / "oplog" / "batches.jsonl").read_bytes().splitlines()
    return [decode_line(line) or {} for line in raw]


def _damage_line(path: Path, number: int, how: str) -> bytes:
    """Damage line ``number`` (1-based) of ``path``; returns the line as it was."""
    lines = path.read_bytes().split(b"\n")
    old = lines[number - 1]
    if how == "garbage":
        lines[number - 1] = old[:25] + b"\xff\x00#garbage#" + old[40:]
    else:  # one flipped byte that leaves valid JSON: a letter of the text
        at = old.index(b'"text":"') + 9
        lines[number - 1] = old[:at] + bytes([old[at] ^ 0x01]) + old[at + 1 :]
        assert json.loads(lines[number - 1])  # still parses: only the checksum can tell
    path.write_bytes(b"\n".join(lines))
    return old


def _repair_and_compare(
    home: Path, before: dict[str, Any], where: str, keys: tuple[str, ...] = ()
) -> dict[str, Any]:
    code, report = _fsck(home)
    assert code == 4, report
    assert [f["where"].endswith(where) for f in report["findings"]] == [True], report
    assert "corrupt line" in report["findings"][0]["problem"]
    code, report = _fsck(home, "--repair")
    assert code == 1 and all(f["repaired"] for f in report["findings"]), report
    assert _fsck(home)[0] == 0
    after = _state(home)
    assert {k: after[k] for k in keys or after} == {k: before[k] for k in keys or before}
    return report


def _creator(markers: list[dict[str, Any]], text: str) -> int:
    """The line of the distillation batch that created the memory the user edited to ``text``."""
    edit = next(
        m
        for m in markers
        if m["reason"] == "memory edit"
        and any((op["after"] or {}).get("text") == text for op in m["ops"])
    )
    mid = next(op["id"] for op in edit["ops"] if (op["after"] or {}).get("text") == text)
    return 1 + next(
        i
        for i, m in enumerate(markers)
        if "cursor" in m["meta"]
        and any(op["id"] == mid and op["before"] is None for op in m["ops"])
    )


@pytest.mark.parametrize("which", ["line 3", "a user's batch", "the edited memory's batch"])
def test_a_damaged_marker_is_recovered(tmp_path: Path, which: str) -> None:
    home = _home(tmp_path)
    before = _state(home)
    markers = _marker_lines(home)
    if which == "line 3":
        number = 3
        assert "cursor" in markers[2]["meta"]  # a distillation batch: no second copy
    elif which == "a user's batch":
        number = 1 + next(i for i, m in enumerate(markers) if m["reason"] == "memory edit")
    else:  # distilling its turn again must not undo the user's words
        number = _creator(markers, "I moved to Berlin in 2019 (from Hamburg).")
    log = _memory_dir(home) / "oplog" / "batches.jsonl"
    old = _damage_line(log, number, "garbage")
    damaged = _state(home)  # what the damage hides (a reader warns about the line)
    if which == "line 3":
        assert len(damaged["distilled"]) < len(before["distilled"])
    elif which == "a user's batch":
        assert damaged["distilled"] != before["distilled"]
    with Memory(settings=_settings(home)) as running:  # a process open across the repair
        assert (
            len(running.memories()) < len(before["user"]) + len(before["distilled"])
            or which != "line 3"
        )
        # Known limit: when the lost batch made a memory the user later edited, the facts and
        # events distilled again may differ in support (the memory list does not).
        keys = ("user", "distilled") if which == "the edited memory's batch" else ()
        report = _repair_and_compare(home, before, "oplog/batches.jsonl", keys)
        assert sorted(m.text for m in running.memories()) == sorted(
            [u[0] for u in before["user"].values()] + [d[0] for d in before["distilled"]]
        )
    action = report["findings"][0]["action"]
    if which != "a user's batch":
        assert "1 distillation batch(es) distilled again" in action
        texts = {d[0]: d[1] for d in before["distilled"]}  # the user's edit and disable held
        assert texts["I moved to Berlin in 2019 (from Hamburg)."] is True
        assert list(texts.values()).count(False) == 1
    else:
        assert "1 batch(es) restored from oplog/user-batches.jsonl" in action
        assert old in log.read_bytes().split(b"\n")  # the same bytes, back in place
    quarantined = (log.parent / "batches.jsonl.quarantine").read_text().splitlines()
    entry = json.loads(quarantined[0])
    assert len(quarantined) == 1 and entry["line"] == number
    assert (
        entry["offset"] == sum(len(x) + 1 for x in log.read_bytes().split(b"\n")[: number - 1])
        or which == "line 3"
    )
    assert b"#garbage#" in base64.b64decode(entry["bytes"])


def test_a_flipped_byte_in_the_memory_list_is_detected_and_recovered(tmp_path: Path) -> None:
    home = _home(tmp_path)
    before = _state(home)
    log = _memory_dir(home) / "memories" / "memories.jsonl"
    lines = log.read_bytes().split(b"\n")
    user_edit = 1 + next(
        i for i, line in enumerate(lines) if b"Helix, with its default keymap" in line
    )
    _damage_line(log, user_edit, "flip")
    with Memory(settings=_settings(home)) as mem:  # read without the damaged version
        assert "My favourite editor is Helix, with its default keymap." not in [
            m.text for m in mem.memories()
        ]
    report = _repair_and_compare(home, before, "memories/memories.jsonl")
    assert "restored from their batch markers" in report["findings"][0]["action"]
    assert log.read_bytes().split(b"\n") == lines  # byte for byte what was written


def test_old_lines_without_checksums_still_read(tmp_path: Path) -> None:
    home = _home(tmp_path)
    before = _state(home)
    for path in _memory_dir(home).rglob("*.jsonl"):
        old = [decode_line(line) for line in path.read_bytes().splitlines()]
        path.write_bytes(b"".join(json.dumps(o, ensure_ascii=False).encode() + b"\n" for o in old))
    assert _state(home) == before
    assert _fsck(home)[0] == 0
