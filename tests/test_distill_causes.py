"""Developer-session readings of the seventh round (issue 14): a fix keeps its cause (the
agent's "X, so Y. I did Z" and the user's "failed because A; fixed by B"), switches in more
phrasings, a colleague's role said as what they lead or run, a rule that goes on in the next
sentence. End to end through a real tenant (git sessions, SQLite, JSONL knowledge files) with
``run_sessions``, and at extractor level on NodeRecords.
"""

from __future__ import annotations

from pathlib import Path

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
        assistant: 签名函数漏了请求体的哈希，所以服务端算出来的签名对不上。我把请求体的 SHA-256 加进了签名串，12 个测试全部通过。
      - user: "The invoice test failed because round() rounds half to even; fixed by using Decimal quantize."
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
