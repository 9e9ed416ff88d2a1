"""Context-engine overhead per turn, beside a bare recall in the same run.

1. A scripted conversation of ``--turns`` turns (default 1,000: facts, questions, tool calls
   reading the same files again and again) through ``ContextEngine`` on the default embedded
   setup (E5 vectors, background distillation and embedding). Per turn:
     * bare recall    ``Memory.recall`` for the turn's message, scope and budget (baseline)
     * assembly       ``before_inference``: core.md + the same recall + live turns + budget
                      (compaction included when it happens)
     * bare commit    ``append_message`` + ``commit_turn`` of the same turn in a second session
                      (baseline)
     * turn end       ``after_turn``: reply, commit, project rules, index documents and their
                      embedding jobs; distillation and embedding finish later
2. ``ogmem hook UserPromptSubmit`` as Claude Code runs it (a new process per prompt, the
   command ``ogmem hooks install`` writes), wall time per call with a running ``ogmem serve``
   and without one, over the memory of part 1. The hook processes run with Python's bytecode
   cache as an installed package has it (``PYTHONDONTWRITEBYTECODE`` is dropped from their
   environment: with it, every call compiled the package again, 0.2-1 s); the first two calls
   of each series are warm-up.

Targets (issue 11): assembly p95 <= 1.2x bare recall; hook p95 <= 300 ms with the server,
<= 1 s without.

    python bench/bench_engine.py [--turns 1000] [--hook-calls 20] [--skip-hooks | --hooks-on HOME]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from rich.console import Console
from rich.table import Table

from ogmemory import ContextEngine, Memory, Settings

TOPICS = ["billing", "search", "auth", "reports", "mailer", "gateway", "scheduler", "ledger"]
FILES = ["src/app.py", "src/db.py", "README.md", "src/api/routes.py"]


def script(i: int) -> tuple[str, str, str | None]:
    """(user message, reply, file read by a tool call or None) of turn ``i``."""
    topic = TOPICS[i % len(TOPICS)]
    kind = i % 5
    if kind == 0:
        user = f"The {topic} service moved to PostgreSQL {12 + i % 5} on port {5400 + i % 90}."
    elif kind == 1:
        user = f"Which database does the {topic} service use now, and on which port?"
    elif kind == 2:
        user = f"I prefer {['Go', 'Rust', 'Python'][i % 3]} for the {topic} worker; keep it simple."
    elif kind == 3:
        user = f"Please check {FILES[i % len(FILES)]} for the {topic} timeout setting."
    else:
        user = f"We decided to deploy {topic} with Nomad on Tuesdays (turn {i})."
    reply = f"Noted about {topic}: I will keep that in mind for the next change."
    return user, reply, FILES[i % len(FILES)] if kind == 3 else None


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile of ``values`` (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run_conversation(home: Path, turns: int) -> dict[str, list[float]]:
    """Time the engine's points and their baselines, turn by turn."""
    times: dict[str, list[float]] = {"recall": [], "assembly": [], "commit": [], "turn_end": []}
    with Memory(settings=Settings(home=home)) as mem:
        engine = ContextEngine(mem)
        scope = "global"
        for i in range(turns):
            user, reply, path = script(i)
            engine.on_message("conversation", user)
            if path is not None:
                call = engine.on_tool_call("conversation", "read_file", {"path": path})
                engine.on_tool_result(
                    "conversation",
                    call.call_ids[0],
                    f"# {path}\ntimeout = {30 + i % 7}\n" + "x = 1\n" * 40,
                    name="read_file",
                    files_read=[path],
                )
            pair = ("recall", "assembly") if i % 2 == 0 else ("assembly", "recall")
            for what in pair:  # alternate the order: neither side gets a warmer cache
                start = time.perf_counter()
                if what == "recall":
                    mem.recall(user, budget=2000, scope=scope, session_id="conversation")
                else:
                    engine.before_inference("conversation")
                times[what].append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            mem.append_message("baseline", {"role": "user", "content": user})
            mem.append_message("baseline", {"role": "assistant", "content": reply})
            mem.commit_turn("baseline")
            times["commit"].append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            engine.after_turn("conversation", reply=reply)
            times["turn_end"].append((time.perf_counter() - start) * 1000)
            if (i + 1) % 100 == 0:
                print(f"  {i + 1} turns", file=sys.stderr)
        mem.wait_background()
    return times


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, **extra}


def _hook(home: Path, event: str, payload: dict[str, object], server: str) -> float:
    env = _env(OGMEM_SERVER_URL=server, OGMEM_HOOK_BACKGROUND="0")
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "ogmemory_hook", event, "--home", str(home)],
        input=json.dumps(payload),
        text=True,
        capture_output=True,
        env=env,
        timeout=120,
        check=False,
    )
    elapsed = (time.perf_counter() - start) * 1000
    if done.returncode != 0:
        raise RuntimeError(done.stderr)
    return elapsed


