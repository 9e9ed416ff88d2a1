"""Two families of recall settings chosen by leaving one LoCoMo conversation out, on the same
questions in one run: the vector ranking of documents (``lend`` off, as before) and of turns
lifted by their abstractions (``lend`` on).

    python bench/bench_loo.py --data FILE [--home DIR] [--budget 2000] [--ideas]
    python bench/bench_loo.py --data FILE --family turns: companion:  # only these families
    python bench/bench_loo.py --data ONE.json --save ONE.pickle ...   # a conversation at a time
    python bench/bench_loo.py --merge A.pickle B.pickle C.pickle     # ... and the tables of all

Each family is its default and one setting at a time moved one step either way
(``ogmemory.evaluation.loo.variants``); for each conversation held out, the member scoring best
on the others is chosen and scored on it. Printed per family: that table, its mean over the
held-out conversations and pooled over their questions, the default's evidence recall per
category, and its recall latency p50 / p95 (each question is recalled by every member in turn,
so both families run in the same window); the load average before and after. ``--ideas``
adds the families of ``IDEAS``: an idea beside the turns' default, chosen the same way.
``--only`` recalls with the named members alone and prints their figures (no choosing: for
data held out from all choosing).
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
from ogmemory.recall.config import RECIPES, RecallConfig

_DOCS = replace(RECIPES["default"], lend=False)
_TURNS = replace(RECIPES["default"], lend=True)
_OFF = replace(_TURNS, several_candidates=0, several_subject_weight=0.0)
#: items as the items7 round made them read, the default until recall8 (recipe "dialogue")
_ITEMS7 = replace(RECIPES["dialogue"], lend=True)
FAMILIES = {"docs:": variants(_DOCS, "docs:"), "turns:": variants(_TURNS, "turns:")}
#: ideas, each judged against the turns' default only (``--ideas``; add a family here). Tried on
#: 2026-12-01 and not kept (leave-one-out mean, 1-4 / multi-hop, default 0.919 / 0.790): at most
#: 3 or 6 candidate memories from one session (never chosen; pooled 1-4 0.905 / 0.919); a
#: second vector ranking from the question moved toward its three best turns (pseudo-relevance
#: feedback) fused at weight 0.5 / 1 (never chosen; pooled 0.913 / 0.890); dense_units 40 / 90
#: (90 chosen twice: 0.918 / 0.785). Items citing 4 turns are not credited by the harness (at
#: most 3), so max_cites cannot be tried this way. Tried on 2026-12-02 beside the default of then
#: (mmr=0.5: pooled 0.913 / 0.791) and not kept: an item's score lowered by 0.2 / 0.4 for each
#: item already packed from its session (0.905 / 0.791, 0.898 / 0.791); 40 or 50 candidates
#: (0.912 / 0.779, 0.909 / 0.771; with the session decay 0.896 / 0.775); a question joining two
#: names ("Did Jon and Gina both ...?") also asked of each, fused at 0.5 / 1 on mmr=0 with
#: companion_share=0.5 (0.916 / 0.785, 0.917 / 0.785, against 0.916 / 0.785 without). mmr=0
#: was chosen on every fold (0.924 / 0.791) and is the default since. Tried on 2026-12-02
#: (recall7) leaving one of dev 3 + conv-44 out, from main's settings then (``_OFF``: pooled
#: 0.889 / 0.697) and not kept: the subject ranking for every question naming someone (subject:,
#: 0.883 / 0.692 as chosen), each session's nearest turn fused (never chosen), a second hop
#: through the names of the best documents (hop:, never chosen). Kept: several: (60 candidates
#: and the subject ranking at 0.5 for a question asking for several things, 0.894 / 0.731).
IDEAS: dict[str, dict[str, RecallConfig]] = {
    # which turns ride with an item's first one: any of its session (the default), or only
    # those within ``free_neighbours`` of it or standing ``companion_share`` of its height above
    # the question's background
    "companion:": {
        "companion:default": _TURNS,
        "companion:share=0.3": replace(_TURNS, companion_share=0.3),
        "companion:share=0.5": replace(_TURNS, companion_share=0.5),
        "companion:share=0.3,free=1": replace(_TURNS, companion_share=0.3, free_neighbours=1),
        "companion:share=0.5,free=1": replace(_TURNS, companion_share=0.5, free_neighbours=1),
        "companion:mmr=0.5": replace(_TURNS, mmr=0.5),  # the default before 2026-12-02
    },
    # how many distinct candidates, now that they follow the ranking
    "depth:": {
        "depth:default": _TURNS,
        "depth:candidates=40": replace(_TURNS, candidates=40),
        "depth:candidates=50": replace(_TURNS, candidates=50),
    },
    # (on main's settings before recall7, ``_OFF``) a question naming someone: the vector
    # ranking of what is about them (their turns, knowledge naming them), fused too
    "subject:": {
        "subject:default": _OFF,
        "subject:w=0.5": replace(_OFF, subject_weight=0.5),
        "subject:w=1": replace(_OFF, subject_weight=1.0),
        "subject:w=2": replace(_OFF, subject_weight=2.0),
        "subject:w=0.25": replace(_OFF, subject_weight=0.25),
        "subject:w=1,cands=40": replace(_OFF, subject_weight=1.0, candidates=40),
    },
    # (on ``_OFF``) a second hop: the names the first pass's best documents mention, in
    # full text
    "hop:": {
        "hop:default": _OFF,
        "hop:w=0.3": replace(_OFF, hop_weight=0.3),
        "hop:w=0.6": replace(_OFF, hop_weight=0.6),
        "hop:w=1": replace(_OFF, hop_weight=1.0),
        "hop:w=0.6,seeds=3": replace(_OFF, hop_weight=0.6, hop_seeds=3),
        "hop:w=0.6,seeds=10": replace(_OFF, hop_weight=0.6, hop_seeds=10),
    },
    # a question asking for several things gets a wider pool (the default since recall7:
    # cands=60,subject=0.5); the members move it from none
    "several:": {
        "several:default": _TURNS,
        "several:off": _OFF,  # main before recall7
        "several:cands=40": replace(_OFF, several_candidates=40),
        "several:cands=50": replace(_OFF, several_candidates=50),
        "several:subject=1": replace(_OFF, several_subject_weight=1.0),
        "several:cands=40,subject=1": replace(
            _OFF, several_candidates=40, several_subject_weight=1.0
        ),
        "several:cands=40,subject=0.5": replace(
            _OFF, several_candidates=40, several_subject_weight=0.5
        ),
        "several:cands=40,hop=0.6": replace(_OFF, several_candidates=40, hop_weight=0.6),
        "several:cands=50,subject=0.5": replace(
            _OFF, several_candidates=50, several_subject_weight=0.5
        ),
        "several:cands=40,subject=0.25": replace(
            _OFF, several_candidates=40, several_subject_weight=0.25
        ),
        "several:cands=60,subject=0.5": replace(
            _OFF, several_candidates=60, several_subject_weight=0.5
        ),
    },
    # how an item reads (RecallConfig's reach .. skip_speakers), from items7's format (the
    # default of then): each of its choices undone alone, and all of them ("before": items as
    # they read before items7, the default since recall8, chosen here)
    "items:": {
        "items:default": _ITEMS7,
        "items:context=0": replace(_ITEMS7, context_turns=0),
        "items:context=1": replace(_ITEMS7, context_turns=1),
        "items:notes=any": replace(_ITEMS7, notes_by_carrier=False),
        "items:headers=off": replace(_ITEMS7, headers=False),
        "items:skip=count": replace(_ITEMS7, skip_speakers=False),
        "items:reach=2": replace(_ITEMS7, reach=2),
        "items:fill=off": replace(_ITEMS7, fill=False),
        "items:before": replace(
            _ITEMS7, context_turns=0, notes_by_carrier=False, headers=False, skip_speakers=False
        ),
        # before, but keeping the header lines (and, second, the notes beside their own turn)
        "items:before,headers": replace(
            _ITEMS7, context_turns=0, notes_by_carrier=False, skip_speakers=False
        ),
        "items:context=0,skip=count": replace(_ITEMS7, context_turns=0, skip_speakers=False),
    },
    # main's settings before 2026-12-02, beside the default in the same window (latency)
    "before:": {
        "before:default": _TURNS,
        "before:mmr=0.5,cut=0.2": replace(_TURNS, mmr=0.5, relative_cut=0.2),
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
    return [loo, system_table(report, f"{prefix}default")]


def system_table(report: LocomoReport, name: str) -> Table:
    """One member's evidence recall per category, tokens and latency, conversations pooled."""
    rows = [r for by in report.by_sample.values() for r in by.get(f"ogmemory[{name}]", [])]
    detail = Table(
        title=f"{name}, all conversations pooled ({', '.join(sorted(report.by_sample))})"
    )
    for col in ("category", "n", "evidence recall", "tokens", "p50 ms", "p95 ms"):
        detail.add_column(col)
    groups = [(f"{c} {CATEGORIES[c]}", (c,)) for c in (1, 2, 3, 4)] + [("1-4", (1, 2, 3, 4))]
    for label, cats in groups:
        chosen = [r for r in rows if r.category in cats]
        lat = sorted(r.latency_ms for r in chosen)
        if not lat:
            continue
        detail.add_row(
            label,
            str(len(chosen)),
            f"{_mean([r.recall for r in chosen]):.3f}",
            f"{_mean([float(r.tokens) for r in chosen]):.0f}",
            f"{lat[len(lat) // 2]:.1f}",
            f"{lat[min(len(lat) - 1, round(0.95 * (len(lat) - 1)))]:.1f}",
        )
    return detail


