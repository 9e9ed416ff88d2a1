"""The LoCoMo recall benchmark (``ogmem bench locomo``).

Each conversation goes into its own tenant (speakers → roles, session dates → event times), is
distilled with the configured extractor (rule-based by default), and every question is recalled
within the token budget. Scored per LoCoMo category (1 multi-hop, 2 temporal, 3 open-domain,
4 single-hop, 5 adversarial):

* evidence recall: the mean fraction of a question's evidence turns credited; an item credits
  the turns it cites only if it cites at most 3;
* all-evidence recall: the fraction of questions with every evidence turn credited;
* answer containment: the fraction whose gold answer text appears in the returned context;
* tokens, items, latency p50/p95.

Baselines run in the same process on the same turns and budget: BM25 (SQLite FTS5), dense (the
same embedder) and their reciprocal-rank fusion, each packing raw turns into the budget.
"""

from __future__ import annotations

import json
import re
import sqlite3
import statistics
import time
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import IO, Any

import numpy as np

from ..config import Settings
from ..embed import Embedder, encode_queries
from ..entity.times import day_label
from ..importers import parse_locomo, read_locomo
from ..index.text import fts_columns, query_terms
from ..memory import Memory
from ..recall.config import RecallConfig
from ..recall.results import RecallResult
from ..recall.tokens import count_tokens
from ..storage.sqlite_index_schema import fts_match
from .harness import bench_home, conversation_memory

__all__ = [
    "CATEGORIES",
    "LocomoReport",
    "clean_evidence",
    "locomo_memory",
    "print_report",
    "run_locomo",
]

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
_DIA = re.compile(r"D\d+:\d+")


def clean_evidence(evidence: Iterable[Any], known: set[str]) -> list[str]:
    """LoCoMo evidence ids, repaired as the data's README says: "D:" → "D", ``D\\d+:\\d+``
    extracted, leading zeros stripped, unknown ids dropped."""
    out: list[str] = []
    for raw in evidence or []:
        for m in _DIA.findall(str(raw).replace("D:", "D")):
            sess, turn = m[1:].split(":")
            dia = f"D{int(sess)}:{int(turn)}"
            if dia in known and dia not in out:
                out.append(dia)
    return out


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", str(text).lower()).strip()


@dataclass
class _Row:
    category: int
    recall: float
    all_evidence: bool
    contains: bool
    tokens: int
    items: int
    latency_ms: float


