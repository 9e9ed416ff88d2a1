"""``EngineConfig``: how the context engine spends its token budget, when it compacts, and how
it binds a session to a project. A frozen value object, checked when built."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InvalidInput

__all__ = ["EngineConfig"]


@dataclass(frozen=True)
class EngineConfig:
    """How the engine spends its budget and when it compacts.

    ``budget``: tokens of the whole assembled context (core.md + summary + recall + live turns
    + the caller's system prompt). ``recall_budget`` and ``core_budget`` are reserved out of
    it; the live turns get the rest, and passing that share triggers compaction, which folds
    all but the newest ``keep_turns`` turns until the live part is under ``compact_to`` of it.
    ``compaction``: ``auto`` (the memory's LLM when configured, else rules), ``rules``, ``llm``
    or ``off``. ``bind_project``: bind a session to the git repository around its working
    directory (``git``), only to a project already registered there (``registered``: a
    server acting for remote callers never registers their paths), to the directory itself
    even if that means ``git init`` (``always``), or never.
    """

    budget: int = 8000
    recall_budget: int = 2000
    core_budget: int = 700
    keep_turns: int = 2
    compact_to: float = 0.5
    summary_share: float = 0.3
    compaction: str = "auto"
    bind_project: str = "git"
    max_tool_output_chars: int = 100_000

    def __post_init__(self) -> None:
        if not 1000 <= self.budget <= 1_000_000:
            raise InvalidInput("budget must be between 1000 and 1000000 tokens")
        if not 0 <= self.recall_budget <= self.budget // 2:
            raise InvalidInput("recall_budget must be between 0 and half the budget")
        if not 0 <= self.core_budget <= self.budget // 4:
            raise InvalidInput("core_budget must be between 0 and a quarter of the budget")
        if self.keep_turns < 1:
            raise InvalidInput("keep_turns must be at least 1 (the turn in progress)")
        if not 0.1 <= self.compact_to <= 0.9 or not 0.05 <= self.summary_share <= 0.5:
            raise InvalidInput("compact_to must be in [0.1, 0.9], summary_share in [0.05, 0.5]")
        if self.compaction not in ("auto", "rules", "llm", "off"):
            raise InvalidInput("compaction must be auto, rules, llm or off")
        if self.bind_project not in ("git", "registered", "always", "never"):
            raise InvalidInput("bind_project must be git, registered, always or never")

    @property
    def live_limit(self) -> int:
        """Tokens the live turns (and the summary) may use before compaction."""
        return self.budget - self.core_budget - self.recall_budget
