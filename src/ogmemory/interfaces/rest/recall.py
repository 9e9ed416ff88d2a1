"""Recall and search (seed 003 §检索), and the consolidation that feeds them: sleep, the
operation log, rollback. Each route calls one facade method."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Query, Response
from pydantic import TypeAdapter

from ..paging import cursor_key, decode_cursor, encode_cursor
from .params import NEXT_CURSOR, PAGE_HEADERS, BatchIdPath, CursorQuery, ScopeQuery, parse_when
from .routing import READ_ERRORS, WRITE_ERRORS
from .schemas import (
    BatchOut,
    DistillReportOut,
    RecallIn,
    RecallOut,
    RollbackIn,
    SearchHitOut,
    SleepIn,
)
from .tenants import MemoryDep

__all__ = ["router"]

router = APIRouter(prefix="/v1")

#: How many search hits can be reached by paging.
SEARCH_MAX = 100

_RECALL_OUT = TypeAdapter(RecallOut)


@router.post(
    "/recall",
    response_model=RecallOut,
    responses=READ_ERRORS,
    tags=["recall"],
    summary="Recall context",
    description="Bounded context for a query: at most 30 candidates, 1-hop graph "
    "expansion, rerank by relevance × recency × importance, then at most 20 items "
    "within `budget` tokens, each with its provenance. When the index fails the "
    "deterministic latest items answer (`fallback: true`). A temporary `session_id` "
    "gets no items: memory is not read. `context` is the items as one text block, "
    "each with its `↪ session:<id>@<commit>` pointer: what to put in a prompt.",
)
def recall(mem: MemoryDep, body: RecallIn) -> Response:
    result = mem.recall(
        body.query,
        budget=body.budget,
        scope=body.scope,
        at=parse_when(body.at, "at"),
        recipe=body.recipe,
        session_id=body.session_id,
    )
    # Validated and serialised here, in the worker thread, as FastAPI would (response_model):
    # a sync route's returned dict is validated in another trip through the thread pool.
    out = _RECALL_OUT.validate_python(
        {**result.to_dict(), "context": result.as_context()}, from_attributes=True
    )
    return Response(_RECALL_OUT.dump_json(out, by_alias=True), media_type="application/json")


@router.get(
    "/search",
    response_model=list[SearchHitOut],
    responses={**READ_ERRORS, **PAGE_HEADERS},
    tags=["recall"],
    summary="Search everything",
    description="Hybrid full-text and vector search over memories, facts, events, "
    "entities, session summaries and turns, one hit per record; each hit says where it "
    "came from. Paged with `limit` and `cursor` (the first 100 hits can be reached).",
)
def search(
    mem: MemoryDep,
    response: Response,
    q: Annotated[str, Query(min_length=1, max_length=2000, description="The query.")],
    limit: Annotated[int, Query(ge=1, le=100, description="At most this many hits.")] = 10,
    scope: ScopeQuery = None,
    kind: Annotated[
        list[str] | None,
        Query(
            description="Only these kinds (`memory`, "
            "`fact`, `event`, `entity`, `session`, "
            "`turn`); repeatable."
        ),
    ] = None,
    cursor: CursorQuery = None,
) -> list[dict[str, Any]]:
    key = cursor_key("search", q, scope, sorted(kind or []))
    offset = 0 if cursor is None else decode_cursor(cursor, key)
    want = min(SEARCH_MAX, offset + limit + 1)
    hits = mem.search(q, limit=want, scope=scope, kinds=kind or None) if offset < want else []
    if offset + limit < min(len(hits), SEARCH_MAX):
        response.headers[NEXT_CURSOR] = encode_cursor(offset + limit, key)
    return [h.to_dict() for h in hits[offset : offset + limit]]


@router.post(
    "/sleep",
    response_model=DistillReportOut,
    responses=WRITE_ERRORS,
    tags=["consolidation"],
    summary="Consolidate (sleep)",
    description="Run the distillation now: `light` distills every pending turn in "
    "bounded, resumable batches; `deep` also regenerates the entity views and "
    "core.md. Every batch is written to the operation log and can be rolled back.",
)
def sleep(mem: MemoryDep, body: Annotated[SleepIn | None, Body()] = None) -> dict[str, Any]:
    return mem.sleep((body or SleepIn()).mode).to_dict()


@router.get(
    "/batches",
    response_model=list[BatchOut],
    responses=READ_ERRORS,
    tags=["consolidation"],
    summary="List batches",
    description="The operation log: every committed batch of changes to the knowledge "
    "(distillation, memory edits, rollbacks), oldest first.",
)
def list_batches(mem: MemoryDep) -> list[dict[str, Any]]:
    return [b.to_dict() for b in mem.batches()]


@router.get(
    "/batches/{batch_id}",
    response_model=BatchOut,
    responses=READ_ERRORS,
    tags=["consolidation"],
    summary="Get a batch",
    description="One batch of the operation log, with how many records of each kind it changed.",
)
def get_batch(mem: MemoryDep, batch_id: BatchIdPath) -> dict[str, Any]:
    return mem.batch(batch_id).to_dict()


@router.post(
    "/batches/{batch_id}/rollback",
    response_model=BatchOut,
    responses=WRITE_ERRORS,
    tags=["consolidation"],
    summary="Roll a batch back",
    description="Undo a batch atomically by appending its before-states (history is "
    "kept). A 409 when it was already rolled back, or when a later batch changed the "
    "same records (unless `force`). Answers with the rollback batch.",
)
def rollback(
    mem: MemoryDep, batch_id: BatchIdPath, body: Annotated[RollbackIn | None, Body()] = None
) -> dict[str, Any]:
    return mem.rollback(batch_id, force=(body or RollbackIn()).force).to_dict()
