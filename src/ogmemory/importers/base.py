"""What every importer shares: a conversation to import, turn splitting, and safe session ids.

``Conversation`` is the whole-file shape the OpenAI-JSONL and LoCoMo readers yield (recorded by
``Memory.import_conversations``); the agent-history importers (Claude Code, Codex, aider) sync
incrementally through ``importers.sync`` instead.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Conversation", "session_key", "slug", "split_turns"]


@dataclass
class Conversation:
    """One session to import: its id, optional title and messages."""

    session_id: str
    messages: list[dict[str, Any]]
    title: str | None = None
    agent_id: str | None = None
    skipped: int = 0
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def turns(self) -> list[list[dict[str, Any]]]:
        return split_turns(self.messages)


def split_turns(messages: Iterable[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Turns as the agent saw them: one starts at each user message, and at each assistant
    message that follows a tool result (the model was called again with the results).

    >>> [len(t) for t in split_turns([{"role": "user"}, {"role": "assistant"},
    ...                               {"role": "tool"}, {"role": "assistant"}])]
    [3, 1]
    """
    turns: list[list[dict[str, Any]]] = []
    previous: str | None = None
    for msg in messages:
        role = msg.get("role")
        starts = role == "user" or (role == "assistant" and previous == "tool")
        if not turns or (starts and turns[-1]):
            turns.append([])
        turns[-1].append(msg)
        previous = role if isinstance(role, str) else None
    return turns


def slug(text: str) -> str:
    """A valid session id made from any text (file names, sample ids).

    >>> slug("my chat (2).jsonl")
    'my-chat-2-.jsonl'
    """
    value = re.sub(r"[^A-Za-z0-9._-]+", "-", text)
    value = re.sub(r"\.{2,}", ".", value).strip("-._")
    return (value or "imported")[:100]


def session_key(prefix: str, raw: str) -> str:
    """``<prefix>-<raw>`` as a valid session id: ``raw`` made safe, and shortened with a digest
    when it would be too long (the same input always gives the same id).

    >>> session_key("codex", "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b")
    'codex-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b'
    """
    value = f"{prefix}-{slug(raw)}"
    if len(value) > 120:
        digest = hashlib.sha1(raw.encode()).hexdigest()[:12]
        value = f"{value[:107]}-{digest}"
    return value
