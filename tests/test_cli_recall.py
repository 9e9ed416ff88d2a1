"""``ogmem recall / search / open / git-log / reindex / worker / outbox / bench``, end to end:
real files, real git repositories, a real SQLite index, the real embedder in one test."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import typer
from conftest import make_project
from typer.testing import CliRunner, Result

from ogmemory import Memory, Settings
from ogmemory.interfaces.cli import app
from ogmemory.recall.tokens import count_tokens
from ogmemory.storage.sqlite_queue import Outbox

runner = CliRunner()
NO_VECTORS = {"OGMEM_EMBEDDER": "none"}


pytestmark = pytest.mark.usefixtures("no_ogmem_env")


def ts(day: str) -> float:
    return datetime.fromisoformat(day).replace(tzinfo=UTC).timestamp()


def settings(home: Path, embedder: str = "none") -> Settings:
    return Settings(home=home, embedder=embedder, distill_on_turn=False, index_worker=False)


def say(mem: Memory, sid: str, user: str, day: str, **kw: Any) -> None:
    mem.append_message(
        sid, {"role": "user", "content": user, "event_time": ts(day), "name": "Ana"}, **kw
    )
    mem.append_message(sid, {"role": "assistant", "content": "Noted.", "event_time": ts(day) + 1})
    mem.commit_turn(sid)


def fill(mem: Memory, project: Path | None = None) -> None:
    say(mem, "s1", "We use JavaScript for the backend.", "2026-01-10")
    say(mem, "s1", "I prefer green tea over coffee in the morning.", "2026-01-11")
    say(mem, "s2", "We switched from JavaScript to TypeScript last week.", "2026-04-08")
    say(mem, "s2", "My sister Lena moved to Berlin in March.", "2026-04-09")
    say(mem, "s3", "我们的数据库用 PostgreSQL，不用 MySQL。", "2026-04-10")
    if project is not None:  # an agent commit in a bound project, for git-log --project
        mem.append_message("p1", {"role": "user", "content": "add a helper"}, project=project)
        (project / "helper.py").write_text("x = 1\n")
        mem.append_message("p1", {"role": "assistant", "content": "Added helper.py."})
        mem.commit_turn("p1")
    mem.sleep("deep")
    mem.sync_index(turns=True)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A home with sessions, distilled knowledge and a full-text index; and the project id."""
    root = tmp_path_factory.mktemp("recall-cli")
    project = make_project(root, "proj")
    home = root / "home"
    with Memory(settings=settings(home)) as mem:
        fill(mem, project)
        project_id = mem.resolve_project(project).project_id
    return home, project_id


@pytest.fixture()
def home(built: tuple[Path, str], tmp_path: Path) -> Path:
    """A private copy of the built home: tests may change it."""
    copy = tmp_path / "home"
    shutil.copytree(built[0], copy)
    return copy


def ogmem(*args: str | Path, env: dict[str, str] | None = None) -> Result:
    return runner.invoke(app, [str(a) for a in args], env=NO_VECTORS if env is None else env)


def ok(*args: str | Path, env: dict[str, str] | None = None) -> Result:
    result = ogmem(*args, env=env)
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result


def ok_json(*args: str | Path, env: dict[str, str] | None = None) -> Any:
    return json.loads(ok(*args, "--json", env=env).stdout)


def user_error(code: int, *args: str | Path) -> Result:
    """A command that must fail cleanly: ``code``, one ``Error:`` line, no traceback."""
    result = ogmem(*args)
    assert result.exit_code == code, (result.stdout, result.stderr, result.exception)
    assert isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    assert result.stderr.startswith("Error: ") and result.stderr.count("\n") == 1, result.stderr
    return result


# ---------------------------------------------------------------------------- recall


