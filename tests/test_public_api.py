"""The public API is pinned: adding or removing a name is a deliberate change."""

from __future__ import annotations

import importlib
import inspect
import typing

import ogmemory
from ogmemory import Memory

EXPECTED = [
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


def test_all_is_pinned() -> None:
    assert sorted(ogmemory.__all__) == EXPECTED
    assert len(ogmemory.__all__) == len(set(ogmemory.__all__))


def test_every_name_is_importable() -> None:
    module = importlib.import_module("ogmemory")
    for name in EXPECTED:
        assert getattr(module, name) is not None, name
        exec(f"from ogmemory import {name}", {})


def test_errors_share_one_root() -> None:
    for name in (
        "Conflict",
        "InvalidId",
        "InvalidInput",
        "NotFound",
        "ProjectNotFound",
        "SessionNotFound",
        "StorageError",
    ):
        assert issubclass(getattr(ogmemory, name), ogmemory.OgmemError), name
    assert issubclass(ogmemory.InvalidId, ogmemory.InvalidInput)
    assert issubclass(ogmemory.SessionNotFound, ogmemory.NotFound)
    assert not issubclass(ogmemory.OgmemError, MemoryError)


def _record_types(hint: object) -> set[type]:
    """The ogmemory classes a return annotation names (through lists, tuples, unions)."""
    found: set[type] = set()
    if isinstance(hint, type) and hint.__module__.startswith("ogmemory"):
        found.add(hint)
    for arg in typing.get_args(hint):
        found |= _record_types(arg)
    return found


def test_every_type_the_facade_returns_is_exported() -> None:
    returned: set[type] = set()
    for name, member in inspect.getmembers(Memory):
        if name.startswith("_"):
            continue
        func = member.fget if isinstance(member, property) else member
        if callable(func):
            returned |= _record_types(typing.get_type_hints(func).get("return"))
    assert returned, "the facade returns records"
    missing = sorted(t.__name__ for t in returned if t.__name__ not in ogmemory.__all__)
    assert missing == [], f"returned by Memory but not exported: {missing}"
