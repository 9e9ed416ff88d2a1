"""REST server benchmark: ``POST /v1/recall`` under concurrent clients, beside its baselines.

A home is filled with the bundled LoCoMo sample (or any LoCoMo-format file) plus synthetic
sessions, distilled and indexed. Then, in the same run:

  * facade        - the same recalls called directly on ``Memory`` (no HTTP), same threads;
  * HTTP /health  - ``GET /health`` through the server: the floor of HTTP + framework cost;
  * HTTP recall   - ``POST /v1/recall`` through the server with an API key.

Each row runs ``--requests`` calls spread over ``--clients`` threads (one keep-alive httpx
client each), and once more with a single client for the unloaded latency. The server runs as
``ogmem serve`` in its own process (``--inproc``: a thread of this one, sharing the GIL).

Beside wall-clock figures, each row gives the CPU time per request of the server process and of
this one (the clients; for the first three rows everything runs here), and the load average
before and after it. On a machine shared with other jobs the wall-clock rates follow whatever
share of the cores this run gets; CPU per request hardly moves, and the ratio of CPU per query
of the embedder alone to CPU per request (server and clients) is the ratio of the two
throughputs on cores nobody else uses. The closing lines also do the arithmetic of a closed
loop: with ``--clients`` clients the mean latency is clients / throughput (Little's law).

Queries repeat (the sample's questions and the synthetic ones, in turn); nothing caches a
query's embedding or answer by its text, but the index keeps the documents it decoded while
nothing is written, which repeated queries find more often than distinct ones: ``--distinct``
appends a request number to every query.

    python bench/bench_rest.py [--clients 16] [--requests 800] [--embedder use|none]
                               [--locomo FILE] [--synthetic 60] [--inproc] [--distinct]
                               [--home DIR]

On a machine with few cores, ``OPENBLAS_NUM_THREADS=1`` (inherited by the server) keeps the
query embedder's multi-threaded BLAS from adding ~200 ms stalls to the embedding of a single
query; the table title shows the setting.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console
from rich.table import Table

from ogmemory import Memory, Settings
from ogmemory.embed import encode_queries
from ogmemory.importers import Conversation, parse_locomo, read_locomo
from ogmemory.interfaces.rest import create_app
from ogmemory.interfaces.rest.keys import KeyStore
from ogmemory.interfaces.rest.server import BackgroundServer

TOPICS = [
    ("PostgreSQL", "We decided to move the billing service from MySQL to PostgreSQL."),
    ("TypeScript", "I switched from JavaScript to TypeScript for the dashboard last week."),
    ("Kubernetes", "The staging cluster runs on Kubernetes with three nodes."),
    ("Alice Chen", "My manager is Alice Chen; she prefers weekly written updates."),
    ("Lisbon", "I am moving to Lisbon in March for the new job."),
    ("marathon", "I am training for the Berlin marathon in September."),
    ("Redis", "We use Redis as the cache in front of the search API."),
    ("green tea", "I prefer green tea over coffee in the afternoon."),
]
SYNTHETIC_QUERIES = [f"What do you know about {topic}?" for topic, _ in TOPICS] + [
    "Which database does billing use?",
    "Who is my manager?",
    "When is the marathon?",
    "Where am I moving?",
    "What changed in the frontend stack?",
]


def synthetic(n: int) -> list[Conversation]:
    convs = []
    for i in range(n):
        topic, fact = TOPICS[i % len(TOPICS)]
        messages = [
            {"role": "user", "content": f"{fact} (note {i})"},
            {"role": "assistant", "content": f"Got it, I will remember that about {topic}."},
            {"role": "user", "content": f"Also, session {i} was mostly about {topic} planning."},
            {"role": "assistant", "content": "Understood."},
        ]
        convs.append(Conversation(session_id=f"synthetic-{i:04d}", messages=messages))
    return convs


def fill(settings: Settings, locomo: Path | None, n_synthetic: int) -> list[str]:
    """Import, distil and index (unless the home was filled before); return the questions to
    recall."""
    if locomo is None:
        ref = resources.files("ogmemory") / "data" / "sample_locomo.json"
        with resources.as_file(ref) as path:
            samples = read_locomo(path)
    else:
        samples = read_locomo(locomo)
    questions = [
        str(qa["question"])
        for s in samples
        for qa in s.get("qa", [])
        if isinstance(qa, dict) and qa.get("question")
    ]
    filled = (settings.home / ".bench-rest-filled").exists()
    # No background index worker here: it would lease embedding jobs that ``drain_outbox``
    # then skips, and finish them later, during the measurements.
    with Memory(settings=dataclasses.replace(settings, index_worker=False)) as mem:
        if not filled:
            mem.import_conversations([*parse_locomo(samples), *synthetic(n_synthetic)])
            mem.wait_background()
            mem.sleep("deep")
        mem.sync_index()
        mem.drain_outbox()
        stats = mem.index_stats()
    (settings.home / ".bench-rest-filled").touch()
    Console(stderr=True).print(
        f"home filled: {stats['documents']} documents, "
        f"{stats['vectors']} vectors, {len(questions)} questions"
    )
    return (questions + SYNTHETIC_QUERIES) or SYNTHETIC_QUERIES


def run_load(
    call: Callable[[int, int], None],
    clients: int,
    requests: int,
    server_cpu: Callable[[], float] = lambda: 0.0,
) -> dict[str, float]:
    """``requests`` calls of ``call(client, i)`` over ``clients`` threads; latencies in ms, CPU
    per request in ms (``server_cpu``: the server process's CPU seconds so far), load."""
    per = [requests // clients + (1 if c < requests % clients else 0) for c in range(clients)]
    latencies: list[list[float]] = [[] for _ in range(clients)]
    errors: list[BaseException] = []
    barrier = threading.Barrier(clients + 1)

    def worker(c: int) -> None:
        barrier.wait()
        try:
            for i in range(per[c]):
                t0 = time.perf_counter()
                call(c, i)
                latencies[c].append((time.perf_counter() - t0) * 1000)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(c,)) for c in range(clients)]
    for t in threads:
        t.start()
    load = os.getloadavg()[0]
    barrier.wait()
    start, cpu, served = time.perf_counter(), time.process_time(), server_cpu()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - start
    cpu, served = time.process_time() - cpu, server_cpu() - served
    if errors:
        raise errors[0]
    flat = sorted(x for lat in latencies for x in lat)
    q = statistics.quantiles(flat, n=100)
    return {
        "n": len(flat),
        "rps": len(flat) / elapsed,
        "p50": statistics.median(flat),
        "p95": q[94],
        "p99": q[98],
        "mean": statistics.fmean(flat),
        "cpu": cpu * 1000 / len(flat),
        "server_cpu": served * 1000 / len(flat),
        "load0": load,
        "load1": os.getloadavg()[0],
    }


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def process_cpu(pid: int) -> Callable[[], float]:
    """CPU seconds (user + system) process ``pid`` has used so far (Linux ``/proc``)."""
    tick = os.sysconf("SC_CLK_TCK")

    def read() -> float:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / tick

    return read


