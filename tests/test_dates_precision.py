"""A resolved time keeps its precision from parsing to display: "4 years ago" is 2019, "about
five years ago" is about 2018, "in June 2023" is June 2023; never a made-up day. Memories say
it in their text, timeline events keep it beside ``event_time`` (old logs without it still
read), and core.md, the timeline, entity views, MCP lines and recall print it; a question about
"2019" still meets a year-precision event.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from ogmemory import Memory, Settings
from ogmemory.distill.dates import find_times
from ogmemory.entity.periods import period_bounds, period_label, time_label
from ogmemory.interfaces.mcp.format import fmt_event
from ogmemory.knowledge.models import TimelineEvent
from ogmemory.knowledge.views import render_core


def ts(day: str) -> float:
    return datetime.fromisoformat(day).replace(tzinfo=UTC).timestamp()


@pytest.mark.parametrize(
    ("text", "label", "precision"),
    [
        ("I started playing guitar about five years ago", "about 2018", "~year"),
        ("I moved here 4 years ago", "2019", "year"),
        ("We met 3 years ago", "2020", "year"),
        ("I got the tattoo a few years ago", "about 2020", "~year"),
        ("We kicked off the project in March 2025", "March 2025", "month"),
        ("I went camping in June", "June 2023", "month"),
        ("It happened two months ago", "April 2023", "month"),
        ("I've been doing ML since 2017", "since 2017", "year"),
        ("I've known them for 4 years", "since 2019", "year"),
        ("I went there yesterday", "2023-06-08", "day"),
        ("I moved here in early 2021", "2021", "year"),
        ("Around 2015 I learned Go", "about 2015", "~year"),
        ("We met in the summer of 2019", "summer 2019", "season"),
        ("Last spring I started running", "spring 2023", "season"),
        ("I quit 2 years back", "2021", "year"),
        ("The report is due by the end of 2024", "2024-12-31", "day"),
        ("三年前我加入了公司", "2020年", "year"),
        ("大约五年前我开始学吉他", "约2018年", "~year"),
        ("两年多前我搬了家", "约2021年", "~year"),
        ("三个月前我换了工作", "2023年3月", "month"),
    ],
)
def test_a_time_phrase_keeps_its_precision(text: str, label: str, precision: str) -> None:
    (t,) = find_times(text, date(2023, 6, 9))
    lang = "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in text) else "en"
    assert (t.label(lang), t.precision) == (label, precision)
    assert "about" not in text or t.text.startswith("about")  # the hedge is part of the phrase


def test_a_bare_number_is_no_year() -> None:
    assert find_times("my 2019 MacBook and PR 2031", date(2023, 6, 9)) == []


def test_labels_and_bounds_at_each_precision() -> None:
    d = date(2019, 6, 9)
    assert [period_label(d, p) for p in ("day", "month", "year", "~year", "~month")] == [
        "2019-06-09",
        "June 2019",
        "2019",
        "about 2019",
        "about June 2019",
    ]
    assert period_label(d, "season") == "summer 2019"
    assert period_label(d, "year", "zh") == "2019年"
    when = ts("2019-06-09T00:00:00")
    assert time_label(when, "year") == "2019" and time_label(when, None) == "2019-06-09"
    assert period_bounds(when, "year") == (ts("2019-01-01T00:00:00"), ts("2020-01-01T00:00:00"))
    assert period_bounds(when, "month") == (ts("2019-06-01T00:00:00"), ts("2019-07-01T00:00:00"))
    assert period_bounds(when, "day") == (when, when + 86400)


def _say(mem: Memory, sid: str, day: str, *texts: str) -> None:
    when = ts(day)
    for i, text in enumerate(texts):
        mem.append_message(
            sid,
            {"role": "user", "name": "Caroline", "content": text, "event_time": when + 60 * i},
        )
        mem.append_message(
            sid,
            {"role": "assistant", "name": "Melanie", "content": "Wow!", "event_time": when + 61},
        )
        mem.commit_turn(sid)


@pytest.fixture
def told(tmp_path: Path) -> Memory:
    mem = Memory(
        settings=Settings(
            home=tmp_path / "home", distill_on_turn=False, embedder=None, index_worker=False
        )
    )
    _say(
        mem,
        "s3",
        "2023-06-09T19:55:00",
        "I started playing acoustic guitar about five years ago.",
        "I've known these friends for 4 years, since I moved from my home country.",
        "I painted that lake sunrise back in 2022.",
    )
    mem.sleep("deep")
    yield mem
    mem.close()


def test_memories_say_the_time_at_its_precision(told: Memory) -> None:
    texts = {m.text for m in told.memories(include_disabled=False)}
    assert "Caroline started playing acoustic guitar (about 2018)." in texts
    assert "Caroline moved from their home country (2019)." in texts  # not the session day
    assert not any("about (" in t or "-01-01" in t for t in texts)


def test_events_keep_their_precision_and_every_view_prints_it(told: Memory) -> None:
    events = {e.summary: e for e in told.timeline()}
    guitar = events["Caroline started playing acoustic guitar (about 2018)."]
    moved = events["Caroline moved from their home country (2019)."]
    lake = next(e for s, e in events.items() if "lake" in s)
    assert (guitar.time_precision, moved.time_precision, lake.time_precision) == (
        "~year",
        "year",
        "year",
    )
    assert time_label(lake.event_time, lake.precision) == "2022"
    core = render_core(told.knowledge.kb, scopes=["global"], now=ts("2023-06-10T00:00:00"))
    recent = [line for line in core.splitlines() if "guitar" in line or "lake" in line]
    assert recent and all("-01-01" not in line and "2018-06" not in line for line in recent)
    assert any(line.startswith("· about 2018 Caroline started playing") for line in recent)
    assert not any("(about 2018)" in line for line in recent)  # the line's date says it once
    assert " · 2022 · event:" in fmt_event(lake)
    view = told.entity_view("Caroline")
    assert "- 2019 Caroline moved from their home country" in view
    assert "2022-01-01" not in view


def test_a_question_about_the_year_meets_a_year_precision_event(told: Memory) -> None:
    result = told.recall("What happened in 2019?")
    assert any("moved from their home country" in item.text for item in result.items)
    assert "[2019] Caroline moved from their home country" in result.as_context()


def test_an_event_without_a_precision_reads_as_a_day() -> None:
    from ogmemory.entity.records import Provenance

    prov = Provenance("default", "s", ("n",), None, 0.0, 0.0)
    ev = TimelineEvent("ev_1", "x", "event", prov, ts("2019-06-09T00:00:00"), 0.0)
    assert ev.precision == "day"
    assert TimelineEvent(
        "ev_2", "x", "event", prov, 0.0, 0.0, time_precision="~year"
    ).precision == ("~year")


def test_an_explicit_chinese_date_wins_over_yesterday_in_the_same_clause(tmp_path: Path) -> None:
    """ "我们昨天 8 月 20 日上线了", said on 08-25: the release is on 08-20, not on the 24th;
    a relative day in another clause, or beside a date that only modifies a noun, stays."""
    with Memory(
        settings=Settings(
            home=tmp_path / "home", distill_on_turn=False, embedder=None, index_worker=False
        )
    ) as mem:
        when = ts("2026-08-25T10:00:00")
        for i, text in enumerate(
            ["我们昨天 8 月 20 日上线了新版本。", "昨天我们讨论了 9 月 1 日的发布。"]
        ):
            mem.append_message("zh", {"role": "user", "content": text, "event_time": when + i})
            mem.append_message(
                "zh", {"role": "assistant", "content": "好的。", "event_time": when + i}
            )
            mem.commit_turn("zh")
        mem.sleep("deep")
        days = {
            e.summary: datetime.fromtimestamp(e.event_time, UTC).date().isoformat()
            for e in mem.timeline()
        }
    assert "2026-08-20" in days.values() and "2026-08-24" not in {
        d for s, d in days.items() if "上线" in s
    }, days
    assert [t.iso for t in find_times("昨天我们讨论了 9 月 1 日的发布", date(2026, 8, 25))] == [
        "2026-08-24",
        "2026-09-01",
    ]
    assert [t.iso for t in find_times("昨天我修了 bug，8 月 20 日上线了", date(2026, 8, 25))] == [
        "2026-08-24",
        "2026-08-20",
    ]
