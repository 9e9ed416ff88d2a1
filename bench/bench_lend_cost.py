"""What the vector ranking of turns (``lend`` on) costs per recall beside the ranking of
documents (``lend`` off), on the same LoCoMo questions in one process.

    python bench/bench_lend_cost.py --data FILE --home DIR [--budget 2000]

Each question is recalled with both settings, in alternating order (so neither always runs
second, on warm pages); printed per setting: wall time p50 / p95 and the process's CPU time
p50 / p95 and mean (the query embedding's threads included), and the ratio of the means; the load
average before and after. ``--home`` is a home ``bench_loo.py`` or ``ogmem bench locomo`` kept.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from dataclasses import replace
from pathlib import Path

from rich.console import Console
from rich.table import Table

from ogmemory.config import Settings
from ogmemory.evaluation.locomo import locomo_memory
from ogmemory.importers import read_locomo
from ogmemory.recall.config import RECIPES

SETTINGS = {
    "documents (lend off)": replace(RECIPES["default"], lend=False),
    "turns (lend on)": replace(RECIPES["default"], lend=True),
}


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--budget", type=int, default=2000)
    args = parser.parse_args()
    before = os.getloadavg()
    wall: dict[str, list[float]] = {k: [] for k in SETTINGS}
    cpu: dict[str, list[float]] = {k: [] for k in SETTINGS}
    names = list(SETTINGS)
    for sample in read_locomo(args.data):
        with locomo_memory(sample, args.home, Settings(home=args.home)) as mem:
            recaller = mem.retrieval.recaller()
            questions = [str(qa.get("question", "")) for qa in sample.get("qa", [])]
            recaller.recall(questions[0], budget=args.budget)  # warm up
            for i, question in enumerate(questions):
                for name in names if i % 2 == 0 else names[::-1]:
                    t0, c0 = time.perf_counter(), time.process_time()
                    recaller.recall(question, budget=args.budget, config=SETTINGS[name])
                    cpu[name].append((time.process_time() - c0) * 1000)
                    wall[name].append((time.perf_counter() - t0) * 1000)
    after = os.getloadavg()
    table = Table(title=f"recall cost per question, {len(wall[names[0]])} questions")
    for col in ("vector ranking", "wall p50", "wall p95", "CPU p50", "CPU p95", "CPU mean"):
        table.add_column(col)
    for name in names:
        table.add_row(
            name,
            f"{_pct(wall[name], 0.5):.1f} ms",
            f"{_pct(wall[name], 0.95):.1f} ms",
            f"{_pct(cpu[name], 0.5):.1f} ms",
            f"{_pct(cpu[name], 0.95):.1f} ms",
            f"{statistics.fmean(cpu[name]):.1f} ms",
        )
    console = Console(width=120)
    console.print(table)
    ratio = statistics.fmean(cpu[names[1]]) / statistics.fmean(cpu[names[0]])
    console.print(f"CPU mean, turns / documents: {ratio:.2f}")
    console.print(
        f"load average before {before[0]:.2f} {before[1]:.2f} {before[2]:.2f}, "
        f"after {after[0]:.2f} {after[1]:.2f} {after[2]:.2f}"
    )


if __name__ == "__main__":
    main()
