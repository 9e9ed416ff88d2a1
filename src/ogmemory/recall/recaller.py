"""Bounded recall (seed 003): ≤ 30 candidates → 1-hop expansion → rerank → top 20 in budget.

1. Candidates: one unified search over all levels (L0 abstracts: memories, events, facts,
   entities, sessions; L1 overviews; L2 turns), full text and dense fused by reciprocal rank.
   Only what the caller may see: its scopes, enabled memories; turns evidencing a disabled or
   deleted memory are hidden too.
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
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..embed.base import one_blas_thread
from ..index.docs import Doc, session_doc_id, turn_doc_id
from ..index.text import query_terms
from ..storage.protocols import IndexStore
from .config import RECIPES, RecallConfig
from .packing import STOPWORDS, Packer, is_stale
from .results import RecallItem, RecallResult
from .when import TimeQuery, parse_time_query

__all__ = ["LiveSessions", "Recaller", "doc_visible", "fuse"]

log = logging.getLogger(__name__)

_MIN_BACKGROUND = 20  # documents with vectors before recall may abstain
#: Vectors at which the embedder's relevance floor applies in full. In a smaller memory every
#: text sits closer to the centroid, so questions about it stand out less (measured: related
#: questions over one to four LoCoMo sessions, 30-190 documents, stood 0.03-0.05 above the
#: background, unrelated ones up to 0.05; over whole conversations, 665-2,700 documents, the
#: unrelated ones reached 0.065): the floor grows with the log of the memory's size up to here.
_FULL_FLOOR_AT = 600


def doc_visible(doc: Doc, scopes: Sequence[str] | None, active: set[str],
                hidden_nodes: set[str]) -> bool:
    """The visibility rule of every read of the index: within ``scopes``; a derived record
    while one of its supporting memories is ``active``; an overview or session (which quotes
    several) only while all of them are; no turn evidencing an inactive memory."""
    if scopes is not None and doc.scope not in scopes:
        return False
    quotes = doc.kind in ("turn", "session") or doc.level == 1
    if doc.kind == "session" or doc.level == 1:
        if not all(s in active for s in doc.support):
            return False
    elif doc.support and not any(s in active for s in doc.support):
        return False
    return not (quotes and hidden_nodes and any(n in hidden_nodes for n in doc.node_ids))


def fuse(rankings: Iterable[Sequence[tuple[int, float]]], k: float,
         weights: Sequence[float] | None = None) -> dict[int, float]:
    """Reciprocal rank fusion: ``Σ weight / (k + rank)`` over rankings of ``(rowid, score)``."""
    out: dict[int, float] = {}
    for i, hits in enumerate(rankings):
        weight = weights[i] if weights is not None else 1.0
        for rank, (rowid, _) in enumerate(hits):
            out[rowid] = out.get(rowid, 0.0) + weight / (k + rank + 1)
    return out


@dataclass
class Cand:
    """A document in the pool, with its running score."""

    doc: Doc
    score: float
    via: str


class LiveSessions:
    """Whether the session a document comes from still exists (seed 001 §3.7: what cites a
    deleted session is skipped at read time), asked once per session per read."""

    def __init__(self, exists: Callable[[str], bool] | None) -> None:
        self._exists = exists
        self._seen: dict[str, bool] = {}

    def __call__(self, doc: Doc) -> bool:
        sid = doc.session_id
        if not sid or self._exists is None:
            return True
        live = self._seen.get(sid)
        if live is None:
            live = self._seen[sid] = self._exists(sid)
        return live

    @property
    def gone(self) -> list[str]:
        """Sessions found deleted (their documents are still in the index)."""
        return sorted(s for s, live in self._seen.items() if not live)


@dataclass
class _Ask:
    """One recall's question and what it may see."""

    query: str
    scopes: Sequence[str] | None
    active: set[str]
    hidden: set[str]
    config: RecallConfig
    qwords: set[str]
    live: LiveSessions
    qvec: np.ndarray | None = None
    stats: dict[str, Any] = field(default_factory=dict)

    def visible(self, doc: Doc) -> bool:
        return doc_visible(doc, self.scopes, self.active, self.hidden) and self.live(doc)


