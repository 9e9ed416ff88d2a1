"""``/v1/import``: upload an agent-history file (Claude Code, Codex CLI, aider).

The body is the file's bytes; ``name`` is its file name (it names the session, as on disk).
Uploading the same name again once the file grew records only what is new. One route, one
facade call (``Memory.import_upload``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Path, Query
from pydantic import BaseModel, Field

from ...errors import InvalidInput
from .routing import WRITE_ERRORS
from .tenants import MemoryDep

__all__ = ["MAX_UPLOAD", "router"]

router = APIRouter(prefix="/v1/import", tags=["import"])

#: Larger uploads are refused (import such files with ``ogmem import`` on the machine).
MAX_UPLOAD = 64 * 1024 * 1024


class IssueOut(BaseModel):
    path: str
    line: int | None = Field(description="1-based line number; null for the whole file")
    reason: str
    detail: str


class SessionOutcomeOut(BaseModel):
    session_id: str
    status: Literal["new", "updated", "unchanged"]
    turns: int
    messages: int


class FileOutcomeOut(BaseModel):
    path: str
    status: Literal["new", "updated", "unchanged", "empty", "skipped"]
    messages: int
    turns: int
    sessions: list[SessionOutcomeOut]
    left_out: dict[str, int]
    issues: list[IssueOut]


class ImportOut(BaseModel):
    format: str
    files: int
    sessions_new: int
    sessions_updated: int
    sessions_unchanged: int
    turns: int
    messages: int
    left_out: dict[str, int] = Field(description="Lines skipped on purpose, by reason")
    issues_by_reason: dict[str, int]
    issues: list[IssueOut] = Field(description="Lines or files that could not be read")
    file_results: list[FileOutcomeOut]


@router.post(
    "/{format}",
    response_model=ImportOut,
    responses=WRITE_ERRORS,
    summary="Upload an agent-history file",
    description="Import one Claude Code session file (`<session-uuid>.jsonl`, or a subagent's "
    "`agent-<id>.jsonl`), Codex CLI rollout (`rollout-*.jsonl`) or aider chat log "
    "(`.aider.chat.history.md`), sent as the request body. Uploading the same `name` again "
    "after the file grew records only the new lines; lines that cannot be read are reported "
    "and skipped. At most 64 MiB.",
)
def upload(
    mem: MemoryDep,
    format: Annotated[
        Literal["claude-code", "codex", "aider"], Path(description="claude-code, codex or aider")
    ],
    name: Annotated[
        str,
        Query(min_length=1, max_length=255, description="The file's name (it names the session)"),
    ],
    body: Annotated[bytes, Body(media_type="application/octet-stream")] = b"",
) -> dict[str, Any]:
    if len(body) > MAX_UPLOAD:
        raise InvalidInput(f"upload of {len(body)} bytes is larger than {MAX_UPLOAD} bytes")
    if "/" in name or "\\" in name or "\x00" in name:
        raise InvalidInput("name is a file name, not a path")
    return mem.import_upload(format, body, name=name).to_dict()
