"""Recall read as a reader reads it: gaps between cited turns shown, periods honoured, answers
sized to the question, stated facts found by the words a question uses (issue 15)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

from ogmemory import Memory, Settings
from ogmemory.interfaces.mcp.format import fmt_recall


def ts(day: str) -> float:
    return datetime.fromisoformat(day).replace(tzinfo=UTC).timestamp()


def make(home: Path, **kw: object) -> Memory:
    opts: dict[str, object] = {"distill_on_turn": False, "embedder": "none", "index_worker": False}
    opts.update(kw)
    return Memory(settings=Settings(home=home, **opts))  # type: ignore[arg-type]


def say(mem: Memory, sid: str, user: str, reply: str, day: str) -> None:
    mem.append_message(sid, {"role": "user", "content": user, "event_time": ts(day), "name": "Ana"})
    mem.append_message(sid, {"role": "assistant", "content": reply, "event_time": ts(day) + 1})
    mem.commit_turn(sid)


_SKIP = re.compile(r"^… \((\d+) turns? skipped\)$")


def test_non_adjacent_turns_of_an_item_show_how_many_were_skipped(tmp_path: Path) -> None:
    mem = make(tmp_path / "home")
    lines = [
        ("I adopted a cat named Miso.", "Noted, a cat."),
        ("The weather is cold today.", "Noted, the cold."),
        ("I need to buy new shoes.", "Noted, the shoes."),
        ("My train was late again.", "Noted, the train."),
        ("Miso the cat sleeps all day.", "Noted, the sleep."),
    ]
    order: list[str] = []  # the session's turns in order, as the index renders them
    for user, reply in lines:
        say(mem, "s1", user, reply, "2026-01-10")
        order += [f"Ana: {user}", f"assistant: {reply}"]
    mem.sleep("deep")
    result = mem.recall("Miso cat")
    markers = 0
    for item in result.items:
        shown = [re.sub(r"^\[[\d-]+\] ", "", x) for x in item.text.splitlines()]
        shown = [x for x in shown if not x.startswith("  (")]  # notes on the turns
        prev: int | None = None
        pending: int | None = None
        for line in shown:
            if m := _SKIP.match(line):
                pending = int(m.group(1))
                markers += 1
                continue
            at = order.index(line)
            if prev is not None:
                gap = at - prev - 1
                # a marker exactly where turns were skipped, and it counts them
                assert pending == (gap or None), (item.text, line)
            prev, pending = at, None
    assert markers, result.as_context()
    # the model gets the same text, and the budget counts it
    assert "skipped)" in fmt_recall(result)
    assert sum(i.tokens for i in result.items) == result.tokens <= result.budget
