"""The path parameters shared by routes; times in URLs go through the one ``parse_when``; the
``limit`` and ``cursor`` of list routes, whose next cursor is the ``X-Next-Cursor`` header."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, TypeVar

from fastapi import Path, Query, Response

from ...entity.times import parse_when
from ...tenancy import MAX_ID_LEN
from ..paging import MAX_CURSOR_LEN, cursor_key, paginate
from .schemas import ID_PATTERN

T = TypeVar("T")

__all__ = [
    "NEXT_CURSOR",
    "PAGE_HEADERS",
    "BatchIdPath",
    "CursorQuery",
    "EntityPath",
    "KeyIdPath",
    "LimitQuery",
    "MemoryIdPath",
    "ScopeQuery",
    "SessionIdPath",
    "page",
    "parse_when",
]

#: The response header naming the cursor of the next page (absent on the last page).
NEXT_CURSOR = "X-Next-Cursor"
#: Page size when a cursor is given without a limit.
PAGE_DEFAULT = 100
PAGE_MAX = 1000

LimitQuery = Annotated[
    int | None,
    Query(
        ge=1,
        le=PAGE_MAX,
        description="At most this many items (default: all; with a `cursor`: "
        f"{PAGE_DEFAULT}). When more follow, the `{NEXT_CURSOR}` header holds the cursor.",
    ),
]
#: A scope filter of read routes (absent: every scope the key may read).
ScopeQuery = Annotated[
    str | None,
    Query(
        min_length=1,
        max_length=200,
        description="`global`, `project:<id>` or `agent:<id>` (default: every scope).",
    ),
]
CursorQuery = Annotated[
    str | None,
    Query(
        min_length=1,
        max_length=MAX_CURSOR_LEN,
        description=f"The `{NEXT_CURSOR}` of the previous "
        "page, to continue the same list (same other parameters).",
    ),
]
#: For the OpenAPI spec of list routes: the headers a page answers with.
PAGE_HEADERS: dict[int | str, dict[str, Any]] = {
    200: {
        "headers": {
            NEXT_CURSOR: {
                "description": "The cursor of the next page; absent on the last page.",
                "schema": {"type": "string"},
            },
            "X-Total-Count": {
                "description": "How many items the whole list holds (when paged).",
                "schema": {"type": "integer"},
            },
        }
    }
}


def page(
    response: Response, items: Sequence[T], limit: int | None, cursor: str | None, *key: object
) -> list[T]:
    """The page of ``items`` that ``limit`` and ``cursor`` select (all of them when neither is
    given); the next cursor and the total go into the response headers."""
    if limit is None and cursor is None:
        return list(items)
    found = paginate(items, limit=limit or PAGE_DEFAULT, cursor=cursor, key=cursor_key(*key))
    if found.next_cursor is not None:
        response.headers[NEXT_CURSOR] = found.next_cursor
    response.headers["X-Total-Count"] = str(found.total)
    return found.items


SessionIdPath = Annotated[
    str,
    Path(min_length=1, max_length=MAX_ID_LEN, pattern=ID_PATTERN, description="The session id."),
]
MemoryIdPath = Annotated[
    str, Path(min_length=1, max_length=200, description="The memory id (`m_...`).")
]
EntityPath = Annotated[
    str,
    Path(
        min_length=1, max_length=200, description="An entity id (`tool.postgresql`), name or alias."
    ),
]
BatchIdPath = Annotated[
    str,
    Path(min_length=1, max_length=200, description="The batch id, as listed by `GET /v1/batches`."),
]
KeyIdPath = Annotated[str, Path(min_length=1, max_length=200, description="The key id (`k_...`).")]
