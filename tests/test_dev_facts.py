"""A reviewer's quick developer session, read end to end with the default rules (real session
repositories, the JSONL knowledge files): a date is never a tool, a "ships on <date>" is a
deadline that a later change supersedes, a port belongs to the service named, one fact said
twice is one memory, and what the team does not use is a fact. English and Chinese.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_distill_knowledge import make, ts

from ogmemory import Memory
from ogmemory.entity.records import Provenance
from ogmemory.evaluation.devchecks import duplicate_memories, wrong_facts
from ogmemory.knowledge.models import Edge, Entity
from ogmemory.knowledge.views import render_core


def talk(mem: Memory, sid: str, day: str, *turns: str | tuple[str, str]) -> None:
    """One turn per user text (or (user, assistant) pair), a minute apart."""
    when = ts(day)
    for i, turn in enumerate(turns):
        said, reply = turn if isinstance(turn, tuple) else (turn, "Okay.")
        mem.append_message(sid, {"role": "user", "content": said, "event_time": when + 60 * i})
        mem.append_message(
            sid, {"role": "assistant", "content": reply, "event_time": when + 60 * i + 1}
        )
        mem.commit_turn(sid)


def names(mem: Memory) -> dict[str, str]:
    return {e.id: e.name for e in mem.knowledge.kb.entities(include_hidden=True)}


def current(mem: Memory, at: float, relation: str) -> list[tuple[str, str]]:
    """(subject name, object name) of the current facts of one relation."""
    n = names(mem)
    kb = mem.knowledge.kb
    return sorted(
        (n[kb.resolve_id(f.src)], n[kb.resolve_id(f.dst)])
        for f in mem.facts(at=at)
        if f.relation == relation
    )


def test_a_ship_date_is_a_deadline_that_a_change_supersedes(tmp_path: Path) -> None:
    mem = make(tmp_path)
    talk(
        mem,
        "dev-1",
        "2026-02-10T10:00:00",
        ("The beta ships on March 3.", "Noted: beta on March 3."),
        ("Update: the beta moved to March 10.", "Understood, the beta is now March 10."),
    )
    mem.sleep("deep")
    at = ts("2026-02-10T11:00:00")
    # a date is never a tool: nothing is "deployed to" March
    assert not any(
        e.name.lower().startswith("march") and e.type in ("tool", "place", "organization")
        for e in mem.knowledge.kb.entities(include_hidden=True)
    )
    assert wrong_facts(mem, at) == []
    deadlines = [f for f in mem.facts(include_history=True) if f.relation == "has_deadline"]
    now = [f.fact for f in deadlines if f.valid_at(at)]
    assert now == ["The beta deadline moved to 2026-03-10."]
    old = [f for f in deadlines if "2026-03-03" in f.fact]
    assert len(old) == 1 and old[0].valid_to is not None and old[0].superseded_by is not None
    # one memory for March 3 (the statement), not a config memory beside a deadline memory
    march3 = [m.text for m in mem.memories(include_disabled=False) if "March 3" in m.text]
    march3 += [m.text for m in mem.memories(include_disabled=False) if "03-03" in m.text]
    assert march3 == ["The beta is due on 2026-03-03."]
    # the upcoming deadline is in core.md; the old date is not
    core = render_core(mem.knowledge.kb, scopes=["global"], now=at)
    assert "2026-03-10" in core and "2026-03-03" not in core and "March" not in core
    mem.close()


def test_other_phrasings_of_a_date_and_its_change(tmp_path: Path) -> None:
    mem = make(tmp_path)
    talk(
        mem,
        "rel-1",
        "2026-04-01T09:00:00",
        "The new ranker goes live on April 20.",
        "Heads up, the ranker launch got bumped to April 27.",
        "Version 2.0 is scheduled for April 15.",
        "Correction, version 2.0 is now April 22.",
    )
    mem.sleep("deep")
    at = ts("2026-04-01T10:00:00")
    due = sorted(f.fact for f in mem.facts(at=at) if f.relation == "has_deadline")
    assert due == [
        "The ranker launch deadline moved to 2026-04-27.",
        "The version 2.0 deadline moved to 2026-04-22.",
    ]
    mem.close()


def test_a_port_belongs_to_the_service_named(tmp_path: Path) -> None:
    mem = make(tmp_path)
    talk(
        mem,
        "svc-1",
        "2026-04-01T09:00:00",
        "The API listens on port 8080.",
        "The inference server listens on 8500 and the metrics exporter on port 9100.",
        "The admin dashboard runs on port 3001.",
    )
    mem.sleep("deep")
    at = ts("2026-04-01T10:00:00")
    # the user listens on nothing; each service keeps its own port (none ends another)
    assert current(mem, at, "listens_on") == [
        ("API", "port 8080"),
        ("admin dashboard", "port 3001"),
        ("inference server", "port 8500"),
        ("metrics exporter", "port 9100"),
    ]
    assert wrong_facts(mem, at) == []
    mem.close()


@pytest.mark.parametrize(
    ("said", "facts"),
    [
        ("接口服务的端口改成 8081 了。", [("接口服务", "listens_on", "port 8081")]),
        ("端口是 8080。", [("user", "listens_on", "port 8080")]),
        ("预发环境的地址是 staging.foo.cn。", [("user", "has_host", "staging.foo.cn")]),
    ],
)
def test_chinese_configuration_of_a_named_service(
    said: str, facts: list[tuple[str, str, str]]
) -> None:
    assert [(s, r, o) for _, _, s, r, o in _read(said)] == facts


def test_a_port_belongs_to_the_service_named_in_chinese(tmp_path: Path) -> None:
    mem = make(tmp_path)
    talk(
        mem,
        "svc-zh",
        "2026-11-30T02:00:00",
        "网关服务跑在 8443 端口，监控服务用 9090 端口。",
        "对账服务监听 9001 端口。",
    )
    mem.sleep("deep")
    at = ts("2026-11-30T03:00:00")
    assert current(mem, at, "listens_on") == [
        ("对账服务", "port 9001"),
        ("监控服务", "port 9090"),
        ("网关服务", "port 8443"),
    ]
    mem.close()


def test_one_fact_said_twice_is_one_memory_with_more_evidence(tmp_path: Path) -> None:
    mem = make(tmp_path)
    talk(
        mem,
        "rep-1",
        "2026-04-01T09:00:00",
        "Correction, the release is now April 21.",
        "Reminder, the release ships on April 21.",
    )
    mem.sleep("deep")
    about = [m for m in mem.memories(include_disabled=False) if "2026-04-21" in m.text]
    assert len(about) == 1
    assert len(mem.evidence(about[0].id)) == 2
    assert duplicate_memories(mem, list(mem.memories(include_disabled=False))) == []
    mem.close()


def test_what_the_team_does_not_use(tmp_path: Path) -> None:
    mem = make(tmp_path)
    talk(
        mem,
        "neg-1",
        "2026-04-01T09:00:00",
        "We use TensorFlow for the models.",
        "We don't use TensorFlow anywhere anymore.",
        "我们不用 Helm，部署清单都是 Kustomize 生成的。",
    )
    mem.sleep("deep")
    at = ts("2026-04-01T10:00:00")
    assert current(mem, at, "avoids") == [("user", "Helm"), ("user", "TensorFlow")]
    assert ("user", "TensorFlow") not in current(mem, at, "uses")
    said = {m.text for m in mem.memories(include_disabled=False)}
    assert {"The team no longer uses TensorFlow.", "团队不用 Helm。"} <= said
    assert not any("dons't" in t for t in said)
    mem.close()


def test_a_later_choice_of_another_tool_of_the_kind_ends_a_preference(tmp_path: Path) -> None:
    # A reviewer's session: "use yarn from now on" left "prefers pnpm" current beside it,
    # and core.md showed both.
    mem = make(tmp_path)
    talk(
        mem,
        "pref-1",
        "2026-04-01T09:00:00",
        "I prefer pnpm over npm for this repo.",
        "I prefer Python for scripting.",
        "Actually, we switched to yarn, please use yarn from now on.",
        "We use Redis for caching.",
    )
    mem.sleep("deep")
    at = ts("2026-04-01T10:00:00")
    assert current(mem, at, "uses") == [("user", "Redis"), ("user", "Yarn")]
    # a preference of another kind stays
    assert [o for _, o in current(mem, at, "prefers")] == ["Python for scripting"]
    assert "pnpm" not in mem.core()
    ended = [f for f in mem.facts(include_history=True) if f.relation == "prefers" and f.valid_to]
    assert [f.fact for f in ended] == ["The user prefers pnpm over npm for this repo."]
    # a switch that names what it replaced ends that only
    talk(
        mem,
        "pref-2",
        "2026-04-02T09:00:00",
        "I prefer Python over Java.",
        "We switched from JavaScript to TypeScript.",
    )
    mem.sleep("light")
    later = ts("2026-04-02T10:00:00")
    assert "Python" in {o for _, o in current(mem, later, "prefers")}
    mem.close()


def test_a_switch_away_from_a_tool_ends_its_version(tmp_path: Path) -> None:
    mem = make(tmp_path)
    talk(
        mem,
        "ver-1",
        "2026-05-11T12:00:00",
        "The storefront is a Vue 2 app.",
        "After a long debate we're going with Nuxt 3 for the rewrite instead of staying on Vue 2.",
    )
    mem.sleep("deep")
    at = ts("2026-05-11T13:00:00")
    assert current(mem, at, "runs_on") == []
    assert ("user", "Nuxt") in current(mem, at, "uses")
    mem.close()


def test_the_scorer_finds_what_the_reviewer_found(tmp_path: Path) -> None:
    """The generic checks of ``ogmem bench knowledge --sessions`` see a date named as a tool,
    a person as the subject of a port and two memories saying one thing."""
    mem = make(tmp_path)
    first = mem.remember("The beta ships on March 3.", type="config")
    second = mem.remember("Beta ships March 3", type="constraint")
    other = mem.remember("The user prefers pnpm.", type="preference")
    dup = duplicate_memories(mem, [first, second, other])
    assert dup == ["The beta ships on March 3. | Beta ships March 3"]
    # what main wrote for "The beta ships on March 3." and "The API listens on port 8080."
    at = ts("2026-02-10T11:00:00")
    prov = Provenance("default", "chk-1", ("n1",), None, at, at)
    batch = mem.knowledge.kb.begin("main's reading")
    for eid, etype, name in (
        ("tool.march", "tool", "March"),
        ("value.port-8080", "value", "port 8080"),
    ):
        batch.put(Entity(eid, etype, name, support=(first.id,)))
    for dst, rel, fact in (
        ("tool.march", "deployed_to", "The beta ships on March 3."),
        ("value.port-8080", "listens_on", "The API listens on port 8080."),
    ):
        batch.put(
            Edge(f"e_{rel}", "person.user", dst, rel, fact, prov, at, at, at, support=(first.id,))
        )
    batch.commit()
    assert wrong_facts(mem, at + 60) == [
        "person.user deployed_to tool.march (a date named as a tool)",
        "person.user listens_on value.port-8080 (a person as the subject of a configuration fact)",
    ]
    mem.close()


def test_old_knowledge_lines_without_a_precision_still_read(tmp_path: Path) -> None:
    from ogmemory.knowledge.models import TimelineEvent, record_from_json

    line = {
        "id": "ev_1",
        "summary": "Caroline moved from Sweden (2019).",
        "kind": "event",
        "provenance": {"project_id": "default", "session_id": "s", "node_ids": ["n"]},
        "event_time": ts("2019-06-09T00:00:00"),
        "ingestion_time": 0.0,
        "attrs": {"date": "2019-06-09", "granularity": "year"},
    }
    ev = record_from_json("event", json.loads(json.dumps(line)))
    assert isinstance(ev, TimelineEvent)
    assert ev.time_precision is None and ev.precision == "year"
    plain: dict[str, Any] = {**line, "attrs": {}}
    assert record_from_json("event", plain).precision == "day"  # type: ignore[union-attr]


def _read(text: str) -> list[tuple[str, str, str | None, str | None, str | None]]:
    """(type, text, subject, relation, object) of what the rules read in one user message."""
    from ogmemory.distill.extractors.rules import RuleExtractor
    from ogmemory.entity.records import Node, NodeRecord

    when = ts("2026-04-01T09:00:00")  # a Wednesday
    node = Node("n1", 1, "user", text, None, when, when)
    out = []
    for c in RuleExtractor().extract([NodeRecord("s1", "default", None, node, "c", 1)]).candidates:
        out.append(
            (
                c.type,
                c.text,
                c.subject.name if c.subject else None,
                c.relation,
                c.object.name if c.object else None,
            )
        )
    return out


@pytest.mark.parametrize(
    ("said", "text"),
    [
        ("Our demo is on Friday.", "The demo is due on 2026-04-03."),
        ("The launch is June 5th.", "The launch is due on 2026-06-05."),
        ("We go live on the 12th of May.", "The go-live is due on 2026-05-12."),
        ("We're shipping v2 on May 30.", "V2 is due on 2026-05-30."),
        ("The release date is May 30.", "The release is due on 2026-05-30."),
        ("Launch moved from May 30 to June 6.", "The launch deadline moved to 2026-06-06."),
        ("Our beta's set for next Wednesday.", "The beta is due on 2026-04-08."),
        # a month is not a day: the text says the month and the day it ends
        ("The migration is due in June.", "The migration is due in June 2026, by 2026-06-30."),
    ],
)
def test_plain_phrasings_of_a_work_date_are_deadlines(said: str, text: str) -> None:
    assert [(t, x, r) for t, x, _, r, _ in _read(said)] == [("constraint", text, "has_deadline")]


def test_a_past_or_social_date_is_no_deadline() -> None:
    for said in ("Our demo was on Friday.", "The concert is on Friday."):
        assert all(r != "has_deadline" for *_, r, _ in _read(said)), said


@pytest.mark.parametrize(
    ("said", "ports"),
    [
        ("Postgres runs on 5433 here, not the default.", [("Postgres", "port 5433")]),
        (
            "The frontend runs on 5173 and the backend on 8000.",
            [("frontend", "port 5173"), ("backend", "port 8000")],
        ),
        ("The app runs on 8080.", [("user", "port 8080")]),  # the team's (the project's)
        ("The API now listens on 9090.", [("API", "port 9090")]),
        ("The job runs on 16 cores.", []),
        ("The cluster runs on 3 nodes.", []),
    ],
)
def test_a_number_after_runs_on_is_a_port_only_when_nothing_is_counted(
    said: str, ports: list[tuple[str, str]]
) -> None:
    from ogmemory.distill.extractors._services import port_facts

    facts = port_facts(said, zh=False)
    got = [(f.subject.name if f.subject else "user", f.object.name) for f in facts]
    assert got == ports


def test_a_rule_and_an_ending_in_plain_words() -> None:
    assert _read("Make sure you run the migrations before you deploy.")[0][1] == (
        "The user's rule: make sure to run the migrations before deploying."
    )
    assert _read("We've stopped using Jenkins.")[0][1:] == (
        "The team no longer uses Jenkins.",
        "user",
        "avoids",
        "Jenkins",
    )
