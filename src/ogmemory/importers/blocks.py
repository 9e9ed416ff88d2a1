"""Anthropic Messages API content (what Claude Code lines wrap) as plain text.

A ``content`` is a string or a list of blocks; text blocks are kept, an image or a document
becomes a short placeholder (its bytes are never stored), anything else is left out.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["as_dict", "block_text", "text_of"]


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def block_text(block: dict[str, Any]) -> str:
    """One content block as text ("" for blocks that are not read)."""
    kind = block.get("type")
    if kind == "text" and isinstance(block.get("text"), str):
        return str(block["text"])
    if kind == "image":
        return "[image]"
    if kind == "document":
        title = block.get("title") or as_dict(block.get("source")).get("media_type") or "document"
        return f"[document: {title}]"
    return ""


def text_of(content: Any) -> str:
    """A message's (or a tool result's) content as text.

    >>> text_of([{"type": "text", "text": "hi"}, {"type": "image", "source": {}}])
    'hi\\n[image]'
    """
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            p if isinstance(p, str) else block_text(p) if isinstance(p, dict) else ""
            for p in content
        ]
        return "\n".join(p for p in parts if p)
    return "" if content is None else json.dumps(content, ensure_ascii=False)
