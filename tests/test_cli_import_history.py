"""``ogmem import claude-code|codex|aider``: the command line end to end, ``--watch`` in a real
subprocess that keeps syncing while a test appends to the file, stopped with Ctrl-C (SIGINT)."""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from ogmemory import Memory
from ogmemory.config import Settings
from ogmemory.interfaces.cli import app

FIXTURES = Path(__file__).parent / "fixtures" / "agent_history"
OLD = "6f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0"
runner = CliRunner()


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("OGMEM_", "CLAUDE_", "CODEX_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("OGMEM_EMBEDDER", "none")
    monkeypatch.setenv("OGMEM_DISTILL_ON_TURN", "0")


@pytest.fixture
def src(tmp_path: Path) -> Path:
    dest = tmp_path / "src"
    shutil.copytree(FIXTURES, dest)
    return dest


def run(*args: str | Path) -> Result:
    return runner.invoke(app, [str(a) for a in args])


def ok_json(*args: str | Path) -> Any:
    result = run(*args, "--json")
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return json.loads(result.stdout)


def test_json_report_then_nothing_new(src: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    first = ok_json("import", "claude-code", src / "claude_code", "--home", home)
    assert (first["sessions_new"], first["messages"], first["turns"]) == (5, 33, 16)
    assert first["left_out"]["thinking"] == 1
    assert first["issues_by_reason"] == {
        "invalid JSON": 1,
        "truncated last line": 1,
        "empty file": 1,
        "summary-only file (no messages)": 1,
    }
    assert {(i["line"], i["reason"]) for i in first["issues"]} >= {
        (13, "invalid JSON"),
        (34, "truncated last line"),
    }
    again = ok_json("import", "claude-code", src / "claude_code", "--home", home)
    assert (again["sessions_unchanged"], again["messages"], again["sessions_new"]) == (5, 0, 0)
    listed = ok_json("sessions", "list", "--home", home)
    assert listed[0]["session_id"] == "claude-5f0c1d2e-7a8b-4c9d-8e0f-1a2b3c4d5e01"


def test_table_names_what_was_left_out_and_where(src: Path, tmp_path: Path) -> None:
    result = run("import", "codex", src / "codex", "--home", tmp_path / "home")
    assert result.exit_code == 0, result.stderr
    out = " ".join(result.stdout.split())
    for text in (
        "sessions new │ 2",
        "messages │ 17",
        "left out: reasoning │ 2",
        "skipped: invalid JSON │ 1",
        "Skipped (file, line, reason)",
        "truncated last line",
    ):
        assert text in out, text
    # the line and its reason side by side, as a table or (80 columns, long paths) stacked
    assert re.search(r"\b19 (│ )?invalid JSON", out), out


def test_default_locations_come_from_the_agents_environment(
    src: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(src / "claude_code"))
    monkeypatch.setenv("CODEX_HOME", str(src / "codex"))
    assert ok_json("import", "claude-code", "--home", home)["sessions_new"] == 5
    assert ok_json("import", "codex", "--home", home)["sessions_new"] == 2
    monkeypatch.chdir(src / "aider" / "webshop")
    assert ok_json("import", "aider", "--home", home)["sessions_new"] == 2
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "nowhere"))
    result = run("import", "codex", "--home", home)
    assert result.exit_code == 2
    assert "no codex history found at" in result.stderr and "give a PATH" in result.stderr


def test_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    result = run("import", "aider", tmp_path / "missing.md", "--home", tmp_path / "home")
    assert result.exit_code == 2 and "does not exist" in result.stderr


def _reader(proc: subprocess.Popen[str]) -> queue.Queue[str]:
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)

    threading.Thread(target=pump, daemon=True).start()
    return lines


def _as_a_background_job() -> None:
    """What a script's ``cmd &`` (no job control) does to the child: SIGINT starts ignored, so
    Python never turns it into KeyboardInterrupt (a full test run started that way hung here
    before ``import --watch`` installed its own handlers)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize("stop_with", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "term"])
def test_watch_keeps_syncing_until_ctrl_c(
    src: Path, tmp_path: Path, stop_with: signal.Signals
) -> None:
    path = next((src / "codex").rglob(f"*{OLD}.jsonl"))
    home = tmp_path / "home"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ogmemory.interfaces.cli",
            "import",
            "codex",
            str(path),
            "--watch",
            "--interval",
            "0.1",
            "--json",
            "--home",
            str(home),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        preexec_fn=_as_a_background_job,
    )
    try:
        lines = _reader(proc)
        first = json.loads(lines.get(timeout=120))
        assert (first["sessions_new"], first["messages"]) == (1, 4)
        items = [
            {
                "type": "message",
                "role": "user" if i % 2 == 0 else "assistant",
                "content": [
                    {"type": "input_text" if i % 2 == 0 else "output_text", "text": f"watched {i}"}
                ],
            }
            for i in range(10)
        ]
        with open(path, "a", encoding="utf-8") as fh:  # the agent writes on
            fh.writelines(json.dumps(item) + "\n" for item in items[:4])
        seen = json.loads(lines.get(timeout=120))["messages"]
        with open(path, "a", encoding="utf-8") as fh:
            fh.writelines(json.dumps(item) + "\n" for item in items[4:])
        while seen < 10:
            seen += json.loads(lines.get(timeout=120))["messages"]
        assert seen == 10
        proc.send_signal(stop_with)
        assert proc.wait(timeout=60) == 0
        assert proc.stderr is not None and "Stopped watching." in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    mem = Memory(settings=Settings(home=home, distill_on_turn=False, embedder="none"))
    nodes = mem.get_nodes(f"codex-{OLD}")
    assert len(nodes) == 14 and nodes[-1].content == "watched 9"
    mem.close()
