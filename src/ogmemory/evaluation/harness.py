"""What the LoCoMo benchmarks share: a home to run in (the caller's, or a temporary one removed
afterwards) and one tenant per conversation, with nothing running in the background (each
benchmark distills and indexes when it means to measure it)."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..config import Settings
from ..memory import Memory

__all__ = ["bench_home", "conversation_memory"]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@contextmanager
def bench_home(home: Path | None, prefix: str) -> Iterator[Path]:
    """``home``, or a temporary directory (named ``<prefix>...``) removed afterwards."""
    if home is not None:
        yield home
        return
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        yield Path(tmp)


def conversation_memory(
    sample_id: str, base: Settings, home: Path, account: str, **changes: Any
) -> Memory:
    """The ``Memory`` of one conversation: account ``account``, a space named after the sample,
    no distillation after each turn and no index worker; ``changes`` override more settings."""
    space = _UNSAFE.sub("-", sample_id).strip("-.") or "sample"
    tenant = {"home": home, "account": account, "space": space}
    quiet = {"distill_on_turn": False, "index_worker": False}
    return Memory(settings=Settings(**{**base.__dict__, **tenant, **quiet, **changes}))
