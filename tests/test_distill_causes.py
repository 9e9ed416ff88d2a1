"""Developer-session readings of the seventh round (issue 14): a fix keeps its cause (the
agent's "X, so Y. I did Z" and the user's "failed because A; fixed by B"), switches in more
phrasings, a colleague's role said as what they lead or run, a rule that goes on in the next
sentence. End to end through a real tenant (git sessions, SQLite, JSONL knowledge files) with
``run_sessions``, and at extractor level on NodeRecords.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_distill_reading import chat, texts

from ogmemory.evaluation.devsessions import run_sessions


def _run(tmp_path: Path, script: str) -> tuple[list[str], list[str], list[str]]:
    path = tmp_path / "script.yaml"
    path.write_text(script, encoding="utf-8")
    (score,) = run_sessions([path])
    return score.missed, score.stale, score.listing


# ----------------------------------------------------------------------------- causes

_FIX_SCRIPT = """
name: fixes keep their causes
sessions:
  - id: f-1
    project: shop
    start: "2026-09-01T09:00:00Z"
    turns:
      - user: The nightly export keeps timing out, can you look?
        tools:
          - run: make export
            output: "deadline exceeded"
            exit: 1
          - edit: export/pool.go
            content: "pool.Max = 20"
          - run: make export
            output: "ok"
            exit: 0
        assistant: >-
          Found it: the connection pool was capped at two connections, so every worker waited on
          the same socket. I raised the pool size to 20 and the export finishes in four minutes.
      - user: 帮我看看为什么签名校验不过。
        tools:
          - run: make test
            output: "FAIL test_sign"
            exit: 1
          - edit: src/sign.c
            content: "digest = sha256(body)"
          - run: make test
            output: "12 passed"
            exit: 0
        assistant: >-
          签名函数漏了请求体的哈希，所以服务端算出来的签名对不上。我把请求体的 SHA-256
          加进了签名串，12 个测试全部通过。
      - user: >-
          The invoice test failed because round() rounds half to even; fixed by using Decimal
          quantize.
        assistant: Good catch.
      - user: 导出乱码是因为文件没带 BOM；加上 BOM 之后 Excel 就能正常打开了。
        assistant: 好的。
gold:
  - {id: pool cause, terms: [capped at two, pool size to 20]}
  - {id: 签名原因, terms: [漏了请求体, SHA-256]}
  - {id: round cause and fix, terms: [half to even, quantize]}
  - {id: BOM 原因和修复, terms: [没带 BOM, 加上 BOM]}
"""


def test_a_fix_keeps_the_cause_it_was_found_with(tmp_path: Path) -> None:
    missed, _, listing = _run(tmp_path, _FIX_SCRIPT)
    assert missed == [], listing
    # the user's fix is one learning with its cause, not a second memory of its own
    assert not [line for line in listing if "fixed by" in line and "half to even" not in line]


def test_a_stated_cause_and_its_fix_are_one_learning() -> None:
    said = "The deploy hung because the readiness probe was missing; fixed by adding it back."
    assert texts(chat(said), kind="learning") == [
        "The deploy hung because the readiness probe was missing; fixed by adding it back."
    ]


# ----------------------------------------------------------------------------- switches

_SWITCH_SCRIPT = """
name: switches in more phrasings
sessions:
  - id: s-1
    project: storefront
    start: "2026-09-01T09:00:00Z"
    turns:
      - user: >-
          Our unit tests run on unittest and the browser tests on Cypress. We bundle with webpack.
        assistant: Noted.
      - user: We use RabbitMQ for the jobs queue and Moment for dates. The package manager is npm.
        assistant: Noted.
      - user: Our mobile team uses MySQL.
        assistant: Noted.
        after: 1d
      - user: We're moving our tests from unittest to pytest.
        assistant: OK.
      - user: Let's switch the browser suite from Cypress to Playwright.
        assistant: OK.
      - user: We migrated the jobs queue off RabbitMQ onto SQS last week.
        assistant: OK.
      - user: Replace Moment with date-fns across the frontend.
        assistant: OK.
      - user: So webpack is out, Vite is in.
        assistant: OK.
      - user: 用 pnpm 替掉 npm。
        assistant: 好的。
      - user: 我们打算把 MySQL 迁到 PostgreSQL。
        assistant: 好的。
