"""Index documents and their ids: the one home of the ``turn:<session>:<node>`` contract.

A document is one searchable thing at one level (seed 004): a turn (L2 content), a session
(L0 abstract, L1 overview), a memory, a timeline event, a fact, an entity (L0 abstract, each with
an L1 overview). Ids are built and read only here.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

__all__ = [
    "DOC_KINDS",
    "Doc",
    "DocKind",
    "overview_id",
    "record_doc_id",
    "session_doc_id",
    "turn_doc_id",
]

DocKind = Literal["turn", "session", "memory", "event", "fact", "entity"]
DOC_KINDS: tuple[DocKind, ...] = ("turn", "session", "memory", "event", "fact", "entity")


def turn_doc_id(session_id: str, node_id: str) -> str:
    """``turn:<session>:<node>``: the L2 document of one DAG node."""
    return f"turn:{session_id}:{node_id}"


def session_doc_id(session_id: str, level: int) -> str:
    """``session:<id>:0`` (L0 abstract) or ``session:<id>:1`` (L1 overview, parent of turns)."""
    return f"session:{session_id}:{level}"


def record_doc_id(kind: str, record_id: str) -> str:
    """The L0 document of a knowledge record (``memory:<id>``, ``event:<id>``, ``edge:<id>``,
    ``entity:<id>``; a fact is stored under ``edge``)."""
    return f"{kind}:{record_id}"


def overview_id(doc_id: str) -> str:
    """The L1 overview under a knowledge record's L0 document."""
    return f"{doc_id}:1"


@dataclass(frozen=True)
class Doc:
    """One indexed document. ``cites`` are the evidence labels shown to the model (a node's
    ``dia_id`` when it has one, else its node id); ``node_ids`` the exact DAG nodes."""

    id: str
    kind: str  # one of DOC_KINDS
    level: int  # 0 abstract, 1 overview, 2 content
    text: str
    scope: str = "global"
    parent: str | None = None
    session_id: str | None = None
    seq: int | None = None
    event_time: float | None = None
    valid_from: float | None = None
    valid_to: float | None = None
    superseded: bool = False
    importance: float = 0.5
    support: tuple[str, ...] = ()
    node_ids: tuple[str, ...] = ()
    cites: tuple[str, ...] = ()
    prov: dict[str, Any] = field(default_factory=dict)
    rowid: int | None = None

    @property
    def searchable(self) -> str:
        """What full text indexes: the text, and the words a record's structure adds that its
        sentence may not say (a fact's relation, slot and kinds of things: "uses", "database",
        "tool" for "The team decided to switch from MySQL to PostgreSQL.")."""
        terms = self.prov.get("terms")
        return f"{self.text}\n{terms}" if terms else self.text

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for key in ("support", "node_ids", "cites"):
            data[key] = list(data[key])
        return data
