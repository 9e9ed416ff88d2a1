"""Bounded recall (seed 003): ≤ 30 candidates → 1-hop expansion → rerank → top 20 in budget.

1. Candidates: one unified search over all levels (L0 abstracts: memories, events, facts,
   entities, sessions; L1 overviews; L2 turns), full text and dense fused by reciprocal rank
   (``candidates``). Only what the caller may see (``visibility``): its scopes, enabled
   memories; turns evidencing a disabled or deleted memory are hidden too.
2. Expansion: an L0/L1 hit opens its children (a memory's evidence turns, a session's turns
   nearest the query, an entity's facts) with ``final = α·child + (1 − α)·parent``; a turn opens
   its neighbours in the conversation.
3. Rerank: relevance × recency × importance, and time: a question about "May 2023" prefers what
   happened or held then; facts valid at the asked time outrank superseded ones.
4. Pack the top items (at most 20) into the token budget (``packing``).
On any internal failure the deterministic "latest 20" is returned, and the result says so.
"""

from __future__ import annotations

import logging
import math
import re
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from ..index.docs import Doc, session_doc_id, turn_doc_id
from ..storage.protocols import IndexStore
from .candidates import Ask, Cand, CandidateSearch, own_relevance
from .config import RECIPES, RecallConfig
from .hops import for_question
from .packing import STOPWORDS, Packer, is_stale
from .results import RecallItem, RecallResult
from .visibility import LiveSessions, doc_visible
from .when import TimeQuery, parse_time_query

__all__ = ["Recaller"]


def _score_floor(
    scored: Sequence[tuple[float, Cand]], config: RecallConfig, stats: dict[str, object]
) -> float | None:
    """The least score an item needs (``None``: no cut): ``relative_cut`` of the best content
    document's, so an answer ends where its items fall far below its best (the bounds of 20
    items and the budget stay bounds, not targets). A share of the best is what held LoCoMo's
    evidence recall (bench/bench_answer_size.py: with candidates in ranking order, 0.3 lost
    nothing on the dev conversations and was chosen leaving each one out); cuts measured from
    the pool's median lost some at every step."""
    content = [sc for sc, c in scored if c.doc.level != 1 and c.doc.kind in _CONTENT]
    if not content:
        return None
    best = max(content)
    stats["score_best"] = round(best, 6)
    stats["score_median"] = round(statistics.median(content), 6)
    return config.relative_cut * best if config.relative_cut > 0 else None


_CONTENT = frozenset({"turn", "memory", "event", "fact"})


def _holds(d: Doc, tq: TimeQuery) -> bool:
    """Said or done in the asked period (a fact: valid then); routes (sessions, entities) are
    not content of any period."""
    if d.kind == "fact":
        return not is_stale(d, tq)
    return d.kind not in ("session", "entity") and tq.contains(d.event_time)


log = logging.getLogger(__name__)


