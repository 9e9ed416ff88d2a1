"""Every listing of ``ogmem`` reads at 80 columns and at 120: no line wider than the terminal,
ids, pointers and dates whole on one line, and the text of each record in a column at least as
wide as its first words (a rich table left alone gave a search hit's text 3 characters and an
entity's name 1). On the bundled LoCoMo sample plus one memory typed in, whose decision entity
has a long id, and a bound project (a path is never broken either)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from typer.testing import CliRunner

from ogmemory.interfaces.cli import app

pytestmark = pytest.mark.usefixtures("no_ogmem_env")

DECISION = "I decided to go to networking events to make things happen and to run for office again."


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    path = tmp_path_factory.mktemp("tables") / "home"
    resource = resources.files("ogmemory").joinpath("data", "sample_locomo.json")
    with resources.as_file(resource) as sample:
        run(120, "import", "locomo", str(sample), "--no-embed", "--home", str(path))
    run(120, "memories", "add", DECISION, "--home", str(path))
    project = tmp_path_factory.mktemp("tables") / "p"
    project.mkdir()
    run(120, "project", "bind", str(project), "--home", str(path))
    yield path


def run(columns: int, *args: str) -> str:
    result = CliRunner(env={"COLUMNS": str(columns)}).invoke(app, list(args))
    assert result.exit_code == 0, (args, result.stdout, result.stderr, result.exception)
    return result.stdout


def records(home: Path, *args: str) -> Any:
    return json.loads(run(120, *args, "--json", "--home", str(home)))


def pointer(prov: dict[str, Any] | None) -> list[str]:
    if not prov or not prov.get("session_id"):
        return []
    return [f"session:{prov['session_id']}@{prov['commit'][:7]}"]


def day(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d")


#: What each listing must show: (the command, from its JSON: the tokens to find whole on one
#: line, and the texts whose first words must be on one line).
Expect = Callable[[Any], tuple[list[str], list[str]]]


def _search(hits: Any) -> tuple[list[str], list[str]]:
    ids = [h["id"] for h in hits]
    ids += [f"session:{h['session_id']}@{h['commit'][:7]}" for h in hits if h["commit"]]
    return ids, [h["text"] for h in hits]


def _facts(facts: Any) -> tuple[list[str], list[str]]:
    ids = [t for f in facts for t in [*pointer(f["provenance"]), day(f["valid_from"])]]
    return ids, [f["fact"] for f in facts]


def _events(events: Any) -> tuple[list[str], list[str]]:
    return [p for e in events for p in pointer(e["provenance"])], [e["summary"] for e in events]


def _entity(shown: Any) -> tuple[list[str], list[str]]:
    fact_ids, fact_texts = _facts(shown["facts"])
    event_ids, summaries = _events(shown["timeline"])
    return [shown["entity"]["id"], *fact_ids, *event_ids], [*fact_texts, *summaries]


def _nodes(nodes: Any) -> tuple[list[str], list[str]]:
    return [n["id"] for n in nodes], [n["content"] for n in nodes]


LISTINGS: list[tuple[tuple[str, ...], Expect]] = [
    (("search", "bowl"), _search),
    (("graph", "entities"), lambda es: ([e["id"] for e in es], [e["name"] for e in es])),
    (("graph", "facts"), _facts),
    (("graph", "show", "Priya"), _entity),
    (("timeline",), _events),
    (("sessions", "show", "sample-1-s1"), _nodes),
    (("open", "sample-1-s1"), _nodes),
    (("sessions", "list"), lambda ss: ([s["session_id"] for s in ss], [])),
    (("memories", "list"), lambda ms: ([m["id"] for m in ms], [m["text"] for m in ms])),
    (("batches",), lambda bs: ([b["id"] for b in bs], [])),
    (("project", "list"), lambda ps: ([t for p in ps for t in (p["project_id"], p["path"])], [])),
]


def head(text: str, most: int = 28) -> str:
    """The first words of ``text``, at most ``most`` characters (one word at least)."""
    words = text.split()
    taken = words[:1]
    for word in words[1:]:
        if len(" ".join([*taken, word])) > most:
            break
        taken.append(word)
    return " ".join(taken)


@pytest.mark.parametrize("columns", [80, 120])
@pytest.mark.parametrize(
    ("args", "expect"), LISTINGS, ids=lambda v: " ".join(v) if isinstance(v, tuple) else ""
)
def test_listing_reads_at_the_width(
    home: Path, columns: int, args: tuple[str, ...], expect: Expect
) -> None:
    tokens, texts = expect(records(home, *args))
    assert tokens, "the listing should show something"
    lines = run(columns, *args, "--home", str(home)).splitlines()
    assert max(cell_len(line.rstrip()) for line in lines) <= columns
    cells = [" ".join(line.replace("│", " ").replace("┃", " ").split()) for line in lines]
    for token in tokens:
        assert any(token in line.split() for line in cells), (token, lines)
    for text in texts:
        assert any(head(text) in line for line in cells), (head(text), lines)
