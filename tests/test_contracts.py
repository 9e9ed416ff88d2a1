"""Contracts with one home: times, pointers, doc ids, the agent commit message, timeline kinds
and budget bounds are each written once and used by every layer and interface."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from ogmemory import InvalidInput, Pointer, Provenance
from ogmemory.entity.project_git import agent_commit_message, agent_commit_session
from ogmemory.entity.records import parse_pointer, pointer_to
from ogmemory.entity.times import TIME_MAX, parse_time, parse_when
from ogmemory.index.docs import overview_id, record_doc_id, session_doc_id, turn_doc_id
from ogmemory.knowledge.models import TIMELINE_KINDS
from ogmemory.knowledge.schema import SchemaRegistry
from ogmemory.recall.config import BUDGET_MAX, BUDGET_MIN, check_budget


def test_one_time_parser_for_every_entry_point() -> None:
    from ogmemory.interfaces.cli import common as cli
    from ogmemory.interfaces.mcp import format as mcp
    from ogmemory.interfaces.rest import params as rest

    assert cli.parse_when is mcp.parse_when is rest.parse_when is parse_when
    noon = datetime(2024, 5, 1, 12, tzinfo=UTC).timestamp()
    # no offset means UTC, whatever the machine's zone
    assert parse_time("2024-05-01T12:00:00") == noon
    assert parse_time("2024-05-01T12:00:00Z") == noon
    assert parse_time("2024-05-01T14:00:00+02:00") == noon
    assert parse_time("2024-05-01") == noon - 12 * 3600
    assert parse_when("2024-05-01", "--until", end_of_day=True) == noon + 12 * 3600
    assert parse_time(str(noon)) == noon == parse_time(noon)
    assert parse_when(None, "--at") is None and parse_when("  ", "--at") is None


@pytest.mark.parametrize(
    "bad",
    [
        "0001-01-01T00:00:00+14:00",
        "9999-12-31T23:59:59",
        "-5",
        "yesterday",
        "2024-13-01",
        float("nan"),
        True,
        None,
        [1],
    ],
)
def test_times_out_of_range_or_unreadable_are_refused(bad: object) -> None:
    with pytest.raises(InvalidInput):
        parse_time(bad, "event_time")
    assert parse_time(TIME_MAX) == TIME_MAX


def test_pointers_have_one_grammar() -> None:
    prov = Provenance("proj_a", "s1", ("n1",), "0123456789abcdef", 1.0, 2.0)
    assert prov.pointer == Pointer("session", "s1", "0123456789abcdef")
    assert prov.pointer is not None and prov.pointer.arrow == "↪ session:s1@0123456"
    no_session = Provenance("proj_a", "", (), "0123456789abcdef", 1.0, 2.0)
    assert str(no_session.pointer) == "git:proj_a@0123456"
    assert str(pointer_to(memory_id="m_1")) == "memory:m_1"
    assert pointer_to() is None
    for text in ("session:s1@0123456", "↪ git:proj_a@0123456", "memory:m_1", "session:s1"):
        assert str(parse_pointer(text)) == text.removeprefix("↪ ")
    for bad in ("commit:0123456", "session:../x", "session:", "git:p@xyz!"):
        with pytest.raises(InvalidInput):
            parse_pointer(bad)


def test_ids_and_the_agent_commit_message() -> None:
    assert turn_doc_id("s1", "n1") == "turn:s1:n1"
    assert session_doc_id("s1", 1) == "session:s1:1"
    assert overview_id(record_doc_id("memory", "m1")) == "memory:m1:1"
    message = agent_commit_message("s-9", 3, "Fix the build\nplease")
    assert message == "[agent s-9] turn 3: Fix the build"
    assert agent_commit_session(message) == "s-9"
    assert agent_commit_session("[agent s-9] not a turn") is None
    assert agent_commit_session("user: initial commit") is None


def test_timeline_kinds_and_budget_bounds() -> None:
    assert TIMELINE_KINDS == ("work", "decision", "learning", "event")
    registry = SchemaRegistry.load()
    kinds = {registry.get(n).timeline_kind for n in registry.names()} - {None}
    assert kinds <= set(TIMELINE_KINDS)
    assert check_budget(BUDGET_MIN) == BUDGET_MIN and check_budget(BUDGET_MAX) == BUDGET_MAX
    for bad in (BUDGET_MIN - 1, BUDGET_MAX + 1, "2000", True, 2000.0):
        with pytest.raises(InvalidInput):
            check_budget(bad)