def run_hooks(home: Path, calls: int, server: str, tag: str) -> list[float]:
    """Wall time of ``ogmem hook UserPromptSubmit`` per call (each followed by a Stop)."""
    times = []
    for i in range(calls + 2):
        user, reply, _ = script(i)
        sid = f"claude-{tag}"
        base = {
            "session_id": sid,
            "transcript_path": "",
            "cwd": str(home),
            "permission_mode": "default",
        }
        elapsed = _hook(
            home,
            "UserPromptSubmit",
            {**base, "hook_event_name": "UserPromptSubmit", "prompt": user},
            server,
        )
        _hook(
            home,
            "Stop",
            {
                **base,
                "hook_event_name": "Stop",
                "stop_hook_active": False,
                "last_assistant_message": reply,
            },
            server,
        )
        if i >= 2:  # the first two warm the server up (its embedder loads on first use)
            times.append(elapsed)
    return times


def start_server(home: Path) -> tuple[subprocess.Popen[bytes], str]:
    """``ogmem serve`` on a free loopback port over ``home``."""
    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ogmemory.interfaces.cli",
            "serve",
            "--port",
            str(port),
            "--home",
            str(home),
            "--log-level",
            "warning",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=_env(),
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.terminate()
    raise RuntimeError("ogmem serve did not start")


def main() -> None:
    """Run both parts and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--hook-calls", type=int, default=20)
    parser.add_argument(
        "--skip-hooks", action="store_true", help="part 1 only (the per-turn overhead table)"
    )
    parser.add_argument(
        "--hooks-on",
        type=Path,
        metavar="HOME",
        help="part 2 only, over the memory an earlier run left in HOME (printed by it)",
    )
    args = parser.parse_args()
    console = Console()
    console.print(f"{os.cpu_count()} CPUs, load average {_load()} at the start")
    if args.hooks_on is not None:
        _hook_table(console, args.hooks_on, args.hook_calls)
        return
    home = Path(tempfile.mkdtemp(prefix="ogm-bench-engine-"))
    started = time.perf_counter()
    console.print(f"{args.turns}-turn scripted conversation in {home} ...")
    times = run_conversation(home, args.turns)
    table = Table(title=f"Engine overhead per turn ({args.turns} turns, same run)")
    for col in ("", "p50 ms", "p95 ms", "mean ms"):
        table.add_column(col, justify="right" if col else "left")
    rows = (
        ("bare recall (baseline)", "recall"),
        ("before_inference assembly", "assembly"),
        ("bare append+commit (baseline)", "commit"),
        ("after_turn (turn end)", "turn_end"),
    )
    for label, key in rows:
        values = times[key]
        table.add_row(
            label,
            f"{pct(values, 0.5):.1f}",
            f"{pct(values, 0.95):.1f}",
            f"{statistics.fmean(values):.1f}",
        )
    console.print(table)
    ratio = pct(times["assembly"], 0.95) / pct(times["recall"], 0.95)
    console.print(
        f"assembly p95 / bare recall p95 = {ratio:.2f} (target <= 1.2); "
        f"{time.perf_counter() - started:.0f} s; load average {_load()}"
    )

    if not args.skip_hooks:
        _hook_table(console, home, args.hook_calls)


def _hook_table(console: Console, home: Path, calls: int) -> None:
    console.print(f"ogmem hook UserPromptSubmit, {calls} calls each ...")
    without = run_hooks(home, calls, "off", "local")
    proc, url = start_server(home)
    try:
        with_server = run_hooks(home, calls, url, "served")
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    hooks = Table(title="ogmem hook UserPromptSubmit, wall time per call (new process each)")
    for col in ("", "p50 ms", "p95 ms", "target p95"):
        hooks.add_column(col, justify="right" if col else "left")
    hooks.add_row(
        "with ogmem serve running",
        f"{pct(with_server, 0.5):.0f}",
        f"{pct(with_server, 0.95):.0f}",
        "300",
    )
    hooks.add_row(
        "without a server (full text)",
        f"{pct(without, 0.5):.0f}",
        f"{pct(without, 0.95):.0f}",
        "1000",
    )
    console.print(hooks)
    console.print(f"{os.cpu_count()} CPUs, load average {_load()} at the end")


def _load() -> str:
    return " / ".join(f"{x:.1f}" for x in os.getloadavg()) + " (1 / 5 / 15 min)"


if __name__ == "__main__":
    main()
