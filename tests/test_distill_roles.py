"""Developer sessions phrased as people phrase them: colleagues named by what they do, rules
as plain imperatives with a standing scope or "no exceptions", switches said as what happens
from now on, a moved deadline named in other words, what a turn's work achieved, versions of
any named tool. Extractor level on NodeRecords, and end to end through a real tenant (git
sessions, JSONL knowledge files) with ``run_sessions``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest import named_turns
from test_distill_reading import chat, talk, texts

from ogmemory import Memory, Settings
from ogmemory.evaluation.devsessions import run_sessions

T0 = datetime(2026, 9, 7, 9, 0, tzinfo=UTC).timestamp()


# ----------------------------------------------------------------------------- people


@pytest.mark.parametrize(
    ("said", "memory", "relation"),
    [
        ("Marta Silva heads the security team.", "Marta Silva heads the security team.", "owns"),
        ("Olu does design for the mobile app.", "Olu does design for the mobile app.", "owns"),
        ("Jonas handles QA for us.", "Jonas handles QA for the team.", "owns"),
        ("Sam Cole is now the acting team lead.", "Sam Cole is the acting team lead.", None),
        (
            "Lena Fischer has joined as our new backend developer.",
            "Lena Fischer joined the team as a backend developer.",
            None,
        ),
        (
            "Ravi Patel, who leads the platform team, approves all infra changes.",
            "Ravi Patel, who leads the platform team, approves all infra changes.",
            "expects",
        ),
    ],
)
def test_a_colleague_is_read_by_what_they_do(said: str, memory: str, relation: str | None) -> None:
    cands = chat(said)
    assert memory in texts(cands)
    if relation:
        assert relation in {c.relation for c in cands if c.text == memory}


@pytest.mark.parametrize(
    ("said", "memory", "relation"),
    [
        ("Dmitri is acting manager until March.", "Dmitri is the acting manager.", "works_with"),
        ("I report to Hana Kobayashi.", "Hana Kobayashi is the user's manager.", "reports_to"),
        (
            "Priya from product wants a demo every sprint.",
            "Priya from product wants a demo every sprint.",
            "expects",
        ),
        ("测试负责人是李强。", "李强是团队的测试负责人。", "works_with"),
        ("赵磊现在是代理组长。", "赵磊是团队的代理组长。", "works_with"),
        ("新来了一个同事叫陈晨，负责数据平台。", "数据平台由陈晨负责。", "owns"),
    ],
)
def test_a_title_without_an_article_reporting_to_and_a_team_named_by_its_field(
    said: str, memory: str, relation: str
) -> None:
    assert memory in texts(chat(said), relation=relation)


def test_a_chinese_pronoun_after_a_role_first_introduction() -> None:
    cands = chat("测试负责人是李强，他每次发版前都要回归报告。")
    assert [t for t in texts(cands, relation="expects") if t.startswith("李强")]
    assert not [c for c in chat("我的目标是年底上线。") if c.type == "entity"]


def test_he_after_a_named_colleague_is_that_colleague() -> None:
    cands = chat(
        "Kofi Mensah runs the release train, and he wants a changelog in every PR description."
    )
    assert "Kofi Mensah runs the release train." in texts(cands)
    assert "Kofi Mensah wants a changelog in every PR description." in texts(cands)
    cands = chat("Marta Silva heads the security team; she reviews every IAM policy change.")
    assert "Marta Silva reviews every IAM policy change." in texts(cands)
    # a chore is no part of the work
    assert not [c for c in chat("My sister Anna does the dishes.") if c.relation == "owns"]


def test_shes_my_boss_names_the_manager_and_stays_out_of_the_other_memory() -> None:
    cands = chat("Ngozi Adeyemi runs the data team, she's my boss.")
    assert "Ngozi Adeyemi runs the data team." in texts(cands)
    (boss,) = [c for c in cands if c.relation == "reports_to"]
    assert boss.text == "Ngozi Adeyemi is the user's manager."
    assert boss.slot == "manager"
    assert not [t for t in texts(cands) if " my " in t or "she's" in t]


def test_a_name_and_here_opens_an_introduction_and_a_newcomer_signs_off_from_now_on() -> None:
    cands = chat(
        "quick intro: Jonah Brandt here, senior backend dev with Bookly, a startup in Leipzig."
    )
    assert "The user's name is Jonah Brandt." in texts(cands)
    assert "The user is a senior backend dev at Bookly." in texts(cands, relation="works_at")
    cands = chat("Ines Duarte just started as our QA lead, she'll sign off on releases.")
    assert "Ines Duarte joined the team as a QA lead." in texts(cands)
    assert "Ines Duarte will sign off on releases." in texts(cands, relation="expects")
    assert not [c for c in chat("Everyone here is great.") if c.type == "profile"]


# ----------------------------------------------------------------------------- rules


@pytest.mark.parametrize(
    ("said", "rule"),
    [
        ("Please use tabs for indentation in this repo.", "use tabs for indentation in this repo"),
        ("Keep PRs under 400 lines, no exceptions.", "keep PRs under 400 lines"),
        ("Squash commits before merging. No exceptions.", "squash commits before merging"),
        ("Write docstrings for public functions by default.", "write docstrings"),
        ("For the record, in this repo: never skip the hooks.", "never skip the hooks"),
    ],
)
def test_an_imperative_with_a_standing_scope_or_insistence_is_a_rule(said: str, rule: str) -> None:
    (found,) = [c for c in chat(said) if c.type == "rule"]
    assert found.text.startswith(f"The user's rule: {rule}")
    assert "exception" not in found.text.lower()
    assert "for the record" not in found.text.lower()


def test_a_one_off_request_or_a_preference_is_no_rule_but_insisting_makes_one() -> None:
    for said in (
        "Bump the build number please.",
        "Restart the flaky exporter.",
        "Heads up: the build is red.",
        "Personally I like previews more than running the app every time, so keep them.",
    ):
        assert not [c for c in chat(said) if c.type == "rule"], said
    assert [c for c in chat("Restart the flaky exporter. No exceptions.") if c.type == "rule"]


def test_a_chinese_rule_insisted_on_with_no_exception() -> None:
    (found,) = [c for c in chat("所有寄存器操作都封装成函数，没有例外。") if c.type == "rule"]
    assert found.text == "用户的规则：所有寄存器操作都封装成函数。"


@pytest.mark.parametrize(
    ("said", "lesson"),
    [
        (
            "Lesson learned, every pod behind the ingress needs a preStop hook.",
            "Lesson: every pod behind the ingress needs a preStop hook.",
        ),
        ("The moral here - never deploy on a Friday.", "Lesson: never deploy on a Friday."),
    ],
)
def test_a_lesson_after_a_comma_or_a_dash(said: str, lesson: str) -> None:
    cands = chat(said)
    assert texts(cands, kind="learning") == [lesson]
    assert not [c for c in cands if c.type == "rule"]


# ----------------------------------------------------------------------------- switches


def test_what_moves_to_a_tool_from_now_on_is_a_switch_from_what_is_used_today() -> None:
    cands = chat(
        "We page through PagerDuty today, but alerting moves to Grafana OnCall from now on."
    )
    (c,) = [c for c in cands if c.relation == "uses"]
    assert c.object is not None and c.object.name == "Grafana OnCall"
    assert c.replaces is not None and c.replaces.name == "PagerDuty"
    assert c.text == "The team decided to switch from PagerDuty to Grafana OnCall for alerting."
    (c,) = [
        c
        for c in chat("Logging goes to Loki from now on instead of Elasticsearch.")
        if c.relation == "uses"
    ]
    assert c.replaces is not None and c.replaces.name == "Elasticsearch"
    assert c.slot == "logging"


def test_moving_everything_over_to_a_tool_is_a_planned_switch() -> None:
    (c,) = [
        c
        for c in chat("We're still on Webpack, but let's migrate every package to Vite.")
        if c.relation == "uses"
    ]
    assert c.object is not None and c.object.name == "Vite"
    assert c.replaces is not None and c.replaces.name == "Webpack"
    assert "migrate every package over to Vite" in c.text
    moved = chat("And let's port every cron job over to Kubernetes CronJobs.")
    assert any("Kubernetes CronJobs" in t for t in texts(moved, relation="uses"))
    assert not [c for c in chat("We moved all the boxes to the garage.") if c.relation == "uses"]


def test_moving_them_over_is_a_switch_from_what_they_have_been_on() -> None:
    cands = chat(
        "Background jobs have been on Sidekiq for years, but we're moving them to GoodJob."
    )
    (c,) = [c for c in cands if c.relation == "uses"]
    assert c.object is not None and c.object.name == "GoodJob"
    assert c.replaces is not None and c.replaces.name == "Sidekiq"
    assert c.slot == "background jobs"
    assert not [
        c
        for c in chat("I love my old car, but we're moving it to the garage.")
        if c.relation == "uses"
    ]


def test_a_deadline_that_slips_a_week_as_someone_reports_it() -> None:
    (c,) = [c for c in chat("Sara says API v2 slips a week, to September 27.") if c.slot]
    assert c.text == "API v2 deadline moved to 2026-09-27."
    assert c.slot == "deadline:api v2"


def test_a_chinese_switch_after_clauses_of_why_and_a_plain_planned_launch() -> None:
    cands = chat("特征存储一直用的是 Hive 表，查询太慢了，下个月起全部切到 Feast。")
    (c,) = [c for c in cands if c.relation == "uses"]
    assert c.text == "团队打算把特征存储从 Hive 换成 Feast。"
    assert c.replaces is not None and c.replaces.name == "Hive"
    (due,) = [c for c in chat("新版排序模型 9 月 20 日上线。") if c.relation == "has_deadline"]
    assert due.attrs["deadline"] == "2026-09-20"
    assert not [c for c in chat("我们昨天上线了。") if c.relation == "has_deadline"]


def test_what_needs_a_chinese_colleagues_approval() -> None:
    cands = chat("我们组长是马骁，模型上线都要他点头。")
    assert "模型上线要马骁点头。" in texts(cands, relation="expects")
    assert "改表结构要王磊审批。" in texts(chat("改表结构得经过王磊审批。"), relation="expects")


# ----------------------------------------------------------------------------- configuration


@pytest.mark.parametrize(
    ("said", "value", "slot"),
    [
        ("芯片用的是 ESP32-S3，ESP-IDF 版本是 5.2。", "ESP-IDF 5.2", "version:esp-idf"),
        ("The Bazel version is 7.1.", "Bazel 7.1", "version:bazel"),
        ("The wheel is pinned to numpy 1.26 for now.", "numpy 1.26", "version:numpy"),
        ("Production runs Ruby 3.3 and Rails 7.2.", "Rails 7.2", "version:rails"),
        ("训练集群用的是 8 张 A800，框架是 PyTorch 2.3。", "PyTorch 2.3", "version:pytorch"),
    ],
)
def test_a_version_of_any_named_tool(said: str, value: str, slot: str) -> None:
    facts = [(c.object.name, c.slot) for c in chat(said) if c.object is not None]
    facts += [(f.object.name, f.slot) for c in chat(said) for f in c.more]
    assert (value, slot) in facts


# ----------------------------------------------------------------------------- end to end

_SCRIPT = """
name: moved deadlines and work
sessions:
  - id: s-1
    project: infra
    start: "2026-09-07T08:00:00Z"
    turns:
      - user: The canary deploy is failing, take a look.
        tools:
          - run: kubectl rollout status deploy/checkout
            output: "error: deployment exceeded its progress deadline"
            exit: 1
          - edit: k8s/deployment.yaml
            content: "memory: 512Mi\\n"
          - run: kubectl rollout status deploy/checkout
            output: "successfully rolled out"
            exit: 0
        assistant: >-
          The checkout pods were OOMKilled at the 256Mi limit; raising the memory limit to
          512Mi let the rollout finish.
      - user: The cluster upgrade to 1.31 has to be done by September 25.
        assistant: "September 25."
      - user: Restart the flaky exporter please.
        tools:
          - run: kubectl rollout restart deploy/node-exporter
            output: deployment.apps/node-exporter restarted
            exit: 0
        assistant: "Restarted."
  - id: s-2
    project: infra
    start: "2026-09-16T08:00:00Z"
    turns:
      - user: "Heads-up: Dmitri pushed the cluster upgrade back to October 2."
        assistant: "October 2."
  - id: s-3
    project: lock
    start: "2026-09-16T09:00:00Z"
    turns:
      - user: 量产固件要在 10 月 10 日前交给工厂。
        assistant: 好的。
      - user: 林芳说工厂那边排期紧，交付时间改到 10 月 20 日了。
        assistant: 好的。