class Recaller:
    """Runs recall over an ``IndexStore`` for one tenant."""

    def __init__(self, store: IndexStore, *, embed: Callable[[str], np.ndarray] | None,
                 count_tokens: Callable[[str], int],
                 visibility: Callable[[], tuple[set[str], set[str]]],
                 session_exists: Callable[[str], bool] | None = None,
                 on_gone: Callable[[list[str]], None] | None = None,
                 relevance_floor: float | None = None) -> None:
        self.store = store
        self.embed = embed
        self.count_tokens = count_tokens
        # () -> (active memory ids, node ids that evidence an inactive memory)
        self.visibility = visibility
        self.session_exists = session_exists
        self.on_gone = on_gone  # told of deleted sessions whose documents are still indexed
        # the least ``relevance`` (see ``_relevance``) an answer needs; None: always answer
        self.relevance_floor = relevance_floor

    def recall(self, query: str, *, budget: int = 2000, scopes: Sequence[str] | None = None,
               at: float | None = None, config: RecallConfig = RECIPES["default"]) -> RecallResult:
        """Bounded context for ``query``; never raises (it falls back to the latest items)."""
        start = time.perf_counter()
        try:
            result = self._recall(query, budget, scopes, at, config)
        except Exception as exc:  # recall must always answer: fall back, and say why
            log.warning("recall failed, falling back to the latest items: %s", exc, exc_info=True)
            result = self.latest(query, budget=budget, scopes=scopes, config=config,
                                 reason=f"recall failed ({type(exc).__name__}: {exc}); "
                                        "latest items")
        result.stats["latency_ms"] = round((time.perf_counter() - start) * 1000, 2)
        return result

    def _recall(self, query: str, budget: int, scopes: Sequence[str] | None, at: float | None,
                config: RecallConfig) -> RecallResult:
        active, hidden = self.visibility()
        ask = _Ask(query, scopes, active, hidden, config,
                   qwords={w.lower() for w in re.findall(r"\w+", query)},
                   live=LiveSessions(self.session_exists))
        cands = self._candidates(ask)
        if not cands:
            return RecallResult(query, (), 0, budget, stats=ask.stats,
                                reason="nothing found for these words")
        floor = ask.stats.get("floor") if config.abstain else None
        relevance = ask.stats.get("relevance")
        if floor is not None and relevance is not None and relevance < floor:
            return RecallResult(query, (), 0, budget, stats=ask.stats,
                                reason=f"nothing relevant: the best matches stand "
                                       f"{relevance:.3f} above the memory's background, "
                                       f"below the floor of {floor:.3f}")
        now = at if at is not None else self._now()
        tq = parse_time_query(query, now)
        pool: dict[str, Cand] = {c.doc.id: c for c in cands}
        if config.expand:
            self._expand(pool, cands, ask, tq)
        ask.stats["expanded"] = len(pool)
        # turns that state a fact which no longer holds (or did not hold then) weigh as it does
        # (and a turn the user has since rewritten as a memory weighs less than the rewrite)
        facts = [c.doc for c in pool.values() if c.doc.kind == "fact"]
        rewritten = {n for c in pool.values() if c.doc.prov.get("edited") for n in c.doc.node_ids}
        outdated = ({n for f in facts if is_stale(f, tq) for n in f.node_ids} | rewritten) - \
            {n for f in facts if not is_stale(f, tq) for n in f.node_ids}
        scored = [(self._rerank(c, tq, now, config, ask.qwords, outdated), c)
                  for c in pool.values()]
        scored.sort(key=lambda x: (-x[0], x[1].doc.rowid or 0))
        packer = Packer(self.store, self.count_tokens, config, ask.visible)
        items = packer.pack(scored, budget, terms=ask.qwords - STOPWORDS, stale=outdated)
        if tq.has_range:
            ask.stats["time_range"] = [tq.start, tq.end]
        if ask.live.gone and self.on_gone is not None:
            self.on_gone(ask.live.gone)
        return RecallResult(query, tuple(items), sum(i.tokens for i in items), budget,
                            stats=ask.stats)

    # ================================================================== 1. candidates

    def _relevance(self, ask: _Ask, dense: list[tuple[Doc, float]]) -> None:
        """How far the best visible matches stand above the index's background: the mean
        cosine of the top five visible documents minus the query's mean cosine to all documents
        (its dot product with their centroid). Embedders compress cosines differently and
        corpora differ in how alike their texts are; the difference to the background is what
        tells a question about this memory from one it cannot answer."""
        if ask.qvec is None or len(dense) < _MIN_BACKGROUND:
            return  # too few documents for a background to stand out from: always answer
        top = [s for d, s in dense if ask.visible(d)][:5]
        centroid = self.store.centroid()
        if not top or centroid is None:
            return
        background = float(centroid @ ask.qvec)
        ask.stats["relevance"] = round(float(np.mean(top)) - background, 4)
        if self.relevance_floor is not None:
            size = max(self.store.vector_count(), 2)
            scale = min(1.0, math.log(size) / math.log(_FULL_FLOOR_AT))
            ask.stats["floor"] = round(self.relevance_floor * scale, 4)

    def _ranks(self, ask: _Ask,
               ) -> tuple[dict[int, float], dict[int, Doc], list[tuple[int, float]]]:
        """Full text and dense rankings fused; a knowledge overview (L1) repeats its abstract
        and the turns it cites, so it is ranked among the overviews only (at half weight): it
        never pushes its own sources, or any other memory, down a place. Ranked among all at
        full weight, LoCoMo dev 1-4 / multi-hop went 0.921 / 0.775 -> 0.912 / 0.755."""
        config = ask.config
        words, chars = query_terms(ask.query)
        if len(words) > 1 and (total := self.store.count()) >= config.common_min_docs:
            # In a large index, words found in a large share of all documents cost the most
            # (BM25 scores every match) and rank the least (their IDF is near zero); the
            # rarest word is always searched, and time words are handled by the rerank.
            shares = self.store.word_shares(words, total)
            rarest = min(words, key=lambda w: shares[w])
            words = [w for w in words if w == rarest or shares[w] <= config.common_share]
            ask.stats["fts_skipped"] = sorted(set(shares) - set(words))
        fts_hits = self.store.text_search(words, chars, config.fts_limit)
        dense_hits: list[tuple[int, float]] = []
        if config.use_dense and self.embed is not None:
            try:
                ask.qvec = self.embed(ask.query)
            except Exception as exc:  # the embedder failed: full text still answers
                log.warning("query embedding failed; full text only: %s", exc)
                ask.stats["dense_error"] = f"{type(exc).__name__}: {exc}"
            else:
                dense_hits = self.store.dense(ask.qvec, config.dense_limit)
        ask.stats.update(fts=len(fts_hits), dense=len(dense_hits))
        docs = self.store.docs([r for r, _ in fts_hits] + [r for r, _ in dense_hits])
        ranks: dict[int, float] = {}
        for hits, weight in ((fts_hits, 1.0), (dense_hits, config.dense_weight)):
            place = {False: 0, True: 0}
            for rowid, _ in hits:
                d = docs.get(rowid)
                if d is None:
                    continue
                overview = d.level == 1 and d.kind != "session"
                rank = place[overview]
                place[overview] += 1
                share = config.overview_weight if overview else 1.0
                ranks[rowid] = ranks.get(rowid, 0.0) + weight * share / (config.rrf_k + rank + 1)
        if config.speaker_weight:
            # a question about someone: what they said outranks what was said to them, before
            # the cut to ``candidates``. The rerank weighs it again, over the expanded pool too;
            # applying it once only (or in the rerank only to expanded turns) measured worse
            # on LoCoMo dev (1-4 0.920 -> 0.911 / 0.917).
            for r, d in docs.items():
                if d.kind == "turn" and str(d.prov.get("speaker", "")).lower() in ask.qwords:
                    ranks[r] *= 1 + config.speaker_weight
        return ranks, docs, dense_hits

    def _candidates(self, ask: _Ask) -> list[Cand]:
        """At most ``candidates`` distinct memories: a turn and the abstractions citing it
        (memory, event, fact) are one memory seen at different levels, not several."""
        config = ask.config
        ranks, docs, dense = self._ranks(ask)
        self._relevance(ask, [(docs[r], s) for r, s in dense if r in docs])
        best = max(ranks.values(), default=1.0)
        ranked = sorted((Cand(d, ranks[r] / best, "search") for r, d in docs.items()
                         if ask.visible(d)), key=lambda c: (-c.score, c.doc.rowid or 0))
        if config.mmr and ask.qvec is not None and ranked:
            ranked = self._diversify(ranked, config)
        cands: list[Cand] = []
        seen: set[str] = set()
        routes = 0
        for c in ranked:
            d = c.doc
            # Abstracts that cite turns (memories, events, facts) are the same memory as those
            # turns; session and entity abstracts only point the way and claim no turn.
            cites_turns = d.session_id and d.kind in ("turn", "memory", "event", "fact")
            keys = {turn_doc_id(d.session_id or "", n) for n in d.node_ids[: config.max_cites]} \
                if cites_turns else {d.id}
            if keys <= seen:
                if d.kind != "turn":
                    cands.append(c)
                continue
            if d.kind in ("session", "entity"):
                if routes >= config.max_routes:
                    continue
                routes += 1
            if len(seen) >= config.candidates:
                break
            cands.append(c)
            seen |= keys
        ask.stats["candidates"] = len(cands)
        ask.stats["routes"] = routes
        return cands

    def _diversify(self, ranked: list[Cand], config: RecallConfig) -> list[Cand]:
        """Maximal marginal relevance over the head of the ranking: each next candidate is the
        one most relevant and least like those already taken, so a question with several
        answers ("what activities ...") gets several of them rather than one told many ways."""
        head, tail = ranked[: config.candidates * 3], ranked[config.candidates * 3:]
        found = self.store.vectors([c.doc.rowid for c in head if c.doc.rowid is not None])
        if not found:
            return ranked
        dim = len(next(iter(found.values())))
        vecs = np.zeros((len(head), dim), dtype=np.float32)  # no vector: like nothing
        for i, c in enumerate(head):
            if c.doc.rowid in found:
                vecs[i] = found[c.doc.rowid]
        relevance = (1 - config.mmr) * np.array([c.score for c in head])
        likeness = np.zeros(len(head), dtype=np.float32)
        taken = np.zeros(len(head), dtype=bool)
        out: list[Cand] = []
        with one_blas_thread():
            for _ in range(len(head)):
                value = np.where(taken, -np.inf, relevance - config.mmr * likeness)
                i = int(np.argmax(value))
                taken[i] = True
                out.append(head[i])
                likeness = np.maximum(likeness, vecs @ vecs[i])
        return out + tail

    def _now(self) -> float:
        latest = self.store.latest_event_time()
        return min(time.time(), latest) if latest else time.time()

    # ================================================================== 2. expansion

    def _children(self, c: Cand, ask: _Ask, pool: dict[str, Cand],
                  tq: TimeQuery) -> dict[str, float]:
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
                near = sorted((float(vecs[rowid] @ ask.qvec), tid) for rowid, tid in refs
                              if rowid in vecs)[-config.session_children:]
                for _, tid in near:
                    offer(tid, c.score)
        elif d.kind == "turn" and config.window > 0 and d.session_id and d.seq is not None:
            # 1 hop along the conversation DAG: the messages right before and after
            for tid in self.store.window_ids(d.session_id, d.seq, config.window, config.window):
                if tid != d.id:
                    offer(tid, c.score)
        return out

    def _expand(self, pool: dict[str, Cand], cands: list[Cand], ask: _Ask,
                tq: TimeQuery) -> None:
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

    def _rerank(self, c: Cand, tq: TimeQuery, now: float, config: RecallConfig,
                qwords: set[str], outdated: set[str]) -> float:
        d = c.doc
        score = c.score
        if d.kind == "turn" and outdated and any(n in outdated for n in d.node_ids):
            score *= 1 - config.superseded_penalty
        if (d.kind == "turn" and config.speaker_weight
                and str(d.prov.get("speaker", "")).lower() in qwords):
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

    def latest(self, query: str, *, budget: int, scopes: Sequence[str] | None,
               config: RecallConfig = RECIPES["default"],
               reason: str = "latest items") -> RecallResult:
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
                item = RecallItem(text=d.text, kind=d.kind, score=0.0,
                                  cites=d.cites[: config.max_cites], node_ids=d.node_ids,
                                  session_id=d.session_id, commit=d.prov.get("commit"),
                                  event_time=d.event_time, doc_ids=(d.id,))
                tokens = self.count_tokens(item.render()) + 1
                if used + tokens > budget:
                    continue
                items.append(replace(item, tokens=tokens))
                used += tokens
            if items:
                break
        return RecallResult(query, tuple(items), used, budget, fallback=True, reason=reason)
