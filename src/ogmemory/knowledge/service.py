"""The abstract layer and the memory list as one service (seeds 000 + 003): timeline, graph,
core.md, the memory list with its evidence, and the operation log.

Facts derived from a memory the user writes come from the distillation layer above; it plugs
itself in as the ``deriver`` (this layer never imports it).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from ..config import Settings
from ..errors import InvalidInput, NotFound
from ..limits import check_text
from ..storage.folded import BatchInfo
from ..storage.protocols import KnowledgeStore
from ..tenancy import TenantRoot
from .base import KnowledgeBase
from .batch import KnowledgeBatch
from .core_cache import CoreCache
from .models import Edge, Entity, Evidence, MemoryItem, TimelineEvent
from .schema import SchemaRegistry
from .scopes import scopes_for, validate_scope
from .snapshot import GraphSnapshot, graph_snapshot
from .versions import MemoryVersion, memory_versions
from .views import project_all, render_core, render_entity_view, write_entity_views

__all__ = ["MAX_MEMORY_CHARS", "Deriver", "KnowledgeService"]

log = logging.getLogger(__name__)

MAX_MEMORY_CHARS = 10_000


class Deriver(Protocol):
    """Derives graph facts and events from a memory the user wrote (the distillation layer);
    with ``batch``, they are staged there (an edit's batch) instead of committed."""

    def derive(self, memory: MemoryItem, batch: KnowledgeBatch | None = None) -> None: ...

    def infer_type(self, text: str, scope: str) -> str | None:
        """The memory type distillation would give this statement (None: no opinion)."""
        ...


class KnowledgeService:
    """Knowledge of one tenant over a ``KnowledgeStore``."""

    def __init__(
        self,
        tenant: TenantRoot,
        settings: Settings,
        store: KnowledgeStore,
        *,
        is_temporary: Callable[[str], bool] = lambda _sid: False,
    ) -> None:
        self.tenant = tenant
        self.settings = settings
        self.kb = KnowledgeBase(store, tenant.memory_dir)
        self.deriver: Deriver | None = None
        self._is_temporary = is_temporary
        self._schema: SchemaRegistry | None = None
        self.core_cache = CoreCache(
            lambda scope: render_core(self.kb, scopes=scopes_for(scope)),
            self.version,
            self._on_commit,
        )

    @property
    def schema(self) -> SchemaRegistry:
        """Memory types: the package's YAML files, then ``<home>/schemas`` and the tenant's."""
        if self._schema is None:
            self._schema = SchemaRegistry.load(
                self.settings.home / "schemas", self.tenant.root / "schemas"
            )
        return self._schema

    @property
    def views_dir(self) -> Path:
        return self.kb.views_dir

    @property
    def core_path(self) -> Path:
        return self.kb.core_path

    # ================================================================== reads

    def timeline(
        self,
        since: float | None = None,
        until: float | None = None,
        *,
        entity: str | None = None,
        kind: str | None = None,
        scope: str | Sequence[str] | None = None,
        include_superseded: bool = False,
    ) -> list[TimelineEvent]:
        return self.kb.events(
            since=since,
            until=until,
            entity=entity,
            kind=kind,
            scopes=scopes_for(scope),
            include_superseded=include_superseded,
        )

    def entities(
        self, *, type: str | None = None, scope: str | Sequence[str] | None = None
    ) -> list[Entity]:
        return self.kb.entities(type=type, scopes=scopes_for(scope))

    def entity(self, name: str) -> Entity:
        return self.kb.entity(name)

    def facts(
        self,
        *,
        entity: str | None = None,
        at: float | None = None,
        include_history: bool = False,
        relation: str | None = None,
        scope: str | Sequence[str] | None = None,
    ) -> list[Edge]:
        return self.kb.edges(
            entity=entity,
            at=at,
            include_history=include_history,
            relation=relation,
            scopes=scopes_for(scope),
        )

    def graph_neighbors(
        self,
        entity: str,
        hops: int = 1,
        *,
        scope: str | Sequence[str] | None = None,
        at: float | None = None,
    ) -> tuple[list[Entity], list[Edge]]:
        return self.kb.neighbors(entity, hops, scopes=scopes_for(scope), at=at)

    def core(
        self,
        *,
        scope: str | Sequence[str] | None = None,
        regenerate: bool = False,
        session_id: str | None = None,
    ) -> str:
        """core.md (≤ 2 KB): the deep sleep's file, or rendered now for a scope or on request;
        empty for a temporary session."""
        if session_id is not None and self._is_temporary(session_id):
            return ""
        if isinstance(scope, str):
            return self.core_cache.get(scope)  # once per knowledge change (core_cache)
        if scope is not None:
            return render_core(self.kb, scopes=scopes_for(scope))
        if regenerate or not self.core_path.exists():
            return self.rebuild_views()
        return self.core_path.read_text(encoding="utf-8")

    def memories(
        self,
        *,
        include_disabled: bool = True,
        type: str | None = None,
        scope: str | Sequence[str] | None = None,
        session: str | None = None,
        entity: str | None = None,
    ) -> list[MemoryItem]:
        """The memory list, oldest first; ``session``: only memories with evidence in that
        session; ``entity`` (a name, alias or id): only those a fact, event or the entity itself
        rests on (``NotFound`` for an unknown entity)."""
        items = self.kb.memories(
            include_disabled=include_disabled, type=type, scopes=scopes_for(scope)
        )
        if session is not None:
            evidence = self.evidence_by_memory(items)
            items = [
                m
                for m in items
                if any(e.provenance and e.provenance.session_id == session for e in evidence[m.id])
            ]
        if entity is not None:
            about = self.kb.entity(entity)
            edges = self.kb.edges(entity=about.id, include_history=True, include_hidden=True)
            events = self.kb.events(entity=about.id, include_superseded=True, include_hidden=True)
            ids = {*about.support, *(s for e in edges for s in e.support)}
            ids.update(s for ev in events for s in ev.support)
            items = [m for m in items if m.id in ids]
        return items

    def outdated(self, memories: Sequence[MemoryItem]) -> dict[str, list[str]]:
        """Those of ``memories`` whose every derived fact has ended (none holds now, as the
        enabled evidence has it), each with the memories that the newer facts rest on (empty
        when they ended with no successor). Read-time only: nothing is written.

        A memory with no facts is never outdated: nothing says it stopped being true."""
        edges = self.kb.edges(include_history=True, include_hidden=True)
        by_id = {e.id: e for e in edges}
        derived: dict[str, list[Edge]] = {}
        for edge in edges:
            for memory_id in edge.support:
                derived.setdefault(memory_id, []).append(edge)
        out: dict[str, list[str]] = {}
        for mem in memories:
            facts = derived.get(mem.id)
            if not facts or any(e.current for e in facts):
                continue
            later: list[str] = []
            for edge in facts:
                successor = by_id.get(edge.superseded_by or "")
                for memory_id in successor.support if successor else ():
                    if memory_id != mem.id and memory_id not in later:
                        later.append(memory_id)
            out[mem.id] = later
        return out

    def evidence_by_memory(self, memories: Sequence[MemoryItem]) -> dict[str, list[Evidence]]:
        """The evidence snapshots of each of ``memories`` (one read of the logs for all)."""
        self.kb.store.refresh()
        return {m.id: self.kb.evidence_of(m) for m in memories}

    def get_memory(self, memory_id: str) -> MemoryItem:
        mem = self.kb.memory(memory_id)
        if mem.deleted:
            raise NotFound(f"memory not found: {memory_id}")
        return mem

    def evidence(self, memory_id: str) -> list[Evidence]:
        self.get_memory(memory_id)
        return self.kb.evidence(memory_id)

    # ================================================================== memory list writes

    def remember(self, text: str, *, type: str | None = None, scope: str = "global") -> MemoryItem:
        """Add a memory by hand; its facts are derived at once and supported by it. Without
        ``type``, the type is the one distillation gives the statement ("The staging server is
        ..." is ``config``, "I prefer ..." ``preference``), else ``note``."""
        if not isinstance(text, str) or not text.strip():
            raise InvalidInput("memory text must be a non-empty string")
        if len(text) > MAX_MEMORY_CHARS:
            raise InvalidInput(f"memory text is longer than {MAX_MEMORY_CHARS:,} characters")
        check_text(text, "memory text")
        validate_scope(scope)
        if type is None:
            type = self._infer_type(text, scope)
        self.schema.get(type)
        mem = self.kb.add_memory(text, type=type, scope=scope, quote=text, source="user")
        self._derive(mem)
        self._after_visibility_change()
        return self.get_memory(mem.id)

    def edit_memory(
        self, memory_id: str, text: str, *, expected_version: int | None = None
    ) -> MemoryItem:
        """A new version of the memory's text (the old version stays in the log); what was
        derived from the old text is withdrawn and derived anew."""
        self.get_memory(memory_id)
        check_text(text, "memory text")
        if self.deriver is not None:  # one batch: the new version, withdrawal, new facts
            self.kb.edit_memory(
                memory_id,
                text=text,
                expected_version=expected_version,
                rederive=self.deriver.derive,
            )
        else:
            self.kb.edit_memory(memory_id, text=text, expected_version=expected_version)
            self.kb.withdraw_support(memory_id)
        self._after_visibility_change()
        return self.get_memory(memory_id)

    def enable_memory(self, memory_id: str) -> MemoryItem:
        return self._toggle(memory_id, True)

    def disable_memory(self, memory_id: str) -> MemoryItem:
        return self._toggle(memory_id, False)

    def _toggle(self, memory_id: str, enabled: bool) -> MemoryItem:
        self.get_memory(memory_id)
        mem = self.kb.edit_memory(memory_id, enabled=enabled)
        self._after_visibility_change()
        return mem

    def forget(self, memory_id: str) -> MemoryItem:
        """A new ``deleted`` version; history and evidence stay, derived facts disappear."""
        self.get_memory(memory_id)
        mem = self.kb.edit_memory(memory_id, deleted=True, enabled=False)
        self._after_visibility_change()
        return mem

    def _infer_type(self, text: str, scope: str) -> str:
        guess = self.deriver.infer_type(text, scope) if self.deriver is not None else None
        return guess if guess is not None and guess in self.schema.names() else "note"

    def _derive(self, memory: MemoryItem) -> None:
        if self.deriver is not None:
            self.deriver.derive(memory)

    def _after_visibility_change(self) -> None:
        try:
            if self.core_path.exists():
                self.rebuild_views()
            else:
                write_entity_views(self.kb, self.views_dir)
        except OSError as exc:
            log.warning("could not re-project views: %s", exc)

    # ================================================================== operation log

    def batches(self) -> list[BatchInfo]:
        return self.kb.batches()

    def batch(self, batch_id: str) -> BatchInfo:
        return self.kb.batch(batch_id)

    def rollback(self, batch_id: str, *, force: bool = False, **meta: Any) -> BatchInfo:
        """Undo a batch (``meta`` goes into the undo's marker, e.g. a rewound cursor)."""
        info = self.kb.rollback(batch_id, force=force, **meta)
        self._after_visibility_change()
        return info

    def rebuild_views(self) -> str:
        """Re-project every entity view and core.md from the records; returns core.md. The
        stored core.md is the global one: a project's or an agent's is rendered on demand
        (``core(scope=...)``), so one project's stack never leaks into another's prompt."""
        return project_all(self.kb, self.views_dir, self.core_path, scopes=["global"])

    # ================================================================== reads for the web UI

    def memory_versions(self, memory_id: str) -> list[MemoryVersion]:
        """Every change of a memory, oldest first, from the operation log (before/after)."""
        self.get_memory(memory_id)  # an unknown id is NotFound, not an empty history
        return memory_versions(self.batches(), memory_id)

    def graph_at(
        self, at: float | None = None, *, scope: str | Sequence[str] | None = None
    ) -> GraphSnapshot:
        """The graph as of ``at`` (default: now): entities known then, relations valid then."""
        return graph_snapshot(self.kb, at=at, scopes=scopes_for(scope))

    def entity_view(self, name: str) -> str:
        """The readable page of an entity (markdown), rendered now from the records."""
        return render_entity_view(self.kb, self.entity(name))

    def version(self) -> int:
        """A number that changes whenever a knowledge batch commits, in any process."""
        self.kb.refresh()
        return int(self.kb.version)

    def _on_commit(self, listener: Callable[[Any], None]) -> bool:
        self.kb.store.on_commit(listener)
        return True

    def wait(self, timeout: float | None = None) -> None:
        """Wait for this service's background work (core.md rendered after a commit)."""
        self.core_cache.wait(timeout)

    def close(self) -> None:
        """Stop this service's background thread (core.md warming) and close the store (the
        JSONL store writes its checkpoint then)."""
        self.core_cache.close()
        self.kb.store.close()
