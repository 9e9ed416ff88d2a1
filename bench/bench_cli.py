"""Where a one-shot ``ogmem recall`` spends its time, beside its baselines, in one run.

A home is built from the bundled LoCoMo sample (``ogmem import locomo``, which ends with every
vector built). Then each row is the median over ``--runs`` fresh processes:

  * python -c pass             - the interpreter alone: the floor of any command;
  * import ogmemory            - the library (the facade and its records);
  * import the CLI             - ``ogmemory.interfaces.cli``: every command registered;
  * ogmem --version            - a whole process that builds the command tree and exits;
  * ogmem recall (end to end)  - the real command, its output to /dev/null;

and one process breaks the recall down (milliseconds since the previous phase): importing the
CLI, opening the memory, syncing the index, loading the embedder, embedding the query, and
the recall itself (its own query embedding included).

    python bench/bench_cli.py [--runs 5] [--embedder e5|use|none] [--query TEXT]
                              [--home DIR --account A --space S]

``--home`` times an existing memory instead (e.g. a LoCoMo conversation kept by
``ogmem bench locomo --home DIR``: ``--account locomo --space conv-41``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from importlib import resources
from pathlib import Path

from rich.console import Console
from rich.table import Table

QUERY = "Which hobby might Tomas continue after moving to Lisbon?"
CLI = [sys.executable, "-m", "ogmemory.interfaces.cli"]

# one process, timed phase by phase; prints {"phase": ms, ...} as JSON on its last line
BREAKDOWN = r"""
import json, sys, time
t = time.perf_counter()
out = {}
def mark(name):
    global t
    now = time.perf_counter(); out[name] = (now - t) * 1000; t = now
from ogmemory.interfaces.cli import app  # noqa: F401
from ogmemory.interfaces.cli.recall import open_reader
from ogmemory.interfaces.cli.vectors import one_thread
mark("import the CLI")
mem = open_reader(__import__("pathlib").Path(sys.argv[1]), sys.argv[3] or None,
                  sys.argv[4] or None)
mark("open the memory")
mem.sync_index()
mark("sync the index")
emb = mem.embedder
if emb is not None:
    load = getattr(emb, "load", None)
    if load is not None:
        load()
    mark("load the embedder")
    with one_thread(emb):
        emb.encode_query([sys.argv[2]])
    mark("embed one query")
with one_thread(emb):  # as ogmem recall does
    result = mem.recall(sys.argv[2])
mark("recall (query embedded again)")
mem.close()
mark("close")
print(json.dumps(out))
"""


def timed(cmd: list[str], env: dict[str, str], runs: int) -> float:
    """Median wall time of ``cmd`` over ``runs`` fresh processes, in ms."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(
            cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def build_home(home: Path, env: dict[str, str]) -> None:
    sample = resources.files("ogmemory").joinpath("data", "sample_locomo.json")
    with resources.as_file(sample) as path:
        subprocess.run(
            [*CLI, "import", "locomo", str(path), "--home", str(home)],
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--embedder", default="e5", choices=("e5", "use", "none"))
    parser.add_argument("--query", default=QUERY)
    parser.add_argument("--home", type=Path, help="an existing memory (default: the sample)")
    parser.add_argument("--account", default="")
    parser.add_argument("--space", default="")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    # Bytecode is cached as after any install (PYTHONDONTWRITEBYTECODE would make every
    # process compile ~140 modules again, about 0.15-0.3 s), and written by a first run.
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("OGMEM_") and k != "PYTHONDONTWRITEBYTECODE"
    }
    env["OGMEM_EMBEDDER"] = args.embedder
    py = sys.executable
    tenant = [
        *(["--account", args.account] if args.account else []),
        *(["--space", args.space] if args.space else []),
    ]
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as tmp:
        home = args.home or Path(tmp) / "home"
        if args.home is None:
            build_home(home, env)
        recall = [*CLI, "recall", args.query, "--home", str(home), *tenant]
        subprocess.run(recall, env=env, check=True, stdout=subprocess.DEVNULL)  # warm-up
        rows = [
            ("python -c pass", timed([py, "-c", "pass"], env, args.runs)),
            ("import ogmemory", timed([py, "-c", "import ogmemory"], env, args.runs)),
            ("import the CLI", timed([py, "-c", "import ogmemory.interfaces.cli"], env, args.runs)),
            ("ogmem --version", timed([*CLI, "--version"], env, args.runs)),
            ("ogmem recall (end to end)", timed(recall, env, args.runs)),
        ]
        phases: list[dict[str, float]] = []
        for _ in range(args.runs):
            proc = subprocess.run(
                [py, "-c", BREAKDOWN, str(home), args.query, args.account, args.space],
                env=env,
                check=True,
                capture_output=True,
                text=True,
            )
            phases.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    console = Console()
    memory = (
        f"{args.account or 'local'}/{args.space or 'default'} in {args.home}"
        if args.home
        else "the bundled sample"
    )
    title = (
        f"One-shot CLI on {memory}, median of {args.runs} processes (embedder "
        f"{args.embedder}, {os.cpu_count()} CPUs, load {load_before:.1f} before, "
        f"{os.getloadavg()[0]:.1f} after)"
    )
    whole = Table(title=title, title_justify="left")
    whole.add_column("process")
    whole.add_column("ms", justify="right")
    for name, ms in rows:
        whole.add_row(name, f"{ms:,.0f}")
    console.print(whole)
    parts = Table(
        title="ogmem recall, phase by phase (one process, in-process timers)", title_justify="left"
    )
    parts.add_column("phase")
    parts.add_column("ms", justify="right")
    for name in phases[0]:
        parts.add_row(name, f"{statistics.median(p[name] for p in phases):,.0f}")
    parts.add_row(
        "total (after interpreter start)",
        f"{statistics.median(sum(p.values()) for p in phases):,.0f}",
    )
    console.print(parts)


if __name__ == "__main__":
    main()
