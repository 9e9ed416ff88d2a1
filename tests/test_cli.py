"""The ``ogmem`` command line, end to end: real files, real git repositories, a real subprocess."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner, Result

from ogmemory import Memory
from ogmemory.importers import parse_locomo_date
from ogmemory.interfaces.cli import app
from ogmemory.interfaces.cli.demo import find_locomo

runner = CliRunner()


pytestmark = pytest.mark.usefixtures("no_ogmem_env")


@pytest.fixture()
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture(scope="module")
def sample() -> Iterator[Path]:
    """The LoCoMo sample bundled with the package, as a real file."""
    resource = resources.files("ogmemory").joinpath("data", "sample_locomo.json")
    with resources.as_file(resource) as path:
        yield path


def ogmem(*args: str | Path, input: str | None = None) -> Result:
    return runner.invoke(app, [str(a) for a in args], input=input)


def ok(*args: str | Path, input: str | None = None) -> Result:
    result = ogmem(*args, input=input)
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result


def ok_json(*args: str | Path) -> Any:
    return json.loads(ok(*args, "--json").stdout)


def user_error(code: int, *args: str | Path) -> Result:
    """Run a command that must fail cleanly: ``code``, one message, no traceback."""
    result = ogmem(*args)
    assert result.exit_code == code, (result.stdout, result.stderr, result.exception)
    assert isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    assert result.stderr.startswith("Error: ")
    return result


def git(*args: str, cwd: Path) -> str:
    out = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)
    return out.stdout


def session_path(home: Path, session_id: str) -> Path:
    infos = ok_json("sessions", "list", "--home", home)
    return Path(next(s["path"] for s in infos if s["session_id"] == session_id))


def write_jsonl(path: Path, *objects: object) -> Path:
    path.write_text("".join(json.dumps(o) + "\n" for o in objects), encoding="utf-8")
    return path


# ---------------------------------------------------------------------------- import


def test_import_openai_one_message_per_line(tmp_path: Path, home: Path) -> None:
    chat = write_jsonl(
        tmp_path / "chat.jsonl",
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "We deploy with Postgres 16."},
        {"role": "assistant", "content": "Noted: Postgres 16."},
        {"role": "user", "content": "And Redis for [bold]caching[/bold]."},
        {"role": "assistant", "content": "Noted: Redis."},
    )
    summary = ok_json("import", "openai", chat, "--home", home)
    assert summary == {
        "sessions_created": 1,
        "sessions_skipped": 0,
        "turns": 2,
        "messages": 4,
        "messages_skipped": 1,
    }

    nodes = ok_json("sessions", "show", "chat", "--home", home)
    assert [(n["role"], n["content"]) for n in nodes] == [
        ("user", "We deploy with Postgres 16."),
        ("assistant", "Noted: Postgres 16."),
        ("user", "And Redis for [bold]caching[/bold]."),
        ("assistant", "Noted: Redis."),
    ]
    # The table shows user text as typed: brackets are not read as rich markup.
    assert "[bold]caching[/bold]" in ok("sessions", "show", "chat", "--home", home).stdout

    repo = session_path(home, "chat")
    git("fsck", "--strict", cwd=repo)
    assert git("rev-list", "--count", "HEAD", cwd=repo).strip() == "2"

    again = ok("import", "openai", chat, "--home", home)
    assert "Skipped 1 session(s) that already exist" in again.stdout


def test_import_openai_messages_per_line(tmp_path: Path, home: Path) -> None:
    finetune = write_jsonl(
        tmp_path / "ft.jsonl",
        {
            "messages": [
                {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": "Hello"},
            ]
        },
        {
            "session_id": "named",
            "title": "Named chat",
            "messages": [
                {"role": "user", "content": "Q1"},
                {"role": "assistant", "content": "A1"},
                {"role": "user", "content": "Q2"},
                {"role": "assistant", "content": "A2"},
            ],
        },
    )
    summary = ok_json("import", "openai", finetune, "--home", home)
    assert summary["sessions_created"] == 2
    assert summary["turns"] == 3
    sessions = {s["session_id"]: s for s in ok_json("sessions", "list", "--home", home)}
    assert set(sessions) == {"ft-1", "named"}
    assert sessions["named"]["title"] == "Named chat"
    assert sessions["named"]["turns"] == 2
    git("fsck", "--strict", cwd=Path(sessions["named"]["path"]))


def test_import_openai_rejects_two_files_holding_one_session(tmp_path: Path, home: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = write_jsonl(tmp_path / "a" / "chat.jsonl", {"role": "user", "content": "one"})
    second = write_jsonl(tmp_path / "b" / "chat.jsonl", {"role": "user", "content": "two"})
    result = user_error(2, "import", "openai", first, second, "--home", home)
    assert "'chat'" in result.stderr
    assert ok_json("sessions", "list", "--home", home) == []


def test_import_locomo_bundled_sample(sample: Path, home: Path) -> None:
    result = ok("import", "locomo", sample, "--home", home)
    assert "Imported 2 session(s): 7 turn(s), 12 message(s)." in result.stdout

    nodes = ok_json("sessions", "show", "sample-1-s1", "--home", home)
    assert [n["metadata"]["dia_id"] for n in nodes] == [f"D1:{i}" for i in range(1, 7)]
    assert [n["role"] for n in nodes[:2]] == ["user", "assistant"]
    assert [n["name"] for n in nodes[:2]] == ["Priya", "Tomas"]
    assert nodes[0]["event_time"] == parse_locomo_date("1:56 pm on 8 May, 2023")
    assert "lopsided green ceramic bowl" in nodes[5]["content"]  # the photo caption is kept
    git("fsck", "--strict", cwd=session_path(home, "sample-1-s2"))

    prefixed = ok_json("import", "locomo", sample, "--prefix", "dev-", "--home", home)
    assert prefixed["sessions_created"] == 2
    assert {s["session_id"] for s in ok_json("sessions", "list", "--home", home)} == {
        "sample-1-s1",
        "sample-1-s2",
        "dev-sample-1-s1",
        "dev-sample-1-s2",
    }


# ---------------------------------------------------------------------------- sessions


def test_sessions_list_show_log_rename_delete(sample: Path, home: Path) -> None:
    ok("import", "locomo", sample, "--home", home)

    listed = ok_json("sessions", "list", "--home", home)
    assert sorted(s["session_id"] for s in listed) == ["sample-1-s1", "sample-1-s2"]
    assert {s["turns"] for s in listed} == {3, 4}
    table = ok("sessions", "list", "--home", home).stdout
    assert "sample-1-s1" in table and "2 session(s)" in table

    branch = ok_json("sessions", "show", "sample-1-s2", "--home", home)
    assert len(branch) == 6
    shown = ok("sessions", "show", "sample-1-s2", "--home", home).stdout
    assert branch[0]["id"] in shown and "assistant (Tomas)" in shown
    assert len(ok_json("sessions", "show", "sample-1-s2", "--all-nodes", "--home", home)) == 6
    assert "Parent" in ok("sessions", "show", "sample-1-s2", "--all-nodes", "--home", home).stdout
    upto = ok_json("sessions", "show", "sample-1-s2", "--head", branch[2]["id"], "--home", home)
    assert [n["id"] for n in upto] == [n["id"] for n in branch[:3]]

    commits = ok_json("sessions", "log", "sample-1-s2", "--home", home)
    assert len(commits) == 4  # one commit per turn, newest first
    assert commits[-1]["node_ids"] == [branch[0]["id"]]
    assert [nid for c in reversed(commits) for nid in c["node_ids"]] == [n["id"] for n in branch]
    assert len(ok_json("sessions", "log", "sample-1-s2", "--limit", "2", "--home", home)) == 2
    assert commits[0]["sha"][:10] in ok("sessions", "log", "sample-1-s2", "--home", home).stdout

    renamed = ok_json("sessions", "rename", "sample-1-s1", "Running and pottery", "--home", home)
    assert renamed["title"] == "Running and pottery"
    listed = {s["session_id"]: s for s in ok_json("sessions", "list", "--home", home)}
    assert listed["sample-1-s1"]["display_title"] == "Running and pottery"

    refused = ogmem("sessions", "delete", "sample-1-s1", "--home", home, input="n\n")
    assert refused.exit_code == 1
    assert len(ok_json("sessions", "list", "--home", home)) == 2
    path = session_path(home, "sample-1-s1")
    assert (
        "Deleted session sample-1-s1"
        in ok("sessions", "delete", "sample-1-s1", "--yes", "--home", home).stdout
    )
    assert not path.exists()
    assert [s["session_id"] for s in ok_json("sessions", "list", "--home", home)] == ["sample-1-s2"]
    gone = user_error(1, "sessions", "show", "sample-1-s1", "--home", home)
    assert "session not found: sample-1-s1" in gone.stderr


def test_tenants_are_separate(sample: Path, home: Path) -> None:
    ok("import", "locomo", sample, "--home", home, "--account", "acme", "--space", "team")
    assert (
        len(ok_json("sessions", "list", "--home", home, "--account", "acme", "--space", "team"))
        == 2
    )
    assert ok_json("sessions", "list", "--home", home) == []
    other = user_error(1, "sessions", "show", "sample-1-s1", "--home", home)
    missing = user_error(1, "sessions", "show", "no-such-session", "--home", home)
    # Another tenant's session and a missing one are indistinguishable.
    assert other.stderr.replace("sample-1-s1", "X") == missing.stderr.replace(
        "no-such-session", "X"
    )


# ---------------------------------------------------------------------------- projects


def test_project_bind_log_unbind(tmp_path: Path, home: Path) -> None:
    repo = tmp_path / "webapp"
    repo.mkdir()
    git("init", "-q", cwd=repo)
    (repo / "README.md").write_text("hello\n")
    git("add", "-A", cwd=repo)
    git(
        "-c", "user.name=Dev", "-c", "user.email=dev@example.com", "commit", "-qm", "init", cwd=repo
    )

    project = ok_json("project", "bind", repo, "--name", "Web app", "--home", home)
    assert project["name"] == "Web app" and Path(project["path"]) == repo.resolve()
    pid = project["project_id"]
    assert ok_json("project", "bind", repo, "--home", home)["project_id"] == pid
    assert [p["project_id"] for p in ok_json("project", "list", "--home", home)] == [pid]
    assert pid in ok("project", "list", "--home", home).stdout
    assert ok_json("project", "log", pid, "--home", home) == []  # the user's commit is not shown

    # An agent turn that edits the project, recorded through the facade.
    with Memory(home=home) as mem:
        mem.append_message("fix", {"role": "user", "content": "Add a license"}, project=pid)
        (repo / "LICENSE").write_text("MIT\n")
        mem.append_message("fix", {"role": "assistant", "content": "Added LICENSE."})
        assert mem.commit_turn("fix", model="test-model").project_commit is not None

    log = ok_json("project", "log", pid, "--home", home)
    assert len(log) == 1
    assert log[0]["author"] == "agent (test-model via ogmemory)"
    assert log[0]["message"] == "[agent fix] turn 1: Add a license"
    assert log[0]["sha"][:10] in ok("project", "log", pid, "--home", home).stdout
    git("fsck", "--strict", cwd=repo)

    assert "Unbound project" in ok("project", "unbind", pid, "--home", home).stdout
    assert ok_json("project", "list", "--home", home) == []
    user_error(1, "project", "log", pid, "--home", home)
    user_error(1, "project", "unbind", pid, "--home", home)
    assert git("rev-list", "--count", "HEAD", cwd=repo).strip() == "2"  # history untouched
    sessions = ok_json("sessions", "list", "--home", home)
    assert [s["project_id"] for s in sessions] == [pid]  # a historical pointer, kept


def test_project_bind_inits_a_plain_directory(tmp_path: Path, home: Path) -> None:
    plain = tmp_path / "notes"
    plain.mkdir()
    ok("project", "bind", plain, "--home", home)
    assert (plain / ".git").is_dir()
    git("fsck", "--strict", cwd=plain)


# ---------------------------------------------------------------------------- bad input


def test_malformed_jsonl_exits_2_and_imports_nothing(tmp_path: Path, home: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"role": "user", "content": "hi"}\n{"role": "assistant", "content": \n')
    result = user_error(2, "import", "openai", bad, "--home", home)
    assert "bad.jsonl:2: not valid JSON" in result.stderr
    assert ok_json("sessions", "list", "--home", home) == []

    not_object = write_jsonl(tmp_path / "list.jsonl", ["user", "hi"])
    assert (
        "must be a JSON object"
        in user_error(2, "import", "openai", not_object, "--home", home).stderr
    )
    broken = tmp_path / "broken.json"
    broken.write_text("[{")
    assert (
        "cannot read LoCoMo file"
        in user_error(2, "import", "locomo", broken, "--home", home).stderr
    )


@pytest.mark.parametrize(
    "command",
    [
        ["sessions", "show", "../x"],
        ["sessions", "log", "../x"],
        ["sessions", "rename", "../x", "title"],
        ["sessions", "delete", "../x"],
        ["project", "log", "../x"],
    ],
)
def test_traversal_ids_exit_2(command: list[str], home: Path) -> None:
    result = user_error(2, *command, "--home", home)
    assert "'../x'" in result.stderr and "must not contain '..'" in result.stderr
    assert not (home.parent / "x").exists()


def test_other_user_errors(sample: Path, tmp_path: Path, home: Path) -> None:
    assert (
        "invalid account"
        in user_error(2, "sessions", "list", "--home", home, "--account", "../a").stderr
    )
    ok("import", "locomo", sample, "--home", home)
    assert (
        "no node nope"
        in user_error(1, "sessions", "show", "sample-1-s1", "--head", "nope", "--home", home).stderr
    )
    assert (
        "title must not be empty"
        in user_error(2, "sessions", "rename", "sample-1-s1", " ", "--home", home).stderr
    )
    missing = ogmem("import", "openai", tmp_path / "missing.jsonl", "--home", home)
    assert missing.exit_code == 2
    assert "does not exist" in " ".join(missing.stderr.replace("│", " ").split())


def test_real_process_exit_code_and_no_traceback(home: Path) -> None:
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
            str(home),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.strip() == "Error: invalid session id '../x': must not contain '..'"


# ---------------------------------------------------------------------------- demo


def test_demo_with_bundled_sample(sample: Path, tmp_path: Path) -> None:
    demo_home = tmp_path / "demo-home"
    first = ok("demo", "--data", sample, "--home", demo_home)
    assert "sample-1-s1" in first.stdout and "sample-1-s2" in first.stdout
    assert "Imported 2 session(s)" in first.stdout
    assert f"Using LoCoMo data from {sample}" in first.stderr

    again = json.loads(ok("demo", "--data", sample, "--home", demo_home, "--json").stdout)
    assert again["import"]["sessions_skipped"] == 2
    assert again["import"]["sessions_created"] == 0
    assert [s["session_id"] for s in again["sessions"]] == ["sample-1-s1", "sample-1-s2"]
    assert [s["turns"] for s in again["sessions"]] == [3, 4]


def test_demo_finds_the_dev_set_walking_up(
    sample: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dev_set = tmp_path / "shared" / "data" / "locomo" / "locomo-dev.json"
    dev_set.parent.mkdir(parents=True)
    shutil.copy(sample, dev_set)
    cwd = tmp_path / "main" / "sub"
    cwd.mkdir(parents=True)
    monkeypatch.chdir(cwd)

    result = ok("demo", "--json")
    report = json.loads(result.stdout)
    assert Path(report["source"]) == dev_set
    assert report["bundled_sample"] is False
    assert Path(report["home"]) == cwd / "demo-home"
    assert (cwd / "demo-home").is_dir()
    assert find_locomo(cwd, {}) == dev_set


def test_demo_falls_back_to_the_bundled_sample(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert find_locomo(tmp_path, {}) is None
    result = ok("demo", "--home", tmp_path / "h")
    assert "Using the small sample bundled with ogmemory" in result.stderr
    assert "sample-1-s1" in result.stdout


def test_demo_uses_ogmem_locomo_but_not_ogmem_home_from_env(
    sample: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OGMEM_LOCOMO", str(sample))
    monkeypatch.setenv("OGMEM_HOME", str(tmp_path / "env-home"))  # the user's real memory
    report = json.loads(ok("demo", "--json").stdout)
    assert Path(report["source"]) == sample
    assert Path(report["home"]) == tmp_path / "demo-home"
    assert not (tmp_path / "env-home").exists()
    monkeypatch.setenv("OGMEM_LOCOMO", str(tmp_path / "nope.json"))
    assert "OGMEM_LOCOMO" in user_error(2, "demo").stderr


# ---------------------------------------------------------------------------- help


def _walk(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    yield path, command
    for name, sub in getattr(command, "commands", {}).items():
        yield from _walk(sub, (*path, name))


def test_every_command_and_option_has_help() -> None:
    root = typer.main.get_command(app)
    seen = []
    for path, command in _walk(root):
        seen.append(" ".join(path))
        assert (command.help or "").strip(), f"ogmem {' '.join(path)} has no help"
        for param in command.params:
            assert (getattr(param, "help", None) or "").strip(), (
                f"ogmem {' '.join(path)}: {param.name} has no help"
            )
        result = ok(*path, "--help")
        assert "Usage: ogmem" in result.stdout
    assert {
        "sessions list",
        "sessions show",
        "sessions log",
        "sessions rename",
        "sessions delete",
        "project bind",
        "project unbind",
        "project log",
        "project list",
        "import openai",
        "import locomo",
        "demo",
    } <= set(seen)


def test_global_options_on_every_command() -> None:
    root = typer.main.get_command(app)
    for path, command in _walk(root):
        if getattr(command, "commands", None) or not path:
            continue
        if tuple(path) in (("hooks", "uninstall"), ("hooks", "status")):
            continue  # they edit or read Claude Code's settings file, not a memory
        options = {opt for param in command.params for opt in getattr(param, "opts", [])}
        assert "--home" in options, path
        # server-wide (the API key picks the tenant) or one tenant per conversation (bench)
        if path[0] not in ("serve", "keys", "bench"):
            assert {"--account", "--space"} <= options, path
        if path[-1] in ("list", "show", "log"):
            assert "--json" in options, path


def test_version() -> None:
    assert ok("--version").stdout.startswith("ogmem ")


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("facts", "'graph facts'"),
        ("entities", "'graph entities'"),
        ("neighbours", "'graph neighbors'"),
        ("memorie", "'memories'"),  # a close top-level name is still suggested as before
    ],
)
def test_a_subcommand_typed_at_the_top_suggests_its_group(typed: str, meant: str) -> None:
    result = ogmem(typed)
    assert result.exit_code == 2
    said = " ".join(result.stderr.replace("│", " ").split())
    assert f"No such command '{typed}'. Did you mean {meant}?" in said
    error = json.loads(ogmem(typed, "--json").stdout)["error"]
    assert error["message"] == f"No such command '{typed}'. Did you mean {meant}?"