def test_recall_prints_items_with_cites_pointers_and_tokens(home: Path) -> None:
    out = ok("recall", "Where did Lena move?", "--home", home).stdout
    assert out.startswith("Recall 'Where did Lena move?': ")
    assert "of 2000 tokens" in out
    assert "Berlin" in out
    assert "session:s2@" in out and " tokens · cites " in out
    assert "FALLBACK" not in out


def test_recall_json_is_the_recall_result(home: Path) -> None:
    data = ok_json("recall", "Where did Lena move?", "--home", home)
    assert set(data) == {"query", "items", "tokens", "budget", "fallback", "reason", "stats"}
    assert data["query"] == "Where did Lena move?" and data["budget"] == 2000
    assert data["fallback"] is False and data["items"]
    for item in data["items"]:
        assert {
            "text",
            "kind",
            "score",
            "cites",
            "node_ids",
            "session_id",
            "commit",
            "event_time",
            "doc_ids",
            "tokens",
            "pointer",
        } <= set(item)
    assert data["tokens"] == sum(i["tokens"] for i in data["items"])
    berlin = next(i for i in data["items"] if "Berlin" in i["text"])
    assert berlin["session_id"] == "s2" and berlin["pointer"].startswith("↪ session:s2@")


def test_recall_context_is_exactly_what_the_facade_injects(home: Path) -> None:
    query = "What does Ana drink in the morning?"
    out = ok("recall", query, "--context", "--home", home).stdout
    with Memory(settings=settings(home)) as mem:
        expected = mem.recall(query).as_context()
    assert out == expected + "\n"
    assert "green tea" in out and "Recall" not in out


@pytest.mark.parametrize("budget", [60, 150, 400])
def test_recall_respects_the_budget(home: Path, budget: int) -> None:
    data = ok_json("recall", "JavaScript TypeScript Berlin tea", "--budget", budget, "--home", home)
    assert 0 < data["tokens"] <= budget
    context = ok(
        "recall",
        "JavaScript TypeScript Berlin tea",
        "--budget",
        budget,
        "--context",
        "--home",
        home,
    ).stdout
    assert count_tokens(context.rstrip("\n")) <= budget


def test_recall_options_scope_at_recipe_session(home: Path) -> None:
    flat = ok_json("recall", "JavaScript", "--recipe", "flat", "--home", home)
    full = ok_json("recall", "JavaScript", "--recipe", "fulltext", "--home", home)
    assert flat["items"] and full["items"]
    at = ok_json("recall", "What happened last week?", "--at", "2026-04-12", "--home", home)
    assert at["stats"].get("time_range"), at["stats"]
    scoped = ok_json("recall", "JavaScript", "--scope", "global", "--home", home)
    assert scoped["items"]
    # a session that is not temporary reads memory normally (temporary sessions exist only in
    # the Memory instance that created them; that path is covered in test_temporary.py)
    assert ok_json("recall", "JavaScript", "--session", "s1", "--home", home)["items"]


def test_recall_says_clearly_when_it_fell_back(home: Path) -> None:
    with Memory(settings=settings(home)) as mem:
        index_path = mem.index_path
    # a damaged index file is moved aside and rebuilt from the files on open: recall still ranks
    index_path.write_bytes(b"this is not a database " * 200)
    for suffix in ("-wal", "-shm"):
        Path(f"{index_path}{suffix}").unlink(missing_ok=True)
    data = ok_json("recall", "JavaScript", "--home", home)
    assert data["fallback"] is False and data["items"]
    # an index that cannot be created at all (a file where its directory goes): the latest
    # turns from the session files, said so
    shutil.rmtree(index_path.parent)
    index_path.parent.write_text("not a directory")
    result = ok("recall", "JavaScript", "--home", home)
    assert "FALLBACK" in result.stdout and "not a ranked answer" in result.stdout
    data = ok_json("recall", "JavaScript", "--home", home)
    assert data["fallback"] is True and "index unavailable" in data["reason"]
    assert data["items"] and all(i["session_id"] for i in data["items"])
    # reindex repairs whatever is there, and recall ranks again
    ok("reindex", "--home", home)
    assert ok_json("recall", "JavaScript", "--home", home)["fallback"] is False


