"""The context engine (seed 004): memory that works around an agent loop, intercepted at its
six boundaries and never inside inference.

- ``engine``       ``ContextEngine``: the six interception points
- ``config``       ``EngineConfig``: budget, compaction, project binding
- ``inputs``       what the points accept, and a message's cheap signals
- ``assembly``     ② the context within one token budget (core.md, recall, live turns)
- ``live``         the live part of a session (after compaction) and repeated-context removal
- ``compaction``   ⑤ summaries (rules, or the configured LLM); ``compact_run`` applies them
- ``archive``      ⑥ the archive written when a session closes
- ``adapters``     a plain-function loop and an OpenAI chat-completions wrapper
- ``claude_code``  Claude Code hook events mapped onto the six points; ``claude_settings``
                   installs them; ``transcript`` reads Claude Code's transcript tail
- ``results``      the small result records every point returns

Names are imported on first use, so that ``engine.transcript`` stays light for the hook client.

>>> from ogmemory import ContextEngine, Memory
>>> engine = ContextEngine(Memory(home="/tmp/ogm"))          # doctest: +SKIP
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .adapters import OpenAIChatAdapter, with_memory
    from .config import EngineConfig
    from .engine import ContextEngine, project_root
    from .results import (
        CloseResult,
        CompactionResult,
        ContextItem,
        ContextResult,
        MessageResult,
        ToolResult,
        TurnEndResult,
    )

__all__ = [
    "CloseResult",
    "CompactionResult",
    "ContextEngine",
    "ContextItem",
    "ContextResult",
    "EngineConfig",
    "MessageResult",
    "OpenAIChatAdapter",
    "ToolResult",
    "TurnEndResult",
    "project_root",
    "with_memory",
]

_HOME = {
    "OpenAIChatAdapter": "adapters",
    "with_memory": "adapters",
    "ContextEngine": "engine",
    "EngineConfig": "config",
    "project_root": "engine",
}


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_HOME.get(name, 'results')}", __name__), name)
    globals()[name] = value
    return value
