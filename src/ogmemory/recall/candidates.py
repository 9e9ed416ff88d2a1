"""Step 1 of recall: at most ``candidates`` distinct memories for a question.

One search over every level (L0 abstracts: memories, events, facts, entities, sessions; L1
overviews; L2 turns), full text and dense fused by reciprocal rank, restricted to what the caller
may see; how far the best matches stand above the index's background (the relevance a recall
may abstain on); then maximal marginal relevance over the head of the ranking, so a question
with several answers gets several of them.

The dense ranking is of what recall returns, not of documents: a turn scores
``α·own + (1 − α)·max(own, parent)`` (seed 004's score propagation), ``parent`` the best cosine
of the abstractions citing it, read from one search deep enough to reach past the levels that
repeat each other (a memory, its overview, its event, the event's overview, the turn itself).
"""

from __future__ import annotations

import itertools
import logging
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..embed.base import one_blas_thread
from ..index.docs import Doc, turn_doc_id
from ..index.text import query_terms
from ..storage.protocols import IndexStore
from .config import RecallConfig
from .hops import add_ranking, deep_rankings
from .visibility import LiveSessions, doc_visible

__all__ = ["Ask", "Cand", "CandidateSearch", "fuse", "lend", "own_relevance"]

log = logging.getLogger(__name__)

_MIN_BACKGROUND = 20  # documents with vectors before recall may abstain
#: Vectors at which the embedder's relevance floor applies in full. In a smaller memory every
#: text sits closer to the centroid, so questions about it stand out less (measured: related
#: questions over one to four LoCoMo sessions, 30-190 documents, stood 0.03-0.05 above the
#: background, unrelated ones up to 0.05; over whole conversations, 665-2,700 documents, the
#: unrelated ones reached 0.065): the floor grows with the log of the memory's size up to here.
_FULL_FLOOR_AT = 600
_MMR_STEP = 8  # diversified candidates computed at a time


def fuse(
    rankings: Iterable[Sequence[tuple[int, float]]],
    k: float,
    weights: Sequence[float] | None = None,
) -> dict[int, float]:
    """Reciprocal rank fusion: ``Σ weight / (k + rank)`` over rankings of ``(rowid, score)``."""
    out: dict[int, float] = {}
    for i, hits in enumerate(rankings):
        weight = weights[i] if weights is not None else 1.0
        for rank, (rowid, _) in enumerate(hits):
            out[rowid] = out.get(rowid, 0.0) + weight / (k + rank + 1)
    return out


def lend(
    hits: Sequence[tuple[int, float]],
    docs: dict[int, Doc],
    turn_cosines: Callable[[list[str]], dict[str, tuple[Doc, float]]],
    *,
    alpha: float,
    max_cites: int,
    lends: Callable[[Doc], bool] = lambda d: True,
) -> list[tuple[int, float, int | None]]:
    """A dense ranking of documents (``(rowid, cosine)``, best first) as a ranking of what
    recall returns: each turn scores ``α·own + (1 − α)·max(own, parent)``, ``parent`` the best
    cosine among the abstractions (memories, events, facts, at L0 or L1) that cite it and
    ``lends`` allows; a turn lifted only by an abstraction gets its own cosine from
    ``turn_cosines`` (turn ids -> (doc, cosine)). An abstraction with no turn to lend to (a
    memory the user wrote), the user's rewrite of a turn, and the routes (session and entity
    abstracts) keep their own place. Overviews of sessions are left out (their turns are
    ranked themselves). ``docs`` gains the turns read."""
    own: dict[str, tuple[int, float]] = {}
    parent: dict[str, float] = {}
    lender: dict[str, int] = {}
    alone: list[tuple[int, float]] = []
    for rowid, cos in hits:
        d = docs.get(rowid)
        if d is None:
            continue
        if d.kind == "turn":
            own[d.id] = (rowid, cos)
        elif d.kind == "session":
            if d.level == 0:
                alone.append((rowid, cos))
        elif d.session_id and d.node_ids and not d.prov.get("edited"):
            if lends(d):
                for n in d.node_ids[:max_cites]:
                    tid = turn_doc_id(d.session_id, n)
                    parent[tid] = max(parent.get(tid, -1.0), cos)
                    if d.level == 0:
                        lender.setdefault(tid, rowid)  # hits come best first
        elif d.level == 0:
            alone.append((rowid, cos))
    for tid, (doc, cos) in turn_cosines([t for t in parent if t not in own]).items():
        if doc.rowid is not None:
            docs[doc.rowid] = doc
            own[tid] = (doc.rowid, cos)
    scored = [
        (rowid, alpha * cos + (1 - alpha) * max(cos, parent.get(tid, -1.0)), lender.get(tid))
        for tid, (rowid, cos) in own.items()
    ]
    scored += [(rowid, cos, None) for rowid, cos in alone]
    return sorted(scored, key=lambda x: (-x[1], x[0]))


