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
from ..index.docs import Doc, turn_doc_id
from ..storage.protocols import IndexStore
from .config import RecallConfig
from .dialogue import (
    asks,
    is_tool_turn,
    neighbour,
    reacts,
    skip_line,
    speaker_of,
    strip_day,
    within,
)
from .results import RecallItem
from .when import TimeQuery

if TYPE_CHECKING:
    from .candidates import Cand

__all__ = ["STOPWORDS", "Packer", "is_stale"]

# sentence ends, and a bracketed aside starting (an importer's note of an attachment and its
# caption, "[image: ...]")
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|\s+(?=\[)")
_SPAN = re.compile(r"\([^()]*→[^()]*\)\s*$")  # a fact's validity, "(2026-01-10 → now)"
#: Tokens of a context turn: what it asks, or its opening.
_CONTEXT_CUT = 20
_ASKING = {"?"}  # (a context turn that asks is excerpted to what it asks)
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
        fits = self._fits(item, plan.spent, budget, len(plan.items) + 1)
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
                if is_tool_turn(t) and not is_tool_turn(seed):
                    continue  # a tool's output stands as an item of its own, not in a dialogue
                # a window of the conversation: a turn far from every shown one is an item of
                # its own (under its own header), not a line after "… skipped"
                if config.reach is not None and not within(self.store, seed, t, config.reach):
                    continue
                group.append(t)
                ids.add(t.id)
        if config.fill and len(group) < config.max_cites and config.window > 0:
            near = self._window(seed, plan.used | plan.stale_turns)
            for t in self._related(seed, near, config.free_neighbours):
                # a tool's output (or a bare call) beside a person's turn is no context for it
                if len(group) < config.max_cites and t.id not in ids and not is_tool_turn(t):
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
        context: dict[str, Doc] = {}
        attached: list[Doc] = []
        for t in list(group):
            for _, a in sorted(plan.notes.get(t.id, []), key=lambda x: -x[0]):
                if a.id in plan.used_abs:
                    continue
                plan.used_abs.add(a.id)
                # only what the turn does not already say (a resolved date, a fact's span), and
                # only beside the turn that says it: a reply reacting to the news ("Wow,
                # congratulations!") brings the news along, or shows no note
                if (
                    len(attached) < 2
                    and _adds_information(a, t)
                    and (
                        not config.notes_by_carrier or self._carrier_shown(plan, a, group, context)
                    )
                ):
                    attached.append(a)
        if config.context_turns > 0 and len(plan.items) < config.whole_items:
            # (later items are excerpts: evidence first)
            self._add_context(plan, group, context)
        limit = config.excerpt_tokens if len(plan.items) >= config.whole_items else 0
        short = config.excerpt_tokens or 30
        shown = sorted([*group, *context.values()], key=lambda t: t.seq or 0)
        # what fits: the group with its context and notes, without the notes, without the
        # context, then its best turn cut short
        attempts = [(shown, attached, limit)]
        if attached:
            attempts.append((shown, [], limit))
        if len(shown) > len(group):
            attempts.append((group, [], limit))
        attempts.append(([seed], [], short))
        for members, shown_notes, cut in attempts:
            cited = [t for t in members if t.id not in context]
            item = self._turns_item(members, cited, shown_notes, seed, score, terms, cut)
            if self._add(plan, item, budget):
                # context turns stay free to be cited by a later item (and a question shown as
                # context is shown again beside each of its answers)
                plan.used.update(t.id for t in cited)
                return

    def _may_show(self, plan: _Plan, d: Doc | None, shown: dict[str, Doc]) -> bool:
        """Whether ``d`` may stand beside an item's turns as context: a person's visible turn
        not shown there yet (one shown in an earlier item is shown again, as context: a
        question travels with each of its answers)."""
        return (
            d is not None
            and d.id not in shown
            and d.id not in plan.stale_turns
            and not is_tool_turn(d)
            and self.visible(d)
        )

    def _carrier_shown(
        self, plan: _Plan, note: Doc, group: list[Doc], context: dict[str, Doc]
    ) -> bool:
        """Whether the turn that states ``note`` (its first evidence turn) is shown, adding it
        as context when it sits right beside a shown turn."""
        sid = group[0].session_id
        if not note.node_ids or sid is None or note.session_id not in (None, sid):
            return True
        carrier = turn_doc_id(sid, note.node_ids[0])
        if any(t.id == carrier for t in group) or carrier in context:
            return True
        for t in group:
            for step in (-1, 1):
                d = neighbour(self.store, t, step)
                if d is not None and d.id == carrier:
                    shown = {t.id: t for t in group} | context
                    if len(context) >= self.config.context_turns or not self._may_show(
                        plan, d, shown
                    ):
                        return False
                    context[d.id] = d
                    return True
        return False

    def _add_context(self, plan: _Plan, group: list[Doc], context: dict[str, Doc]) -> None:
        """The turns that make the cited ones readable (at most ``context_turns``): the question
        a cited turn answers (or the news it reacts to), then the reply to a cited question. A
        context turn the ranking holds becomes a cited one while the item has room."""
        wanted: list[Doc] = []
        shown = {t.id: t for t in group} | context
        for t in group:
            before = neighbour(self.store, t, -1)
            if (
                self._may_show(plan, before, shown)
                and before is not None
                and speaker_of(before.text) != speaker_of(t.text)
                and (asks(before.text) or reacts(t.text))
            ):
                wanted.append(before)
                shown[before.id] = before
        for t in group:
            after = neighbour(self.store, t, 1) if asks(t.text) else None
            if (
                self._may_show(plan, after, shown)
                and after is not None
                and speaker_of(after.text) != speaker_of(t.text)
            ):
                wanted.append(after)
                shown[after.id] = after
        for d in wanted[: max(self.config.context_turns - len(context), 0)]:
            if (
                d.id in plan.turn_rank
                and d.id not in plan.used
                and len(group) < self.config.max_cites
            ):
                group.append(d)
            else:
                context[d.id] = d
        group.sort(key=lambda t: t.seq or 0)

    def _turns_item(
        self,
        members: list[Doc],
        cited: list[Doc],
        attached: list[Doc],
        seed: Doc,
        score: float,
        terms: set[str],
        limit: int,
    ) -> RecallItem:
        headers, whose = self.config.headers, self.config.skip_speakers
        # the item's day stands in its header (without one: before its first turn); a turn of
        # another day than the line before says its own
        first = day_label(members[0].event_time) if members[0].event_time else ""
        day: str | None = first if headers else None
        cited_ids = {t.id for t in cited}
        lines: list[str] = []
        prev: Doc | None = None
        for t in members:
            if prev is not None and (skip := skip_line(self.store, prev, t, whose=whose)):
                lines.append(skip)
            if t.id in cited_ids:
                text = self._excerpt(t.text, terms, limit)
            else:  # context: what it asks, or its opening, not the whole turn
                text = self._excerpt(t.text, _ASKING if asks(t.text) else terms, _CONTEXT_CUT)
            own = day_label(t.event_time) if t.event_time else ""
            lines.append(strip_day(text) if own == day else text)
            if not headers:
                day = own
            prev = t
        return RecallItem(
            text="\n".join(lines + [f"  ({a.text})" for a in attached]),
            kind="turns",
            score=round(score, 6),
            cites=tuple(t.cites[0] for t in cited if t.cites),
            node_ids=tuple(n for t in cited for n in t.node_ids),
            session_id=seed.session_id,
            commit=seed.prov.get("commit"),
            event_time=members[0].event_time,
            doc_ids=tuple(t.id for t in cited) + tuple(a.id for a in attached),
            context_ids=tuple(n for t in members if t.id not in cited_ids for n in t.node_ids),
            headers=headers,
        )

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
            if terms is _ASKING:  # the sentences that ask, the last one first
                return (int("?" in sentences[i] or "？" in sentences[i]), i)
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
            headers=self.config.headers,
        )

    def _fits(self, item: RecallItem, spent: int, budget: int, number: int) -> RecallItem | None:
        tokens = self.count_tokens(item.render(number)) + 1  # (+ the blank line before the next)
        return replace(item, tokens=tokens) if spent + tokens <= budget else None

    def _window(self, d: Doc, covered: set[str]) -> list[Doc]:
        config = self.config
        if config.window <= 0 or d.session_id is None or d.seq is None:
            return [d]
        ids = self.store.window_ids(d.session_id, d.seq, config.window, config.window)
        found = self.store.docs_by_id(ids)
        docs = [found[i] for i in ids if i in found]
        return [w for w in docs if self.visible(w) and (w.id == d.id or w.id not in covered)]