class Recaller:
    """Runs recall over an ``IndexStore`` for one tenant."""

    def __init__(
        self,
        store: IndexStore,
        *,
        embed: Callable[[str], np.ndarray] | None,
        count_tokens: Callable[[str], int],
        visibility: Callable[[], tuple[set[str], set[str]]],
        session_exists: Callable[[str], bool] | None = None,
        on_gone: Callable[[list[str]], None] | None = None,
        relevance_floor: float | None = None,
    ) -> None:
        self.store = store
        self.embed = embed
        self.count_tokens = count_tokens
        # () -> (active memory ids, node ids that evidence an inactive memory)
        self.visibility = visibility
        self.session_exists = session_exists
        self.on_gone = on_gone  # told of deleted sessions whose documents are still indexed
        # the least ``relevance`` an answer needs (see ``candidates``); None: never abstain
        self.relevance_floor = relevance_floor

    def recall(
        self,
        query: str,
        *,
        budget: int = 2000,
        scopes: Sequence[str] | None = None,
        at: float | None = None,
        config: RecallConfig = RECIPES["default"],
    ) -> RecallResult:
        """Bounded context for ``query``; never raises (it falls back to the latest items)."""
        start = time.perf_counter()
        try:
            result = self._recall(query, budget, scopes, at, config)
        except Exception as exc:  # recall must always answer: fall back, and say why
            log.warning("recall failed, falling back to the latest items: %s", exc, exc_info=True)
            result = self.latest(
                query,
                budget=budget,
                scopes=scopes,
                config=config,
                reason=f"recall failed ({type(exc).__name__}: {exc}); latest items",
            )
        result.stats["latency_ms"] = round((time.perf_counter() - start) * 1000, 2)
        return result

    def _recall(
        self,
        query: str,
        budget: int,
        scopes: Sequence[str] | None,
        at: float | None,
        config: RecallConfig,
    ) -> RecallResult:
        active, hidden = self.visibility()
        config = for_question(config, query)
        ask = Ask(
            query,
            scopes,
            active,
            hidden,
            config,
            qwords={w.lower() for w in re.findall(r"\w+", query)},
            live=LiveSessions(self.session_exists),
        )
        cands = CandidateSearch(self.store, self.embed, self.relevance_floor)(ask)
        now = at if at is not None else self._now()
        tq = parse_time_query(query, now)
        if tq.only:  # "what happened in May 2023?": that period, whatever the words match
            cands = self._in_period(cands, tq, ask)
            ask.stats["only_period"] = True
        if not cands:
            why = (
                "nothing remembered from that time" if tq.only else "nothing found for these words"
            )
            return RecallResult(query, (), 0, budget, stats=ask.stats, reason=why)
        if (no := self._abstains(ask, tq)) is not None:
            return RecallResult(query, (), 0, budget, stats=ask.stats, reason=no)
        pool: dict[str, Cand] = {c.doc.id: c for c in cands}
        if config.expand:
            self._expand(pool, cands, ask, tq)
        if tq.only:  # what expansion opened outside the period stays out too
            pool = {k: c for k, c in pool.items() if _holds(c.doc, tq)}
        ask.stats["expanded"] = len(pool)
        # turns that state a fact which no longer holds (or did not hold then) weigh as it does
        # (and a turn the user has since rewritten as a memory weighs less than the rewrite)
        facts = [c.doc for c in pool.values() if c.doc.kind == "fact"]
        rewritten = {n for c in pool.values() if c.doc.prov.get("edited") for n in c.doc.node_ids}
        outdated = ({n for f in facts if is_stale(f, tq) for n in f.node_ids} | rewritten) - {
            n for f in facts if not is_stale(f, tq) for n in f.node_ids
        }
        scored = [
            (self._rerank(c, tq, now, config, ask.qwords, outdated), c) for c in pool.values()
        ]
        scored.sort(key=lambda x: (-x[0], x[1].doc.rowid or 0))
        packer = Packer(
            self.store,
            self.count_tokens,
            config,
            # a turn shown beside a cited one is of the period too
            (lambda d: ask.visible(d) and _holds(d, tq)) if tq.only else ask.visible,
            own_relevance(self.store, ask),
        )
        floor = _score_floor(scored, config, ask.stats)
        items = packer.pack(
            scored, budget, terms=ask.qwords - STOPWORDS, stale=outdated, floor=floor
        )
        if tq.has_range:
            ask.stats["time_range"] = [tq.start, tq.end]
        if ask.live.gone and self.on_gone is not None:
            self.on_gone(ask.live.gone)
        return RecallResult(
            query, tuple(items), sum(i.tokens for i in items), budget, stats=ask.stats
        )

    # ================================================================== the period asked

    def _in_period(self, cands: list[Cand], tq: TimeQuery, ask: Ask) -> list[Cand]:
        """A question about nothing but a period: what happened or held then. The knowledge of
        the period (events, memories, facts; its turns when there is too little of it) joins
        what the search found there; each ranks half by how well it matched the words, half by
        its importance (the words of "what happened in May?" tell little apart)."""
        config = ask.config
        found = {c.doc.id: c for c in cands if _holds(c.doc, tq)}
        start, end = tq.start or 0.0, tq.end or 0.0
        seeded = self.store.in_period(start, end, ("event", "memory", "fact"), config.candidates)
        if len(seeded) < config.top:
            seeded += self.store.in_period(start, end, ("turn",), config.candidates - len(seeded))
        for d in seeded:
            if d.id not in found and ask.visible(d):
                found[d.id] = Cand(d, 0.0, "period")
        out = [Cand(c.doc, 0.5 * c.score + 0.5 * c.doc.importance, c.via) for c in found.values()]
        return sorted(out, key=lambda c: (-c.score, c.doc.rowid or 0))[: config.candidates * 2]

    def _abstains(self, ask: Ask, tq: TimeQuery) -> str | None:
        """Why nothing is relevant enough to answer, or None to answer."""
        floor = ask.stats.get("floor") if ask.config.abstain and not tq.only else None
        relevance = ask.stats.get("relevance")
        if floor is None or relevance is None or relevance >= floor:
            return None
        if self._words_all_here(ask):
            return None
        return (
            f"nothing relevant: the best matches stand {relevance:.3f} above the memory's "
            f"background, below the floor of {floor:.3f}"
        )

    def _words_all_here(self, ask: Ask) -> bool:
        """Whether every content word of the question occurs in this memory, asked of a small
        one only (where the floor is lowered). There every text sits near the embedder's
        background, so the vector floor cannot tell "which package manager?" (its words are in
        the memory) from "What is the capital of Mongolia?" (they are not); words the memory
        holds overrule the floor."""
        if not ask.terms or not ask.stats.get("floor_scaled"):
            return False
        here = all(share > 0 for share in self.store.word_shares(ask.terms).values())
        ask.stats["words_all_here"] = here
        return here

    # ================================================================== clock

    def _now(self) -> float:
        latest = self.store.latest_event_time()
        return min(time.time(), latest) if latest else time.time()

    # ================================================================== 2. expansion

    def _children(
        self, c: Cand, ask: Ask, pool: dict[str, Cand], tq: TimeQuery
    ) -> dict[str, float]:
        """The documents one candidate opens, with the score each would get from it."""
        a, config, d = ask.config.alpha, ask.config, c.doc
        out: dict[str, float] = {}

        def offer(cid: str, parent: float) -> None:
            own = pool[cid].score if cid in pool else 0.0
            out[cid] = max(out.get(cid, 0.0), a * own + (1 - a) * parent)

        if d.level == 1 and d.parent and d.kind != "session":
            # an overview matched: its abstract (the record itself) is what it points to
            offer(d.parent, c.score)
        if d.kind in ("memory", "event", "fact") and d.session_id:
            # a record that no longer holds (or did not hold at the asked time) lends its
            # turns as little weight as the rerank gives itself
            parent = c.score * (1 - config.superseded_penalty) if is_stale(d, tq) else c.score
            for nid in d.node_ids[: config.max_cites]:
                offer(turn_doc_id(d.session_id, nid), parent)
        elif d.kind == "entity" and d.prov.get("entity"):
            for fid in self.store.entity_facts(str(d.prov["entity"])):
                out[fid] = max(out.get(fid, 0.0), (1 - a) * c.score)
        elif d.kind == "session":
            refs = self.store.child_refs(session_doc_id(d.session_id or "", 1), limit=400)
            for _, tid in refs:
                if tid in pool:
                    pool[tid].score = max(pool[tid].score, a * pool[tid].score + (1 - a) * c.score)
            if ask.qvec is not None and config.session_children:
                # the session matched as a whole: open its turns closest to the query
                vecs = self.store.vectors([rowid for rowid, _ in refs])
                near = sorted(
                    (float(vecs[rowid] @ ask.qvec), tid) for rowid, tid in refs if rowid in vecs
                )[-config.session_children :]
                for _, tid in near:
                    offer(tid, c.score)
        elif d.kind == "turn" and config.window > 0 and d.session_id and d.seq is not None:
            # 1 hop along the conversation DAG: the messages right before and after
            for tid in self.store.window_ids(d.session_id, d.seq, config.window, config.window):
                if tid != d.id:
                    offer(tid, c.score)
        return out

    def _expand(self, pool: dict[str, Cand], cands: list[Cand], ask: Ask, tq: TimeQuery) -> None:
        child_ids: dict[str, float] = {}
        for c in cands:
            for cid, score in self._children(c, ask, pool, tq).items():
                child_ids[cid] = max(child_ids.get(cid, 0.0), score)
        found = self.store.docs_by_id(child_ids)
        for cid, score in child_ids.items():
            doc = found.get(cid)
            if doc is None or not ask.visible(doc):
                continue
            if cid in pool:
                pool[cid].score = max(pool[cid].score, score)
            else:
                pool[cid] = Cand(doc, score, "expand")

    # ================================================================== 3. rerank

    def _rerank(
        self,
        c: Cand,
        tq: TimeQuery,
        now: float,
        config: RecallConfig,
        qwords: set[str],
        outdated: set[str],
    ) -> float:
        d = c.doc
        score = c.score
        if d.kind == "turn" and outdated and any(n in outdated for n in d.node_ids):
            score *= 1 - config.superseded_penalty
        if (
            d.kind == "turn"
            and config.speaker_weight
            and str(d.prov.get("speaker", "")).lower() in qwords
        ):
            score *= 1 + config.speaker_weight
        if d.event_time:
            age_days = max(0.0, now - d.event_time) / 86400
            score *= 1 + config.recency_weight * math.exp(-age_days / 365)
        score *= 1 + config.importance_weight * (d.importance - 0.5)
        if d.kind == "session":
            score *= 0.5  # an abstract points the way; its turns carry the content
        if is_stale(d, tq):
            score *= 1 - config.superseded_penalty
        elif tq.has_range and (d.kind == "fact" or tq.contains(d.event_time)):
            score *= 1 + config.time_weight
        if tq.asks_when and d.kind == "event":
            score *= 1 + config.time_weight / 2
        return score

    # ================================================================== fallback

    def latest(
        self,
        query: str,
        *,
        budget: int,
        scopes: Sequence[str] | None,
        config: RecallConfig = RECIPES["default"],
        reason: str = "latest items",
    ) -> RecallResult:
        """The deterministic "latest 20": newest visible abstracts (else turns) in the budget."""
        try:
            active, hidden = self.visibility()
        except Exception:  # the fallback must not fail on what broke the main path
            active, hidden = set(), set()
        items: list[RecallItem] = []
        used = 0
        live = LiveSessions(self.session_exists)
        for kinds in (("memory", "event", "fact"), ("turn",)):
            for d in self.store.latest(config.top * 5, kinds):
                if len(items) >= config.top:
                    break
                if not doc_visible(d, scopes, active, hidden) or not live(d):
                    continue
                item = RecallItem(
                    text=d.text,
                    kind=d.kind,
                    score=0.0,
                    cites=d.cites[: config.max_cites],
                    node_ids=d.node_ids,
                    session_id=d.session_id,
                    commit=d.prov.get("commit"),
                    event_time=d.event_time,
                    doc_ids=(d.id,),
                    headers=config.headers,
                )
                tokens = self.count_tokens(item.render(len(items) + 1)) + 1
                if used + tokens > budget:
                    continue
                items.append(replace(item, tokens=tokens))
                used += tokens
            if items:
                break
        return RecallResult(query, tuple(items), used, budget, fallback=True, reason=reason)
