"""Developer sessions in phrasings no script of the tuning sets uses: a title before a name
("Prof. X", "Dr. X"), a particle inside a surname ("van Dijk"), a self-introduction whose role
names a team or group before the employer, "she's the one who ...", "he insists that ...".
Extractor level on NodeRecords, and end to end through a real tenant (git sessions, JSONL
knowledge files) with ``run_sessions`` over the round's development scripts.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_distill_reading import chat, texts

from ogmemory.evaluation.devsessions import run_sessions

DEV3 = Path(__file__).resolve().parent.parent / "bench" / "sessions" / "dev3"


# ----------------------------------------------------------------------------- people


@pytest.mark.parametrize(
    ("said", "memory"),
    [
        ("My advisor is Dr. Wen Tan.", "Wen Tan is the user's advisor."),
        ("Our mentor is Prof. Ines Duarte.", "Ines Duarte is the team's mentor."),
        (
            "Pieter van Dijk has joined as our second data engineer.",
            "Pieter van Dijk joined the team as a data engineer.",
        ),
    ],
)
def test_a_title_or_a_particle_is_read_with_the_name(said: str, memory: str) -> None:
    assert memory in texts(chat(said))


@pytest.mark.parametrize(
    ("said", "memory"),
    [
        (
            "I'm Tomás Ferreira, senior data engineer on the analytics platform team at"
            " Brightline Freight.",
            "The user is a senior data engineer at Brightline Freight.",
        ),
        (
            "I'm Amara Okafor, a third-year PhD student in the Vision and Language group at"
            " Eindhoven University.",
            "The user is a third-year PhD student at Eindhoven University.",
        ),
    ],
)
def test_a_self_introduction_names_a_team_before_the_employer(said: str, memory: str) -> None:
    assert memory in texts(chat(said), relation="works_at")


@pytest.mark.parametrize(
    ("said", "memory"),
    [
        (
            "Ingrid heads analytics and she's the one who signs off on any schema change.",
            "Ingrid signs off on any schema change.",
        ),
        (
            "Sam Okafor is my team lead, and he insists that every incident gets a postmortem.",
            "Sam Okafor insists that every incident gets a postmortem.",
        ),
        (
            "Ingrid Halvorsen expects a quality summary from me every Monday.",
            "Ingrid Halvorsen expects a quality summary from the user every Monday.",
        ),
    ],
)
def test_what_a_colleague_expects_in_more_phrasings(said: str, memory: str) -> None:
    assert memory in texts(chat(said), relation="expects")


# ----------------------------------------------------------------------------- end to end


def test_the_development_scripts_of_the_round_hold_end_to_end() -> None:
    scores = run_sessions(sorted(DEV3.glob("*.yaml")))
    for score in scores:
        assert score.missed == [], score.name
        assert score.stale == [] and score.wrong == [] and score.junk == [], score.name


# ----------------------------------------------------------------------------- rules


@pytest.mark.parametrize(
    ("said", "rule"),
    [
        (
            "One thing that's non-negotiable here: every experiment gets a fixed seed.",
            "The user's rule: every experiment gets a fixed seed.",
        ),
        (
            "Each firmware image goes through the test rig before release.",
            "The user's rule: each firmware image goes through the test rig before release.",
        ),
        (
            "Every PR is reviewed by two people.",
            "The user's rule: every PR is reviewed by two people.",
        ),
    ],
)
def test_what_every_instance_of_a_thing_gets_is_a_rule(said: str, rule: str) -> None:
    assert rule in texts(chat(said), type="rule")


@pytest.mark.parametrize(
    "said",
    [
        "Every day gets a bit easier.",
        "Every time it gets better.",
        "Right now orchestration is all Airflow, but we're retiring it.",
    ],
)
def test_a_statement_about_every_day_or_right_now_is_no_rule(said: str) -> None:
    assert texts(chat(said), type="rule") == []


# ----------------------------------------------------------------------------- switches


@pytest.mark.parametrize(
    ("said", "tool", "left"),
    [
        (
            "We've been shipping metrics to Datadog, but the bill got silly, so we're swapping"
            " it out for Grafana Cloud.",
            "Grafana Cloud",
            "Datadog",
        ),
        (
            "Crash reports have gone to Sentry for years, but we're swapping it out for GlitchTip.",
            "GlitchTip",
            "Sentry",
        ),
        (
            "We've logged runs to TensorBoard so far, but let's do all the tracking in W&B going"
            " forward.",
            "W&B",
            "TensorBoard",
        ),
        ("New DAGs get written for Dagster from here on.", "Dagster", None),
        ("New jobs get run on Nomad from now on.", "Nomad", None),
    ],
)
def test_a_switch_said_as_a_swap_or_as_where_new_work_goes(
    said: str, tool: str, left: str | None
) -> None:
    (c,) = [c for c in chat(said) if c.relation == "uses"]
    assert c.object is not None and c.object.name == tool
    assert (c.replaces.name if c.replaces else None) == left
    assert "get" not in (c.slot or "")


def test_happier_with_one_tool_than_another_is_a_preference() -> None:
    said = "Honestly I'm much happier with Hydra configs than with argparse flags."
    assert "The user prefers Hydra configs over argparse flags." in texts(
        chat(said), relation="prefers"
    )


# ----------------------------------------------------------------------------- Chinese


@pytest.mark.parametrize(
    ("said", "memory"),
    [
        ("产品经理是王磊。运维那边找孙丽。", "运维那边找孙丽。"),
        ("另外孙悦调去基础架构组了，以后运维审批找周涛。", "运维审批找周涛。"),
        (
            "iOS 那边新来了一个同事叫何嘉伟，推送相关的功能以后归他负责。",
            "推送相关的功能由何嘉伟负责。",
        ),
    ],
)
def test_who_to_go_to_for_a_part_of_the_work(said: str, memory: str) -> None:
    assert memory in texts(chat(said), relation="owns")


@pytest.mark.parametrize("said", ["产品经理是王磊。你去找他吧。", "我明天要找她。"])
def test_a_request_to_go_to_someone_is_no_ownership(said: str) -> None:
    assert texts(chat(said), relation="owns") == []


def test_a_chinese_cloud_region_a_named_environment_and_the_team_in_use() -> None:
    cands = chat(
        "服务部署在阿里云华北 2，测试环境是 api-test.example.cn。",
        "好的。",
        "我们现在用的是 Flutter 3.24。",
    )
    facts = {(c.relation, c.object.name) for c in cands if c.object is not None}
    facts |= {(f.relation, f.object.name) for c in cands for f in c.more}
    assert ("deployed_in", "阿里云华北 2") in facts
    assert ("has_host", "api-test.example.cn") in facts
    assert "团队现在用的是 Flutter 3.24。" in texts(cands)


def test_a_chinese_switch_of_tools_is_one_switch_not_a_decision_naming_both() -> None:
    cands = chat("消息队列我们决定从 RabbitMQ 迁到 Kafka，吞吐量不够了。")
    assert not [c for c in cands if c.relation == "decided"]
    (c,) = [c for c in cands if c.relation == "uses"]
    assert c.replaces is not None and c.replaces.name == "RabbitMQ" and c.slot == "queue"


@pytest.mark.parametrize(
    ("said", "memory"),
    [
        (
            "我女儿下个月上小学了，所以我打算从杭州搬到苏州。",
            "用户要从杭州搬到苏州（2026年6月），因为用户的女儿下个月上小学了。",
        ),
        ("我上个月从上海搬到了杭州。", "用户从上海搬到了杭州（2026年4月）。"),
    ],
)
def test_a_chinese_move_keeps_its_reason_and_its_place(said: str, memory: str) -> None:
    assert memory in texts(chat(said), relation="lives_in")


# ----------------------------------------------------------------------------- identity, work


@pytest.mark.parametrize(
    ("said", "memory", "relation"),
    [
        ("I'm Sofia, I do iOS at PawPal.", "The user does iOS at PawPal.", "works_at"),
        ("Mostly remote, from Edinburgh.", "The user lives in Edinburgh.", "lives_in"),
        ("I'm moving from Leeds to York in October.", "The user lives in Leeds.", "lives_in"),
    ],
)
def test_a_field_of_work_remote_from_a_place_and_where_one_lives_until_a_move(
    said: str, memory: str, relation: str
) -> None:
    assert memory in texts(chat(said), relation=relation)


def test_a_work_summary_whose_remedy_points_back_keeps_what_was_found(tmp_path: Path) -> None:
    script = tmp_path / "work.yaml"
    script.write_text(_WORK_SCRIPT, encoding="utf-8")
    (score,) = run_sessions([script])
    assert score.missed == [], score.listing
    assert not [line for line in score.listing if "运行了" in line]


_WORK_SCRIPT = """
name: work summaries
sessions:
  - id: w-1
    project: shop
    start: "2026-09-01T09:00:00Z"
    turns:
      - user: Can you build the orders model?
        tools:
          - run: dbt run --select orders
            output: "Database Error in model orders: column \\"placed_at\\" does not exist"
            exit: 1
          - edit: models/orders.sql
            content: "select created_ts as placed_at from raw.orders"
          - run: dbt run --select orders
            output: "Done. PASS=1"
            exit: 0
        assistant: >-
          The model selected placed_at, but the raw table names it created_ts. I aliased it in
          the model and it builds now.
      - user: 帮我跑一下测试。
        tools:
          - run: npm test
            output: "Tests: 40 passed"
            exit: 0
        assistant: 40 个测试全部通过。