@dataclass
class Cand:
    """A document in the pool, with its running score."""

    doc: Doc
    score: float
    via: str


@dataclass
class Ask:
    """One recall's question and what it may see."""

    query: str
    scopes: Sequence[str] | None
    active: set[str]
    hidden: set[str]
    config: RecallConfig
    qwords: set[str]
    live: LiveSessions
    qvec: np.ndarray | None = None
    background: float | None = None  # the query's mean cosine to every document
    terms: list[str] = field(default_factory=list)  # content words (before any is skipped)
    stats: dict[str, Any] = field(default_factory=dict)
    _visible: dict[str, bool] = field(default_factory=dict, repr=False)

    def visible(self, doc: Doc) -> bool:
        """The visibility rule, once per document of this recall (it is asked many times)."""
        seen = self._visible.get(doc.id)
        if seen is None:
            seen = doc_visible(doc, self.scopes, self.active, self.hidden) and self.live(doc)
            self._visible[doc.id] = seen
        return seen


def own_relevance(
    store: IndexStore, ask: Ask
) -> Callable[[Sequence[Doc]], dict[str, float]] | None:
    """Documents -> how far each stands above the query's background by its own vector (its
    cosine to the question minus the question's mean cosine to everything), remembered for the
    recall; ``None`` without a question vector or a background (a tiny memory)."""
    qvec, background = ask.qvec, ask.background
    if qvec is None or background is None:
        return None
    known: dict[str, float] = {}

    def read(docs: Sequence[Doc]) -> dict[str, float]:
        wanted = [d for d in docs if d.id not in known and d.rowid is not None]
        if wanted:
            vecs = store.vectors([d.rowid for d in wanted if d.rowid is not None])
            for d in wanted:
                if d.rowid in vecs:
                    known[d.id] = float(vecs[d.rowid] @ qvec) - background
        return {d.id: known[d.id] for d in docs if d.id in known}

    return read


