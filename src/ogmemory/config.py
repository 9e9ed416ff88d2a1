"""Settings: one frozen value object, passed in; only interfaces read the environment."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path

__all__ = ["LLMSettings", "Settings", "default_home"]

DEFAULT_ACCOUNT = "local"
DEFAULT_SPACE = "default"


def default_home() -> Path:
    """``$OGMEM_HOME`` if set, else ``~/.ogmemory``."""
    env = os.environ.get("OGMEM_HOME")
    return Path(env).expanduser() if env else Path.home() / ".ogmemory"


@dataclass(frozen=True)
class LLMSettings:
    """An OpenAI-compatible chat endpoint (vLLM, llama.cpp, Ollama, hosted APIs)."""

    base_url: str
    model: str = "default"
    api_key: str | None = None
    timeout: float = 30.0
    max_retries: int = 2


@dataclass(frozen=True)
class Settings:
    """Everything configurable, as plain values.

    >>> s = Settings(home=Path("/tmp/mem"))
    >>> s.account, s.space
    ('local', 'default')
    """

    home: Path = field(default_factory=default_home)
    account: str = DEFAULT_ACCOUNT
    space: str = DEFAULT_SPACE
    session_cache_cap: int = 256
    llm: LLMSettings | None = None
    #: fsync node files and metadata before returning (power-loss durability, slower).
    fsync: bool = False

    def with_tenant(self, account: str, space: str) -> Settings:
        return replace(self, account=account, space=space)

    @classmethod
    def from_env(cls, home: str | Path | None = None, **overrides: object) -> Settings:
        """Read ``OGMEM_*`` variables; explicit arguments win."""
        env = os.environ
        llm = None
        if env.get("OGMEM_LLM_BASE_URL"):
            llm = LLMSettings(
                base_url=env["OGMEM_LLM_BASE_URL"],
                model=env.get("OGMEM_LLM_MODEL", "default"),
                api_key=env.get("OGMEM_LLM_API_KEY"),
                timeout=float(env.get("OGMEM_LLM_TIMEOUT", "30")),
            )
        values: dict[str, object] = {
            "home": Path(home).expanduser() if home else default_home(),
            "account": env.get("OGMEM_ACCOUNT", DEFAULT_ACCOUNT),
            "space": env.get("OGMEM_SPACE", DEFAULT_SPACE),
            "session_cache_cap": int(env.get("OGMEM_SESSION_CACHE_CAP", "256")),
            "llm": llm,
            "fsync": env.get("OGMEM_FSYNC", "") in ("1", "true", "yes"),
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]
