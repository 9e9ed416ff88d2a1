"""Step 1 of recall: at most ``candidates`` distinct memories for a question.

One search over every level (L0 abstracts: memories, events, facts, entities, sessions; L1
overviews; L2 turns), full text and dense fused by reciprocal rank, restricted to what the caller
may see; how far the best matches stand above the index's background (the relevance a recall
may abstain on); then maximal marginal relevance over the head of the ranking, so a question
with several answers gets several of them.
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
from .visibility import LiveSessions, doc_visible

__all__ = ["Ask", "Cand", "CandidateSearch", "fuse"]

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
    stats: dict[str, Any] = field(default_factory=dict)

    def visible(self, doc: Doc) -> bool:
        return doc_visible(doc, self.scopes, self.active, self.hidden) and self.live(doc)


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
        background = float(centroid @ ask.qvec)
        ask.stats["relevance"] = round(float(np.mean(top)) - background, 4)
        if self.relevance_floor is not None:
            size = max(self.store.vector_count(), 2)
            scale = min(1.0, math.log(size) / math.log(_FULL_FLOOR_AT))
            ask.stats["floor"] = round(self.relevance_floor * scale, 4)

    def ranks(
        self,
        ask: Ask,
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

    def __call__(self, ask: Ask) -> list[Cand]:
        """At most ``candidates`` distinct memories: a turn and the abstractions citing it
        (memory, event, fact) are one memory seen at different levels, not several."""
        config = ask.config
        ranks, docs, dense = self.ranks(ask)
        self.relevance(ask, [(docs[r], s) for r, s in dense if r in docs])
        best = max(ranks.values(), default=1.0)
        ranked = sorted(
            (Cand(d, ranks[r] / best, "search") for r, d in docs.items() if ask.visible(d)),
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
