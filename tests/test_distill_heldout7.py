"""Readings of the eighth round (issue 14), found on a blind held-out set: a date is placed by
the clause it sits in, a date something is moved to is ahead, decisions said as a swap, a
return or a stay, configuration bumped to a value, deadlines aimed at and slipped, and lines
that read as junk. End to end through a real tenant with ``run_sessions`` where a memory is
what matters, at function level where one reading is.
"""

from __future__ import annotations

from datetime import date

import pytest

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
