"""Typed storage Protocols: every layer depends on these, never on a backend class.

The entity layer is git by design (DESIGN.md §2.2): ``SessionRepository``/``NodeLog`` (one git
repository per session), ``ProjectStore`` and ``ProvenanceSource`` describe it. The abstract
layer and the index have pluggable backends (``Backend``): the embedded files/SQLite default,
an in-memory twin, and a PostgreSQL backend to come. What a backend must provide:

``KnowledgeStore``
    typed records (``MemoryItem``, ``Evidence``, ``Entity``, ``Edge``, ``TimelineEvent``) folded
    from atomic batches: a batch becomes visible only with its commit marker, carries the
    before/after of every change (the operation log) and any cursor it advances, can be rolled
    back, and checks optimistic versions; ``exclusive(name)`` serialises runners across
    processes (a file lock, or an advisory lock in a database).
``IndexStore``
    documents (``Doc``) at three levels with full text and vectors; a write enqueues the
    embedding jobs of what it writes in the same transaction (the outbox pattern) on its
    ``jobs`` queue; ``dense`` is a vector top-k.
``JobQueue``
    leased claims (``FOR UPDATE SKIP LOCKED`` in a database, ``BEGIN IMMEDIATE`` in SQLite):
    a lease that expires counts as a failed attempt, jobs of one key run in order, failures
    back off exponentially, and a job that fails ``max_attempts`` times is dead-lettered.

The contract suites (``tests/test_contract_*.py``) run the same tests against every backend.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np

from ..entity.records import CommitInfo, Node, NodeRecord, Project, Provenance, SessionInfo
from ..index.docs import Doc
from ..knowledge.models import KnowledgeRecord
from ..tenancy import TenantRoot
from .folded import BatchInfo
from .jobs import Job

__all__ = [
    "Backend",
    "IndexStore",
    "JobQueue",
    "KnowledgeBatchWriter",
    "KnowledgeStore",
    "NodeLog",
    "ProjectStore",
    "ProvenanceSource",
    "SessionRepository",
]

R = TypeVar("R")


# ====================================================================== entity layer (git)


@runtime_checkable
class NodeLog(Protocol):
    """One session's append-only DAG of nodes, committed turn by turn."""

    session_id: str
    head: str | None
    meta: dict[str, Any]
    lock: Any  # re-entrant lock held around compound operations

    @property
    def uncommitted(self) -> list[Node]: ...
    @property
    def turns(self) -> int: ...

    def append(self, fields: dict[str, Any]) -> Node: ...
    def commit(
        self,
        message: str,
        *,
        context: Any = None,
    ) -> tuple[str | None, int, tuple[str, ...]]: ...
    def branch_nodes(self, head_id: str | None = None) -> list[Node]: ...
    def all_nodes(self) -> list[Node]: ...
    def log(self, branch: str | None = None, limit: int | None = None) -> list[CommitInfo]: ...
    def retry(self, assistant_id: str) -> str: ...
    def switch_head(self, node_id: str) -> str: ...
    def checkout(self, branch: str) -> None: ...
    def branches(self) -> list[str]: ...
    def write_meta(self, **changes: Any) -> dict[str, Any]: ...
    def read_meta(self) -> dict[str, Any]: ...
    def refresh(self) -> None: ...


@runtime_checkable
class SessionRepository(Protocol):
    """All sessions of one tenant."""

    def open(self, session_id: str) -> NodeLog: ...
    def open_or_create(self, session_id: str, **create_kwargs: Any) -> NodeLog: ...
    def create(
        self,
        session_id: str | None = None,
        *,
        project_path: Path | None = None,
        project_id: str | None = None,
        agent_id: str | None = None,
        title: str | None = None,
        model: str | None = None,
        extra: dict[str, Any] | None = None,
    ) -> NodeLog: ...
    def exists(self, session_id: str) -> bool: ...
    def list(self) -> list[SessionInfo]: ...
    def info(self, session_id: str) -> SessionInfo: ...
    def update(self, session_id: str, **fields: Any) -> SessionInfo: ...
    def set_auto_title(
        self, session_id: str, title: str, *, llm: bool, model: str | None = None
    ) -> bool: ...
    def delete(self, session_id: str) -> None: ...


@runtime_checkable
class ProjectStore(Protocol):
    """The registry of bound projects."""

    def all(self) -> list[Project]: ...
    def get(self, project_id: str) -> Project: ...
    def find_by_path(self, path: Path) -> Project | None: ...
    def unbind(self, project_id: str) -> Project: ...


@runtime_checkable
class ProvenanceSource(Protocol):
    """What the distillation pipeline and the indexer read (seed 000 §6.3)."""

    def iter_nodes_since(
        self, cursor: Mapping[str, int] | None = None, *, session_ids: Iterable[str] | None = None
    ) -> Iterator[NodeRecord]: ...
    def node_provenance(self, session_id: str, node_id: str) -> Provenance | None: ...
    def session_commits(
        self, session_id: str, branch: str | None = None, limit: int | None = None
    ) -> list[CommitInfo]: ...
    def project_commits(
        self, project_id: str, limit: int = 100, *, agent_only: bool = False
    ) -> list[CommitInfo]: ...
    def project_commits_since(
        self, project_id: str, since: str | None, limit: int = 200
    ) -> list[CommitInfo]: ...


# ====================================================================== abstract layer