# ---------------------------------------------------------------------------- search


def test_search_lists_hits_with_ids_kinds_scores_and_pointers(home: Path) -> None:
    hits = ok_json("search", "JavaScript", "--home", home)
    assert hits and len(hits) <= 10
    for hit in hits:
        assert {"id", "kind", "score", "text", "session_id", "commit", "node_ids"} <= set(hit)
    assert [h["score"] for h in hits] == sorted((h["score"] for h in hits), reverse=True)
    assert {h["kind"] for h in hits} >= {"turn", "memory"}
    out = ok("search", "JavaScript", "--limit", "3", "--home", home).stdout
    assert "3 hit(s) for 'JavaScript'" in out and "session:s1@" in out
    facts = ok_json("search", "JavaScript", "--kind", "fact", "--kind", "event", "--home", home)
    assert facts and {h["kind"] for h in facts} <= {"fact", "event"}
    assert (
        ok_json("search", "PostgreSQL", "--kind", "turn", "--home", home)[0]["session_id"] == "s3"
    )


# ---------------------------------------------------------------------------- navigation


def test_open_shows_a_session_or_the_messages_around_a_node(home: Path) -> None:
    nodes = ok_json("open", "s2", "--home", home)
    assert [n["role"] for n in nodes] == ["user", "assistant", "user", "assistant"]
    middle = nodes[1]["id"]
    around = ok_json("open", "s2", "--around", middle, "--radius", "1", "--home", home)
    assert [n["id"] for n in around] == [n["id"] for n in nodes[:3]]
    assert len(ok_json("open", "s2", "--around", middle, "--radius", "0", "--home", home)) == 1
    out = ok("open", "s2", "--around", middle, "--radius", "1", "--home", home).stdout
    assert "▶" in out and middle in out and "Berlin" in out


def test_git_log_of_a_session_and_of_a_project(home: Path, built: tuple[Path, str]) -> None:
    commits = ok_json("git-log", "--session", "s2", "--home", home)
    assert len(commits) == 2 and all(len(c["sha"]) == 40 for c in commits)
    assert commits[0]["message"].startswith("turn 2")
    assert len(ok_json("git-log", "--session", "s2", "--limit", "1", "--home", home)) == 1
    project_commits = ok_json("git-log", "--project", built[1], "--home", home)
    assert [c["message"] for c in project_commits] == ["[agent p1] turn 1: add a helper"]
    out = ok("git-log", "--project", built[1], "--home", home).stdout
    assert f"Project {built[1]}: 1 commit(s)" in out and "agent" in out


# ---------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("recall", " "), "query"),
        (("recall", "x", "--budget", "10"), "budget"),
        (("recall", "x", "--recipe", "fuzzy"), "recipe"),
        (("recall", "x", "--at", "yesterday-ish"), "--at"),
        (("recall", "x", "--session", "../etc"), "session id"),
        (("recall", "x", "--json", "--context"), "--context"),
        (("search", "x", "--kind", "note"), "--kind"),
        (("search", "x", "--limit", "0"), "limit"),
        (("open", "s2", "--around", "n", "--radius", "-1"), "radius"),
        (("git-log",), "--project"),
        (("git-log", "--project", "p", "--session", "s"), "--project"),
        (("git-log", "--session", "s2", "--limit", "0"), "--limit"),
        (("worker", "--batch", "0"), "--batch"),
        (("worker", "--poll", "0"), "--poll"),
        (("worker", "--once"), "embedder"),
        (("outbox", "retry", "0"), "positive"),
        (("bench", "locomo", "--data", "/no/such/file.json"), "--data"),
    ],
)
def test_bad_input_exits_2_with_one_line(home: Path, args: tuple[str, ...], message: str) -> None:
    if "--json" in args:  # with --json the error is a JSON object on stdout instead
        result = ogmem(*args, "--home", home)
        assert result.exit_code == 2 and result.stderr == ""
        error = json.loads(result.stdout)["error"]
        assert error["exit_code"] == 2 and message in error["message"]
        return
    result = user_error(2, *args, "--home", home) if args[0] != "bench" else user_error(2, *args)
    assert message in result.stderr