gold:
  - id: what was found
    terms: [created_ts, aliased]
  - id: what the run showed
    terms: [40 个测试]
"""


# ----------------------------------------------------------------------------- more phrasings


@pytest.mark.parametrize(
    ("said", "memory", "relation"),
    [
        (
            "Hey there, Marcus Oyelaran here, I'm a platform engineer with Cobalt Health.",
            "The user's name is Marcus Oyelaran.",
            None,
        ),
        (
            "Diego handles our release process, so ping him before tagging anything.",
            "Diego handles the team's release process.",
            "owns",
        ),
        (
            "Priya Nair from the security team must approve any change to the IAM policies.",
            "Priya Nair from the security team must approve any change to the IAM policies.",
            "expects",
        ),
    ],
)
def test_a_greeting_before_a_name_a_colleague_by_one_name_and_a_must(
    said: str, memory: str, relation: str | None
) -> None:
    assert memory in texts(chat(said), relation=relation)


def test_a_colleague_who_will_review_every_change_is_no_rule_of_the_user() -> None:
    assert texts(chat("Marta will review every schema change."), type="rule") == []


@pytest.mark.parametrize(
    ("said", "tool", "left"),
    [
        (
            "We're ditching Mongo and going with Postgres for the patient records service.",
            "PostgreSQL",
            "MongoDB",
        ),
        ("We dropped Jenkins and moved to Buildkite last month.", "Buildkite", "Jenkins"),
        (
            "We're retiring rosbag1 tooling and moving to MCAP for all new recordings.",
            "MCAP",
            "rosbag1",
        ),
    ],
)
def test_dropping_one_tool_and_going_with_another_is_a_switch(
    said: str, tool: str, left: str
) -> None:
    (c,) = [c for c in chat(said) if c.relation == "uses"]
    assert c.object is not None and c.object.name == tool
    assert c.replaces is not None and c.replaces.name == left


def test_dropping_the_kids_and_going_to_a_city_is_no_switch() -> None:
    said = "We dropped the kids at school and went to Paris for the weekend."
    assert [c for c in chat(said) if c.relation == "uses"] == []


@pytest.mark.parametrize(
    ("said", "memory"),
    [
        (
            "The deploy hung because the readiness probe was missing.",
            "The deploy hung because the readiness probe was missing.",
        ),
        (
            "The reason the deploy hung was a missing readiness probe; adding one fixed it.",
            "The reason the deploy hung was a missing readiness probe.",
        ),
        (
            "Our nightly export kept timing out because the query had no index.",
            "The user's nightly export kept timing out because the query had no index.",
        ),
        (
            "查了一下，瓦片接口超时是因为缓存键里没带缩放级别。",
            "瓦片接口超时是因为缓存键里没带缩放级别。",
        ),
    ],
)
def test_a_cause_the_user_found_is_a_learning(said: str, memory: str) -> None:
    assert memory in texts(chat(said), kind="learning")


@pytest.mark.parametrize(
    "said", ["I was late because of traffic.", "The reason I left was the commute."]
)
def test_a_reason_of_daily_life_is_no_learning(said: str) -> None:
    assert texts(chat(said), kind="learning") == []


# ----------------------------------------------------------------------------- Chinese, more


def test_a_chinese_deadline_named_by_the_clause_before_and_its_change(tmp_path: Path) -> None:
    script = tmp_path / "due.yaml"
    script.write_text(_DUE_SCRIPT, encoding="utf-8")
    (score,) = run_sessions([script])
    assert score.missed == [] and score.stale == [], (score.listing, score.facts)


_DUE_SCRIPT = """
name: 截止日期
sessions:
  - id: d-1
    project: waybill
    start: "2026-10-20T02:00:00Z"
    turns:
      - user: 双十一之前要把运单查询接口的性能优化完，截止日期是 11 月 8 日。
        assistant: 好的。
      - user: 运单查询优化的时间往后推到 11 月 15 日了。
        assistant: 好的。
