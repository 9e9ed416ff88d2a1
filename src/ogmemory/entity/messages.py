"""Validation of OpenAI-style message dicts into node fields."""

from __future__ import annotations

import json
from typing import Any

from ..errors import InvalidInput
from ..limits import check_text
from ..tenancy import validate_id
from .times import parse_time

__all__ = ["message_fields"]

_ROLES = ("user", "assistant", "tool")
_KNOWN = {
    "role",
    "content",
    "name",
    "tool_calls",
    "tool_call_id",
    "metadata",
    "id",
    "parent_id",
    "event_time",
    "timestamp",
}


def message_fields(msg: Any) -> dict[str, Any]:
    """Check ``msg`` and return the fields of a node (unknown keys are kept in metadata)."""
    if not isinstance(msg, dict):
        raise InvalidInput(f"a message must be a JSON object, got {type(msg).__name__}")
    # Before anything else: a lone surrogate in any string (content, parts, tool calls,
    # metadata keys...) could be parsed but never written as UTF-8.
    check_text(msg, "message")
    role = msg.get("role")
    if role not in _ROLES:
        raise InvalidInput(f"message role must be one of {', '.join(_ROLES)}; got {role!r}")
    content = msg.get("content")
    if content is not None and not isinstance(content, (str, list)):
        raise InvalidInput("message content must be a string, a list of parts, or null")
    tool_calls = msg.get("tool_calls")
    if tool_calls is not None:
        if role != "assistant":
            raise InvalidInput("only assistant messages may carry tool_calls")
        if not isinstance(tool_calls, list) or not all(isinstance(c, dict) for c in tool_calls):
            raise InvalidInput("tool_calls must be a list of objects")
    if content is None and not tool_calls:
        raise InvalidInput(f"a {role} message needs content")
    tool_call_id = msg.get("tool_call_id")
    if role == "tool":
        if not isinstance(tool_call_id, str) or not tool_call_id:
            raise InvalidInput("a tool message needs a tool_call_id string")
    elif tool_call_id is not None:
        raise InvalidInput("only tool messages may carry tool_call_id")
    name = msg.get("name")
    if name is not None and not isinstance(name, str):
        raise InvalidInput("message name must be a string")
    metadata = msg.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise InvalidInput("message metadata must be an object")
    extra = {k: v for k, v in msg.items() if k not in _KNOWN}
    if extra:
        metadata = {**metadata, "extra": extra}
    fields: dict[str, Any] = {
        "role": role,
        "content": content,
        "name": name,
        "tool_calls": tool_calls,
        "tool_call_id": tool_call_id,
        "metadata": metadata,
    }
    when = msg.get("event_time", msg.get("timestamp"))
    if when is not None:
        fields["event_time"] = parse_time(when, "event_time")
    for key in ("id", "parent_id"):
        if msg.get(key) is not None:
            if not isinstance(msg[key], str):
                raise InvalidInput(f"message {key} must be a string")
            # Checked here, before the session is lazily created: a bad node id must write
            # nothing (it becomes part of a file name).
            fields[key] = validate_id(msg[key], f"message {key}")
    try:
        json.dumps(fields, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"message is not JSON-serialisable: {exc}") from None
    return fields
