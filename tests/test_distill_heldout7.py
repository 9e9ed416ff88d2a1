"""Readings of the eighth round (issue 14), found on a blind held-out set: a date is placed by
the clause it sits in, a date something is moved to is ahead, decisions said as a swap, a
return or a stay, configuration bumped to a value, deadlines aimed at and slipped, and lines
that read as junk. End to end through a real tenant with ``run_sessions`` where a memory is
what matters, at function level where one reading is.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from test_distill_causes import _run
from test_distill_reading import chat

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


# ----------------------------------------------------------------------------- deadlines

_DEADLINE_SCRIPT = """
name: deadlines aimed at and slipped
sessions:
  - id: d-1
    project: quarry
    start: "2027-02-01T09:00:00Z"
    turns:
      - user: "We're aiming to cut 1.0 on February 26th."
        assistant: Noted.
      - user: 场景库 v2 要在 5 月 31 日交付给主机厂。
        assistant: 好的。
      - user: 新版推流 SDK 定在 4 月 23 日发版。
        assistant: 好的。
  - id: d-2
    project: quarry
    start: "2027-02-12T09:00:00Z"
    turns:
      - user: >-
          1.0 is slipping. Amara wants a fuzzing pass on the sniffer first, so the new target
          is March 12th.
        assistant: OK.
      - user: 台架还没准备好，场景库 v2 的交付时间推到 6 月 11 日了。
        assistant: 好的。
      - user: 工作量多了不少，推流 SDK 的发版时间推到 5 月 7 日。
        assistant: 好的。
gold:
  - {id: release, terms: ["2027-03-12"], facts: true}
  - {id: 交付, terms: ["2027-06-11"], facts: true}
  - {id: 发版, terms: ["2027-05-07"], facts: true}
stale:
  - {id: old release, object: "2027-02-26"}
  - {id: 旧交付, object: "2027-05-31"}
  - {id: 旧发版, object: "2027-04-23"}
"""


def test_deadlines_aimed_at_set_on_a_day_and_slipped(tmp_path: Path) -> None:
    missed, stale, _ = _run(tmp_path, _DEADLINE_SCRIPT)
    assert (missed, stale) == ([], [])


# ----------------------------------------------------------------------------- decisions

_DECISION_SCRIPT = """
name: decisions swapped, replaced, kept and gone back on
sessions:
  - id: c-1
    project: recon
    start: "2027-03-01T09:00:00Z"
    turns:
      - user: "Plan for this sprint: we're swapping the port discovery stage from nmap to masscan."
        assistant: OK.
      - user: "Decision from the maintainer call: we're going to replace clap with lexopt."
        assistant: OK.
      - user: 交通流这块我们定了用 SUMO 做联合仿真。
        assistant: 好的。
  - id: c-2
    project: recon
    start: "2027-03-08T09:00:00Z"
    turns:
      - user: >-
          Well, masscan was a disaster. We're going back to nmap for discovery, just with -T3.
        assistant: Reverted.
      - user: >-
          Change of plan on lexopt, sorry. We're staying on clap with the derive API. Please
          drop the lexopt sketch.
        assistant: OK.
      - user: 我们决定不用 SUMO 了，交通流改成 CARLA 自带的 Traffic Manager。
        assistant: 好的。
gold:
  - {id: discovery, terms: [nmap], facts: true}
  - {id: parser, terms: [clap], facts: true}
  - {id: 交通流, terms: [Traffic Manager], facts: true}
stale:
  - {id: masscan, object: masscan}
  - {id: lexopt, object: lexopt}
  - {id: SUMO, object: SUMO}