class CandidateSearch:
    """Ranks one index's documents for a question (call it with an ``Ask``): the first step of
    ``Recaller``."""

    def __init__(
        self,
        store: IndexStore,
        embed: Callable[[str], np.ndarray] | None,
        relevance_floor: float | None,
    ) -> None:
        self.store = store
        self.embed = embed
        self.relevance_floor = relevance_floor

    def relevance(self, ask: Ask, dense: list[tuple[Doc, float]]) -> None:
        """How far the best visible matches stand above the index's background: the mean
        cosine of the top five visible documents minus the query's mean cosine to all documents
        (its dot product with their centroid). Embedders compress cosines differently and
        corpora differ in how alike their texts are; the difference to the background is what
        tells a question about this memory from one it cannot answer."""
        if ask.qvec is None or len(dense) < _MIN_BACKGROUND:
            return  # too few documents for a background to stand out from: always answer
        top = list(itertools.islice((s for d, s in dense if ask.visible(d)), 5))
        centroid = self.store.centroid()
        if not top or centroid is None:
            return
        background = ask.background = float(centroid @ ask.qvec)
        ask.stats["relevance"] = round(float(np.mean(top)) - background, 4)
        if self.relevance_floor is not None:
            size = max(self.store.vector_count(), 2)
            scale = min(1.0, math.log(size) / math.log(_FULL_FLOOR_AT))
            ask.stats["floor"] = round(self.relevance_floor * scale, 4)
            ask.stats["floor_scaled"] = scale < 1.0  # a small memory: the floor is lowered

    def ranks(
        self,
        ask: Ask,
    ) -> tuple[dict[int, float], dict[int, Doc], list[tuple[int, float]]]:
        """Full text and the vector ranking (``lend``; ``config.lend`` off: the documents'
        own cosines, ``dense_units`` deep) fused by reciprocal rank; returns the fused scores,
        the documents read and the plain vector hits (for ``relevance``)."""
        config = ask.config
        words, chars = query_terms(ask.query)
        ask.terms = words
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
                depth = config.dense_limit if config.lend else config.dense_units
                dense_hits = self.store.dense(ask.qvec, depth)
        ask.stats.update(fts=len(fts_hits), dense=len(dense_hits))
        docs = self.store.docs([r for r, _ in fts_hits] + [r for r, _ in dense_hits])
        lent = self._vector_ranking(ask, ask.qvec, dense_hits, docs)
        ranks = self._fuse(fts_hits, lent, docs, config)
        deep_rankings(self.store, ask, docs, ranks, self._lent(ask))
        if config.speaker_weight:
            # a question about someone: what they said outranks what was said to them, before
            # the cut to ``candidates``. The rerank weighs it again, over the expanded pool too;
            # applying it once only (or in the rerank only to expanded turns) measured worse
            # on LoCoMo dev (1-4 0.920 -> 0.911 / 0.917).
            for r, d in docs.items():
                if (
                    r in ranks
                    and d.kind == "turn"
                    and str(d.prov.get("speaker", "")).lower() in ask.qwords
                ):
                    ranks[r] *= 1 + config.speaker_weight
        return ranks, docs, dense_hits

    @staticmethod
    def _fuse(
        fts_hits: list[tuple[int, float]],
        lent: list[tuple[int, float, int | None]],
        docs: dict[int, Doc],
        config: RecallConfig,
    ) -> dict[int, float]:
        """Reciprocal rank fusion of full text and the vector ranking. A knowledge overview
        (L1) repeats its abstract and the turns it cites, so full text ranks it among the
        overviews only (at half weight): it never pushes its own sources, or any other memory,
        down a place (ranked among all at full weight, LoCoMo dev 1-4 / multi-hop went
        0.921 / 0.775 -> 0.912 / 0.755). The abstraction that lifted a turn takes the turn's
        place too, as one memory with it: the rerank weighs what it says (a date, a validity
        span) and the packer shows it beside the turn."""
        ranks: dict[int, float] = {}
        add_ranking(ranks, [r for r, _ in fts_hits], docs, config, 1.0)
        add_ranking(ranks, [r for r, _, _ in lent], docs, config, config.dense_weight)
        lent_by: set[int] = set()
        for rank, (_, _, by) in enumerate(lent):
            if by is not None and by in docs and by not in lent_by:
                lent_by.add(by)
                ranks[by] = ranks.get(by, 0.0) + config.dense_weight / (config.rrf_k + rank + 1)
        return ranks

    def _lent(self, ask: Ask) -> Callable[[list[tuple[int, float]], dict[int, Doc]], list[int]]:
        """Vector hits -> rowids in the order of the turns they lift (``lend``)."""

        def rank(hits: list[tuple[int, float]], docs: dict[int, Doc]) -> list[int]:
            if ask.qvec is None:
                return []
            return [r for r, _, _ in self._vector_ranking(ask, ask.qvec, hits, docs)]

        return rank

    def _vector_ranking(
        self,
        ask: Ask,
        qvec: np.ndarray | None,
        hits: list[tuple[int, float]],
        docs: dict[int, Doc],
    ) -> list[tuple[int, float, int | None]]:
        """The dense hits of ``qvec`` as the ranking fused: turns lifted by their abstractions
        (``lend``), or with ``config.lend`` off the documents by their own cosines."""
        config = ask.config
        if not config.lend or qvec is None:
            return [(r, s, None) for r, s in hits]
        return lend(
            hits,
            docs,
            self._turn_cosines(qvec),
            alpha=config.lend_alpha,
            max_cites=config.max_cites,
            lends=lambda d: ask.visible(d) and not d.superseded,
        )[: config.dense_units]

    def _turn_cosines(
        self, qvec: np.ndarray
    ) -> Callable[[list[str]], dict[str, tuple[Doc, float]]]:
        """Turn ids -> (their document, their cosine to ``qvec``)."""

        def read(ids: list[str]) -> dict[str, tuple[Doc, float]]:
            if not ids:
                return {}
            found = self.store.docs_by_id(ids)
            vecs = self.store.vectors([d.rowid for d in found.values() if d.rowid is not None])
            return {
                tid: (d, float(vecs[d.rowid] @ qvec)) for tid, d in found.items() if d.rowid in vecs
            }

        return read

    def __call__(self, ask: Ask) -> list[Cand]:
        """At most ``candidates`` distinct memories: a turn and the abstractions citing it
        (memory, event, fact) are one memory seen at different levels, not several."""
        config = ask.config
        ranks, docs, dense = self.ranks(ask)
        self.relevance(ask, [(docs[r], s) for r, s in dense if r in docs])
        best = max(ranks.values(), default=1.0)
        ranked = sorted(
            (
                Cand(d, ranks[r] / best, "search")
                for r, d in docs.items()
                if r in ranks and ask.visible(d)
            ),
            key=lambda c: (-c.score, c.doc.rowid or 0),
        )
        ordered: Iterable[Cand] = ranked
        if config.mmr and ask.qvec is not None and ranked:
            ordered = self.diversify(ranked, config)
        cands: list[Cand] = []
        seen: set[str] = set()
        routes = 0
        for c in ordered:
            d = c.doc
            # Abstracts that cite turns (memories, events, facts) are the same memory as those
            # turns; session and entity abstracts only point the way and claim no turn.
            cites_turns = d.session_id and d.kind in ("turn", "memory", "event", "fact")
            keys = (
                {turn_doc_id(d.session_id or "", n) for n in d.node_ids[: config.max_cites]}
                if cites_turns
                else {d.id}
            )
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

    def diversify(self, ranked: list[Cand], config: RecallConfig) -> Iterator[Cand]:
        """Maximal marginal relevance over the head of the ranking: each next candidate is the
        one most relevant and least like those already taken, so a question with several
        answers ("what activities ...") gets several of them rather than one told many ways.
        Computed as it is consumed, ``_MMR_STEP`` picks at a time: the caller stops at
        ``candidates`` distinct memories, usually half way through the head."""
        head, tail = ranked[: config.candidates * 3], ranked[config.candidates * 3 :]
        found = self.store.vectors([c.doc.rowid for c in head if c.doc.rowid is not None])
        if not found:
            yield from ranked
            return
        dim = len(next(iter(found.values())))
        vecs = np.zeros((len(head), dim), dtype=np.float32)  # no vector: like nothing
        for i, c in enumerate(head):
            if c.doc.rowid in found:
                vecs[i] = found[c.doc.rowid]
        relevance = (1 - config.mmr) * np.array([c.score for c in head])
        likeness = np.zeros(len(head), dtype=np.float32)
        taken = np.zeros(len(head), dtype=bool)
        left = len(head)
        while left:
            picks: list[Cand] = []
            with one_blas_thread():  # not held while the caller runs
                for _ in range(min(_MMR_STEP, left)):
                    value = np.where(taken, -np.inf, relevance - config.mmr * likeness)
                    i = int(np.argmax(value))
                    taken[i] = True
                    picks.append(head[i])
                    likeness = np.maximum(likeness, vecs @ vecs[i])
            left -= len(picks)
            yield from picks
        yield from tail