def test_unknown_things_exit_1(home: Path) -> None:
    assert "session not found" in user_error(1, "open", "nope", "--home", home).stderr
    assert "no node" in user_error(1, "open", "s2", "--around", "zzz", "--home", home).stderr
    assert "not found" in user_error(1, "git-log", "--project", "nope", "--home", home).stderr


# ---------------------------------------------------------------------------- index upkeep


def test_reindex_keeps_search_and_recall_answers_identical(home: Path) -> None:
    queries = ["JavaScript", "Where did Lena move?", "green tea", "数据库"]
    searches = [ok_json("search", q, "--home", home) for q in queries]
    recalls = [ok_json("recall", q, "--home", home)["items"] for q in queries]
    result = ok_json("reindex", "--home", home)
    assert result["before"]["documents"] == result["after"]["documents"] > 0
    assert result["after"]["vectors"] == 0 and result["embedded"] == 0
    assert [ok_json("search", q, "--home", home) for q in queries] == searches
    assert [ok_json("recall", q, "--home", home)["items"] for q in queries] == recalls
    out = ok("reindex", "--home", home).stdout
    assert "Before" in out and "After" in out and "documents" in out and "Reindexed" in out


def _dead_job(home: Path) -> int:
    """A job that failed for good, made with the Outbox API: claim + fail, max_attempts times
    (a clock of our own skips each backoff)."""
    with Memory(settings=settings(home)) as mem:
        path = mem.index_path
    now = [time.time() + 60]  # enqueue stamps the real time
    box = Outbox(path, max_attempts=3, clock=lambda: now[0])
    job_id = box.submit("embed", "doc-x", {"rowid": 10**9, "text": "x"})
    states = []
    for _ in range(3):
        (job,) = box.claim("test-worker", 1)
        states.append(box.fail("test-worker", job, RuntimeError("the GPU caught fire")))
        now[0] += 3600
    box.close()
    assert states == ["pending", "pending", "dead"]
    return job_id


def test_outbox_status_and_retry_of_a_dead_job(home: Path) -> None:
    job_id = _dead_job(home)
    status = ok_json("outbox", "status", "--home", home)
    assert status["dead"] == 1 and status["pending"] == 0
    (dead,) = status["dead_jobs"]
    assert dead["id"] == job_id and "the GPU caught fire" in dead["last_error"]
    out = ok("outbox", "status", "--home", home).stdout
    assert "1 dead job(s)" in out and "RuntimeError: the GPU caught" in out
    assert "Retried 0 of 1" in ok("outbox", "retry", str(job_id + 1), "--home", home).stdout
    assert ok_json("outbox", "retry", str(job_id), "--home", home)["retried"] == 1
    after = ok_json("outbox", "status", "--home", home)
    assert after["dead"] == 0 and after["pending"] == 1 and after["dead_jobs"] == []
    assert "Retried 0 dead job(s)" in ok("outbox", "retry", "--home", home).stdout