@dataclass
class LocomoReport:
    """Rows per system (``ogmemory`` and the baselines)."""

    rows: dict[str, list[_Row]] = field(default_factory=dict)
    budget: int = 2000
    setup: dict[str, Any] = field(default_factory=dict)
    #: conversation -> system -> rows (only for the alternative configurations)
    by_sample: dict[str, dict[str, list[_Row]]] = field(default_factory=dict)

    def add(self, system: str, row: _Row) -> None:
        self.rows.setdefault(system, []).append(row)

    def add_sample(self, sample: str, system: str, row: _Row) -> None:
        self.by_sample.setdefault(sample, {}).setdefault(system, []).append(row)

    def summary(self, system: str, cats: Iterable[int]) -> dict[str, float]:
        cats = set(cats)
        rows = [r for r in self.rows.get(system, []) if r.category in cats]
        if not rows:
            return {}
        lat = sorted(r.latency_ms for r in rows)
        return {
            "n": len(rows),
            "evidence_recall": statistics.fmean(r.recall for r in rows),
            "all_evidence": statistics.fmean(1.0 if r.all_evidence else 0.0 for r in rows),
            "contains": statistics.fmean(1.0 if r.contains else 0.0 for r in rows),
            "tokens": statistics.fmean(r.tokens for r in rows),
            "items": statistics.fmean(r.items for r in rows),
            "p50_ms": lat[len(lat) // 2],
            "p95_ms": lat[min(len(lat) - 1, round(0.95 * (len(lat) - 1)))],
        }

    def groups(self) -> list[tuple[str, list[int]]]:
        return [(f"{c} {CATEGORIES[c]}", [c]) for c in CATEGORIES] + [
            ("1-4", [1, 2, 3, 4]),
            ("all", [1, 2, 3, 4, 5]),
        ]


class _Baselines:
    """BM25 / dense / RRF over the raw turns of one conversation."""

    def __init__(self, turns: list[tuple[str, str]], embedder: Embedder | None) -> None:
        self.turns = turns  # (dia_id, rendered text)
        self.db = sqlite3.connect(":memory:")
        self.db.execute(
            "CREATE VIRTUAL TABLE t USING fts5(body, cjk, "
            "tokenize='porter unicode61 remove_diacritics 2')"
        )
        for i, (_, text) in enumerate(turns):
            body, cjk = fts_columns(text)
            self.db.execute("INSERT INTO t(rowid, body, cjk) VALUES (?, ?, ?)", (i, body, cjk))
        self.embedder = embedder
        self.matrix = embedder.encode([t for _, t in turns]) if embedder else None

    def bm25(self, query: str) -> list[int]:
        match = fts_match(*query_terms(query))
        if not match:
            return []
        return [
            r
            for (r,) in self.db.execute(
                "SELECT rowid FROM t WHERE t MATCH ? ORDER BY rank LIMIT 200", (match,)
            )
        ]

    def dense(self, query: str) -> list[int]:
        if self.embedder is None or self.matrix is None:
            return []
        scores = self.matrix @ encode_queries(self.embedder, [query])[0]
        return [int(i) for i in np.argsort(-scores)[:200]]

    def rrf(self, query: str) -> list[int]:
        scores: dict[int, float] = {}
        for ranking in (self.bm25(query), self.dense(query)):
            for rank, i in enumerate(ranking):
                scores[i] = scores.get(i, 0.0) + 1.0 / (60 + rank + 1)
        return sorted(scores, key=lambda i: (-scores[i], i))

    def pack(self, ranking: list[int], budget: int) -> tuple[list[tuple[str, str]], int]:
        out, used = [], 0
        for i in ranking:
            dia, text = self.turns[i]
            cost = count_tokens(text) + 1
            if used + cost > budget:
                continue
            out.append((dia, text))
            used += cost
        return out, used


def locomo_memory(sample: dict[str, Any], home: Path, base: Settings) -> Memory:
    """The tenant of one LoCoMo conversation under ``home`` (account ``locomo``, one space per
    sample), ingested: imported, distilled, indexed and embedded. Every step skips what is
    already done, so a home kept from an earlier run (``--home``) is reused as it is."""
    sid = str(sample.get("sample_id") or "sample")
    mem = conversation_memory(sid, base, home, "locomo")
    mem.import_conversations(parse_locomo([sample]))  # existing sessions are skipped
    mem.sleep("deep")  # resumes from its cursor: nothing new, nothing to do
    mem.sync_index(turns=True)
    mem.drain_outbox()
    return mem


@dataclass
class _Scoring:
    """What every question of one run is scored with."""

    report: LocomoReport
    budget: int
    out: IO[str] | None
    configs: dict[str, RecallConfig]
    baselines: bool


def run_locomo(
    data: Path,
    *,
    home: Path | None = None,
    run_out: Path | None = None,
    budget: int = 2000,
    settings: Settings | None = None,
    baselines: bool = True,
    samples: int | None = None,
    progress: Callable[[str], None] | None = None,
    configs: dict[str, RecallConfig] | None = None,
) -> LocomoReport:
    """Run the benchmark; see the module docstring. ``configs`` also recalls every question
    with each named recall configuration (rows ``ogmemory[<name>]``, one per conversation
    kept in ``LocomoReport.by_sample``), for choosing settings by leaving one out. A ``home``
    that already holds a conversation's tenant is reused (nothing is ingested twice)."""
    report = LocomoReport(budget=budget)
    data_samples = read_locomo(data)[:samples]
    with ExitStack() as stack:
        home = stack.enter_context(bench_home(home, "ogmem-locomo-"))
        out = stack.enter_context(open(run_out, "w", encoding="utf-8")) if run_out else None
        scoring = _Scoring(report, budget, out, configs or {}, baselines)
        base = settings or Settings(home=home)
        for sample in data_samples:
            sid = str(sample.get("sample_id") or "sample")
            start = time.perf_counter()
            mem = locomo_memory(sample, home, base)
            report.setup[sid] = {
                "ingest_s": round(time.perf_counter() - start, 2),
                **mem.index_stats(),
            }
            if progress:
                progress(f"{sid}: ingested in {report.setup[sid]['ingest_s']} s")
            try:
                _score_sample(scoring, mem, sample, sid)
            finally:
                mem.close()
    return report


def _score_sample(scoring: _Scoring, mem: Memory, sample: dict[str, Any], sid: str) -> None:
    """Recall every question of one conversation (and its baselines) into the report."""
    turns = [
        (str(n.metadata["dia_id"]), f"[{day_label(n.event_time)}] {n.name}: {n.text}")
        for rec in mem.iter_nodes_since({})
        for n in [rec.node]
        if isinstance(n.metadata.get("dia_id"), str)
    ]
    known = {d for d, _ in turns}
    base_systems = _Baselines(turns, mem.embedder) if scoring.baselines else None
    budget, report = scoring.budget, scoring.report
    for qi, qa in enumerate(sample.get("qa", [])):
        evidence = clean_evidence(qa.get("evidence"), known)
        cat = int(qa.get("category", 0))
        question = str(qa.get("question", ""))
        answer = qa.get("answer", qa.get("adversarial_answer", ""))
        t0 = time.perf_counter()
        result = mem.recall(question, budget=budget)
        latency = (time.perf_counter() - t0) * 1000
        if scoring.out:
            scoring.out.write(
                json.dumps(
                    {
                        "sample_id": sid,
                        "qa_index": qi,
                        "items": [{"text": i.text, "dia_ids": list(i.cites)} for i in result.items],
                        "latency_ms": round(latency, 3),
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )
        if not evidence:
            continue
        row = partial(_row, cat, evidence, answer=answer)
        report.add(
            "ogmemory",
            row(
                credited=_credited(result),
                context=result.as_context(),
                tokens=result.tokens,
                items=len(result.items),
                latency=latency,
            ),
        )
        for name, config in scoring.configs.items():
            alt = mem.retrieval.recaller().recall(question, budget=budget, config=config)
            report.add_sample(
                sid,
                f"ogmemory[{name}]",
                row(
                    credited=_credited(alt),
                    context=alt.as_context(),
                    tokens=alt.tokens,
                    items=len(alt.items),
                    latency=float(alt.stats.get("latency_ms", 0.0)),
                ),
            )
        if base_systems is not None:
            _add_baselines(report, base_systems, question, budget, row)


def _credited(result: RecallResult) -> set[str]:
    """The turns a recall is credited with: those cited by items that cite at most 3."""
    return {c for item in result.items if len(item.cites) <= 3 for c in item.cites}


def _add_baselines(
    report: LocomoReport, systems: _Baselines, question: str, budget: int, row: Callable[..., _Row]
) -> None:
    """The raw-turn baselines for one question, packed into the same budget."""
    for name, rank in (
        ("BM25 turns", systems.bm25),
        ("dense turns", systems.dense),
        ("RRF turns", systems.rrf),
    ):
        if name == "dense turns" and systems.embedder is None:
            continue
        t0 = time.perf_counter()
        packed, used = systems.pack(rank(question), budget)
        lat = (time.perf_counter() - t0) * 1000
        report.add(
            name,
            row(
                credited={d for d, _ in packed},
                context="\n".join(t for _, t in packed),
                tokens=used,
                items=len(packed),
                latency=lat,
            ),
        )


def _row(
    cat: int,
    evidence: list[str],
    credited: set[str],
    context: str,
    answer: Any,
    tokens: int,
    items: int,
    latency: float,
) -> _Row:
    hit = sum(1 for e in evidence if e in credited)
    ans = _norm(str(answer))
    return _Row(
        cat,
        hit / len(evidence),
        hit == len(evidence),
        bool(ans) and ans in _norm(context),
        tokens,
        items,
        latency,
    )


def report_tables(report: LocomoReport) -> list[Any]:
    """Rich tables: one per system-group view, rows per category group."""
    from rich.table import Table

    tables = []
    systems = list(report.rows)
    table = Table(title=f"LoCoMo evidence recall @ {report.budget} tokens")
    table.add_column("category")
    for system in systems:
        table.add_column(system, justify="right")
    for label, cats in report.groups():
        cells = []
        for system in systems:
            s = report.summary(system, cats)
            cells.append(f"{s['evidence_recall']:.3f}" if s else "-")
        table.add_row(f"{label} (n={report.summary(systems[0], cats).get('n', 0)})", *cells)
    tables.append(table)
    detail = Table(title="per system (categories 1-4 | all)")
    for col in (
        "system",
        "cats",
        "evid.",
        "all-evid.",
        "answer in ctx",
        "tokens",
        "items",
        "p50 ms",
        "p95 ms",
    ):
        detail.add_column(col, justify="right" if col not in ("system", "cats") else "left")
    for system in systems:
        for label, cats in (("1-4", [1, 2, 3, 4]), ("all", [1, 2, 3, 4, 5])):
            s = report.summary(system, cats)
            if s:
                detail.add_row(
                    system,
                    label,
                    f"{s['evidence_recall']:.3f}",
                    f"{s['all_evidence']:.3f}",
                    f"{s['contains']:.3f}",
                    f"{s['tokens']:.0f}",
                    f"{s['items']:.1f}",
                    f"{s['p50_ms']:.1f}",
                    f"{s['p95_ms']:.1f}",
                )
    tables.append(detail)
    return tables


def print_report(report: LocomoReport, console: Any) -> None:
    """Print both tables on a rich ``console``; to a file or pipe, 120 columns wide (enough
    for both unwrapped)."""
    if not console.is_terminal:
        console.width = 120
    for table in report_tables(report):
        console.print(table)
