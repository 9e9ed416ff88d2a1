"""ogmemory: a local-first long-term memory engine for LLM agents.

>>> from ogmemory import Memory
>>> mem = Memory(home="/tmp/ogm-example")   # doctest: +SKIP

``Memory`` is the facade; everything it returns is a plain record exported here.
``ContextEngine`` wraps an agent loop around it (the context engine, seed 004).
"""

from .config import LLMSettings, Settings
from .distill.pipeline import DistillReport
from .embed import Embedder
from .engine import ContextEngine
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
from .health.findings import FsckReport
from .importers.report import ImportReport
from .knowledge.models import Edge, Entity, Evidence, MemoryItem, TimelineEvent
from .knowledge.schema import MemoryType, SchemaRegistry
from .knowledge.snapshot import GraphSnapshot
from .knowledge.versions import MemoryVersion
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
    "FsckReport",
    "GraphSnapshot",
    "ImportReport",
    "ImportResult",
    "InMemoryBackend",
    "InvalidId",
    "InvalidInput",
    "LLMSettings",
    "Memory",
    "MemoryItem",
    "MemoryType",
    "MemoryVersion",
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
