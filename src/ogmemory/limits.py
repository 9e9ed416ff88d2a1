"""What ogmemory accepts from outside, beside the time range (``entity.times``): sizes and
valid text. Every interface (Python facade, CLI, REST, MCP) checks input against them before
anything is written, so one bad value can never poison a tenant:

- **Text** must be valid Unicode: a lone surrogate (``"\\ud800"``, which JSON can spell but
  UTF-8 cannot store) anywhere in a message, its metadata keys, tool calls or content parts,
  a title, a memory or a commit context is refused.
- **Sizes**: a REST or MCP request body is at most ``Settings.max_body_bytes``
  (``MAX_BODY_BYTES`` = 4 MiB by default; larger ones get HTTP 413). A message of any length
  that fits is stored whole; the index holds the first ``INDEX_MAX_CHARS`` characters of it,
  and tokens are counted in chunks of ``TOKEN_CHUNK_CHARS`` characters, so a long message can
  never break search or recall.

>>> find_invalid_text({"metadata": {"k\\ud800": 1}})
'metadata: key'
>>> bounded_text("abcdef", 3)
'abc … [3 more characters in the message]'
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .errors import InvalidInput

__all__ = [
    "INDEX_MAX_CHARS",
    "MAX_BODY_BYTES",
    "TOKEN_CHUNK_CHARS",
    "bounded_text",
    "check_text",
    "find_invalid_text",
    "text_chunks",
]

#: Default limit of one REST or MCP request body (``Settings.max_body_bytes``).
MAX_BODY_BYTES = 4 * 1024 * 1024
#: Characters of one message that the index holds (the message itself is stored whole).
INDEX_MAX_CHARS = 100_000
#: Tokens are counted in slices of this many characters (the BPE tokenizer refuses inputs of
#: 1,000,000 characters or 200,000 tokens; a slice stays far below both).
TOKEN_CHUNK_CHARS = 100_000


def _invalid_paths(value: Any, path: str) -> Iterator[str]:
    if isinstance(value, str):
        if not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                yield path
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str) and next(_invalid_paths(key, ""), None) is not None:
                yield f"{path}: key" if path else "key"
                where = path
            else:
                where = f"{path}.{key}" if path else str(key)
            yield from _invalid_paths(item, where)
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from _invalid_paths(item, f"{path}[{i}]")


def find_invalid_text(value: Any, path: str = "") -> str | None:
    """Where the first invalid text (a lone surrogate) is in ``value`` (a string, or JSON-like
    dicts and lists, keys included), or ``None`` if all of it is valid Unicode."""
    return next(_invalid_paths(value, path), None)


def check_text(value: Any, what: str) -> None:
    """Refuse ``value`` (``InvalidInput``) if any string in it is not valid Unicode."""
    where = find_invalid_text(value, what)
    if where is not None:
        raise InvalidInput(
            f"{where} is not valid Unicode text (it contains a lone surrogate, "
            "which cannot be stored as UTF-8)"
        )


def bounded_text(text: str, limit: int = INDEX_MAX_CHARS) -> str:
    """``text`` cut to ``limit`` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]} … [{len(text) - limit:,} more characters in the message]"


def text_chunks(text: str, size: int = TOKEN_CHUNK_CHARS) -> Iterator[str]:
    """``text`` in consecutive slices of at most ``size`` characters."""
    for start in range(0, len(text), size):
        yield text[start : start + size]
