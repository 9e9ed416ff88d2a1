"""Bounded recall (seed 003): ≤ 30 candidates → 1-hop expansion → rerank → top 20 in budget.

1. Candidates: one unified search over all levels (L0 abstracts: memories, events, facts,
   entities, sessions; L1 session overviews; L2 turns), BM25 and dense fused by reciprocal rank.
   Only what the caller may see: its scopes, enabled memories; turns evidencing a disabled or
   deleted memory are hidden too.
2. Expansion: an L0/L1 hit opens its children (a memory's evidence turns, a session's matching
   turns, an entity's facts) with ``final = α·child + (1 − α)·parent``; a turn opens its
   neighbours in the conversation.
3. Rerank: relevance × recency × importance, and time: a question about "May 2023" prefers what
   happened or held then; facts valid at the asked time outrank superseded ones.
4. Pack the top items (at most 20) into the token budget, counted by a real BPE tokenizer.
On any internal failure the deterministic "latest 20" is returned, and the result says so.
"""

from __future__ import annotations

import logging
import math
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from ..index.store import Doc, IndexStore, one_blas_thread
from ..records import day_label
from ..index.text import fts_match, query_terms
from .when import TimeQuery, parse_time_query

__all__ = ["RECIPES", "RecallConfig", "RecallItem", "RecallResult", "Recaller"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RecallConfig:
    """Retrieval settings; ``RECIPES`` names the useful combinations."""

    candidates: int = 30
    top: int = 20
    fts_limit: int = 60
    dense_limit: int = 60
    rrf_k: float = 60.0
    alpha: float = 0.6  # child weight in final = α·child + (1−α)·parent
    window: int = 2  # turns on each side of a turn
    max_cites: int = 3  # an item cites at most this many turns
    recency_weight: float = 0.1
    importance_weight: float = 0.2
    time_weight: float = 0.6
    superseded_penalty: float = 0.5
    speaker_weight: float = 0.3  # a turn said by someone the question names
    excerpt_tokens: int = 30  # longer turns show their most relevant sentences (0: whole)
    mmr: float = 0.5  # candidates: weight of novelty against relevance (0: ranking order)
    overview_weight: float = 0.5  # of memory/event/fact/entity L1 overviews in the fusion
    max_routes: int = 4  # of the candidates, session and entity abstracts (they only route)
    session_children: int = 2  # a session hit opens this many of its turns nearest the query
    whole_items: int = 5  # the best items show their turns whole (no excerpts)
    use_dense: bool = True
    dense_weight: float = 1.0  # weight of the vector ranking in the fusion (full text: 1)
    common_share: float = 0.03  # in large indexes, full text skips words in more docs than this
    common_min_docs: int = 20_000  # ... from this many documents on
    expand: bool = True


RECIPES: dict[str, RecallConfig] = {
    "default": RecallConfig(),
    "fulltext": RecallConfig(use_dense=False),
    "flat": RecallConfig(expand=False, window=0),
}


@dataclass(frozen=True)
class RecallItem:
    """One piece of context, with the provenance to follow it up."""

    text: str
    kind: str
    score: float
    cites: tuple[str, ...]
    node_ids: tuple[str, ...]
    session_id: str | None
    commit: str | None
    event_time: float | None
    doc_ids: tuple[str, ...]
    tokens: int = 0

    @property
    def pointer(self) -> str:
        if not self.session_id:
            return ""
        commit = f"@{self.commit[:7]}" if self.commit else ""
        return f"↪ session:{self.session_id}{commit}"

    def render(self) -> str:
        return f"{self.text}  {self.pointer}".rstrip()

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for key in ("cites", "node_ids", "doc_ids"):
            data[key] = list(data[key])
        data["pointer"] = self.pointer
        return data


@dataclass(frozen=True)
class RecallResult:
    query: str
    items: tuple[RecallItem, ...]
    tokens: int
    budget: int
    fallback: bool = False
    reason: str | None = None
    stats: dict[str, Any] = field(default_factory=dict)

    def as_context(self) -> str:
        """The items as one block of text for a prompt (what the budget was counted on)."""
        return "\n".join(item.render() for item in self.items)

    def to_dict(self) -> dict[str, Any]:
        return {"query": self.query, "items": [i.to_dict() for i in self.items],
                "tokens": self.tokens, "budget": self.budget, "fallback": self.fallback,
                "reason": self.reason, "stats": self.stats}


@dataclass
class _Cand:
    doc: Doc
    score: float
    via: str


class Recaller:
    """Runs recall over an ``IndexStore`` for one tenant."""

    def __init__(self, store: IndexStore, *, embed: Callable[[str], np.ndarray] | None,
                 count_tokens: Callable[[str], int],
                 visibility: Callable[[], tuple[set[str], set[str]]]) -> None:
        self.store = store
        self.embed = embed
        self.count_tokens = count_tokens
        # () -> (active memory ids, node ids that evidence an inactive memory)
        self.visibility = visibility

    # ================================================================== entry point

    def recall(self, query: str, *, budget: int = 2000, scopes: Sequence[str] | None = None,
               at: float | None = None, config: RecallConfig = RECIPES["default"]) -> RecallResult:
        start = time.perf_counter()
        try:
            result = self._recall(query, budget, scopes, at, config)
        except Exception as exc:  # recall must always answer: fall back, and say why
            log.warning("recall failed, falling back to the latest items: %s", exc, exc_info=True)
            result = self.latest(query, budget=budget, scopes=scopes, config=config,
                                 reason=f"recall failed ({type(exc).__name__}: {exc}); latest items")
        result.stats["latency_ms"] = round((time.perf_counter() - start) * 1000, 2)
        return result

    # ================================================================== stages

    def _visible(self, doc: Doc, scopes: Sequence[str] | None, active: set[str],
                 hidden_nodes: set[str]) -> bool:
        if scopes is not None and doc.scope not in scopes:
            return False
        quotes = doc.kind in ("turn", "session") or doc.level == 1
        if doc.kind == "session" or doc.level == 1:
            # an overview quoting several memories/turns: visible only while all of them are
            if not all(s in active for s in doc.support):
                return False
        elif doc.support and not any(s in active for s in doc.support):
            return False
        if quotes and hidden_nodes and any(n in hidden_nodes for n in doc.node_ids):
            return False
        return True

    def _recall(self, query: str, budget: int, scopes: Sequence[str] | None, at: float | None,
                config: RecallConfig) -> RecallResult:
        active, hidden_nodes = self.visibility()
        stats: dict[str, Any] = {}
        # --- 1. candidates: BM25 + dense, fused by reciprocal rank
        ranks: dict[int, float] = {}
        words, chars = query_terms(query)
        if len(words) > 1 and (total := self.store.count()) >= config.common_min_docs:
            # In a large index, words found in a large share of all documents cost the most
            # (BM25 scores every match) and rank the least (their IDF is near zero); the
            # rarest word is always searched, and time words are handled by the rerank.
            shares = self.store.word_shares(words, total)
            rarest = min(words, key=lambda w: shares[w])
            words = [w for w in words if w == rarest or shares[w] <= config.common_share]
            stats["fts_skipped"] = sorted(set(shares) - set(words))
        match = fts_match(words, chars)
        fts_hits = self.store.fts(match, config.fts_limit) if match else []
        dense_hits: list[tuple[int, float]] = []
        qvec: np.ndarray | None = None
        if config.use_dense and self.embed is not None:
            qvec = self.embed(query)
            dense_hits = self.store.dense(qvec, config.dense_limit)
        stats.update(fts=len(fts_hits), dense=len(dense_hits))
        docs = self.store.docs([r for r, _ in fts_hits] + [r for r, _ in dense_hits])
        for hits, weight in ((fts_hits, 1.0), (dense_hits, config.dense_weight)):
            # A knowledge overview (L1) repeats its abstract and the turns it cites, so it is
            # ranked among the overviews only (at half weight): it never pushes its own sources,
            # or any other memory, down a place. Ranked among all at full weight, LoCoMo dev
            # 1-4 / multi-hop went 0.921 / 0.775 -> 0.912 / 0.755.
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
        qwords = {w.lower() for w in re.findall(r"\w+", query)}
        if config.speaker_weight:
            # a question about someone: what they said outranks what was said to them, before
            # the cut to ``candidates``. The rerank weighs it again, over the expanded pool too;
            # applying it once only (or in the rerank only to expanded turns) measured worse
            # on LoCoMo dev (1-4 0.920 -> 0.911 / 0.917).
            for r, d in docs.items():
                if d.kind == "turn" and str(d.prov.get("speaker", "")).lower() in qwords:
                    ranks[r] *= 1 + config.speaker_weight
        best = max(ranks.values(), default=1.0)
        ranked = sorted((_Cand(d, ranks[r] / best, "search") for r, d in docs.items()
                         if self._visible(d, scopes, active, hidden_nodes)),
                        key=lambda c: (-c.score, c.doc.rowid or 0))
        if config.mmr and qvec is not None and ranked:
            ranked = self._diversify(ranked, config)
        # At most ``candidates`` distinct memories: a turn and the abstractions citing it
        # (memory, event, fact) are one memory seen at different levels, not several.
        cands: list[_Cand] = []
        seen: set[str] = set()
        routes = 0
        for c in ranked:
            d = c.doc
            # Abstracts that cite turns (memories, events, facts) are the same memory as those
            # turns; session and entity abstracts only point the way and claim no turn.
            cites_turns = d.session_id and d.kind in ("turn", "memory", "event", "fact")
            keys = {f"turn:{d.session_id}:{n}" for n in d.node_ids[: config.max_cites]} \
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
        stats["candidates"] = len(cands)
        stats["routes"] = routes
        # --- 2. expansion
        now = at if at is not None else self._now()
        tq = parse_time_query(query, now)
        pool: dict[str, _Cand] = {c.doc.id: c for c in cands}
        if config.expand:
            self._expand(pool, cands, scopes, active, hidden_nodes, config, qvec, tq)
        stats["expanded"] = len(pool)
        # --- 3. rerank
        # turns that state a fact which no longer holds (or did not hold then) weigh as it does
        facts = [c.doc for c in pool.values() if c.doc.kind == "fact"]
        outdated = {n for f in facts if _stale(f, tq) for n in f.node_ids} - \
            {n for f in facts if not _stale(f, tq) for n in f.node_ids}
        scored = [(self._rerank(c, tq, now, config, qwords, outdated), c) for c in pool.values()]
        scored.sort(key=lambda x: (-x[0], x[1].doc.rowid or 0))
        # --- 4. items within the budget
        items = self._pack(scored, budget, config, scopes, active, hidden_nodes,
                           terms=qwords - _STOP)
        tokens = sum(i.tokens for i in items)
        if tq.has_range:
            stats["time_range"] = [tq.start, tq.end]
        return RecallResult(query, tuple(items), tokens, budget, stats=stats)

    def _diversify(self, ranked: list[_Cand], config: RecallConfig) -> list[_Cand]:
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
        out: list[_Cand] = []
        with one_blas_thread():
            for _ in range(len(head)):
                value = np.where(taken, -np.inf, relevance - config.mmr * likeness)
                i = int(np.argmax(value))
                taken[i] = True
                out.append(head[i])
                likeness = np.maximum(likeness, vecs @ vecs[i])
        return out + tail

    def _now(self) -> float:
        row = self.store.conn().execute("SELECT max(event_time) FROM docs").fetchone()
        latest = row[0] if row and row[0] else None
        return min(time.time(), latest) if latest else time.time()

    def _expand(self, pool: dict[str, _Cand], cands: list[_Cand], scopes: Sequence[str] | None,
                active: set[str], hidden_nodes: set[str], config: RecallConfig,
                qvec: np.ndarray | None = None, tq: TimeQuery | None = None) -> None:
        a = config.alpha
        child_ids: dict[str, float] = {}
        for c in cands:
            d = c.doc
            if d.kind in ("memory", "event", "fact") and d.session_id:
                # a record that no longer holds (or did not hold at the asked time) lends its
                # turns as little weight as the rerank gives itself
                parent = c.score * (1 - config.superseded_penalty) \
                    if tq is not None and _stale(d, tq) else c.score
                for nid in d.node_ids[: config.max_cites]:
                    cid = f"turn:{d.session_id}:{nid}"
                    child = pool[cid].score if cid in pool else 0.0
                    child_ids[cid] = max(child_ids.get(cid, 0.0), a * child + (1 - a) * parent)
            elif d.kind == "entity":
                ent = d.prov.get("entity")
                if ent:
                    for fid in self.store.entity_facts(str(ent)):
                        child_ids[fid] = max(child_ids.get(fid, 0.0), (1 - a) * c.score)
            elif d.kind == "session":
                refs = self.store.child_refs(f"session:{d.session_id}:1", limit=400)
                for _, tid in refs:
                    if tid in pool:
                        pool[tid].score = max(pool[tid].score, a * pool[tid].score + (1 - a) * c.score)
                if qvec is not None and config.session_children:
                    # the session matched as a whole: open its turns closest to the query
                    vecs = self.store.vectors([rowid for rowid, _ in refs])
                    near = sorted((float(vecs[rowid] @ qvec), tid) for rowid, tid in refs
                                  if rowid in vecs)[-config.session_children:]
                    for _, tid in near:
                        own = pool[tid].score if tid in pool else 0.0
                        child_ids[tid] = max(child_ids.get(tid, 0.0), a * own + (1 - a) * c.score)
            elif d.kind == "turn" and config.window > 0 and d.session_id and d.seq is not None:
                # 1 hop along the conversation DAG: the messages right before and after
                for tid in self.store.window_ids(d.session_id, d.seq, config.window, config.window):
                    if tid != d.id:
                        own = pool[tid].score if tid in pool else 0.0
                        child_ids[tid] = max(child_ids.get(tid, 0.0), a * own + (1 - a) * c.score)
        found = self.store.docs_by_id(child_ids)
        for cid, score in child_ids.items():
            doc = found.get(cid)
            if doc is None or not self._visible(doc, scopes, active, hidden_nodes):
                continue
            if cid in pool:
                pool[cid].score = max(pool[cid].score, score)
            else:
                pool[cid] = _Cand(doc, score, "expand")

    def _rerank(self, c: _Cand, tq: TimeQuery, now: float, config: RecallConfig,
                qwords: set[str], outdated: set[str]) -> float:
        d = c.doc
        score = c.score
        if d.kind == "turn" and outdated and any(n in outdated for n in d.node_ids):
            score *= 1 - config.superseded_penalty
        if d.kind == "turn" and config.speaker_weight:
            if str(d.prov.get("speaker", "")).lower() in qwords:
                score *= 1 + config.speaker_weight
        if d.event_time:
            age_days = max(0.0, now - d.event_time) / 86400
            score *= 1 + config.recency_weight * math.exp(-age_days / 365)
        score *= 1 + config.importance_weight * (d.importance - 0.5)
        if d.kind == "session":
            score *= 0.5  # an abstract points the way; its turns carry the content
        if _stale(d, tq):
            score *= 1 - config.superseded_penalty
        elif tq.has_range and (d.kind == "fact" or tq.contains(d.event_time)):
            score *= 1 + config.time_weight
        if tq.asks_when and d.kind == "event":
            score *= 1 + config.time_weight / 2
        return score

    def _pack(self, scored: list[tuple[float, _Cand]], budget: int, config: RecallConfig,
              scopes: Sequence[str] | None, active: set[str], hidden_nodes: set[str],
              terms: set[str] | None = None) -> list[RecallItem]:
        """Turn-grounded items: each holds up to ``max_cites`` turns (the best-ranked turn, then
        the next best of the same conversation, then the next best anywhere), annotated with the
        abstractions (memories, events, facts) that cite them; abstractions without turns are
        items of their own. Items are added in rank order while they fit the budget."""
        # Overviews (L1) of knowledge records route, like session and entity abstracts: their
        # abstract and the turns they quote are the content.
        scored = [(sc, c) for sc, c in scored if c.doc.level != 1]
        turns = [(sc, c.doc) for sc, c in scored if c.doc.kind == "turn"]
        turn_rank = {d.id: i for i, (_, d) in enumerate(turns)}
        by_node = {n: d for _, d in turns for n in d.node_ids}
        abstractions = [(sc, c.doc) for sc, c in scored if c.doc.kind in ("memory", "event", "fact")]
        notes: dict[str, list[tuple[float, Doc]]] = {}
        for sc, a in abstractions:
            for n in a.node_ids:
                if n in by_node:
                    notes.setdefault(by_node[n].id, []).append((sc, a))
        used: set[str] = set()
        used_abs: set[str] = set()
        items: list[RecallItem] = []
        spent = 0
        lookahead = max(config.top * config.max_cites, 30)
        for sc, c in scored:
            if len(items) >= config.top:
                break
            d = c.doc
            if d.id in used or d.id in used_abs:
                continue
            if d.kind == "turn":
                seed = d
            elif d.kind in ("memory", "event", "fact"):
                evidence = [by_node[n] for n in d.node_ids if n in by_node and by_node[n].id not in used]
                if evidence:
                    seed = evidence[0]
                else:
                    item = self._single(d, sc, config)
                    fits = self._fits(item, spent, budget)
                    if fits is not None:
                        items.append(fits)
                        spent += fits.tokens
                    used_abs.add(d.id)
                    continue
            else:
                continue  # session and entity abstracts point the way; they are not content
            group = [seed]
            start = turn_rank.get(seed.id, 0)
            pool = [t for _, t in turns[start + 1: start + 1 + lookahead] if t.id not in used]
            for t in pool:
                if len(group) >= config.max_cites:
                    break
                if t.session_id == seed.session_id and t.id != seed.id:
                    group.append(t)
            for t in pool:
                if len(group) >= config.max_cites:
                    break
                if t not in group:
                    group.append(t)
            if len(group) < config.max_cites and config.window > 0:
                for t in self._window(seed, config, scopes, active, hidden_nodes, used):
                    if len(group) < config.max_cites and t.id not in {g.id for g in group}:
                        group.append(t)
            group.sort(key=lambda t: (t.session_id or "", t.seq or 0))
            attached: list[Doc] = []
            for t in group:
                for nsc, a in sorted(notes.get(t.id, []), key=lambda x: -x[0]):
                    if a.id in used_abs:
                        continue
                    used_abs.add(a.id)
                    # only what the turn does not already say: a resolved date, a fact's span
                    if len(attached) < 2 and _adds_information(a, t):
                        attached.append(a)
            limit = config.excerpt_tokens if len(items) >= config.whole_items else 0
            short = config.excerpt_tokens or 30
            # what fits: the group with its notes, without them, then its best turn cut short
            attempts = [(group, attached, limit)] + ([(group, [], limit)] if attached else [])
            attempts.append(([seed], [], short))
            fits = None
            for members, shown_notes, cut in attempts:
                item = self._turns_item(members, shown_notes, seed, sc, terms or set(), cut)
                fits = self._fits(item, spent, budget)
                if fits is not None:
                    group = members
                    break
            if fits is None:
                continue
            items.append(fits)
            spent += fits.tokens
            used.update(t.id for t in group)
        return items

    def _turns_item(self, group: list[Doc], attached: list[Doc], seed: Doc, score: float,
                    terms: set[str], limit: int) -> RecallItem:
        shown = [self._excerpt(t.text, terms, limit) for t in group]
        for i in range(len(shown) - 1, 0, -1):  # a day stated once per run of lines
            day = f"[{day_label(group[i].event_time)}] "
            if shown[i].startswith(day) and shown[i - 1].startswith(day):
                shown[i] = shown[i][len(day):]
        return RecallItem(
            text="\n".join(shown + [f"  ({a.text})" for a in attached]), kind="turns",
            score=round(score, 6), cites=tuple(t.cites[0] for t in group if t.cites),
            node_ids=tuple(n for t in group for n in t.node_ids),
            session_id=seed.session_id, commit=seed.prov.get("commit"), event_time=seed.event_time,
            doc_ids=tuple(t.id for t in group) + tuple(a.id for a in attached))

    def _excerpt(self, text: str, terms: set[str], limit: int) -> str:
        """A long turn cut to its sentences that matter most for the query (in order), so the
        budget holds more distinct evidence; the pointer opens the whole message."""
        if limit <= 0 or self.count_tokens(text) <= limit:
            return text
        head, _, body = text.partition(": ")
        sentences = [x for x in _SENTENCE.split(body) if x.strip()]
        if len(sentences) <= 1:
            return text
        def weight(i: int) -> tuple[int, int]:
            words = {w.lower() for w in re.findall(r"\w+", sentences[i])}
            return (len(words & terms), -i)
        keep: list[int] = []
        used = self.count_tokens(head) + 2
        for i in sorted(range(len(sentences)), key=weight, reverse=True):
            cost = self.count_tokens(sentences[i]) + 1
            if keep and used + cost > limit:
                continue
            keep.append(i)
            used += cost
        keep.sort()
        parts = []
        for n, i in enumerate(keep):
            if n == 0 and i > 0 or n > 0 and i != keep[n - 1] + 1:
                parts.append("…")
            parts.append(sentences[i].strip())
        if keep[-1] != len(sentences) - 1:
            parts.append("…")
        return f"{head}: {' '.join(parts)}"

    def _single(self, d: Doc, score: float, config: RecallConfig) -> RecallItem:
        return RecallItem(
            text=d.text, kind=d.kind, score=round(score, 6), cites=d.cites,
            node_ids=d.node_ids, session_id=d.session_id or d.prov.get("session_id"),
            commit=d.prov.get("commit"), event_time=d.event_time, doc_ids=(d.id,))

    def _fits(self, item: RecallItem, spent: int, budget: int) -> RecallItem | None:
        tokens = self.count_tokens(item.render()) + 1
        return replace(item, tokens=tokens) if spent + tokens <= budget else None

    def _window(self, d: Doc, config: RecallConfig, scopes: Sequence[str] | None,
                active: set[str], hidden_nodes: set[str], covered: set[str]) -> list[Doc]:
        if config.window <= 0 or d.session_id is None or d.seq is None:
            return [d]
        docs = self.store.session_window(d.session_id, d.seq, config.window, config.window)
        return [w for w in docs if self._visible(w, scopes, active, hidden_nodes)
                and (w.id == d.id or w.id not in covered)]

    # ================================================================== fallback

    def latest(self, query: str, *, budget: int, scopes: Sequence[str] | None,
               config: RecallConfig = RECIPES["default"], reason: str = "latest items") -> RecallResult:
        """The deterministic "latest 20": newest visible abstracts (else turns) in the budget."""
        try:
            active, hidden = self.visibility()
        except Exception:  # the fallback must not fail on what broke the main path
            active, hidden = set(), set()
        items: list[RecallItem] = []
        used = 0
        for kinds in (("memory", "event", "fact"), ("turn",)):
            for d in self.store.latest(config.top * 5, kinds):
                if len(items) >= config.top:
                    break
                if not self._visible(d, scopes, active, hidden):
                    continue
                item = RecallItem(text=d.text, kind=d.kind, score=0.0, cites=d.cites[: config.max_cites],
                                  node_ids=d.node_ids, session_id=d.session_id, commit=d.prov.get("commit"),
                                  event_time=d.event_time, doc_ids=(d.id,))
                tokens = self.count_tokens(item.render()) + 1
                if used + tokens > budget:
                    continue
                items.append(replace(item, tokens=tokens))
                used += tokens
            if items:
                break
        return RecallResult(query, tuple(items), used, budget, fallback=True, reason=reason)


_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|(?<=\])\s+(?=\[)|\s+(?=\[shares a photo)")
_STOP = {"what", "when", "where", "who", "why", "how", "did", "does", "do", "is", "are", "was",
         "the", "a", "an", "of", "to", "in", "on", "for", "and", "or", "with", "her", "his",
         "their", "they", "she", "he", "it", "that", "this", "would", "likely", "has", "have"}


def _stale(d: Doc, tq: TimeQuery) -> bool:
    """A fact not valid at the asked time, or (no time asked) a superseded record."""
    if not tq.has_range:
        return d.superseded
    if d.kind != "fact":
        return False
    return not ((d.valid_from or 0) <= (tq.end or 0)
                and (d.valid_to is None or d.valid_to > (tq.start or 0)))


def _adds_information(abstraction: Doc, turn: Doc) -> bool:
    if abstraction.kind == "fact":
        return True  # its validity span ("2026-01-10 → now") is what the turn cannot say
    if abstraction.kind == "event" and abstraction.event_time and turn.event_time:
        return day_label(abstraction.event_time) != day_label(turn.event_time)
    return False
