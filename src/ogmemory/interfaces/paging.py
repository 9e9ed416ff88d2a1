"""Pages of a list for the MCP tools and the REST lists: ``limit`` items at a time, and an
opaque cursor that continues where a page ended.

A cursor is ``p1.<offset>.<key>`` in URL-safe base64: the offset of the next item and a short
hash of the list's other arguments (the query, filters...), so a cursor is only accepted by the
same list it came from. Anything else is an ``InvalidInput`` naming the cursor.

>>> page = paginate(list(range(5)), limit=2, key="k")
>>> page.items, page.offset
([0, 1], 0)
>>> paginate(list(range(5)), limit=2, cursor=page.next_cursor, key="k").items
[2, 3]
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from ..errors import InvalidInput

__all__ = ["MAX_CURSOR_LEN", "Page", "cursor_key", "decode_cursor", "encode_cursor", "paginate"]

T = TypeVar("T")

#: Cursors are short; anything longer is refused before decoding.
MAX_CURSOR_LEN = 200
_PREFIX = "p1"


def cursor_key(*parts: object) -> str:
    """A short hash of a list's arguments: a cursor made for one list fails on another."""
    raw = json.dumps(parts, ensure_ascii=False, sort_keys=True, default=str)
    return hashlib.sha256(raw.encode()).hexdigest()[:10]


def encode_cursor(offset: int, key: str) -> str:
    """The opaque cursor that resumes the list named by ``key`` at ``offset``."""
    raw = f"{_PREFIX}.{offset}.{key}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str, key: str) -> int:
    """The offset a cursor resumes at; ``InvalidInput`` unless it came from this same list."""
    bad = InvalidInput(
        f"invalid cursor {cursor[:40]!r}: pass the cursor exactly as the "
        "previous page returned it, with the same other arguments"
    )
    if not cursor or len(cursor) > MAX_CURSOR_LEN:
        raise bad
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise bad from None
    prefix, _, rest = raw.partition(".")
    offset, _, got_key = rest.partition(".")
    if prefix != _PREFIX or not offset.isdigit() or got_key != key:
        raise bad
    return int(offset)


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page: its items, where it starts, how many there are in all (when known) and the
    cursor for the next page (``None`` on the last)."""

    items: list[T]
    offset: int
    next_cursor: str | None
    total: int | None = None


def paginate(
    items: Sequence[T], *, limit: int, cursor: str | None = None, key: str = ""
) -> Page[T]:
    """The page of ``items`` a cursor (or the start) names, at most ``limit`` long."""
    offset = 0 if cursor is None else decode_cursor(cursor, key)
    end = offset + limit
    chunk = list(items[offset:end])
    more = end < len(items)
    return Page(chunk, offset, encode_cursor(end, key) if more else None, len(items))
