"""The recall half of the ``Memory`` facade: index upkeep, bounded recall, search, the
navigation tools of seed 000 §7.2, and the embedding outbox."""

from __future__ import annotations

import logging
import shutil
import threading
import time
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import InvalidInput, NotFound
from .index.indexer import Indexer
from .index.store import Doc, IndexStore
from .index.text import fts_query
from .recall.engine import RECIPES, Recaller, RecallResult

if TYPE_CHECKING:
    from .config import Settings
    from .embed import Embedder
    from .index.outbox import Outbox, WorkerThread
    from .knowledge.store import KnowledgeBase
    from .records import CommitInfo, Node
    from .storage.protocols import ProvenanceSource
    from .tenancy import TenantRoot

__all__ = ["RecallAPI", "count_tokens"]

log = logging.getLogger(__name__)


@lru_cache(maxsize=1)
def _encoding() -> Any:
    import bpe_openai

    return bpe_openai.get_encoding("o200k_base")


def count_tokens(text: str) -> int:
    """Tokens of ``text`` under o200k_base (the GPT-4o family tokenizer; offline)."""
    return len(_encoding().encode_ordinary(text))


class RecallAPI:
    """Mixed into ``Memory``."""

    settings: Settings
    tenant: TenantRoot
    _provenance: ProvenanceSource
    @property
    def kb(self) -> KnowledgeBase:  # provided by KnowledgeAPI
        raise NotImplementedError

    def _recall_init(self, embedder: Embedder | None = None) -> None:
        self._index: IndexStore | None = None
        self._indexer: Indexer | None = None
        self._embedder_obj: Embedder | None = embedder
        self._embedder_loaded = False
        self._index_lock = threading.RLock()
        self._turns_dirty = True
        self._worker_thread: WorkerThread | None = None
        self._outbox: Outbox | None = None
        self._vis_key = -1
        self._vis: tuple[set[str], set[str]] = (set(), set())

    # ================================================================== components

    @property
    def index_path(self) -> Path:
        return self.tenant.root / "index" / "index.sqlite"

    @property
    def embedder(self) -> Embedder | None:
        """The configured embedder (``None`` = full text only)."""
        if not self._embedder_loaded:
            from .embed import make_embedder

            if self._embedder_obj is None:  # not given to Memory(embedder=...)
                self._embedder_obj = make_embedder(self.settings.embedder)
            self._embedder_loaded = True
        return self._embedder_obj

    @property
    def index(self) -> IndexStore:
        with self._index_lock:
            if self._index is None:
                emb = self.embedder
                self._index = IndexStore(self.index_path, embedder_name=emb.name if emb else None)
                self._indexer = Indexer(self._index, self._provenance, self.kb)
            return self._index

    def sync_index(self, *, turns: bool | None = None) -> dict[str, int]:
        """Absorb new turns and knowledge batches into the index (full text at once; vectors
        through the outbox)."""
        with self._index_lock:
            self.index  # noqa: B018 - builds the indexer
            assert self._indexer is not None
            do_turns = self._turns_dirty if turns is None else turns
            counts = self._indexer.sync(turns=do_turns)
            if do_turns:
                self._turns_dirty = False
        if self.embedder is not None and self.settings.index_worker:
            self._ensure_worker()
        return counts

    def _mark_turns_dirty(self) -> None:
        self._turns_dirty = True

    def reindex(self, *, wait_for_vectors: bool = True) -> dict[str, int]:
        """Delete the index and rebuild it from the files (same documents, same answers)."""
        with self._index_lock:
            self._stop_worker()
            if self._index is not None:
                self._index.close()
            if self._outbox is not None:
                self._outbox.close()
            self._index = None
            self._outbox = None
            directory = self.index_path.parent
            if directory.exists():
                shutil.rmtree(directory)
            self._turns_dirty = True
            counts = self.sync_index()
        if wait_for_vectors:
            self.drain_outbox()
        return counts

    # ================================================================== outbox

    @property
    def outbox(self) -> Outbox:
        from .index.outbox import Outbox

        with self._index_lock:
            self.index  # noqa: B018 - the outbox lives in the index database
            if self._outbox is None:
                self._outbox = Outbox(self.index_path)
            return self._outbox

    def _handlers(self) -> dict[str, Any]:
        from .index.outbox import embedding_handler

        emb = self.embedder
        # doc_table: a job arriving after its document was deleted writes no orphan vector
        return {"embed": embedding_handler(self.index_path, emb, doc_table="docs")} if emb else {}

    def _ensure_worker(self) -> None:
        from .index.outbox import Worker, WorkerThread

        if self._worker_thread is not None and self._worker_thread.is_alive():
            return
        self._worker_thread = WorkerThread(Worker(self.outbox, self._handlers()))
        self._worker_thread.start()

    def _stop_worker(self) -> None:
        thread = self._worker_thread
        if thread is not None:
            thread.stop()
            thread.join(10)
        self._worker_thread = None

    def drain_outbox(self, *, max_rounds: int = 100_000) -> int:
        """Process index jobs in this thread until none is ready (used by reindex, benchmarks)."""
        from .index.outbox import Worker

        if self.embedder is None:
            return 0
        worker = Worker(self.outbox, self._handlers(), owner="drain")
        total = 0
        for _ in range(max_rounds):
            n = worker.run_once()
            total += n
            if n == 0:
                status = self.outbox.status()
                if not status.get("pending") and not status.get("leased"):
                    break
                time.sleep(0.05)  # another worker holds leases (or a retry is backing off)
        return total

    def outbox_status(self) -> dict[str, Any]:
        return self.outbox.status()

    def outbox_retry(self, ids: Sequence[int] | None = None) -> int:
        """Move dead-lettered index jobs back to the queue."""
        return self.outbox.retry_dead(list(ids) if ids else None)

    def run_worker(self, stop: threading.Event, *, batch: int = 32, poll: float = 0.5) -> None:
        """Consume index jobs until ``stop`` is set (``ogmem worker``; run several at once)."""
        from .index.outbox import Worker

        Worker(self.outbox, self._handlers(), batch=batch).run_forever(stop, poll=poll)

    # ================================================================== recall

    def _visibility(self) -> tuple[set[str], set[str]]:
        """(active memory ids, node ids evidencing an inactive memory), cached per batch."""
        self.kb.refresh()
        key = self.kb.log.version
        if key != self._vis_key:
            active = self.kb.active_memory_ids()
            hidden: set[str] = set()
            for mem in self.kb.memories(include_disabled=True, include_deleted=True):
                if mem.id in active:
                    continue
                for ev in self.kb.evidence(mem.id):
                    if ev.provenance is not None:
                        hidden.update(ev.provenance.node_ids)
            self._vis = (active, hidden)
            self._vis_key = key
        return self._vis

    def _embed_query(self, text: str) -> np.ndarray:
        emb = self.embedder
        assert emb is not None
        from .embed import encode_queries

        vec: np.ndarray = encode_queries(emb, [text])[0]
        return vec

    def _recaller(self) -> Recaller:
        return Recaller(self.index, embed=self._embed_query if self.embedder else None,
                        count_tokens=count_tokens, visibility=self._visibility)

    def recall(self, query: str, *, budget: int = 2000, scope: str | Sequence[str] | None = None,
               at: float | None = None, recipe: str = "default",
               session_id: str | None = None) -> RecallResult:
        """Bounded context for ``query``: at most 20 items within ``budget`` tokens, each with
        provenance. Never raises for internal failures: it falls back to the latest items.
        For a temporary session (``session_id``) memory is not read: the result is empty."""
        from .knowledge_api import scopes_for

        if session_id is not None and self.is_temporary(session_id):  # type: ignore[attr-defined]
            return RecallResult(query, (), 0, budget, reason="temporary session: memory is not read")

        if not isinstance(query, str) or not query.strip():
            raise InvalidInput("query must be a non-empty string")
        if not isinstance(budget, int) or budget < 50 or budget > 100_000:
            raise InvalidInput("budget must be an integer between 50 and 100000 tokens")
        if recipe not in RECIPES:
            raise InvalidInput(f"unknown recall recipe {recipe!r}; known: {', '.join(RECIPES)}")
        scopes = scopes_for(scope)
        recaller = None
        try:
            self.sync_index()
            recaller = self._recaller()
        except Exception as exc:  # recall degrades instead of failing (seed 003)
            log.warning("index unavailable for recall: %s", exc, exc_info=True)
            if recaller is None:
                try:
                    recaller = self._recaller()
                except Exception:
                    return RecallResult(query, (), 0, budget, fallback=True,
                                        reason=f"index unavailable ({exc})")
            return recaller.latest(query, budget=budget, scopes=scopes,
                                   reason=f"index sync failed ({exc}); latest items")
        return recaller.recall(query, budget=budget, scopes=scopes, at=at, config=RECIPES[recipe])

    def search(self, query: str, *, limit: int = 10, scope: str | Sequence[str] | None = None,
               kinds: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """Hybrid search over everything indexed (navigation tool ``memory_search``): each hit
        has its text, kind, score and the provenance to open it."""
        from .knowledge_api import scopes_for

        if not isinstance(query, str) or not query.strip():
            raise InvalidInput("query must be a non-empty string")
        if not 1 <= limit <= 100:
            raise InvalidInput("limit must be between 1 and 100")
        scopes = scopes_for(scope)
        self.sync_index()
        active, hidden = self._visibility()
        ranks: dict[int, float] = {}
        match = fts_query(query)
        for rank, (rowid, _) in enumerate(self.index.fts(match, 50) if match else []):
            ranks[rowid] = ranks.get(rowid, 0.0) + 1 / (61 + rank)
        if self.embedder is not None:
            for rank, (rowid, _) in enumerate(self.index.dense(self._embed_query(query), 50)):
                ranks[rowid] = ranks.get(rowid, 0.0) + 1 / (61 + rank)
        recaller = self._recaller()
        hits = []
        for rowid, doc in sorted(self.index.docs(ranks).items(), key=lambda x: (-ranks[x[0]], x[0])):
            if kinds and doc.kind not in kinds:
                continue
            if not recaller._visible(doc, scopes, active, hidden):
                continue
            hits.append(_hit(doc, ranks[rowid]))
            if len(hits) >= limit:
                break
        return hits

    def open_session(self, session_id: str, *, around: str | None = None,
                     radius: int = 5) -> list[Node]:
        """Navigation tool ``memory_open_session``: the session's branch, or the ``radius``
        messages on each side of node ``around``."""
        if not isinstance(radius, int) or not 0 <= radius <= 200:
            raise InvalidInput("radius must be an integer between 0 and 200")
        nodes = self.get_nodes(session_id)  # type: ignore[attr-defined]
        if around is None:
            return list(nodes)
        idx = next((i for i, n in enumerate(nodes) if n.id == around), None)
        if idx is None:
            raise NotFound(f"session {session_id}: no node {around}")
        return list(nodes[max(0, idx - radius): idx + radius + 1])

    def git_log(self, project_id: str | None = None, *, session_id: str | None = None,
                limit: int = 20) -> list[CommitInfo]:
        """Navigation tool ``memory_git_log``: a project's agent commits, or a session's turns."""
        if session_id is not None and project_id is not None:
            raise InvalidInput("give a project id or a session id, not both")
        if session_id is not None:
            return self.session_commits(session_id, limit=limit)  # type: ignore[attr-defined, no-any-return]
        if project_id is None:
            raise InvalidInput("give a project id or a session id")
        return self.project_log(project_id, limit)  # type: ignore[attr-defined, no-any-return]

    def index_stats(self) -> dict[str, Any]:
        idx = self.index
        return {"documents": idx.count(), "turns": idx.count("turn"), "vectors": idx.vector_count(),
                "bytes": idx.size_bytes(), "embedder": idx.embedder_name}


def _hit(doc: Doc, score: float) -> dict[str, Any]:
    return {"id": doc.id, "kind": doc.kind, "level": doc.level, "text": doc.text,
            "score": round(score, 6), "session_id": doc.session_id or doc.prov.get("session_id"),
            "node_ids": list(doc.node_ids), "cites": list(doc.cites),
            "commit": doc.prov.get("commit"), "event_time": doc.event_time}
