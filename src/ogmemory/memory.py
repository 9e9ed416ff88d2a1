"""``Memory``: the one facade users hold. Interfaces parse input, call it, format output.

It holds one service per layer and delegates to them, one line each::

    sessions      entity layer (seed 001): sessions in git, projects, provenance, titles
    knowledge     abstract layer + memory list (seeds 000, 003): timeline, graph, core.md
    distillation  the five stages (seed 000 §6) and their triggers
    retrieval     index, outbox workers, bounded recall, search, navigation (seeds 003, 004)

Services talk to each other through typed methods and listeners, never through the facade;
the knowledge and index stores come from a ``Backend`` (files/SQLite by default). The
entity-layer methods (sessions, projects, provenance) are inherited from ``SessionMethods`` in
``memory_sessions``: the same one-line delegations, kept in their own module for length.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from .config import Settings
from .distill.pipeline import DistillReport
from .distill.service import DistillService
from .distill.types import Extractor
from .embed import Embedder
from .entity.records import CommitInfo, Node
from .entity.service import SessionService
from .health.findings import FsckReport
from .importers.report import FileOutcome, ImportReport
from .importers.sync import HistorySync
from .knowledge.models import Edge, Entity, Evidence, MemoryItem, TimelineEvent
from .knowledge.schema import MemoryType, SchemaRegistry
from .knowledge.service import KnowledgeService
from .knowledge.snapshot import GraphSnapshot
from .knowledge.versions import MemoryVersion
from .memory_sessions import SessionMethods
from .recall.config import BUDGET_DEFAULT
from .recall.results import RecallResult, SearchHit
from .recall.service import RecallService
from .resolver import Resolved, URIResolver
from .storage.backends import make_backend
from .storage.folded import BatchInfo
from .storage.protocols import Backend
from .tenancy import TenantRoot

__all__ = ["Memory"]

Scope = str | Sequence[str] | None


class Memory(SessionMethods):
    """Long-term memory of one tenant ``(account, space)``.

    >>> mem = Memory(home="/tmp/ogm-doc")                     # doctest: +SKIP
    >>> mem.append_message("s1", {"role": "user", "content": "We use Postgres."})  # doctest: +SKIP
    >>> mem.append_message("s1", {"role": "assistant", "content": "Noted."})       # doctest: +SKIP
    >>> mem.commit_turn("s1").turn                             # doctest: +SKIP
    1

    ``extractor`` replaces the Stage-2 extractor chosen by ``settings.extractor`` (a plug-in);
    ``embedder`` shares one loaded embedding model between several tenants' instances;
    ``backend`` holds the knowledge and index stores (default: ``settings.backend``).
    """

    def __init__(
        self,
        home: str | Path | None = None,
        *,
        account: str | None = None,
        space: str | None = None,
        settings: Settings | None = None,
        extractor: Extractor | None = None,
        embedder: Embedder | None = None,
        backend: Backend | None = None,
    ) -> None:
        settings = settings or Settings()
        if home is not None:
            settings = Settings(**{**settings.__dict__, "home": Path(home).expanduser()})
        if account is not None or space is not None:
            # ``is None``, not falsiness: an empty account/space must be rejected by
            # validation, never silently mapped to the default tenant.
            settings = settings.with_tenant(
                settings.account if account is None else account,
                settings.space if space is None else space,
            )
        self.settings = settings
        self.tenant = TenantRoot(settings.home, settings.account, settings.space)
        self.backend = backend or make_backend(settings.backend)
        self.sessions = SessionService(self.tenant, settings)
        self.knowledge = KnowledgeService(
            self.tenant,
            settings,
            self.backend.knowledge(self.tenant, fsync=settings.fsync),
            is_temporary=self.sessions.is_temporary,
        )
        self.distillation = DistillService(
            settings, self.knowledge, self.sessions, extractor=extractor
        )
        self.retrieval = RecallService(
            self.tenant, settings, self.backend, self.knowledge, self.sessions, embedder=embedder
        )
        self.knowledge.deriver = self.distillation
        self.sessions.on_turn += [self.retrieval.after_turn, self.distillation.after_turn]
        self.sessions.on_session_end.append(self.distillation.distill_soon)
        self.sessions.on_session_deleted.append(self.retrieval.forget_session)

    # ================================================================== knowledge

    @property
    def schema(self) -> SchemaRegistry:
        """Memory types (YAML): the package's, then ``<home>/schemas`` and the tenant's."""
        return self.knowledge.schema

    def timeline(
        self,
        since: float | None = None,
        until: float | None = None,
        *,
        entity: str | None = None,
        kind: str | None = None,
        scope: Scope = None,
        include_superseded: bool = False,
    ) -> list[TimelineEvent]:
        """Events in ``[since, until)`` by when they happened, optionally about one entity."""
        return self.knowledge.timeline(
            since,
            until,
            entity=entity,
            kind=kind,
            scope=scope,
            include_superseded=include_superseded,
        )

    def entities(self, *, type: str | None = None, scope: Scope = None) -> list[Entity]:
        return self.knowledge.entities(type=type, scope=scope)

    def entity(self, name: str) -> Entity:
        """An entity by id, name or alias."""
        return self.knowledge.entity(name)

    def facts(
        self,
        *,
        entity: str | None = None,
        at: float | None = None,
        include_history: bool = False,
        relation: str | None = None,
        scope: Scope = None,
    ) -> list[Edge]:
        """Graph relations: valid now (default), valid at ``at``, or every version."""
        return self.knowledge.facts(
            entity=entity, at=at, include_history=include_history, relation=relation, scope=scope
        )

    def graph_neighbors(
        self, entity: str, hops: int = 1, *, scope: Scope = None, at: float | None = None
    ) -> tuple[list[Entity], list[Edge]]:
        """Entities and relations within ``hops`` of ``entity``."""
        return self.knowledge.graph_neighbors(entity, hops, scope=scope, at=at)

    def core(
        self, *, scope: Scope = None, regenerate: bool = False, session_id: str | None = None
    ) -> str:
        """core.md (≤ 2 KB, every line with a ↪ pointer); empty for a temporary session."""
        return self.knowledge.core(scope=scope, regenerate=regenerate, session_id=session_id)

    def memories(
        self,
        *,
        include_disabled: bool = True,
        type: str | None = None,
        scope: Scope = None,
        session: str | None = None,
        entity: str | None = None,
    ) -> list[MemoryItem]:
        """The memory list, oldest first; only those with evidence in ``session``, or that
        ``entity``'s facts and events rest on, when given."""
        return self.knowledge.memories(
            include_disabled=include_disabled,
            type=type,
            scope=scope,
            session=session,
            entity=entity,
        )

    def outdated_memories(self, memories: Sequence[MemoryItem]) -> dict[str, list[str]]:
        """Which of ``memories`` are outdated (every fact derived from them has ended), each
        with the ids of the memories that superseded it; the records are unchanged."""
        return self.knowledge.outdated(memories)

    def evidence_by_memory(self, memories: Sequence[MemoryItem]) -> dict[str, list[Evidence]]:
        """The evidence snapshots of each of ``memories``, read at once (a listing)."""
        return self.knowledge.evidence_by_memory(memories)

    def get_memory(self, memory_id: str) -> MemoryItem:
        return self.knowledge.get_memory(memory_id)

    def evidence(self, memory_id: str) -> list[Evidence]:
        """The frozen evidence snapshots of a memory (what was said, and where)."""
        return self.knowledge.evidence(memory_id)

    def remember(self, text: str, *, type: str | None = None, scope: str = "global") -> MemoryItem:
        """Add a memory by hand; its facts are derived at once and supported by it. Without
        ``type`` it gets the type distillation gives the statement (else ``note``)."""
        return self.knowledge.remember(text, type=type, scope=scope)

    def edit_memory(
        self, memory_id: str, text: str, *, expected_version: int | None = None
    ) -> MemoryItem:
        """A new version of the memory's text (the old version stays in the log)."""
        return self.knowledge.edit_memory(memory_id, text, expected_version=expected_version)

    def enable_memory(self, memory_id: str) -> MemoryItem:
        return self.knowledge.enable_memory(memory_id)

    def disable_memory(self, memory_id: str) -> MemoryItem:
        """Hide the memory and everything derived only from it from every read."""
        return self.knowledge.disable_memory(memory_id)

    def forget(self, memory_id: str) -> MemoryItem:
        """Delete a memory from the list (history and evidence stay in the log)."""
        return self.knowledge.forget(memory_id)

    def batches(self) -> list[BatchInfo]:
        """Every committed batch, oldest first, with the changes it made."""
        return self.knowledge.batches()

    def batch(self, batch_id: str) -> BatchInfo:
        return self.knowledge.batch(batch_id)

    def rollback(self, batch_id: str, *, force: bool = False) -> BatchInfo:
        """Undo a batch atomically by appending its before-states (history is kept); a
        distillation batch's turns return to the pending set."""
        return self.distillation.rollback(batch_id, force=force)

    def rebuild_views(self) -> str:
        """Re-project every view and core.md from the records."""
        return self.knowledge.rebuild_views()

    # ================================================================== distillation

    def distill(
        self, session_ids: Sequence[str] | None = None, *, max_batches: int | None = None
    ) -> DistillReport:
        """Run the five stages over everything not yet distilled (or only ``session_ids``)."""
        return self.distillation.distill(session_ids, max_batches=max_batches)

    def sleep(self, mode: str = "light") -> DistillReport:
        """``light``: distill all pending turns; ``deep``: then every view and core.md."""
        return self.distillation.sleep(mode)

    def run_daemon(
        self,
        *,
        interval: float = 60.0,
        stop: threading.Event | None = None,
        idle_minutes: float | None = None,
        daily_at: str | None = None,
    ) -> None:
        """Block running the idle watcher and the daily sleep until ``stop`` is set."""
        self.distillation.run_daemon(
            interval=interval, stop=stop, idle_minutes=idle_minutes, daily_at=daily_at
        )

    def pending_nodes(self) -> int:
        """Committed DAG nodes the pipeline has not distilled yet."""
        return self.distillation.pending_nodes()

    # ================================================================== index and recall

    @property
    def embedder(self) -> Embedder | None:
        """The configured embedder (``None`` = full text only)."""
        return self.retrieval.embedder

    @property
    def index_path(self) -> Path:
        """Where the files backend keeps this tenant's index."""
        return self.tenant.index_file

    def recall(
        self,
        query: str,
        *,
        budget: int = BUDGET_DEFAULT,
        scope: Scope = None,
        at: float | None = None,
        recipe: str = "default",
        session_id: str | None = None,
    ) -> RecallResult:
        """Bounded context for ``query``: at most 20 items within ``budget`` tokens, each with
        provenance; falls back to the "latest 20" instead of failing."""
        return self.retrieval.recall(
            query, budget=budget, scope=scope, at=at, recipe=recipe, session_id=session_id
        )

    def search(
        self,
        query: str,
        *,
        limit: int = 10,
        scope: Scope = None,
        kinds: Sequence[str] | None = None,
    ) -> list[SearchHit]:
        """Hybrid search over everything indexed (navigation tool ``memory_search``)."""
        return self.retrieval.search(query, limit=limit, scope=scope, kinds=kinds)

    def open_session(
        self, session_id: str, *, around: str | None = None, radius: int = 5
    ) -> list[Node]:
        """Navigation tool ``memory_open_session``: the session, or ``radius`` messages each
        side of node ``around``."""
        return self.retrieval.open_session(session_id, around=around, radius=radius)

    def git_log(
        self, project_id: str | None = None, *, session_id: str | None = None, limit: int = 20
    ) -> list[CommitInfo]:
        """Navigation tool ``memory_git_log``: a project's agent commits, or a session's."""
        return self.retrieval.git_log(project_id, session_id=session_id, limit=limit)

    def sync_index(self, *, turns: bool | None = None) -> dict[str, int]:
        """Absorb new turns and knowledge batches into the index."""
        return self.retrieval.sync_index(turns=turns)

    def reindex(self, *, wait_for_vectors: bool = True) -> dict[str, int]:
        """Drop the index and rebuild it from the files (same documents, same answers)."""
        return self.retrieval.reindex(wait_for_vectors=wait_for_vectors)

    def index_stats(self) -> dict[str, Any]:
        return self.retrieval.index_stats()

    def drain_outbox(
        self,
        *,
        max_rounds: int = 100_000,
        threads: int = 1,
        limit: int | None = None,
        on_batch: Callable[[int], None] | None = None,
    ) -> int:
        """Process index jobs until none is left: ``threads`` workers in this process, at
        most ``limit`` jobs, ``on_batch(n)`` after each batch (a progress bar)."""
        return self.retrieval.drain_outbox(
            max_rounds=max_rounds, threads=threads, limit=limit, on_batch=on_batch
        )

    def outbox_status(self) -> dict[str, Any]:
        return self.retrieval.outbox_status()

    def outbox_retry(self, ids: Sequence[int] | None = None) -> int:
        """Move dead-lettered index jobs back to the queue."""
        return self.retrieval.outbox_retry(ids)

    def run_worker(self, stop: threading.Event, *, batch: int = 32, poll: float = 0.5) -> None:
        """Consume index jobs until ``stop`` is set (``ogmem worker``)."""
        self.retrieval.run_worker(stop, batch=batch, poll=poll)

    # ================================================================== lifecycle

    def wait_background(self, timeout: float | None = None) -> None:
        """Wait for background work (LLM titles, fast-path distillation, the core.md it
        changes) of this instance."""
        self.distillation.wait(timeout)
        self.sessions.wait(timeout)
        self.knowledge.wait(timeout)  # core.md rendered after what distillation committed

    def close(self) -> None:
        """Finish background work and erase this instance's temporary sessions."""
        self.wait_background(timeout=5)
        self.retrieval.close()
        self.sessions.close()
        self.knowledge.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- importers (issue 12): agent histories synced incrementally; the logic is importers/

    def import_history(
        self,
        fmt: str,
        paths: Iterable[str | Path],
        *,
        bind_projects: bool = True,
        on_file: Callable[[FileOutcome, int, int], None] | None = None,
    ) -> ImportReport:
        """Import ``claude-code``, ``codex`` or ``aider`` history files (folders are searched);
        run again, it records only what is new. See ``importers.sync``."""
        return HistorySync(self, fmt, bind_projects=bind_projects).run(paths, on_file=on_file)

    def import_claude_code(self, paths: Iterable[str | Path], **kw: Any) -> ImportReport:
        return self.import_history("claude-code", paths, **kw)

    def import_codex(self, paths: Iterable[str | Path], **kw: Any) -> ImportReport:
        return self.import_history("codex", paths, **kw)

    def import_aider(self, paths: Iterable[str | Path], **kw: Any) -> ImportReport:
        return self.import_history("aider", paths, **kw)

    def import_upload(self, fmt: str, data: bytes, *, name: str) -> ImportReport:
        """Import one uploaded history file; uploading it again once it grew adds the rest."""
        return HistorySync(self, fmt).upload(data, name)

    # --- web UI (issue 13): reads the web UI needs; the logic is the knowledge layer's

    def memory_versions(self, memory_id: str) -> list[MemoryVersion]:
        """Every change of a memory, oldest first, from the operation log (before/after)."""
        return self.knowledge.memory_versions(memory_id)

    def graph_at(self, at: float | None = None, *, scope: Scope = None) -> GraphSnapshot:
        """The graph as of ``at`` (default: now): entities known then, relations valid then."""
        return self.knowledge.graph_at(at, scope=scope)

    def entity_view(self, name: str) -> str:
        """The readable page of an entity (markdown), rendered now from the records."""
        return self.knowledge.entity_view(name)

    def memory_types(self) -> list[MemoryType]:
        """The memory types declared in YAML (package, ``<home>/schemas``, the tenant's)."""
        return self.knowledge.schema.all()

    # --- context engine (issue 11): ogm:// URIs (state files and titles: memory_sessions);
    # the engine itself (engine/) sits above this facade and uses only its public methods

    def resolve_uri(self, uri: str, *, level: int = 2) -> Resolved:
        """What ``ogm://<type>/<id>`` names in this tenant, as L0 abstract, L1 overview and
        (``level=2``) L2 content: ``mem.resolve_uri("ogm://memory/m_0123").abstract``."""
        resolver = URIResolver(self.knowledge.kb, self, self.retrieval.index)
        return resolver.resolve(uri, level=level)

    def knowledge_version(self) -> int:
        """A number that changes whenever a knowledge batch commits, in any process (a cache
        key for what is projected from the knowledge, such as core.md)."""
        return self.knowledge.version()

    # --- hardening (issue 10): check and repair this tenant's files; the logic is health/

    def fsck(self, *, repair: bool = False) -> FsckReport:
        """Check every session repository, the knowledge logs and the index of this tenant;
        with ``repair``, fix what the home itself can fix (``ogmem fsck`` does this for every
        tenant of a home). ``report.exit_code``: 0 clean, 1 all repaired, 4 problems left."""
        from .health.fsck import check_tenant

        return check_tenant(self, repair=repair)
