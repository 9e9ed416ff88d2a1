"""Records of the abstract layer (seed 000 §2-3) and the memory list (seed 003).

All are bi-temporal (``event_time``: when it happened; ``ingestion_time``: when it was written)
and carry provenance back to DAG node ids and commits. Derived records (entities, edges,
events) name the memories that ``support`` them: a derived record is visible only while at
least one supporting memory is enabled, which is how disabling a memory removes what was
derived only from it from every read without deleting anything.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, Literal, TypeVar, get_args

from ..entity.periods import precision_of
from ..entity.records import Provenance

__all__ = [
    "ENTITY_TYPES",
    "RECORD_KINDS",
    "TIMELINE_KINDS",
    "Edge",
    "Entity",
    "Evidence",
    "KnowledgeRecord",
    "MemoryItem",
    "TimelineEvent",
    "TimelineKind",
    "from_dict",
    "kind_of",
    "record_from_json",
    "record_to_json",
    "type_of",
]

ENTITY_TYPES = (
    "person",
    "preference",
    "constraint",
    "decision",
    "project",
    "tool",
    "concept",
    "organization",
    "event",
    "resource",
)
#: Seed 000 §2.2: what a timeline event is. The one list every layer and interface uses.
TimelineKind = Literal["work", "decision", "learning", "event"]
TIMELINE_KINDS: tuple[str, ...] = get_args(TimelineKind)

T = TypeVar("T")


def from_dict(cls: type[T], data: dict[str, Any]) -> T:
    """Build a record from its JSON form, ignoring unknown keys (forward compatibility)."""
    spec = {f.name: str(f.type) for f in fields(cls)}  # type: ignore[arg-type]
    values = {k: v for k, v in data.items() if k in spec}
    if "provenance" in values and isinstance(values["provenance"], dict):
        values["provenance"] = Provenance.from_dict(values["provenance"])
    for key, value in values.items():
        if isinstance(value, list) and spec[key].startswith("tuple"):
            values[key] = tuple(value)  # JSON has lists; the records hold tuples
    return cls(**values)


def _to_dict(obj: Any) -> dict[str, Any]:
    data = asdict(obj)
    for key, value in list(data.items()):
        if isinstance(value, tuple):
            data[key] = list(value)
    if isinstance(getattr(obj, "provenance", None), Provenance):
        data["provenance"] = obj.provenance.to_dict()
    return data


@dataclass(frozen=True)
class Entity:
    """A graph node: ``id`` is ``<type>.<slug>`` (e.g. ``tool.postgresql``)."""

    id: str
    type: str
    name: str
    aliases: tuple[str, ...] = ()
    attrs: dict[str, Any] = field(default_factory=dict)
    scope: str = "global"
    support: tuple[str, ...] = ()
    ingestion_time: float = 0.0
    merged_into: str | None = None  # alias resolution: this id now resolves to another

    def to_dict(self) -> dict[str, Any]:
        return _to_dict(self)


@dataclass(frozen=True)
class Edge:
    """A relation with validity: ``valid_from <= t < valid_to`` (``None`` = open)."""

    id: str
    src: str
    dst: str
    relation: str
    fact: str
    provenance: Provenance
    event_time: float
    ingestion_time: float
    valid_from: float
    valid_to: float | None = None
    confidence: float = 0.7
    scope: str = "global"
    superseded_by: str | None = None
    slot: str | None = None
    support: tuple[str, ...] = ()
    language: str = "en"

    def valid_at(self, t: float) -> bool:
        return self.valid_from <= t and (self.valid_to is None or t < self.valid_to)

    @property
    def current(self) -> bool:
        return self.valid_to is None and self.superseded_by is None

    def to_dict(self) -> dict[str, Any]:
        data = _to_dict(self)
        data["from"], data["to"] = data.pop("src"), data.pop("dst")
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Edge:
        data = dict(data)
        data["src"], data["dst"] = (
            data.pop("from", data.get("src")),
            data.pop("to", data.get("dst")),
        )
        return from_dict(cls, data)


@dataclass(frozen=True)
class TimelineEvent:
    """A timeline entry (``timeline/YYYY-MM.jsonl``); superseded, never deleted."""

    id: str
    summary: str
    kind: str
    provenance: Provenance
    event_time: float
    ingestion_time: float
    entities: tuple[str, ...] = ()
    superseded_by: str | None = None
    scope: str = "global"
    importance: float = 0.5
    support: tuple[str, ...] = ()
    language: str = "en"
    attrs: dict[str, Any] = field(default_factory=dict)
    #: how precisely ``event_time`` is known (``ogmemory.entity.periods``: day, month, year,
    #: ``~year`` ...); ``None`` in logs written before it existed: read from ``attrs``
    time_precision: str | None = None

    @property
    def precision(self) -> str:
        """The precision of ``event_time`` ("4 years ago" is a year, not a day)."""
        if self.time_precision:
            return self.time_precision
        return precision_of(self.attrs.get("granularity"), self.attrs.get("approximate"))

    def to_dict(self) -> dict[str, Any]:
        return _to_dict(self)


@dataclass(frozen=True)
class MemoryItem:
    """An entry of the user-visible memory list; edits make new versions, never rewrite."""

    id: str
    text: str
    type: str
    enabled: bool = True
    deleted: bool = False
    version: int = 1
    source: str = "user"  # user | distilled
    scope: str = "global"
    created_at: float = 0.0
    updated_at: float = 0.0
    evidence_ids: tuple[str, ...] = ()
    importance: float = 0.5
    language: str = "en"
    attrs: dict[str, Any] = field(default_factory=dict)

    @property
    def active(self) -> bool:
        return self.enabled and not self.deleted

    def to_dict(self) -> dict[str, Any]:
        return _to_dict(self)

    def evolve(self, **changes: Any) -> MemoryItem:
        return replace(self, **changes)


@dataclass(frozen=True)
class Evidence:
    """An immutable snapshot of why something is remembered: what was said, and where."""

    id: str
    memory_id: str
    quote: str
    provenance: Provenance | None
    created_at: float

    def to_dict(self) -> dict[str, Any]:
        return _to_dict(self)


#: Every kind of record the knowledge store keeps, and the name it is stored under.
KnowledgeRecord = MemoryItem | Evidence | Entity | Edge | TimelineEvent
RECORD_KINDS: dict[type[Any], str] = {
    MemoryItem: "memory",
    Evidence: "evidence",
    Entity: "entity",
    Edge: "edge",
    TimelineEvent: "event",
}
_KIND_TYPES: dict[str, type[Any]] = {name: cls for cls, name in RECORD_KINDS.items()}


def kind_of(record: KnowledgeRecord | type[Any]) -> str:
    """The stored kind name of a record or record type (``"memory"``, ``"edge"``, ...)."""
    cls = record if isinstance(record, type) else type(record)
    try:
        return RECORD_KINDS[cls]
    except KeyError:
        raise TypeError(f"not a knowledge record type: {cls.__name__}") from None


def type_of(kind: str) -> type[Any]:
    """The record type stored under ``kind``."""
    try:
        return _KIND_TYPES[kind]
    except KeyError:
        raise ValueError(f"unknown knowledge record kind {kind!r}") from None


def record_to_json(record: KnowledgeRecord) -> dict[str, Any]:
    """The JSON form a backend stores (``Edge`` spells its ends ``from``/``to``)."""
    return record.to_dict()


def record_from_json(kind: str, data: dict[str, Any]) -> KnowledgeRecord:
    """A record from its stored JSON form; unknown keys are ignored."""
    cls = type_of(kind)
    if cls is Edge:
        return Edge.from_json(data)
    return from_dict(cls, data)  # type: ignore[no-any-return]