"""


def test_decisions_swapped_replaced_then_gone_back_on_or_kept(tmp_path: Path) -> None:
    missed, stale, listing = _run(tmp_path, _DECISION_SCRIPT)
    assert (missed, stale) == ([], [])
    assert any("switch the port discovery stage from nmap to masscan." in m for m in listing)
    assert not any("决定不用 SUMO" in m and "decision" in m for m in listing)


@pytest.mark.parametrize(
    "said",
    ["I'm going back to work after the holidays.", "We switched from monthly to weekly reports."],
)
def test_a_lower_case_word_is_no_tool_of_a_switch_when_it_is_a_common_word(said: str) -> None:
    assert not [c for c in chat(said, "OK.") if c.kind == "decision"]


# ----------------------------------------------------------------------------- configuration

_CONFIG_SCRIPT = """
name: versions and addresses said plainly, bumped and moved
sessions:
  - id: v-1
    project: sim
    start: "2027-05-10T09:00:00Z"
    turns:
      - user: "MSRV is 1.74 for now, it's pinned in Cargo.toml as rust-version."
        assistant: Noted.
      - user: 先把环境跟你说一下：CARLA 是 0.9.15，仿真服务器是 sim-gpu-03，IP 10.30.7.21。
        assistant: 记下了。
      - user: 环境信息你记一下：FFmpeg 用的 6.1，推流地址 rtmp://push.example.tv:1935/live。
        assistant: 记下了。
  - id: v-2
    project: sim
    start: "2027-05-20T09:00:00Z"
    turns:
      - user: "And we're bumping MSRV to 1.78 for 1.0, we want the diagnostic attributes."
        assistant: OK.
      - user: 仿真服务器也换了，回归迁到 sim-gpu-07 上，IP 是 10.30.7.25，端口还是 2000。
        assistant: 好的。
      - user: 我们决定把 FFmpeg 从 6.1 升到 7.1，转码集群已经先升完了。
        assistant: 好的。
gold:
  - {id: msrv, terms: ["1.78"], facts: true}
  - {id: carla, terms: [CARLA 0.9.15], facts: true}
  - {id: 服务器, terms: [10.30.7.25], facts: true}
  - {id: ffmpeg, terms: [FFmpeg 7.1], facts: true}
  - {id: 推流地址, terms: [push.example.tv], facts: true}
stale:
  - {id: old msrv, object: MSRV 1.74}
  - {id: old ip, object: 10.30.7.21}
  - {id: old ffmpeg, object: "6.1"}
"""


def test_versions_and_addresses_said_plainly_then_bumped_or_moved(tmp_path: Path) -> None:
    missed, stale, listing = _run(tmp_path, _CONFIG_SCRIPT)
    assert (missed, stale) == ([], [])
    assert not any("你记一下" in m or "跟你说一下" in m for m in listing if "[config/" in m)


@pytest.mark.parametrize(
    "said",
    [
        "还有我特别烦那种一大坨宏套宏的写法，能用 constexpr 或者模板就别写宏。",
        "Version 2 is 1.5 times faster.",
    ],
)
def test_no_choice_or_version_where_none_is_said(said: str) -> None:
    cands = chat(said, "OK.")
    assert not [c for c in cands if c.kind == "decision" or c.type == "config"]


# ----------------------------------------------------------------------------- people, lessons

_PEOPLE_SCRIPT = """
name: handovers, a new hire and a lesson reasoned in steps
sessions:
  - id: p-1
    project: av
    start: "2027-04-12T09:00:00Z"
    turns:
      - user: 还有，易凡下周离职，他写的场景泛化生成器交给汤宁接手。
        assistant: 好的。
      - user: 另外人员上有个调整，美颜滤镜模块以前是我在管，从下周开始交给新来的实习生罗晓。
        assistant: 好的。
      - user: >-
          Also we have a new hire, Tobi Adeyemi, a junior pentester, starting Monday. Once he's
          settled I'm handing DefectDojo admin over to him.
        assistant: Got it.
      - user: "Jonas is handing the Homebrew tap over to Wei."
        assistant: OK.
      - user: 问个原理性的问题：我们低延迟档位开了B帧，为什么B帧会拖延迟？
        assistant: >-
          B帧是双向预测的，解码它需要参考后面的P帧，所以编码器必须先把后面的帧攒下来再编，这就引入了额外的帧延迟。
gold:
  - {id: 生成器, terms: [汤宁接手场景泛化生成器]}
  - {id: 美颜, terms: [罗晓接手美颜滤镜模块]}
  - {id: new hire, terms: [Tobi Adeyemi is a junior pentester]}
  - {id: dojo, terms: [Tobi Adeyemi takes over DefectDojo admin from the user]}
  - {id: tap, terms: [Wei takes over the Homebrew tap from Jonas]}
  - {id: B帧, terms: [B帧是双向预测的]}
