"""The knowledge half of the ``Memory`` facade: memory list, timeline, graph, core.md,
distillation and the operation log. ``Memory`` inherits it; interfaces call it through Memory.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .distill.pipeline import Distiller, DistillReport
from .distill.types import Extractor
from .errors import InvalidInput, NotFound
from .knowledge.logstore import BatchInfo
from .knowledge.models import Edge, Entity, Evidence, MemoryItem, TimelineEvent
from .knowledge.schema import SchemaRegistry
from .knowledge.store import KnowledgeBase
from .knowledge.views import render_core

if TYPE_CHECKING:
    from .config import Settings
    from .storage.protocols import ProjectStore, ProvenanceSource
    from .tenancy import TenantRoot

__all__ = ["KnowledgeAPI", "scopes_for"]

log = logging.getLogger(__name__)

SLEEP_MODES = ("light", "deep")


def scopes_for(scope: str | Sequence[str] | None) -> list[str] | None:
    """What a read in ``scope`` may see: ``project:x`` sees global + project:x; None sees all."""
    if scope is None:
        return None
    if isinstance(scope, str):
        if scope == "global":
            return ["global"]
        if not scope.startswith(("project:", "agent:")) or len(scope.split(":", 1)[1]) == 0:
            raise InvalidInput(f"scope must be 'global', 'project:<id>' or 'agent:<id>', not {scope!r}")
        return ["global", scope]
    return [s for item in scope for s in (scopes_for(item) or [])]


class KnowledgeAPI:
    """Mixed into ``Memory``; relies on its tenant, settings and entity-layer stores."""

    settings: Settings
    tenant: TenantRoot
    _projects: ProjectStore
    _provenance: ProvenanceSource

    def _knowledge_init(self, extractor: Extractor | None = None) -> None:
        self._custom_extractor = extractor
        self._kb: KnowledgeBase | None = None
        self._schema: SchemaRegistry | None = None
        self._distiller: Distiller | None = None
        self._kb_lock = threading.Lock()
        self._queue: set[str] = set()
        self._queue_cond = threading.Condition()
        self._worker: threading.Thread | None = None
        self._busy = False

    # ================================================================== components (lazy)

    @property
    def kb(self) -> KnowledgeBase:
        with self._kb_lock:
            if self._kb is None:
                self._kb = KnowledgeBase(self.tenant.memory_dir, fsync=self.settings.fsync)
            return self._kb

    @property
    def schema(self) -> SchemaRegistry:
        """Memory types: the package's YAML files, then ``<home>/schemas`` and the tenant's."""
        if self._schema is None:
            self._schema = SchemaRegistry.load(self.settings.home / "schemas",
                                               self.tenant.root / "schemas")
        return self._schema

    def _make_extractor(self) -> Extractor:
        if self._custom_extractor is not None:
            return self._custom_extractor
        from .distill.extractors import default_extractor

        rules = default_extractor(self.schema)
        name = self.settings.extractor
        if name == "rules":
            return rules
        if self.settings.llm is None:
            raise InvalidInput(f"extractor {name!r} needs an LLM endpoint (OGMEM_LLM_BASE_URL)")
        if name == "llm":
            from .distill.extractors.llm import LLMExtractor

            return LLMExtractor(self.settings.llm, self.schema, rules)
        if name == "react":
            from .distill.extractors.react import ReActExtractor

            return ReActExtractor(self.settings.llm, self.schema, self.kb, rules)
        raise InvalidInput(f"unknown extractor {name!r}; use rules, llm or react")

    @property
    def distiller(self) -> Distiller:
        if self._distiller is None:
            self._distiller = Distiller(
                self.kb, self._provenance, self._projects, self.schema, self._make_extractor(),
                batch_nodes=self.settings.distill_batch_nodes)
        return self._distiller

    # ================================================================== distillation

    def distill(self, session_ids: Sequence[str] | None = None, *,
                max_batches: int | None = None) -> DistillReport:
        """Run the five stages over everything not yet distilled (or only ``session_ids``)."""
        return self.distiller.run(session_ids=session_ids, max_batches=max_batches)

    def sleep(self, mode: str = "light") -> DistillReport:
        """``light``: distill all pending turns in bounded batches. ``deep``: light, then
        regenerate every entity view and core.md."""
        if mode not in SLEEP_MODES:
            raise InvalidInput(f"sleep mode must be light or deep, not {mode!r}")
        report = self.distill()
        if mode == "deep":
            self.distiller.project_all()
        return report

    def run_daemon(self, *, interval: float = 60.0, stop: threading.Event | None = None,
                   idle_minutes: float | None = None, daily_at: str | None = None) -> None:
        """Block running the idle watcher and the daily sleep until ``stop`` is set."""
        from .distill.triggers import Schedule, run_daemon

        schedule = Schedule(idle_minutes=idle_minutes or self.settings.idle_minutes,
                            daily_at=daily_at or self.settings.daily_sleep_at)
        run_daemon(self._sessions_for_daemon, lambda ids: self.distill(ids), self.sleep, schedule,
                   interval=interval, stop=stop)

    def _sessions_for_daemon(self) -> list[Any]:
        raise NotImplementedError  # provided by Memory

    def pending_nodes(self) -> int:
        """Committed DAG nodes the pipeline has not distilled yet."""
        return self.distiller.pending()

    def _distill_soon(self, session_id: str) -> None:
        """Fast path: queue the session for the background distiller (best effort)."""
        with self._queue_cond:
            self._queue.add(session_id)
            if self._worker is None or not self._worker.is_alive():
                self._worker = threading.Thread(target=self._drain, name="ogmem-distill", daemon=True)
                self._worker.start()
            self._queue_cond.notify_all()

    def _drain(self) -> None:
        while True:
            with self._queue_cond:
                if not self._queue:
                    self._busy = False
                    self._queue_cond.notify_all()
                    return
                batch = sorted(self._queue)
                self._queue.clear()
                self._busy = True
            try:
                self.distill(batch)
            except Exception:  # background fast path: failures are logged, never raised
                log.warning("fast-path distillation of %s failed", batch, exc_info=True)

    def _wait_distill(self, timeout: float | None) -> None:
        with self._queue_cond:
            self._queue_cond.wait_for(lambda: not self._queue and not self._busy, timeout)

    # ================================================================== reads

    def timeline(self, since: float | None = None, until: float | None = None, *,
                 entity: str | None = None, kind: str | None = None,
                 scope: str | Sequence[str] | None = None,
                 include_superseded: bool = False) -> list[TimelineEvent]:
        """Events in ``[since, until)`` by when they happened, optionally about one entity."""
        return self.kb.events(since=since, until=until, entity=entity, kind=kind,
                              scopes=scopes_for(scope), include_superseded=include_superseded)

    def entities(self, *, type: str | None = None,
                 scope: str | Sequence[str] | None = None) -> list[Entity]:
        return self.kb.entities(type=type, scopes=scopes_for(scope))

    def entity(self, name: str) -> Entity:
        """An entity by id, name or alias."""
        return self.kb.entity(name)

    def facts(self, *, entity: str | None = None, at: float | None = None,
              include_history: bool = False, relation: str | None = None,
              scope: str | Sequence[str] | None = None) -> list[Edge]:
        """Graph relations: valid now (default), valid at ``at``, or every version."""
        return self.kb.edges(entity=entity, at=at, include_history=include_history,
                             relation=relation, scopes=scopes_for(scope))

    def graph_neighbors(self, entity: str, hops: int = 1, *,
                        scope: str | Sequence[str] | None = None,
                        at: float | None = None) -> tuple[list[Entity], list[Edge]]:
        """Entities and relations within ``hops`` of ``entity``."""
        return self.kb.neighbors(entity, hops, scopes=scopes_for(scope), at=at)

    def core(self, *, scope: str | Sequence[str] | None = None, regenerate: bool = False,
             session_id: str | None = None) -> str:
        """core.md (≤ 2 KB). The stored file is the deep sleep's; ``regenerate`` (or a scope
        other than all) renders it now. A temporary session gets nothing (empty string)."""
        if session_id is not None and self.is_temporary(session_id):  # type: ignore[attr-defined]
            return ""
        path = self.distiller.core_path
        if scope is not None:
            return render_core(self.kb, scopes=scopes_for(scope))
        if regenerate or not path.exists():
            return self.distiller.project_all()
        return path.read_text(encoding="utf-8")

    # ================================================================== memory list

    def memories(self, *, include_disabled: bool = True, type: str | None = None,
                 scope: str | Sequence[str] | None = None) -> list[MemoryItem]:
        return self.kb.memories(include_disabled=include_disabled, type=type, scopes=scopes_for(scope))

    def get_memory(self, memory_id: str) -> MemoryItem:
        mem = self.kb.memory(memory_id)
        if mem.deleted:
            raise NotFound(f"memory not found: {memory_id}")
        return mem

    def evidence(self, memory_id: str) -> list[Evidence]:
        """The frozen evidence snapshots of a memory (what was said, and where)."""
        self.get_memory(memory_id)
        return self.kb.evidence(memory_id)

    def remember(self, text: str, *, type: str = "profile", scope: str = "global") -> MemoryItem:
        """Add a memory by hand; its facts are derived at once and supported by it."""
        if not isinstance(text, str) or not text.strip():
            raise InvalidInput("memory text must be a non-empty string")
        if len(text) > 10_000:
            raise InvalidInput("memory text is longer than 10,000 characters")
        self.schema.get(type)
        scopes_for(scope)
        mem = self.kb.add_memory(text, type=type, scope=scope, quote=text, source="user")
        self.distiller.distill_memory(mem)
        self._after_visibility_change()
        return self.get_memory(mem.id)

    def edit_memory(self, memory_id: str, text: str, *,
                    expected_version: int | None = None) -> MemoryItem:
        """A new version of the memory's text (the old version stays in the log)."""
        self.get_memory(memory_id)
        mem = self.kb.edit_memory(memory_id, text=text, expected_version=expected_version)
        # What was derived from the old text no longer rests on this memory; derive anew.
        self._withdraw_support(memory_id)
        self.distiller.distill_memory(mem)
        self._after_visibility_change()
        return self.get_memory(memory_id)

    def _withdraw_support(self, memory_id: str) -> None:
        from dataclasses import replace

        from .knowledge.models import Edge, Entity, TimelineEvent, from_dict

        batch = self.kb.begin("memory edit: withdraw derived facts")
        for rec in self.kb.log.all("edge"):
            if memory_id in rec.get("support", []):
                edge = Edge.from_json(rec)
                batch.put_edge(replace(edge, support=tuple(s for s in edge.support if s != memory_id)))
        for rec in self.kb.log.all("event"):
            if memory_id in rec.get("support", []):
                ev = from_dict(TimelineEvent, rec)
                batch.put_event(replace(ev, support=tuple(s for s in ev.support if s != memory_id)))
        for rec in self.kb.log.all("entity"):
            if memory_id in rec.get("support", []):
                ent = from_dict(Entity, rec)
                batch.put_entity(replace(ent, support=tuple(s for s in ent.support if s != memory_id)))
        batch.commit()

    def enable_memory(self, memory_id: str) -> MemoryItem:
        return self._toggle(memory_id, True)

    def disable_memory(self, memory_id: str) -> MemoryItem:
        """Hide the memory and everything derived only from it from every read."""
        return self._toggle(memory_id, False)

    def _toggle(self, memory_id: str, enabled: bool) -> MemoryItem:
        self.get_memory(memory_id)
        mem = self.kb.edit_memory(memory_id, enabled=enabled)
        self._after_visibility_change()
        return mem

    def forget(self, memory_id: str) -> MemoryItem:
        """Delete a memory from the list (a new ``deleted`` version; history and evidence stay,
        facts derived only from it disappear from reads)."""
        self.get_memory(memory_id)
        mem = self.kb.edit_memory(memory_id, deleted=True, enabled=False)
        self._after_visibility_change()
        return mem

    def _after_visibility_change(self) -> None:
        try:
            if self.distiller.core_path.exists():
                self.distiller.project_all()
            else:
                from .knowledge.views import write_entity_views

                write_entity_views(self.kb, self.distiller.views_dir)
        except OSError as exc:
            log.warning("could not re-project views: %s", exc)

    # ================================================================== operation log

    def batches(self) -> list[BatchInfo]:
        """Every committed batch, oldest first, with the changes it made."""
        self.kb.refresh()
        return self.kb.batches()

    def batch(self, batch_id: str) -> BatchInfo:
        return self.kb.log.batch(batch_id)

    def rollback(self, batch_id: str, *, force: bool = False) -> BatchInfo:
        """Undo a batch atomically by appending its before-states (history is kept)."""
        info = self.kb.rollback(batch_id, force=force)
        self._after_visibility_change()
        return info

    def rebuild_views(self) -> str:
        """Re-project every view and core.md from the logs."""
        return self.distiller.project_all()

