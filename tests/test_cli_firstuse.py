"""The command line as a newcomer meets it: errors as JSON with ``--json``, help without type
labels on flags, and reads that never create a home that is not there."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from ogmemory.interfaces.cli import app

runner = CliRunner()

#: Read commands with the arguments they need (run against a home that does not exist).
READS = [
    ["recall", "green tea"],
    ["search", "green tea"],
    ["timeline"],
    ["core"],
    ["sessions", "list"],
    ["memories", "list"],
    ["graph", "facts"],
    ["graph", "entities"],
    ["batches", "list"],
    ["project", "list"],
    ["outbox", "status"],
]


@pytest.fixture(autouse=True)
def _clean_env(no_ogmem_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OGMEM_EMBEDDER", "none")  # nothing here is about vectors


def ogmem(*args: str | Path) -> Result:
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home holding the bundled LoCoMo sample."""
    home = tmp_path_factory.mktemp("firstuse") / "home"
    sample = resources.files("ogmemory").joinpath("data", "sample_locomo.json")
    with resources.as_file(sample) as path:
        result = runner.invoke(
            app,
            ["import", "locomo", str(path), "--home", str(home)],
            env={"OGMEM_EMBEDDER": "none"},
        )
    assert result.exit_code == 0, result.output
    return home


# ----------------------------------------------------------------------------- --json errors


def test_json_error_is_an_object_on_stdout_with_the_same_exit_code(home: Path) -> None:
    plain = ogmem("sessions", "show", "no-such-session", "--home", home)
    assert plain.exit_code == 1 and plain.stdout == ""
    assert plain.stderr.startswith("Error: ")  # without --json: unchanged
    as_json = ogmem("sessions", "show", "no-such-session", "--home", home, "--json")
    assert as_json.exit_code == 1
    error = json.loads(as_json.stdout)["error"]
    assert error == {
        "type": "SessionNotFound",
        "message": plain.stderr[len("Error: ") :].strip(),
        "exit_code": 1,
    }
    bad_id = ogmem("sessions", "show", "../x", "--home", home, "--json")
    assert bad_id.exit_code == 2
    assert json.loads(bad_id.stdout)["error"]["exit_code"] == 2
    assert "must not contain '..'" in json.loads(bad_id.stdout)["error"]["message"]


def test_json_usage_error_is_json_too(home: Path) -> None:
    plain = ogmem("recall", "x", "--budget", "lots", "--home", home)
    assert plain.exit_code == 2 and "--budget" in plain.stderr and plain.stdout == ""
    result = ogmem("recall", "x", "--budget", "lots", "--home", home, "--json")
    assert result.exit_code == 2
    error = json.loads(result.stdout)["error"]
    assert error["exit_code"] == 2 and "--budget" in error["message"]
    # a value '--json' after '--' is a query, not the flag: the error stays plain text
    after = ogmem("recall", "--budget", "lots", "--", "--json")
    assert after.exit_code == 2 and after.stdout == ""


def test_json_error_from_a_real_process(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OGMEM_")}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "ogmemory.interfaces.cli",
            "sessions",
            "show",
            "../x",
            "--home",
            str(tmp_path / "h"),
            "--json",
        ],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    assert json.loads(proc.stdout)["error"]["type"] == "InvalidId"
    assert "Traceback" not in proc.stderr


# ----------------------------------------------------------------------------- help


@pytest.mark.parametrize("command", [["recall"], ["sessions", "list"], ["import", "locomo"], []])
def test_help_shows_no_type_label_on_flags(command: list[str]) -> None:
    result = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "120"})
    assert result.exit_code == 0
    assert "--help" in result.stdout
    flag_lines = [
        line
        for line in result.stdout.splitlines()
        if re.search(r"--(json|help|version|context)\b", line)
    ]
    assert flag_lines
    for line in flag_lines:
        assert not re.search(r"<bool>|BOOLEAN", line), line
    if command == ["recall"]:  # value options name what they take, in capitals
        assert re.search(r"--home +DIR ", result.stdout)
        assert re.search(r"--account +NAME ", result.stdout)
        assert "<str>" not in result.stdout.split("Options")[1]


# ----------------------------------------------------------------------------- missing home


@pytest.mark.parametrize("command", READS, ids=[" ".join(c) for c in READS])
def test_read_of_a_missing_home_warns_and_creates_nothing(
    command: list[str], tmp_path: Path
) -> None:
    typo = tmp_path / "typo"
    result = ogmem(*command, "--home", typo)
    assert result.exit_code == 0, (result.stdout, result.stderr)
    assert f"no ogmemory home at {typo}" in result.stderr
    assert not typo.exists()
    assert list(tmp_path.iterdir()) == []


def test_read_of_a_missing_tenant_warns_and_creates_nothing(home: Path) -> None:
    result = ogmem("sessions", "list", "--home", home, "--account", "nobody", "--json")
    assert result.exit_code == 0 and json.loads(result.stdout) == []
    assert "nothing recorded for account 'nobody'" in result.stderr
    assert not (home / "tenants" / "nobody").exists()
    # the tenant that exists reads without a warning
    found = ogmem("sessions", "list", "--home", home, "--json")
    assert found.exit_code == 0 and len(json.loads(found.stdout)) == 2
    assert "warning" not in found.stderr


def test_a_write_still_creates_its_home(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh"
    result = ogmem("memories", "add", "I prefer green tea.", "--home", fresh)
    assert result.exit_code == 0, result.output
    assert fresh.is_dir() and "warning" not in result.stderr


def test_not_found_in_a_missing_home_says_why_in_one_line(tmp_path: Path) -> None:
    typo = tmp_path / "typo"
    result = ogmem("sessions", "show", "s1", "--home", typo)
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("Error: ")
    assert f"no ogmemory home at {typo}" in result.stderr
    as_json = ogmem("sessions", "show", "s1", "--home", typo, "--json")
    assert f"no ogmemory home at {typo}" in json.loads(as_json.stdout)["error"]["message"]
    bad = ogmem("sessions", "show", "../x", "--home", typo)  # bad input: about the id only
    assert bad.exit_code == 2 and "home" not in bad.stderr
    assert not typo.exists()


def test_recall_json_on_a_missing_home_says_why_it_is_empty(tmp_path: Path) -> None:
    typo = tmp_path / "typo"
    result = ogmem("recall", "green tea", "--home", typo, "--json")
    assert result.exit_code == 0
    answer = json.loads(result.stdout)
    assert answer["items"] == []
    assert answer["reason"] == f"no ogmemory home at {typo} (check --home or $OGMEM_HOME)"
    plain = ogmem("recall", "green tea", "--home", typo)
    assert f"Note: no ogmemory home at {typo}" in plain.stdout
    assert not typo.exists()