@contextlib.contextmanager
def server(settings: Settings, inproc: bool) -> Iterator[tuple[str, Callable[[], float]]]:
    """The server's URL and a reader of its process's CPU seconds (0 when it is this one)."""
    if inproc:
        with BackgroundServer(create_app(settings)) as srv:
            yield srv.url, lambda: 0.0
        return
    port = free_port()
    env = {
        **os.environ,
        "OGMEM_EMBEDDER": settings.embedder or "none",
        "OGMEM_DISTILL_ON_TURN": "0",
    }
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ogmemory.interfaces.cli",
            "serve",
            "--home",
            str(settings.home),
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        env=env,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(url + "/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("the server did not start")
            time.sleep(0.1)
        yield url, process_cpu(proc.pid)
    finally:
        proc.terminate()
        proc.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--requests", type=int, default=800, help="per row")
    parser.add_argument("--budget", type=int, default=2000)
    parser.add_argument("--embedder", default="e5", choices=["e5", "use", "none"])
    parser.add_argument(
        "--locomo", type=Path, help="a LoCoMo-format file (default: bundled sample)"
    )
    parser.add_argument("--synthetic", type=int, default=60, help="synthetic sessions to add")
    parser.add_argument("--inproc", action="store_true", help="serve from a thread of this process")
    parser.add_argument(
        "--distinct", action="store_true", help="append a request number to every query"
    )
    parser.add_argument(
        "--home", type=Path, help="fill this home once and reuse it (default: a temporary one)"
    )
    args = parser.parse_args()

    console = Console(width=150)  # the table is wider than a default pipe
    with tempfile.TemporaryDirectory(prefix="ogmem-bench-rest-") as tmp:
        home = args.home or Path(tmp) / "home"
        settings = Settings(home=home, embedder=args.embedder, distill_on_turn=False)
        queries = fill(settings, args.locomo, args.synthetic)
        _, token = KeyStore(settings.home).create(settings.account, settings.space, label="bench")
        auth = {"Authorization": f"Bearer {token}"}

        def query(c: int, i: int) -> str:
            text = queries[(c * 7 + i) % len(queries)]
            return f"{text} (request {c}-{i})" if args.distinct else text

        rows: list[tuple[str, int, dict[str, float]]] = []
        with Memory(settings=settings) as mem:
            mem.recall(queries[0], budget=args.budget)  # load the embedder, open the index
            embedder = mem.embedder
            if embedder is not None:  # the ceiling: the embedder alone, batches of `clients`
                batch = [query(c, 0) for c in range(args.clients)]
                load = os.getloadavg()[0]
                t0, cpu0 = time.perf_counter(), time.process_time()
                rounds = max(1, args.requests // args.clients)
                for _ in range(rounds):
                    encode_queries(embedder, batch)
                secs = time.perf_counter() - t0
                cpu = (time.process_time() - cpu0) * 1000 / (rounds * args.clients)
                ms = secs * 1000 / rounds
                rows.append(
                    (
                        f"embedder alone, batches of {args.clients}",
                        args.clients,
                        {
                            "n": rounds * args.clients,
                            "rps": rounds * args.clients / secs,
                            "p50": ms,
                            "p95": ms,
                            "p99": ms,
                            "mean": ms,
                            "cpu": cpu,
                            "server_cpu": 0.0,
                            "load0": load,
                            "load1": os.getloadavg()[0],
                        },
                    )
                )

            def direct(c: int, i: int) -> None:
                mem.recall(query(c, i), budget=args.budget)

            for clients in (args.clients, 1):
                rows.append(
                    ("Memory.recall, no HTTP", clients, run_load(direct, clients, args.requests))
                )

        with server(settings, args.inproc) as (url, server_cpu):
            http = [
                httpx.Client(base_url=url, headers=auth, timeout=120) for _ in range(args.clients)
            ]
            http[0].post("/v1/recall", json={"query": queries[0]}).raise_for_status()  # warm-up

            def health(c: int, i: int) -> None:
                http[c].get("/health").raise_for_status()

            def recall(c: int, i: int) -> None:
                http[c].post(
                    "/v1/recall", json={"query": query(c, i), "budget": args.budget}
                ).raise_for_status()

            for clients in (args.clients, 1):
                result = run_load(health, clients, args.requests, server_cpu)
                rows.append(("GET /health (floor)", clients, result))
            for clients in (args.clients, 1):
                result = run_load(recall, clients, args.requests, server_cpu)
                rows.append(("POST /v1/recall", clients, result))
            for client in http:
                client.close()

    report(console, rows, args, len(queries))


def report(
    console: Console, rows: list[tuple[str, int, dict[str, float]]], args: Any, distinct: int
) -> None:
    """The table, then the ratios the issue asks for and a closed loop's arithmetic."""
    where = "in-process thread" if args.inproc else "own process (ogmem serve)"
    blas = os.environ.get("OPENBLAS_NUM_THREADS", "default")
    cores = os.cpu_count() or 1
    shown = "every query distinct" if args.distinct else f"{distinct} distinct queries"
    table = Table(
        title=f"REST recall: {shown}, budget {args.budget}, embedder {args.embedder}, "
        f"BLAS threads {blas}, server in {where}, {cores} CPUs",
        title_justify="left",
    )
    columns = ("Path", "Clients", "Requests", "req/s", "p50 ms", "p95 ms", "p99 ms")
    for col in (*columns, "server CPU ms/req", "here CPU ms/req", "load"):
        table.add_column(col, justify="left" if col == "Path" else "right")
    for name, clients, r in rows:
        table.add_row(
            name,
            str(clients),
            str(int(r["n"])),
            f"{r['rps']:.0f}",
            f"{r['p50']:.2f}",
            f"{r['p95']:.2f}",
            f"{r['p99']:.2f}",
            f"{r['server_cpu']:.1f}" if r["server_cpu"] else "-",
            f"{r['cpu']:.1f}",
            f"{r['load0']:.1f}-{r['load1']:.1f}",
        )
    console.print(table)
    facade = next(r for n, c, r in rows if n.startswith("Memory") and c == 1)
    http1 = next(r for n, c, r in rows if n.startswith("POST") and c == 1)
    console.print(
        f"HTTP overhead per recall, one client: {http1['p50'] - facade['p50']:.2f} ms at p50"
    )
    ceiling = next((r for n, c, r in rows if n.startswith("embedder")), None)
    loaded = next(r for n, c, r in rows if n.startswith("POST") and c == args.clients)
    needed = args.clients / 0.150  # Little's law: mean latency = clients / throughput
    console.print(
        f"POST /v1/recall with {args.clients} clients: {loaded['rps']:.0f} req/s, "
        f"p95 {loaded['p95']:.0f} ms (target <= 150); a mean of 150 ms with {args.clients} "
        f"closed-loop clients takes {needed:.0f} req/s"
    )
    if ceiling is None:
        return
    per_request = loaded["server_cpu"] + loaded["cpu"]
    console.print(
        f"  = {loaded['rps'] / ceiling['rps']:.2f}x the embedder's own batched query "
        f"throughput in this run ({ceiling['rps']:.0f}/s; target >= 0.7); "
        f"{needed / ceiling['rps']:.2f}x would be needed for the mean latency alone"
    )
    console.print(
        f"  CPU: {ceiling['cpu']:.1f} ms per query for the embedder alone, "
        f"{per_request:.1f} ms per request (server {loaded['server_cpu']:.1f} + clients "
        f"{loaded['cpu']:.1f}): {ceiling['cpu'] / per_request:.2f}x, on {cores} otherwise idle "
        f"cores about {cores * 1000 / ceiling['cpu']:.0f} queries/s against "
        f"{cores * 1000 / per_request:.0f} requests/s"
    )


if __name__ == "__main__":
    main()
