"""Plain record types shared by the layers. Frozen dataclasses; stores take and return them."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

__all__ = [
    "CommitInfo",
    "Node",
    "NodeRecord",
    "Project",
    "Provenance",
    "Role",
    "SessionInfo",
    "TurnResult",
    "day_label",
]

Role = Literal["user", "assistant", "tool"]


def day_label(t: float | None) -> str:
    """The UTC day of an epoch time, as texts, views and prompts are dated ("2026-01-10")."""
    return datetime.fromtimestamp(t or 0, UTC).strftime("%Y-%m-%d")

ROLE_CODES: dict[str, str] = {"user": "u", "assistant": "a", "tool": "t"}


@dataclass(frozen=True)
class Node:
    """One DAG node: a message in a session, stored as ``history/NNNNNN-<u|a|t>-<id>.json``."""

    id: str
    seq: int
    role: Role
    content: Any
    parent_id: str | None
    event_time: float
    ingestion_time: float
    name: str | None = None
    tool_calls: list[dict[str, Any]] | None = None
    tool_call_id: str | None = None
    called_by: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def filename(self) -> str:
        return f"{self.seq:06d}-{ROLE_CODES[self.role]}-{self.id}.json"

    @property
    def text(self) -> str:
        """The content as plain text (multimodal parts joined, tool calls summarised)."""
        parts: list[str] = []
        if isinstance(self.content, str):
            parts.append(self.content)
        elif isinstance(self.content, list):
            for part in self.content:
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    parts.append(part["text"])
                elif isinstance(part, str):
                    parts.append(part)
        for call in self.tool_calls or []:
            fn = call.get("function", {}) if isinstance(call, dict) else {}
            parts.append(f"[call {fn.get('name', '?')}({fn.get('arguments', '')})]")
        return "\n".join(p for p in parts if p)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_message(self) -> dict[str, Any]:
        """Render back into an OpenAI-style message dict."""
        msg: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.name is not None:
            msg["name"] = self.name
        if self.tool_calls is not None:
            msg["tool_calls"] = self.tool_calls
        if self.tool_call_id is not None:
            msg["tool_call_id"] = self.tool_call_id
        return msg

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Node:
        """Raises ``TypeError``/``ValueError`` for data that is not a node (readers skip it)."""
        known = cls.__dataclass_fields__
        node = cls(**{k: v for k, v in data.items() if k in known})
        # A stray or hand-edited file must not poison the index (seq ordering, file names).
        if not isinstance(node.id, str) or node.role not in ROLE_CODES or \
                not isinstance(node.seq, int) or isinstance(node.seq, bool):
            raise ValueError(f"not a DAG node: id={node.id!r} seq={node.seq!r} role={node.role!r}")
        return node


@dataclass(frozen=True)
class Provenance:
    """Where a derived record came from: exact DAG nodes and the commit that holds them."""

    project_id: str
    session_id: str
    node_ids: tuple[str, ...]
    commit: str | None
    event_time: float
    ingestion_time: float

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["node_ids"] = list(self.node_ids)
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Provenance:
        return cls(
            project_id=data.get("project_id", "default"),
            session_id=data["session_id"],
            node_ids=tuple(data.get("node_ids", ())),
            commit=data.get("commit"),
            event_time=float(data.get("event_time", 0.0)),
            ingestion_time=float(data.get("ingestion_time", 0.0)),
        )


@dataclass(frozen=True)
class SessionInfo:
    """A session as listed: its metadata and where it lives."""

    session_id: str
    title: str
    display_title: str
    project_id: str
    agent_id: str | None
    created_at: float
    updated_at: float
    turns: int
    path: str
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class CommitInfo:
    """One git commit (a session turn or a project commit)."""

    sha: str
    message: str
    author: str
    time: float
    node_ids: tuple[str, ...] = ()
    branch: str | None = None
    files: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["node_ids"] = list(self.node_ids)
        d["files"] = list(self.files)
        return d


@dataclass(frozen=True)
class TurnResult:
    """What ``commit_turn`` did."""

    session_id: str
    turn: int
    commit: str | None
    node_ids: tuple[str, ...]
    project_commit: str | None = None
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["node_ids"] = list(self.node_ids)
        d["warnings"] = list(self.warnings)
        return d


@dataclass(frozen=True)
class Project:
    """A registered project: a real directory with a git repository."""

    project_id: str
    name: str
    path: str
    created_at: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class NodeRecord:
    """A committed node as the distillation pipeline sees it (``iter_nodes_since``)."""

    session_id: str
    project_id: str
    agent_id: str | None
    node: Node
    commit: str
    turn: int

    @property
    def provenance(self) -> Provenance:
        return Provenance(
            project_id=self.project_id,
            session_id=self.session_id,
            node_ids=(self.node.id,),
            commit=self.commit,
            event_time=self.node.event_time,
            ingestion_time=self.node.ingestion_time,
        )
