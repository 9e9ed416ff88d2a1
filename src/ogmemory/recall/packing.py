"""Step 4 of recall: reranked documents become at most ``top`` items within the token budget.

Items are turn-grounded: each holds up to ``max_cites`` turns of one session (the best-ranked
turn, then the next best of the same session, then its neighbours), annotated with the abstractions
(memories, events, facts) citing them when they add something the turns cannot say (a resolved
date, a fact's validity span); abstractions without turns are items of their own. The best items
show their turns whole, later ones the sentences that match the question; a group that does not
fit falls back to its best turn cut short. Tokens are counted on exactly what is rendered.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TYPE_CHECKING

from ..entity.times import day_label
from ..index.docs import Doc
from ..storage.protocols import IndexStore
from .config import RecallConfig
from .results import RecallItem
from .when import TimeQuery

if TYPE_CHECKING:
    from .candidates import Cand

__all__ = ["STOPWORDS", "Packer", "is_stale"]

# sentence ends, and a bracketed aside starting (an importer's note of an attachment and its
# caption, "[image: ...]")
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|\s+(?=\[)")
_SPAN = re.compile(r"\([^()]*→[^()]*\)\s*$")  # a fact's validity, "(2026-01-10 → now)"
STOPWORDS = frozenset(
    {
        "what",
        "when",
        "where",
        "who",
        "why",
        "how",
        "did",
        "does",
        "do",
        "is",
        "are",
        "was",
        "the",
        "a",
        "an",
        "of",
        "to",
        "in",
        "on",
        "for",
        "and",
        "or",
        "with",
        "her",
        "his",
        "their",
        "they",
        "she",
        "he",
        "it",
        "that",
        "this",
        "would",
        "likely",
        "has",
        "have",
    }
)


def is_stale(d: Doc, tq: TimeQuery) -> bool:
    """A fact not valid at the asked time, or (no time asked) a superseded record."""
    if not tq.has_range:
        return d.superseded
    if d.kind != "fact":
        return False
    return not (
        (d.valid_from or 0) <= (tq.end or 0)
        and (d.valid_to is None or d.valid_to > (tq.start or 0))
    )


@lru_cache(maxsize=4096)
def _sentences(body: str) -> tuple[tuple[str, ...], tuple[frozenset[str], ...]]:
    """A turn's sentences and the lower-cased words of each (the same turns are excerpted for
    question after question)."""
    sentences = tuple(x for x in _SENTENCE.split(body) if x.strip())
    return sentences, tuple(frozenset(w.lower() for w in re.findall(r"\w+", x)) for x in sentences)


def _wording(text: str) -> str:
    """A record's words without case, punctuation or a validity span: "X is Y. (2026-12-01 →
    now)" and "X is Y" are one statement."""
    return " ".join(re.findall(r"\w+", _SPAN.sub("", text).lower()))


def _adds_information(abstraction: Doc, turn: Doc) -> bool:
    if abstraction.kind == "fact":
        return True  # its validity span ("2026-01-10 → now") is what the turn cannot say
    if abstraction.kind == "event" and abstraction.event_time and turn.event_time:
        return day_label(abstraction.event_time) != day_label(turn.event_time)
    return False


@dataclass
class _Plan:
    """What is packed so far."""

    turns: list[Doc]
    turn_rank: dict[str, int]
    by_node: dict[str, Doc]
    notes: dict[str, list[tuple[float, Doc]]]
    stale: set[str] = field(default_factory=set)  # nodes that no longer hold: no companions
    stale_turns: set[str] = field(default_factory=set)  # the turns stating them
    used: set[str] = field(default_factory=set)
    used_abs: set[str] = field(default_factory=set)
    said: set[str] = field(default_factory=set)  # the wording of records packed on their own
    items: list[RecallItem] = field(default_factory=list)
    spent: int = 0


