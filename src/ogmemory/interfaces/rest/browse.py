"""Reads for browsing memory (what the web UI shows): a memory's versions, a batch's changes, the
graph as of a date, an entity's page, a session's branches and the declared memory types. Each
route calls one facade method."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, ConfigDict, Field

from .params import BatchIdPath, EntityPath, MemoryIdPath, ScopeQuery, SessionIdPath, parse_when
from .routing import READ_ERRORS
from .schemas import BatchOut, EdgeOut, EntityOut
from .tenants import CallerKey, MemoryDep

__all__ = ["router"]

router = APIRouter(prefix="/v1")


class _Out(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class WhoamiOut(_Out):
    account: str = Field(description="The tenant's account.")
    space: str = Field(description="The tenant's space.")
    key_id: str | None = Field(description="The key used (null in local mode).")
    admin: bool = Field(description="Whether the key may manage keys (true in local mode).")
    auth: str = Field(description="`keys` or `local` (no keys exist; loopback only).")


class MemoryVersionOut(_Out):
    batch_id: str = Field(description="The batch of the operation log that made the change.")
    time: float = Field(description="When the batch was committed.")
    reason: str = Field(
        description="Why: `memory add`, `memory edit`, `distill (rules)`, `rollback <batch>`..."
    )
    version: int | None = Field(description="The version after the change (null: removed).")
    before: dict[str, Any] | None = Field(description="The memory before (null: created here).")
    after: dict[str, Any] | None = Field(description="The memory after (null: removed here).")
    changed: list[str] = Field(description="Fields whose value changed.")
    rollback_of: str | None = Field(
        default=None, description="Set when the change rolled that batch back."
    )
    rolled_back_by: str | None = Field(
        default=None, description="Set when a later batch undid this change."
    )


class ChangeOut(_Out):
    kind: str = Field(description="`memory`, `evidence`, `entity`, `edge`, `event`...")
    id: str
    before: dict[str, Any] | None = Field(description="The record before (null: created).")
    after: dict[str, Any] | None = Field(description="The record after (null: removed).")


class BatchChangesOut(_Out):
    batch: BatchOut
    total: int = Field(description="How many records the batch changed.")
    offset: int
    changes: list[ChangeOut] = Field(description="The changes from `offset`, at most `limit`.")


class GraphEntityOut(EntityOut):
    first_seen: float | None = Field(
        default=None, description="When the entity became known: its earliest mention or relation."
    )


class GraphOut(_Out):
    at: float | None = Field(description="The time asked for (null: now).")
    start: float | None = Field(description="The earliest time the graph knows of.")
    end: float | None = Field(description="The latest time a relation began or ended.")
    entities: list[GraphEntityOut]
    edges: list[EdgeOut]


class EntityViewOut(_Out):
    entity: str = Field(description="The entity asked for.")
    markdown: str = Field(description="Its page: aliases, relations now and before, timeline.")


class MemoryTypeOut(_Out):
    name: str
    description: str
    lifecycle: str = Field(description="`append_only` or `mutable`.")
    entity_type: str
    relations: list[str]
    timeline_kind: str | None
    importance: float
    scope: str


@router.get(
    "/whoami",
    response_model=WhoamiOut,
    responses=READ_ERRORS,
    tags=["health"],
    summary="Who am I",
    description="The tenant the caller's key selects (the local tenant without keys).",
)
def whoami(request: Request, key: CallerKey) -> dict[str, Any]:
    if key is None:
        settings = request.app.state.pool.settings
        return {
            "account": settings.account,
            "space": settings.space,
            "key_id": None,
            "admin": True,
            "auth": "local",
        }
    return {
        "account": key.account,
        "space": key.space,
        "key_id": key.key_id,
        "admin": key.admin,
        "auth": "keys",
    }


@router.get(
    "/memories/{memory_id}/versions",
    response_model=list[MemoryVersionOut],
    responses=READ_ERRORS,
    tags=["memories"],
    summary="Get a memory's versions",
    description="Every change of the memory, oldest first: creation, edits, enabling, "
    "disabling, rollbacks; each with the state before and after, from the operation "
    "log.",
)
def memory_versions(mem: MemoryDep, memory_id: MemoryIdPath) -> list[dict[str, Any]]:
    return [v.to_dict() for v in mem.memory_versions(memory_id)]


@router.get(
    "/memory-types",
    response_model=list[MemoryTypeOut],
    responses=READ_ERRORS,
    tags=["memories"],
    summary="List memory types",
    description="The memory types declared in YAML, by name.",
)
def memory_types(mem: MemoryDep) -> list[dict[str, Any]]:
    return [
        {
            "name": t.name,
            "description": t.description,
            "lifecycle": t.lifecycle,
            "entity_type": t.entity_type,
            "relations": list(t.relations),
            "timeline_kind": t.timeline_kind,
            "importance": t.importance,
            "scope": t.scope,
        }
        for t in mem.memory_types()
    ]


@router.get(
    "/batches/{batch_id}/changes",
    response_model=BatchChangesOut,
    responses=READ_ERRORS,
    tags=["consolidation"],
    summary="Get a batch's changes",
    description="What a batch of the operation log changed: every record before and "
    "after, in the order written.",
)
def batch_changes(
    mem: MemoryDep,
    batch_id: BatchIdPath,
    offset: Annotated[int, Query(ge=0, le=10_000_000, description="Skip this many changes.")] = 0,
    limit: Annotated[int, Query(ge=1, le=1000, description="At most this many.")] = 200,
) -> dict[str, Any]:
    info = mem.batch(batch_id)
    ops = info.ops[offset : offset + limit]
    return {
        "batch": info.to_dict(),
        "total": len(info.ops),
        "offset": offset,
        "changes": [
            {"kind": op.kind, "id": op.id, "before": op.before, "after": op.after} for op in ops
        ],
    }


@router.get(
    "/graph",
    response_model=GraphOut,
    responses=READ_ERRORS,
    tags=["graph"],
    summary="Get the graph as of a time",
    description="Entities known at `at` and the relations valid then (default: now, "
    "the current relations), with the time range the graph spans.",
)
def graph(
    mem: MemoryDep,
    at: Annotated[
        str | None,
        Query(
            min_length=1,
            max_length=64,
            description="As of this time: ISO-8601 date or "
            "datetime (UTC unless it has an offset), or epoch seconds.",
        ),
    ] = None,
    scope: ScopeQuery = None,
) -> dict[str, Any]:
    return mem.graph_at(parse_when(at, "at"), scope=scope).to_dict()


@router.get(
    "/entities/{entity}/view",
    response_model=EntityViewOut,
    responses=READ_ERRORS,
    tags=["graph"],
    summary="Get an entity's page",
    description="The entity's readable page (markdown), rendered now.",
)
def entity_view(mem: MemoryDep, entity: EntityPath) -> dict[str, Any]:
    return {"entity": entity, "markdown": mem.entity_view(entity)}


@router.get(
    "/sessions/{session_id}/branches",
    response_model=list[str],
    responses=READ_ERRORS,
    tags=["sessions"],
    summary="List a session's branches",
    description="The git branches of the session: `main`, and `retry-<assistant id>` "
    "for each retry.",
)
def branches(mem: MemoryDep, session_id: SessionIdPath) -> list[str]:
    return mem.branches(session_id)
