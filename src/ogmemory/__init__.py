"""ogmemory: a local-first long-term memory engine for LLM agents.

>>> from ogmemory import Memory
>>> mem = Memory(home="/tmp/ogm-example")   # doctest: +SKIP

``Memory`` is the facade; everything it returns is a plain record exported here, and
``ContextEngine`` wraps an agent loop around it. Names from the layers (the facade, the
engine, stores, results) are imported on first use (PEP 562): a process that only needs a light
corner of the package, such as ``ogmem hook`` handing a Claude Code event to a running server,
does not pay for git, numpy and the index at start-up.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .config import LLMSettings, Settings
from .entity.records import (
    CommitInfo,
    ImportResult,
    Node,
    NodeRecord,
    Pointer,
    Project,
    Provenance,
    SessionInfo,
    TurnResult,
)
from .errors import (
    Conflict,
    InvalidId,
    InvalidInput,
    NotFound,
    OgmemError,
    ProjectNotFound,
    SessionNotFound,
    StorageError,
)

if TYPE_CHECKING:
    from .distill.pipeline import DistillReport
    from .embed import Embedder
    from .engine import ContextEngine
    from .importers.report import ImportReport
    from .knowledge.models import Edge, Entity, Evidence, MemoryItem, TimelineEvent
    from .knowledge.schema import SchemaRegistry
    from .memory import Memory
    from .recall.results import RecallItem, RecallResult, SearchHit
    from .resolver import Resolved
    from .storage.backends import FilesBackend, InMemoryBackend
    from .storage.folded import BatchInfo, Op

__all__ = [
    "BatchInfo",
    "CommitInfo",
    "Conflict",
    "ContextEngine",
    "DistillReport",
    "Edge",
    "Embedder",
    "Entity",
    "Evidence",
    "FilesBackend",
    "ImportReport",
    "ImportResult",
    "InMemoryBackend",
    "InvalidId",
    "InvalidInput",
    "LLMSettings",
    "Memory",
    "MemoryItem",
    "Node",
    "NodeRecord",
    "NotFound",
    "OgmemError",
    "Op",
    "Pointer",
    "Project",
    "ProjectNotFound",
    "Provenance",
    "RecallItem",
    "RecallResult",
    "Resolved",
    "SchemaRegistry",
    "SearchHit",
    "SessionInfo",
    "SessionNotFound",
    "Settings",
    "StorageError",
    "TimelineEvent",
    "TurnResult",
]

__version__ = "0.1.0"

_LAZY = {
    "DistillReport": "distill.pipeline", "Embedder": "embed", "ContextEngine": "engine",
    "ImportReport": "importers.report", "Edge": "knowledge.models",
    "Entity": "knowledge.models", "Evidence": "knowledge.models",
    "MemoryItem": "knowledge.models", "TimelineEvent": "knowledge.models",
    "SchemaRegistry": "knowledge.schema", "Memory": "memory", "RecallItem": "recall.results",
    "RecallResult": "recall.results", "SearchHit": "recall.results", "Resolved": "resolver",
    "FilesBackend": "storage.backends", "InMemoryBackend": "storage.backends",
    "BatchInfo": "storage.folded", "Op": "storage.folded",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ogmemory' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
