"""Importers: other tools' conversation files recorded as sessions.

Whole-file readers (``Memory.import_conversations`` records what they yield):

    openai       OpenAI-format chat JSONL
    locomo       LoCoMo benchmark JSON

Agent histories, synced incrementally (``Memory.import_history``; re-running appends only what
is new in a growing file):

    claude_code  Claude Code session JSONL (~/.claude/projects/<project>/*.jsonl)
    codex        Codex CLI rollouts (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl)
    aider        aider's .aider.chat.history.md (+ .aider.input.history)
"""

from __future__ import annotations

from .base import Conversation, split_turns
from .base import slug as _slug  # noqa: F401  (kept: callers import it from here)
from .locomo import parse_locomo, parse_locomo_date, read_locomo, session_numbers
from .openai import read_openai_jsonl

__all__ = [
    "Conversation",
    "parse_locomo",
    "parse_locomo_date",
    "read_locomo",
    "read_openai_jsonl",
    "session_numbers",
    "split_turns",
]