def test_worker_once_embeds_pending_jobs_with_the_real_embedder(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with Memory(settings=settings(home, embedder="use")) as mem:
        fill(mem)  # indexed in full text; the embedding jobs wait in the outbox
    real: dict[str, str] = {}  # OGMEM_EMBEDDER unset: the default, real embedder (e5)
    before = ok_json("outbox", "status", "--home", home, env=real)
    assert before["pending"] > 0 and before["done"] == 0
    # --embed-pending 0: a one-shot recall leaves the jobs to the worker, and says so
    waiting = ok("recall", "green tea", "--embed-pending", "0", "--home", home, env=real)
    assert "waiting for their vectors" in waiting.stderr
    assert ok_json("outbox", "status", "--home", home, env=real)["pending"] == before["pending"]
    out = ok("worker", "--once", "--home", home, env=real).stdout
    assert f"Processed {before['pending']} job(s)" in out
    after = ok_json("outbox", "status", "--home", home, env=real)
    assert after["pending"] == 0 and after["done"] == before["pending"] and after["dead"] == 0
    recalled = ok("recall", "What does Ana like to drink?", "--json", "--home", home, env=real)
    assert "waiting" not in recalled.stderr
    assert "green tea" in json.dumps(json.loads(recalled.stdout)["items"])
    # a long-running worker stops cleanly on SIGTERM
    env = {k: v for k, v in os.environ.items() if not k.startswith("OGMEM_")}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ogmemory.interfaces.cli",
            "worker",
            "--poll",
            "0.05",
            "--home",
            str(home),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stderr is not None
    assert "consuming index jobs" in proc.stderr.readline()
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "SIGTERM received" in err and "stopped" in err


# ---------------------------------------------------------------------------- bench


@pytest.fixture(scope="module")
def sample() -> Iterator[Path]:
    resource = resources.files("ogmemory").joinpath("data", "sample_locomo.json")
    with resources.as_file(resource) as path:
        yield path


def test_bench_locomo_writes_the_run_file_and_prints_the_tables(
    sample: Path, tmp_path: Path
) -> None:
    run = tmp_path / "run.jsonl"
    bench_home = tmp_path / "bench-home"
    result = ok(
        "bench",
        "locomo",
        "--data",
        sample,
        "--run-out",
        run,
        "--samples",
        "1",
        "--home",
        bench_home,
    )
    assert "LoCoMo evidence recall @ 2000 tokens" in result.stdout
    assert "BM25 turns" in result.stdout and "per system" in result.stdout
    assert "answer in ctx" in result.stdout and "…" not in result.stdout  # nothing cut short
    questions = json.loads(sample.read_text())[0]["qa"]
    lines = [json.loads(line) for line in run.read_text().splitlines()]
    assert len(lines) == len(questions)
    for i, line in enumerate(lines):
        assert set(line) == {"sample_id", "qa_index", "items", "latency_ms"}
        assert line["qa_index"] == i and isinstance(line["latency_ms"], float)
        for item in line["items"]:
            assert set(item) == {"text", "dia_ids"}
            assert all(d.startswith("D") for d in item["dia_ids"])
    assert (bench_home / "tenants" / "locomo").is_dir()
    plain = ok(
        "bench", "locomo", "--data", sample, "--samples", "1", "--no-baselines", "--budget", "500"
    )
    assert "recall @ 500" in plain.stdout and "BM25" not in plain.stdout


# ---------------------------------------------------------------------------- help

COMMANDS = {
    "recall": True,
    "search": True,
    "open": True,
    "git-log": True,
    "reindex": True,
    "worker": False,
    "outbox status": True,
    "outbox retry": True,
}


def test_every_new_command_and_option_has_help() -> None:
    root = typer.main.get_command(app)
    found: dict[str, Any] = {}
    for name, command in root.commands.items():  # type: ignore[attr-defined]
        found[name] = command
        for sub, subcommand in getattr(command, "commands", {}).items():
            found[f"{name} {sub}"] = subcommand
    for path in [*COMMANDS, "outbox", "bench", "bench locomo"]:
        command = found[path]
        assert (command.help or "").strip(), path
        for param in command.params:
            assert (getattr(param, "help", None) or "").strip(), f"{path}: {param.name}"
        assert "Usage: ogmem" in ok(*path.split(), "--help").stdout
    for path, has_json in COMMANDS.items():
        options = {opt for param in found[path].params for opt in getattr(param, "opts", [])}
        assert {"--home", "--account", "--space"} <= options, path
        assert ("--json" in options) == has_json, path
