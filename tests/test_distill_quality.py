"""What a careful reader finds wrong in the memory list and core.md, English and Chinese.

Each case was read in a distilled developer session: a rule that restates a lesson with an
acknowledgement in front, a lesson that says "it", a switch phrased "we're ditching X for Y",
a request to the assistant kept as a fact about the user, a work event that names a command,
a core.md line cut in the middle of a word.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from ogmemory.distill.extractors.rules import RuleExtractor
from ogmemory.distill.types import Candidate
from ogmemory.entity.records import Node, NodeRecord
from ogmemory.knowledge.core import _fit, _undated, _unique

T0 = datetime(2026, 6, 1, 9, 0, tzinfo=UTC).timestamp()


def chat(*texts: str, tools: list[dict[str, Any]] | None = None) -> list[Candidate]:
    """Alternating user / assistant messages of one session (the assistant unnamed);
    ``tools``: (name, arguments, result) calls made before the last message."""
    records: list[NodeRecord] = []

    def add(role: str, content: str | None, **kw: Any) -> str:
        i = len(records) + 1
        node = Node(
            id=f"n{i}",
            seq=i,
            role=role,
            content=content,  # type: ignore[arg-type]
            parent_id=f"n{i - 1}" if i > 1 else None,
            event_time=T0 + i,
            ingestion_time=T0 + i,
            **kw,
        )
        records.append(NodeRecord("s1", "default", None, node, "c0ffee", 1))
        return node.id

    for k, text in enumerate(texts):
        if k == len(texts) - 1 and tools:
            for j, (name, args, result, code) in enumerate(tools):
                cid = f"c{j}"
                a = add(
                    "assistant",
                    None,
                    tool_calls=[
                        {
                            "id": cid,
                            "type": "function",
                            "function": {"name": name, "arguments": json.dumps(args)},
                        }
                    ],
                )
                add("tool", result, tool_call_id=cid, called_by=a, metadata={"exit_code": code})
        add("assistant" if k % 2 else "user", text)
    return RuleExtractor().extract(records).candidates


def texts(cands: list[Candidate], **match: Any) -> list[str]:
    return [c.text for c in cands if all(getattr(c, k) == v for k, v in match.items())]


# ----------------------------------------------------------------------------- rules


def test_a_lesson_is_not_also_a_rule_and_loses_its_acknowledgement() -> None:
    for said, lesson in (
        ("明白了，经验是推送一定要按消息 ID 去重。", "经验：推送一定要按消息 ID 去重。"),
        (
            "Makes sense. The lesson is to index the columns nightly jobs filter on.",
            "Lesson: index the columns nightly jobs filter on.",
        ),
    ):
        cands = chat(said)
        assert texts(cands, type="rule") == []
        assert texts(cands, kind="learning") == [lesson]
    assert texts(chat("明白，以后心跳间隔一定要小于超时时间。"), type="rule") == [
        "用户的规则：以后心跳间隔一定要小于超时时间。"
    ]
    assert texts(chat("Got it, always run the linter before you push."), type="rule") == [
        "The user's rule: always run the linter before pushing."
    ]


def test_rules_are_third_person_without_please() -> None:
    assert texts(chat("Don't ever use floats for money amounts, please."), type="rule") == [
        "The user's rule: don't ever use floats for money amounts."
    ]
    assert texts(chat("Don't add new dependencies without asking me first."), type="rule") == [
        "The user's rule: don't add new dependencies without asking the user first."
    ]


def test_an_imperative_over_every_instance_is_a_rule_a_one_off_request_is_not() -> None:
    cands = chat("Never merge on a Friday. Also, tag every release with semver.")
    assert texts(cands, type="rule") == [
        "The user's rule: never merge on a Friday.",
        "The user's rule: tag every release with semver.",
    ]
    assert texts(chat("Keep each migration reversible."), type="rule") == [
        "The user's rule: keep each migration reversible."
    ]
    for request in (
        "Run all the tests now.",
        "Please run every test again.",
        "Visited all the museums in town.",
    ):
        assert texts(chat(request), type="rule") == []


# ----------------------------------------------------------------------------- switches


def test_ditching_or_dropping_one_tool_for_another_is_a_switch() -> None:
    for said, old, new in (
        ("We're ditching Jenkins for GitHub Actions.", "Jenkins", "GitHub Actions"),
        ("We're dropping Jenkins in favour of GitLab CI.", "Jenkins", "GitLab CI"),
        ("We dropped Travis for CircleCI last month.", "Travis CI", "CircleCI"),
    ):
        (c,) = [c for c in chat(said) if c.relation == "uses"]
        assert (c.object.name, c.replaces.name, c.slot) == (new, old, "ci")  # type: ignore
        assert c.kind == "decision" and "The user and others" not in c.text


# ----------------------------------------------------------------------------- identity


def test_leading_a_team_at_an_org_names_the_employer() -> None:
    cands = chat(
        "Hi, quick intro - I'm Noor Haddad, I run the data team at Fernwood Bank and "
        "I live in Leeds."
    )
    (job,) = [c for c in cands if c.relation == "works_at"]
    assert (job.object.name, job.slot, job.text) == (  # type: ignore[union-attr]
        "Fernwood Bank",
        "employer",
        "The user leads the data team at Fernwood Bank.",
    )
    (zh,) = [
        c
        for c in chat("你好，我叫唐敏，在安康医疗负责小程序开发，现在住在南京。")
        if c.relation == "works_at"
    ]
    assert (zh.object.name, zh.text) == ("安康医疗", "用户在安康医疗负责小程序开发。")  # type: ignore


def test_an_appositive_colleague_and_what_they_want() -> None:
    cands = chat("My boss, Peter Graf, wants a risk review before each deploy.")
    assert "Peter Graf wants a risk review before each deploy." in texts(cands)
    cands = chat("Our CTO, Elena Park, wants an architecture review before each quarter.")
    assert "Elena Park wants an architecture review before each quarter." in texts(cands)


# ----------------------------------------------------------------------------- lessons


def test_an_explanation_names_what_was_asked_about() -> None:
    cands = chat(
        "Why did the nightly reconciliation time out?",
        "It timed out because the query scanned the whole transactions table; adding "
        "an index on posted_at brought it under a minute.",
    )
    assert texts(cands, kind="learning") == [
        (
            "The nightly reconciliation timed out because the query scanned the whole transactions"
            " table. Adding an index on posted_at brought it under a minute."
        )
    ]
    cands = chat(
        "What made the route planner so slow on Monday?",
        "It was slow because the planner recomputed the matrix for every request.",
    )
    assert texts(cands, kind="learning") == [
        ("The route planner was slow because the planner recomputed the matrix for every request.")
    ]
    cands = chat(
        "How come the webhook retries kept piling up?",
        "They piled up because every retry created a new idempotency key.",
    )
    assert texts(cands, kind="learning") == [
        "The webhook retries piled up because every retry created a new idempotency key."
    ]
    cands = chat(
        "Why were yesterday's numbers double counted?",
        "They were double counted because the join fanned out on duplicate rows.",
    )
    assert texts(cands, kind="learning") == [
        "The numbers were double counted because the join fanned out on duplicate rows."
    ]
    cands = chat("Why is Grafana down?", "It is down because the disk is full.")
    assert texts(cands, kind="learning") == ["Grafana is down because the disk is full."]
    cands = chat(
        "为什么登录接口这么慢？", "慢是因为每次请求都重新建数据库连接，加了连接池之后就快了。"
    )
    assert texts(cands, kind="learning") == [
        "登录接口慢是因为每次请求都重新建数据库连接，加了连接池之后就快了。"
    ]
    # an answer that names its subject keeps it
    cands = chat("为什么推送重复了？", "推送重复是因为重试时没有做去重。")
    assert texts(cands, kind="learning") == ["推送重复是因为重试时没有做去重。"]


# ----------------------------------------------------------------------------- requests


def test_a_request_to_the_assistant_is_not_a_fact_about_the_user() -> None:
    for said in (
        "帮我跑一下压测脚本，看看内存有没有问题。",
        "麻烦你帮我跑一下单元测试，顺便看看覆盖率。",
    ):
        assert texts(chat(said, "好的。")) == []


# ----------------------------------------------------------------------------- work


def test_a_work_event_says_what_was_done_without_the_command() -> None:
    lint = ("bash", {"command": "golangci-lint run ./..."}, "route/plan.go:88: ineffassign", 1)
    edit = ("write_file", {"path": "route/plan.go", "content": "x"}, "wrote route/plan.go", 0)
    again = ("bash", {"command": "golangci-lint run ./..."}, "", 0)
    cands = chat(
        "Please run the linter.",
        "The linter flagged an ignored error in route/plan.go; I now return the error "
        "there and the linter is clean.",
        tools=[lint, edit, again],
    )
    (work,) = texts(cands, kind="work")
    assert "golangci-lint" not in work
    assert work == (
        "Fixed a failing run: the linter flagged an ignored error in route/plan.go "
        "(edited route/plan.go)."
    )
    test = ("bash", {"command": "dbt run"}, "column cust_id not found", 1)
    fixed = ("bash", {"command": "dbt run"}, "OK", 0)
    cands = chat(
        "Run the models.",
        "The orders model failed because the raw table calls the "
        "column cust_id; I aliased it to customer_id and the run completes now.",
        tools=[test, fixed],
    )
    (work,) = texts(cands, kind="work")
    assert work.startswith(
        "The orders model failed because the raw table calls the column cust_id. Aliased it"
    )


# ----------------------------------------------------------------------------- core.md


def test_a_core_line_is_cut_at_a_sentence_or_clause_never_inside_a_word() -> None:
    long = (
        "They piled up because every retry created a new idempotency key, so Stripe treated"
        " each one as a new request. Reusing the original key fixes it."
    )
    assert _fit(long, 100) == ("They piled up because every retry created a new idempotency key…")
    two = (
        "The totals were double counted because the join fanned out on duplicate rows. "
        "Deduplicating customers before the join fixes it."
    )
    assert _fit(two, 100) == (
        "The totals were double counted because the join fanned out on duplicate rows."
    )
    zh = (
        "任务慢是因为查询没有命中分区键，全表扫描了，加上按日期分区过滤后就快了。"
        + "后来又补充了很多很多说明文字" * 3
    )
    assert (
        _fit(zh, 60) == "任务慢是因为查询没有命中分区键，全表扫描了，加上按日期分区过滤后就快了。"
    )
    assert _fit("short", 100) == "short"


def test_a_recent_event_restating_a_fact_shown_above_is_not_repeated() -> None:
    seen: set[str] = set()
    who = _unique(["· The user moved from Lisbon to Berlin.  ↪ session:s@1"], seen)
    recent = _unique(
        [
            "· 2026-02-01 The user moved from Lisbon to Berlin.  ↪ session:s@1",
            "· 2026-02-02 Lesson: pin numpy.  ↪ session:s@2",
        ],
        seen,
    )
    assert len(who) == 1 and recent == ["· 2026-02-02 Lesson: pin numpy.  ↪ session:s@2"]


def test_a_recent_line_does_not_repeat_its_own_date() -> None:
    assert _undated("Melanie bought the figurines (2023-10-21).", "2023-10-21") == (
        "Melanie bought the figurines."
    )
    assert _undated("用户买了手办（2023-10-21）。", "2023-10-21") == "用户买了手办。"
    assert _undated("The user started playing guitar (about 2018).", "about 2018") == (
        "The user started playing guitar."
    )
    # a label that says more than the day (a week, another day) stays
    assert _undated("Caroline went hiking (week of 2023-10-16).", "2023-10-21").endswith(
        "2023-10-16)."
    )
    assert (
        _undated("Melanie painted the lake (2022).", "2023-10-21")
        == "Melanie painted the lake (2022)."
    )


def test_a_chinese_deadline_at_the_latest_and_its_move_share_one_slot() -> None:
    (due,) = [c for c in chat("二期固件最晚 12 月 1 日要交付。") if c.relation == "has_deadline"]
    (moved,) = [
        c for c in chat("二期固件的交付时间推迟到 12 月 15 日了。") if c.relation == "has_deadline"
    ]
    assert due.text == "二期固件的交付截止日期是 2026-12-01。"
    assert due.slot == moved.slot and moved.text.endswith("2026-12-15。")
    assert [c for c in chat("我最晚十点睡觉。") if c.relation == "has_deadline"] == []


def test_a_decision_cut_short_does_not_end_on_a_dangling_word() -> None:
    (c,) = [
        c
        for c in chat(
            "We settled on Go for the routing engine and Postgres with PostGIS for storage."
        )
        if c.kind == "decision"
    ]
    assert c.text == "The user settled on Go for the routing engine and Postgres."


def test_formerly_is_not_a_lesson() -> None:
    cands = chat("数据库原来用的是 MySQL，现在改成 PostgreSQL 了。")
    assert texts(cands, kind="learning") == []
    assert [c.object.name for c in cands if c.relation == "uses"] == ["PostgreSQL"]  # type: ignore
    assert texts(chat("原来缓存没有设置过期时间，难怪内存一直涨。"), kind="learning") != []


# ----------------------------------------------------------------------------- deployments


def test_where_a_named_thing_deploys_or_runs_is_a_config_fact() -> None:
    for said, text, target in (
        ("The webshop deploys to Kubernetes.", "The webshop deploys to Kubernetes.", "Kubernetes"),
        ("We deploy the frontend to Vercel.", "The team deploys the frontend to Vercel.", "Vercel"),
        ("Our API runs on AWS Lambda.", "The team's API runs on AWS Lambda.", "AWS Lambda"),
    ):
        (config,) = [c for c in chat(said) if c.type == "config"]
        assert config.text == text and config.object is not None
        assert config.object.name == target and config.slot.startswith("deploy:")
    # a lower-case object is not a deployment target
    assert texts(chat("The script runs on startup."), type="config") == []


def test_we_takes_the_verb_of_the_team_and_need_is_not_a_past_tense() -> None:
    from ogmemory.distill.extractors._grammar import third_person_en

    assert third_person_en("We need to ship by Friday.", "the team", group="the team") == (
        "the team needs to ship by Friday."
    )
    assert third_person_en("We all agreed.", "the team", group="the team") == (
        "the team all agreed."
    )
    assert third_person_en("I need a break.", "the user") == "the user needs a break."
    assert third_person_en("We use Go.", "the user") == "the user's team uses Go."
