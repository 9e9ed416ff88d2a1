"""Reading a Claude Code transcript's tail: the answer Claude gave at the end of a turn.

Standard library only (imported by the ``ogmem hook`` client before anything heavy).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

__all__ = ["last_reply"]

_TAIL_BYTES = 4 * 1024 * 1024


def last_reply(transcript_path: Any) -> str:
    """Claude's final answer of the turn: the text of the assistant entries after the last user
    entry (the prompt or a tool result), read from the end of the transcript (a JSONL file of
    ``{"type": "user"|"assistant", "message": {...}}`` entries, one per content block)."""
    if not isinstance(transcript_path, str) or not transcript_path:
        return ""
    path = Path(os.path.expanduser(transcript_path))
    try:
        with path.open("rb") as fh:
            size = fh.seek(0, os.SEEK_END)
            fh.seek(max(0, size - _TAIL_BYTES))
            lines = fh.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return ""
    texts: list[str] = []
    for line in reversed(lines):
        try:
            entry = json.loads(line)
        except ValueError:
            continue  # a torn last line, or the cut first one
        if not isinstance(entry, dict) or not isinstance(entry.get("message"), dict):
            continue
        content = entry["message"].get("content")
        if entry.get("type") == "assistant" and isinstance(content, list):
            texts += [b["text"] for b in reversed(content) if isinstance(b, dict)
                      and b.get("type") == "text" and isinstance(b.get("text"), str)]
        elif entry.get("type") == "user":
            break  # the prompt, or a tool result: what follows it is the final answer
    return "\n\n".join(reversed([t for t in texts if t.strip()]))

