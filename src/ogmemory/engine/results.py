"""What each interception point did, and why: small frozen records the caller can log, show
(``/why``) or store. Every one carries ``reasons``, plain sentences saying what was done or
skipped and why, in the order it happened."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = [
    "CloseResult",
    "CompactionResult",
    "ContextItem",
    "ContextResult",
    "MessageResult",
    "ToolResult",
    "TurnEndResult",
]


def _plain(obj: Any) -> dict[str, Any]:
    data = asdict(obj)
    for key, value in data.items():
        if isinstance(value, tuple):
            data[key] = list(value)
    return data


@dataclass(frozen=True)
class MessageResult:
    """① A message arrived: the user node recorded, with cheap signals about it."""

    session_id: str
    node_id: str
    created: bool = False
    reopened: bool = False
    temporary: bool = False
    project_id: str = "default"
    signals: dict[str, Any] = field(default_factory=dict)
    reasons: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return _plain(self)


@dataclass(frozen=True)
class ContextItem:
    """One piece of the assembled context: where it came from, why it is there, its cost.

    ``source`` is ``core`` (core.md), ``summary`` (the session's compaction summary),
    ``recall`` (bounded recall for the current message) or ``recent`` (a live turn).
    """

    source: str
    text: str
    tokens: int
    reason: str
    uri: str | None = None
    role: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return _plain(self)


@dataclass(frozen=True)
class CompactionResult:
    """⑤ Compaction: older turns folded into one summary node that names every node it
    replaced (``replaces``; the originals stay in the DAG)."""

    session_id: str
    compacted: bool
    node_id: str | None = None
    replaces: tuple[str, ...] = ()
    folds: str | None = None
    method: str = "rules"
    tokens_before: int = 0
    tokens_after: int = 0
    deduplicated: int = 0
    reasons: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return _plain(self)


@dataclass(frozen=True)
class ContextResult:
    """② Before inference: the context assembled within ``budget`` tokens.

    ``messages`` is what to send to an OpenAI-compatible endpoint (one system message, then
    the live turns); ``additional_context()`` is the memory part alone, for agents that keep
    their own history (Claude Code); ``explain()`` says what the context held and why.
    """

    session_id: str
    query: str
    budget: int
    tokens: int
    items: tuple[ContextItem, ...]
    messages: tuple[dict[str, Any], ...]
    skipped: tuple[str, ...] = ()
    compaction: CompactionResult | None = None
    temporary: bool = False
    recall_fallback: bool = False
    reasons: tuple[str, ...] = ()

    def tokens_of(self, source: str) -> int:
        return sum(i.tokens for i in self.items if i.source == source)

    def additional_context(self) -> str:
        """core.md and the recalled items as one text block (empty when there is neither)."""
        return render_memory_block([i for i in self.items if i.source in ("core", "recall")])

    def explain(self) -> str:
        """A readable account: every item with its source, tokens and reason; what was left out."""
        shares = ", ".join(f"{s} {self.tokens_of(s)}" for s in _SOURCES if self.tokens_of(s))
        lines = [
            (f"Context for {self.query[:60]!r}: {self.tokens} of {self.budget} tokens ({shares})")
        ]
        for item in self.items:
            where = f" {item.uri}" if item.uri else ""
            lines.append(f"- [{item.source}] {item.tokens} tok{where}: {item.reason}")
        for text in self.skipped:
            lines.append(f"- left out: {text}")
        if self.compaction is not None and self.compaction.compacted:
            lines.append(
                f"- compacted: {len(self.compaction.replaces)} nodes folded into "
                f"{self.compaction.node_id} ({self.compaction.method})"
            )
        return "\n".join(lines)

    def to_record(self) -> dict[str, Any]:
        """What the turn's context view keeps: each item's source, tokens, reason and URI
        (not the texts, which the URIs resolve to)."""
        return {
            "query": self.query,
            "budget": self.budget,
            "tokens": self.tokens,
            "items": [
                {"source": i.source, "tokens": i.tokens, "reason": i.reason, "uri": i.uri}
                for i in self.items
            ],
            "skipped": list(self.skipped),
            "recall_fallback": self.recall_fallback,
            "compaction": self.compaction.node_id if self.compaction else None,
        }

    def to_dict(self) -> dict[str, Any]:
        data = _plain(self)
        data["items"] = [i.to_dict() for i in self.items]
        data["messages"] = list(self.messages)
        data["compaction"] = self.compaction.to_dict() if self.compaction else None
        return data


_SOURCES = ("core", "summary", "recall", "recent")

_HEADINGS = {
    "core": "## Long-term memory (core.md)",
    "summary": "## Earlier in this conversation (summary)",
    "recall": "## Recalled for this message",
}


def render_memory_block(items: list[ContextItem]) -> str:
    """Items under one heading per source, in the order core, summary, recall."""
    parts = []
    for source in ("core", "summary", "recall"):
        texts = [i.text for i in items if i.source == source]
        if texts:
            body = "\n".join(f"- {t}" if source == "recall" else t for t in texts)
            parts.append(f"{_HEADINGS[source]}\n{body}")
    return "\n\n".join(parts)


@dataclass(frozen=True)
class ToolResult:
    """③ A tool call or its result, recorded as a DAG node (a result names its call in
    ``called_by``), with the files it read or wrote when the caller said so."""

    session_id: str
    node_id: str
    kind: str  # "call" | "result"
    call_ids: tuple[str, ...] = ()
    called_by: str | None = None
    files_read: tuple[str, ...] = ()
    files_written: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return _plain(self)


@dataclass(frozen=True)
class TurnEndResult:
    """④ Turn end: the session commit, the project auto-commit (or why not), and the
    background work queued (it has not finished when this returns)."""

    session_id: str
    turn: int
    commit: str | None
    node_ids: tuple[str, ...] = ()
    reply_node: str | None = None
    project_commit: str | None = None
    warnings: tuple[str, ...] = ()
    queued: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return _plain(self)


@dataclass(frozen=True)
class CloseResult:
    """⑥ Session close: final distillation, title, archive (or, for a temporary session,
    everything erased)."""

    session_id: str
    closed: bool
    erased: bool = False
    archive_uri: str | None = None
    title: str | None = None
    distilled_nodes: int = 0
    committed_turn: int | None = None
    reasons: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return _plain(self)
