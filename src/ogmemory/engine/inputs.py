"""What the engine accepts from its caller, and the cheap signals it notes about a user message
(no model runs here: ``on_message`` must stay fast)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from ..errors import InvalidInput

__all__ = ["as_text", "paths_of", "signals", "text_of"]

_CJK = re.compile(r"[\u3400-\u9fff]")
_REMEMBER = re.compile(
    r"\b(remember|don't forget|do not forget|keep in mind)\b|记住|别忘", re.IGNORECASE
)
_FORGET = re.compile(r"\b(forget|stop remembering)\b|忘掉|忘记", re.IGNORECASE)
_PATHLIKE = re.compile(
    r"(?<![\w/])(?:\.{0,2}/)?(?:[\w.-]+/)+[\w.-]+\.\w{1,8}\b|\b[\w-]+\.(?:py|"
    r"js|ts|tsx|go|rs|java|md|json|yaml|yml|toml|sql|sh|c|h|cpp|rb)\b"
)


def text_of(content: Any, what: str) -> Any:
    """A message's content as given: a non-empty string or a non-empty list of parts."""
    if isinstance(content, str):
        if not content.strip():
            raise InvalidInput(f"{what} must not be empty")
        return content
    if isinstance(content, list) and content:
        return content
    raise InvalidInput(f"{what} must be a non-empty string or a list of content parts")


def as_text(value: Any) -> str:
    """A tool's arguments or output as text (JSON for structured values)."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return str(value)


def paths_of(value: Sequence[str] | None, what: str) -> tuple[str, ...]:
    """The file paths a tool touched: distinct, in order, at most 200."""
    if value is None:
        return ()
    if isinstance(value, str) or not all(isinstance(p, str) and p for p in value):
        raise InvalidInput(f"{what} must be a list of non-empty path strings")
    return tuple(dict.fromkeys(value))[:200]


def signals(text: str, tokens: int) -> dict[str, Any]:
    """What a user message shows at a glance: size, language, a question, a request to
    remember or forget, the files it names."""
    return {
        "tokens": tokens,
        "language": "zh" if _CJK.search(text) else "en",
        "question": text.rstrip().endswith(("?", "？")),
        "asks_to_remember": bool(_REMEMBER.search(text)),
        "asks_to_forget": bool(_FORGET.search(text)),
        "mentions_files": sorted(set(_PATHLIKE.findall(text)))[:20],
    }
