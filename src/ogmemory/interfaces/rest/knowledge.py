"""The memory list and the distilled knowledge (seeds 000 and 003): memories, entities, facts,
the timeline and core.md. Each route calls one facade method."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Response

from .params import (
    PAGE_HEADERS,
    CursorQuery,
    EntityPath,
    LimitQuery,
    MemoryIdPath,
    page,
    parse_when,
)
from .routing import READ_ERRORS, WRITE_ERRORS
from .schemas import (
    CoreOut,
    EdgeOut,
    EntityOut,
    EvidenceOut,
    MemoryCreate,
    MemoryEdit,
    MemoryOut,
    NeighborsOut,
    TimelineEventOut,
)
from .tenants import MemoryDep

__all__ = ["router"]

router = APIRouter(prefix="/v1")

ScopeQuery = Annotated[
    str | None,
    Query(
        min_length=1,
        max_length=200,
        description="Only what is visible in this scope: `global`, "
        "`project:<id>` (global + that project) or `agent:<id>`. Default: every scope.",
    ),
]
TypeQuery = Annotated[str | None, Query(min_length=1, max_length=64, description="Only this type.")]
AtQuery = Annotated[
    str | None,
    Query(
        min_length=1,
        max_length=64,
        description="As of this time: ISO-8601 date or datetime "
        "(UTC unless it has an offset), or epoch seconds. Default: now.",
    ),
]


# ====================================================================== memory list


@router.get(
    "/memories",
    response_model=list[MemoryOut],
    responses={**READ_ERRORS, **PAGE_HEADERS},
    tags=["memories"],
    summary="List memories",
    description="The user-visible memory list, oldest first (deleted ones left out). "
    "Paged with `limit` and `cursor`.",
)
def list_memories(
    mem: MemoryDep,
    response: Response,
    type: TypeQuery = None,
    scope: ScopeQuery = None,
    include_disabled: Annotated[bool, Query(description="Also list disabled memories.")] = True,
    limit: LimitQuery = None,
    cursor: CursorQuery = None,
) -> list[dict[str, Any]]:
    items = mem.memories(include_disabled=include_disabled, type=type, scope=scope)
    return [
        m.to_dict()
        for m in page(response, items, limit, cursor, "memories", type, scope, include_disabled)
    ]


@router.post(
    "/memories",
    status_code=201,
    response_model=MemoryOut,
    responses=WRITE_ERRORS,
    tags=["memories"],
    summary="Remember something",
    description="Add a memory by hand. Its evidence snapshot is frozen now, and the "
    "facts it states are derived at once (supported by it).",
)
def remember(mem: MemoryDep, body: MemoryCreate) -> dict[str, Any]:
    return mem.remember(body.text, type=body.type, scope=body.scope).to_dict()


@router.get(
    "/memories/{memory_id}",
    response_model=MemoryOut,
    responses=READ_ERRORS,
    tags=["memories"],
    summary="Get a memory",
    description="One memory, at its current version.",
)
def get_memory(mem: MemoryDep, memory_id: MemoryIdPath) -> dict[str, Any]:
    return mem.get_memory(memory_id).to_dict()


@router.patch(
    "/memories/{memory_id}",
    response_model=MemoryOut,
    responses=WRITE_ERRORS,
    tags=["memories"],
    summary="Edit a memory",
    description="A new version of the memory's text (earlier versions and the "
    "evidence stay). With `expected_version`, a concurrent edit makes this a 409.",
)
def edit_memory(mem: MemoryDep, memory_id: MemoryIdPath, body: MemoryEdit) -> dict[str, Any]:
    return mem.edit_memory(memory_id, body.text, expected_version=body.expected_version).to_dict()


@router.delete(
    "/memories/{memory_id}",
    response_model=MemoryOut,
    responses=WRITE_ERRORS,
    tags=["memories"],
    summary="Forget a memory",
    description="Delete the memory from the list (a new, deleted version; history "
    "and evidence stay). Facts derived only from it disappear from every read. "
    "Answers with the deleted version.",
)
def forget(mem: MemoryDep, memory_id: MemoryIdPath) -> dict[str, Any]:
    return mem.forget(memory_id).to_dict()


@router.post(
    "/memories/{memory_id}/enable",
    response_model=MemoryOut,
    responses=WRITE_ERRORS,
    tags=["memories"],
    summary="Enable a memory",
    description="Make a disabled memory, and what was derived from it, visible again.",
)
def enable_memory(mem: MemoryDep, memory_id: MemoryIdPath) -> dict[str, Any]:
    return mem.enable_memory(memory_id).to_dict()


@router.post(
    "/memories/{memory_id}/disable",
    response_model=MemoryOut,
    responses=WRITE_ERRORS,
    tags=["memories"],
    summary="Disable a memory",
    description="Hide the memory and everything derived only from it from every read "
    "(recall included), without deleting anything.",
)
def disable_memory(mem: MemoryDep, memory_id: MemoryIdPath) -> dict[str, Any]:
    return mem.disable_memory(memory_id).to_dict()


@router.get(
    "/memories/{memory_id}/evidence",
    response_model=list[EvidenceOut],
    responses=READ_ERRORS,
    tags=["memories"],
    summary="Get a memory's evidence",
    description="The frozen evidence snapshots of a memory: what was said, and the DAG "
    "nodes and commit it was said in.",
)
def evidence(mem: MemoryDep, memory_id: MemoryIdPath) -> list[dict[str, Any]]:
    return [e.to_dict() for e in mem.evidence(memory_id)]


# ====================================================================== graph


@router.get(
    "/entities",
    response_model=list[EntityOut],
    responses={**READ_ERRORS, **PAGE_HEADERS},
    tags=["graph"],
    summary="List entities",
    description="Entities of the knowledge graph (people, tools, projects...) that some "
    "enabled memory supports, by id. Paged with `limit` and `cursor`.",
)
def list_entities(
    mem: MemoryDep,
    response: Response,
    type: TypeQuery = None,
    scope: ScopeQuery = None,
    limit: LimitQuery = None,
    cursor: CursorQuery = None,
) -> list[dict[str, Any]]:
    return [
        e.to_dict()
        for e in page(
            response, mem.entities(type=type, scope=scope), limit, cursor, "entities", type, scope
        )
    ]


@router.get(
    "/entities/{entity}",
    response_model=EntityOut,
    responses=READ_ERRORS,
    tags=["graph"],
    summary="Get an entity",
    description="One entity by id, name or alias (aliases resolve to the survivor).",
)
def get_entity(mem: MemoryDep, entity: EntityPath) -> dict[str, Any]:
    return mem.entity(entity).to_dict()


@router.get(
    "/entities/{entity}/neighbors",
    response_model=NeighborsOut,
    responses=READ_ERRORS,
    tags=["graph"],
    summary="Get an entity's neighbours",
    description="Entities and relations within `hops` of the entity, over relations "
    "valid now (or at `at`).",
)
def neighbors(
    mem: MemoryDep,
    entity: EntityPath,
    hops: Annotated[int, Query(ge=1, le=5, description="How far to walk.")] = 1,
    at: AtQuery = None,
    scope: ScopeQuery = None,
) -> dict[str, Any]:
    ents, edges = mem.graph_neighbors(entity, hops, scope=scope, at=parse_when(at, "at"))
    return {"entities": [e.to_dict() for e in ents], "edges": [e.to_dict() for e in edges]}


@router.get(
    "/facts",
    response_model=list[EdgeOut],
    responses={**READ_ERRORS, **PAGE_HEADERS},
    tags=["graph"],
    summary="List facts",
    description="Relations of the graph: those valid now (the core facts), those valid "
    "at `at`, or with `history` every version, ended and superseded included. Paged "
    "with `limit` and `cursor`.",
)
def facts(
    mem: MemoryDep,
    response: Response,
    entity: Annotated[
        str | None,
        Query(
            min_length=1,
            max_length=200,
            description="Only relations touching this entity (id, name or alias).",
        ),
    ] = None,
    at: AtQuery = None,
    history: Annotated[bool, Query(description="Every version, not only the valid ones.")] = False,
    relation: Annotated[
        str | None, Query(min_length=1, max_length=100, description="Only this relation.")
    ] = None,
    scope: ScopeQuery = None,
    limit: LimitQuery = None,
    cursor: CursorQuery = None,
) -> list[dict[str, Any]]:
    edges = mem.facts(
        entity=entity,
        at=parse_when(at, "at"),
        include_history=history,
        relation=relation,
        scope=scope,
    )
    return [
        e.to_dict()
        for e in page(response, edges, limit, cursor, "facts", entity, at, history, relation, scope)
    ]


@router.get(
    "/timeline",
    response_model=list[TimelineEventOut],
    responses={**READ_ERRORS, **PAGE_HEADERS},
    tags=["graph"],
    summary="Get the timeline",
    description="Events (work, decisions, learnings, events) in `[since, until)` by "
    "when they happened, oldest first. Paged with `limit` and `cursor`.",
)
def timeline(
    mem: MemoryDep,
    response: Response,
    since: Annotated[
        str | None,
        Query(
            min_length=1,
            max_length=64,
            description="From this time on (ISO-8601 date "
            "or datetime, UTC unless offset; or epoch "
            "seconds).",
        ),
    ] = None,
    until: Annotated[
        str | None,
        Query(
            min_length=1,
            max_length=64,
            description="Before this time; a date alone includes that whole day.",
        ),
    ] = None,
    entity: Annotated[
        str | None,
        Query(min_length=1, max_length=200, description="Only events about this entity."),
    ] = None,
    kind: Annotated[
        str | None,
        Query(
            min_length=1, max_length=32, description="`work`, `decision`, `learning` or `event`."
        ),
    ] = None,
    scope: ScopeQuery = None,
    include_superseded: Annotated[
        bool, Query(description="Also events replaced by a later version.")
    ] = False,
    limit: LimitQuery = None,
    cursor: CursorQuery = None,
) -> list[dict[str, Any]]:
    events = mem.timeline(
        parse_when(since, "since"),
        parse_when(until, "until", end_of_day=True),
        entity=entity,
        kind=kind,
        scope=scope,
        include_superseded=include_superseded,
    )
    return [
        e.to_dict()
        for e in page(
            response,
            events,
            limit,
            cursor,
            "timeline",
            since,
            until,
            entity,
            kind,
            scope,
            include_superseded,
        )
    ]


# ====================================================================== core.md


@router.get(
    "/core",
    response_model=CoreOut,
    responses=READ_ERRORS,
    tags=["graph"],
    summary="Get core.md",
    description="The always-injected summary (at most 2 KB, every line with a ↪ "
    "pointer): the last deep sleep's, or rendered now with `regenerate` or a `scope`. "
    "A temporary `session_id` gets an empty text.",
)
def core(
    mem: MemoryDep,
    regenerate: Annotated[bool, Query(description="Render it now.")] = False,
    scope: ScopeQuery = None,
    session_id: Annotated[
        str | None, Query(min_length=1, max_length=128, description="The conversation asking.")
    ] = None,
) -> dict[str, Any]:
    text = mem.core(scope=scope, regenerate=regenerate, session_id=session_id)
    return {"text": text, "bytes": len(text.encode())}
