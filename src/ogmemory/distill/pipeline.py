"""The five-stage distillation pipeline (seed 000 §6, seed 003 "Dream").

    collect    committed DAG nodes since the persisted cursor (tool nodes included) and
               project commits since the last one seen
    extract    an Extractor turns them into candidate memories with exact evidence
    link       entity names → graph entities (alias resolution, merges)
    reconcile  contradictions end old facts; known facts gain support instead of copies
    project    entity views (and core.md on deep sleep)

Each batch is bounded (whole turns, about ``batch_nodes`` nodes) and atomic: its memories,
evidence, entities, edges and events become visible together with its commit marker, which
also carries the advanced cursor. A crash anywhere before the marker leaves nothing visible
and the next run redoes the same nodes; a crash after it loses nothing. One run at a time per
tenant (a file lock), so two processes never distill the same nodes.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC
from typing import Any

from ..entity.records import CommitInfo, NodeRecord, Provenance
from ..errors import Conflict
from ..knowledge.base import KnowledgeBase
from ..knowledge.batch import KnowledgeBatch
from ..knowledge.models import Edge, Evidence, MemoryItem
from ..knowledge.names import normalize_name
from ..knowledge.schema import MemoryType, SchemaRegistry
from ..knowledge.views import project_all, write_entity_views
from ..storage.protocols import ProjectStore, ProvenanceSource
from .commits import apply_commit
from .dates import anchor_dates, day_of
from .followups import FollowUps
from .link import Linker, Reconciler
from .rederive import said_by_user
from .subjects import ProjectSubjects, expand_facts, scope_of
from .types import Candidate, Extractor

__all__ = ["DistillReport", "Distiller"]

log = logging.getLogger(__name__)

#: Candidate attributes a memory keeps (for views: the user's name, a deadline's date).
_MEMORY_ATTRS = ("name", "deadline", "date", "planned", "social")


@dataclass
class DistillReport:
    """What one run did (summed over its batches)."""

    batches: list[str] = field(default_factory=list)
    nodes: int = 0
    project_commits: int = 0
    candidates: int = 0
    stats: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0

    def add(self, stats: dict[str, int]) -> None:
        for key, value in stats.items():
            self.stats[key] = self.stats.get(key, 0) + value

    def to_dict(self) -> dict[str, Any]:
        return {
            "batches": self.batches,
            "nodes": self.nodes,
            "project_commits": self.project_commits,
            "candidates": self.candidates,
            "stats": self.stats,
            "seconds": round(self.seconds, 3),
        }


class Distiller:
    """Runs the pipeline for one tenant."""

    def __init__(
        self,
        kb: KnowledgeBase,
        source: ProvenanceSource,
        projects: ProjectStore,
        registry: SchemaRegistry,
        extractor: Extractor,
        *,
        batch_nodes: int = 200,
    ) -> None:
        self.kb = kb
        self.source = source
        self.projects = projects
        self.registry = registry
        self.extractor = extractor
        self.tz = getattr(extractor, "tz", UTC)  # where "next Tuesday" is read
        self.batch_nodes = max(1, batch_nodes)
        # (log version, memory index, evidence nodes) as this distiller's last batch left them:
        # reused by the next batch while no other batch came in between (fast path: O(batch),
        # not O(memories), per turn)
        self._memo: (
            tuple[int, dict[tuple[str, ...], str] | None, dict[str, set[str]] | None] | None
        ) = None

    # ================================================================== stage 1: collect

    def cursor(self) -> dict[str, Any]:
        cursor = self.kb.store.last_meta("cursor")
        if not isinstance(cursor, dict):
            cursor = {}
        return {
            "sessions": dict(cursor.get("sessions") or {}),
            "projects": dict(cursor.get("projects") or {}),
        }

    def _collect(
        self,
        cursor: dict[str, Any],
        session_ids: Sequence[str] | None,
    ) -> list[NodeRecord]:
        """Whole turns, oldest session first, until about ``batch_nodes`` nodes."""
        out: list[NodeRecord] = []
        last_turn: tuple[str, str] | None = None
        for rec in self.source.iter_nodes_since(cursor["sessions"], session_ids=session_ids):
            turn = (rec.session_id, rec.commit)
            if len(out) >= self.batch_nodes and turn != last_turn:
                break
            out.append(rec)
            last_turn = turn
        return out

    def _collect_commits(self, cursor: dict[str, Any]) -> list[tuple[str, CommitInfo]]:
        found = []
        for project in self.projects.all():
            try:
                commits = self.source.project_commits_since(
                    project.project_id, cursor["projects"].get(project.project_id), limit=50
                )
            except Exception as exc:  # an unreadable user repository must not stop distillation
                log.warning("project %s: cannot read commits: %s", project.project_id, exc)
                continue
            found += [(project.project_id, c) for c in commits]
        return found

    def pending(self) -> int:
        """How many committed nodes are not distilled yet."""
        return sum(1 for _ in self.source.iter_nodes_since(self.cursor()["sessions"]))

    # ================================================================== running

    def run(
        self,
        *,
        session_ids: Sequence[str] | None = None,
        max_batches: int | None = None,
        include_projects: bool = True,
    ) -> DistillReport:
        """Distill everything pending (or only ``session_ids``), batch by batch."""
        report = DistillReport()
        start = time.perf_counter()
        with self.kb.store.exclusive("distill"):
            while max_batches is None or len(report.batches) < max_batches:
                done = self._one_batch(report, session_ids, include_projects)
                if not done:
                    break
        report.seconds = time.perf_counter() - start
        return report

    def _one_batch(
        self, report: DistillReport, session_ids: Sequence[str] | None, include_projects: bool
    ) -> bool:
        for attempt in range(3):
            self.kb.refresh()
            cursor = self.cursor()
            records = self._collect(cursor, session_ids)
            commits = (
                self._collect_commits(cursor) if include_projects and session_ids is None else []
            )
            if not records and not commits:
                return False
            result = self.extractor.extract(records) if records else None
            candidates = list(result.candidates) if result else []
            batch = self.kb.begin(f"distill ({self.extractor.name})")
            linker = Linker(self.kb, batch)
            reconciler = Reconciler(self.kb, batch, linker)
            stats = dict(result.stats) if result else {}
            before = self.kb.version
            applier = _Applier(self, batch, linker, reconciler, records)
            if self._memo is not None and self._memo[0] == before:
                applier.reuse(self._memo[1], self._memo[2])
            self._memo = None  # the applier edits them in place: valid again only after commit
            for cand in candidates:
                applier.apply(cand)
            # stage 4 against what is known: changes said of facts held before (followups)
            reader = FollowUps(
                reconciler.live_edges, linker.entity, tz=self.tz, shown=applier.supported
            )
            if found := reader.apply(records, applier.apply):
                stats["follow_ups"] = found
            for project_id, commit in commits:
                applier.apply_commit(project_id, commit)
            for rec in records:
                cursor["sessions"][rec.session_id] = max(
                    cursor["sessions"].get(rec.session_id, 0), rec.node.seq
                )
            for project_id, commit in commits:
                cursor["projects"][project_id] = commit.sha
            stats.update({k: v for k, v in applier.stats.items() if v})
            stats.update({k: v for k, v in reconciler.stats.items() if v})
            try:
                info = batch.commit(
                    cursor=cursor,
                    stats=stats,
                    extractor=self.extractor.name,
                    nodes=len(records),
                    force_marker=True,
                )
            except Conflict as exc:  # a concurrent writer changed a mutable record: redo
                log.info("distill batch conflict (attempt %d): %s", attempt + 1, exc)
                continue
            assert info is not None
            if self.kb.version == before + 1:
                self._memo = (before + 1, *applier.built())
            report.batches.append(info.id)
            report.nodes += len(records)
            report.project_commits += len(commits)
            report.candidates += len(candidates)
            report.add(stats)
            self._project(linker.touched)
            return True
        raise Conflict("distillation kept conflicting with concurrent writers; try again")

    # ================================================================== stage 5: project

    def _project(self, entity_ids: Iterable[str]) -> None:
        try:
            write_entity_views(self.kb, self.kb.views_dir, entity_ids)
        except OSError as exc:  # views are derived; a failure here must not lose the batch
            log.warning("could not write entity views: %s", exc)

    def project_all(
        self, *, scopes: Sequence[str] | None = None, project: str | None = None
    ) -> str:
        """Deep-sleep projection: every entity view and core.md. Returns core.md."""
        # the stored core.md is the global one; a project's or an agent's is rendered on demand
        return project_all(
            self.kb,
            self.kb.views_dir,
            self.kb.core_path,
            scopes=list(scopes) if scopes is not None else ["global"],
            project=project,
        )

    def distill_memory(
        self, memory: MemoryItem, *, batch: KnowledgeBatch | None = None
    ) -> dict[str, int]:
        """Derive graph facts from a memory the user wrote (or edited); they are supported by
        that memory. The text is read as its speaker said it, when the memory was last written,
        in the memory's scope. With ``batch``, the facts are staged there (not committed)."""
        scope = memory.scope
        rec = said_by_user(memory.id, memory.text, scope, memory.updated_at or memory.created_at)
        result = self.extractor.extract([rec])
        own = batch is None
        batch = batch or self.kb.begin("distill memory")
        linker = Linker(self.kb, batch)
        reconciler = Reconciler(self.kb, batch, linker)
        applier = _Applier(self, batch, linker, reconciler, [rec], fixed_memory=memory)
        for cand in result.candidates:
            applier.apply(replace(cand, scope=scope))
        if own:
            batch.commit(memory_id=memory.id)
            self._project(linker.touched)
        return {**applier.stats, **reconciler.stats}

    def infer_type(self, text: str, scope: str) -> str | None:
        """The type of the first record the extractor reads in ``text`` said by the user."""
        rec = said_by_user("m_new", text, scope, time.time())
        found = self.extractor.extract([rec]).candidates
        return found[0].type if found else None


