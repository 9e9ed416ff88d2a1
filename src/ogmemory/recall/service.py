"""Index upkeep and recall as one service (seeds 003 + 004): the index and its outbox worker,
bounded recall, search, and the navigation tools of seed 000 §7.2.

It reads the entity layer (new turns, and the sessions the navigation tools open) and the
knowledge layer (new batches, visibility), and is told of committed turns by the entity layer
(``after_turn``) so a recall indexes them first.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..config import Settings
from ..embed import Embedder, encode_queries, make_embedder
from ..embed.batch import QueryBatcher
from ..entity.records import CommitInfo, Node, TurnResult
from ..entity.service import SessionService
from ..errors import InvalidInput, NotFound
from ..index.docs import Doc
from ..index.indexer import Indexer
from ..index.text import query_terms
from ..index.worker import Worker, WorkerThread, drain, embedding_handler
from ..knowledge.scopes import scopes_for
from ..knowledge.service import KnowledgeService
from ..storage.protocols import Backend, IndexStore, JobQueue
from ..tenancy import TenantRoot
from .candidates import fuse
from .config import RECIPES, check_budget
from .fallback import latest_from_files
from .recaller import Recaller
from .results import RecallResult, SearchHit
from .tokens import count_tokens
from .visibility import LiveSessions, doc_visible

__all__ = ["RecallService"]

_HEX = re.compile(r"[0-9a-fA-F]{7,40}")


def _record_of(doc: Doc) -> str:
    """What a document is about: an overview is its record; a memory's event or fact, derived
    from and supported by it alone, is that memory."""
    if doc.kind in ("event", "fact") and len(doc.support) == 1:
        return f"memory:{doc.support[0]}"
    if doc.level == 1 and doc.parent and doc.kind != "session":
        return doc.parent
    return doc.id


log = logging.getLogger(__name__)


class RecallService:
    """The index of one tenant and everything that reads it."""

    def __init__(
        self,
        tenant: TenantRoot,
        settings: Settings,
        backend: Backend,
        knowledge: KnowledgeService,
        sessions: SessionService,
        *,
        embedder: Embedder | None = None,
    ) -> None:
        self.tenant = tenant
        self.settings = settings
        self.backend = backend
        self.knowledge = knowledge
        self.sessions = sessions
        self._embedder_obj = embedder
        self._embedder_loaded = False
        self._index: IndexStore | None = None
        self._indexer: Indexer | None = None
        self._lock = threading.RLock()
        self._turns_dirty = True
        self._worker: WorkerThread | None = None
        self._batcher: QueryBatcher | None = None

    # ================================================================== components

    @property
    def embedder(self) -> Embedder | None:
        """The configured embedder (``None`` = full text only)."""
        if not self._embedder_loaded:
            if self._embedder_obj is None:  # not given to Memory(embedder=...)
                self._embedder_obj = make_embedder(self.settings.embedder)
            self._embedder_loaded = True
        return self._embedder_obj

    @property
    def index(self) -> IndexStore:
        with self._lock:
            if self._index is None:
                emb = self.embedder
                self._index = self.backend.index(
                    self.tenant, embedder_name=emb.name if emb else None
                )
                self._indexer = Indexer(self._index, self.sessions.provenance, self.knowledge.kb)
            return self._index

    @property
    def jobs(self) -> JobQueue:
        """The outbox of index work."""
        return self.index.jobs

    def after_turn(self, _turn: TurnResult) -> None:
        """``SessionService.on_turn`` listener: the next read indexes new turns first."""
        self._turns_dirty = True

    def sync_index(self, *, turns: bool | None = None) -> dict[str, int]:
        """Absorb new turns and knowledge batches (full text at once; vectors through the
        outbox)."""
        with self._lock:
            self.index  # noqa: B018 - builds the indexer
            assert self._indexer is not None
            do_turns = self._turns_dirty if turns is None else turns
            counts = self._indexer.sync(turns=do_turns)
            if do_turns:
                self._turns_dirty = False
        if self.embedder is not None and self.settings.index_worker:
            self._ensure_worker()
        return counts

    def reindex(self, *, wait_for_vectors: bool = True) -> dict[str, int]:
        """Drop the index and rebuild it from the files (same documents, same answers)."""
        with self._lock:
            self.stop_worker()
            if self._index is not None:
                self._index.close()
            self._index = self._indexer = None
            self.backend.drop_index(self.tenant)  # whatever state it was in: it is derived
            self._turns_dirty = True
            counts = self.sync_index()
        if wait_for_vectors:
            self.drain_outbox()
        return counts

    def index_stats(self) -> dict[str, Any]:
        idx = self.index
        return {
            "documents": idx.count(),
            "turns": idx.count("turn"),
            "vectors": idx.vector_count(),
            "bytes": idx.size_bytes(),
            "embedder": idx.embedder_name,
        }

    # ================================================================== outbox

    def _handlers(self) -> dict[str, Any]:
        emb = self.embedder
        return {"embed": embedding_handler(self.index, emb)} if emb else {}

    def _ensure_worker(self) -> None:
        if self._worker is not None and self._worker.is_alive():
            return
        self._worker = WorkerThread(Worker(self.jobs, self._handlers()))
        self._worker.start()

    def stop_worker(self) -> None:
        thread = self._worker
        if thread is not None:
            thread.stop()
            thread.join(10)
        self._worker = None

    def drain_outbox(
        self,
        *,
        threads: int = 1,
        limit: int | None = None,
        on_batch: Callable[[int], None] | None = None,
        max_rounds: int = 100_000,
    ) -> int:
        """Process index jobs in this process until none is left (reindex, one-shot commands,
        benchmarks): ``threads`` workers at once, at most ``limit`` jobs (``worker.drain``)."""
        if self.embedder is None:
            return 0
        return drain(
            self.jobs,
            self._handlers(),
            threads=threads,
            limit=limit,
            on_batch=on_batch,
            max_rounds=max_rounds,
        )

    def outbox_status(self) -> dict[str, Any]:
        return self.jobs.status()

    def outbox_retry(self, ids: Sequence[int] | None = None) -> int:
        return self.jobs.retry_dead(list(ids) if ids else None)

    def run_worker(self, stop: threading.Event, *, batch: int = 32, poll: float = 0.5) -> None:
        """Consume index jobs until ``stop`` is set (``ogmem worker``; run several at once)."""
        Worker(self.jobs, self._handlers(), batch=batch).run_forever(stop, poll=poll)

    # ================================================================== recall

    def _embed_query(self, text: str) -> np.ndarray:
        """One query's vector; concurrent recalls are embedded together (micro-batching)."""
        batcher = self._batcher
        if batcher is None:
            emb = self.embedder
            assert emb is not None
            batcher = self._batcher = QueryBatcher(lambda texts: encode_queries(emb, texts))
        return batcher(text)

    def query_batching(self) -> dict[str, int]:
        """Queries embedded so far and the ``encode`` calls they took (micro-batching)."""
        batcher = self._batcher
        return {
            "queries": batcher.queries if batcher else 0,
            "calls": batcher.calls if batcher else 0,
        }

    def recaller(self) -> Recaller:
        """The recall engine over this index (tests and benchmarks drive it directly)."""
        return Recaller(
            self.index,
            embed=self._embed_query if self.embedder else None,
            count_tokens=count_tokens,
            visibility=self.knowledge.kb.visibility,
            session_exists=self.sessions.session_exists,
            on_gone=self._forget_gone,
            relevance_floor=getattr(self.embedder, "relevance_floor", None),
        )

    def forget_session(self, session_id: str) -> None:
        """``SessionService.on_session_deleted`` listener: its turns leave the index at once."""
        self._forget_gone([session_id])

    def _forget_gone(self, session_ids: list[str]) -> None:
        """Sessions another process deleted: drop their documents too (best effort)."""
        for sid in session_ids:
            try:
                self.index.delete_session(sid)
            except Exception as exc:  # a read must not fail on cleaning up
                log.warning("could not drop the documents of deleted session %s: %s", sid, exc)

    def recall(
        self,
        query: str,
        *,
        budget: int = 2000,
        scope: str | Sequence[str] | None = None,
        at: float | None = None,
        recipe: str = "default",
        session_id: str | None = None,
    ) -> RecallResult:
        """Bounded context for ``query``: at most 20 items within ``budget`` tokens, each with
        provenance; never raises for internal failures (it falls back to the latest items)."""
        if session_id is not None and self.sessions.is_temporary(session_id):
            return RecallResult(
                query, (), 0, budget, reason="temporary session: memory is not read"
            )
        if not isinstance(query, str) or not query.strip():
            raise InvalidInput("query must be a non-empty string")
        check_budget(budget)
        if recipe not in RECIPES:
            raise InvalidInput(f"unknown recall recipe {recipe!r}; known: {', '.join(RECIPES)}")
        scopes = scopes_for(scope)
        config = RECIPES[recipe]
        try:
            self.sync_index()
            return self.recaller().recall(query, budget=budget, scopes=scopes, at=at, config=config)
        except Exception as exc:  # recall degrades instead of failing (seed 003)
            log.warning("index unavailable for recall: %s", exc, exc_info=True)
            rebuilding = self._rebuild_if_damaged()
            reason = f"index unavailable ({exc}); the latest turns from the session files" + (
                "; the index is being rebuilt" if rebuilding else ""
            )
            return latest_from_files(
                self.sessions,
                query,
                budget=budget,
                scopes=scopes,
                config=config,
                count_tokens=count_tokens,
                reason=reason,
                hidden=lambda: self.knowledge.kb.visibility()[1],
            )

    def _rebuild_if_damaged(self) -> bool:
        """Drop a damaged index and rebuild it from the files in the background."""
        try:
            damage = self.backend.index_damage(self.tenant)
        except Exception as exc:
            damage = str(exc)
        if damage is None:
            return False
        with self._lock:
            self.stop_worker()
            if self._index is not None:
                self._index.close()
            self._index = self._indexer = None
            try:
                self.backend.drop_index(self.tenant)
            except Exception as exc:  # e.g. a directory where the file should be
                log.warning("could not drop the damaged index: %s", exc)
                return False
            self._turns_dirty = True
        threading.Thread(target=self._rebuild, name="ogmem-reindex", daemon=True).start()
        return True

    def _rebuild(self) -> None:
        try:
            self.sync_index()
        except Exception:
            log.warning("rebuilding the index failed", exc_info=True)

    def search(
        self,
        query: str,
        *,
        limit: int = 10,
        scope: str | Sequence[str] | None = None,
        kinds: Sequence[str] | None = None,
    ) -> list[SearchHit]:
        """Hybrid search over everything indexed (``memory_search``), best first."""
        if not isinstance(query, str) or not query.strip():
            raise InvalidInput("query must be a non-empty string")
        if not isinstance(limit, int) or not 1 <= limit <= 100:
            raise InvalidInput("limit must be between 1 and 100")
        scopes = scopes_for(scope)
        self.sync_index()
        active, hidden = self.knowledge.kb.visibility()
        live = LiveSessions(self.sessions.session_exists)
        words, chars = query_terms(query)
        rankings = [self.index.text_search(words, chars, 50)]
        if self.embedder is not None:
            rankings.append(self.index.dense(self._embed_query(query), 50))
        ranks = fuse(rankings, RECIPES["default"].rrf_k)
        hits: list[SearchHit] = []
        seen: set[str] = set()
        for rowid, doc in sorted(
            self.index.docs(ranks).items(), key=lambda x: (-ranks[x[0]], x[0])
        ):
            if kinds and doc.kind not in kinds:
                continue
            if not doc_visible(doc, scopes, active, hidden) or not live(doc):
                continue
            record = _record_of(doc)
            if record in seen:
                continue  # one hit per underlying record (its overview, its event, ...)
            seen.add(record)
            hits.append(SearchHit.of(doc, ranks[rowid]))
            if len(hits) >= limit:
                break
        return hits

    # ================================================================== navigation

    def open_session(
        self, session_id: str, *, around: str | None = None, radius: int = 5
    ) -> list[Node]:
        """``memory_open_session``: the session, or ``radius`` messages each side of a node."""
        if not isinstance(radius, int) or not 0 <= radius <= 200:
            raise InvalidInput("radius must be an integer between 0 and 200")
        nodes = self.sessions.get_nodes(session_id)
        if around is None:
            return list(nodes)
        idx = next((i for i, n in enumerate(nodes) if n.id == around), None)
        if idx is None and _HEX.fullmatch(around):
            # a pointer's commit (↪ session:<id>@<commit7>): the turn that commit holds
            turn = next(
                (
                    c
                    for c in self.sessions.session_commits(session_id)
                    if c.sha.startswith(around.lower()) and c.node_ids
                ),
                None,
            )
            first = turn.node_ids[0] if turn else None
            idx = next((i for i, n in enumerate(nodes) if n.id == first), None)
        if idx is None:
            raise NotFound(f"session {session_id}: no node or turn commit {around}")
        return list(nodes[max(0, idx - radius) : idx + radius + 1])

    def git_log(
        self, project_id: str | None = None, *, session_id: str | None = None, limit: int = 20
    ) -> list[CommitInfo]:
        """``memory_git_log``: a project's agent commits, or a session's turns."""
        if session_id is not None and project_id is not None:
            raise InvalidInput("give a project id or a session id, not both")
        if session_id is not None:
            return self.sessions.session_commits(session_id, limit=limit)
        if project_id is None:
            raise InvalidInput("give a project id or a session id")
        return self.sessions.project_log(project_id, limit)

    def close(self) -> None:
        self.stop_worker()
