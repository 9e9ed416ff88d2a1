"""What a memory says when read later, out of its conversation, and phrasings read right.

Each case was found by reading distilled output (a LoCoMo development conversation, or a
development script of ``bench/sessions/dev``): "you" in a memory names no one, "it" at its start
names nothing, a time phrase taken out leaves a fragment ("The user will be offline part of"),
a clause after a condition was dropped with it, and ordinary ways to state a switch, a rule, a
deadline change, a role or a region were not read. English and Chinese; extractor level on
NodeRecords, and one script end to end through a real tenant (git, JSONL).
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest

from ogmemory.distill.dates import find_times
from ogmemory.distill.extractors.rules import RuleExtractor
from ogmemory.distill.types import Candidate
from ogmemory.entity.records import Node, NodeRecord
from ogmemory.evaluation.devsessions import run_sessions

T0 = datetime(2026, 5, 8, 9, 0, tzinfo=UTC).timestamp()


def _records(turns: list[tuple[str, str | None, str | None]]) -> list[NodeRecord]:
    records = []
    for i, (role, name, text) in enumerate(turns, start=1):
        node = Node(
            id=f"n{i}",
            seq=i,
            role=role,
            content=text,  # type: ignore[arg-type]
            parent_id=f"n{i - 1}" if i > 1 else None,
            event_time=T0 + 60 * i,
            ingestion_time=T0 + 60 * i,
            name=name,
        )
        records.append(NodeRecord("s1", "default", None, node, "c0ffee", i))
    return records


def talk(*turns: tuple[str, str]) -> list[Candidate]:
    """One session between named people: ``(speaker, text)`` turns."""
    return (
        RuleExtractor()
        .extract(
            _records(
                [("user" if i % 2 == 0 else "assistant", n, t) for i, (n, t) in enumerate(turns)]
            )
        )
        .candidates
    )


def chat(*texts: str) -> list[Candidate]:
    """A developer (unnamed user) and an unnamed assistant, alternating, user first."""
    return (
        RuleExtractor()
        .extract(
            _records(
                [("user" if i % 2 == 0 else "assistant", None, t) for i, t in enumerate(texts)]
            )
        )
        .candidates
    )


def texts(cands: list[Candidate], **match: Any) -> list[str]:
    return [c.text for c in cands if all(getattr(c, k) == v for k, v in match.items())]


# ----------------------------------------------------------------------------- "you"


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        (
            "I just wanted to let you know I did a charity run yesterday!",
            "Maria did a charity run (2026-05-07).",
        ),
        (
            "I wanted to tell you about my school event last week.",
            "Maria told John about their school event (week of 2026-04-27).",
        ),
        (
            "I'm so excited to tell you I started a weekend yoga class with a colleague.",
            "Maria started a weekend yoga class with a colleague.",
        ),
        (
            "I've been reading that book you recommended a while ago.",
            "Maria has been reading that book John recommended a while ago (2026-05-08).",
        ),
    ],
)
def test_a_memory_names_the_listener_instead_of_you(said: str, expected: str) -> None:
    cands = talk(("John", "Hey Maria, how are things?"), ("Maria", said))
    assert expected in texts(cands)
    assert not any(" you" in t.lower() for t in texts(cands) if "Maria" in t)


def test_yourself_in_a_general_truth_is_anyone_but_the_listener_stays_the_listener() -> None:
    from ogmemory.distill.extractors._address import addressed_en

    assert (
        addressed_en("Jon learned that having confidence in yourself is key.", "Jon", "Gina")
        == "Jon learned that having confidence in oneself is key."
    )
    # "you all ... your own": the listener's own, not anyone's
    kept = "Maria can picture you all making your own pizzas."
    assert addressed_en(kept, "Maria", "John") == kept
    # a developer's unnamed assistant is no one to name: only the frame goes
    assert (
        addressed_en("The user wanted to let you know the user moved to Oslo.", "the user", None)
        == "The user moved to Oslo."
    )


# ----------------------------------------------------------------------------- "it", "we"


def test_it_in_an_answer_is_what_the_question_asked_about() -> None:
    cands = talk(
        ("Melanie", "Wow, that rocks! What's the main idea of your art?"),
        ("Caroline", "It's my way of showing my story and helping people understand others."),
    )
    assert (
        "Caroline's art is their way of showing their story and helping people understand "
        "others." in texts(cands)
    )
    # "it" stays when it stands for nothing, or the question names several things
    cands = talk(
        ("Caroline", "What do you love most about camping with your fam?"),
        ("Melanie", "It's so peaceful waking up to the sound of birds by the lake every day."),
    )
    assert not any(t.startswith("Camping") for t in texts(cands))
    cands = talk(
        ("John", "How have your experiences at the meetings shaped your views on them?"),
        ("Maria", "It has shown me the impact these issues have on the families nearby."),
    )
    assert not any("views" in t for t in texts(cands))


def test_we_is_the_family_the_question_asked_about() -> None:
    cands = talk(
        ("Caroline", "What do you love most about camping with your fam?"),
        ("Melanie", "We bond over stories, campfires and nature."),
    )
    assert "Melanie and their family bond over stories, campfires and nature." in texts(cands)


# ----------------------------------------------------------------------------- fragments


def test_a_gerund_subject_keeps_its_past_verb() -> None:
    cands = talk(
        ("Jon", "How did it start?"), ("Gina", "Losing my job gave me the push to open my store.")
    )
    assert "Losing Gina's job gave Gina the push to open their own store." not in texts(cands)
    # "me" after a possessive alone names the speaker ("them" would point at the job)
    assert any(t.startswith("Losing Gina's job gave Gina the push") for t in texts(cands))
    assert not any("is losing" in t for t in texts(cands))


def test_a_date_taken_out_leaves_no_fragment() -> None:
    cands = talk(("Jon", "The official opening night is tomorrow."), ("Gina", "Wow!"))
    assert "The official opening night takes place (2026-05-09)." in texts(cands)
    cands = chat("My wife and I just had a baby girl, so I'll be offline part of next week.")
    assert "The user will be offline (week of 2026-05-11)." in texts(cands)


def test_what_someone_works_on_keeps_its_article() -> None:
    cands = talk(("Jon", "Hi! I am still working on the dance studio."), ("Gina", "Cool."))
    assert "Jon is working on the dance studio." in texts(cands)
    assert "Jon is working on their app." in texts(
        talk(
            ("Jon", "I'm working on my app."),
        )
    )


def test_a_condition_after_a_finished_clause_leaves_the_clause_a_statement() -> None:
    assert "The user lives in Madrid." in texts(
        chat("I live in Madrid, in case time zones matter.")
    )
    assert not texts(chat("If I lived in Madrid, I would cycle to work."), type="profile")


@pytest.mark.parametrize(
    ("phrase", "iso"),
    [
        ("I'm moving at the end of the month.", "2026-05-31"),
        ("It has to ship by the end of next week.", "2026-05-15"),
        ("We launch at the end of June.", "2026-06-30"),
        ("The audit closes at the end of the year.", "2026-12-31"),
    ],
)
def test_the_end_of_a_period_is_its_last_day(phrase: str, iso: str) -> None:
    (t,) = find_times(phrase, date(2026, 5, 8))
    assert (t.iso, t.granularity, t.approximate) == (iso, "day", True)
    assert find_times("It was the end of an era.", date(2026, 5, 8)) == []


# ----------------------------------------------------------------------------- developer phrasings


def test_an_appositive_introduction_names_the_role_and_employer() -> None:
    cands = chat("Name's Tomás Ortega, tech lead over at Brightforge Games.")
    assert "The user's name is Tomás Ortega." in texts(cands)
    (job,) = [c for c in cands if c.relation == "works_at"]
    assert job.text == "The user is a tech lead at Brightforge Games."
    assert job.object is not None and job.object.name == "Brightforge Games"


def test_from_now_on_after_outgrowing_a_tool_is_a_switch() -> None:
    cands = chat("We've outgrown Jenkins; from now on CI runs on GitHub Actions.")
    (switch,) = [c for c in cands if c.type == "decision"]
    assert switch.text == "The team switched from Jenkins to GitHub Actions for CI."
    assert switch.replaces is not None and switch.replaces.name == "Jenkins"
    assert switch.slot == "ci"


def test_a_known_tool_in_a_named_role_is_a_choice_and_a_version_is_not_cut() -> None:
    cands = chat("The matchmaking service is written in Rust 1.78, and Redis is our session store.")
    assert "Redis is the team's session store." in texts(cands, type="decision")
    assert "The matchmaking service is written in Rust 1.78." in texts(cands, type="tool")
    assert not texts(chat("Python is the best."), type="decision")


def test_a_labelled_rule_and_a_deadline_moved_up() -> None:
    cands = chat("Rule of thumb here: no unwrap() in production code.")
    assert texts(cands, type="rule") == ["The user's rule: no unwrap() in production code."]
    cands = chat(
        "The closed beta launches on May 14.",
        "Noted.",
        "Marketing asked us to move the closed beta up to May 11.",
    )
    moved = [c for c in cands if c.type == "constraint" and "moved" in c.text]
    assert [c.text for c in moved] == ["The closed beta deadline moved to 2026-05-11."]
    due = [c for c in cands if c.type == "constraint" and "due" in c.text]
    assert due[0].slot == moved[0].slot  # the move ends the old date, nothing else
    cands = chat("They pushed the review deadline back to June 3.")
    assert texts(cands, type="constraint") == ["The review deadline moved to 2026-06-03."]


def test_a_work_event_keeps_the_fix_said_after_a_semicolon() -> None:
    from test_distill_quality import chat as tool_chat

    failed = ("bash", {"command": "cargo test"}, "test result: FAILED. 57 passed; 1 failed", 101)
    passed = ("bash", {"command": "cargo test"}, "test result: ok. 58 passed", 0)
    cands = tool_chat(
        "Run the test suite please.",
        "The elo_window test panicked on an integer underflow; using saturating_sub fixes it "
        "and all 58 tests pass.",
        tools=[failed, passed],
    )
    (work,) = [c.text for c in cands if c.kind == "work"]
    assert work == (
        "The elo_window test panicked on an integer underflow; using saturating_sub fixes it "
        "and all 58 tests pass."
    )


# ----------------------------------------------------------------------------- Chinese


def test_formerly_used_then_changed_is_a_switch_and_not_a_choice_of_the_old_tool() -> None:
    cands = chat("原来用 Jenkins 做 CI，现在改成 GitLab CI 了。")
    assert texts(cands, type="decision") == ["团队的 CI 从 Jenkins 换成了 GitLab CI。"]


def test_chinese_choices_rules_regions_and_kin() -> None:
    assert texts(chat("模型服务是用 Go 写的，数据库用的是 TiDB。"), type="decision") == [
        "团队决定模型服务用 Go。",
        "数据库用的是 TiDB。",
    ]
    (in_use,) = [c for c in chat("服务端用的是 Python 3.12 和 FastAPI。") if c.type == "decision"]
    assert in_use.text == "服务端用的是 Python 3.12 和 FastAPI。"  # versions, the whole list
    assert [f.object.name for f in in_use.more] == ["FastAPI"]
    cands = chat("团队规定：代码合并前必须有人 review。另外不允许把密钥提交到仓库里。")
    assert texts(cands, type="rule") == [
        "团队的规则：代码合并前必须有人 review。",
        "用户的规则：不允许把密钥提交到仓库里。",
    ]
    assert not texts(chat("我不能吃辣。"), type="rule")
    (config,) = [c for c in chat("服务跑在 9090 端口，部署在腾讯云广州区。") if c.type == "config"]
    assert ("region", "腾讯云广州区") in {(f.slot, f.object.name) for f in config.more}
    assert any("用户的儿子" in t for t in texts(chat("我儿子今年刚上初中。")))


def test_a_chinese_date_with_must_ship_is_a_deadline_not_a_rule() -> None:
    cands = chat("新模型 6 月 20 日必须上线。")
    assert texts(cands, type="constraint") == ["新模型的上线截止日期是 2026-06-20。"]
    assert not texts(cands, type="rule")


def test_an_org_before_responsible_for_is_no_person() -> None:
    cands = chat("大家好，我是周涛，目前在蓝海金融负责风控算法。")
    assert not [c for c in cands if c.relation == "owns"]
    assert "用户在蓝海金融负责风控算法。" in texts(cands)


# ----------------------------------------------------------------------------- end to end

_SCRIPT = """
name: switch and deadline
sessions:
  - id: s-1
    project: matchmaker
    start: "2026-05-04T08:00:00Z"
    turns:
      - user: "Our CI runs on Jenkins. The closed beta launches on May 14."
        assistant: "Noted."
  - id: s-2
    project: matchmaker
    start: "2026-05-06T08:00:00Z"
    turns:
      - user: "We've outgrown Jenkins; from now on CI runs on GitHub Actions."
        assistant: "CI moves."
      - user: "Marketing asked us to move the closed beta up to May 11."
        assistant: "May 11."
      - user: "I'm moving from Madrid to Valencia at the end of the month."
        assistant: "Good luck."
