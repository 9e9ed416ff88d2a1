"""What recall and search return: plain records with the provenance to follow them up."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

from ..entity.records import pointer_to
from ..entity.times import day_label
from ..index.docs import Doc

__all__ = ["RecallItem", "RecallResult", "SearchHit"]


@dataclass(frozen=True)
class RecallItem:
    """One piece of context, with the provenance to follow it up."""

    text: str
    kind: str
    score: float
    cites: tuple[str, ...]
    node_ids: tuple[str, ...]
    session_id: str | None
    commit: str | None
    event_time: float | None
    doc_ids: tuple[str, ...]
    tokens: int = 0
    #: nodes shown beside the cited ones to make them readable (the question a cited turn
    #: answers, the reply to a cited question); they are not what the item rests on
    context_ids: tuple[str, ...] = ()
    #: a header line per item (``RecallConfig.headers``); False: the item's text (the day
    #: before its first turn) and its pointer, unnumbered, as before the items7 round
    headers: bool = True

    @property
    def pointer(self) -> str:
        """``↪ session:<id>@<commit7>`` (empty when the item has no session behind it)."""
        ptr = pointer_to(session_id=self.session_id, commit=self.commit)
        return ptr.arrow if ptr else ""

    def render(self, number: int | None = None) -> str:
        """The item as a prompt reads it. Turns: a header line (``[n] <day> ↪ session:<id>@
        <commit7>``), then one line per turn (``Speaker: text``); a record: ``[n] <kind>:
        <text>  ↪ ...`` on one line. ``number`` is its place in the answer. Without
        ``headers``: ``<text>  ↪ ...``, unnumbered."""
        if not self.headers:
            return f"{self.text}  {self.pointer}".rstrip()
        mark = f"[{number}] " if number is not None else ""
        if self.kind == "turns":
            day = day_label(self.event_time) if self.event_time is not None else ""
            head = " ".join(x for x in (day, self.pointer) if x)
            return f"{mark}{head}\n{self.text}"
        kind = f"{self.kind}: " if self.kind not in ("turn", "turns") else ""
        return f"{mark}{kind}{self.text}  {self.pointer}".rstrip()

    def to_dict(self) -> dict[str, Any]:
        """Every field by name (tuples as lists), then the pointer. Not ``asdict``, which deep-
        copies every value: a third of a millisecond per REST recall of 20 items."""
        data = {name: getattr(self, name) for name in _ITEM_FIELDS}
        for key in ("cites", "node_ids", "doc_ids", "context_ids"):
            data[key] = list(data[key])
        data["pointer"] = self.pointer
        return data


# (``headers`` is how the item renders, not what it is)
_ITEM_FIELDS = tuple(f.name for f in fields(RecallItem) if f.name != "headers")


@dataclass(frozen=True)
class RecallResult:
    """At most 20 items within ``budget`` tokens; ``fallback`` says the "latest 20" answered."""

    query: str
    items: tuple[RecallItem, ...]
    tokens: int
    budget: int
    fallback: bool = False
    reason: str | None = None
    stats: dict[str, Any] = field(default_factory=dict)

    def as_context(self) -> str:
        """The items as one block of text for a prompt, one after another (with ``headers``:
        numbered and a blank line apart); each item's tokens were counted on its rendering
        with its number and one separator."""
        sep = "\n\n" if any(item.headers for item in self.items) else "\n"
        return sep.join(item.render(i) for i, item in enumerate(self.items, 1))

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "items": [i.to_dict() for i in self.items],
            "tokens": self.tokens,
            "budget": self.budget,
            "fallback": self.fallback,
            "reason": self.reason,
            "stats": self.stats,
        }


@dataclass(frozen=True)
class SearchHit:
    """One search result: an indexed document with its score and provenance."""

    id: str
    kind: str
    level: int
    text: str
    score: float
    session_id: str | None
    node_ids: tuple[str, ...]
    cites: tuple[str, ...]
    commit: str | None
    event_time: float | None

    @classmethod
    def of(cls, doc: Doc, score: float) -> SearchHit:
        return cls(
            id=doc.id,
            kind=doc.kind,
            level=doc.level,
            text=doc.text,
            score=round(score, 6),
            session_id=doc.session_id or doc.prov.get("session_id"),
            node_ids=doc.node_ids,
            cites=doc.cites,
            commit=doc.prov.get("commit"),
            event_time=doc.event_time,
        )

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["node_ids"] = list(self.node_ids)
        data["cites"] = list(self.cites)
        return data
