"""Rule extractor benchmark: nodes per second over the LoCoMo dev turns, beside baselines.

Baselines, run in the same process on the same nodes:
  * one regex      - a single trivial regex pass over each node's text (a floor: reading text);
  * sentences      - sentence splitting and time-expression resolution only (no patterns).

It also prints how many candidates each family produced, and a few samples, so that a change
to the patterns shows its effect on real conversational data at a glance.

    python bench/bench_rules.py [--repeat 5] [--file path/to/locomo.json] [--samples 10] [--cpu]

``--cpu`` times by the process's CPU time instead of the wall clock (steadier on a shared
machine, where other jobs take the cores).

The data file is read in place: ``../shared/data/locomo/locomo-dev.json`` next to the
repository, or ``$OGMEM_LOCOMO``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from ogmemory.distill.dates import day_of
from ogmemory.distill.extractors._common import content_text, split_sentences
from ogmemory.distill.extractors.rules import RuleExtractor
from ogmemory.entity.records import Node, NodeRecord
from ogmemory.importers import parse_locomo, read_locomo


def locomo_path(arg: str | None) -> Path:
    if arg:
        return Path(arg)
    default = Path(__file__).resolve().parents[2] / "shared/data/locomo/locomo-dev.json"
    if default.exists():
        return default
    env = os.environ.get("OGMEM_LOCOMO")
    if env:
        return Path(env)
    sys.exit(f"LoCoMo file not found at {default}; set OGMEM_LOCOMO or pass --file")


def load_batches(path: Path) -> list[list[NodeRecord]]:
    """One batch of NodeRecords per LoCoMo session, as the pipeline would collect them."""
    batches = []
    for conv in parse_locomo(read_locomo(path)):
        batch = []
        for seq, msg in enumerate(conv.messages, start=1):
            node = Node(
                id=f"{conv.session_id}-{seq}",
                seq=seq,
                role=msg["role"],
                content=msg["content"],
                parent_id=None,
                event_time=msg["event_time"],
                ingestion_time=msg["event_time"],
                name=msg.get("name"),
                metadata=msg.get("metadata", {}),
            )
            batch.append(NodeRecord(conv.session_id, "default", None, node, "0" * 40, seq))
        batches.append(batch)
    return batches


def agent_batches(turns: int = 250) -> list[list[NodeRecord]]:
    """A synthetic coding session: each turn a request, a shell call, its (sometimes failing)
    output, an edit and a re-run: tool-call-heavy input, unlike LoCoMo's chat."""
    records: list[NodeRecord] = []
    log = "collected 120 items\n" + "tests/test_mod.py ....................\n" * 40

    def add(role: str, content: str, turn: int, **kw: Any) -> str:
        seq = len(records) + 1
        node = Node(
            id=f"a{seq}",
            seq=seq,
            role=role,
            content=content,  # type: ignore[arg-type]
            parent_id=None,
            event_time=1.7e9 + seq,
            ingestion_time=1.7e9 + seq,
            **kw,
        )
        records.append(NodeRecord("agent", "default", None, node, "0" * 40, turn))
        return node.id

    def call(cid: str, name: str, args: dict[str, Any]) -> list[dict[str, Any]]:
        return [
            {
                "id": cid,
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
        ]

    for t in range(turns):
        add("user", f"Please fix issue #{t}: the parser drops the last token. We use Python.", t)
        a = add(
            "assistant",
            "Let me run the tests first.",
            t,
            tool_calls=call(f"c{t}a", "bash", {"command": "pytest -q tests/test_mod.py"}),
        )
        failed = t % 3 == 0
        add(
            "tool",
            log
            + (
                "FAILED tests/test_mod.py::test_last - AssertionError\n1 failed"
                if failed
                else "120 passed in 1.2s"
            ),
            t,
            tool_call_id=f"c{t}a",
            called_by=a,
        )
        e = add(
            "assistant",
            "The tokenizer stops one short; fixing it.",
            t,
            tool_calls=call(
                f"c{t}b", "edit_file", {"path": f"src/mod_{t % 7}.py", "old": "n - 1", "new": "n"}
            ),
        )
        add("tool", "ok", t, tool_call_id=f"c{t}b", called_by=e)
        r = add(
            "assistant",
            "",
            t,
            tool_calls=call(f"c{t}c", "bash", {"command": "pytest -q tests/test_mod.py"}),
        )
        add("tool", log + "120 passed in 1.2s", t, tool_call_id=f"c{t}c", called_by=r)
        add("assistant", "Fixed: the last token is kept now, and all 120 tests pass.", t)
    return [records[i : i + 200] for i in range(0, len(records), 200)]


_DIA = re.compile(r"D(\d+):(\d+)")


def _dia_ids(raw: object) -> list[str]:
    """Normalised dia ids ("D1:3") from a LoCoMo evidence field (a few are malformed)."""
    text = str(raw)
    return [f"D{int(a)}:{int(b)}" for a, b in _DIA.findall(text.replace("D:", "D"))]


def coverage(
    path: Path, batches: list[list[NodeRecord]], extractor: RuleExtractor
) -> list[tuple[str, int, int]]:
    """How often the turns LoCoMo annotates as evidence yield candidates (and dated ones)."""
    by_turn: dict[tuple[str, str], list[bool]] = {}
    for batch in batches:
        batch_sample = batch[0].session_id.rsplit("-s", 1)[0] if batch else ""
        cands = extractor.extract(batch).candidates
        for rec in batch:
            mine = [c for c in cands if rec.node.id in c.node_ids]
            dia = str(rec.node.metadata.get("dia_id"))
            by_turn[(batch_sample, dia)] = [bool(mine), any("date" in c.attrs for c in mine)]
    observed: set[tuple[str, str]] = set()
    temporal: set[tuple[str, str]] = set()
    for i, sample in enumerate(read_locomo(path)):
        sid = re.sub(r"[^A-Za-z0-9._-]+", "-", str(sample.get("sample_id") or f"sample-{i}"))
        for facts in (sample.get("observation") or {}).values():
            for items in facts.values() if isinstance(facts, dict) else []:
                for item in items:
                    observed.update((sid, d) for d in _dia_ids(item[1:]))
        for qa in sample.get("qa", []):
            if qa.get("category") == 2:
                temporal.update((sid, d) for d in _dia_ids(qa.get("evidence", [])))
    observed &= by_turn.keys()
    temporal &= by_turn.keys()
    return [
        ("all turns: ≥1 candidate", sum(v[0] for v in by_turn.values()), len(by_turn)),
        (
            "observation evidence turns: ≥1 candidate",
            sum(by_turn[k][0] for k in observed),
            len(observed),
        ),
        (
            "temporal-question evidence turns: a dated candidate",
            sum(by_turn[k][1] for k in temporal),
            len(temporal),
        ),
    ]


_TRIVIAL = re.compile(r"\b(?:I|we|my)\b")


def trivial(batch: Sequence[NodeRecord]) -> int:
    return sum(len(_TRIVIAL.findall(content_text(r.node.content))) for r in batch)


def sentences_only(batch: Sequence[NodeRecord]) -> int:
    total = 0
    for r in batch:
        ref = day_of(r.node.event_time, RuleExtractor().tz)
        total += len(split_sentences(content_text(r.node.content), ref))
    return total


def timed(
    fn: Callable[[Sequence[NodeRecord]], object],
    batches: list[list[NodeRecord]],
    repeat: int,
    clock: Callable[[], float] = time.perf_counter,
) -> float:
    """Best-of-``repeat`` nodes per second (by ``clock``)."""
    nodes = sum(len(b) for b in batches)
    best = float("inf")
    for _ in range(repeat):
        start = clock()
        for b in batches:
            fn(b)
        best = min(best, clock() - start)
    return nodes / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", help="a LoCoMo-format JSON file")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--samples", type=int, default=8, help="sample candidates per family")
    parser.add_argument("--cpu", action="store_true", help="time by CPU time, not wall clock")
    args = parser.parse_args()
    clock = time.process_time if args.cpu else time.perf_counter
    console = Console()
    batches = load_batches(locomo_path(args.file))
    nodes = sum(len(b) for b in batches)
    extractor = RuleExtractor()

    how = "CPU time" if args.cpu else "wall clock"
    table = Table(title=f"Rule extractor over {nodes} LoCoMo turns (best of {args.repeat}, {how})")
    table.add_column("method")
    table.add_column("nodes/s", justify="right")
    table.add_column("µs/node", justify="right")
    for label, fn in [
        ("baseline: one regex", trivial),
        ("baseline: sentences + dates", sentences_only),
        ("RuleExtractor", extractor.extract),
    ]:
        rate = timed(fn, batches, args.repeat, clock)
        table.add_row(label, f"{rate:,.0f}", f"{1e6 / rate:,.1f}")
    agent = agent_batches()
    agent_nodes = sum(len(b) for b in agent)
    rate = timed(extractor.extract, agent, args.repeat, clock)
    table.add_row(
        f"RuleExtractor, synthetic agent session ({agent_nodes} nodes)",
        f"{rate:,.0f}",
        f"{1e6 / rate:,.1f}",
    )
    console.print(table)
    work = [c for b in agent for c in extractor.extract(b).candidates]
    console.print(
        f"agent session: {len(work)} candidates, "
        f"{sum(c.type == 'case' for c in work)} fixed errors, "
        f"{sum(c.kind == 'work' and c.type == 'tool' for c in work)} work summaries"
    )

    cov = Table(title="Coverage of LoCoMo's annotated evidence turns")
    cov.add_column("turns")
    cov.add_column("hit", justify="right")
    cov.add_column("of", justify="right")
    cov.add_column("%", justify="right")
    for label, hit, total in coverage(locomo_path(args.file), batches, extractor):
        cov.add_row(label, str(hit), str(total), f"{100 * hit / max(total, 1):.1f}")
    console.print(cov)

    candidates = [c for b in batches for c in extractor.extract(b).candidates]
    families: Counter[str] = Counter()
    by_family: dict[str, list[str]] = {}
    for c in candidates:
        fam = f"{c.type}/{c.kind or '-'}/{c.relation or '-'}"
        families[fam] += 1
        by_family.setdefault(fam, []).append(c.text)
    counts = Table(title=f"{len(candidates)} candidates ({len(candidates) / nodes:.2f} per node)")
    counts.add_column("type/kind/relation")
    counts.add_column("count", justify="right")
    for fam, n in families.most_common():
        counts.add_row(fam, str(n))
    console.print(counts)
    rng = random.Random(0)
    for fam, texts in sorted(by_family.items()):
        console.print(f"[bold]{fam}[/bold]")
        for text in rng.sample(texts, min(args.samples, len(texts))):
            console.print(f"  · {text}", markup=False)


if __name__ == "__main__":
    main()