gold:
  - {id: pytest, terms: [pytest], facts: true}
  - {id: playwright, terms: [Playwright], facts: true}
  - {id: sqs, terms: [SQS], facts: true}
  - {id: date-fns, terms: [date-fns], facts: true}
  - {id: vite, terms: [Vite], facts: true}
  - {id: pnpm, terms: [pnpm], facts: true}
  - {id: postgres, terms: [PostgreSQL], facts: true}
stale:
  - {id: unittest, object: unittest}
  - {id: cypress, object: Cypress}
  - {id: rabbitmq, object: RabbitMQ}
  - {id: moment, object: Moment.js}
  - {id: webpack, object: Webpack}
  - {id: npm, object: npm}
  - {id: mysql, object: MySQL}
"""


def test_switches_in_more_phrasings_end_the_tool_they_leave(tmp_path: Path) -> None:
    missed, stale, listing = _run(tmp_path, _SWITCH_SCRIPT)
    assert (missed, stale) == ([], []), listing


@pytest.mark.parametrize(
    ("said", "memory"),
    [
        (
            "Let's switch the e2e suite from Cypress to Playwright.",
            "The team decided to switch the e2e suite from Cypress to Playwright.",
        ),
        (
            "We're moving our tests from unittest to pytest.",
            "The team decided to switch the tests from unittest to pytest.",
        ),
        ("Webpack is out, Vite is in.", "The team switched from Webpack to Vite."),
        ("单元测试用 Vitest 替换 Jest 吧。", "团队决定把单元测试从 Jest 换成 Vitest。"),
        ("用 pnpm 替掉 npm。", "团队决定从 npm 换成 pnpm。"),
    ],
)
def test_a_switch_names_what_it_moves_and_both_tools(said: str, memory: str) -> None:
    assert memory in texts(chat(said), kind="decision")


# ----------------------------------------------------------------------------- people

_PEOPLE_SCRIPT = """
name: people in more phrasings
sessions:
  - id: p-1
    start: "2026-09-01T09:00:00Z"
    turns:
      - user: >-
          Rosa Lindqvist runs the data platform, and whenever we change a schema she expects a
          migration note in the PR. Anything that touches billing, she wants to hear about first.
        assistant: Noted.
      - user: 我叫王一鸣，是东岭大学计算机学院的研二学生，研究方向是分布式存储。
        assistant: 你好。
      - user: >-
          我导师是沈清华教授，他每周五要看进度报告，里面要写清楚这周做了哪些实验。师姐宋雨管实验室的集群。
        assistant: 好的。
gold:
  - {id: migration note, terms: [Rosa Lindqvist, migration note]}
  - {id: billing, terms: [Rosa Lindqvist, hear about anything that touches billing]}
  - {id: 单位, terms: [东岭大学]}
  - {id: 方向, terms: [分布式存储]}
  - {id: 导师, terms: [沈清华, 导师]}
  - {id: 周报, terms: [沈清华, 进度报告]}
  - {id: 师姐, terms: [宋雨, 集群]}
"""


def test_colleagues_said_with_a_condition_a_fronted_object_or_a_title(tmp_path: Path) -> None:
    missed, _, listing = _run(tmp_path, _PEOPLE_SCRIPT)
    assert missed == [], listing


@pytest.mark.parametrize(
    ("said", "memory"),
    [
        (
            "Mei Tanaka leads SRE on-call, and if we add an alert she expects the runbook updated.",
            "Mei Tanaka expects the runbook updated if the user's team adds an alert.",
        ),
        ("我导师是周立群教授，她每周一上午要看周报。", "周立群是用户的导师。"),
        ("师兄马骁管测序平台。", "马骁管测序平台。"),
        (
            "我是南屿大学基因组研究中心的博三学生，方向是单细胞转录组分析。",
            "用户是南屿大学基因组研究中心的博三学生。",
        ),
        (
            "我是南屿大学基因组研究中心的博三学生，方向是单细胞转录组分析。",
            "用户的研究方向是单细胞转录组分析。",
        ),
    ],
)
def test_who_someone_is_in_more_phrasings(said: str, memory: str) -> None:
    assert memory in texts(chat(said))


def test_a_conditional_that_names_no_expectation_is_still_no_fact() -> None:
    assert not texts(chat("If Sam leads the platform team, we will ship faster."), type="entity")


# ----------------------------------------------------------------------------- rules

_RULES_SCRIPT = """
name: rules announced, continued and scoped
sessions:
  - id: r-1
    project: payments
    agent: reviewer
    start: "2026-09-01T09:00:00Z"
    turns:
      - user: Rule for this repo - never merge on a Friday.
        assistant: OK.
      - user: 在这个项目里，不要直接改 vendor 目录。
        assistant: 好的。
      - user: When you review, flag any SQL built by string concatenation.
        assistant: OK.
  - id: r-2
    project: payments
    start: "2026-09-02T09:00:00Z"
    turns:
      - user: >-
          Three ground rules in this codebase. Timestamps are always stored in UTC. Retries use
          exponential backoff. And never log an access token.
        assistant: Noted.
      - user: >-
          One more house rule: never call the payment provider from a unit test. Everything goes
          through the sandbox stub.
        assistant: OK.