gold:
  - {id: upgrade, terms: ["2026-10-02"], facts: true}
  - {id: delivery, terms: ["2026-10-20"], facts: true}
  - {id: remedy, terms: [OOMKilled, 512Mi]}
  - {id: restart, terms: [Restarted the flaky exporter]}
stale:
  - {id: old upgrade, object: "2026-09-25"}
  - {id: old delivery, object: "2026-10-10"}
"""


def test_a_moved_deadline_named_in_other_words_ends_the_old_one(tmp_path: Path) -> None:
    script = tmp_path / "script.yaml"
    script.write_text(_SCRIPT, encoding="utf-8")
    (score,) = run_sessions([script])
    assert score.missed == []
    assert score.stale == []
    assert score.wrong == [] and score.junk == []
    assert "Restarted." not in [line.split("] ", 1)[1] for line in score.listing]


# ----------------------------------------------------------------------------- core.md


def test_how_two_friends_stand_to_each_other_is_no_line_of_who(tmp_path: Path) -> None:
    mem = Memory(settings=Settings(home=tmp_path / "h", distill_on_turn=False, embedder=None))
    turns = [
        ("Jon", "I lost my job, so I'm starting my own dance studio."),
        ("Gina", "Keep going, you got this! My sister Ana runs a studio in Lisbon."),
        ("Jon", "Thanks for believing in me, it means a lot."),
    ]
    named_turns(mem, "s1", turns, T0)
    mem.sleep("light")
    assert not mem.facts(relation="encourages")  # no fact either
    core = mem.core()
    who = core.split("[Who]", 1)[1].split("[", 1)[0] if "[Who]" in core else ""
    assert "Ana" in who
    assert "encourages" not in core and "grateful" not in core
    mem.close()


# ----------------------------------------------------------------------------- who "we" is


def test_we_is_the_group_the_message_names_and_both_is_not_the_two_speakers() -> None:
    cands = talk(
        ("Caroline", "How was your weekend?"),
        (
            "Melanie",
            "Thanks, Caroline! We both helped with the painting - it was great bonding. "
            "We found these lovely flowers.",
        ),
        (
            "Caroline",
            "Our group, 'Connected LGBTQ Activists', is made of all kinds of people. We have "
            "regular meetings and plan events to support each other.",
        ),
        ("Melanie", "We finally met up last week, it was great to catch up with you."),
    )
    said = texts(cands)
    assert not [t for t in said if "Melanie and Caroline" in t and "met up" not in t]
    assert not [t for t in said if "Caroline and Melanie" in t]
    assert any(t.startswith("Caroline's group have regular meetings") for t in said)
    assert any(t.startswith("Melanie and Caroline finally met up") for t in said)


def test_a_preferences_object_is_in_the_third_person_as_its_memory_is() -> None:
    cands = talk(
        ("Caroline", "What do you love?"), ("Melanie", "I love camping trips with my fam.")
    )
    (pref,) = [c for c in cands if c.relation == "prefers"]
    assert pref.object is not None and pref.object.name == "camping trips with Melanie's fam"
    (mine,) = [c for c in chat("I love my old car.") if c.relation == "prefers"]
    assert mine.object is not None and mine.object.name == "the user's old car"
