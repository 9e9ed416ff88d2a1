"""A day said relative to when it was said ("next Tuesday", "下周三", "tomorrow") is followed by
that day in every memory that keeps it, so the memory still says when once it is read later.
End to end through a real tenant (git sessions, SQLite, JSONL knowledge files)."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

from test_distill_causes import _run

from ogmemory.distill.dates import anchor_dates

_SCRIPT = """
name: relative days
sessions:
  - id: d-1
    project: kite
    start: "2027-05-05T09:00:00Z"
    turns:
      - user: >-
          Heads up, I'm running the vendor review next Tuesday with procurement, and the
          quarterly numbers are due May 21.
        assistant: Noted.
      - user: 明天下午跟设计那边过一下首页改版的稿子，下周三再给老板看。
        assistant: 好的。
gold:
  - {id: review, terms: ["next Tuesday (2027-05-11)"]}
  - {id: tomorrow, terms: ["明天（2027-05-06）"]}
  - {id: wednesday, terms: ["下周三（2027-05-12）"]}
"""


def test_relative_days_in_memories_carry_their_date(tmp_path: Path) -> None:
    missed, _, listing = _run(tmp_path, _SCRIPT)
    assert missed == [], listing
    # one date per phrase, never a second copy
    assert not any(re.search(r"\(2027-05-11\).*\(2027-05-11\)", line) for line in listing)


def test_days_already_given_are_left_alone() -> None:
    said = date(2027, 5, 5)
    assert anchor_dates("The launch is on 2027-05-11, next Tuesday.", said) == (
        "The launch is on 2027-05-11, next Tuesday."
    )
    assert anchor_dates("The quarterly numbers are due May 21.", said) == (
        "The quarterly numbers are due May 21."
    )
    assert anchor_dates("I moved here last week.", said) == "I moved here last week."
