"""Distillation as one service (seed 000 §6, seed 003 "Dream"): the pipeline, the extractor
plug-in, the fast path after each turn, the idle watcher and the daily sleep.

It listens to the entity layer (a committed turn or an ended session queues the session for the
background distiller) and derives the facts of memories the user writes (the knowledge layer's
``deriver``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence

from ..config import Settings
from ..entity.records import TurnResult
from ..entity.service import SessionService
from ..errors import InvalidInput
from ..knowledge.batch import KnowledgeBatch
from ..knowledge.models import MemoryItem
from ..knowledge.service import KnowledgeService
from ..storage.folded import BatchInfo
from .extractors import make_extractor
from .pending import cursor_before_lost, rewound_cursor
from .pipeline import Distiller, DistillReport
from .types import Extractor

__all__ = ["SLEEP_MODES", "DistillService"]

log = logging.getLogger(__name__)

SLEEP_MODES = ("light", "deep")


class DistillService:
    """The five-stage pipeline of one tenant and its triggers."""

    def __init__(
        self,
        settings: Settings,
        knowledge: KnowledgeService,
        sessions: SessionService,
        *,
        extractor: Extractor | None = None,
    ) -> None:
        self.settings = settings
        self.knowledge = knowledge
        self.sessions = sessions
        self._custom_extractor = extractor
        self._distiller: Distiller | None = None
        self._lock = threading.Lock()
        self._queue: set[str] = set()
        self._cond = threading.Condition()
        self._worker: threading.Thread | None = None
        self._busy = False

    @property
    def distiller(self) -> Distiller:
        with self._lock:
            if self._distiller is None:
                extractor = self._custom_extractor or make_extractor(
                    self.settings, self.knowledge.schema, self.knowledge.kb
                )
                self._distiller = Distiller(
                    self.knowledge.kb,
                    self.sessions.provenance,
                    self.sessions.projects,
                    self.knowledge.schema,
                    extractor,
                    batch_nodes=self.settings.distill_batch_nodes,
                )
            return self._distiller

    # ================================================================== running

    def distill(
        self, session_ids: Sequence[str] | None = None, *, max_batches: int | None = None
    ) -> DistillReport:
        """Run the five stages over everything not yet distilled (or only ``session_ids``)."""
        return self.distiller.run(session_ids=session_ids, max_batches=max_batches)

    def sleep(self, mode: str = "light") -> DistillReport:
        """``light``: distill all pending turns. ``deep``: light, then every view and core.md."""
        if mode not in SLEEP_MODES:
            raise InvalidInput(f"sleep mode must be light or deep, not {mode!r}")
        report = self.distill()
        if mode == "deep":
            self.knowledge.rebuild_views()
        return report

    def run_daemon(
        self,
        *,
        interval: float = 60.0,
        stop: threading.Event | None = None,
        idle_minutes: float | None = None,
        daily_at: str | None = None,
    ) -> None:
        """Block running the idle watcher and the daily sleep until ``stop`` is set."""
        from .triggers import Schedule, run_daemon

        schedule = Schedule(
            idle_minutes=idle_minutes or self.settings.idle_minutes,
            daily_at=daily_at or self.settings.daily_sleep_at,
        )
        run_daemon(
            self.sessions.list_sessions,
            lambda ids: self.distill(ids),
            self.sleep,
            schedule,
            interval=interval,
            stop=stop,
        )

    def pending_nodes(self) -> int:
        """Committed DAG nodes the pipeline has not distilled yet."""
        return self.distiller.pending()

    def derive(self, memory: MemoryItem, batch: KnowledgeBatch | None = None) -> None:
        """Derive the facts of a memory the user wrote (``KnowledgeService.deriver``); with
        ``batch`` (an edit's), they are staged there."""
        self.distiller.distill_memory(memory, batch=batch)

    def infer_type(self, text: str, scope: str) -> str | None:
        """The memory type distillation would give ``text`` (``KnowledgeService.deriver``)."""
        return self.distiller.infer_type(text, scope)

    def rollback(self, batch_id: str, *, force: bool = False) -> BatchInfo:
        """Undo a batch; a distillation batch's turns return to the pending set (the undo's
        ``meta["returned"]``: nodes per session), so the next distillation reads them again."""
        kb = self.knowledge.kb
        with kb.store.exclusive("distill"):  # the cursor must not move meanwhile
            kb.refresh()
            rewound = rewound_cursor(kb.batches(), batch_id, kb.store.last_meta("cursor"))
            meta = {"cursor": rewound[0], "returned": rewound[1]} if rewound else {}
            return self.knowledge.rollback(batch_id, force=force, **meta)

    def rederive(self, lost: Sequence[tuple[object, object]]) -> DistillReport:
        """Distil again the turns of distillation batches whose commit markers were lost
        (``ogmem fsck --repair``; each given by the cursor before and after it): one batch
        rewinds the cursor over them, then they are distilled as pending turns are."""
        kb = self.knowledge.kb
        with kb.store.exclusive("distill"):  # the cursor must not move meanwhile
            kb.refresh()
            cursor, returned = cursor_before_lost(lost, kb.store.last_meta("cursor"))
            kb.begin("repair: distil the turns of lost batches again").commit(
                cursor=cursor, returned=returned, lost=len(lost), force_marker=True, durable=True
            )
        return self.distill()

    # ================================================================== fast path

    def after_turn(self, turn: TurnResult) -> None:
        """``SessionService.on_turn`` listener: queue the session when enabled."""
        if self.settings.distill_on_turn:
            self.distill_soon(turn.session_id)

    def distill_soon(self, session_id: str) -> None:
        """Queue the session for the background distiller (best effort)."""
        with self._cond:
            self._queue.add(session_id)
            if self._worker is None or not self._worker.is_alive():
                self._worker = threading.Thread(
                    target=self._drain, name="ogmem-distill", daemon=True
                )
                self._worker.start()
            self._cond.notify_all()

    def _drain(self) -> None:
        while True:
            with self._cond:
                if not self._queue:
                    self._busy = False
                    self._cond.notify_all()
                    return
                batch = sorted(self._queue)
                self._queue.clear()
                self._busy = True
            try:
                self.distill(batch)
            except Exception:  # background fast path: failures are logged, never raised
                log.warning("fast-path distillation of %s failed", batch, exc_info=True)

    def wait(self, timeout: float | None = None) -> None:
        """Wait until the background distiller has nothing queued or running."""
        with self._cond:
            self._cond.wait_for(lambda: not self._queue and not self._busy, timeout)
