"""Recall's relevance floor: what it returns for questions about the memory and for questions it
cannot answer, in tokens, beside the same recall with the floor off (same process, same index).

    python bench/bench_abstain.py [--data LOCOMO.json] [--home DIR] [--budget 2000]

Related questions are the LoCoMo questions of categories 1-4 (per conversation, so a floor
fitted to some conversations is seen on the others); unrelated ones are general-knowledge and
how-to questions in English and Chinese (``bench/data/unrelated_questions.txt``). A home
built by ``ogmem demo`` (``--home``) is reused; otherwise the data is imported, distilled and
embedded into a temporary one.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from dataclasses import replace
from pathlib import Path

from rich.console import Console
from rich.table import Table

from ogmemory import Memory, Settings
from ogmemory.evaluation.data import find_locomo
from ogmemory.importers import parse_locomo, read_locomo
from ogmemory.recall.config import RECIPES, RecallConfig

HERE = Path(__file__).resolve().parent


def unrelated() -> list[str]:
    lines = (HERE / "data" / "unrelated_questions.txt").read_text(encoding="utf-8").splitlines()
    return [q.strip() for q in lines if q.strip() and not q.startswith("#")]


def related(data: Path) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for sample in json.loads(data.read_text(encoding="utf-8")):
        for qa in sample.get("qa", []):
            if qa.get("category") in (1, 2, 3, 4):
                out.setdefault(str(sample["sample_id"]), []).append(str(qa["question"]))
    return out


def build(home: Path, data: Path, console: Console) -> Memory:
    mem = Memory(settings=Settings(home=home, distill_on_turn=False, index_worker=False))
    if not mem.list_sessions():
        console.print(f"[dim]importing {data.name} into {home} ...[/dim]")
        mem.import_conversations(parse_locomo(read_locomo(data)))
        mem.sleep("deep")
    mem.sync_index()
    mem.drain_outbox()
    return mem


def ask(
    mem: Memory, questions: list[str], budget: int, base: RecallConfig
) -> dict[str, list[float]]:
    recaller = mem.retrieval.recaller()
    floor_off = replace(base, abstain=False)
    out: dict[str, list[float]] = {"tokens": [], "off": [], "answered": [], "relevance": []}
    for q in questions:
        on = recaller.recall(q, budget=budget, config=base)
        off = recaller.recall(q, budget=budget, config=floor_off)
        out["tokens"].append(on.tokens)
        out["off"].append(off.tokens)
        out["answered"].append(1.0 if on.items else 0.0)
        out["relevance"].append(float(on.stats.get("relevance", 0.0)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data")
    parser.add_argument("--home", type=Path)
    parser.add_argument("--budget", type=int, default=2000)
    parser.add_argument(
        "--no-lend", action="store_true", help="the vector ranking of documents (lend off)"
    )
    args = parser.parse_args()
    base = replace(RECIPES["default"], lend=not args.no_lend)
    console = Console()
    data = Path(args.data) if args.data else find_locomo(Path.cwd(), {})
    if data is None:
        raise SystemExit("LoCoMo data not found: pass --data")
    with tempfile.TemporaryDirectory() as tmp:
        mem = build(args.home or Path(tmp) / "home", data, console)
        floor = mem.retrieval.recaller().relevance_floor
        groups = {f"related: {sid}": qs for sid, qs in related(data).items()}
        groups["unrelated (general knowledge)"] = unrelated()
        name = mem.embedder.name if mem.embedder else "no embedder"
        title = f"relevance floor {floor} ({name}), budget {args.budget}, lend {base.lend}"
        table = Table(title=title)
        for col in (
            "questions",
            "n",
            "answered",
            "abstained",
            "tokens mean",
            "tokens mean, floor off",
            "min relevance",
        ):
            table.add_column(col, justify="left" if col == "questions" else "right")
        for name, qs in groups.items():
            r = ask(mem, qs, args.budget, base)
            answered = statistics.mean(r["answered"])
            table.add_row(
                name,
                str(len(qs)),
                f"{answered:.3f}",
                f"{1 - answered:.3f}",
                f"{statistics.mean(r['tokens']):,.0f}",
                f"{statistics.mean(r['off']):,.0f}",
                f"{min(r['relevance']):.3f}",
            )
        mem.close()
    console.print(table)


if __name__ == "__main__":
    main()