gold:
  - id: 新截止
    terms: ["2026-11-15"]
    facts: true
stale:
  - id: 旧截止
    object: "2026-11-08"
"""


@pytest.mark.parametrize(
    ("said", "memory", "relation"),
    [
        (
            "我是方志远，目前在蓝鲸物流当 Java 架构师，常驻深圳。",
            "用户在蓝鲸物流担任 Java 架构师。",
            "works_at",
        ),
        ("定时任务从 Quartz 换成了 XXL-JOB。", "团队的定时任务从 Quartz 换成了 XXL-JOB。", "uses"),
        (
            "运单查询慢的原因是没有走索引，加了联合索引之后快多了。",
            "运单查询慢的原因是没有走索引，加了联合索引之后快多了。",
            None,
        ),
    ],
)
def test_a_chinese_title_with_a_latin_word_a_switch_in_the_past_and_a_slow_query(
    said: str, memory: str, relation: str | None
) -> None:
    assert memory in texts(chat(said), relation=relation)


def test_moving_to_a_named_framework_is_a_switch_not_a_business_pivot() -> None:
    cands = chat("我们原来用的是 Dubbo，现在准备全面转到 Spring Cloud。")
    assert not [c for c in cands if c.relation == "focuses_on"]
    (c,) = [c for c in cands if c.relation == "uses"]
    assert c.replaces is not None and c.replaces.name == "Dubbo"
    assert [c for c in chat("我们最近转向 C 端了。") if c.relation == "focuses_on"]


@pytest.mark.parametrize("said", ["我今天很慢是因为没睡好。", "我在星河科技当后端组长。"])
def test_a_personal_reason_is_no_learning_and_a_job_is_no_home(said: str) -> None:
    cands = chat(said)
    assert texts(cands, kind="learning") == [] and texts(cands, relation="lives_in") == []


# ----------------------------------------------------------------------------- English, more


@pytest.mark.parametrize(
    ("said", "memory"),
    [
        (
            "quick intro before we start - name's Lena Vogt, I'm the lead data scientist.",
            "The user's name is Lena Vogt.",
        ),
        ("my boss is Tobias Kern, he's the VP of data.", "Tobias Kern is the user's manager."),
        (
            "Ana Costa is on my team as an ML engineer; she owns the feature store.",
            "Ana Costa is an ML engineer.",
        ),
        (
            "Ana Costa is on my team as an ML engineer; she owns the feature store.",
            "Ana Costa owns the feature store.",
        ),
        (
            "we also agreed that every dataset gets a datasheet.",
            "The user's rule: every dataset gets a datasheet.",
        ),
    ],
)
def test_a_name_after_a_dash_a_boss_a_teammate_and_an_agreed_rule(said: str, memory: str) -> None:
    assert memory in texts(chat(said))


def test_where_every_file_of_a_kind_goes_is_a_path(tmp_path: Path) -> None:
    cands = chat("going forward, all notebooks live in the research/ folder, not in the repo root.")
    facts = {(c.relation, c.slot, c.object.name) for c in cands if c.object is not None}
    assert ("located_at", "path:notebooks", "research/") in facts


def test_a_boss_keeps_the_title_said_after_the_name() -> None:
    cands = chat("My boss is Henrik Larsen, the studio's CTO.")
    assert "Henrik Larsen (the studio's CTO) is the user's manager." in texts(
        cands, relation="reports_to"
    )


@pytest.mark.parametrize(
    ("said", "memory"),
    [
        ("我的直属领导是副总裁侯佳，她每个月底要看一次技术债清单。", "侯佳是用户的直属领导。"),
        (
            "我的直属领导是副总裁侯佳，她每个月底要看一次技术债清单。",
            "侯佳每个月底要看一次技术债清单。",
        ),
        ("UI 设计由曹颖负责。", "UI 设计由曹颖负责。"),
        (
            "团队约定：合并请求至少要一个人 approve 才能合。",
            "团队的规则：合并请求至少要一个人 approve 才能合。",
        ),
        (
            "原来的状态管理是 Vuex，这个迭代开始全部换成 Pinia。",
            "团队的状态管理从 Vuex 换成了 Pinia。",
        ),
        (
            "上次白屏是因为打包时把环境变量写错了，现在构建前会先校验环境变量。",
            "上次白屏是因为打包时把环境变量写错了，现在构建前会先校验环境变量。",
        ),
    ],
)
def test_chinese_a_title_before_a_name_an_announced_rule_and_what_it_was_before(
    said: str, memory: str
) -> None:
    assert memory in texts(chat(said))


def test_not_using_a_feature_of_a_tool_is_not_avoiding_the_tool() -> None:
    cands = chat("我们不用 TypeScript 的 enum，用联合类型代替。")
    assert not [c for c in cands if c.relation == "avoids"]


def test_what_the_team_is_currently_using_is_the_teams_for_its_purpose() -> None:
    said = "we are currently using MLflow for experiment tracking but want to move to W&B."
    (c,) = [c for c in chat(said) if c.relation == "uses"]
    assert c.text == "The team now uses MLflow for experiment tracking."
    assert c.collective and c.slot == "experiment tracking"


@pytest.mark.parametrize(
    ("said", "memory"),
    [
        (
            "I'm Jonas Berg and I work as a backend developer for Fjordpay in Oslo.",
            "The user is a backend developer at Fjordpay.",
        ),
        ("Jin Park (our CTO) wants every incident written up.", "Jin Park is the team's CTO."),
        (
            "Jin Park (our CTO) wants every incident written up.",
            "Jin Park wants every incident written up.",
        ),
        (
            "Rule of thumb for this repo: feature flags for anything risky.",
            "The user's rule: feature flags for anything risky.",
        ),
        (
            "Prefer composition over inheritance in new code.",
            "The user's rule: prefer composition over inheritance in new code.",
        ),
        ("Code freeze is on March 3.", "The code freeze is due on 2027-03-03."),
        (
            "Lesson for next time: rotate secrets through the pipeline, not by hand.",
            "Lesson: rotate secrets through the pipeline, not by hand.",
        ),
        (
            "We used to deploy with Capistrano; now everything goes through GitHub Actions.",
            "The team switched from Capistrano to GitHub Actions.",
        ),
    ],
)
def test_english_a_bracketed_title_a_long_rule_label_a_bare_event_and_used_to(
    said: str, memory: str
) -> None:
    assert memory in texts(chat(said))


def test_a_moved_code_freeze_is_a_deadline_change() -> None:
    cands = chat(
        "Code freeze is on March 3.", "Okay.", "Heads up, code freeze got moved up to February 27."
    )
    moved = [c for c in cands if c.attrs.get("moved")]
    assert moved and moved[0].slot == "deadline:code freeze"


@pytest.mark.parametrize(
    ("said", "memory"),
    [
        ("我是做数据开发的，叫尹若曦，公司是青禾健康，base 在南京。", "用户叫尹若曦。"),
        ("我是做数据开发的，叫尹若曦，公司是青禾健康，base 在南京。", "用户在青禾健康做数据开发。"),
        ("邹涛是我们的数据平台负责人，有权限问题直接问他。", "有权限问题直接问邹涛。"),
        ("分析师宁静每天早上九点要看到前一天的报表。", "宁静是团队的分析师。"),
        ("分析师宁静每天早上九点要看到前一天的报表。", "宁静每天早上九点要看到前一天的报表。"),
        ("我个人比较偏爱写 Python 脚本，不喜欢写 Shell。", "用户不喜欢写 Shell。"),
        (
            "昨天报表数据重复，是因为上游表有重复分区，加了去重逻辑就好了。",
            "昨天报表数据重复，是因为上游表有重复分区，加了去重逻辑就好了。",
        ),
    ],
)
def test_chinese_a_name_and_employer_said_apart_a_titled_name_and_a_second_dislike(
    said: str, memory: str
) -> None:
    assert memory in texts(chat(said))


@pytest.mark.parametrize("said", ["我们公司是做电商的。", "他跑得很快，不喜欢等人。"])
def test_what_the_company_does_is_no_employer_and_his_dislike_is_not_the_users(said: str) -> None:
    cands = chat(said)
    assert texts(cands, relation="works_at") == [] and texts(cands, relation="dislikes") == []


def test_who_to_deal_with_for_a_part_of_the_work_is_who_she_is() -> None:
    cands = chat("产品经理是王磊。运维那边对接人是孙悦，上线前都要找她审批。")
    assert "孙悦是团队的运维对接人。" in texts(cands)
    assert "上线前要孙悦审批。" in texts(cands, relation="expects")


@pytest.mark.parametrize(
    ("said", "memory"),
    [
        (
            "Ingrid heads analytics. Every Monday she expects a quality summary from me.",
            "Ingrid expects a quality summary from the user every Monday.",
        ),
        (
            "The SOC 2 audit evidence is due on September 12.",
            "The SOC 2 audit evidence is due on 2026-09-12.",
        ),
        (
            "The carrier-rates migration to the new schema has to be finished by November 27.",
            "The new schema is due on 2026-11-27.",
        ),
    ],
)
def test_when_a_colleague_expects_it_and_a_deadline_of_four_words(said: str, memory: str) -> None:
    assert memory in texts(chat(said))


def test_a_title_before_a_name_leaves_no_second_note() -> None:
    cands = chat("My supervisor is Prof. Henrik Sandberg.")
    assert texts(cands) == ["Henrik Sandberg is the user's supervisor."]


def test_a_failure_caused_by_something_is_a_learning_a_mood_is_not() -> None:
    said = "The crash on startup was caused by a missing ProGuard rule for Retrofit."
    assert texts(chat(said), kind="learning") == [
        "The crash on startup was caused by a missing ProGuard rule for Retrofit."
    ]
    assert texts(chat("My bad mood was caused by the weather."), kind="learning") == []


@pytest.mark.parametrize(
    ("said", "memory"),
    [
        ("引擎用的是 Unity 2022.3，服务端是 Go 1.21。", "服务端是 Go 1.21。"),
        (
            "我们打算把热更新方案从 xLua 换成 HybridCLR。",
            "团队打算把热更新方案从 xLua 换成 HybridCLR。",
        ),
        (
            "闪退是因为内存超过了 iOS 的限制，把贴图压缩之后就好了。",
            "闪退是因为内存超过了 iOS 的限制，把贴图压缩之后就好了。",
        ),
    ],
)
def test_chinese_a_tool_is_no_colleague_a_planned_switch_of_a_part_and_a_bare_failure(
    said: str, memory: str
) -> None:
    cands = chat(said)
    assert memory in texts(cands)
    assert not [c for c in cands if c.object is not None and c.object.type == "person"]
