"""What distillation keeps from developer sessions, end to end with the default rules: real
sessions in git, a real bound project, the JSONL knowledge files, core.md.

Identity, people, rules, choices with specific slots, configuration, deadlines, lessons, work
events, scopes, out-of-order facts and repeated decisions, in English and Chinese.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from conftest import fsck, make_project

from ogmemory import Memory, Settings


def ts(day: str) -> float:
    return datetime.fromisoformat(day).replace(tzinfo=UTC).timestamp()


def make(tmp_path: Path) -> Memory:
    return Memory(
        settings=Settings(
            home=tmp_path / "home", distill_on_turn=False, embedder=None, index_worker=False
        )
    )


def talk(mem: Memory, sid: str, day: str, *texts: str, reply: str = "Noted.", **kw: Any) -> None:
    """One turn per user text, a minute apart, each answered by the assistant."""
    when = ts(day)
    for i, text in enumerate(texts):
        mem.append_message(
            sid, {"role": "user", "content": text, "event_time": when + 60 * i}, **kw
        )
        mem.append_message(
            sid, {"role": "assistant", "content": reply, "event_time": when + 60 * i + 1}
        )
        mem.commit_turn(sid)


def facts(mem: Memory, at: float | None = None, **kw: Any) -> list[str]:
    return sorted(e.fact for e in mem.facts(at=at, **kw))


def texts(mem: Memory) -> list[str]:
    return [m.text for m in mem.memories(include_disabled=False)]


# ---------------------------------------------------------------------------- who


def test_identity_people_and_expectations_in_english(tmp_path: Path) -> None:
    mem = make(tmp_path)
    talk(
        mem,
        "s1",
        "2026-03-02",
        "Hi! I'm Dana Whitfield, I'm the backend lead at Corvid Labs. I live in Lisbon.",
        "Priya Raman is our product owner and she expects a status report every Friday. "
        "My manager is Tom Becker.",
    )
    talk(mem, "s1", "2026-03-12", "Also, I moved from Lisbon to Berlin last month.")
    mem.sleep("light")
    memories = texts(mem)
    assert "The user's name is Dana Whitfield." in memories
    assert "Priya Raman expects a status report every Friday." in memories
    now = {(e.relation, mem.entity(e.dst).name) for e in mem.facts()}
    assert {
        ("works_at", "Corvid Labs"),
        ("has_role", "backend lead"),
        ("reports_to", "Tom Becker"),
        ("lives_in", "Berlin"),
    } <= now
    assert ("lives_in", "Lisbon") not in now  # the move ended it; history keeps it
    lisbon = next(e for e in mem.facts(include_history=True) if mem.entity(e.dst).name == "Lisbon")
    assert lisbon.valid_to is not None and lisbon.superseded_by is not None
    assert mem.entity("Dana Whitfield").id == mem.entity("user").id  # the name is an alias
    priya = mem.entity("Priya Raman")
    assert any(e.relation == "has_role" for e in mem.facts(entity=priya.id))
    assert not any("Noted" in t for t in memories)  # the assistant's echo is no memory


def test_identity_people_and_expectations_in_chinese(tmp_path: Path) -> None:
    mem = make(tmp_path)
    talk(
        mem,
        "s1",
        "2026-04-01",
        "你好，我叫李雷，在星河科技做前端负责人。",
        "我们的产品经理是王芳，她每周五要看周报。我的直属领导是陈刚。",
        reply="好的，记下了。",
    )
    talk(mem, "s1", "2026-04-08", "我上个月从上海搬到杭州了。", reply="好的。")
    mem.sleep("light")
    memories = texts(mem)
    assert "用户叫李雷。" in memories and "王芳每周五要看周报。" in memories
    assert all(m.language == "zh" for m in mem.memories())
    now = {(e.relation, mem.entity(e.dst).name) for e in mem.facts()}
    assert {("works_at", "星河科技"), ("reports_to", "陈刚"), ("lives_in", "杭州")} <= now
    assert ("lives_in", "上海") not in now
    assert not any("记下" in t for t in memories)


# ---------------------------------------------------------------------------- rules, choices


def test_rules_choices_and_refusals_with_specific_slots(tmp_path: Path) -> None:
    mem = make(tmp_path)
    talk(
        mem,
        "s1",
        "2026-03-02",
        "Let's use MySQL for the database for now.",
        "For caching, we'll go with Redis.",
        "Always run ruff before you commit anything. And never push directly to main.",
    )
    talk(
        mem,
        "s1",
        "2026-03-05",
        "Actually, let's switch from MySQL to PostgreSQL.",
        "I prefer pnpm over npm. And please don't use Redux, it's way too much boilerplate.",
    )
    mem.sleep("light")
    now = {(e.relation, mem.entity(e.dst).name, e.slot) for e in mem.facts()}
    # the cache choice never ended the database decision, and the switch did
    assert ("uses", "PostgreSQL", "database") in now and ("uses", "Redis", "cache") in now
    assert not any(name == "MySQL" for _, name, _ in now)
    assert ("avoids", "Redux", None) in now and ("prefers", "pnpm", "package_manager") in now
    rules = sorted(m.text for m in mem.memories(type="rule"))
    assert rules == [
        "The user's rule: always run ruff before committing anything.",
        "The user's rule: never push directly to main.",
    ]


def test_chinese_choices_pivot_and_rules(tmp_path: Path) -> None:
    mem = make(tmp_path)
    talk(
        mem,
        "s1",
        "2026-04-01",
        "我们之前做 B 端 SaaS，最近转向 C 端了。",
        "不要用 Redux，状态管理用 Zustand 就行。",
        "提交代码之前一定要先跑 lint，千万不要直接推到 main 分支。",
        reply="好的。",
    )
    talk(mem, "s1", "2026-04-03", "包管理器我们改用 pnpm 了，不用 npm 了。", reply="好的。")
    mem.sleep("light")
    now = {(e.relation, mem.entity(e.dst).name, e.slot) for e in mem.facts()}
    assert ("focuses_on", "C 端", "business_focus") in now
    assert ("uses", "Zustand", "state_management") in now and ("avoids", "Redux", None) in now
    assert ("uses", "pnpm", "package_manager") in now
    assert not any(name in ("npm", "B 端 SaaS") for _, name, _ in now)
    assert any(m.text.startswith("用户的规则：提交代码之前") for m in mem.memories(type="rule"))


def test_configuration_facts_each_fill_their_own_slot(tmp_path: Path) -> None:
    mem = make(tmp_path)
    talk(
        mem,
        "s1",
        "2026-03-02",
        "The service listens on port 8080 and we're on Python 3.12.",
        "Everything is deployed to the eu-west-1 region.",
        "开发服务器跑在 3000 端口，Node 版本是 20。",
        "The config file is at /etc/billing/app.yaml.",
    )
    mem.sleep("light")
    slots = {
        e.slot: mem.entity(e.dst).name
        for e in mem.facts(relation=None)
        if e.slot and e.slot[0] in "prv"
    }
    assert slots["path:config file"] == "/etc/billing/app.yaml"
    assert slots["version:python"] == "Python 3.12" and slots["region"] == "eu-west-1"
    assert slots["version:node"] == "Node 20"
    assert slots["port"] == "port 3000"  # the later statement holds; 8080 is history
    assert "The service listens on port 8080 and the team is on Python 3.12." in texts(mem)


# ---------------------------------------------------------------------------- deadlines


def test_deadlines_stay_current_until_changed_and_a_change_supersedes(tmp_path: Path) -> None:
    mem = make(tmp_path)
    talk(mem, "s1", "2026-03-02", "The beta is due on March 20.")
    talk(
        mem,
        "s1",
        "2026-03-12",
        "Bad news: the beta deadline moved to March 27.",
        "Release 1.0 has to be in the Play Store by June 30.",
    )
    mem.sleep("deep")
    march = ts("2026-03-13")
    due = {e.slot: e.fact for e in mem.facts(at=march) if e.relation == "has_deadline"}
    assert due == {
        "deadline:beta": "The beta deadline moved to 2026-03-27.",
        "deadline:1.0": "Release 1.0 is due on 2026-06-30.",
    }
    old = next(e for e in mem.facts(include_history=True) if "2026-03-20" in e.fact)
    assert old.valid_to == ts("2026-03-12") and old.superseded_by is not None
    # facts() keeps an upcoming deadline current (nothing expires it at its date)
    assert any("2026-03-27" in e.fact for e in mem.facts())
    core = mem.distillation.distiller.project_all(scopes=["global"])
    assert "[Upcoming deadlines]" not in core  # the clock is past them: nothing upcoming
    from ogmemory.knowledge.views import render_core

    then = render_core(mem.knowledge.kb, now=march)
    upcoming = then.split("[Upcoming deadlines]")[1].split("[")[0]
    assert "2026-03-27" in upcoming and "2026-06-30" in upcoming and "2026-03-20" not in then


def test_chinese_deadline_change(tmp_path: Path) -> None:
    mem = make(tmp_path)
    talk(mem, "s1", "2026-07-01", "季度报表要在 7 月 20 日之前交。", reply="好的。")
    talk(mem, "s1", "2026-07-13", "季度报表的截止时间延到 7 月 31 日了。", reply="收到。")
    mem.sleep("light")
    due = [e.fact for e in mem.facts(at=ts("2026-07-14")) if e.relation == "has_deadline"]
    assert due == ["季度报表改到了 2026-07-31。"]


# ---------------------------------------------------------------------------- reconciliation


def test_out_of_order_facts_the_later_one_wins(tmp_path: Path) -> None:
    mem = make(tmp_path)
    talk(mem, "later", "2026-05-20", "We rewrote the API in Go last week.")
    mem.sleep("light")  # the later session is distilled first
    talk(mem, "earlier", "2026-05-04", "The API is written in Python with FastAPI.")
    mem.sleep("light")
    now = {mem.entity(e.dst).name for e in mem.facts() if e.slot == "language"}
    assert now == {"Go"}
    python = next(e for e in mem.facts(include_history=True) if mem.entity(e.dst).name == "Python")
    go = next(e for e in mem.facts() if mem.entity(e.dst).name == "Go")
    assert python.valid_from == ts("2026-05-04") and python.valid_to == go.valid_from
    assert python.superseded_by == go.id
    assert {
        mem.entity(e.dst).name for e in mem.facts(at=ts("2026-05-06")) if e.slot == "language"
    } == {"Python"}
    assert "FastAPI" in {mem.entity(e.dst).name for e in mem.facts()}  # another slot


def test_repeated_decision_is_one_event_with_more_evidence(tmp_path: Path) -> None:
    mem = make(tmp_path)
    talk(mem, "s1", "2026-03-02", "Let's use PostgreSQL for the database.")
    talk(mem, "s2", "2026-03-09", "We'll go with PostgreSQL for the database.")
    mem.sleep("light")
    events = mem.timeline(kind="decision")
    assert len(events) == 1 and len(events[0].support) == 1
    history = mem.timeline(kind="decision", include_superseded=True)
    assert len(history) == 2 and history[0].superseded_by == events[0].id
    (edge,) = [e for e in mem.facts() if e.relation == "uses"]
    assert len(mem.evidence(edge.support[0])) == 2


def test_a_manual_memory_and_a_later_conversation_leave_one_current_value(tmp_path: Path) -> None:
    mem = make(tmp_path)
    mem.remember("We use MySQL for the database.", type="decision")
    talk(mem, "s1", "2026-12-01", "Actually, let's switch from MySQL to PostgreSQL.")
    mem.sleep("light")
    now = [mem.entity(e.dst).name for e in mem.facts() if e.slot == "database"]
    assert now == ["PostgreSQL"]


# ---------------------------------------------------------------------------- work, lessons


def test_one_work_event_per_turn_says_what_was_achieved(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    mem = make(tmp_path)
    mem.append_message(
        "s1", {"role": "user", "content": "Please run the test suite."}, project=project
    )
    mem.append_message(
        "s1",
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "bash", "arguments": json.dumps({"command": "pytest -q"})},
                }
            ],
        },
    )
    mem.append_message(
        "s1",
        {
            "role": "tool",
            "tool_call_id": "c1",
            "content": "1 failed, 47 passed\nImportError: numpy 2 removed",
            "metadata": {"exit_code": 1},
        },
    )
    (project / "requirements.txt").write_text("numpy<2\n")
    mem.append_message(
        "s1",
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c2",
                    "type": "function",
                    "function": {
                        "name": "write_file",
                        "arguments": json.dumps({"path": "requirements.txt"}),
                    },
                },
                {
                    "id": "c3",
                    "type": "function",
                    "function": {"name": "bash", "arguments": json.dumps({"command": "pytest -q"})},
                },
            ],
        },
    )
    mem.append_message("s1", {"role": "tool", "tool_call_id": "c2", "content": "ok"})
    mem.append_message(
        "s1",
        {
            "role": "tool",
            "tool_call_id": "c3",
            "content": "48 passed",
            "metadata": {"exit_code": 0},
        },
    )
    mem.append_message(
        "s1",
        {
            "role": "assistant",
            "content": "The tax test failed because numpy 2 removed np.float_. "
            "I pinned numpy below 2 in requirements.txt and the suite "
            "passes now.",
        },
    )
    result = mem.commit_turn("s1", model="tiny")
    assert result.project_commit
    mem.sleep("deep")
    (work,) = [e for e in mem.timeline(kind="work") if e.provenance.session_id == "s1"]
    assert work.summary == (
        "The tax test failed because numpy 2 removed np.float_. Pinned "
        "numpy below 2 in requirements.txt and the suite passes now."
    )
    assert work.attrs["commands"] == ["pytest -q"] and work.attrs["files"] == ["requirements.txt"]
    assert work.attrs["fixed"][0]["command"] == "pytest -q"
    assert work.attrs["project_commit"] == result.project_commit  # the agent's commit joined
    # one memory for the turn's work, not one per command; the user's own commit is history
    assert {m.text for m in mem.memories()} == {
        "The user's own commits to proj (its history on the timeline).",
        work.summary,
    }
    (history,) = [e for e in mem.timeline(kind="work") if e.provenance.session_id == ""]
    assert history.summary == "Committed to proj: user: initial commit (README.md, app.py)"
    pid = mem.list_projects()[0].project_id
    core = mem.core(scope=f"project:{pid}")
    assert "Pinned numpy below 2" in core and "`" not in core and "[agent" not in core
    fsck(project)


def test_an_explanation_the_user_asked_for_becomes_a_lesson(tmp_path: Path) -> None:
    mem = make(tmp_path)
    talk(
        mem,
        "s1",
        "2026-03-05",
        "Why did the migration fail yesterday?",
        reply="The migration failed because the invoices table still had a foreign key to "
        "customers. Dropping the constraint first fixes it.",
    )
    talk(mem, "s1", "2026-03-05T00:05", "So the lesson is to drop foreign keys before the tables.")
    mem.sleep("light")
    learned = [e.summary for e in mem.timeline(kind="learning")]
    assert learned == [
        (
            "The migration failed because the invoices table still had a foreign key to "
            "customers. Dropping the constraint first fixes it."
        ),
        "Lesson: drop foreign keys before the tables.",
    ]
    question, answer = mem.get_nodes("s1")[0:2]
    (explained,) = [m for m in mem.memories() if m.text.startswith("The migration")]
    prov = mem.evidence(explained.id)[0].provenance
    assert prov is not None and set(prov.node_ids) == {question.id, answer.id}


# ---------------------------------------------------------------------------- scopes


def test_scopes_project_agent_and_global(tmp_path: Path) -> None:
    project = make_project(tmp_path, "billing")
    mem = make(tmp_path)
    talk(mem, "p1", "2026-03-02", "Let's use PostgreSQL for the database.", project=project)
    talk(
        mem,
        "r1",
        "2026-03-02",
        "When you review, flag any function longer than 50 lines.",
        agent_id="reviewer",
    )
    talk(mem, "c1", "2026-03-02", "I prefer dark themes in every editor.")
    mem.sleep("deep")
    pid = mem.list_projects()[0].project_id
    by_scope = {m.scope: m.text for m in mem.memories()}
    assert set(by_scope) == {f"project:{pid}", "agent:reviewer", "global"}
    # the project is an entity and its decisions hang off it
    billing = mem.entity("billing")
    assert billing.type == "project"
    assert [mem.entity(e.dst).name for e in mem.facts(entity=billing.id)] == ["PostgreSQL"]
    assert facts(mem, scope="global") == ["The user prefers dark themes in every editor."]
    core = mem.core()  # the stored core.md is the global one
    assert "dark themes" in core and "50 lines" not in core and "PostgreSQL" not in core
    project_core = mem.core(scope=f"project:{pid}")
    assert "PostgreSQL" in project_core and "project: billing" in project_core
    agent_core = mem.core(scope="agent:reviewer")
    assert "50 lines" in agent_core and "PostgreSQL" not in agent_core
    assert all(e.scope == "global" for e in mem.timeline(scope="global"))