class _Applier:
    """Turns candidates into memory-list entries, entities, edges and events in one batch."""

    def __init__(
        self,
        distiller: Distiller,
        batch: KnowledgeBatch,
        linker: Linker,
        reconciler: Reconciler,
        records: Sequence[NodeRecord],
        *,
        fixed_memory: MemoryItem | None = None,
    ) -> None:
        self.d = distiller
        self.batch = batch
        self.linker = linker
        self.reconciler = reconciler
        self.nodes = {r.node.id: r for r in records}
        self.fixed = fixed_memory
        self.subjects = ProjectSubjects(distiller.projects)
        self.work_events: dict[tuple[str, int], str] = {}  # (session, turn) -> work event
        self.stats = {
            "memories_new": 0,
            "memories_supported": 0,
            "memories_updated": 0,
            "candidates_invalid": 0,
        }
        self._index: dict[tuple[str, ...], str] | None = None
        self._ev_nodes: dict[str, set[str]] | None = None

    def reuse(
        self, index: dict[tuple[str, ...], str] | None, ev_nodes: dict[str, set[str]] | None
    ) -> None:
        self._index, self._ev_nodes = index, ev_nodes

    def built(self) -> tuple[dict[tuple[str, ...], str] | None, dict[str, set[str]] | None]:
        """The lookups as this batch leaves them (``None``: never needed, so never built)."""
        return self._index, self._ev_nodes

    def _memory_index(self) -> dict[tuple[str, ...], str]:
        if self._index is None:
            self._index = {}
            for mem in self.d.kb.memories(include_disabled=True):
                key = mem.attrs.get("key")
                self._index[
                    tuple(key) if isinstance(key, list) else (mem.type, normalize_name(mem.text))
                ] = mem.id
        return self._index

    def _evidence_nodes(self) -> dict[str, set[str]]:
        if self._ev_nodes is None:
            self._ev_nodes = {}
            for ev in self.d.kb.store.all(Evidence):
                nodes = ev.provenance.node_ids if ev.provenance else ()
                self._ev_nodes.setdefault(ev.memory_id, set()).update(nodes)
        return self._ev_nodes

    def apply(self, cand: Candidate) -> None:
        recs = [self.nodes[n] for n in cand.node_ids if n in self.nodes]
        if cand.type not in self.d.registry or not recs or not cand.text.strip():
            self.stats["candidates_invalid"] += 1
            return
        mtype = self.d.registry.get(cand.type)
        last = recs[-1]
        said = day_of(recs[0].node.event_time, self.d.tz)
        cand = replace(cand, text=anchor_dates(cand.text, said))  # "next Tuesday (2027-05-11)"
        cand = self.subjects.subject(cand, last)
        prov = Provenance(
            project_id=last.project_id,
            session_id=last.session_id,
            node_ids=tuple(r.node.id for r in recs),
            commit=last.commit or None,
            event_time=recs[0].node.event_time,
            ingestion_time=self.batch.now,
        )
        scope = scope_of(cand, mtype, last)
        quote = " / ".join(f"{r.node.name or r.node.role}: {r.node.text}" for r in recs)[:1000]
        memory_id = self._memory(cand, mtype, prov, scope, quote)
        if self._rewritten(memory_id, recs):
            return  # the user rewrote the memory after this turn: their words hold, not its facts
        subject = (
            self.linker.link(cand.subject, scope=scope, support=memory_id) if cand.subject else None
        )
        obj = self.linker.link(cand.object, scope=scope, support=memory_id) if cand.object else None
        others = [self.linker.link(e, scope=scope, support=memory_id) for e in cand.entities]
        if cand.replaces is not None:
            self.linker.link(cand.replaces, scope=scope, support=memory_id)
        if cand.relation and subject and obj:
            self.reconciler.edge(cand, subject, obj, prov, scope=scope, support=memory_id)
        for more in expand_facts(cand):
            src = (
                self.linker.link(more.subject, scope=scope, support=memory_id)
                if more.subject
                else None
            )
            dst = (
                self.linker.link(more.object, scope=scope, support=memory_id)
                if more.object
                else None
            )
            if src and dst:
                self.reconciler.edge(more, src, dst, prov, scope=scope, support=memory_id)
        kind = cand.kind or mtype.timeline_kind
        if kind:
            ids = [i for i in (subject, obj, *others) if i]
            fact = (
                f"{subject}|{cand.relation}|{obj}"
                if (kind == "decision" and cand.relation and subject and obj)
                else None
            )
            ev = self.reconciler.event(
                cand,
                kind,
                list(dict.fromkeys(ids)),
                prov,
                scope=scope,
                support=memory_id,
                fact=fact,
            )
            if kind == "work" and isinstance(cand.attrs.get("turn"), int):
                self.work_events[(last.session_id, cand.attrs["turn"])] = ev.id

    def _memory(
        self, cand: Candidate, mtype: MemoryType, prov: Provenance, scope: str, quote: str
    ) -> str:
        if self.fixed is not None:
            return self.fixed.id
        index = self._memory_index()
        if mtype.mutable and cand.subject and cand.relation:
            key: tuple[str, ...] = (mtype.name, normalize_name(cand.subject.name), cand.relation)
        elif cand.slot and cand.subject and cand.relation and cand.object:
            # one value of one specific attribute said again, in other words or another turn
            # ("the beta ships on March 3" / "reminder: the beta is due March 3") is one
            # memory with more evidence
            key = (
                mtype.name,
                normalize_name(cand.subject.name),
                cand.slot,
                normalize_name(cand.object.name),
            )
        else:
            key = (mtype.name, normalize_name(cand.text))
        existing = index.get(key)
        if existing is not None:
            mem = self.batch.get(MemoryItem, existing)
            if mem is not None and not mem.deleted:
                if (
                    mtype.mutable
                    and normalize_name(mem.text) != normalize_name(cand.text)
                    and not self._rewritten(
                        existing, [self.nodes[n] for n in prov.node_ids if n in self.nodes]
                    )
                ):
                    # Mutable lifecycle: the record is updated in place under a version check.
                    new = mem.evolve(
                        text=cand.text, version=mem.version + 1, updated_at=self.batch.now
                    )
                    if self.d.kb.store.get(MemoryItem, existing) is None:  # new in this batch
                        self.batch.put(new)
                    else:
                        self.batch.put(new, check_version=True, expect_version=mem.version)
                    self.batch.add_evidence(existing, prov, quote)
                    self.stats["memories_updated"] += 1
                    return existing
                known = self._evidence_nodes().setdefault(existing, set())
                if not set(prov.node_ids) <= known or not prov.node_ids:
                    self.batch.add_evidence(existing, prov, quote)
                    known.update(prov.node_ids)
                self.stats["memories_supported"] += 1
                return existing
        mem = self.batch.new_memory(
            cand.text,
            type=mtype.name,
            scope=scope,
            provenance=prov,
            quote=quote,
            source="distilled",
            importance=max(cand.importance, 0.0),
            language=cand.language,
            attrs={
                "key": list(key),
                "confidence": cand.confidence,
                **{k: v for k, v in cand.attrs.items() if k in _MEMORY_ATTRS},
            },
        )
        index[key] = mem.id
        if self._ev_nodes is not None:
            self._ev_nodes[mem.id] = set(prov.node_ids)
        self.stats["memories_new"] += 1
        return mem.id

    def supported(self, edge: Edge) -> bool:
        """Whether an enabled memory supports ``edge`` (one with no support is the user's)."""
        mems = [self.batch.get(MemoryItem, sid) for sid in edge.support]
        return not edge.support or any(m is not None and m.active for m in mems)

    def _rewritten(self, memory_id: str, recs: Sequence[NodeRecord]) -> bool:
        """Whether the user edited the memory after these turns were recorded (a turn read
        again, by a rollback's or a repair's rewind, must not undo the user's words)."""
        mem = self.batch.get(MemoryItem, memory_id) if self.fixed is None else None
        edited = mem.attrs.get("edited") if mem is not None else None
        return (
            isinstance(edited, (int, float))
            and bool(recs)
            and max(r.node.ingestion_time for r in recs) <= edited
        )

    def apply_commit(self, project_id: str, commit: CommitInfo) -> None:
        """A project commit: the agent's joins its turn's work event, the user's is history."""
        apply_commit(self, project_id, commit)