gold:
  - {id: friday, terms: [never merge on a Friday], scope: "project:payments"}
  - {id: vendor, terms: [vendor], scope: "project:payments"}
  - {id: review, terms: [string concatenation], scope: "agent:reviewer"}
  - {id: utc, terms: ["rule", UTC]}
  - {id: backoff, terms: ["rule", exponential backoff]}
  - {id: token, terms: ["rule", access token]}
  - {id: stub, terms: [payment provider, sandbox stub]}
stale:
  - {id: review leak, text: string concatenation, scope: "project:payments"}
"""


def test_rules_announced_before_continued_after_and_said_for_this_repo(tmp_path: Path) -> None:
    missed, stale, listing = _run(tmp_path, _RULES_SCRIPT)
    assert (missed, stale) == ([], []), listing
    assert not [line for line in listing if "rule: codebase" in line or "ground rules" in line]


def test_a_label_with_is_inside_a_word_is_no_rule() -> None:
    assert texts(chat("Two hard rules in this codebase."), type="rule") == []


@pytest.mark.parametrize(
    ("said", "memory"),
    [
        (
            "I really can't stand GORM. Write the SQL by hand and generate the code with sqlc,"
            " please.",
            "The team decided to use sqlc, not GORM.",
        ),
        (
            "I hate Moment. Format the dates with date-fns.",
            "The team decided to use date-fns, not Moment.js.",
        ),
    ],
)
def test_what_is_asked_for_instead_of_a_tool_turned_down_is_a_choice(
    said: str, memory: str
) -> None:
    assert memory in texts(chat(said), kind="decision")


def test_a_request_with_a_tool_and_nothing_turned_down_is_no_choice() -> None:
    assert texts(chat("Write the SQL with sqlc."), kind="decision") == []


@pytest.mark.parametrize(
    ("said", "memory"),
    [
        (
            "Hi! Quick intro for context: Ilse Moreau, build engineer at Northwind Robotics.",
            "The user is a build engineer at Northwind Robotics.",
        ),
        (
            "Hi! Quick intro for context: Ilse Moreau, build engineer at Northwind Robotics.",
            "The user's name is Ilse Moreau.",
        ),
        (
            "Heads up, we hired a second designer, Kofi Mensah.",
            "Kofi Mensah joined the team as a designer.",
        ),
        ("Lena Vogt is our lead artist.", "Lena Vogt is the team's lead artist."),
        ("Omar Haddad is our producer.", "Omar Haddad is the team's producer."),
        ("另外，新来的运维工程师叫冯涛，以后发布归他管。", "冯涛是新来的运维工程师。"),
        (
            "项目经理黄志刚要求每次发固件都附上版本号和 CRC32 校验值。",
            "黄志刚要求每次发固件都附上版本号和 CRC32 校验值。",
        ),
        (
            "说一下协作的人：硬件工程师孙蕾负责电路板，改任何引脚分配之前必须先找她确认。",
            "用户的规则：改任何引脚分配之前必须先找孙蕾确认。",
        ),
        ("说一下协作的人：硬件工程师孙蕾负责电路板。", "孙蕾负责电路板。"),
        (
            "We're dropping Photon and moving to Netcode for GameObjects with Unity Relay.",
            "The team decided to switch from Photon to Netcode for GameObjects.",
        ),
    ],
)
def test_who_is_who_read_whole(said: str, memory: str) -> None:
    assert memory in texts(chat(said))
