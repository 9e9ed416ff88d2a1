"""One-shot use gets vectors: ``ogmem import`` ends with its documents embedded (``--no-embed``
skips it) and a one-shot ``ogmem recall`` embeds what is pending, up to its bound, before it
answers. The real default embedder, a real SQLite outbox."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import threading
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from conftest import fresh_python
from typer.testing import CliRunner, Result

from ogmemory import Memory
from ogmemory.config import Settings
from ogmemory.embed import E5Embedder
from ogmemory.interfaces.cli import app
from ogmemory.interfaces.cli.vectors import EMBED_ON_READ

runner = CliRunner()


pytestmark = pytest.mark.usefixtures("no_ogmem_env")


@pytest.fixture(scope="module")
def sample() -> Any:
    resource = resources.files("ogmemory").joinpath("data", "sample_locomo.json")
    with resources.as_file(resource) as path:
        yield path


def ok(*args: str | Path) -> Result:
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result


def status(home: Path) -> dict[str, int]:
    return dict(json.loads(ok("outbox", "status", "--home", home, "--json").stdout))


def test_import_ends_with_vectors_built(sample: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    ok("import", "locomo", sample, "--home", home)
    after = status(home)
    assert after["done"] > 0 and after["pending"] == 0 and after["leased"] == 0
    recalled = ok("recall", "Which pottery class did Tomas start?", "--home", home)
    assert "waiting for their vectors" not in recalled.stderr


def test_import_no_embed_then_recall_embeds_pending_up_to_its_bound(
    sample: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    ok("import", "locomo", sample, "--no-embed", "--home", home)
    before = status(home)  # indexed in full text; the embedding jobs wait in the outbox
    assert before["pending"] > 0 and before["done"] == 0
    # 0 turns it off: the jobs stay, and the user is told
    off = ok("recall", "pottery", "--embed-pending", "0", "--home", home)
    assert "waiting for their vectors" in off.stderr
    assert status(home)["pending"] == before["pending"]
    # the default bound covers this small import: recall embeds it all, then answers
    assert before["pending"] <= EMBED_ON_READ
    data = json.loads(ok("recall", "pottery", "--home", home, "--json").stdout)
    after = status(home)
    assert after["pending"] == 0 and after["done"] == before["pending"]
    assert data["stats"]["dense"] > 0  # the answer used vectors


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one thread is the default here")
def test_a_one_shot_query_embeds_on_one_thread_even_before_the_engine_is_loaded() -> None:
    """threadpoolctl limits only the libraries already loaded: ``one_thread(embedder)`` loads
    the E5 engine first, so its OpenMP pool runs one thread for the query (in a fresh process,
    where nothing has loaded it yet)."""
    script = (
        "import json\n"
        "from threadpoolctl import threadpool_info\n"
        "from ogmemory.embed import make_embedder\n"
        "from ogmemory.interfaces.cli.vectors import one_thread\n"
        "emb = make_embedder('e5')\n"
        "with one_thread(emb):\n"
        "    emb.encode_query(['which database?'])\n"
        "    print(json.dumps([p['num_threads'] for p in threadpool_info()\n"
        "                      if p['user_api'] == 'openmp']))\n"
    )
    out = fresh_python(script).stdout
    assert json.loads(out.strip().splitlines()[-1]) == [1]


class CountingEmbedder:
    """The real E5 embedder, counting the passages it is given."""

    def __init__(self) -> None:
        self.inner = E5Embedder()
        self.name, self.dim = self.inner.name, self.inner.dim
        self.passages: list[str] = []

    def encode(self, texts: Sequence[str]) -> Any:
        self.passages += list(texts)
        return self.inner.encode(texts)

    def encode_query(self, texts: Sequence[str]) -> Any:
        return self.inner.encode_query(texts)


def test_a_replaced_document_is_not_embedded_again(tmp_path: Path) -> None:
    """A session's overview changes with every turn: each one-shot sync leaves a job for the
    old text behind (its document replaced). Draining embeds only what is still there."""
    emb = CountingEmbedder()
    settings = Settings(home=tmp_path / "h", index_worker=False, distill_on_turn=False)
    with Memory(settings=settings, embedder=emb) as mem:
        for words in ("I moved to Lisbon in May.", "I started a pottery class.", "Blue is nice."):
            mem.append_message("s1", {"role": "user", "content": words})
            mem.append_message("s1", {"role": "assistant", "content": "Noted."})
            mem.commit_turn("s1")
            mem.sync_index()  # what each one-shot command (a hook call) does
        jobs = mem.outbox_status()["pending"]
        done = mem.drain_outbox()
        stats = mem.index_stats()
    assert done == jobs > stats["documents"]  # stale jobs were there, and are done
    assert len(emb.passages) == stats["documents"] == stats["vectors"]


def test_import_reports_progress_without_a_terminal(sample: Path, tmp_path: Path) -> None:
    """In a log file or a pipe the long steps still say what they do: a plain line when each
    starts and when it ends (and every few seconds in between)."""
    result = ok("import", "locomo", sample, "--home", tmp_path / "home")
    lines = result.stderr.splitlines()
    assert "Importing: 0/2 sessions ..." in lines
    assert any(re.fullmatch(r"Importing: 2/2 sessions done in \d+ s.*", x) for x in lines)
    embedded = status(tmp_path / "home")["done"]
    assert f"Embedding: 0/{embedded} documents ..." in lines
    assert any(
        line.startswith(f"Embedding: {embedded}/{embedded} documents done") for line in lines
    )


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="one core: one batch at a time")
def test_a_one_shot_import_embeds_batches_side_by_side(sample: Path, tmp_path: Path) -> None:
    """Nobody waits for another answer while ``ogmem import`` embeds: it runs one worker per
    core (each claiming its own batches), where a server's background indexer runs one."""
    home = tmp_path / "home"
    ok("import", "locomo", sample, "--home", home)
    db = next(home.glob("tenants/*/*/index/index.sqlite"))
    with sqlite3.connect(db) as conn:
        owners = {o for (o,) in conn.execute("SELECT lease_owner FROM outbox WHERE state='done'")}
    assert len(owners) >= 2, owners


def test_a_drain_with_several_workers_claims_no_more_than_its_limit() -> None:
    """Both workers claim at once (the handler holds each until the other is in it too): the
    second one's share of the limit is what the first left, not the whole limit again."""
    from ogmemory.index.worker import drain
    from ogmemory.storage.inmemory import InMemoryQueue

    box = InMemoryQueue()
    for i in range(6):
        box.submit("embed", f"doc-{i}", {"rowid": i, "text": "hi"})
    together = threading.Barrier(2)
    seen: list[str] = []

    def handler(jobs: list[Any]) -> None:
        if len(seen) < 2:
            seen.append(jobs[0].key)
            together.wait(timeout=30)

    assert drain(box, {"embed": handler}, threads=2, limit=3, batch=2) == 3
    assert box.status()["done"] == 3 and box.status()["pending"] == 3
