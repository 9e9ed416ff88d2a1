"""What distillation keeps, scored against LoCoMo's gold observations (``ogmem bench knowledge``).

Each LoCoMo conversation is imported into its own tenant and distilled with the configured
extractor (rule-based by default). Its per-session gold ``observation`` lists (a fact about a
speaker and the turn(s) it rests on) are the reference:

* **coverage**: the fraction of gold observations that some enabled distilled memory cites
  (one of the observation's turns is in the memory's evidence);
* **semantic coverage**: the same, where that memory's text also says the same thing (cosine
  >= 0.5 between the two texts in the multilingual Universal Sentence Encoder);
* **grounded**: the fraction of distilled memories citing at least one turn that some gold
  observation rests on (the rest are about turns LoCoMo found nothing worth noting in);
* memories per observation, and throughput (LoCoMo turns, i.e. messages, per second through
  the whole pipeline including the deep-sleep projection, and through the extractor alone).

Unless told not to, the LoCoMo recall benchmark (``ogmemory.evaluation.locomo``) runs on the
same file and its evidence recall (categories 1-4) is printed in the same table.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..config import Settings
from ..importers import parse_locomo, read_locomo
from ..memory import Memory
from .harness import bench_home, conversation_memory
from .locomo import clean_evidence

__all__ = [
    "SEMANTIC_THRESHOLD",
    "KnowledgeReport",
    "Observation",
    "SampleScore",
    "cited_dia_ids",
    "observations",
    "run_knowledge",
    "score_sample",
]

#: Cosine (USE multilingual) at which a memory "says the same thing" as an observation.
SEMANTIC_THRESHOLD = 0.5


@dataclass(frozen=True)
class Observation:
    """One gold observation: what LoCoMo's annotators noted, and the turns it rests on."""

    text: str
    speaker: str
    dia_ids: tuple[str, ...]


@dataclass(frozen=True)
class SampleScore:
    """The scores of one conversation (or, summed, of several)."""

    name: str
    observations: int
    covered: int
    covered_semantic: int
    memories: int
    grounded: int
    turns: int
    seconds: float
    extract_seconds: float

    @property
    def coverage(self) -> float:
        return self.covered / self.observations if self.observations else 0.0

    @property
    def semantic_coverage(self) -> float:
        return self.covered_semantic / self.observations if self.observations else 0.0

    @property
    def grounded_share(self) -> float:
        return self.grounded / self.memories if self.memories else 0.0

    @property
    def per_observation(self) -> float:
        return self.memories / self.observations if self.observations else 0.0

    def __add__(self, other: SampleScore) -> SampleScore:
        return SampleScore(
            "all",
            self.observations + other.observations,
            self.covered + other.covered,
            self.covered_semantic + other.covered_semantic,
            self.memories + other.memories,
            self.grounded + other.grounded,
            self.turns + other.turns,
            self.seconds + other.seconds,
            self.extract_seconds + other.extract_seconds,
        )


@dataclass
class KnowledgeReport:
    """Per-conversation scores, their total, and the recall summary when it was run."""

    samples: list[SampleScore] = field(default_factory=list)
    recall: dict[str, float] = field(default_factory=dict)  # "ogmemory" / "RRF turns" -> 1-4

    @property
    def total(self) -> SampleScore:
        out = SampleScore("all", 0, 0, 0, 0, 0, 0, 0.0, 0.0)
        for s in self.samples:
            out = out + s
        return out


def observations(sample: dict[str, Any], known: set[str]) -> list[Observation]:
    """The gold observations of one LoCoMo sample whose turns exist (evidence ids repaired)."""
    out: list[Observation] = []
    groups = sample.get("observation") or {}
    if not isinstance(groups, dict):
        return out
    for session in groups.values():
        if not isinstance(session, dict):
            continue
        for speaker, items in session.items():
            for item in items or []:
                if not isinstance(item, (list, tuple)) or len(item) < 2:
                    continue
                ev = item[1] if isinstance(item[1], list) else [item[1]]
                dia = clean_evidence(ev, known)
                if dia and isinstance(item[0], str):
                    out.append(Observation(item[0], str(speaker), tuple(dia)))
    return out


def cited_dia_ids(mem: Memory) -> dict[str, tuple[str, set[str]]]:
    """Every enabled distilled memory: ``id -> (text, LoCoMo dia_ids its evidence cites)``."""
    dia_of = {
        rec.node.id: str(rec.node.metadata["dia_id"])
        for rec in mem.iter_nodes_since({})
        if isinstance(rec.node.metadata.get("dia_id"), str)
    }
    out: dict[str, tuple[str, set[str]]] = {}
    for m in mem.memories(include_disabled=False):
        if m.source != "distilled":
            continue
        cited: set[str] = set()
        for ev in mem.evidence(m.id):
            if ev.provenance is not None:
                cited.update(dia_of[n] for n in ev.provenance.node_ids if n in dia_of)
        out[m.id] = (m.text, cited)
    return out


