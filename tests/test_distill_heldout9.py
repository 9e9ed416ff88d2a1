"""Readings of the ninth round (issue 14), found on the blind held-out set 9: an approach chosen
for a named topic (no tool name), a deadline whose thing is said with "for ...", a slip said
as "slipped, it's <date> now", a choice made by the group the user is in, a plan called off
with nothing kept, versions said of a cluster or upgraded with the new one after, and lines
that read as junk. End to end through a real tenant with ``run_sessions`` where a fact's
currency matters, at function level where one reading is.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from test_distill_causes import _run
from test_distill_reading import chat

from ogmemory.distill.dates import find_times
from ogmemory.distill.extractors._approach import approach_at, turn_topic
from ogmemory.distill.extractors._common import split_sentences
from ogmemory.distill.extractors._salience import too_thin

# ----------------------------------------------------------------------------- approaches

_APPROACH_SCRIPT = """
name: approaches chosen for a topic, then replaced
sessions:
  - id: a-1
    project: lexer
    start: "2027-04-01T09:00:00Z"
    turns:
      - user: >-
          for tokenization we're going with byte-level bpe through the tokenizers crate, it's
          what the baseline used
        assistant: Noted.
      - user: "For the new caching layer we're going with write-through caching."
        assistant: OK.
  - id: a-2
    project: lexer
    start: "2027-04-15T09:00:00Z"
    turns:
      - user: >-
          Change of plan on tokenization. Mei ran the ablation and bpe splits the rare words
          badly, so we're switching to unigram sentencepiece (the paper's setup).
        assistant: Switched.
      - user: >-
          Big change on caching: after the load test we're dropping write-through and going
          with write-behind instead.
        assistant: OK.
gold:
  - {id: tokenization, terms: [unigram sentencepiece], facts: true}
  - {id: caching, terms: [write-behind], facts: true}
stale:
  - {id: old tokenization, object: byte-level bpe}
  - {id: old caching, object: write-through caching}
"""


def test_an_approach_chosen_for_a_topic_and_replaced_for_it(tmp_path: Path) -> None:
    missed, stale, listing = _run(tmp_path, _APPROACH_SCRIPT)
    assert (missed, stale) == ([], [])
    # the switch names both approaches and what they are for
    assert any("from write-through to write-behind for caching" in m for m in listing)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("a visibility buffer (deferred texturing) instead", "visibility buffer"),
        ("bilinear through xESMF, it's fast", "bilinear"),
        ("write-behind instead.", "write-behind"),
        # pointers back, fillers and whole clauses are no approach
        ("that", None),
        ("option B", None),
        ("the flow", None),
        ("what the downscaling folks use every day", None),
    ],
)
def test_what_an_approach_is_called(text: str, name: str | None) -> None:
    assert approach_at(text) == name


def test_a_choice_of_an_approach_needs_a_topic() -> None:
    # no "for <topic>" and no change announced on one: a lower-case phrase is no choice
    assert not [c for c in chat("we're going with write-behind now.", "OK.") if c.relation]
    said = "Update on the deploy pipeline: we're going with blue-green."
    assert turn_topic(said, len(said)) == "deploy pipeline"


# ----------------------------------------------------------------------------- deadlines and plans

_SLIP_SCRIPT = """
name: deadlines slipped, a group's choice, plans called off
sessions:
  - id: s-1
    project: audit
    start: "2027-09-01T09:00:00Z"
    turns:
      - user: "deadline: the audit report for the Q3 controls is due November 20."
        assistant: Noted.
      - user: "Also the release candidate has to be locked by October 8, that's the hard one."
        assistant: OK.
      - user: "We're moving the infra code to Pulumi next quarter."
        assistant: OK.
      - user: 另外我们有个计划，下半年把日志迁到 Loki。
        assistant: 好的。
      - user: "for the public gateway we're going with ingress-nginx, the team knows it"
        assistant: OK.
  - id: s-2
    project: audit
    start: "2027-09-20T09:00:00Z"
    turns:
      - user: "and the audit report slipped, it's December 4 now. the sampling took longer"
        assistant: OK.
      - user: >-
          bad news: the release candidate lock slipped, it's October 22 now instead of
          October 8.
        assistant: OK.
      - user: "hey. we killed the Pulumi migration, not worth it this year."
        assistant: OK.
      - user: Loki 那个迁移计划取消了，预算不够。
        assistant: 好的。
      - user: >-
          update on the gateway: we're not doing ingress-nginx after all, it's being retired.
          we'll use Envoy Gateway instead.
        assistant: OK.
      - user: "Priya decided the department is standardizing on Airflow for pipelines."
        assistant: OK.
