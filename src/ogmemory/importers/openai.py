"""OpenAI-format chat JSONL: one message per line, or one ``{"messages": [...]}`` per line.

It only parses; ``Memory.import_conversations`` records what it yields, one git commit per turn.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..errors import InvalidInput
from .base import Conversation
from .base import slug as _slug

__all__ = ["read_openai_jsonl"]


def read_openai_jsonl(path: Path) -> list[Conversation]:
    """Parse a JSONL file of OpenAI-style messages.

    Each line is either one message (grouped into sessions by an optional ``session_id`` key;
    without it the whole file is one session named after the file) or an object with a
    ``messages`` list (one session per line, as in fine-tuning files). ``system`` messages are
    skipped and counted.
    """
    stem = _slug(path.stem)
    grouped: dict[str, Conversation] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"cannot read {path}: {exc}") from None
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as exc:
            raise InvalidInput(f"{path}:{lineno}: not valid JSON ({exc.args[0]})") from None
        if not isinstance(obj, dict):
            raise InvalidInput(f"{path}:{lineno}: each line must be a JSON object")
        if isinstance(obj.get("messages"), list):
            sid = _slug(str(obj.get("session_id") or f"{stem}-{lineno}"))
            conv = grouped.setdefault(sid, Conversation(sid, [], title=obj.get("title")))
            for msg in obj["messages"]:
                _add(conv, msg, path, lineno)
        else:
            sid = _slug(str(obj.pop("session_id", None) or stem))
            conv = grouped.setdefault(sid, Conversation(sid, []))
            _add(conv, obj, path, lineno)
    if not grouped:
        raise InvalidInput(f"{path}: no messages found")
    return list(grouped.values())


def _add(conv: Conversation, msg: Any, path: Path, lineno: int) -> None:
    if not isinstance(msg, dict) or "role" not in msg:
        raise InvalidInput(f"{path}:{lineno}: a message must be an object with a 'role'")
    if msg["role"] in ("system", "developer"):
        conv.skipped += 1
        return
    conv.messages.append(msg)
