"""ogmemory: a local-first long-term memory engine for LLM agents.

>>> from ogmemory import Memory
>>> mem = Memory(home="/tmp/ogm-example")   # doctest: +SKIP
"""

from .config import LLMSettings, Settings
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
from .memory import ImportResult, Memory
from .records import CommitInfo, Node, NodeRecord, Project, Provenance, SessionInfo, TurnResult

__all__ = [
    "CommitInfo",
    "Conflict",
    "ImportResult",
    "InvalidId",
    "InvalidInput",
    "LLMSettings",
    "Memory",
    "Node",
    "NodeRecord",
    "NotFound",
    "OgmemError",
    "Project",
    "ProjectNotFound",
    "Provenance",
    "SessionInfo",
    "SessionNotFound",
    "Settings",
    "StorageError",
    "TurnResult",
]

__version__ = "0.1.0"