class KnowledgeBatchWriter(Protocol):
    """Record versions staged for one atomic batch, read-your-writes."""

    id: str
    reason: str
    now: float

    def get(self, kind: type[R], rid: str) -> R | None: ...
    def put(
        self,
        record: KnowledgeRecord,
        *,
        expect_version: int | None = None,
        check_version: bool = False,
    ) -> None: ...
    def remove(self, kind: type[Any], rid: str) -> None: ...
    def __len__(self) -> int: ...
    def commit(self, **meta: Any) -> BatchInfo | None: ...


@runtime_checkable
class KnowledgeStore(Protocol):
    """Typed knowledge records of one tenant, changed only by atomic batches."""

    @property
    def version(self) -> int: ...

    def refresh(self) -> None: ...
    def get(self, kind: type[R], rid: str) -> R | None: ...
    def all(self, kind: type[R]) -> list[R]: ...
    def count(self, kind: type[Any]) -> int: ...
    def batches(self) -> list[BatchInfo]: ...
    def batches_since(self, start: int) -> list[BatchInfo]: ...
    def batch(self, batch_id: str) -> BatchInfo: ...
    def last_meta(self, key: str) -> Any: ...
    def begin(self, reason: str) -> KnowledgeBatchWriter: ...
    def rollback(self, batch_id: str, *, force: bool = False, **meta: Any) -> BatchInfo: ...
    def exclusive(self, name: str) -> AbstractContextManager[None]: ...
    def on_commit(self, listener: Callable[[BatchInfo], None]) -> None:
        """Call ``listener`` for every batch committed from now on, here or (when this store
        catches up with them) in another process; it runs under the store's lock."""

    def close(self) -> None: ...


# ====================================================================== index


@runtime_checkable
class JobQueue(Protocol):
    """Index work (embeddings) claimed under leases by any number of workers."""

    max_attempts: int

    def submit(self, topic: str, key: str, payload: Any, *, delay: float = 0.0) -> int: ...
    def claim(self, owner: str, limit: int = 32) -> list[Job]: ...
    def complete(self, owner: str, job_ids: Iterable[Job | int]) -> int: ...
    def fail(self, owner: str, job: Job | int, error: BaseException | str) -> str | None: ...
    def status(self, *, dead_limit: int = 100) -> dict[str, Any]: ...
    def retry_dead(self, ids: Iterable[int] | None = None) -> int: ...
    def purge_done(self, older_than_seconds: float) -> int: ...
    def disconnect(self) -> None: ...
    def close(self) -> None: ...


@runtime_checkable
class IndexStore(Protocol):
    """Documents, full text and vectors of one tenant. Derived: ``reset`` may drop it all."""

    embedder_name: str | None

    @property
    def jobs(self) -> JobQueue: ...

    def write(
        self,
        upserts: Iterable[Doc],
        deletes: Iterable[str] = (),
        meta: dict[str, Any] | None = None,
    ) -> int: ...
    def get_meta(self, key: str, default: Any = None) -> Any: ...
    def count(self, kind: str | None = None) -> int: ...
    def text_search(
        self, words: Sequence[str], chars: Sequence[str], limit: int
    ) -> list[tuple[int, float]]: ...
    def word_shares(self, words: Sequence[str], total: int | None = None) -> dict[str, float]: ...
    def docs(self, rowids: Iterable[int]) -> dict[int, Doc]: ...
    def docs_by_id(self, ids: Iterable[str]) -> dict[str, Doc]: ...
    def entity_facts(self, entity: str, limit: int = 10) -> list[str]: ...
    def children(self, parent: str, limit: int = 200) -> list[Doc]: ...
    def child_refs(self, parent: str, limit: int = 200) -> list[tuple[int, str]]: ...
    def window_ids(self, session_id: str, seq: int, before: int, after: int) -> list[str]: ...
    def latest(self, limit: int, kinds: Sequence[str]) -> list[Doc]:
        """The newest documents of ``kinds`` (no L1 overviews), newest first."""

    def in_period(self, start: float, end: float, kinds: Sequence[str], limit: int) -> list[Doc]:
        """Documents of ``kinds`` (no L1 overviews) that happened in ``[start, end)``, the most
        important first (then the earliest)."""

    def latest_event_time(self) -> float | None:
        """When the newest turn, record or memory happened (entities are not events)."""

    def delete_session(self, session_id: str) -> int:
        """Drop the turns and the abstracts of a deleted session; returns how many."""

    def dense(self, query_vec: np.ndarray, limit: int) -> list[tuple[int, float]]: ...
    def vectors(self, rowids: Sequence[int]) -> dict[int, np.ndarray]: ...
    def centroid(self) -> np.ndarray | None:
        """The mean of every document vector (``None`` before any)."""

    def put_vectors(self, vectors: Mapping[int, np.ndarray]) -> int: ...
    def vector_count(self) -> int: ...
    def size_bytes(self) -> int: ...
    def reset(self) -> None: ...
    def close(self) -> None: ...


# ====================================================================== backends


class Backend(Protocol):
    """Opens the stores of a tenant. ``name`` is what ``Settings.backend`` selects."""

    name: str

    def knowledge(self, tenant: TenantRoot, *, fsync: bool) -> KnowledgeStore: ...
    def index(self, tenant: TenantRoot, *, embedder_name: str | None) -> IndexStore: ...
    def index_damage(self, tenant: TenantRoot) -> str | None:
        """Why the tenant's index cannot be used as it is (``None``: it can)."""

    def drop_index(self, tenant: TenantRoot) -> None:
        """Delete the tenant's index whatever state it is in (it is derived: ``reindex``)."""
