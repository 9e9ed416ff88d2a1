"""Pydantic models at the edge: request bodies (strict) and response shapes (documented).

Responses mirror the records' ``to_dict()``; they allow extra keys, so a field added to a record
shows up without breaking clients. Times are epoch seconds (float) unless a field says otherwise.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

from ...entity.records import SessionInfo
from ...limits import find_invalid_text
from ...recall.config import BUDGET_DEFAULT, BUDGET_MAX, BUDGET_MIN
from ...tenancy import MAX_ID_LEN

__all__ = [
    "ID_PATTERN",
    "BatchOut",
    "CommitIn",
    "CommitOut",
    "CoreOut",
    "DistillReportOut",
    "EdgeOut",
    "EntityOut",
    "EvidenceOut",
    "HealthOut",
    "IdStr",
    "KeyCreate",
    "KeyCreatedOut",
    "KeyOut",
    "MemoryCreate",
    "MemoryEdit",
    "MemoryOut",
    "MessageIn",
    "NeighborsOut",
    "NodeOut",
    "RecallIn",
    "RecallOut",
    "RollbackIn",
    "SearchHitOut",
    "SessionCreate",
    "SessionOut",
    "SessionUpdate",
    "SleepIn",
    "TimelineEventOut",
    "TurnOut",
    "session_out",
]

#: What ``ogmemory.tenancy.validate_id`` accepts (it also refuses ``..``).
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"


#: An id as ``ogmemory.tenancy.validate_id`` accepts it (which also refuses ``..``).
IdStr = Annotated[str, StringConstraints(min_length=1, max_length=MAX_ID_LEN, pattern=ID_PATTERN)]


class _In(BaseModel):
    """A request body: unknown fields, coerced types (``"2000"`` for a number, ``"yes"`` for a
    boolean) and text that is not valid Unicode (a lone surrogate) are all a 422."""

    model_config = ConfigDict(extra="forbid", strict=True)

    @model_validator(mode="before")
    @classmethod
    def _valid_text(cls, data: Any) -> Any:
        where = find_invalid_text(data)
        if where is not None:
            raise ValueError(f"{where or 'body'}: not valid Unicode text (a lone surrogate)")
        return data


class _Out(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


# ====================================================================== requests


class SessionCreate(_In):
    session_id: IdStr | None = Field(
        default=None,
        description="The new session's id (letters, digits, `.`, `_`, `-`); "
        "generated when omitted.",
    )
    title: str | None = Field(
        default=None,
        max_length=200,
        description="A manual title (kept forever; otherwise one "
        "is derived from the first user message).",
    )
    agent_id: IdStr | None = Field(
        default=None, description="The agent this conversation belongs to."
    )
    model: str | None = Field(default=None, max_length=200, description="The model that answers.")
    temporary: bool = Field(
        default=False,
        description="A temporary conversation: it neither reads nor writes "
        "memory, is kept outside the state directory, and is erased by "
        "`POST /v1/sessions/{session_id}/end`.",
    )


class SessionUpdate(_In):
    title: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        description="A manual title (never replaced by automatic ones).",
    )
    agent_id: IdStr | None = Field(
        default=None, description="The agent this conversation belongs to."
    )
    model: str | None = Field(default=None, max_length=200, description="The model that answers.")


class MessageIn(_In):
    role: Literal["user", "assistant", "tool"] = Field(description="Who speaks.")
    content: str | list[dict[str, Any] | str] | None = Field(
        default=None,
        description="The text, or OpenAI-style content parts; may be null for an "
        "assistant message that only carries `tool_calls`.",
    )
    name: str | None = Field(default=None, max_length=200, description="Optional speaker name.")
    tool_calls: list[dict[str, Any]] | None = Field(
        default=None, description="Assistant only: OpenAI-style tool calls."
    )
    tool_call_id: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        description="Tool messages only: the call answered.",
    )
    event_time: float | str | None = Field(
        default=None, description="When it was said: epoch seconds or ISO-8601 (default: now)."
    )
    metadata: dict[str, Any] | None = Field(default=None, description="Anything to keep with it.")
    id: IdStr | None = Field(default=None, description="The node id (generated when omitted).")
    parent_id: IdStr | None = Field(
        default=None,
        description="The parent node (default: the current head); a different "
        "parent starts a branch.",
    )


class CommitIn(_In):
    message: str | None = Field(
        default=None,
        max_length=2000,
        description="Commit message (default `turn N: <user message>`).",
    )
    context: dict[str, Any] | None = Field(
        default=None, description="The context the model saw this turn, stored as the turn's view."
    )


class MemoryCreate(_In):
    text: str = Field(min_length=1, max_length=10_000, description="What to remember.")
    type: str | None = Field(
        default=None,
        min_length=1,
        max_length=64,
        description="A memory type declared in the YAML schemas (e.g. `profile`, "
        "`preference`, `config`); by default the type distillation gives the text "
        "(`note` when none).",
    )
    scope: str = Field(
        default="global",
        min_length=1,
        max_length=200,
        description="`global`, `project:<id>` or `agent:<id>`.",
    )


class MemoryEdit(_In):
    text: str = Field(min_length=1, max_length=10_000, description="The new text.")
    expected_version: int | None = Field(
        default=None,
        ge=1,
        description="Optimistic concurrency: fail with 409 unless the memory "
        "is still at this version.",
    )


class RecallIn(_In):
    query: str = Field(min_length=1, max_length=10_000, description="What to recall context for.")
    budget: int = Field(
        default=BUDGET_DEFAULT,
        ge=BUDGET_MIN,
        le=BUDGET_MAX,
        description="Token budget (o200k_base tokens).",
    )
    scope: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        description="`global`, `project:<id>` or `agent:<id>` (default: every scope).",
    )
    session_id: IdStr | None = Field(
        default=None, description="The conversation asking; a temporary session gets nothing."
    )
    at: str | None = Field(
        default=None,
        max_length=64,
        description="Recall as of this time (ISO-8601 date or datetime, or epoch seconds).",
    )
    recipe: Literal["default", "fulltext", "flat", "dialogue"] = Field(
        default="default",
        description="Retrieval recipe: `default` (hybrid, expanded), "
        "`fulltext` (no vectors), `flat` (no graph expansion), `dialogue` (the default's "
        "items as dialogue: a numbered header line each, the question a cited turn answers "
        "beside it).",
    )


class SleepIn(_In):
    mode: Literal["light", "deep"] = Field(
        default="light",
        description="`light`: distill pending turns; `deep`: light, then "
        "regenerate every entity view and core.md.",
    )


class RollbackIn(_In):
    force: bool = Field(
        default=False,
        description="Roll back even if later batches changed the "
        "same records (their changes are lost).",
    )


class KeyCreate(_In):
    account: IdStr = Field(description="The tenant account the key acts in.")
    space: IdStr = Field(description="The space within the account.")
    label: str = Field(
        default="", max_length=200, description="A note on who or what uses the key."
    )
    admin: bool = Field(default=False, description="An admin key may also manage keys.")


# ====================================================================== responses


class HealthOut(_Out):
    status: Literal["ok"] = Field(description="Always `ok` when the server answers.")
    version: str = Field(description="The ogmemory version.")
    auth: Literal["keys", "local"] = Field(
        description="`keys`: every request needs a key; `local`: no keys exist, the local "
        "default tenant is served on loopback only."
    )


class SessionOut(_Out):
    session_id: str
    title: str = Field(description="The title (manual, or derived from the first message).")
    display_title: str
    project_id: str
    agent_id: str | None
    model: str | None = None
    created_at: float
    updated_at: float
    turns: int = Field(description="Committed turns.")
    preview: str | None = Field(default=None, description="The start of the first user message.")
    head: str | None = Field(default=None, description="The node new messages attach to.")
    temporary: bool = Field(
        default=False, description="A temporary conversation (never remembered)."
    )


def session_out(info: SessionInfo) -> dict[str, Any]:
    """A session without server internals (its filesystem path and raw metadata)."""
    meta = info.meta
    return {
        "session_id": info.session_id,
        "title": info.title,
        "display_title": info.display_title,
        "project_id": info.project_id,
        "agent_id": info.agent_id,
        "model": meta.get("model"),
        "created_at": info.created_at,
        "updated_at": info.updated_at,
        "turns": info.turns,
        "preview": meta.get("preview"),
        "head": meta.get("head"),
        "temporary": bool(meta.get("temporary")),
    }


class NodeOut(_Out):
    id: str
    seq: int = Field(description="Write order within the session.")
    role: Literal["user", "assistant", "tool"]
    content: Any = None
    parent_id: str | None
    event_time: float
    ingestion_time: float
    name: str | None = None
    tool_calls: list[dict[str, Any]] | None = None
    tool_call_id: str | None = None
    called_by: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class TurnOut(_Out):
    session_id: str
    turn: int = Field(description="The turn number (unchanged when nothing was pending).")
    commit: str | None = Field(description="The git commit of the turn (null: nothing to commit).")
    node_ids: list[str]
    project_commit: str | None = None
    warnings: list[str] = Field(default_factory=list)


class CommitOut(_Out):
    sha: str
    message: str
    author: str
    time: float
    node_ids: list[str] = Field(default_factory=list)
    branch: str | None = None
    files: list[str] = Field(default_factory=list)


class ProvenanceOut(_Out):
    project_id: str
    session_id: str
    node_ids: list[str]
    commit: str | None
    event_time: float
    ingestion_time: float


class MemoryOut(_Out):
    id: str
    text: str
    type: str
    enabled: bool
    deleted: bool
    version: int
    source: str = Field(description="`user` (added by hand) or `distilled`.")
    scope: str
    created_at: float
    updated_at: float
    evidence_ids: list[str]
    importance: float
    language: str
    attrs: dict[str, Any] = Field(default_factory=dict)


class EvidenceOut(_Out):
    id: str
    memory_id: str
    quote: str = Field(description="What was said, frozen when the memory was created.")
    provenance: ProvenanceOut | None
    created_at: float


class EntityOut(_Out):
    id: str = Field(description="`<type>.<slug>`, e.g. `tool.postgresql`.")
    type: str
    name: str
    aliases: list[str] = Field(default_factory=list)
    attrs: dict[str, Any] = Field(default_factory=dict)
    scope: str
    support: list[str] = Field(default_factory=list, description="Memories supporting it.")
    ingestion_time: float
    merged_into: str | None = None


class EdgeOut(_Out):
    id: str
    src: str = Field(alias="from", description="Source entity id.")
    dst: str = Field(alias="to", description="Target entity id.")
    relation: str
    fact: str
    provenance: ProvenanceOut
    event_time: float
    ingestion_time: float
    valid_from: float
    valid_to: float | None = Field(default=None, description="Null while the relation holds.")
    confidence: float
    scope: str
    superseded_by: str | None = None
    slot: str | None = None
    support: list[str] = Field(default_factory=list)
    language: str


class NeighborsOut(_Out):
    entities: list[EntityOut]
    edges: list[EdgeOut]


class TimelineEventOut(_Out):
    id: str
    summary: str
    kind: str = Field(description="`work`, `decision`, `learning` or `event`.")
    provenance: ProvenanceOut
    event_time: float
    ingestion_time: float
    entities: list[str] = Field(default_factory=list)
    superseded_by: str | None = None
    scope: str
    importance: float
    support: list[str] = Field(default_factory=list)
    language: str
    attrs: dict[str, Any] = Field(default_factory=dict)


class CoreOut(_Out):
    text: str = Field(description="core.md (at most 2 KB); empty for a temporary session.")
    bytes: int = Field(description="Its size in UTF-8 bytes.")


class RecallItemOut(_Out):
    text: str
    kind: str
    score: float
    cites: list[str] = Field(description="DAG node ids this item cites.")
    node_ids: list[str]
    session_id: str | None
    commit: str | None
    event_time: float | None
    doc_ids: list[str]
    tokens: int
    context_ids: list[str] = Field(
        default_factory=list,
        description="Nodes shown beside the cited ones to make them readable (the question a "
        "cited turn answers, the reply to a cited question); not what the item rests on.",
    )
    pointer: str = Field(description="`↪ session:<id>@<commit7>`, or empty.")


class RecallOut(_Out):
    query: str
    items: list[RecallItemOut] = Field(description="At most 20 items within the budget.")
    tokens: int
    budget: int
    fallback: bool = Field(description="True when the deterministic 'latest items' answered.")
    reason: str | None = None
    stats: dict[str, Any] = Field(default_factory=dict)
    context: str = Field(
        default="",
        description="The items as one text block for a prompt: each item's text and its "
        "pointer, one after another (an item of turns: one turn per line, `[<day>] Speaker: "
        "text`, the pointer after the last); with the recipe `dialogue`, numbered and a blank "
        "line apart, an item of turns opening with a header line `[n] <day> ↪ session:<id>@"
        "<commit>`.",
    )


class SearchHitOut(_Out):
    id: str
    kind: str
    level: int
    text: str
    score: float
    session_id: str | None
    node_ids: list[str]
    cites: list[str]
    commit: str | None
    event_time: float | None


class DistillReportOut(_Out):
    batches: list[str] = Field(description="Ids of the batches written.")
    nodes: int
    project_commits: int
    candidates: int
    stats: dict[str, Any] = Field(default_factory=dict)
    seconds: float


class BatchOut(_Out):
    id: str
    time: float
    reason: str
    ops: int = Field(description="How many records the batch changed.")
    by_kind: dict[str, int] = Field(default_factory=dict)
    rolled_back_by: str | None = None


class KeyOut(_Out):
    key_id: str
    account: str
    space: str
    label: str
    created_at: float
    admin: bool
    revoked: bool
    revoked_at: float | None = None


class KeyCreatedOut(KeyOut):
    token: str = Field(description="The secret: shown only in this response, stored hashed.")
