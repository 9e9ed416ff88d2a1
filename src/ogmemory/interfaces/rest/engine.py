"""The context engine over HTTP: Claude Code hook events (so ``ogmem hook`` answers from a warm
server with the embedder loaded) and ``ogm://`` URI resolution."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi import Path as PathParam
from pydantic import BaseModel, ConfigDict, Field

from ...engine import ContextEngine, EngineConfig
from ...engine.claude_code import HOOK_EVENTS, handle_event
from ...errors import Conflict, InvalidInput
from ...memory import Memory
from .routing import READ_ERRORS, WRITE_ERRORS
from .tenants import MemoryDep

__all__ = ["router"]

router = APIRouter(prefix="/v1")
_LOCK = threading.Lock()


class HookIn(BaseModel):
    """One Claude Code hook event, as ``ogmem hook`` forwards it."""

    model_config = ConfigDict(extra="forbid")
    payload: dict[str, Any] = Field(
        description="The event's JSON exactly as Claude Code wrote it on the hook's stdin."
    )
    home: str | None = Field(
        None,
        max_length=4096,
        description="The state directory the hook "
        "was configured with; the server answers 409 if it serves another.",
    )
    account: str | None = Field(
        None,
        max_length=128,
        description="The hook's tenant account; 409 when the caller's tenant is another.",
    )
    space: str | None = Field(
        None,
        max_length=128,
        description="The hook's tenant space; 409 when the caller's tenant is another.",
    )


class HookOut(BaseModel):
    output: dict[str, Any] | None = Field(
        description="What the hook prints on stdout (null: nothing)."
    )


class ResolvedOut(BaseModel):
    model_config = ConfigDict(extra="allow")
    uri: str
    type: str
    title: str
    abstract: str
    overview: str
    content: dict[str, Any] | None = None
    links: list[str] = []


def _same_home(request: Request, home: str | None) -> bool:
    if home is None:
        return True
    served: Path = request.app.state.settings.home
    try:
        return Path(home).expanduser().resolve() == Path(served).expanduser().resolve()
    except (OSError, RuntimeError, ValueError):
        return False


@router.post(
    "/engine/claude-code/{event}",
    response_model=HookOut,
    responses=WRITE_ERRORS,
    tags=["engine"],
    summary="Apply a Claude Code hook event",
    description="Maps one hook event (SessionStart, UserPromptSubmit, PostToolUse, "
    "PostToolUseFailure, Stop, PreCompact, SessionEnd) onto the context engine of the "
    "caller's tenant and returns what the hook should print. 409 when the request names "
    "another state directory or tenant than this server's: the hook then works on its own.",
)
def claude_code_hook(
    request: Request,
    mem: MemoryDep,
    body: HookIn,
    event: Annotated[str, PathParam(description="The hook event name.")],
) -> dict[str, Any]:
    """One Claude Code hook event for the caller's tenant."""
    if event not in HOOK_EVENTS:
        raise InvalidInput(f"unknown hook event {event!r}; known: {', '.join(HOOK_EVENTS)}")
    if (
        not _same_home(request, body.home)
        or body.account not in (None, mem.tenant.account)
        or body.space not in (None, mem.tenant.space)
    ):
        raise Conflict("this server serves another state directory or tenant")
    payload = dict(body.payload)
    bind = "git"
    if request.app.state.keys.has_keys():
        # callers may be remote: never open a path they name (the hook reads the transcript
        # on its own machine), never register a directory of this machine as their project
        payload.pop("transcript_path", None)
        bind = "registered"
    return {"output": handle_event(_engine(request, mem, bind), event, payload)}


def _engine(request: Request, mem: Memory, bind: str) -> ContextEngine:
    """One engine per tenant memory (its core.md and token caches outlive a request)."""
    with _LOCK:
        engines: dict[tuple[int, str], ContextEngine] | None = getattr(
            request.app.state, "engines", None
        )
        if engines is None:
            engines = request.app.state.engines = {}
        engine = engines.get((id(mem), bind))
        if engine is None or engine.memory is not mem:
            engine = engines[(id(mem), bind)] = ContextEngine(mem, EngineConfig(bind_project=bind))
        return engine


@router.get(
    "/resolve",
    response_model=ResolvedOut,
    responses=READ_ERRORS,
    tags=["engine"],
    summary="Resolve an ogm:// URI",
    description="What `ogm://<type>/<id>` names in the caller's tenant (session, node "
    "(`ogm://node/<session>/<node>`), memory, event, fact, entity, archive, project): "
    "its L0 abstract, L1 overview and, with `level=2`, its L2 content.",
)
def resolve(
    mem: MemoryDep,
    uri: Annotated[str, Query(min_length=6, max_length=600, description="The URI.")],
    level: Annotated[int, Query(ge=0, le=2, description="0 abstract, 1 overview, 2 content.")] = 2,
) -> dict[str, Any]:
    """What an ogm:// URI names in the caller's tenant."""
    return mem.resolve_uri(uri, level=level).to_dict()
