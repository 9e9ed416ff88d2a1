"""What the rule families leave: a developer's statement whose names, versions or hosts no
candidate holds is kept as a third-person note of its own; one-off requests are not. Extractor
level on NodeRecords, and end to end through a real tenant (git sessions, JSONL knowledge
files) with ``run_sessions``.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from test_distill_reading import chat, texts

from ogmemory.distill.extractors._common import split_sentences
from ogmemory.evaluation.devsessions import run_sessions


@pytest.mark.parametrize(
    ("said", "term"),
    [
        (
            "hi! I'm Amara Okafor, a third-year PhD student in the Vision and Language group at"
            " Eindhoven University.",
            "Eindhoven University",
        ),
        (
            "honestly I'm much happier with Hydra configs than with argparse flags everywhere.",
            "Hydra configs",
        ),
        ("We deploy the billing stack to eu-west-3 behind a Traefik gateway.", "Traefik"),
        ("先自我介绍一下，我是刘晓雯，在鲜果到家做移动端开发，主要写 Flutter。", "Flutter"),
    ],
)
def test_a_statement_whose_terms_no_family_holds_is_kept(said: str, term: str) -> None:
    kept = [t for t in texts(chat(said, "Nice.")) if term in t]
    assert kept, texts(chat(said, "Nice."))
    assert all(not t.startswith(("hi", "Honestly", "I ", "我")) for t in kept)
    assert all("自用户" not in t and "我" not in t for t in kept)


@pytest.mark.parametrize(
    "said",
    [
        "Launch the ablation sweep on the Slurm cluster please.",
        "can you rerun the Playwright suite on staging.example.com",
        "Run pytest.",
        "请帮我跑一下 Flutter 的单元测试。",
    ],
)
def test_a_one_off_request_is_no_memory(said: str) -> None:
    assert texts(chat(said, "Done.")) == []


def test_a_title_does_not_end_a_sentence() -> None:
    said = "My supervisor is Prof. Henrik Sandberg. He likes notes, e.g. one page."
    got = [s.text for s in split_sentences(said, date(2026, 1, 1))]
    assert got == ["My supervisor is Prof. Henrik Sandberg.", "He likes notes, e.g. one page."]


def test_a_date_the_families_resolved_is_not_left_over() -> None:
    # the deadline family holds "April 14" as 2026-04-14: no second note of the sentence
    cands = chat("The release ships on April 14.", "OK.")
    assert [c.text for c in cands if c.type == "note"] == []


_SCRIPT = """
name: residual statements
sessions:
  - id: r-1
    project: lab
    start: "2026-10-26T14:00:00Z"
    turns:
      - user: >-
          hi! I'm Amara Okafor, a third-year PhD student in the Vision and Language group at
          Eindhoven University.
        assistant: "Hi Amara."
      - user: honestly I'm much happier with Hydra configs than with argparse flags everywhere.
        assistant: "Will do."
      - user: Launch the ablation sweep on the cluster please.
        tools:
          - run: sbatch scripts/sweep.sh
            output: "Submitted batch job 4471823"
            exit: 0
        assistant: "Submitted."
gold:
  - {id: affiliation, terms: [Eindhoven]}
  - {id: role, terms: [PhD]}
  - {id: hydra, terms: [Hydra]}
junk: ["ablation sweep", "sbatch"]
"""


def test_a_developer_session_keeps_what_no_family_read(tmp_path: Path) -> None:
    script = tmp_path / "script.yaml"
    script.write_text(_SCRIPT, encoding="utf-8")
    (score,) = run_sessions([script])
    assert score.missed == []
    assert score.junk == [] and score.duplicates == []
    # the request itself is no note (the work record says what was done)
    assert not any(line.startswith("[note/") and "sweep" in line for line in score.listing)
