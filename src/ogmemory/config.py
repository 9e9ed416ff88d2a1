"""Settings: one frozen value object, passed in; only interfaces read the environment.

The ``OGMEM_*`` variables are read in exactly one place, :meth:`Settings.from_env`, which the
command line (``ogmem ...``), ``ogmem serve`` and ``ogmem mcp`` call. The Python facade does not
read them: ``Memory(home=...)`` runs with the defaults below (only ``OGMEM_HOME`` fills in a
home that is not given), and ``Memory(settings=Settings.from_env())`` behaves as the CLI does.
The defaults are the safe ones: what a user wrote (memories, their edits, enable/disable,
rollbacks, API keys) is fsync'd before a call returns whatever ``fsync`` says.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from .errors import InvalidInput
from .limits import MAX_BODY_BYTES

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
    #: fsync every write (session nodes, metadata, distilled batches) before returning:
    #: power-loss durability for everything, slower. What a user wrote is fsync'd regardless.
    fsync: bool = False
    #: Stage-2 extractor: "rules" (default, no LLM), "llm" or "react" (both need ``llm``).
    extractor: str = "rules"
    #: Fast path: distill a session's new turns in the background right after each commit.
    distill_on_turn: bool = True
    #: Slow path batch bound (nodes per batch; whole turns are never split).
    distill_batch_nodes: int = 200
    #: Idle watcher: a session untouched this long gets distilled by ``ogmem daemon``.
    idle_minutes: float = 30.0
    #: Daily sleep (light then deep) at this local time, "HH:MM".
    daily_sleep_at: str = "03:00"
    #: Embedder for the index: "e5" (multilingual-e5-small, retrieval-trained; default), "use"
    #: (multilingual USE, faster to embed, weaker to rank) or "none" (full text only). Both models
    #: ship inside their packages.
    embedder: str | None = "e5"
    #: Run an in-process outbox worker thread (set False when ``ogmem worker`` processes run).
    index_worker: bool = True
    #: Where the knowledge records and the index live: "files" (JSONL + SQLite under ``home``,
    #: the default) or "memory" (this process only; tests and experiments).
    backend: str = "files"
    #: Largest REST or MCP request body, in bytes (larger ones are refused with HTTP 413).
    max_body_bytes: int = MAX_BODY_BYTES

    def __post_init__(self) -> None:
        if not isinstance(self.home, Path):  # a str is what people pass
            object.__setattr__(self, "home", Path(self.home).expanduser())
        if not isinstance(self.max_body_bytes, int) or self.max_body_bytes < 1024:
            raise InvalidInput("max_body_bytes must be an integer of at least 1024")

    def with_tenant(self, account: str, space: str) -> Settings:
        return replace(self, account=account, space=space)

    @classmethod
    def from_env(cls, home: str | Path | None = None, **overrides: object) -> Settings:
        """Read ``OGMEM_*`` variables (the only place that does); explicit arguments win.

        >>> Settings.from_env(home="/tmp/mem", fsync=True).fsync      # doctest: +SKIP
        True
        """
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
            "extractor": env.get("OGMEM_EXTRACTOR", "rules"),
            "distill_on_turn": env.get("OGMEM_DISTILL_ON_TURN", "1") not in ("0", "false", "no"),
            "idle_minutes": float(env.get("OGMEM_IDLE_MINUTES", "30")),
            "daily_sleep_at": env.get("OGMEM_DAILY_SLEEP_AT", "03:00"),
            "embedder": env.get("OGMEM_EMBEDDER", "e5"),
            "index_worker": env.get("OGMEM_INDEX_WORKER", "1") not in ("0", "false", "no"),
            "backend": env.get("OGMEM_BACKEND", "files"),
            "max_body_bytes": _int(env, "OGMEM_MAX_BODY_BYTES", MAX_BODY_BYTES),
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]


def _int(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        return int(raw)
    except ValueError:
        raise InvalidInput(f"{name} must be an integer, not {raw!r}") from None


@contextmanager
def openmp_spin_bounded(rounds: int) -> Iterator[None]:
    """Within the block, ``GOMP_SPINCOUNT`` is ``rounds`` (for an OpenMP runtime loaded in it,
    which reads its environment once, when it is loaded), unless the environment already
    chooses a wait policy (``GOMP_SPINCOUNT`` or ``OMP_WAIT_POLICY``: the user's choice wins);
    afterwards it is gone again, so child processes do not inherit it (``embed/omp.py``)."""
    if "GOMP_SPINCOUNT" in os.environ or "OMP_WAIT_POLICY" in os.environ:
        yield
        return
    os.environ["GOMP_SPINCOUNT"] = str(rounds)
    try:
        yield
    finally:
        os.environ.pop("GOMP_SPINCOUNT", None)
