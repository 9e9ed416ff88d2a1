"""Every command's help, as a reader sees it at 80 columns: values named, not typed (no
``<str>``, ``{QUERY}``, ``N [x>=0]``, ``<float range> [x>=0.05]``, ``<list[Path]>``), no
``[required]`` twice, descriptions without the hard line breaks of their docstrings, and the
MCP command naming every tool the server has."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from ogmemory.interfaces.cli import app
from ogmemory.interfaces.cli.helptext import reflow
from ogmemory.interfaces.mcp import TOOL_NAMES

runner = CliRunner()

#: What typer (and click) print for a Python type where a value's name belongs.
TYPE_LABEL = re.compile(
    r"<(?:str|int|float|bool|file|dir|path|datetime|uuid|list\[[^\]>]*\]|(?:int|float) range)>"
    r"|<[a-z0-9_-]+(?:\|[a-z0-9_-]+)+>"  # a choice: <stdio|http>
    r"|\[x *[<>]=|<= *x *[<>]="  # a range: [x>=0], [0<=x<=65535]
    r"|\b(?:INTEGER|FLOAT)(?: RANGE)?\b|\bBOOLEAN\b"
)


def _walk(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    yield path, command
    for name, sub in getattr(command, "commands", {}).items():
        yield from _walk(sub, (*path, name))


ROOT = typer.main.get_command(app)
COMMANDS = [(path, cmd) for path, cmd in _walk(ROOT) if not getattr(cmd, "hidden", False)]


def _help(path: tuple[str, ...], columns: int = 80) -> str:
    result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize(
    ("path", "command"), COMMANDS, ids=[" ".join(p) or "ogmem" for p, _ in COMMANDS]
)
def test_help_names_values_and_says_required_once(path: tuple[str, ...], command: Any) -> None:
    text = _help(path)
    usage = next(line for line in text.splitlines() if "Usage:" in line)
    assert not re.search(r"\{[A-Z_]+\}", usage), usage  # typer 0.2x: {QUERY} for QUERY
    for line in text.splitlines():
        assert not TYPE_LABEL.search(line), f"ogmem {' '.join(path)}: {line.strip()}"
    required = sum(1 for p in command.params if p.required)
    assert text.count("[required]") <= required, f"ogmem {' '.join(path)}: [required] twice"


@pytest.mark.parametrize(
    "path",
    [p for p, c in COMMANDS if getattr(c, "commands", None)],
    ids=lambda p: " ".join(p) or "ogmem",
)
def test_command_lists_have_no_hard_line_breaks(path: tuple[str, ...]) -> None:
    """Wide enough for every description to fit on one line, a command list has no
    continuation lines: a line break there came from a docstring."""
    text = _help(path, columns=400)
    panel = text[text.index("─ Commands ─") :].splitlines()[1:]
    rows = [line for line in panel if line.startswith("│")]
    assert rows
    for row in rows:
        assert row[2] != " ", f"ogmem {' '.join(path)}: a description wraps: {row.strip()}"


def test_descriptions_are_reflowed_but_kept_paragraphs_stay() -> None:
    for path, command in COMMANDS:
        assert reflow(command.help or "") == (command.help or "").strip(), path
    assert reflow("one\n  two\n\n\bkeep\nthis") == "one two\n\n\bkeep\nthis"


def test_mcp_help_names_every_tool() -> None:
    text = " ".join(_help(("mcp",), columns=400).split())
    for name in TOOL_NAMES:
        assert name in text, name


def test_number_bounds_are_said_in_words() -> None:
    text = " ".join(_help(("recall",)).split())
    assert "--embed-pending N " in text and "[at least 0]" in text
    assert "[0-65535]" in " ".join(_help(("serve",)).split())


def test_core_says_which_scope_it_renders_by_default(tmp_path: Any) -> None:
    text = " ".join(_help(("core",), columns=400).split())
    assert "[default: global, the core.md file]" in text
    assert "every scope" not in text  # it never renders every scope at once
