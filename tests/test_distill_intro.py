"""Who the user is, said as "<name> here, <role> at <org>" after a greeting or a long label
("Morning! quick intro since this is a fresh setup: ..."). Real tenant: git session, JSONL files."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from ogmemory import Memory, Settings


def _read(home: Path, text: str) -> tuple[set[tuple[str, str]], list[str]]:
    mem = Memory(
        settings=Settings(home=home, distill_on_turn=False, embedder=None, index_worker=False)
    )
    t = datetime(2027, 3, 1, tzinfo=UTC).timestamp()
    mem.append_message("s", {"role": "user", "content": text, "event_time": t})
    mem.append_message("s", {"role": "assistant", "content": "Hi!", "event_time": t + 1})
    mem.commit_turn("s")
    mem.sleep("light")
    facts = {(e.relation, mem.entity(e.dst).name) for e in mem.facts()}
    return facts, [m.text for m in mem.memories() if m.type == "profile"]


@pytest.mark.parametrize(
    ("text", "name", "role", "org"),
    [
        (
            "Hi, Dana Whitfield here, backend dev at Corvex in Austin.",
            "Dana Whitfield",
            "backend dev",
            "Corvex",
        ),
        (
            "Morning! quick intro since this is a fresh setup: Keiko Arai here, firmware "
            "engineer at Lumen Drives in Osaka.",
            "Keiko Arai",
            "firmware engineer",
            "Lumen Drives",
        ),
        (
            "quick intro so you have context: Kai Brandt, I'm the firmware lead at Norvik.",
            "Kai Brandt",
            "firmware lead",
            "Norvik",
        ),
    ],
)
def test_name_here_after_a_greeting_or_a_long_label(
    tmp_path: Path, text: str, name: str, role: str, org: str
) -> None:
    facts, profile = _read(tmp_path / "home", text)
    assert ("has_role", role) in facts and ("works_at", org) in facts, facts
    assert f"The user's name is {name}." in profile, profile


def test_a_status_line_with_here_names_no_one(tmp_path: Path) -> None:
    facts, _ = _read(tmp_path / "home", "Quick update: Marcus here, the build is green.")
    assert not any(r in ("has_role", "works_at") for r, _ in facts), facts
