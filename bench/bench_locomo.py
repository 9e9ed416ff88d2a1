"""LoCoMo recall benchmark beside raw-turn baselines (same process, same budget).

    python bench/bench_locomo.py [--data FILE] [--run-out RUN.jsonl] [--budget 2000]

The same as ``ogmem bench locomo``; see ``ogmemory.evaluation.locomo``.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from rich.console import Console

from ogmemory.evaluation.data import find_locomo
from ogmemory.evaluation.locomo import print_report, run_locomo


def find_data(arg: str | None) -> Path:
    found = (
        Path(arg)
        if arg
        else find_locomo(Path.cwd(), os.environ)
        or find_locomo(Path(__file__).resolve().parent, os.environ)
    )
    if found is None:
        raise SystemExit("LoCoMo data not found: pass --data or set OGMEM_LOCOMO")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data")
    parser.add_argument("--run-out", type=Path)
    parser.add_argument("--home", type=Path)
    parser.add_argument("--budget", type=int, default=2000)
    parser.add_argument("--samples", type=int)
    args = parser.parse_args()
    console = Console()
    report = run_locomo(
        find_data(args.data),
        home=args.home,
        run_out=args.run_out,
        budget=args.budget,
        samples=args.samples,
        progress=lambda msg: console.print(f"[dim]{msg}[/dim]"),
    )
    print_report(report, console)


if __name__ == "__main__":
    main()
