"""The public API is pinned: adding or removing a name is a deliberate change."""

from __future__ import annotations

import importlib

import ogmemory

EXPECTED = [
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


def test_all_is_pinned() -> None:
    assert sorted(ogmemory.__all__) == EXPECTED
    assert len(ogmemory.__all__) == len(set(ogmemory.__all__))


def test_every_name_is_importable() -> None:
    module = importlib.import_module("ogmemory")
    for name in EXPECTED:
        assert getattr(module, name) is not None, name
        exec(f"from ogmemory import {name}", {})


def test_errors_share_one_root() -> None:
    for name in ("Conflict", "InvalidId", "InvalidInput", "NotFound", "ProjectNotFound",
                 "SessionNotFound", "StorageError"):
        assert issubclass(getattr(ogmemory, name), ogmemory.OgmemError), name
    assert issubclass(ogmemory.InvalidId, ogmemory.InvalidInput)
    assert issubclass(ogmemory.SessionNotFound, ogmemory.NotFound)
    assert not issubclass(ogmemory.OgmemError, MemoryError)
