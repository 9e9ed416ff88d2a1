"""What extractors produce: candidate memories with exact evidence, before linking.

An extractor reads committed DAG nodes (``NodeRecord``: user, assistant and tool nodes, with
their commit) and returns ``Candidate`` objects. The pipeline then links entity names to graph
entities (alias resolution), reconciles contradictions and writes everything in one batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..entity.records import NodeRecord
from ..knowledge.models import TimelineKind

__all__ = ["Candidate", "EntityRef", "ExtractionResult", "Extractor", "Fact", "TimelineKind"]


@dataclass(frozen=True)
class EntityRef:
    """An entity as named in the evidence; linking maps it to a graph entity id."""

    name: str
    type: str  # person | preference | constraint | decision | project | tool | concept |
    #            organization | event | resource (or a type declared in YAML)
    aliases: tuple[str, ...] = ()
    attrs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Fact:
    """A further relation the same memory states: "the backend lead at Corvid Labs" is a role
    and an employer. ``subject`` defaults to the candidate's own subject."""

    relation: str
    object: EntityRef
    subject: EntityRef | None = None
    slot: str | None = None
    replaces: EntityRef | None = None
    text: str | None = None  # the fact as a sentence (default: the memory's text)


@dataclass(frozen=True)
class Candidate:
    """One extracted memory: a statement, optionally a graph relation and a timeline event.

    ``text`` is written in the language of its evidence. ``node_ids`` are the DAG nodes that
    say it (all from ``session_id``). A relation is ``subject --relation--> object``; ``slot``
    names what the relation is functional in (e.g. ``language``: a user uses one main language
    at a time), so a new object in the same slot ends the old edge's validity; ``replaces``
    names an object the evidence says was dropped ("switched from X"). ``kind`` makes it a
    timeline event; ``event_time`` is when the thing happened (relative dates resolved against
    the node's event time), ``valid_from``/``valid_until`` bound the fact when the evidence
    says so. ``more`` holds further relations of the same memory. ``collective``: the speaker
    speaks for their team ("we", "let's", "our service"), so in a session bound to a project
    the project, not the speaker, is the subject.
    """

    #: memory type declared in YAML: profile, preference, entity, event, case, pattern, tool, ...
    type: str
    text: str
    session_id: str
    node_ids: tuple[str, ...]
    subject: EntityRef | None = None
    relation: str | None = None
    object: EntityRef | None = None
    slot: str | None = None
    replaces: EntityRef | None = None
    kind: TimelineKind | None = None
    event_time: float | None = None
    valid_from: float | None = None
    valid_until: float | None = None
    confidence: float = 0.7
    importance: float = 0.5
    language: str = "en"
    scope: str | None = None  # None: derived from the session (global, or project:<id>)
    entities: tuple[EntityRef, ...] = ()  # further entities mentioned (timeline "entities")
    attrs: dict[str, Any] = field(default_factory=dict)
    more: tuple[Fact, ...] = ()
    collective: bool = False


@dataclass
class ExtractionResult:
    candidates: list[Candidate]
    #: counts of what happened, e.g. {"llm_fallbacks": 1, "invalid_outputs": 2}
    stats: dict[str, int] = field(default_factory=dict)


class Extractor(Protocol):
    """Stage 2 of distillation. Must not write anything; the pipeline does."""

    name: str

    def extract(self, records: Sequence[NodeRecord]) -> ExtractionResult: ...
