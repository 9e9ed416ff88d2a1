"""A switch away from a tool ends whoever held it in the scope, under any longer name or as a
version; a deadline that ends at its date can still be moved before it. End to end through a
real tenant (git sessions, JSONL knowledge files) with ``run_sessions``.
"""

from __future__ import annotations

from pathlib import Path

from ogmemory.evaluation.devsessions import run_sessions

_SCRIPT = """
name: switches
sessions:
  - id: w-1
    project: lamp
    start: "2026-03-02T09:00:00Z"
    turns:
      - user: 固件跑在 Zephyr 3.6 上，编译器是 arm-none-eabi-gcc。
        assistant: 好的。
      - user: "For the multiplayer part we're going with Mirror Networking, dedicated servers."
        assistant: "OK."
      - user: "The launch trailer has to be delivered by May 4."
        assistant: "May 4."
  - id: w-2
    project: lamp
    start: "2026-03-20T09:00:00Z"
    turns:
      - user: 为了拿到认证，下个版本起系统从 Zephyr 换成 NuttX。
        assistant: 好的。
      - user: "Licensing got messy, so we're switching from Mirror to FishNet."
        assistant: "OK."
      - user: "The agency slipped, so the launch trailer now has to be delivered by May 11 instead."
        assistant: "May 11."
gold:
  - {id: nuttx, terms: [NuttX], facts: true}
  - {id: fishnet, terms: [FishNet], facts: true}
  - {id: trailer, terms: ["2026-05-11"], facts: true}
stale:
  - {id: zephyr current, object: Zephyr}
  - {id: mirror current, object: Mirror Networking}
  - {id: old trailer date, object: "2026-05-04"}
"""


def test_a_switch_ends_the_old_tool_and_a_moved_date_the_old_date(tmp_path: Path) -> None:
    script = tmp_path / "script.yaml"
    script.write_text(_SCRIPT, encoding="utf-8")
    (score,) = run_sessions([script])
    assert score.stale == []
    assert score.missed == []
    assert score.wrong == [] and score.junk == []


_CALLED_OFF = """
name: called off
sessions:
  - id: c-1
    project: shop
    start: "2026-11-20T09:00:00Z"
    turns:
      - user: 我们打算把打包工具从 webpack 换成 Vite。
        assistant: 好的。
      - user: "Let's switch the e2e suite from Cypress to Playwright."
        assistant: "OK."
  - id: c-2
    project: shop
    start: "2026-11-27T09:00:00Z"
    turns:
      - user: 算了，Vite 先不换了，还是继续用 webpack，插件迁移成本太高。
        assistant: 好的。
      - user: "Never mind, scrap the move to Playwright, we're sticking with Cypress."
        assistant: "OK."
gold:
  - {id: webpack, terms: [webpack], facts: true}
  - {id: cypress, terms: [Cypress], facts: true}
stale:
  - {id: vite, object: Vite}
  - {id: playwright, object: Playwright}
"""


def test_a_plan_called_off_ends_the_planned_tool(tmp_path: Path) -> None:
    script = tmp_path / "script.yaml"
    script.write_text(_CALLED_OFF, encoding="utf-8")
    (score,) = run_sessions([script])
    assert score.stale == []
    assert score.missed == []
    assert score.wrong == [] and score.junk == []


_MOVED_ELSEWHERE = """
name: moved under another subject
sessions:
  - id: d-1
    project: thesis
    start: "2026-04-01T02:00:00Z"
    turns:
      - user: 实验室要投 ISMB 的 workshop，摘要 5 月 10 日截止。
        assistant: 好的。
  - id: d-2
    project: thesis
    start: "2026-04-08T02:00:00Z"
    turns:
      - user: 好消息，ISMB 摘要截止延期到 5 月 17 日了。
        assistant: 好的。
gold:
  - {id: new date, terms: ["2026-05-17"], facts: true}
stale:
  - {id: old date, object: "2026-05-10"}
"""


def test_a_moved_deadline_ends_the_first_date_whoever_it_was_filed_under(tmp_path: Path) -> None:
    script = tmp_path / "script.yaml"
    script.write_text(_MOVED_ELSEWHERE, encoding="utf-8")
    (score,) = run_sessions([script])
    assert score.stale == [] and score.missed == []