gold:
  - {id: audit, terms: ["2027-12-04"], facts: true}
  - {id: rc lock, terms: ["2027-10-22"], facts: true}
  - {id: airflow, terms: [Airflow], facts: true}
  - {id: pulumi off, terms: [called off the Pulumi migration]}
  - {id: loki off, terms: [取消了 Loki]}
  - {id: gateway, terms: [Envoy Gateway], facts: true}
stale:
  - {id: old audit, object: "2027-11-20"}
  - {id: old rc lock, object: "2027-10-08"}
  - {id: pulumi, object: Pulumi}
  - {id: loki, object: Loki}
  - {id: ingress, object: ingress-nginx}
"""


def test_slips_said_after_the_fact_a_groups_choice_and_plans_called_off(
    tmp_path: Path,
) -> None:
    missed, stale, listing = _run(tmp_path, _SLIP_SCRIPT)
    assert (missed, stale) == ([], [])
    assert any("The audit report is due on 2027-11-20" in m for m in listing)


# ----------------------------------------------------------------------------- configuration

_CONFIG_SCRIPT = """
name: versions of a cluster, upgrades said with the new version after
sessions:
  - id: v-1
    project: bus
    start: "2027-05-01T09:00:00Z"
    turns:
      - user: 好的。说下环境：Kafka 集群现在是 3.6，JDK 用的 17。
        assistant: 记下了。
      - user: Gradle 现在是 8.5，compileSdk 34。
        assistant: 记下了。
      - user: "fwiw we're on Android NDK 26.1 and please don't bump it, the vendor SDK needs it"
        assistant: OK.
  - id: v-2
    project: bus
    start: "2027-05-20T09:00:00Z"
    turns:
      - user: Kafka 集群也升级了，现在是 3.7，3.6 已经下掉了。
        assistant: 好的。
      - user: Gradle 我们升级了，现在是 8.7，帮我看看 build 有没有问题
        assistant: 构建通过。
gold:
  - {id: kafka, terms: [Kafka 3.7], facts: true}
  - {id: jdk, terms: [JDK 17], facts: true}
  - {id: gradle, terms: [Gradle 8.7], facts: true}
  - {id: ndk, terms: [NDK 26.1], facts: true}
stale:
  - {id: old kafka, object: Kafka 3.6}
  - {id: old gradle, object: Gradle 8.5}
"""


def test_versions_of_a_cluster_and_upgrades_said_before_an_ask(tmp_path: Path) -> None:
    missed, stale, listing = _run(tmp_path, _CONFIG_SCRIPT)
    assert (missed, stale) == ([], [])
    # a label before what is stated, and an aside, are not part of the memory
    assert not any("说下环境" in m or "Fwiw" in m for m in listing)
    assert any("团队把 Gradle 升级到了 8.7" in m for m in listing)


# ----------------------------------------------------------------------------- readings


def test_a_concession_is_no_condition() -> None:
    said = "I like having GPU-assisted validation on in every debug build, even if it's slow."
    assert any(c.relation == "prefers" for c in chat(said, "OK."))


@pytest.mark.parametrize(
    "said",
    [
        "clustered forward is dead, don't build on it anymore",
        "marketing wanted more time for the trailer capture",
    ],
)
def test_a_sentence_with_its_own_subject_is_not_said_of_the_user(said: str) -> None:
    assert not any(c.text.startswith("The user") for c in chat(said, "OK."))


# ----------------------------------------------------------------------------- held-out 10

_TEN_SCRIPT = """
name: readings held-out 10 asked for
sessions:
  - id: t-1
    project: lidar
    start: "2027-06-01T09:00:00Z"
    turns:
      - user: 你好，我叫陈思远，在星河智驾做规划算法部署，人在杭州。
        assistant: 你好。
      - user: 激光雷达标定这块我们定了用 Kalibr，标定板先用 A2 的。
        assistant: 好的。
      - user: 测试框架的话我不太喜欢 Jest，配置太重了。
        assistant: 好的。
      - user: 项目经理吴海峰说了，感知模块 7月15号 要交付。
        assistant: 好的。
      - user: >-
          deploy the service, but remember any schema change in prod needs sign-off from Omar
          Haddad in data before it goes out
        assistant: OK.
      - user: >-
          and fyi I'm presenting at the Berlin Rust meetup next Tuesday, so I'm out that
          afternoon
        assistant: Good luck.
      - user: "the SOC2 audit package is due June 20."
        assistant: Noted.
  - id: t-2
    project: lidar
    start: "2027-06-10T09:00:00Z"
    turns:
      - user: 激光雷达标定换方案了：Kalibr 在外参上太慢，我们改用 OpenCalib。帮我把脚本换掉
        assistant: 好的。
      - user: >-
          the SOC2 audit deadline moved, Priya says it's July 2 now because the auditors
          rescheduled
        assistant: OK.
