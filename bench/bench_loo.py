"""Two families of recall settings chosen by leaving one LoCoMo conversation out, on the same
questions in one run: the vector ranking of documents (``lend`` off, as before) and of turns
lifted by their abstractions (``lend`` on).

    python bench/bench_loo.py --data FILE [--home DIR] [--budget 2000] [--ideas]
    python bench/bench_loo.py --data ONE.json --save ONE.pickle ...   # a conversation at a time
    python bench/bench_loo.py --merge A.pickle B.pickle C.pickle     # ... and the tables of all

Each family is its default and one setting at a time moved one step either way
(``ogmemory.evaluation.loo.variants``); for each conversation held out, the member scoring best
on the others is chosen and scored on it. Printed per family: that table, its mean over the
held-out conversations and pooled over their questions, the default's evidence recall per
category, and its recall latency p50 / p95 (each question is recalled by every member in turn,
so both families run in the same window); the load average before and after. ``--ideas``
adds the families of ``IDEAS``: an idea beside the turns' default, chosen the same way.
"""

from __future__ import annotations

import argparse
import os
import pickle
import statistics
from dataclasses import replace
from pathlib import Path

from rich.console import Console
from rich.table import Table

from ogmemory.evaluation.locomo import CATEGORIES, LocomoReport, run_locomo
from ogmemory.evaluation.loo import loo_table, variants
from ogmemory.recall.config import RECIPES

_DOCS = replace(RECIPES["default"], lend=False)
_TURNS = replace(RECIPES["default"], lend=True)
FAMILIES = {"docs:": variants(_DOCS, "docs:"), "turns:": variants(_TURNS, "turns:")}
#: ideas, each judged against the turns' default only (``--ideas``)
IDEAS = {
    "cap:": {
        "cap:default": _TURNS,
        "cap:session_cap=3": replace(_TURNS, session_cap=3),
        "cap:session_cap=6": replace(_TURNS, session_cap=6),
    },
}


def _mean(values: list[float]) -> float:
    return statistics.fmean(values) if values else 0.0


def family_tables(report: LocomoReport, prefix: str) -> list[Table]:
    """The leave-one-out table of one family and its default's figures."""
    rows = loo_table(report, prefix)
    loo = Table(title=f"{prefix} leave one conversation out @ {report.budget} tokens")
    for col in ("held out", "chosen on the others", "1-4 chosen", "1-4 default", "mh chosen"):
        loo.add_column(col)
    loo.add_column("mh default")
    pooled: dict[str, list[float]] = {"c14": [], "d14": [], "cmh": [], "dmh": []}
    for held, chosen, c14, d14, cmh, dmh in rows:
        loo.add_row(held, chosen, f"{c14:.3f}", f"{d14:.3f}", f"{cmh:.3f}", f"{dmh:.3f}")
        by = report.by_sample[held]
        for key, name in (
            ("c", f"ogmemory[{prefix}{chosen}]"),
            ("d", f"ogmemory[{prefix}default]"),
        ):
            pooled[f"{key}14"] += [r.recall for r in by[name] if r.category in (1, 2, 3, 4)]
            pooled[f"{key}mh"] += [r.recall for r in by[name] if r.category == 1]
    means = [_mean([r[i] for r in rows]) for i in (2, 3, 4, 5)]
    loo.add_row("mean", "", *(f"{m:.3f}" for m in means))
    loo.add_row("pooled", "", *(f"{_mean(pooled[k]):.3f}" for k in ("c14", "d14", "cmh", "dmh")))
    default = [r for by in report.by_sample.values() for r in by[f"ogmemory[{prefix}default]"]]
    detail = Table(title=f"{prefix}default, all conversations pooled")
    for col in ("category", "n", "evidence recall", "tokens", "p50 ms", "p95 ms"):
        detail.add_column(col)
    groups = [(f"{c} {CATEGORIES[c]}", (c,)) for c in (1, 2, 3, 4)] + [("1-4", (1, 2, 3, 4))]
    for label, cats in groups:
        chosen_rows = [r for r in default if r.category in cats]
        lat = sorted(r.latency_ms for r in chosen_rows)
        if not lat:
            continue
        detail.add_row(
            label,
            str(len(chosen_rows)),
            f"{_mean([r.recall for r in chosen_rows]):.3f}",
            f"{_mean([float(r.tokens) for r in chosen_rows]):.0f}",
            f"{lat[len(lat) // 2]:.1f}",
            f"{lat[min(len(lat) - 1, round(0.95 * (len(lat) - 1)))]:.1f}",
        )
    return [loo, detail]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path)
    parser.add_argument("--home", type=Path)
    parser.add_argument("--budget", type=int, default=2000)
    parser.add_argument("--ideas", action="store_true", help="also the ideas of IDEAS")
    parser.add_argument("--save", type=Path, help="keep the report (pickle) for --merge")
    parser.add_argument("--merge", type=Path, nargs="+", help="print the tables of saved reports")
    args = parser.parse_args()
    families = FAMILIES | (IDEAS if args.ideas else {})
    console = Console(width=120)
    before = os.getloadavg()
    if args.merge:
        report = LocomoReport(budget=args.budget)
        for path in args.merge:
            part = pickle.loads(path.read_bytes())
            report.by_sample |= part.by_sample
            report.budget = part.budget
        prefixes = sorted(
            {
                s.removeprefix("ogmemory[").partition(":")[0] + ":"
                for by in report.by_sample.values()
                for s in by
            }
        )
        families = {p: {} for p in prefixes}
    else:
        if args.data is None:
            raise SystemExit("--data or --merge")
        configs = {}
        for family in families.values():
            configs |= family
        report = run_locomo(
            args.data,
            home=args.home,
            budget=args.budget,
            baselines=False,
            configs=configs,
            progress=lambda msg: console.print(f"[dim]{msg}[/dim]"),
        )
        if args.save:
            args.save.write_bytes(pickle.dumps(report))
    for prefix in families:
        for table in family_tables(report, prefix):
            console.print(table)
    after = os.getloadavg()
    console.print(
        f"load average before {before[0]:.2f} {before[1]:.2f} {before[2]:.2f}, "
        f"after {after[0]:.2f} {after[1]:.2f} {after[2]:.2f}"
    )


if __name__ == "__main__":
    main()