class Packer:
    """Packs one recall's reranked pool into items within a budget."""

    def __init__(
        self,
        store: IndexStore,
        count_tokens: Callable[[str], int],
        config: RecallConfig,
        visible: Callable[[Doc], bool],
        relevance: Callable[[Sequence[Doc]], dict[str, float]] | None = None,
    ) -> None:
        self.store = store
        self.count_tokens = count_tokens
        self.config = config
        self.visible = visible
        self.relevance = relevance  # documents -> their own height above the background

    def pack(
        self,
        scored: Sequence[tuple[float, Cand]],
        budget: int,
        *,
        terms: set[str],
        stale: set[str] | None = None,
        floor: float | None = None,
    ) -> list[RecallItem]:
        """Items in rank order while they fit ``budget`` (and score at least ``floor``)."""
        # Overviews (L1) of knowledge records route, like session and entity abstracts: their
        # abstract and the turns they quote are the content.
        ranked = [(sc, c.doc) for sc, c in scored if c.doc.level != 1]
        turns = [d for _, d in ranked if d.kind == "turn"]
        by_node = {n: d for d in turns for n in d.node_ids}
        notes: dict[str, list[tuple[float, Doc]]] = {}
        for sc, a in ranked:
            # a memory the user rewrote is an item of its own, never a note on the old turn;
            # how two people stand to each other says nothing about what the turn says
            if a.kind in ("memory", "event", "fact") and not (
                a.prov.get("edited") or a.prov.get("social")
            ):
                for n in a.node_ids:
                    if n in by_node:
                        notes.setdefault(by_node[n].id, []).append((sc, a))
        plan = _Plan(
            turns, {d.id: i for i, d in enumerate(turns)}, by_node, notes, stale=stale or set()
        )
        if plan.stale:
            plan.stale_turns = {d.id for d in turns if plan.stale.intersection(d.node_ids)}
        for sc, d in ranked:
            if len(plan.items) >= self.config.top or (floor is not None and sc < floor):
                break
            if d.id in plan.used or d.id in plan.used_abs:
                continue
            if d.kind == "turn":
                self._add_group(plan, d, sc, budget, terms)
            elif d.kind in ("memory", "event", "fact"):
                evidence = [
                    by_node[n]
                    for n in d.node_ids
                    if n in by_node and by_node[n].id not in plan.used
                ]
                if evidence and not d.prov.get("edited"):  # the user's words, not the turns
                    self._add_group(plan, evidence[0], sc, budget, terms)
                elif d.prov.get("social"):
                    plan.used_abs.add(d.id)  # "X encourages Y" alone answers no question
                else:
                    # a memory the user wrote and the fact derived from it say one thing
                    wording = _wording(d.text)
                    if wording not in plan.said and self._add(plan, self._single(d, sc), budget):
                        plan.said.add(wording)
                    plan.used_abs.add(d.id)
            # session and entity abstracts point the way; they are not content
        return plan.items

    def _add(self, plan: _Plan, item: RecallItem, budget: int) -> bool:
        fits = self._fits(item, plan.spent, budget)
        if fits is None:
            return False
        plan.items.append(fits)
        plan.spent += fits.tokens
        return True

    def _group(self, plan: _Plan, seed: Doc) -> list[Doc]:
        config = self.config
        group = [seed]
        start = plan.turn_rank.get(seed.id, 0)
        lookahead = max(config.top * config.max_cites, 30)
        # a companion turn stating what no longer holds would ride on another turn's rank
        pool = [
            t
            for t in plan.turns[start + 1 : start + 1 + lookahead]
            if t.id not in plan.used and t.id not in plan.stale_turns
        ]
        pool = self._related(seed, pool, 0)
        ids = {seed.id}  # (documents of one id are one document: compared by id, not fields)
        for t in pool:  # an item is one session's turns: its pointer opens every one of them
            if len(group) >= config.max_cites:
                break
            if t.id not in ids and t.session_id == seed.session_id:
                group.append(t)
                ids.add(t.id)
        if len(group) < config.max_cites and config.window > 0:
            near = self._window(seed, plan.used | plan.stale_turns)
            for t in self._related(seed, near, config.free_neighbours):
                if len(group) < config.max_cites and t.id not in ids:
                    group.append(t)
                    ids.add(t.id)
        group.sort(key=lambda t: (t.session_id or "", t.seq or 0))
        return group

    def _related(self, seed: Doc, turns: list[Doc], free: int) -> list[Doc]:
        """Of ``turns``, those that may ride with ``seed`` in one item: within ``free`` turns of
        it, or standing at least ``companion_share`` of its own height above the question's
        background (``own_relevance``), so a turn about another matter of the same session
        ("Biscuit is a perfect name!" beside "Tomas is moving to Lisbon") stays out."""
        share = self.config.companion_share
        if share <= 0 or self.relevance is None:
            return turns
        height = self.relevance([seed, *turns])
        least = share * max(height.get(seed.id, 0.0), 0.0)

        def near(t: Doc) -> bool:
            return seed.seq is not None and t.seq is not None and abs(t.seq - seed.seq) <= free

        return [t for t in turns if near(t) or height.get(t.id, least) >= least]

    def _add_group(
        self, plan: _Plan, seed: Doc, score: float, budget: int, terms: set[str]
    ) -> None:
        config = self.config
        group = self._group(plan, seed)
        attached: list[Doc] = []
        for t in group:
            for _, a in sorted(plan.notes.get(t.id, []), key=lambda x: -x[0]):
                if a.id in plan.used_abs:
                    continue
                plan.used_abs.add(a.id)
                # only what the turn does not already say: a resolved date, a fact's span
                if len(attached) < 2 and _adds_information(a, t):
                    attached.append(a)
        limit = config.excerpt_tokens if len(plan.items) >= config.whole_items else 0
        short = config.excerpt_tokens or 30
        # what fits: the group with its notes, without them, then its best turn cut short
        attempts = [(group, attached, limit)] + ([(group, [], limit)] if attached else [])
        attempts.append(([seed], [], short))
        for members, shown_notes, cut in attempts:
            item = self._turns_item(members, shown_notes, seed, score, terms, cut)
            if self._add(plan, item, budget):
                plan.used.update(t.id for t in members)
                return

    def _turns_item(
        self,
        group: list[Doc],
        attached: list[Doc],
        seed: Doc,
        score: float,
        terms: set[str],
        limit: int,
    ) -> RecallItem:
        shown = [self._excerpt(t.text, terms, limit) for t in group]
        for i in range(len(shown) - 1, 0, -1):  # a day stated once per run of lines
            day = f"[{day_label(group[i].event_time)}] "
            if shown[i].startswith(day) and shown[i - 1].startswith(day):
                shown[i] = shown[i][len(day) :]
        lines = shown[:1]
        for prev, t, line in zip(group, group[1:], shown[1:], strict=False):
            # turns that are not next to each other say so: the reader must not take the
            # second for the reply to the first
            if skipped := self._skipped(prev, t):
                lines.append(f"… ({skipped} {'turn' if skipped == 1 else 'turns'} skipped)")
            lines.append(line)
        return RecallItem(
            text="\n".join(lines + [f"  ({a.text})" for a in attached]),
            kind="turns",
            score=round(score, 6),
            cites=tuple(t.cites[0] for t in group if t.cites),
            node_ids=tuple(n for t in group for n in t.node_ids),
            session_id=seed.session_id,
            commit=seed.prov.get("commit"),
            event_time=seed.event_time,
            doc_ids=tuple(t.id for t in group) + tuple(a.id for a in attached),
        )

    def _skipped(self, a: Doc, b: Doc) -> int:
        """How many turns of the session lie between ``a`` and ``b`` (one session, in order)."""
        if a.session_id != b.session_id or a.seq is None or b.seq is None or b.seq <= a.seq + 1:
            return 0
        gap = b.seq - a.seq
        ids = self.store.window_ids(a.session_id or "", a.seq, 0, gap)
        # the turns indexed between them (nodes without a turn document are not turns)
        return ids.index(b.id) - 1 if b.id in ids else gap - 1

    def _excerpt(self, text: str, terms: set[str], limit: int) -> str:
        """A long turn cut to its sentences that matter most for the query (in order), so the
        budget holds more distinct evidence; the pointer opens the whole message."""
        if limit <= 0 or self.count_tokens(text) <= limit:
            return text
        head, _, body = text.partition(": ")
        sentences, words = _sentences(body)
        if len(sentences) <= 1:
            return text

        def weight(i: int) -> tuple[int, int]:
            return (len(words[i] & terms), -i)

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
            if (n == 0 and i > 0) or (n > 0 and i != keep[n - 1] + 1):
                parts.append("…")
            parts.append(sentences[i].strip())
        if keep[-1] != len(sentences) - 1:
            parts.append("…")
        return f"{head}: {' '.join(parts)}"

    def _single(self, d: Doc, score: float) -> RecallItem:
        return RecallItem(
            text=d.text,
            kind=d.kind,
            score=round(score, 6),
            cites=d.cites,
            node_ids=d.node_ids,
            session_id=d.session_id or d.prov.get("session_id"),
            commit=d.prov.get("commit"),
            event_time=d.event_time,
            doc_ids=(d.id,),
        )

    def _fits(self, item: RecallItem, spent: int, budget: int) -> RecallItem | None:
        tokens = self.count_tokens(item.render()) + 1
        return replace(item, tokens=tokens) if spent + tokens <= budget else None

    def _window(self, d: Doc, covered: set[str]) -> list[Doc]:
        config = self.config
        if config.window <= 0 or d.session_id is None or d.seq is None:
            return [d]
        ids = self.store.window_ids(d.session_id, d.seq, config.window, config.window)
        found = self.store.docs_by_id(ids)
        docs = [found[i] for i in ids if i in found]
        return [w for w in docs if self.visible(w) and (w.id == d.id or w.id not in covered)]
