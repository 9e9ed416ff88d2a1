"""Readings of the eighth round (issue 14), found on a blind held-out set: a date is placed by
the clause it sits in, a date something is moved to is ahead, decisions said as a swap, a
return or a stay, configuration bumped to a value, deadlines aimed at and slipped, and lines
that read as junk. End to end through a real tenant with ``run_sessions`` where a memory is
what matters, at function level where one reading is.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from test_distill_causes import _run

from ogmemory.distill.dates import find_times

_REF = date(2027, 2, 10)


@pytest.mark.parametrize(
    ("said", "iso"),
    [
        # a plan joined by a comma to a past reason keeps its future month
        ("I'm moving up to Edinburgh in April, my partner got a job there", "2027-04"),
        # a date something slipped or was set to is ahead, whatever the tense
        ("1.0 slipped again, the new target is March 12th", "2027-03-12"),
        ("The release got pushed back to March 3rd", "2027-03-03"),
        ("交付时间推到 6 月 11 日了", "2027-06-11"),
        # "要 … 了": about to happen, though the clause ends in 了
        ("五月底我要调到上海去了", "2027-05"),
        # and a plain past stays past
        ("We shipped it on January 20th", "2027-01-20"),
    ],
)
def test_a_date_is_placed_by_its_own_clause(said: str, iso: str) -> None:
    (t,) = find_times(said, _REF)
    assert t.iso.startswith(iso)


def test_a_month_with_a_part_is_one_expression() -> None:
    (t,) = find_times("五月底我要调到上海去了", _REF)
    assert t.text == "五月底"


# ----------------------------------------------------------------------------- deadlines

_DEADLINE_SCRIPT = """
name: deadlines aimed at and slipped
sessions:
  - id: d-1
    project: quarry
    start: "2027-02-01T09:00:00Z"
    turns:
      - user: "We're aiming to cut 1.0 on February 26th."
        assistant: Noted.
      - user: 场景库 v2 要在 5 月 31 日交付给主机厂。
        assistant: 好的。
      - user: 新版推流 SDK 定在 4 月 23 日发版。
        assistant: 好的。
  - id: d-2
    project: quarry
    start: "2027-02-12T09:00:00Z"
    turns:
      - user: >-
          1.0 is slipping. Amara wants a fuzzing pass on the sniffer first, so the new target
          is March 12th.
        assistant: OK.
      - user: 台架还没准备好，场景库 v2 的交付时间推到 6 月 11 日了。
        assistant: 好的。
      - user: 工作量多了不少，推流 SDK 的发版时间推到 5 月 7 日。
        assistant: 好的。
gold:
  - {id: release, terms: ["2027-03-12"], facts: true}
  - {id: 交付, terms: ["2027-06-11"], facts: true}
  - {id: 发版, terms: ["2027-05-07"], facts: true}
stale:
  - {id: old release, object: "2027-02-26"}
  - {id: 旧交付, object: "2027-05-31"}
  - {id: 旧发版, object: "2027-04-23"}
"""


def test_deadlines_aimed_at_set_on_a_day_and_slipped(tmp_path: Path) -> None:
    missed, stale, _ = _run(tmp_path, _DEADLINE_SCRIPT)
    assert (missed, stale) == ([], [])