"""


def test_handovers_a_new_hire_and_a_lesson_in_steps(tmp_path: Path) -> None:
    missed, _, _ = _run(tmp_path, _PEOPLE_SCRIPT)
    assert missed == []


@pytest.mark.parametrize("said", ["把这个任务交给你了。", "这个 bug 交给我吧。"])
def test_a_task_given_to_the_listener_is_no_handover(said: str) -> None:
    assert not [c for c in chat(said, "好的。") if c.relation == "owns"]


_EXPECT_SCRIPT = """
name: expectations said first, approvals, a lead-in label and a routing convention
sessions:
  - id: e-1
    project: quarry
    start: "2027-02-04T09:00:00Z"
    turns:
      - user: >-
          People on the team: Jonas Albrecht is my co-maintainer, he does the releases. He
          insists every user-facing change gets a line in CHANGELOG.md under Unreleased, and he
          will bounce the PR if it's missing, so please always add one.
        assistant: Will do.
      - user: >-
          And Amara Okafor reviews anything security-ish. If a PR adds an unsafe block it needs
          her approval before merge, no exceptions.
        assistant: Understood.
      - user: "Errors go through thiserror in the lib crate; anyhow is fine in the binary."
        assistant: Got it.
gold:
  - {id: role, terms: [Jonas Albrecht is the user's co-maintainer]}
  - {id: releases, terms: [Jonas Albrecht does the releases]}
  - {id: changelog, terms: [Jonas Albrecht insists, CHANGELOG.md under Unreleased]}
  - {id: reviews, terms: [Amara Okafor reviews anything security-ish]}
  - {id: unsafe, terms: [needs Amara Okafor's approval before merge]}
  - {id: errors, terms: [errors go through thiserror]}
"""


def test_expectations_approvals_and_a_routing_convention(tmp_path: Path) -> None:
    missed, _, listing = _run(tmp_path, _EXPECT_SCRIPT)
    assert missed == []
    assert not any("People on the team" in m for m in listing)


def test_a_generic_plural_going_through_something_is_no_rule() -> None:
    assert not [c for c in chat("Things go through phases.", "True.") if c.type == "rule"]


_OFFICE_SCRIPT = """
name: an office city, a colleague in a field, an address with a port
sessions:
  - id: o-1
    project: recon
    start: "2027-03-01T15:00:00Z"
    turns:
      - user: "Hi there. I'm an application security engineer at Meridian Mutual. Denver office."
        assistant: Hi.
      - user: >-
          Marcus Lee in infrastructure owns the firewall allowlists; he needs 48 hours' notice
          before we scan from a new source.
        assistant: Got it.
      - user: "DefectDojo is at https://dojo.meridian.internal:8443."
        assistant: Noted.
gold:
  - {id: office, terms: [works from the Denver office]}
  - {id: notice, terms: [Marcus Lee needs 48 hours' notice]}
  - {id: dojo, terms: ["dojo.meridian.internal:8443"], facts: true}
"""


def test_an_office_city_a_colleague_in_a_field_and_an_address_with_a_port(
    tmp_path: Path,
) -> None:
    missed, _, _ = _run(tmp_path, _OFFICE_SCRIPT)
    assert missed == []


# ----------------------------------------------------------------------------- junk


@pytest.mark.parametrize(
    ("said", "junk"),
    [
        # the speaker's own lapse is no rule, a wh-clause is no decision
        ("Where does the config live? I always forget what we settled on.", "forget"),
        ("Where does the config live? I always forget what we settled on.", "settled on on"),
        # a label announcing what follows is not part of it
        ("Bit of news: Wei Chen is joining the team next month.", "bit of news"),
        ("Setup details: the scanner runs on scan01.corp.internal.", "setup details"),
        # "plain cat" is the command, not the family's pet
        (
            "`quarry cat` is way slower than plain cat, and flamegraph says we spend most of the"
            " time in write syscalls.",
            "their family",
        ),
        # an article that fits the role
        ("I'm an application security engineer at Meridian Mutual.", "a application"),
    ],
)
def test_lines_that_read_as_junk(said: str, junk: str) -> None:
    assert not [c.text for c in chat(said, "OK.") if junk in c.text.lower()]


def test_a_macro_call_does_not_end_a_sentence() -> None:
    said = (
        "Every println! takes the global stdout lock and, because stdout is line-buffered,"
        " flushes at each newline."
    )
    asked = "quarry cat on a big file is way slower than plain cat. Why?"
    (learned,) = [c for c in chat(asked, said) if c.kind == "learning"]
    assert learned.text.startswith("Every println! takes")


def test_a_name_then_who_they_are() -> None:
    cands = chat("Lucía Ortega, I'm an application security engineer at Meridian Mutual.", "Hi.")
    assert "The user's name is Lucía Ortega." in [c.text for c in cands]


def test_a_move_said_with_up_or_back_is_a_move() -> None:
    cands = chat(
        "Personal update: I'm moving up to Edinburgh in April, the partner got a job.", "Oh!"
    )
    assert [c.object.name for c in cands if c.relation == "lives_in" and c.object] == ["Edinburgh"]


def test_a_title_before_a_name_a_habit_and_a_sign_off_in_the_same_sentence() -> None:
    zh = chat("组长邓丽娟要求所有线上变更都得先在变更平台提单，审批通过了才能动手。", "好的。")
    assert "邓丽娟要求所有线上变更都得先在变更平台提单。" in [c.text for c in zh]
    habit = chat("我写运维脚本习惯用 Python，不太喜欢一长串的 shell。", "好的。")
    assert [c.object.name for c in habit if c.relation == "prefers" and c.object] == ["Python"]
    en = chat(
        "Dr. Ines Carvalho is our clinical lead, and anything that shows a heart-rate number to"
        " users needs her sign-off before it ships.",
        "Got it.",
    )
    assert (
        "Anything that shows a heart-rate number to users needs Ines Carvalho's sign-off before"
        " it ships."
    ) in [c.text for c in en]


def test_a_duty_getting_handed_to_someone_and_the_team_in_chinese() -> None:
    said = (
        "Farah Idowu is leaving on November 30th, she's off to a fintech. Her inventory DAGs are"
        " getting handed to Ben Thorpe, so loop him in."
    )
    owners = [c.text for c in chat(said, "OK.") if c.relation == "owns"]
    assert owners == ["Ben Thorpe takes over the inventory DAGs from Farah Idowu."]
    zh = [c.text for c in chat("下周三我们要跟 CDN 厂商开会，聊边缘节点的事。", "好的。")]
    assert not [t for t in zh if "用户他们" in t]


def test_a_root_cause_with_the_chain_it_set_off_and_a_machine_as_the_subject() -> None:
    asked = "另外昨晚 node-7 变成 NotReady 了，半夜把我叫起来。你给我讲讲到底是什么原因？"
    said = (
        "根因是磁盘满了：容器日志没有做轮转，把根分区写满了。kubelet 检测到 DiskPressure"
        " 以后开始驱逐 Pod，节点就被标成 NotReady。给 kubelet 配上日志轮转就能避免。"
    )
    cands = chat(asked, said)
    (learned,) = [c.text for c in cands if c.kind == "learning"]
    assert "DiskPressure" in learned and "日志轮转就能避免" in learned
    assert "node-7 变成 NotReady 了（2026-05-07）。" in [c.text for c in cands]


# ----------------------------------------------------------------------------- held-out 8, read


_HELDOUT8_SCRIPT = """
name: a caller switched by a word of its name, a slip of 'it', a plan called off in one breath
sessions:
  - id: h-1
    project: varcall
    start: "2027-03-01T09:00:00Z"
    turns:
      - user: "For calling we'll go with GATK HaplotypeCaller in GVCF mode, then joint genotyping."
        assistant: OK.
      - user: "the trio cohort VCFs are due to the clinical team on March 19."
        assistant: OK.
      - user: 之前计划下半年把 CNI 从 Calico 换成 Cilium。
        assistant: 好的。
      - user: "hosting: I decided to go with Render for now, managed postgres, zero ops."
        assistant: OK.
  - id: h-2
    project: varcall
    start: "2027-03-10T09:00:00Z"
    turns:
      - user: >-
          big change: we're switching the caller from HaplotypeCaller to DeepVariant.
          HaplotypeCaller is out, DeepVariant plus GLnexus for joint calling from now on.
        assistant: OK.
      - user: >-
          and because of the caller switch the trio delivery slips. Fiona agreed to push it to
          April 2nd, so that's the new deadline.
        assistant: OK.
      - user: 还有个事，之前计划把 CNI 从 Calico 换成 Cilium，这个取消了，没人力搞，继续用 Calico。
        assistant: 好的。
      - user: >-
          Render's EU region doesn't cover the DPA, so scrap Render, we're moving to a Hetzner
          box.
        assistant: OK.
      - user: "and please don't use Django signals for anything. I find them impossible to debug."
        assistant: OK.
gold:
  - {id: caller, terms: [DeepVariant], facts: true}
  - {id: deadline, terms: ["2027-04-02"], facts: true}
  - {id: cni, terms: [Calico], facts: true}
  - {id: hosting, terms: [Hetzner], facts: true}
  - {id: signals, terms: [Django signals]}
stale:
  - {id: old caller, object: HaplotypeCaller}
  - {id: old deadline, object: "2027-03-19"}
  - {id: cilium, object: Cilium}
  - {id: render, object: Render}
"""


def test_switches_slips_and_plans_called_off_as_held_out_8_said_them(tmp_path: Path) -> None:
    missed, stale, listing = _run(tmp_path, _HELDOUT8_SCRIPT)
    assert (missed, stale) == ([], [])
    assert not any("Django." in m or "个事" in m or "for." in m for m in listing)
    assert not any("is out" in m for m in listing if m.startswith("[rule/"))


def test_an_answer_said_to_the_user_is_restated_of_the_user() -> None:
    asked = "Why are the reminders an hour off? Explain please."
    said = "Because you store times in UTC, and you're on summer time, so the naive time is wrong."
    (learned,) = [c.text for c in chat(asked, said) if c.kind == "learning"]
    assert learned.startswith("Because the user stores times in UTC, and the user is on")


def test_a_child_asking_for_a_bedtime_story_is_no_expectation() -> None:
    said = "ok I'm off, Inês wants me to read the dinosaur book for the 400th time"
    assert not [c for c in chat(said, "Enjoy!") if c.relation == "expects"]


_SETTINGS_SCRIPT = """
name: an environment variable, a compiler bumped in Chinese, a preference after a fronted phrase
sessions:
  - id: s-1
    project: qtrade
    start: "2027-10-11T09:00:00Z"
    turns:
      - user: >-
          right, we pin NXF_VER=23.10.1 in the launcher script on purpose, keep it there for
          now.
        assistant: OK.
      - user: 编译器现在统一是 GCC 12，先帮我 build 一把看看有没有 warning
        assistant: 好的。
      - user: "btw for the UI I prefer HTMX partials over any SPA stuff."
        assistant: OK.
  - id: s-2
    project: qtrade
    start: "2027-10-20T09:00:00Z"
    turns:
      - user: "we're also bumping Nextflow, NXF_VER is now 24.04.2 in the launcher."
        assistant: OK.
      - user: SBE 的代码生成器要 GCC 13 才编得过，所以编译器我们升到 GCC 13 了。
        assistant: 好的。
gold:
  - {id: gcc, terms: [GCC 13], facts: true}
  - {id: htmx, terms: [The user prefers HTMX partials]}
stale:
  - {id: old gcc, object: GCC 12}
"""


def test_settings_said_as_a_variable_or_bumped_and_a_fronted_preference(tmp_path: Path) -> None:
    missed, stale, listing = _run(tmp_path, _SETTINGS_SCRIPT)
    assert (missed, stale) == ([], [])
    assert not any(m.endswith("there for.") for m in listing)
    assert not [c for c in chat("我们把接口改成 v2 了", "好的。") if c.type == "config"]


def test_a_chinese_handover_names_the_duty_and_who_had_it() -> None:
    said = "人员变动：每天早上的盘前检查原来是刘洋做，他调去做期权了，从下周一开始交给何静。"
    owners = [c.text for c in chat(said, "好的。") if c.relation == "owns"]
    assert owners == ["何静接手每天早上的盘前检查（原来是刘洋负责）。"]