def members_table(report: LocomoReport) -> Table:
    """Every member's evidence recall on each conversation (1-4 / multi-hop)."""
    samples = sorted(report.by_sample)
    table = Table(title="every member, categories 1-4 / multi-hop")
    for col in ("member", *samples, "pooled"):
        table.add_column(col)
    names = list(report.by_sample[samples[0]]) if samples else []
    for name in names:
        cells = []
        groups = [[report.by_sample[s].get(name, [])] for s in samples]
        groups.append([report.by_sample[s].get(name, []) for s in samples])
        for parts in groups:
            rows = [r for part in parts for r in part]
            c14 = _mean([r.recall for r in rows if r.category in (1, 2, 3, 4)])
            cmh = _mean([r.recall for r in rows if r.category == 1])
            cells.append(f"{c14:.3f} / {cmh:.3f}")
        table.add_row(name.removeprefix("ogmemory[").removesuffix("]"), *cells)
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path)
    parser.add_argument("--home", type=Path)
    parser.add_argument("--budget", type=int, default=2000)
    parser.add_argument("--ideas", action="store_true", help="also the ideas of IDEAS")
    parser.add_argument(
        "--family", nargs="+", metavar="PREFIX", help="only these families (turns: companion:)"
    )
    parser.add_argument("--save", type=Path, help="keep the report (pickle) for --merge")
    parser.add_argument("--merge", type=Path, nargs="+", help="print the tables of saved reports")
    parser.add_argument(
        "--only", nargs="+", metavar="NAME", help="recall with these members only (docs:default)"
    )
    args = parser.parse_args()
    families = FAMILIES | (IDEAS if args.ideas else {})
    if args.family:
        if unknown := set(args.family) - set(FAMILIES | IDEAS):
            raise SystemExit(f"no such family: {', '.join(sorted(unknown))}")
        families = {p: f for p, f in (FAMILIES | IDEAS).items() if p in args.family}
    if args.only:
        members = {k: v for family in (FAMILIES | IDEAS).values() for k, v in family.items()}
        if unknown := set(args.only) - set(members):
            raise SystemExit(f"no such member: {', '.join(sorted(unknown))}")
        families = {"only": {name: members[name] for name in args.only}}
    console = Console(width=120)
    before = os.getloadavg()
    if args.merge:
        report = LocomoReport(budget=args.budget)
        for path in args.merge:
            part = pickle.loads(path.read_bytes())
            report.by_sample |= part.by_sample
            report.budget = part.budget
        present = {
            s.removeprefix("ogmemory[").partition(":")[0] + ":"
            for by in report.by_sample.values()
            for s in by
        }
        prefixes = [p for p in FAMILIES | IDEAS if p in present]
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
    for prefix, family in families.items():
        tables = [system_table(report, n) for n in family] if args.only else None
        for table in tables or family_tables(report, prefix):
            console.print(table)
    if not args.only:
        console.print(members_table(report))
    after = os.getloadavg()
    console.print(
        f"load average before {before[0]:.2f} {before[1]:.2f} {before[2]:.2f}, "
        f"after {after[0]:.2f} {after[1]:.2f} {after[2]:.2f}"
    )


if __name__ == "__main__":
    main()
