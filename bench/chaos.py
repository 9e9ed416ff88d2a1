"""The crash part of issue 10's campaign, as a run anyone can repeat: SIGKILL at random points.

Four phases, N trials each (default 100). A trial copies a prepared home, starts a child
process doing one kind of work on it, kills it with SIGKILL at a random moment of that work,
then checks the home:

  append   a writer appending and committing turns; it prints each turn it got a commit for
           (acknowledged); every acknowledged turn must be there exactly once
  distill  ``sleep light`` over 48 turns in small batches (resumable, atomic batches)
  deep     ``sleep deep``: distillation, then every entity view and core.md
  index    a rebuild of the index from the files (full text, then the embedding outbox)

After each kill: ``fsck`` (what it found, whether ``--repair`` made the home clean), turn
accounting (lost, duplicated), batches whose records are visible without a commit marker, then
the interrupted work is finished and compared with the same work run without interruption on a
copy of the same home (memories, timeline, facts; the index's documents and vectors).

    python bench/chaos.py [--trials 100] [--phases append,distill,deep,index] [--seed 10]
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from ogmemory import Memory, Settings
from ogmemory.health.fsck import check_home

PHASES = ("append", "distill", "deep", "index")
STATEMENTS = [
    "I moved to Berlin in 2019 and I work at Acme as a backend engineer.",
    "My manager is Alice Chen; she joined last March.",
    "We decided to use PostgreSQL instead of MySQL for billing.",
    "Yesterday I finished the migration of the payments service.",
    "I prefer green tea over coffee in the morning.",
    "Next week we start the Kubernetes rollout with Bob.",
    "I switched from JavaScript to TypeScript last month.",
    "My sister Lena lives in Vienna and studies medicine.",
    "The deploy runs every Friday at noon from the main branch.",
    "I learned that the cache must be warmed before the load test.",
    "We chose Grafana for dashboards after comparing it with Kibana.",
    "I started running three times a week in May.",
]


@dataclass
class Tally:
    trials: int = 0
    killed: int = 0
    acknowledged: int = 0
    lost: int = 0
    duplicated: int = 0
    partial_visible: int = 0
    fsck_found: int = 0
    fsck_failures: int = 0
    mismatches: int = 0
    notes: Counter[str] = field(default_factory=Counter)


def settings(home: Path, embedder: str | None = "none") -> Settings:
    return Settings(
        home=home,
        embedder=embedder,
        distill_on_turn=False,
        index_worker=False,
        distill_batch_nodes=8,
    )


# ====================================================================== children


def child(phase: str, home: Path, embedder: str | None) -> None:
    """The work that gets killed; prints READY when it starts, ACK <n> per committed turn."""
    mem = Memory(settings=settings(home, embedder))
    print("READY", flush=True)
    if phase == "append":
        for i in range(100_000):
            mem.append_message(
                "w", {"role": "user", "content": f"marker-{i}: {STATEMENTS[i % 12]}"}
            )
            mem.append_message("w", {"role": "assistant", "content": f"ok {i}"})
            mem.commit_turn("w")
            print(f"ACK {i}", flush=True)
    elif phase in ("distill", "deep"):
        mem.sleep("light" if phase == "distill" else "deep")
    elif phase == "index":
        mem.reindex(wait_for_vectors=True)
    mem.close()
    print("DONE", flush=True)


# ====================================================================== homes


def prepare(root: Path, phase: str, embedder: str | None) -> Path:
    """The home a trial starts from (copied per trial)."""
    home = root / f"prepared-{phase}"
    with Memory(settings=settings(home, embedder)) as mem:
        if phase == "append":
            mem.append_message("w", {"role": "user", "content": "marker-start: hello"})
            mem.append_message("w", {"role": "assistant", "content": "hi"})
            mem.commit_turn("w")
            return home
        for i in range(48):
            sid = f"s{i % 4}"
            mem.append_message(
                sid, {"role": "user", "content": f"marker-{i}: {STATEMENTS[i % 12]}"}
            )
            mem.append_message(sid, {"role": "assistant", "content": "Noted."})
            mem.commit_turn(sid)
        if phase == "index":
            mem.sleep("deep")
            mem.reindex(wait_for_vectors=True)
    return home


def snapshot(mem: Memory) -> dict[str, Any]:
    """What must come out the same whether or not the work was interrupted."""
    return {
        "memories": sorted(m.text for m in mem.memories()),
        "events": sorted(e.summary for e in mem.timeline(include_superseded=True)),
        "facts": sorted(
            f"{e.src} {e.relation} {e.dst} {e.valid_to is None}"
            for e in mem.facts(include_history=True)
        ),
        "batches": len(mem.batches()),
    }


def index_snapshot(mem: Memory) -> dict[str, Any]:
    stats = mem.index_stats()
    hits = mem.search("Berlin PostgreSQL tea Kubernetes", limit=50)
    return {
        "documents": stats["documents"],
        "vectors": stats["vectors"],
        "hits": sorted(h.id for h in hits),
    }


def finish(phase: str, home: Path, embedder: str | None) -> dict[str, Any]:
    """Run the interrupted work to its end, and snapshot the result."""
    with Memory(settings=settings(home, embedder)) as mem:
        if phase == "distill":
            mem.sleep("light")
        elif phase == "deep":
            mem.sleep("deep")
        if phase == "index":
            mem.sync_index()
            mem.drain_outbox()
            return index_snapshot(mem)
        return snapshot(mem)


# ====================================================================== checks


def turn_markers(mem: Memory) -> Counter[str]:
    """How many committed user nodes carry each ``marker-<n>``."""
    seen: Counter[str] = Counter()
    for info in mem.list_sessions():
        committed = {n for c in mem.session_commits(info.session_id) for n in c.node_ids}
        for node in mem.get_nodes(info.session_id):
            if node.role == "user" and node.id in committed:
                seen[node.text.split(":", 1)[0]] += 1
    return seen


def partial_visible(home: Path, mem: Memory) -> int:
    """Batches with data lines but no commit marker whose records are visible anyway."""
    memory_dir = mem.tenant.memory_dir
    markers = memory_dir / "oplog" / "batches.jsonl"
    committed = set()
    if markers.exists():
        for line in markers.read_bytes().splitlines():
            try:
                committed.add(json.loads(line)["batch"])
            except (ValueError, KeyError, TypeError):
                continue
    pending: dict[str, set[str]] = {}
    committed_ids: set[str] = set()
    for path in memory_dir.rglob("*.jsonl"):
        if path == markers:
            continue
        for line in path.read_bytes().splitlines():
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if rec.get("_batch") in committed:
                committed_ids.add(str(rec.get("id")))
            elif isinstance(rec.get("_batch"), str):
                pending.setdefault(rec["_batch"], set()).add(str(rec.get("id")))
    visible = {m.id for m in mem.memories(include_disabled=True)}
    visible |= {e.id for e in mem.timeline(include_superseded=True)}
    visible |= {e.id for e in mem.facts(include_history=True)}
    return sum(1 for ids in pending.values() if (ids - committed_ids) & visible)


def check_after_kill(
    phase: str,
    home: Path,
    embedder: str | None,
    tally: Tally,
    acked: list[int],
    reference: dict[str, Any],
) -> None:
    conf = settings(home, embedder)
    found = check_home(conf)
    if not found.ok:
        tally.fsck_found += 1
        for f in found.findings:
            what = re.sub(r"\b[0-9a-f]{12,40}\b", "<commit>", f.problem.split("(")[0].strip())
            tally.notes[f"{f.area}: {what}"] += 1  # one line per kind of finding, not per commit
    unrepairable = any(not f.repairable for f in found.findings)
    if not found.ok:
        check_home(conf, repair=True)
    if unrepairable or not check_home(conf).ok:
        tally.fsck_failures += 1
    with Memory(settings=conf) as mem:
        seen = turn_markers(mem)
        tally.partial_visible += partial_visible(home, mem)
    expected = (
        [f"marker-{i}" for i in acked] if phase == "append" else [f"marker-{i}" for i in range(48)]
    )
    tally.acknowledged += len(expected)
    tally.lost += sum(1 for m in expected if seen[m] == 0)
    tally.duplicated += sum(1 for m, n in seen.items() if n > 1)
    if phase != "append":
        got = finish(phase, home, embedder)
        if got != reference:
            tally.mismatches += 1
            for key in sorted(k for k in reference if got.get(k) != reference[k]):
                tally.notes[f"differs in {key}: {_difference(got.get(key), reference[key])}"] += 1


def _difference(got: Any, want: Any) -> str:
    """What differs from the reference, in a few words (which ids, or both values)."""
    if isinstance(got, list) and isinstance(want, list):
        extra, missing = sorted(set(got) - set(want)), sorted(set(want) - set(got))
        return f"extra {extra[:3]}, missing {missing[:3]}"
    return f"{got} instead of {want}"


# ====================================================================== trials


def spawn(phase: str, home: Path, embedder: str | None) -> subprocess.Popen[str]:
    cmd = [sys.executable, __file__, "--child", phase, str(home), "--embedder", embedder or "none"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    if proc.stdout.readline().strip() != "READY":
        raise RuntimeError(f"the {phase} child did not start")
    return proc


def calibrate(phase: str, prepared: Path, root: Path, embedder: str | None) -> float:
    """Seconds the work takes uninterrupted (the window the kills are drawn from)."""
    if phase == "append":
        return 3.0  # the writer never ends: kill it within its first seconds
    home = root / f"calibrate-{phase}"
    shutil.copytree(prepared, home)
    proc = spawn(phase, home, embedder)
    start = time.perf_counter()
    proc.communicate()
    return time.perf_counter() - start


def trial(
    phase: str,
    prepared: Path,
    root: Path,
    n: int,
    window: float,
    rng: random.Random,
    embedder: str | None,
    tally: Tally,
    reference: dict[str, Any],
) -> None:
    home = root / f"{phase}-{n}"
    shutil.copytree(prepared, home)
    proc = spawn(phase, home, embedder)
    time.sleep(rng.uniform(0.0, window))
    proc.send_signal(signal.SIGKILL)
    out, _ = proc.communicate()
    tally.trials += 1
    tally.killed += int(proc.returncode == -signal.SIGKILL and "DONE" not in out)
    acked = [int(line.split()[1]) for line in out.splitlines() if line.startswith("ACK ")]
    check_after_kill(phase, home, embedder, tally, acked, reference)
    shutil.rmtree(home, ignore_errors=True)


def run_phase(
    phase: str, trials: int, root: Path, rng: random.Random, embedder: str | None
) -> Tally:
    phase_embedder = embedder if phase == "index" else "none"
    prepared = prepare(root, phase, phase_embedder)
    reference: dict[str, Any] = {}
    if phase != "append":
        ref_home = root / f"reference-{phase}"
        shutil.copytree(prepared, ref_home)
        reference = finish(phase, ref_home, phase_embedder)
    window = calibrate(phase, prepared, root, phase_embedder) * 1.1
    tally = Tally()
    for n in range(trials):
        trial(phase, prepared, root, n, window, rng, phase_embedder, tally, reference)
    return tally


def show(results: dict[str, Tally], seconds: float, embedder: str | None) -> None:
    table = Table(
        title=f"chaos: SIGKILL at random points ({seconds:.0f} s; index phase "
        f"embedder {embedder or 'none'})",
        title_justify="left",
    )
    for col in (
        "phase",
        "trials",
        "killed mid-work",
        "acknowledged",
        "lost",
        "duplicated",
        "partial batches visible",
        "fsck found",
        "fsck failures",
        "differs from reference",
    ):
        table.add_column(col, justify="left" if col == "phase" else "right")
    for phase, t in results.items():
        table.add_row(
            phase,
            *(
                str(v)
                for v in (
                    t.trials,
                    t.killed,
                    t.acknowledged,
                    t.lost,
                    t.duplicated,
                    t.partial_visible,
                    t.fsck_found,
                    t.fsck_failures,
                    t.mismatches if phase != "append" else "-",
                )
            ),
        )
    console = Console(width=170)
    console.print(table)
    for phase, t in results.items():
        for what, count in t.notes.most_common():
            said = what if what.startswith("differs") else f"fsck found {what}"
            console.print(f"  {phase}: {said} in {count} trial(s)", markup=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=100, help="trials per phase")
    parser.add_argument("--phases", default=",".join(PHASES))
    parser.add_argument("--seed", type=int, default=10)
    parser.add_argument("--embedder", default="e5", help="the index phase's embedder")
    parser.add_argument("--child", nargs=2, metavar=("PHASE", "HOME"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    embedder = None if args.embedder == "none" else args.embedder
    if args.child:
        child(args.child[0], Path(args.child[1]), embedder)
        return
    logging.basicConfig(level=logging.ERROR)  # repairs on open are counted, not narrated
    rng = random.Random(args.seed)
    start = time.perf_counter()
    results = {}
    with tempfile.TemporaryDirectory(prefix="ogmem-chaos-") as tmp:
        for phase in args.phases.split(","):
            results[phase] = run_phase(phase, args.trials, Path(tmp), rng, embedder)
            t = results[phase]  # one line per finished phase, in case the run is cut short
            print(
                f"# {phase}: {t.trials} trials, {t.killed} killed mid-work, "
                f"{t.acknowledged} acknowledged, {t.lost} lost, {t.duplicated} duplicated, "
                f"{t.partial_visible} partial batches visible, fsck found {t.fsck_found}, "
                f"{t.fsck_failures} fsck failures, {t.mismatches} differ from reference",
                flush=True,
            )
    show(results, time.perf_counter() - start, embedder)


if __name__ == "__main__":
    main()
