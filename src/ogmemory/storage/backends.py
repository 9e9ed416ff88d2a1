"""Storage backends: which stores a tenant's abstract layer and index live in.

``files`` (the default) keeps the knowledge records in JSONL files and the index in one SQLite
file per tenant, under the state directory; ``memory`` keeps both in this process (the twin for
tests and experiments; nothing is persisted, and two ``Memory`` objects on one ``InMemoryBackend``
instance share its stores, as two processes share files). The entity layer (sessions, projects)
is git in every backend.

>>> make_backend("files").name
'files'
"""

from __future__ import annotations

import shutil
import threading

from ..errors import InvalidInput
from ..tenancy import TenantRoot
from .inmemory import InMemoryKnowledgeStore
from .inmemory_index import InMemoryIndexStore
from .jsonl import JsonlKnowledgeStore
from .protocols import Backend, IndexStore, KnowledgeStore
from .sqlite_index import SqliteIndexStore
from .sqlite_index_schema import damage_of

__all__ = ["BACKENDS", "FilesBackend", "InMemoryBackend", "make_backend"]

BACKENDS = ("files", "memory")


class FilesBackend:
    """JSONL knowledge logs under ``<tenant>/memory/`` and ``<tenant>/index/index.sqlite``."""

    name = "files"

    def knowledge(self, tenant: TenantRoot, *, fsync: bool) -> KnowledgeStore:
        return JsonlKnowledgeStore(tenant.memory_dir, fsync=fsync)

    def index(self, tenant: TenantRoot, *, embedder_name: str | None) -> IndexStore:
        return SqliteIndexStore(tenant.index_file, embedder_name=embedder_name)

    def index_damage(self, tenant: TenantRoot) -> str | None:
        return damage_of(tenant.index_file)

    def drop_index(self, tenant: TenantRoot) -> None:
        directory = tenant.index_file.parent
        if directory.is_dir():
            shutil.rmtree(directory)
        elif directory.exists():  # a file where the index directory goes: it is ours
            directory.unlink()


class InMemoryBackend:
    """Every tenant's knowledge and index in this process (one store per tenant root)."""

    name = "memory"

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._knowledge: dict[TenantRoot, InMemoryKnowledgeStore] = {}
        self._index: dict[TenantRoot, InMemoryIndexStore] = {}

    def knowledge(self, tenant: TenantRoot, *, fsync: bool) -> KnowledgeStore:
        with self._lock:
            return self._knowledge.setdefault(tenant, InMemoryKnowledgeStore())

    def index(self, tenant: TenantRoot, *, embedder_name: str | None) -> IndexStore:
        with self._lock:
            store = self._index.get(tenant)
            if store is None:
                store = self._index[tenant] = InMemoryIndexStore(embedder_name=embedder_name)
            elif embedder_name and store.embedder_name != embedder_name:
                store.adopt_embedder(embedder_name)
            return store

    def index_damage(self, tenant: TenantRoot) -> str | None:
        return None  # nothing outside this process can damage it

    def drop_index(self, tenant: TenantRoot) -> None:
        with self._lock:
            self._index.pop(tenant, None)


def make_backend(name: str) -> Backend:
    """The backend ``Settings.backend`` names."""
    if name == "files":
        return FilesBackend()
    if name == "memory":
        return InMemoryBackend()
    raise InvalidInput(f"unknown storage backend {name!r}; use one of {', '.join(BACKENDS)}")