gold:
  - {id: ci, terms: [GitHub Actions], facts: true}
  - {id: beta, terms: ["2026-05-11"], facts: true}
stale:
  - {id: jenkins, object: Jenkins}
  - {id: old beta, object: "2026-05-14"}
  - {id: valencia before the move, object: Valencia}
"""


def test_a_switch_a_moved_deadline_and_a_planned_move_leave_nothing_stale(tmp_path: Path) -> None:
    script = tmp_path / "script.yaml"
    script.write_text(_SCRIPT, encoding="utf-8")
    (score,) = run_sessions([script])
    assert score.missed == []
    assert score.stale == []


# ----------------------------------------------------------------------------- model prompts


def test_the_model_extractors_are_told_the_record_kinds_the_rules_keep() -> None:
    from ogmemory.distill.extractors import llm, react
    from ogmemory.distill.extractors._llm_common import RULES

    for prompt in (llm.SYSTEM_PROMPT, react.SYSTEM_PROMPT):
        assert "{rules}" in prompt
    for kind in ("value", "believe", "need", "offer", "suggest", "about to do", "encourages"):
        assert kind in RULES, kind
    assert 'No "you"' in RULES


def test_a_memory_names_who_we_is_once_and_generic_we_is_people() -> None:
    from ogmemory.distill.extractors._referents import named_once as once_named

    assert once_named("John had a picnic with the wife and kids. John and others ate cake.") == (
        "John had a picnic with the wife and kids. They ate cake."
    )
    assert once_named("Jon and others tried hard and Jon is sure Jon and others will make it.") == (
        "Jon and others tried hard and Jon is sure they will make it."
    )
    assert once_named("John and others gotta push themselves out of their comfort zones.") == (
        "John believes that people have to push themselves out of their comfort zones."
    )
    assert once_named("Maria and others need to get the word out.") == (
        "Maria and others need to get the word out."
    )


def test_a_sentence_that_points_back_joins_the_statement_before_it() -> None:
    cands = talk(
        ("Melanie", "Love the necklace, any special meaning?"),
        (
            "Caroline",
            "This necklace is super special to me, a gift from my grandma in Sweden. It's like "
            "a reminder of my roots and all the love I get from my family.",
        ),
    )
    joined = [t for t in texts(cands) if "reminder of Caroline's roots" in t]
    assert len(joined) == 1 and joined[0].startswith("This necklace is super special to Caroline")
