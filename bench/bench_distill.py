"""Distillation benchmark over the LoCoMo development set (rule-based extractor, no embeddings).

Reports turns/s and nodes/s of the whole five-stage pipeline (collect from git, extract, link,
reconcile, write the batch, project entity views), the time to regenerate core.md, and beside
them, in the same process on the same nodes:
  * extract only     - the rule extractor alone over the collected nodes (the pipeline's ceiling);
  * one write/turn   - the naive design: every turn stored as its own memory in its own batch.

    python bench/bench_distill.py [--data FILE]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from ogmemory import Memory, Settings
from ogmemory.distill.extractors import default_extractor
from ogmemory.evaluation.data import find_locomo
from ogmemory.importers import parse_locomo, read_locomo
from ogmemory.knowledge.base import KnowledgeBase
from ogmemory.knowledge.models import Edge, Entity, MemoryItem, TimelineEvent
from ogmemory.knowledge.views import render_core
from ogmemory.storage.jsonl import JsonlKnowledgeStore


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
    args = parser.parse_args()
    data = find_data(args.data)
    console = Console()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        mem = Memory(settings=Settings(home=home, distill_on_turn=False))
        imported = mem.import_conversations(parse_locomo(read_locomo(data)))
        records = list(mem.iter_nodes_since({}))
        turns = imported.turns

        start = time.perf_counter()
        report = mem.distill()
        pipeline_s = time.perf_counter() - start

        extractor = default_extractor(mem.schema)
        start = time.perf_counter()
        result = extractor.extract(records)
        extract_s = time.perf_counter() - start

        core_times = []
        for _ in range(5):
            start = time.perf_counter()
            core = render_core(mem.knowledge.kb)
            core_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        mem.rebuild_views()
        project_s = time.perf_counter() - start

        naive = KnowledgeBase(JsonlKnowledgeStore(Path(tmp) / "naive"), Path(tmp) / "naive")
        start = time.perf_counter()
        for rec in records:
            naive.add_memory(rec.node.text or "(empty)", type="event", source="distilled")
        naive_s = time.perf_counter() - start

        cold = Memory(settings=Settings(home=home, distill_on_turn=False))
        start = time.perf_counter()
        store = cold.knowledge.kb.store
        store.refresh()
        n_records = sum(store.count(k) for k in (MemoryItem, Edge, TimelineEvent, Entity))
        load_s = time.perf_counter() - start

    table = Table(
        title=f"distillation over {data.name}: {turns} turns, {len(records)} nodes "
        f"({os.cpu_count()} cores)"
    )
    table.add_column("what")
    table.add_column("seconds", justify="right")
    table.add_column("turns/s", justify="right")
    table.add_column("nodes/s", justify="right")
    table.add_column("note")
    table.add_row(
        "ogmemory pipeline (rules)",
        f"{pipeline_s:.2f}",
        f"{turns / pipeline_s:,.0f}",
        f"{len(records) / pipeline_s:,.0f}",
        f"{len(report.batches)} batches, {report.candidates} candidates",
    )
    table.add_row(
        "baseline: extract only",
        f"{extract_s:.2f}",
        f"{turns / extract_s:,.0f}",
        f"{len(records) / extract_s:,.0f}",
        f"{len(result.candidates)} candidates",
    )
    table.add_row(
        "baseline: one write per turn",
        f"{naive_s:.2f}",
        f"{turns / naive_s:,.0f}",
        f"{len(records) / naive_s:,.0f}",
        "raw memories, no extraction",
    )
    table.add_row("goal", "", "1,000", "", "")
    console.print(table)

    table = Table(title="projection")
    table.add_column("what")
    table.add_column("ms", justify="right")
    table.add_column("note")
    table.add_row(
        "core.md render (median of 5)",
        f"{statistics.median(core_times) * 1000:.1f}",
        f"{len(core.encode())} bytes",
    )
    table.add_row("deep projection: all entity views + core.md", f"{project_s * 1000:.1f}", "")
    table.add_row(
        "cold load of the knowledge files", f"{load_s * 1000:.1f}", f"{n_records} records"
    )
    console.print(table)
    console.print(report.stats)


if __name__ == "__main__":
    main()
