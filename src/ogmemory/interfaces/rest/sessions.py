"""``/v1/sessions``: conversations as git-backed DAGs (seed 001). Each route calls one facade
method."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Query, Response

from .params import PAGE_HEADERS, CursorQuery, LimitQuery, SessionIdPath, page
from .routing import READ_ERRORS, WRITE_ERRORS
from .schemas import (
    CommitIn,
    CommitOut,
    MessageIn,
    NodeOut,
    SessionCreate,
    SessionOut,
    SessionUpdate,
    TurnOut,
    session_out,
)
from .tenants import MemoryDep

__all__ = ["router"]

router = APIRouter(prefix="/v1/sessions", tags=["sessions"])


@router.get(
    "",
    response_model=list[SessionOut],
    responses={**READ_ERRORS, **PAGE_HEADERS},
    summary="List sessions",
    description="Every session of the caller's tenant, most recently active first "
    "(imported history by when it happened). Temporary sessions are not listed. Paged "
    "with `limit` and `cursor`.",
)
def list_sessions(
    mem: MemoryDep, response: Response, limit: LimitQuery = None, cursor: CursorQuery = None
) -> list[dict[str, Any]]:
    return [session_out(s) for s in page(response, mem.list_sessions(), limit, cursor, "sessions")]


@router.post(
    "",
    status_code=201,
    response_model=SessionOut,
    responses=WRITE_ERRORS,
    summary="Create a session",
    description="Create a session explicitly (appending a message also creates one). "
    "With `temporary: true` the conversation neither reads nor writes memory: it is "
    "kept outside the state directory and erased by `POST .../end`. An existing id "
    "is a 409.",
)
def create_session(
    mem: MemoryDep, body: Annotated[SessionCreate | None, Body()] = None
) -> dict[str, Any]:
    b = body or SessionCreate()
    return session_out(
        mem.create_session(
            b.session_id, agent_id=b.agent_id, title=b.title, model=b.model, temporary=b.temporary
        )
    )


@router.get(
    "/{session_id}",
    response_model=SessionOut,
    responses=READ_ERRORS,
    summary="Get a session",
    description="One session's metadata: title, turns, head.",
)
def get_session(mem: MemoryDep, session_id: SessionIdPath) -> dict[str, Any]:
    return session_out(mem.get_session(session_id))


@router.patch(
    "/{session_id}",
    response_model=SessionOut,
    responses=WRITE_ERRORS,
    summary="Rename or update a session",
    description="Change the title (a manual title is never replaced by automatic "
    "ones), the agent id or the model. Fields left out are unchanged.",
)
def update_session(
    mem: MemoryDep, session_id: SessionIdPath, body: SessionUpdate
) -> dict[str, Any]:
    return session_out(mem.update_session(session_id, **body.model_dump(exclude_none=True)))


@router.delete(
    "/{session_id}",
    status_code=204,
    response_class=Response,
    responses=WRITE_ERRORS,
    summary="Delete a session",
    description="Remove the session and its git history. What was distilled from "
    "it stays, with pointers that no longer resolve.",
)
def delete_session(mem: MemoryDep, session_id: SessionIdPath) -> Response:
    mem.delete_session(session_id)
    return Response(status_code=204)


@router.post(
    "/{session_id}/messages",
    status_code=201,
    response_model=NodeOut,
    responses=WRITE_ERRORS,
    summary="Append a message",
    description="Write one OpenAI-style message as a DAG node, durably, before "
    "answering. Creates the session on first use. The message stays pending until "
    "`POST .../commit` ends the turn.",
)
def append_message(mem: MemoryDep, session_id: SessionIdPath, body: MessageIn) -> dict[str, Any]:
    return mem.append_message(session_id, body.model_dump(exclude_none=True)).to_dict()


@router.post(
    "/{session_id}/commit",
    response_model=TurnOut,
    responses=WRITE_ERRORS,
    summary="Commit the turn",
    description="End the turn: one git commit holding every message appended since "
    "the last one (nothing pending answers with `commit: null` and a warning). "
    "Normal sessions are then distilled in the background.",
)
def commit_turn(
    mem: MemoryDep, session_id: SessionIdPath, body: Annotated[CommitIn | None, Body()] = None
) -> dict[str, Any]:
    b = body or CommitIn()
    return mem.commit_turn(session_id, b.message, context=b.context).to_dict()


@router.get(
    "/{session_id}/branch",
    response_model=list[NodeOut],
    responses=READ_ERRORS,
    summary="Get the conversation branch",
    description="The messages from the root to `head` (default: the current head).",
)
def get_branch(
    mem: MemoryDep,
    session_id: SessionIdPath,
    head: Annotated[
        str | None, Query(min_length=1, max_length=128, description="A node id to end at.")
    ] = None,
) -> list[dict[str, Any]]:
    return [n.to_dict() for n in mem.get_branch_nodes(session_id, head)]


@router.get(
    "/{session_id}/nodes",
    response_model=list[NodeOut],
    responses={**READ_ERRORS, **PAGE_HEADERS},
    summary="List every node",
    description="Every node of the session, on every branch, tool calls included, in "
    "write order. Paged with `limit` and `cursor`.",
)
def get_nodes(
    mem: MemoryDep,
    session_id: SessionIdPath,
    response: Response,
    limit: LimitQuery = None,
    cursor: CursorQuery = None,
) -> list[dict[str, Any]]:
    return [
        n.to_dict()
        for n in page(response, mem.get_nodes(session_id), limit, cursor, "nodes", session_id)
    ]


@router.get(
    "/{session_id}/log",
    response_model=list[CommitOut],
    responses=READ_ERRORS,
    summary="Get the turn log",
    description="The session's turn commits (its git log), newest first.",
)
def session_log(
    mem: MemoryDep,
    session_id: SessionIdPath,
    branch: Annotated[
        str | None, Query(min_length=1, max_length=200, description="A branch (default: current).")
    ] = None,
    limit: Annotated[
        int | None, Query(ge=1, le=10_000, description="At most this many commits.")
    ] = None,
) -> list[dict[str, Any]]:
    return [c.to_dict() for c in mem.session_commits(session_id, branch, limit)]


@router.post(
    "/{session_id}/end",
    status_code=204,
    response_class=Response,
    responses=WRITE_ERRORS,
    summary="End a session",
    description="The conversation is over. A temporary session is erased with "
    "everything it held; a normal one is distilled now.",
)
def end_session(mem: MemoryDep, session_id: SessionIdPath) -> Response:
    mem.end_session(session_id)
    return Response(status_code=204)
