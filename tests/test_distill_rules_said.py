"""Standing rules as developers type them (issue 14): a rule list after a label with a
particle ("几条规矩哈：..."), a rule holding a condition ("……的话在展示层自己转", "if X, never
Y"), a bare 别 opening a clause, "the non-negotiables: ...", "no <token> in <place> please";
and what is no rule: "别急" and a short 别 that only points back ("别在这上面花时间了").
Read by the rule extractor from real nodes; each case fails on the code before."""

from __future__ import annotations

from pathlib import Path

import pytest

from ogmemory.distill.extractors.rules import RuleExtractor
from ogmemory.entity.records import Node, NodeRecord
from ogmemory.evaluation.devsessions import run_sessions


def _rules(text: str) -> list[str]:
    node = Node("n1", 1, "user", text, None, 1.8e9, 1.8e9)
    rec = NodeRecord("s", "kite", None, node, "c", 1)
    return [c.text for c in RuleExtractor().extract([rec]).candidates if c.type == "rule"]


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("两条规矩哈：日志一律打到 stdout，要落盘的话让 sidecar 去收。", "日志一律打到 stdout"),
        ("还有，别直接改线上的 nginx 配置，走发布单。", "别直接改线上的 nginx 配置"),
        (
            "the non-negotiables: type hints on every public function, no exceptions.",
            "type hints on every public function",
        ),
        ("no console.log in components please, use the logger.", "no console.log in components"),
        ("如果构建挂了的话，千万别强推，先在群里说一声。", "千万别强推"),
    ],
)
def test_rules_as_developers_type_them(text: str, kept: str) -> None:
    rules = _rules(text)
    assert any(kept in r for r in rules), rules


@pytest.mark.parametrize("text", ["别急，我先看看日志。", "别在这上面花时间了。", "这个别动。"])
def test_what_is_no_standing_rule(text: str) -> None:
    assert _rules(text) == []


def test_whether_to_is_no_rule() -> None:
    """要不要 asks whether; it is no 不要."""
    assert _rules("构建日志贴一下你看看，有个 warning 不知道要不要管。") == []


def test_a_chinese_lesson_says_the_user_not_you(tmp_path: Path) -> None:
    """The assistant's 你 in an explanation is the user it answers: no 你 in the memory."""
    script = tmp_path / "s.yaml"
    script.write_text(
        """
name: lesson
sessions:
  - id: l-1
    project: kite
    start: "2027-03-01T09:00:00Z"
    turns:
      - user: 为什么这几个接口一到月底就超时？
        assistant: >-
          根因在连接池上，你这几个服务的连接池上限都是 10，月底跑批时并发翻倍，请求只能排队等连接。
gold:
  - {id: lesson, terms: [连接池]}
""",
        encoding="utf-8",
    )
    (score,) = run_sessions([script])
    lessons = [line for line in score.listing if "连接池" in line]
    assert lessons and not any("你" in line for line in lessons), score.listing