gold:
  - {id: employer, terms: [星河智驾]}
  - {id: role, terms: [规划算法部署]}
  - {id: calibration, terms: [OpenCalib], facts: true}
  - {id: dislikes jest, terms: [Jest]}
  - {id: pm, terms: [吴海峰]}
  - {id: sign-off, terms: [Omar Haddad]}
  - {id: talk, terms: ["2027-06-08"]}
  - {id: audit, terms: ["2027-07-02"], facts: true}
stale:
  - {id: old calibration, object: Kalibr}
  - {id: old audit, object: "2027-06-20"}
"""


def test_readings_held_out_10_asked_for(tmp_path: Path) -> None:
    missed, stale, _ = _run(tmp_path, _TEN_SCRIPT)
    assert (missed, stale) == ([], [])


def test_pasted_log_lines_are_not_sentences() -> None:
    said = (
        "跑了一晚上回归，日志如下：\n"
        "I0520 02:13:07.552 main.cpp:130] frame 18233 boxes=0 max_score=0.000\n"
        "2027-05-20 02:13:07 ERROR worker died\n"
        "为什么会这样？\n"
        "I set timeout=30 and retries=3 for the client."
    )
    texts = [s.text for s in split_sentences(said, date(2027, 5, 20))]
    assert not any("main.cpp" in t or "worker died" in t for t in texts)
    assert "I set timeout=30 and retries=3 for the client." in texts


def test_a_named_colleagues_apposition_is_third_person_and_a_dr_region_no_setting() -> None:
    said = "Femi, my manager (head of platform), wants the EKS 1.31 upgrade done by October 1."
    texts = [c.text for c in chat(said, "OK.")]
    assert any(t.startswith("Femi, the user's manager (head of platform), wants") for t in texts)
    found = chat("we're doing a DR game day next Wednesday, failing over to the DR region", "OK.")
    assert not [c for c in found if c.type == "config"]
    assert any(c.kind == "event" and "game day, failing" in c.text for c in found)


def test_a_fact_never_ends_before_it_begins(tmp_path: Path) -> None:
    from test_distill_knowledge import make, talk

    mem = make(tmp_path)
    talk(mem, "s1", "2026-05-20", "I also lost my job at Door Dash this month.")
    mem.sleep("light")
    edges = mem.facts(include_history=True)
    assert any(e.valid_to is not None for e in edges)
    assert all(e.valid_to is None or e.valid_to >= e.valid_from for e in edges)


@pytest.mark.parametrize(
    ("said", "dated"),
    [
        ("We haven't talked in a few days.", False),  # how long until now
        ("I haven't seen her in years.", False),
        ("I'll see you in a few days.", True),
        ("haven't decided yet, but we launch in two weeks", True),
    ],
)
def test_a_span_up_to_now_is_no_date_ahead(said: str, dated: bool) -> None:
    assert bool(find_times(said, date(2023, 7, 21))) is dated


def test_a_quoted_title_keeps_its_closing_quote_and_thin_events_go() -> None:
    said = 'Thanks! We just did a contemporary piece called "Finding Freedom." It was great.'
    (first, *_) = [s for s in split_sentences(said, date(2023, 1, 20)) if "piece" in s.text]
    assert first.text.endswith('"Finding Freedom".')
    assert too_thin("Gina has got something to share (2023-03-16).", "Gina")
    assert too_thin("Gina has been dreaming of this for a while (2023-03-16).", "Gina")
    assert not too_thin("Gina went to the zoo (2023-03-16).", "Gina")


# ----------------------------------------------------------------------------- held-out 11

_ELEVEN_SCRIPT = """
name: readings held-out 11 asked for
sessions:
  - id: e-1
    project: relay
    start: "2027-03-01T09:00:00Z"
    turns:
      - user: >-
          ground rules: never commit secrets, I mean it, no `.env` files. and please don't add
          new services without asking me first, I want the count low if I can.
        assistant: OK.
      - user: "for payments I decided to use Braintree, seems simpler."
        assistant: OK.
      - user: "the gateway is in us-west-2. Envoy is on 1.29 right now."
        assistant: OK.
      - user: 下游明细表我们决定写 Elasticsearch，检索方便。
        assistant: 好的。
      - user: 嗯。配置记一下：网关服务跑在 7080 端口。
        assistant: 好的。
      - user: >-
          人的方面：我们运维部主任是刘建华，凡是动到生产库的改动，都要安全科的周敏签字同意才能上线。
        assistant: 好的。
      - user: 还有，下周五凌晨三点有个停机维护窗口，要给数据库打补丁。
        assistant: 好的。
      - user: >-
          my PM at Northwind is Sara Lind. Omar Haddad from SRE has to sign off on any change to
          the node pools.
        assistant: OK.
  - id: e-2
    project: relay
    start: "2027-03-15T09:00:00Z"
    turns:
      - user: "hey. first: I'm ripping out Braintree and going with Adyen directly."
        assistant: OK.
      - user: "other big news: we're in us-east-2 now instead of us-west-2."
        assistant: OK.
      - user: "and while we're touching Envoy, bump it to 1.31, the old one leaks memory."
        assistant: OK.
      - user: 说正事：明细表不写 Elasticsearch 了，改成 OpenSearch。
        assistant: 好的。
      - user: 另外网关服务端口要从 7080 改成 7090，7080 被占了。
        assistant: 好的。
      - user: "we use kustomize overlays for everything in relay."
        assistant: OK.
