"""Entity-layer benchmark: append+commit turns per second, and listing 1,000 sessions.

Baselines, run in the same process on the same machine:
  * files only   - the same node files written atomically, no git at all (upper bound);
  * git CLI      - a naive implementation: ``git add`` + ``git commit`` subprocesses per turn.

    python bench/bench_entity.py [--turns 500] [--sessions 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from ogmemory import Memory, Settings
from ogmemory.storage.files import atomic_write_json

USER = {"role": "user", "content": "Please refactor the worker so it listens on port 18109."}
ASSISTANT = {
    "role": "assistant",
    "content": "Done: the worker now listens on :18109 and the tests pass.",
}


def bench_ogmemory(home: Path, turns: int, sessions: int = 1, *, fast_path: bool = False) -> float:
    """The entity layer alone by default; ``fast_path`` adds background distillation per turn
    (waited for before the clock stops)."""
    mem = Memory(settings=Settings(home=home, distill_on_turn=fast_path, embedder="none"))
    start = time.perf_counter()
    for i in range(turns):
        sid = f"bench-{i % sessions}"
        mem.append_message(sid, USER)
        mem.append_message(sid, ASSISTANT)
        mem.commit_turn(sid)
    mem.wait_background()
    return turns / (time.perf_counter() - start)


def bench_files_only(root: Path, turns: int) -> float:
    hist = root / "history"
    hist.mkdir(parents=True)
    start = time.perf_counter()
    for i in range(turns):
        atomic_write_json(hist / f"{2 * i + 1:06d}-u-x{i}.json", USER)
        atomic_write_json(hist / f"{2 * i + 2:06d}-a-y{i}.json", ASSISTANT)
    return turns / (time.perf_counter() - start)


def bench_git_cli(root: Path, turns: int) -> float:
    hist = root / "history"
    hist.mkdir(parents=True)
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "b",
        "GIT_AUTHOR_EMAIL": "b@x",
        "GIT_COMMITTER_NAME": "b",
        "GIT_COMMITTER_EMAIL": "b@x",
    }
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    start = time.perf_counter()
    for i in range(turns):
        (hist / f"{2 * i + 1:06d}-u.json").write_text(json.dumps(USER))
        (hist / f"{2 * i + 2:06d}-a.json").write_text(json.dumps(ASSISTANT))
        subprocess.run(["git", "-C", str(root), "add", "history"], check=True, env=env)
        subprocess.run(["git", "-C", str(root), "commit", "-qm", f"turn {i}"], check=True, env=env)
    return turns / (time.perf_counter() - start)


def bench_listing(home: Path, sessions: int, repeats: int = 5) -> tuple[float, float]:
    mem = Memory(settings=Settings(home=home, distill_on_turn=False, embedder="none"))
    for i in range(sessions):
        sid = f"list-{i}"
        mem.append_message(sid, {"role": "user", "content": f"session {i}: hello"})
        mem.commit_turn(sid)
    cold = Memory(settings=Settings(home=home, distill_on_turn=False, embedder="none"))
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        listed = cold.list_sessions()
        times.append(time.perf_counter() - start)
    assert len(listed) == sessions, len(listed)
    return statistics.median(times) * 1000, min(times) * 1000


def bench_listing_baseline(home: Path, repeats: int = 5) -> float:
    """Reading every meta.json with no validation, merge or sort: the floor for listing."""
    root = home / "tenants" / "local" / "default" / "sessions"
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for entry in os.scandir(root):
            if entry.is_dir():
                with open(os.path.join(entry.path, "meta.json")) as fh:
                    json.load(fh)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=500)
    parser.add_argument(
        "--cli-turns", type=int, default=100, help="turns for the slow git CLI baseline"
    )
    parser.add_argument("--sessions", type=int, default=1000)
    args = parser.parse_args()
    console = Console()
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        one = bench_ogmemory(tmpdir / "one", args.turns)
        many = bench_ogmemory(tmpdir / "many", args.turns, sessions=50)
        fast = bench_ogmemory(tmpdir / "fast", args.turns, fast_path=True)
        files = bench_files_only(tmpdir / "files", args.turns)
        cli = bench_git_cli(tmpdir / "cli", args.cli_turns)
        median_ms, best_ms = bench_listing(tmpdir / "list", args.sessions)
        floor_ms = bench_listing_baseline(tmpdir / "list")

    table = Table(title=f"append+commit throughput ({os.cpu_count()} cores)")
    table.add_column("implementation")
    table.add_column("turns/s", justify="right")
    table.add_column("note")
    table.add_row(
        "ogmemory, 1 session", f"{one:,.0f}", f"{args.turns} turns, 2 nodes + 1 commit each"
    )
    table.add_row("ogmemory, 50 sessions", f"{many:,.0f}", "round-robin across sessions")
    table.add_row(
        "ogmemory + fast-path distillation",
        f"{fast:,.0f}",
        "1 session, rule-based distillation of every turn included",
    )
    table.add_row("baseline: files only, no git", f"{files:,.0f}", "upper bound")
    table.add_row(
        "baseline: git CLI per turn",
        f"{cli:,.0f}",
        f"{args.cli_turns} turns, add+commit subprocesses",
    )
    table.add_row("goal", "200", "")
    console.print(table)

    table = Table(title=f"listing {args.sessions:,} sessions")
    table.add_column("implementation")
    table.add_column("median ms", justify="right")
    table.add_column("best ms", justify="right")
    table.add_row("ogmemory list_sessions (cold Memory)", f"{median_ms:.1f}", f"{best_ms:.1f}")
    table.add_row("baseline: read every meta.json", f"{floor_ms:.1f}", "")
    console.print(table)


if __name__ == "__main__":
    main()
