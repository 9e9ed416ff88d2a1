"""The rule extractor: every family, English and Chinese, on NodeRecords built in memory.

Event times are fixed: 2023-05-08 13:56 UTC (a Monday), the first LoCoMo session's date.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ogmemory.distill.dates import find_times
from ogmemory.distill.extractors._catalog import lookup, slot_of
from ogmemory.distill.extractors.rules import RuleExtractor
from ogmemory.distill.types import Candidate
from ogmemory.entity.records import Node, NodeRecord

MONDAY = datetime(2023, 5, 8, 13, 56, tzinfo=UTC).timestamp()
MEMORY_TYPES = {
    "preference",
    "decision",
    "tool",
    "constraint",
    "entity",
    "event",
    "case",
    "pattern",
}


def day(iso: str) -> float:
    """Midnight UTC of an ISO day, as the extractor writes resolved dates."""
    return datetime.fromisoformat(iso).replace(tzinfo=UTC).timestamp()


def iso(epoch: float | None) -> str:
    assert epoch is not None
    return datetime.fromtimestamp(epoch, UTC).date().isoformat()


class Batch:
    """Builds a batch of NodeRecords of one session, nodes numbered n1, n2, ..."""

    def __init__(self, at: float = MONDAY) -> None:
        self.at = at
        self.records: list[NodeRecord] = []

    def add(
        self,
        role: str,
        content: Any = None,
        *,
        name: str | None = None,
        turn: int = 1,
        tool_calls: list[dict[str, Any]] | None = None,
        tool_call_id: str | None = None,
        called_by: str | None = None,
        **meta: Any,
    ) -> str:
        i = len(self.records) + 1
        node = Node(
            id=f"n{i}",
            seq=i,
            role=role,
            content=content,  # type: ignore[arg-type]
            parent_id=f"n{i - 1}" if i > 1 else None,
            event_time=self.at + i,
            ingestion_time=self.at + i,
            name=name,
            tool_calls=tool_calls,
            tool_call_id=tool_call_id,
            called_by=called_by,
            metadata=meta,
        )
        self.records.append(NodeRecord("sess-1", "default", None, node, "c0ffee", turn))
        return node.id

    def extract(self, **kw: Any) -> list[Candidate]:
        return RuleExtractor(**kw).extract(self.records).candidates


def say(
    text: str, *, name: str | None = None, role: str = "user", at: float = MONDAY
) -> list[Candidate]:
    batch = Batch(at - 1)
    batch.add(role, text, name=name)
    return batch.extract()


def only(cands: list[Candidate], **match: Any) -> Candidate:
    """The single candidate whose fields equal ``match``."""
    found = [c for c in cands if all(getattr(c, k) == v for k, v in match.items())]
    assert len(found) == 1, f"expected one {match} in {[c.text for c in cands]}"
    return found[0]


def call(cid: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": cid,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args)},
    }


# ----------------------------------------------------------------------------- dates


@pytest.mark.parametrize(
    ("phrase", "expected", "granularity"),
    [
        ("I went there yesterday", "2023-05-07", "day"),
        ("the day before yesterday", "2023-05-06", "day"),
        ("tomorrow", "2023-05-09", "day"),
        ("today", "2023-05-08", "day"),
        ("last week", "2023-05-01", "week"),
        ("this week", "2023-05-08", "week"),
        ("next week", "2023-05-15", "week"),
        ("last weekend", "2023-05-06", "weekend"),
        ("last month", "2023-04-01", "month"),
        ("next month", "2023-06-01", "month"),
        ("last year", "2022-01-01", "year"),
        ("3 days ago", "2023-05-05", "day"),
        ("two weeks ago", "2023-04-24", "week"),
        ("a few months ago", "2023-02-08", "month"),
        ("in 2 days", "2023-05-10", "day"),
        ("last Friday", "2023-05-05", "day"),
        ("next Fri", "2023-05-12", "day"),
        ("I painted it on Saturday", "2023-05-06", "day"),
        ("May 7, 2023", "2023-05-07", "day"),
        ("7 May 2023", "2023-05-07", "day"),
        ("the 7th of May", "2023-05-07", "day"),
        ("2023-05-07", "2023-05-07", "day"),
        ("May 2022", "2022-05-01", "month"),
        ("back in 2019", "2019-01-01", "year"),
        ("last summer", "2022-06-01", "season"),
    ],
)
def test_english_time_expressions(phrase: str, expected: str, granularity: str) -> None:
    found = find_times(phrase, date(2023, 5, 8))
    assert [(t.iso, t.granularity) for t in found] == [(expected, granularity)]


@pytest.mark.parametrize(
    ("phrase", "expected", "granularity"),
    [
        ("昨天", "2023-05-07", "day"),
        ("前天", "2023-05-06", "day"),
        ("明天", "2023-05-09", "day"),
        ("上周", "2023-05-01", "week"),
        ("本周", "2023-05-08", "week"),
        ("下周", "2023-05-15", "week"),
        ("上周五", "2023-05-05", "day"),
        ("下周五之前", "2023-05-19", "day"),
        ("上个月", "2023-04-01", "month"),
        ("下个月", "2023-06-01", "month"),
        ("去年", "2022-01-01", "year"),
        ("今年", "2023-01-01", "year"),
        ("明年", "2024-01-01", "year"),
        ("三天前", "2023-05-05", "day"),
        ("5月7日", "2023-05-07", "day"),
        ("2023年5月", "2023-05-01", "month"),
        ("2022年12月3号", "2022-12-03", "day"),
    ],
)
def test_chinese_time_expressions(phrase: str, expected: str, granularity: str) -> None:
    found = find_times(phrase, date(2023, 5, 8))
    assert [(t.iso, t.granularity) for t in found] == [(expected, granularity)]


def test_words_that_look_like_dates_are_not_dates() -> None:
    assert find_times("I march on, may I help?", date(2023, 5, 8)) == []
    assert find_times("We are a team of 3.", date(2023, 5, 8)) == []


# ----------------------------------------------------------------------------- preferences


def test_english_preference_names_the_speaker_and_the_tool() -> None:
    c = only(say("I prefer TypeScript over JavaScript."), type="preference")
    assert (c.relation, c.object.name, c.object.type) == ("prefers", "TypeScript", "tool")
    assert c.subject is not None and (c.subject.name, c.subject.type) == ("user", "person")
    assert c.attrs["over"] == "JavaScript"
    assert c.language == "en" and c.scope is None and c.node_ids == ("n1",)
    assert c.text == "The user prefers TypeScript over JavaScript."


@pytest.mark.parametrize(
    "note",
    [
        "[shares a photo: a red bike that I prefer]",
        "[attached: prefer.txt I prefer Emacs]",
        "[Image: I prefer tea]",
    ],
)
def test_a_note_of_something_attached_is_not_said(note: str) -> None:
    # Only the LoCoMo importer's '[shares a photo: ...]' was skipped; any attachment note is.
    found = say(f"I prefer TypeScript over JavaScript. {note}")
    assert [c.text for c in found if c.type == "preference"] == [
        "The user prefers TypeScript over JavaScript."
    ]


def test_english_dislikes() -> None:
    c = only(say("I can't stand meetings before 10am."), type="preference")
    assert (c.relation, c.object.name, c.object.type) == (
        "dislikes",
        "meetings before 10am",
        "preference",
    )
    assert only(say("I really don't like cilantro."), type="preference").relation == "dislikes"
    assert only(say("I hate Java."), type="preference").object.type == "tool"


def test_favorite_thing() -> None:
    c = only(say("My favorite food is sushi.", name="Melanie"), type="preference")
    assert (c.relation, c.object.name, c.attrs["category"]) == ("prefers", "sushi", "food")
    assert c.text == "Melanie's favorite food is sushi."
    cands = say("I love all dances, but contemporary is my top pick.", name="Jon")
    assert {(c.relation, c.object.name) for c in cands} == {
        ("prefers", "all dances"),
        ("prefers", "contemporary"),
    }
    assert all(c.subject is not None and c.subject.name == "Jon" for c in cands)


@pytest.mark.parametrize(
    "text",
    [
        "Do you like jazz?",
        "do you like jazz",
        "What kind of music do you love?",
        "你喜欢爵士乐吗？",
        "你喜欢爵士乐吗",
    ],
)
def test_a_question_is_not_a_preference(text: str) -> None:
    assert say(text) == []


def test_hypothetical_and_relative_clauses_are_skipped() -> None:
    assert say("If I had a dog I would love it.") == []
    assert say("如果我有钱，我喜欢去旅游。") == []
    assert [c for c in say("Everyone we love was there.") if c.type == "preference"] == []


def test_chinese_preference_is_written_in_chinese() -> None:
    c = only(say("我喜欢 TypeScript。"), type="preference")
    assert (c.relation, c.object.name, c.language) == ("prefers", "TypeScript", "zh")
    assert c.text == "用户喜欢 TypeScript。"
    assert c.subject is not None and c.subject.name == "user" and "用户" in c.subject.aliases
    d = only(say("我不喜欢开会。", name="张三"), type="preference")
    assert (d.relation, d.object.name, d.text) == ("dislikes", "开会", "张三不喜欢开会。")
    f = only(say("我最喜欢的编辑器是 Vim。"), type="preference")
    assert (f.object.name, f.attrs["category"]) == ("Vim", "编辑器")


def test_concepts_code_blocks_and_long_messages() -> None:
    assert only(say("I prefer simplicity."), type="preference").object.type == "concept"
    assert say("Here is a fix:\n```python\n# I love this hack, we use Redis\n```") == []
    batch = Batch()
    batch.add("user", "Filler text. " * 2_500 + "I love hiking.")
    assert batch.extract(max_chars=20_000) == []
    assert only(batch.extract(max_chars=40_000), type="preference").object.name == "hiking"


def test_an_unnamed_assistant_has_no_personal_facts() -> None:
    assert say("I love that idea!", role="assistant") == []
    batch = Batch()
    batch.add("assistant", "I love hiking.")
    assert only(batch.extract(assistant_facts=True), type="preference").subject.name == "assistant"
    named = only(say("I love hiking.", role="assistant", name="Melanie"), type="preference")
    assert named.subject is not None and named.subject.name == "Melanie"


# ----------------------------------------------------------------------------- decisions


def test_english_decision_with_rejected_alternative() -> None:
    for text in (
        "Let's use Next.js instead of Remix.",
        "Use Next.js, not Remix.",
        "We'll go with Next.js rather than Remix.",
    ):
        c = only(say(text), type="decision")
        assert (c.kind, c.relation, c.object.name, c.slot) == (
            "decision",
            "uses",
            "Next.js",
            "framework",
        )
        assert c.replaces is not None and c.replaces.name == "Remix"
        assert c.importance >= 0.8


def test_english_decided_to() -> None:
    c = only(say("We decided to use PostgreSQL."), type="decision")
    assert (c.relation, c.object.name, c.slot, c.replaces) == (
        "uses",
        "PostgreSQL",
        "database",
        None,
    )
    d = only(say("Last week, I decided to run for office again.", name="John"), type="decision")
    assert (d.relation, d.object.type) == ("decided", "decision")
    assert d.text == "John decided to run for office again."
    assert iso(d.event_time) == "2023-05-01"


def test_chinese_decisions() -> None:
    c = only(say("用 Next.js 不用 Remix。"), type="decision")
    assert (c.relation, c.object.name, c.replaces.name, c.language) == (
        "uses",
        "Next.js",
        "Remix",
        "zh",
    )
    assert c.text == "团队决定用 Next.js，不用 Remix。"  # a choice made for the team
    assert only(say("我们决定用 PostgreSQL。"), type="decision").slot == "database"
    assert only(say("改用 Vue 吧"), type="decision").object.name == "Vue"
    d = only(say("我们决定下个月搬到上海。"), type="decision")
    assert (d.relation, d.object.name, iso(d.event_time)) == ("decided", "搬到上海", "2023-06-01")


# ----------------------------------------------------------------------------- switches


def test_slots_come_from_the_tool_table() -> None:
    assert slot_of("TypeScript") == slot_of("JavaScript") == slot_of("Go") == "language"
    assert slot_of("Postgres") == slot_of("SQLite") == slot_of("MongoDB") == "database"
    assert slot_of("React") == slot_of("Next.js") == slot_of("Remix") == "framework"
    assert slot_of("Frobnicator") == "tool"
    assert lookup("go") is None  # the English word, not the language


def test_english_switch_ends_the_old_tool() -> None:
    c = only(say("I switched from JavaScript to TypeScript since last week."), relation="uses")
    assert (c.object.name, c.slot, c.replaces.name) == ("TypeScript", "language", "JavaScript")
    assert c.valid_from == day("2023-05-01")
    assert c.text == "The user switched from JavaScript to TypeScript (since 2023-05-01)."
    m = only(say("We moved from MySQL to Postgres last month."), relation="uses")
    assert (m.object.name, m.slot, m.replaces.name) == ("PostgreSQL", "database", "MySQL")
    assert m.valid_from == day("2023-04-01")
    # no duplicate "event" restating the switch
    assert [c.type for c in say("We moved from MySQL to Postgres last month.")] == ["decision"]


def test_english_ending_and_current_use() -> None:
    until = only(say("I used JavaScript until last week."), relation="uses")
    assert (until.object.name, until.slot, until.valid_until) == (
        "JavaScript",
        "language",
        day("2023-05-01"),
    )
    gone = only(say("We no longer use Jenkins."), relation="uses")
    assert gone.object.name == "Jenkins" and gone.valid_until == MONDAY
    now = only(say("We now use Rust."), relation="uses")
    assert (now.object.name, now.slot, now.valid_from) == ("Rust", "language", MONDAY)


def test_chinese_switches() -> None:
    c = only(say("从上周开始我们从 MySQL 切换到 PostgreSQL。"), relation="uses")
    assert (c.object.name, c.slot, c.replaces.name, c.language) == (
        "PostgreSQL",
        "database",
        "MySQL",
        "zh",
    )
    assert c.valid_from == day("2023-05-01")
    assert c.text == "团队从 MySQL 换成了 PostgreSQL（从 2023-05-01 起）。"  # for the team
    d = only(say("从 JavaScript 换成 TypeScript。"), relation="uses")
    assert (d.slot, d.replaces.name, d.valid_from) == ("language", "JavaScript", MONDAY)
    e = only(say("我们不再用 Webpack 了。"), relation="uses")
    assert (e.object.name, e.valid_until) == ("Webpack", MONDAY)
    f = only(say("直到上周我还在用 JavaScript。"), relation="uses")
    assert f.valid_until == day("2023-05-01")


# ----------------------------------------------------------------------------- constraints


def test_english_constraints() -> None:
    b = only(say("Our budget is $50k."), type="constraint")
    assert (b.relation, b.slot, b.object.type) == ("has_constraint", "budget", "constraint")
    assert (b.attrs["amount"], b.attrs["currency"]) == (50_000.0, "USD")
    t = only(say("We are a team of 3."), type="constraint")
    assert (t.slot, t.attrs["size"]) == ("team_size", 3)
    assert only(say("We're a 5-person team."), type="constraint").attrs["size"] == 5
    d = only(say("The report is due next Friday."), type="constraint")
    # the slot is the deadline of one thing: a change to another deadline ends nothing here
    assert (d.slot, d.attrs["date"], d.attrs["date_text"]) == (
        "deadline:report",
        "2023-05-12",
        "next Friday",
    )
    jan = datetime(2023, 1, 10, tzinfo=UTC).timestamp()
    m = only(say("The deadline is March 3.", at=jan), type="constraint")
    # a deadline stays current until it changes (it does not expire at its own date)
    assert m.attrs["date"] == "2023-03-03" and m.valid_until is None


def test_chinese_constraints() -> None:
    b = only(say("预算 5 万。"), type="constraint")
    assert (b.attrs["amount"], b.language, b.text) == (50_000.0, "zh", "用户的预算是 5 万。")
    assert only(say("预算大概 20 万元"), type="constraint").attrs["currency"] == "CNY"
    t = only(say("我们是3人团队。"), type="constraint")
    assert (t.attrs["size"], t.object.name) == (3, "3 人团队")
    assert only(say("团队一共五个人"), type="constraint").attrs["size"] == 5
    d = only(say("下周五之前要交报告。"), type="constraint")
    assert (d.slot, d.attrs["date"]) == ("deadline", "2023-05-19")
    assert "下周五之前要交报告" in d.text
    assert [c.type for c in say("下周五之前要交报告。")] == ["constraint"]


# ----------------------------------------------------------------------------- people, orgs


def test_english_people_and_organisations() -> None:
    p = only(say("My partner Anna runs the shop.", name="Caroline"), type="entity")
    assert (p.relation, p.object.name, p.object.type, p.attrs["role"]) == (
        "has_relation",
        "Anna",
        "person",
        "partner",
    )
    assert p.text == "Anna is Caroline's partner."
    w = only(say("I work at Acme Corp."), type="profile")  # who the user is
    assert (w.relation, w.object.name, w.object.type) == ("works_at", "Acme Corp", "organization")
    assert (w.text, w.slot) == ("The user works at Acme Corp.", "employer")
    j = only(say("I joined Google last year."), type="entity")
    assert (j.relation, j.object.name, j.valid_from) == ("member_of", "Google", day("2022-01-01"))
    lost = only(say("I also lost my job at Door Dash this month.", name="Gina"), type="entity")
    assert lost.relation == "works_at" and lost.valid_until == day("2023-05-01")
    assert say("my son, Thankfully, is fine", name="Mel") == [] or all(
        c.object is None or c.object.name != "Thankfully" for c in say("my son, Thankfully")
    )


def test_chinese_people_and_organisations() -> None:
    p = only(say("我的合伙人张总很忙。"), type="entity")
    assert (p.relation, p.object.name, p.attrs["role"], p.text) == (
        "has_relation",
        "张总",
        "合伙人",
        "张总是用户的合伙人。",
    )
    assert only(say("李明是我的同事"), type="entity").object.name == "李明"
    w = only(say("我在字节跳动工作。"), type="entity")
    assert (w.relation, w.object.name, w.object.type, w.language) == (
        "works_at",
        "字节跳动",
        "organization",
        "zh",
    )


# ----------------------------------------------------------------------------- projects, tools


def test_projects_and_tools() -> None:
    p = only(say("I'm working on Atlas."), type="entity")
    assert (p.relation, p.object.name, p.object.type) == ("works_on", "Atlas", "project")
    assert only(say("Our project is called Phoenix."), type="entity").object.name == "Phoenix"
    uses = [c for c in say("We use React and PostgreSQL.") if c.relation == "uses"]
    assert {(c.object.name, c.slot) for c in uses} == {
        ("React", "framework"),
        ("PostgreSQL", "database"),
    }
    # an unknown tool has no functional slot: using Zapier must not end using Sentry
    assert only(say("We use Zapier."), relation="uses").slot is None
    # a CI server fills the ci slot (a new one ends the old one)
    assert only(say("We use Jenkins."), relation="uses").slot == "ci"


def test_chinese_projects_and_tools() -> None:
    p = only(say("我们在做 SaaS 后台重构项目。"), type="entity")
    assert (p.relation, p.object.name, p.object.type, p.language) == (
        "works_on",
        "SaaS 后台重构",
        "project",
        "zh",
    )
    uses = [c for c in say("我们用 FastAPI 和 Redis。") if c.relation == "uses"]
    assert {(c.object.name, c.slot) for c in uses} == {("FastAPI", "framework"), ("Redis", "cache")}
    assert all(c.text.startswith("用户用") for c in uses)


# ----------------------------------------------------------------------------- events


def test_dated_event_is_resolved_against_the_node_time() -> None:
    c = only(say("I went to a LGBTQ support group yesterday.", name="Caroline"), type="event")
    assert (c.kind, c.event_time, c.text) == (
        "event",
        day("2023-05-07"),
        "Caroline went to a LGBTQ support group (2023-05-07).",
    )
    assert (c.attrs["date"], c.attrs["date_text"]) == ("2023-05-07", "yesterday")
    assert c.subject is not None and c.subject.name == "Caroline"
    assert c.confidence >= 0.7


@pytest.mark.parametrize(
    ("text", "when", "expected"),
    [
        (
            "Last week I ran a charity race for mental health.",
            "2023-05-01",
            "Melanie ran a charity race for mental health (week of 2023-05-01).",
        ),
        ("I'm going camping next month.", "2023-06-01", "Melanie is going camping (June 2023)."),
        (
            "I painted a lake sunrise 3 days ago.",
            "2023-05-05",
            "Melanie painted a lake sunrise (2023-05-05).",
        ),
        (
            "I passed the adoption agency interviews last Friday!",
            "2023-05-05",
            "Melanie passed the adoption agency interviews (2023-05-05).",
        ),
        (
            "I moved to Boston on May 1, 2022.",
            "2022-05-01",
            "Melanie moved to Boston (2022-05-01).",
        ),
        (
            "Yesterday, I took the kids to the museum - it was so cool.",
            "2023-05-07",
            "Melanie took the kids to the museum (2023-05-07).",
        ),
        (
            "Just got back from a family road trip yesterday, it was fun!",
            "2023-05-07",
            "Melanie got back from a family road trip (2023-05-07).",
        ),
        (
            "My colleagues and I went to a convention together last month.",
            "2023-04-01",
            "Melanie and their colleagues went to a convention together (April 2023).",
        ),
    ],
)
def test_english_dated_events(text: str, when: str, expected: str) -> None:
    # a move is also where the speaker lives (a profile fact on the timeline)
    c = only(say(text, name="Melanie"), kind="event")
    assert (c.event_time, c.text) == (day(when), expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Last Fri I finally took my kids to a pottery workshop.",
            "Melanie finally took their kids to a pottery workshop (2023-05-05).",
        ),
        (
            "Last week, my grandma passed away and it's been really hard.",
            "Melanie's grandma passed away (week of 2023-05-01).",
        ),
        (
            "Last week, there was a power cut in our area.",
            "There was a power cut in Melanie's area (week of 2023-05-01).",
        ),
        (
            "That picture was from a trip we took last year for my daughter's birthday!",
            "Melanie and their family took a trip for their daughter's birthday (2022).",
        ),
        (
            "These figurines I bought yesterday remind me of family love.",
            "Melanie bought the figurines (2023-05-07).",
        ),
        (
            "While volunteering yesterday, I met this amazing woman, Jean.",
            "Melanie met this amazing woman (2023-05-07).",
        ),
        (
            "Gonna explore more and volunteer at shelters next month.",
            "Melanie is going to explore more and volunteer at shelters (June 2023).",
        ),
        (
            "The official opening night is tomorrow.",
            "The official opening night takes place (2023-05-09).",
        ),
        (
            "Inspiring 💪 I emailed some wholesalers today!",
            "Melanie emailed some wholesalers (2023-05-08).",
        ),
    ],
)
def test_conversational_event_shapes(text: str, expected: str) -> None:
    assert only(say(text, name="Melanie"), type="event").text == expected


def test_recurring_weekdays_are_not_dates() -> None:
    c = only(say("I started a pottery class on Thursday evenings.", name="Tomas"), type="event")
    assert "date" not in c.attrs and c.event_time == MONDAY


def test_chinese_event_shapes() -> None:
    c = only(say("我上周五在公司加班到很晚。", name="张三"), type="event")
    assert (c.text, c.event_time) == ("张三在公司加班到很晚（2023-05-05）。", day("2023-05-05"))
    r = only(say("我最近开始学游泳了。", name="张三"), type="event")
    assert (r.attrs["date_source"], r.event_time) == ("message", day("2023-05-08"))
    y = only(say("我2022年毕业于清华大学。", name="张三"), type="event")
    assert (y.text, y.attrs["granularity"]) == ("张三毕业于清华大学（2022年）。", "year")
    assert say("我昨天很开心。", name="张三") == []
    d = only(say("我们用的是 React，不用 Vue。"), type="decision")
    assert (d.object.name, d.replaces.name) == ("React", "Vue")
    assert (
        only(say("我的经验是：先写测试再写代码。"), kind="learning").text
        == "经验：先写测试再写代码。"
    )


def test_future_events_are_marked_planned() -> None:
    c = only(say("I'm going camping next month.", name="Melanie"), type="event")
    assert c.attrs.get("planned") is True


def test_work_events_and_chinese_events() -> None:
    w = only(say("Last week we shipped v2.0 of the app."), type="event")
    assert (w.kind, w.event_time) == ("work", day("2023-05-01"))
    c = only(say("我昨天去了医院。", name="张三"), type="event")
    assert (c.text, c.event_time, c.language) == (
        "张三去了医院（2023-05-07）。",
        day("2023-05-07"),
        "zh",
    )
    r = only(say("上周我们发布了 2.0", name="张三"), type="event")
    assert (r.kind, r.event_time, r.attrs["date_text"]) == ("work", day("2023-05-01"), "上周")
    assert r.text.startswith("张三他们发布了 2.0")
    assert only(say("5月7日我去了北京。"), type="event").event_time == day("2023-05-07")


def test_life_events_without_a_date_use_the_node_time() -> None:
    for text in ("I adopted a dog.", "I started a new job as a nurse.", "我终于领养了一只猫。"):
        c = only(say(text, name="Caroline"), type="event")
        assert c.event_time == MONDAY and c.confidence < 0.7, text
        assert "date" not in c.attrs
    dated = only(say("I adopted a dog yesterday.", name="C"), type="event")
    assert dated.confidence > only(say("I adopted a dog.", name="C"), type="event").confidence


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I just finished my first marathon!", "Caroline just finished their first marathon"),
        (
            "I've started Portuguese lessons on an app.",
            "Caroline has started Portuguese lessons on an app",
        ),
        (
            'I\'m currently reading "The Lean Startup".',
            'Caroline is currently reading "The Lean Startup"',
        ),
    ],
)
def test_recent_events_take_the_message_day(text: str, expected: str) -> None:
    c = only(say(text, name="Caroline"), type="event")
    assert c.text == f"{expected} (2023-05-08)."
    assert (c.event_time, c.attrs["date_source"]) == (day("2023-05-08"), "message")
    assert c.confidence < 0.7


def test_a_time_in_the_sentence_before_dates_the_event() -> None:
    cands = say("Guess what I did this week? I applied to adoption agencies!", name="Caroline")
    c = only(cands, type="event")
    assert (c.text, c.attrs["date_text"]) == (
        "Caroline applied to adoption agencies (week of 2023-05-08).",
        "this week",
    )
    other = only(say("Did you go camping last week? I went to the zoo.", name="M"), type="event")
    assert "date" not in other.attrs  # the other speaker's week is not this one's


def test_a_duration_in_the_perfect_dates_a_start() -> None:
    c = only(say("I've known these friends for 4 years.", name="Caroline"), type="event")
    assert (c.text, c.attrs["since"], c.attrs["date"]) == (
        "Caroline has known these friends (since 2019).",
        True,
        "2019-05-08",
    )
    assert (
        find_times("I'm going to Paris for 2 weeks next month.", date(2023, 5, 8))[0].text
        == "next month"
    )


@pytest.mark.parametrize(
    "text",
    [
        "I didn't go to the gym yesterday.",
        "I think about it every day.",
        "If I get the job next week I will celebrate.",
        "Can you remind me tomorrow?",
        "Hey Maria, last week was really eye-opening.",
        "Everyone I met yesterday was nice.",
        "我昨天没去医院。",
        "我觉得昨天很好。",
    ],
)
def test_non_events(text: str) -> None:
    assert [c for c in say(text, name="Maria") if c.type == "event"] == []


# ----------------------------------------------------------------------------- learnings


def test_learnings() -> None:
    c = only(say("TIL that SQLite supports JSON."), kind="learning")
    assert (c.type, c.text) == ("pattern", "The user learned that SQLite supports JSON.")
    assert (
        only(say("Lesson learned: always pin your dependencies."), kind="learning").text
        == "Lesson: always pin your dependencies."
    )
    z = only(say("我学到了早睡很重要。"), kind="learning")
    assert (z.language, z.text) == ("zh", "用户学到：早睡很重要。")
    assert [c for c in say("I learned that the hard way.") if c.kind == "learning"] == []


# ----------------------------------------------------------------------------- tool calls


def _fix_session() -> Batch:
    b = Batch()
    b.add("user", "The tests fail, please fix them.")
    a = b.add(
        "assistant", "Running the tests.", tool_calls=[call("c1", "bash", {"command": "pytest -q"})]
    )
    b.add(
        "tool",
        "F..\nFAILED tests/test_x.py::test_a - AssertionError: 1 != 2\n1 failed",
        tool_call_id="c1",
        called_by=a,
    )
    a = b.add(
        "assistant",
        "",
        tool_calls=[call("c2", "edit_file", {"path": "src/x.py", "old": "1", "new": "2"})],
    )
    b.add("tool", "ok", tool_call_id="c2", called_by=a)
    a = b.add("assistant", "", tool_calls=[call("c3", "bash", {"command": "pytest  -q"})])
    b.add("tool", "...\n3 passed in 0.1s", tool_call_id="c3", called_by=a)
    return b


def test_tool_calls_become_work_items() -> None:
    # one work item per turn, saying what was achieved; commands and files are attributes
    cands = _fix_session().extract()
    (work,) = [c for c in cands if c.kind == "work"]
    assert work.type == "case" and work.attrs["commands"] == ["pytest -q"]
    assert work.attrs["files"] == ["src/x.py"] and work.attrs["failures"] == 1
    assert work.attrs["fixed"] == [
        {"command": "pytest -q", "error": "FAILED tests/test_x.py::test_a - AssertionError: 1 != 2"}
    ]
    # no command in the text (it is in the attributes): what was done
    assert work.text == "Fixed a failing run: edited src/x.py."
    assert "`" not in work.text
    assert {(e.name, e.type, e.attrs["kind"]) for e in work.entities} == {
        ("src/x.py", "resource", "file")
    }
    assert work.node_ids == ("n1", "n2", "n3", "n4", "n5", "n6", "n7")
    assert work.collective


def test_tool_results_linked_by_called_by_and_patches() -> None:
    b = Batch()
    b.add("user", "好的，更新一下 README")
    patch = "*** Begin Patch\n*** Update File: README.md\n@@\n-a\n+b\n*** End Patch"
    a = b.add(
        "assistant",
        "提交中",
        tool_calls=[{"id": "x", "name": "apply_patch", "input": {"input": patch}}],
    )
    b.add("tool", "Done", called_by=a)
    v = b.add(
        "assistant",
        "",
        tool_calls=[
            call("y", "str_replace_based_edit_tool", {"command": "view", "path": "setup.py"})
        ],
    )
    b.add("tool", "contents", tool_call_id="y", called_by=v)
    c = only(b.extract(), kind="work")
    assert (c.attrs["files"], c.language) == (["README.md"], "zh")
    assert c.text == "修改了 README.md。"


def test_a_failure_without_a_later_success_is_no_fix() -> None:
    b = Batch()
    a = b.add("assistant", "", tool_calls=[call("c1", "shell", {"command": "make"})])
    b.add(
        "tool",
        json.dumps({"exit_code": 2, "stderr": "make: *** No rule"}),
        tool_call_id="c1",
        called_by=a,
    )
    cands = b.extract()
    assert [c.type for c in cands] == ["case"] and cands[0].attrs["failures"] == 1
    assert cands[0].attrs["fixed"] == []


# ----------------------------------------------------------------------------- the contract


def _mixed_batch() -> Batch:
    b = Batch()
    for text, name in [
        ("Hi! How are you?", "Caroline"),
        ("I went to a LGBTQ support group yesterday. I love hiking.", "Caroline"),
        ("Do you like jazz? My partner Anna does.", "Melanie"),
        ("我昨天去了医院，我喜欢 TypeScript。预算 5 万。", "张三"),
        ("We decided to use PostgreSQL, not MySQL; our budget is $50k.", None),
    ]:
        b.add("user", text, name=name)
    return b


def test_every_candidate_keeps_the_contract() -> None:
    b = _mixed_batch()
    result = RuleExtractor().extract(b.records)
    assert RuleExtractor.name == "rules"
    assert result.stats["nodes"] == 5 and result.stats["questions_skipped"] >= 2
    ids = {r.node.id for r in b.records}
    assert len(result.candidates) >= 8
    for c in result.candidates:
        assert c.type in MEMORY_TYPES and c.text.strip()
        assert c.session_id == "sess-1" and c.node_ids and set(c.node_ids) <= ids
        assert 0.5 <= c.confidence <= 0.95 and 0.0 <= c.importance <= 1.0
        assert c.scope is None
        if c.language == "zh":
            assert any("\u4e00" <= ch <= "\u9fff" for ch in c.text), c.text
    zh = [c for c in result.candidates if c.node_ids == ("n4",)]
    assert {c.type for c in zh} == {"event", "preference", "constraint"}
    assert all(c.language == "zh" for c in zh)


def test_the_bundled_locomo_sample_extracts_cleanly() -> None:
    from ogmemory.importers import parse_locomo

    path = Path(__file__).resolve().parents[1] / "src/ogmemory/data/sample_locomo.json"
    samples = json.loads(path.read_text(encoding="utf-8"))
    b = Batch()
    for conv in parse_locomo(samples):
        for msg in conv.messages:
            b.at = msg["event_time"] - len(b.records) - 1
            b.add(msg["role"], msg["content"], name=msg.get("name"))
    cands = b.extract()
    assert cands, "a LoCoMo conversation yields some memories"
    speakers = {r.node.name for r in b.records}
    assert all(c.subject is not None and c.subject.name in speakers for c in cands)
    texts = [c.text for c in cands]
    assert "Anika is Priya's sister." in texts
    assert "Priya adopted a grey cat from the shelter (weekend of 2023-05-20)." in texts


@settings(max_examples=150, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(
            list("I we my 我们的喜欢昨天上周用不 ,.?!;:-0123456789$abcdefghijklmnopqrstuvwxyzTSJ")
        ),
        max_size=120,
    )
)
def test_arbitrary_text_never_breaks_the_extractor(text: str) -> None:
    for c in say(text, name="Alex"):
        assert c.node_ids == ("n1",) and c.text


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        (
            "Melanie has done an abstract painting too, take a look",
            "Melanie has done an abstract painting",
        ),
        (
            "they want it to spread acceptance - let's make it happen",
            "they want it to spread acceptance",
        ),
        ("I painted a lake - check it out!", "I painted a lake"),
        ("we deploy on Fridays, you know", "we deploy on Fridays"),
        ("my right hand hurts", "my right hand hurts"),
        ("Let's go to the park", "Let's go to the park"),
    ],
)
def test_a_closing_clause_addressed_to_the_listener_is_not_kept(said: str, kept: str) -> None:
    from ogmemory.distill.extractors._grammar import clean_phrase

    assert clean_phrase(said) == kept
