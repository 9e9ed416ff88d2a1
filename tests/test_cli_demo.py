"""``ogmem demo`` as a newcomer meets it: it never writes into the real memory ($OGMEM_HOME),
says first what it imports and how to choose another file, keeps the session list short, dates
sessions as ``sessions list`` does, and prints commands that run as pasted."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from ogmemory.interfaces.cli import app
from ogmemory.interfaces.cli.demo import SESSION_ROWS

runner = CliRunner()


@pytest.fixture(autouse=True)
def _env(no_ogmem_env: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("OGMEM_EMBEDDER", "none")  # vectors are not the subject here
    monkeypatch.chdir(tmp_path)


def demo(*args: str | Path) -> Result:
    result = runner.invoke(app, ["demo", *map(str, args)])
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result


def locomo_file(path: Path, sessions: int) -> Path:
    """A LoCoMo-format file: one conversation of ``sessions`` one-turn sessions, a day apart."""
    conversation: dict[str, Any] = {"speaker_a": "Ana", "speaker_b": "Ben"}
    for n in range(1, sessions + 1):
        conversation[f"session_{n}_date_time"] = f"10:00 am on {n} March, 2024"
        conversation[f"session_{n}"] = [
            {"speaker": "Ana", "dia_id": f"D{n}:1", "text": f"I visited museum number {n} today."},
            {"speaker": "Ben", "dia_id": f"D{n}:2", "text": "That sounds like a good day out."},
        ]
    qa = [{"question": "Which museum did Ana visit?", "answer": "1", "category": 4}]
    path.write_text(json.dumps([{"sample_id": "c1", "conversation": conversation, "qa": qa}]))
    return path


def test_the_demo_never_writes_into_ogmem_home_unless_told(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = tmp_path / "my-real-memory"
    monkeypatch.setenv("OGMEM_HOME", str(real))
    data = locomo_file(tmp_path / "conv.json", 2)
    result = demo("--data", data, "--json")
    assert Path(json.loads(result.stdout)["home"]) == tmp_path / "demo-home"
    assert (tmp_path / "demo-home").is_dir() and not real.exists()
    assert "OGMEM_HOME is set" in result.stderr and '--home "$OGMEM_HOME"' in result.stderr
    # said explicitly, it is used
    there = demo("--data", data, "--home", real, "--json")
    assert Path(json.loads(there.stdout)["home"]) == real and real.is_dir()
    assert "OGMEM_HOME is set" not in there.stderr


def test_the_demo_says_first_what_it_imports_and_how_to_choose(tmp_path: Path) -> None:
    result = demo()  # nothing found above tmp_path: the bundled sample
    first = result.stderr.splitlines()[0]
    assert first.startswith("Using the small sample bundled with ogmemory (1 conversation")
    assert "--data FILE" in result.stderr and "OGMEM_LOCOMO" in result.stderr
    assert "recorded from the bundled sample" in result.stdout
    # every long step says how far it is, even without a terminal (here: no vectors to make)
    steps = [line.split(":")[0] for line in result.stderr.splitlines() if " done in " in line]
    assert steps == ["Importing", "Distilling (rule-based, no LLM)"]
    data = locomo_file(tmp_path / "conv.json", 3)
    named = demo("--data", data)
    assert named.stderr.splitlines()[0] == (
        f"Using LoCoMo data from {data} (1 conversation(s), 3 session(s))"
    )


def test_the_session_list_is_a_short_summary_dated_like_sessions_list(tmp_path: Path) -> None:
    result = demo("--data", locomo_file(tmp_path / "conv.json", 9))
    rows = [line for line in result.stdout.splitlines() if re.match(r"│ c1-s\d+ ", line)]
    assert len(rows) == SESSION_ROWS
    assert "9 session(s), 9 turn(s) of 1 conversation(s)" in result.stdout
    more = next(line for line in result.stdout.splitlines() if line.startswith("... and 4 more"))
    listing = runner.invoke(app, [*shlex.split(more.split(": ", 1)[1])[1:], "--json"])
    listed = json.loads(listing.stdout)
    assert len(listed) == 9
    # the same sessions as the top of `sessions list`, with the date it shows (the conversation's)
    table = runner.invoke(app, ["sessions", "list", "--home", str(tmp_path / "demo-home")])
    top = [line for line in table.stdout.splitlines() if re.match(r"│ c1-s\d+ ", line)]
    for shown, listed_row in zip(rows, top, strict=False):
        assert shown.split("│")[1] == listed_row.split("│")[1]  # same id, same order
        date = re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d", shown)
        assert date and date.group() in listed_row
    assert re.search(r"│ c1-s9 .*2024-03-09 10:00 │", result.stdout)  # not the import's time


def test_every_printed_command_runs_as_pasted(tmp_path: Path) -> None:
    result = demo("--data", locomo_file(tmp_path / "conv.json", 2))
    lines = result.stdout.splitlines()
    start = lines.index("Next (copy and paste):")
    block = lines[start + 1 : lines.index("", start)]
    commands = [ln.strip() for ln in block if not ln.strip().startswith("(")]
    assert len(commands) == 3
    hint = next((ln for ln in lines[start:] if "export PATH=" in ln), None)
    env = {k: v for k, v in os.environ.items() if not k.startswith("OGMEM_")}
    env["OGMEM_EMBEDDER"] = "none"
    for command in commands:
        argv = shlex.split(command)
        if argv[0] != "ogmem":  # not on PATH: the absolute path, and how to put it there
            assert Path(argv[0]).is_absolute() and os.access(argv[0], os.X_OK), argv[0]
            assert hint is not None and str(Path(argv[0]).parent) in hint
        assert Path(argv[argv.index("--home") + 1]).is_absolute()
        proc = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
        assert proc.returncode == 0, (command, proc.stderr)
    chat = next(ln for ln in result.stderr.splitlines() if "chat with this memory" in ln)
    assert Path(shlex.split(chat.split(": ", 1)[1])[0]).is_absolute() or "ogmem chat" in chat


def test_the_distillation_progress_counts_every_imported_message(tmp_path: Path) -> None:
    """The fast path distils each session as the import commits it; the demo's progress still
    counts all the imported messages (it said '5/5 messages' after importing 1,451)."""
    result = demo("--data", locomo_file(tmp_path / "conv.json", 9))
    assert "Imported 9 session(s): 9 turn(s), 18 message(s)." in result.stdout
    lines = [ln for ln in result.stderr.splitlines() if ln.startswith("Distilling")]
    start = re.fullmatch(
        r"Distilling \(rule-based, no LLM\): (\d+)/18 messages"
        r"( \((\d+) distilled while importing\))? \.\.\.",
        lines[0],
    )
    assert start, lines
    assert start.group(3) in (None, start.group(1))  # said how the first ones were done
    assert lines[-1].startswith("Distilling (rule-based, no LLM): 18/18 messages done in ")
