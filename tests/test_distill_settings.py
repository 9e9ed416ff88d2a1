"""Developer-session readings of the lead's pass over held-out 6 (issue 14), each in its own
wording: a setting changed from one value to another, a plan called off without naming it
again, deadlines asked for by someone, moved "out to" a date or named as "<weekday> next week",
and a Chinese deadline read ahead. End to end through a real tenant (git sessions, SQLite, JSONL
knowledge files) with ``run_sessions``.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

from test_distill_causes import _run

from ogmemory.distill.dates import find_times
from ogmemory.evaluation.devsessions import run_sessions

_SETTINGS = """
name: settings change
sessions:
  - id: s-1
    project: ledger
    start: "2026-10-05T09:00:00Z"
    turns:
      - user: Our API pods run with a memory limit of 256Mi at the moment.
        assistant: Noted.
      - user: Redis 的 maxmemory 现在是 2gb。
        assistant: 好的。
  - id: s-2
    project: ledger
    start: "2026-10-12T09:00:00Z"
    turns:
      - user: We raised the pod memory limit from 256Mi to 512Mi after the OOM kills.
        assistant: Good call.
      - user: 我们已经把 Node 从 18.19 升到 20.11 了，CI 镜像也换了。
        assistant: 好的。
      - user: 缓存的过期时间从 300s 调到 900s 了。
        assistant: 明白。
gold:
  - {id: memory limit, terms: [512Mi], facts: true}
  - {id: node version, terms: [Node 20.11], facts: true}
  - {id: ttl, terms: [900s], facts: true}
stale:
  - {id: old node, object: Node 18.19}
  - {id: old ttl, object: 300s}
  - {id: old limit, object: 256Mi}
"""


def test_a_setting_changed_from_one_value_to_another_is_current(tmp_path: Path) -> None:
    missed, stale, listing = _run(tmp_path, _SETTINGS)
    assert missed == [], listing
    assert stale == [], listing


_REVERTS = """
name: plans called off without naming them
sessions:
  - id: r-1
    project: app
    start: "2026-10-05T09:00:00Z"
    turns:
      - user: We're going to move the job queue off Sidekiq and onto GoodJob next sprint.
        assistant: Sounds good.
      - user: 我们打算把消息队列从 RabbitMQ 换成 Pulsar。
        assistant: 好的。
  - id: r-2
    project: app
    start: "2026-10-20T09:00:00Z"
    turns:
      - user: >-
          GoodJob can't handle our volume in the load test. We're reverting, the queue stays
          on Sidekiq.
        assistant: Understood.
      - user: Pulsar 运维成本太高，领导没批。所以不换了，消息队列还是继续用 RabbitMQ。
        assistant: 明白。
gold:
  - {id: sidekiq, terms: [Sidekiq], facts: true}
  - {id: rabbitmq, terms: [RabbitMQ], facts: true}
stale:
  - {id: goodjob, object: GoodJob}
  - {id: pulsar, object: Pulsar}
"""


def test_a_plan_called_off_without_naming_it_keeps_the_old_tool(tmp_path: Path) -> None:
    missed, stale, listing = _run(tmp_path, _REVERTS)
    assert missed == [], listing
    assert stale == [], listing


_DEADLINES = """
name: deadlines asked for and moved
sessions:
  - id: d-1
    project: reports
    start: "2026-11-03T09:00:00Z"
    turns:
      - user: Marta wants the churn dashboard finished by November 20th.
        assistant: OK.
      - user: Legal needs the retention report by Friday next week.
        assistant: OK.
      - user: 年底前要把数据中心迁移做完，11 月 25 日之前全部切完。
        assistant: 好的。
  - id: d-2
    project: reports
    start: "2026-11-10T09:00:00Z"
    turns:
      - user: Marta moved the churn dashboard out to December 4th, the data team is late.
        assistant: OK.
      - user: 数据中心迁移延期了，改到 12 月 9 日之前完成。
        assistant: 好的。
gold:
  - {id: churn, terms: [2026-12-04], facts: true}
  - {id: retention, terms: [2026-11-13]}
  - {id: migration, terms: [2026-12-09], facts: true}
stale:
  - {id: old churn, object: 2026-11-20}
  - {id: old migration, object: 2026-11-25}
"""


def test_deadlines_asked_for_moved_out_and_read_ahead(tmp_path: Path) -> None:
    missed, stale, listing = _run(tmp_path, _DEADLINES)
    assert missed == [], listing
    assert stale == [], listing


def test_a_weekday_of_next_or_last_week() -> None:
    tue = date(2026, 11, 24)  # a Tuesday
    (t,) = find_times("The review is on Thursday next week.", tue)
    assert t.day == date(2026, 12, 3)
    (t,) = find_times("We shipped it on Monday last week.", tue)
    assert t.day == date(2026, 11, 16)
    (t,) = find_times("Lunch is Friday this week.", tue)
    assert t.day == date(2026, 11, 27)


_CHOICES = """
name: choices and rules in passing
sessions:
  - id: c-1
    project: web
    start: "2026-10-05T09:00:00Z"
    turns:
      - user: We're going to try Percy for visual diffs.
        assistant: OK.
  - id: c-2
    project: web
    start: "2026-10-12T09:00:00Z"
    turns:
      - user: Percy is too slow on our CI, so we're dropping it and going with Chromatic instead.
        assistant: OK.
      - user: >-
          Also, I really dislike nested ternaries in JSX, use early returns wherever you can.
        assistant: OK.
      - user: From now on every migration ships with a rollback script unless it only adds a column.
        assistant: OK.
gold:
  - {id: chromatic, terms: [Chromatic], facts: true}
  - {id: early returns, terms: [early returns]}
  - {id: rollback rule, terms: [rollback script]}
"""


def test_choices_and_rules_said_in_passing(tmp_path: Path) -> None:
    missed, _stale, listing = _run(tmp_path, _CHOICES)
    assert missed == [], listing
    # the rule keeps its exception
    assert any("unless it only adds a column" in line for line in listing), listing


_JUNK = """
name: no junk from labels and small talk
sessions:
  - id: j-1
    project: etl
    start: "2026-11-05T09:00:00Z"
    turns:
      - user: 今天北京真冷，十二月了我还没买羽绒服。
        assistant: 注意保暖。
      - user: Please make the nightly export retry on failure.
        tools:
          - edit: dags/export.py
            content: "retries=3"
          - run: airflow dags test export
            output: "success"
            exit: 0
        assistant: "Done: the export DAG now retries three times, and the test run succeeds."
gold:
  - {id: retries, terms: [retries three times]}
"""


def test_where_the_year_has_got_to_dates_nothing_and_no_done_label(tmp_path: Path) -> None:
    path = tmp_path / "script.yaml"
    path.write_text(_JUNK, encoding="utf-8")
    (score,) = run_sessions([path])
    assert score.missed == [], score.listing
    assert not any("Done:" in line for line in score.listing), score.listing
    # "十二月了" says where the year has got to: nothing is dated December (of either year)
    assert not any("12月" in line or "2025" in line for line in score.listing), score.listing
