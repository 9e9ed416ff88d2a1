"""Plain record types shared by the layers. Frozen dataclasses; stores take and return them."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from ..errors import InvalidInput

__all__ = [
    "DEFAULT_PROJECT",
    "CommitInfo",
    "ImportResult",
    "Node",
    "NodeRecord",
    "Pointer",
    "Project",
    "Provenance",
    "Role",
    "SessionInfo",
    "TurnResult",
    "parse_pointer",
    "pointer_to",
]

#: The project of sessions bound to no directory (a logical label, seed 001 §3.1).
DEFAULT_PROJECT = "default"

Role = Literal["user", "assistant", "tool"]


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
        if (
            not isinstance(node.id, str)
            or node.role not in ROLE_CODES
            or not isinstance(node.seq, int)
            or isinstance(node.seq, bool)
        ):
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

    @property
    def pointer(self) -> Pointer | None:
        """Where to open this evidence (a session's turns, else a project commit)."""
        return pointer_to(
            session_id=self.session_id, commit=self.commit, project_id=self.project_id
        )

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


@dataclass(frozen=True)
class ImportResult:
    """What an import recorded."""

    sessions_created: int
    sessions_skipped: int
    turns: int
    messages: int
    messages_skipped: int

    def to_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


PointerKind = Literal["session", "git", "memory"]
_POINTER = re.compile(
    r"^(?:↪\s*)?(session|git|memory):([A-Za-z0-9][A-Za-z0-9._-]*)(?:@([0-9a-f]{4,40}))?$"
)


@dataclass(frozen=True)
class Pointer:
    """Where evidence lives, as every view, recall item and tool names it (one grammar):
    ``session:<id>[@<commit7>]`` (turns of a session), ``git:<project>@<commit7>`` (a project
    commit with no session behind it) or ``memory:<id>`` (a memory the user wrote).

    >>> str(Pointer("session", "s1", "0123456789ab"))
    'session:s1@0123456'
    >>> parse_pointer("↪ git:proj_a@0123456")
    Pointer(kind='git', target='proj_a', commit='0123456')
    """

    kind: PointerKind
    target: str
    commit: str | None = None

    def __str__(self) -> str:
        return f"{self.kind}:{self.target}" + (f"@{self.commit[:7]}" if self.commit else "")

    @property
    def arrow(self) -> str:
        """The pointer as lines end with it: ``↪ session:<id>@<commit7>``."""
        return f"↪ {self}"


def pointer_to(
    *,
    session_id: str | None = None,
    commit: str | None = None,
    project_id: str | None = None,
    memory_id: str | None = None,
) -> Pointer | None:
    """The pointer to the most exact evidence given (``None`` when there is none)."""
    if session_id:
        return Pointer("session", session_id, commit or None)
    if commit and project_id:
        return Pointer("git", project_id, commit)
    if memory_id:
        return Pointer("memory", memory_id)
    return None


def parse_pointer(text: str) -> Pointer:
    """Read a pointer back (with or without the leading ``↪``)."""
    match = _POINTER.match(text.strip()) if isinstance(text, str) else None
    if match is None:
        raise InvalidInput(
            f"not a pointer: {text!r}; expected session:<id>[@<commit>], "
            "git:<project>@<commit> or memory:<id>"
        )
    kind, target, commit = match.groups()
    return Pointer(kind, target, commit)  # type: ignore[arg-type]
