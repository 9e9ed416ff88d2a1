"""``ogmem bench knowledge``: the LoCoMo observation scores and the scripted developer sessions,
on small files written here, through the real pipeline (git, JSONL) and the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ogmemory.errors import InvalidInput
from ogmemory.evaluation.devsessions import load_script, run_sessions
from ogmemory.evaluation.knowledge import observations, run_knowledge, score_sample
from ogmemory.interfaces.cli import app

runner = CliRunner()


pytestmark = pytest.mark.usefixtures("no_ogmem_env")


def locomo_file(tmp_path: Path) -> Path:
    """One conversation: a salient turn, a phatic one, a second salient one."""
    sample = {
        "sample_id": "tiny",
        "conversation": {
            "speaker_a": "Ana",
            "speaker_b": "Ben",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {
                    "speaker": "Ana",
                    "dia_id": "D1:1",
                    "text": "I went to a pottery class yesterday and made a blue bowl.",
                },
                {"speaker": "Ben", "dia_id": "D1:2", "text": "Wow, that's awesome, Ana!"},
                {
                    "speaker": "Ana",
                    "dia_id": "D1:3",
                    "text": "I'm training for the city marathon in October.",
                },
            ],
        },
        "observation": {
            "session_1_observation": {
                "Ana": [
                    ["Ana went to a pottery class and made a blue bowl.", "D1:1"],
                    ["Ana is training for a marathon in October.", "D:1:03"],
                ],
                "Ben": [["Ben cheers Ana on.", "D1:2"], ["A turn that does not exist.", "D9:9"]],
            }
        },
        "qa": [],
    }
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps([sample]))
    return path


def test_knowledge_scores_on_a_small_conversation(tmp_path: Path) -> None:
    data = locomo_file(tmp_path)
    report = run_knowledge(data, home=tmp_path / "bench")
    (s,) = report.samples
    # repaired ids ("D:1:03" -> D1:3); an observation about a turn that does not exist dropped
    assert s.observations == 3
    assert (s.covered, s.covered_semantic) == (2, 2)  # the phatic turn has no memory
    assert s.memories == 2 and s.grounded == 2 and s.turns == 3  # LoCoMo turns: messages
    assert report.total.coverage == pytest.approx(2 / 3)
    assert (tmp_path / "bench" / "tenants" / "knowledge" / "tiny").is_dir()


def test_score_sample_counts() -> None:
    obs = observations(
        {"observation": {"s": {"A": [["x", "D1:1"], ["y", ["D1:2", "D1:3"]]]}}},
        {"D1:1", "D1:2", "D1:3"},
    )
    assert [o.dia_ids for o in obs] == [("D1:1",), ("D1:2", "D1:3")]
    memories = {"m1": ("x", {"D1:3"}), "m2": ("z", {"D7:7"})}
    assert score_sample("s", obs, memories, None) == (1, 0, 2, 1)


def script(tmp_path: Path) -> Path:
    path = tmp_path / "mini.yaml"
    path.write_text("""
name: mini
sessions:
  - id: s1
    project: app
    start: "2026-03-02T09:00:00Z"
    turns:
      - user: Let's use MySQL for the database.
        assistant: "Noted: MySQL."
      - user: Run the tests.
        tools:
          - run: pytest -q
            output: "3 passed"
            exit: 0
        assistant: "All 3 tests pass."
      - user: Actually, let's switch from MySQL to PostgreSQL.
        after: 1d
gold:
  - {id: postgres, terms: [PostgreSQL], facts: true}
  - {id: never said, terms: [Oracle]}
stale:
  - {id: mysql, object: MySQL}
  - {id: sqlite, object: SQLite}
junk: ["pytest"]
""")
    return path


def test_scripted_sessions_are_played_and_scored(tmp_path: Path) -> None:
    (score,) = run_sessions([script(tmp_path)])
    assert score.found == ["postgres"] and score.missed == ["never said"]
    assert score.stale == [] and score.junk == []
    assert any("PostgreSQL" in line for line in score.listing)
    assert "Noted" not in "\n".join(score.listing)


def test_a_bad_script_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("sessions:\n  - turns:\n      - assistant: hi\n")
    with pytest.raises(InvalidInput, match=r"turns\[0\] needs 'user' text"):
        load_script(bad)
    bad.write_text("sessions: [")
    with pytest.raises(InvalidInput, match="cannot read session script"):
        load_script(bad)


def test_the_cli_prints_both_tables(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "bench",
            "knowledge",
            "--data",
            str(locomo_file(tmp_path)),
            "--no-recall",
            "--sessions",
            str(script(tmp_path)),
        ],
    )
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    out = result.stdout
    assert "semantic coverage" in out and "grounded" in out and "tiny" in out
    assert "gold found" in out and "1/2" in out and "never said" in out
    missing = runner.invoke(app, ["bench", "knowledge"])
    assert missing.exit_code == 2 and "--data" in missing.stderr
    nothing = runner.invoke(app, ["bench", "knowledge", "--sessions", str(tmp_path / "no")])
    assert nothing.exit_code == 2 and "no such session script" in nothing.stderr