gold:
  - {id: secrets rule, terms: [never commit secrets, no `.env` files]}
  - {id: services rule, terms: [without asking the user first]}
  - {id: payments, terms: [Adyen], facts: true}
  - {id: region, terms: [us-east-2], facts: true}
  - {id: envoy, terms: [Envoy 1.31], facts: true}
  - {id: sink, terms: [OpenSearch], facts: true}
  - {id: port, terms: ["7090"], facts: true}
  - {id: head, terms: [刘建华]}
  - {id: signoff zh, terms: [周敏签字]}
  - {id: window, terms: ["2027-03-12"]}
  - {id: pm, terms: [Sara Lind]}
  - {id: signoff en, terms: [Omar Haddad]}
  - {id: kustomize, terms: [kustomize]}
stale:
  - {id: old payments, object: Braintree}
  - {id: old region, object: us-west-2}
  - {id: old envoy, object: Envoy 1.29}
  - {id: old sink, object: Elasticsearch}
  - {id: old port, object: "7080"}
"""


def test_readings_held_out_11_asked_for(tmp_path: Path) -> None:
    missed, stale, listing = _run(tmp_path, _ELEVEN_SCRIPT)
    assert (missed, stale) == ([], [])
    assert not any("I mean it" in m for m in listing)


def test_a_rule_is_third_person_and_a_pointer_back_is_no_rule() -> None:
    found = chat(
        "also rule for shipping: always run the full suite before I ship anything. "
        "don't let me forget that, I've been yelled at once",
        "OK.",
    )
    rules = [c.text for c in found if c.type == "rule"]
    assert rules == ["The user's rule: always run the full suite before the user ships anything."]
    assert not any("forget" in c.text for c in found)


def test_a_fix_stated_as_what_the_edited_thing_does_now_leads_the_work_event(
    tmp_path: Path,
) -> None:
    script = """
name: a fix said as the new state
sessions:
  - id: w-1
    project: relay
    start: "2027-03-01T09:00:00Z"
    turns:
      - user: "the pods flap during loads, fix the probe"
        tools:
          - edit: deploy/app.yaml
            content: "readinessProbe: {httpGet: {path: /health/ready}}"
          - run: kubectl apply -f deploy/app.yaml
            output: "deployment.apps/app configured"
            exit: 0
        assistant: "Readiness now uses /health/ready. Applied to the staging namespace."
gold:
  - {id: fix, terms: [/health/ready]}
"""
    missed, _, _ = _run(tmp_path, script)
    assert missed == []


def test_a_topic_the_turn_opens_with_and_a_number_is_no_tool() -> None:
    said = "calibration thing. isotonic overfits, so we're switching to sigmoid / Platt scaling."
    assert turn_topic(said, len(said)) == "calibration"
    found = chat(said, "OK.")
    assert any(c.relation == "uses" and c.slot == "calibration" for c in found)
    assert not [c for c in chat("we'll go with 90 days for the label window.", "OK.") if c.relation]


def test_an_approach_between_two_friends_is_no_choice() -> None:
    from test_distill_reading import talk

    found = talk(
        ("John", "It reminds me how important it is to be kind."),
        ("Maria", "Sure thing, John. Let's keep spreading positivity and making an impact."),
    )
    assert not [c for c in found if c.relation == "uses"]
