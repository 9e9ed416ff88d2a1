"""How large recall's answers are, and what a relative cut would save (issue 15, item c).

    python bench/bench_answer_size.py [--data FILE] [--home DIR] [--budget 2000]

Every LoCoMo question of categories 1-4 with evidence is recalled once with no cut; each
answer's items keep their scores, so a cut ("end the answer where items fall far below the
best") is an exact prefix of the answer and can be scored for many settings at once:

* ``ratio=r``: keep items scoring at least r x the best (``RecallConfig.relative_cut``);
* ``median+r``: keep items scoring at least median + r x (best - median) of the question's pool.

It prints evidence recall (categories 1-4, multi-hop) beside the median / p90 items and tokens
per answer, then chooses a cut by leaving one conversation out (the one with the fewest tokens
on the other conversations whose loss there is at most 0.005, both columns) and shows what that
choice gives on the conversation left out; last, the shipped cut runs for real, to check that
the simulated prefix is what recall returns. ``--home`` keeps the ingested conversations (see
``ogmem bench locomo --home``) so a second run only recalls.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from bench_locomo import find_data
from rich.console import Console
from rich.table import Table

from ogmemory import Settings
from ogmemory.evaluation.harness import bench_home
from ogmemory.evaluation.locomo import clean_evidence, locomo_memory
from ogmemory.importers import read_locomo
from ogmemory.recall.config import RECIPES
from ogmemory.recall.results import RecallResult

_GRIDS = {
    "median+": (0.02, 0.05, 0.1, 0.2, 0.3, 0.5),
    "ratio=": (0.2, 0.25, 0.3, 0.35, 0.4, 0.5),
}
_TOLERANCE = 0.005


@dataclass
class _Answer:
    sample: str
    category: int
    evidence: list[str]
    items: list[tuple[float, int, tuple[str, ...]]]  # score, tokens, cites
    best: float
    median: float


Cut = Callable[[_Answer], float]  # the least score an item keeps


def _recall_of(answer: _Answer, kept: int) -> float:
    credited = {c for _, _, cites in answer.items[:kept] if len(cites) <= 3 for c in cites}
    return sum(e in credited for e in answer.evidence) / len(answer.evidence)


def _kept(answer: _Answer, floor: float) -> int:
    """The items before the first that scores below ``floor`` (recall stops packing there)."""
    return next(
        (i for i, (s, _, _) in enumerate(answer.items) if s < floor - 1e-6), len(answer.items)
    )


def _pct(values: list[int], q: float) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _score(answers: list[_Answer], cut: Cut | None) -> dict[str, float]:
    rec, multi, items, tokens = [], [], [], []
    for a in answers:
        kept = len(a.items) if cut is None else _kept(a, cut(a))
        r = _recall_of(a, kept)
        rec.append(r)
        if a.category == 1:
            multi.append(r)
        items.append(kept)
        tokens.append(sum(t for _, t, _ in a.items[:kept]))
    return {
        "recall": statistics.fmean(rec),
        "multi": statistics.fmean(multi) if multi else 0.0,
        "items_p50": statistics.median(items),
        "items_p90": _pct(items, 0.9),
        "tokens_p50": statistics.median(tokens),
        "tokens_p90": _pct(tokens, 0.9),
    }


def _answer(sid: str, cat: int, evidence: list[str], result: RecallResult) -> _Answer:
    return _Answer(
        sid,
        cat,
        evidence,
        [(i.score, i.tokens, i.cites) for i in result.items],
        float(result.stats.get("score_best", 0.0)),
        float(result.stats.get("score_median", 0.0)),
    )


def collect(data: Path, home: Path, budget: int, cut: float) -> list[_Answer]:
    config = replace(RECIPES["default"], relative_cut=cut)
    out = []
    for sample in read_locomo(data):
        sid = str(sample.get("sample_id") or "sample")
        mem = locomo_memory(sample, home, Settings(home=home))
        try:
            known = {
                str(r.node.metadata["dia_id"])
                for r in mem.iter_nodes_since({})
                if isinstance(r.node.metadata.get("dia_id"), str)
            }
            recaller = mem.retrieval.recaller()
            for qa in sample.get("qa", []):
                cat = int(qa.get("category", 0))
                evidence = clean_evidence(qa.get("evidence"), known)
                if cat not in (1, 2, 3, 4) or not evidence:
                    continue
                result = recaller.recall(str(qa["question"]), budget=budget, config=config)
                out.append(_answer(sid, cat, evidence, result))
        finally:
            mem.close()
    return out


def _median_cut(r: float) -> Cut:
    return lambda a: a.median + r * (a.best - a.median)


def _ratio_cut(r: float) -> Cut:
    return lambda a: r * a.best


_FAMILIES: dict[str, Callable[[float], Cut]] = {"median+": _median_cut, "ratio=": _ratio_cut}


def _cuts() -> list[tuple[str, Cut]]:
    return [(f"{f}{r}", _FAMILIES[f](r)) for f, grid in _GRIDS.items() for r in grid]


def _row(table: Table, name: str, s: dict[str, float], base: dict[str, float]) -> None:
    table.add_row(
        name,
        f"{s['recall']:.3f} ({s['recall'] - base['recall']:+.3f})",
        f"{s['multi']:.3f} ({s['multi'] - base['multi']:+.3f})",
        f"{s['items_p50']:.0f} / {s['items_p90']:.0f}",
        f"{s['tokens_p50']:.0f} / {s['tokens_p90']:.0f}",
    )


def _table(title: str) -> Table:
    table = Table(title=title)
    for col in ("cut", "evid. 1-4", "multi-hop", "items p50 / p90", "tokens p50 / p90"):
        table.add_column(col, justify="left" if col == "cut" else "right")
    return table


def leave_one_out(answers: list[_Answer], console: Console) -> None:
    """Per conversation held out: the cut with the fewest tokens on the others whose loss
    there is at most the tolerance (both columns), scored on the one held out."""
    samples = sorted({a.sample for a in answers})
    table = Table(title=f"cut chosen on the other conversations (loss <= {_TOLERANCE})")
    for col in ("held out", "chosen", "evid. 1-4", "multi-hop", "items p50 / p90", "tokens"):
        table.add_column(col, justify="left" if col in ("held out", "chosen") else "right")
    for held in samples:
        train = [a for a in answers if a.sample != held]
        test = [a for a in answers if a.sample == held]
        base = _score(train, None)
        chosen: tuple[str, Cut | None] = ("off", None)
        fewest = base["tokens_p50"]
        for name, cut in _cuts():
            s = _score(train, cut)
            ok = max(base["recall"] - s["recall"], base["multi"] - s["multi"]) <= _TOLERANCE
            if ok and s["tokens_p50"] < fewest:
                chosen, fewest = (name, cut), s["tokens_p50"]
        full, got = _score(test, None), _score(test, chosen[1])
        table.add_row(
            held,
            chosen[0],
            f"{got['recall']:.3f} ({got['recall'] - full['recall']:+.3f})",
            f"{got['multi']:.3f} ({got['multi'] - full['multi']:+.3f})",
            f"{got['items_p50']:.0f} / {got['items_p90']:.0f}",
            f"{got['tokens_p50']:.0f} / {got['tokens_p90']:.0f} "
            f"(was {full['tokens_p50']:.0f} / {full['tokens_p90']:.0f})",
        )
    console.print(table)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data")
    parser.add_argument("--home", type=Path)
    parser.add_argument("--budget", type=int, default=2000)
    parser.add_argument(
        "--check",
        type=float,
        default=RECIPES["default"].relative_cut,
        help="relative_cut run for real (0: none)",
    )
    args = parser.parse_args()
    console = Console()
    data = find_data(args.data)
    with bench_home(args.home, "ogmem-size-") as home:
        answers = collect(data, home, args.budget, cut=0.0)
        base = _score(answers, None)
        n = len(answers)
        table = _table(f"LoCoMo dev, categories 1-4, {n} questions, {args.budget} tokens")
        _row(table, "none", base, base)
        for name, cut in _cuts():
            _row(table, name, _score(answers, cut), base)
        console.print(table)
        leave_one_out(answers, console)
        if not args.check:
            return
        real = collect(data, home, args.budget, cut=args.check)
        check = _table(f"relative_cut={args.check} run for real vs. simulated")
        _row(check, "simulated", _score(answers, _ratio_cut(args.check)), base)
        _row(check, "real", _score(real, None), base)
        console.print(check)


if __name__ == "__main__":
    main()
