"""One-shot use gets vectors: ``ogmem import`` ends with its documents embedded (``--no-embed``
skips it) and a one-shot ``ogmem recall`` embeds what is pending, up to its bound, before it
answers. The real default embedder, a real SQLite outbox."""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from conftest import fresh_python
from typer.testing import CliRunner, Result

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