def score_sample(
    name: str,
    obs: Sequence[Observation],
    memories: dict[str, tuple[str, set[str]]],
    encode: Callable[[list[str]], Any] | None,
) -> tuple[int, int, int, int]:
    """``(covered, covered_semantic, memories, grounded)`` of one conversation.

    ``encode`` maps texts to unit vectors (``None``: semantic coverage is not computed and
    counts as 0).
    """
    gold_turns = {d for o in obs for d in o.dia_ids}
    by_turn: dict[str, list[str]] = {}
    for mid, (_, cited) in memories.items():
        for d in cited:
            by_turn.setdefault(d, []).append(mid)
    mem_ids = list(memories)
    vectors: dict[str, Any] = {}
    if encode is not None and mem_ids:
        mats = encode([memories[m][0] for m in mem_ids])
        vectors = {m: mats[i] for i, m in enumerate(mem_ids)}
        obs_vecs = encode([o.text for o in obs]) if obs else np.zeros((0, 1))
    covered = covered_sem = 0
    for i, o in enumerate(obs):
        citing = {m for d in o.dia_ids for m in by_turn.get(d, [])}
        if not citing:
            continue
        covered += 1
        if vectors and any(
            float(np.dot(obs_vecs[i], vectors[m])) >= SEMANTIC_THRESHOLD for m in citing
        ):
            covered_sem += 1
    grounded = sum(1 for _, cited in memories.values() if cited & gold_turns)
    return covered, covered_sem, len(memories), grounded


def _use_encoder() -> Callable[[list[str]], Any]:
    from ..embed import USEEmbedder

    emb = USEEmbedder()
    return lambda texts: emb.encode(texts)


def run_knowledge(
    data: Path,
    *,
    home: Path | None = None,
    settings: Settings | None = None,
    samples: int | None = None,
    semantic: bool = True,
    progress: Callable[[str], None] | None = None,
    keep: Callable[[str, Memory], None] | None = None,
) -> KnowledgeReport:
    """Import, distill and score every conversation of ``data`` (see the module docstring).

    ``keep`` is called with each conversation's ``Memory`` before it is closed (to read what
    was distilled); ``home`` keeps the tenants (account ``knowledge``, one space per sample).
    """
    report = KnowledgeReport()
    chosen = read_locomo(data)[:samples]
    encode = _use_encoder() if semantic else None
    with bench_home(home, "ogmem-knowledge-") as home:
        base = settings or Settings(home=home)
        for i, sample in enumerate(chosen):
            sid = str(sample.get("sample_id") or f"sample-{i}")
            mem = conversation_memory(sid, base, home, "knowledge", embedder=None)
            mem.import_conversations(parse_locomo([sample]))
            records = list(mem.iter_nodes_since({}))
            start = time.perf_counter()
            mem.sleep("deep")
            seconds = time.perf_counter() - start
            start = time.perf_counter()
            mem.distillation.distiller.extractor.extract(records)
            extract_seconds = time.perf_counter() - start
            known = {
                str(r.node.metadata["dia_id"])
                for r in records
                if isinstance(r.node.metadata.get("dia_id"), str)
            }
            obs = observations(sample, known)
            cited = cited_dia_ids(mem)
            covered, sem, n_mem, grounded = score_sample(sid, obs, cited, encode)
            report.samples.append(
                SampleScore(
                    sid,
                    len(obs),
                    covered,
                    sem,
                    n_mem,
                    grounded,
                    len(records),
                    seconds,
                    extract_seconds,
                )
            )
            if progress:
                progress(f"{sid}: {n_mem} memories for {len(obs)} observations")
            if keep is not None:
                keep(sid, mem)
            mem.close()
    return report


def _fmt(value: float) -> str:
    return f"{value:.2f}"


def report_rows(report: KnowledgeReport) -> list[tuple[str, list[str]]]:
    """The table as rows of ``(metric, cells per conversation + total)``."""
    cols = [*report.samples, report.total] if len(report.samples) > 1 else report.samples
    rows: list[tuple[str, list[str]]] = [
        ("gold observations", [str(s.observations) for s in cols]),
        ("coverage", [_fmt(s.coverage) for s in cols]),
        ("semantic coverage (USE cos >= 0.5)", [_fmt(s.semantic_coverage) for s in cols]),
        ("grounded", [_fmt(s.grounded_share) for s in cols]),
        ("distilled memories", [str(s.memories) for s in cols]),
        ("memories per observation", [_fmt(s.per_observation) for s in cols]),
        ("pipeline turns/s", [f"{s.turns / s.seconds:,.0f}" if s.seconds else "-" for s in cols]),
        (
            "extractor turns/s",
            [f"{s.turns / s.extract_seconds:,.0f}" if s.extract_seconds else "-" for s in cols],
        ),
    ]
    for system, value in report.recall.items():
        cells = ["" for _ in cols[:-1]] + [f"{value:.3f}"]
        rows.append((f"LoCoMo evidence recall 1-4, {system}", cells))
    return rows


def print_knowledge(report: KnowledgeReport, console: Any, *, title: str = "") -> None:
    """Print the table on a rich ``console``."""
    from rich.table import Table

    cols = [*report.samples, report.total] if len(report.samples) > 1 else report.samples
    table = Table(title=title or "distilled knowledge against LoCoMo gold observations")
    table.add_column("metric")
    for s in cols:
        table.add_column(s.name, justify="right")
    for metric, cells in report_rows(report):
        table.add_row(metric, *cells)
    if not console.is_terminal:
        console.width = 120
    console.print(table)


def recall_summary(locomo_report: Any, systems: Iterable[str]) -> dict[str, float]:
    """Evidence recall over categories 1-4 of each named system of a LoCoMo recall report."""
    out: dict[str, float] = {}
    for system in systems:
        s = locomo_report.summary(system, [1, 2, 3, 4])
        if s:
            out[system] = float(s["evidence_recall"])
    return out
