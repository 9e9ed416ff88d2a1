"""What distillation keeps, measured (the same as ``ogmem bench knowledge``).

* LoCoMo: coverage, semantic coverage, grounded, memories per observation and throughput
  against each conversation's gold observations, with the LoCoMo recall benchmark's evidence
  recall (categories 1-4) in the same table (``--no-recall`` skips it: it takes minutes);
* scripted developer sessions: gold facts found, stale facts still current, wrong facts, junk
  core.md lines and duplicate memories, for every set in ``bench/sessions/``: the development
  scripts (``dev``, ``dev2``: tuned on) and the held-out ones (``heldout*``: never tuned on).

    python bench/bench_knowledge.py [--data FILE] [--no-recall] [--show]
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from rich.console import Console

from ogmemory.evaluation.data import find_locomo
from ogmemory.evaluation.devsessions import print_sessions, run_sessions, script_paths
from ogmemory.evaluation.knowledge import print_knowledge, recall_summary, run_knowledge
from ogmemory.evaluation.locomo import run_locomo

HERE = Path(__file__).resolve().parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data")
    parser.add_argument("--no-recall", action="store_true")
    parser.add_argument("--show", action="store_true")
    args = parser.parse_args()
    console = Console()
    data = (
        Path(args.data)
        if args.data
        else find_locomo(Path.cwd(), os.environ) or find_locomo(HERE, os.environ)
    )
    if data is not None:
        report = run_knowledge(data, progress=lambda m: console.print(f"[dim]{m}[/dim]"))
        if not args.no_recall:
            locomo = run_locomo(data, progress=lambda m: console.print(f"[dim]{m}[/dim]"))
            report.recall = recall_summary(locomo, ["ogmemory", "RRF turns"])
        print_knowledge(report, console)
    else:
        console.print("LoCoMo data not found (pass --data or set OGMEM_LOCOMO): sessions only")
    for folder in sorted(p for p in (HERE / "sessions").iterdir() if p.is_dir()):
        scores = run_sessions(script_paths(folder))
        print_sessions(
            scores, console, title=f"scripted developer sessions ({folder.name})", show=args.show
        )


if __name__ == "__main__":
    main()
