"""Threads of a conversation for the rule extractor: statement, question, answer.

The answer a speaker gives to a question about what they just said elaborates that statement
(one memory, resting on both turns); a reaction to the listener ("Keep going, you got this!")
is evidence of what they said last; who speaks to whom in a session.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from ...entity.records import NodeRecord
from ..types import Candidate
from ._common import NodeContext, Sentence, content_text
from ._social import social

__all__ = ["STATEMENT_TYPES", "Threads", "can_merge", "merge"]


_MERGE_LIMIT = 300
STATEMENT_TYPES = ("note", "event")
_YOU = re.compile(r"\byou(?:rs?|rself)?\b|你|您", re.IGNORECASE)


class Threads:
    """Statement, question, answer: the answer elaborates the statement it was asked about.

    "I took my family camping last week." - "How was it?" - "We roasted marshmallows and
    hiked." is one fact a careful reader notes once, resting on both turns; so the answer's
    statements are appended to the statement two turns before (same session, same speaker,
    the turn between them asked a question), up to about ``_MERGE_LIMIT`` characters.
    """

    def __init__(self) -> None:
        # per session: the last two turns as (speaker, asked a question, statement index,
        # asked the listener a question about themselves)
        self.recent: dict[str, list[tuple[str, bool, int | None, bool]]] = {}
        self.named: dict[str, str] = {}  # per session: the last named speaker
        self.why: dict[str, str] = {}  # per session: a node that just asked for a cause
        self.why_text: dict[str, str] = {}  # and what it asked
        self.question: dict[str, str] = {}  # per session: the questions of the last turn
        self.said: dict[str, str] = {}  # per session: the whole last turn
        self.own: dict[tuple[str, str], list[str]] = {}  # (session, speaker): last turns
        self.speakers: dict[str, list[str]] = {}  # per session: its named speakers in order
        self.latest: dict[tuple[str, str], int] = {}  # (session, speaker): latest statement

    def asked(self, record: NodeRecord, ctx: NodeContext) -> bool:
        """Whether the turn before (another speaker's) asked a question."""
        recent = self.recent.get(record.session_id) or []
        return bool(recent) and recent[-1][0] != ctx.speaker and recent[-1][1]

    def asked_about(self, record: NodeRecord, ctx: NodeContext) -> bool:
        """Whether the turn before (another speaker's) asked the speaker a question."""
        recent = self.recent.get(record.session_id) or []
        return bool(recent) and recent[-1][0] != ctx.speaker and recent[-1][3]

    def listener(self, record: NodeRecord, ctx: NodeContext) -> str | None:
        """The named person the speaker is talking to (the last other named speaker; in a
        session's first turn, the first other named speaker of the session)."""
        other = self.named.get(record.session_id)
        if other and other != ctx.speaker:
            return other
        if other is None:  # the session's first turn: the one who will answer
            return next(
                (n for n in self.speakers.get(record.session_id, ()) if n != ctx.speaker), None
            )
        return None

    def learn_speakers(self, records: Sequence[NodeRecord]) -> None:
        """Who speaks in each session (for a first turn's listener)."""
        for record in records:
            name = record.node.name
            if name and name.strip() and record.node.role in ("user", "assistant"):
                speakers = self.speakers.setdefault(record.session_id, [])
                if " ".join(name.split()) not in speakers:
                    speakers.append(" ".join(name.split()))

    def social(
        self,
        record: NodeRecord,
        ctx: NodeContext,
        sentences: list[Sentence],
        candidates: list[Candidate],
        start: int,
    ) -> None:
        """An offer of help to the listener is a memory (unless a stance already holds it);
        a reaction to them is evidence of what they said last."""
        offered = any(c.attrs.get("stance") == "offers" for c in candidates[start:])
        found, reacted = social(sentences, ctx, ctx.listener or "")
        candidates.extend(c for c in found if not (offered and c.relation == "offers_help"))
        if reacted:
            self.acknowledge(record, ctx, candidates)

    def heard(
        self,
        record: NodeRecord,
        ctx: NodeContext,
        candidates: list[Candidate],
        start: int,
        end: int,
    ) -> None:
        """Whatever the turn said (a preference, a relation, not only a statement), a
        reaction to it rests on it."""
        key = (record.session_id, ctx.speaker)
        said = [i for i in range(start, end) if not candidates[i].attrs.get("social")]
        if said and self.latest.get(key, -1) < said[0]:  # a reaction is nothing to react to
            self.latest[key] = said[0]

    def earlier(self, record: NodeRecord, ctx: NodeContext) -> str:
        """The speaker's two turns before this one in the session (then this one is kept)."""
        own = self.own.setdefault((record.session_id, ctx.speaker), [])
        before = " ".join(own)
        own[:] = [*own[-1:], content_text(record.node.content)]
        return before

    def acknowledge(
        self, record: NodeRecord, ctx: NodeContext, candidates: list[Candidate]
    ) -> None:
        """The node reacts to its listener ("Keep going, you got this!"): it becomes evidence
        of the listener's latest statement in the session, if they made one."""
        i = self.latest.get((record.session_id, ctx.listener or ""))
        if i is not None:
            old = candidates[i]
            if record.node.id not in old.node_ids:
                candidates[i] = replace(old, node_ids=(*old.node_ids, record.node.id))

    def add(
        self,
        record: NodeRecord,
        ctx: NodeContext,
        sentences: list[Sentence],
        statements: list[Candidate],
        candidates: list[Candidate],
        said: int | None = None,
        extra: Candidate | None = None,
    ) -> int:
        """Place the node's statements (merged or appended); returns 1 if it merged.
        ``said``: the index of an event the node already stated (a later answer may join
        it when the node has no statement of its own)."""
        recent = self.recent.setdefault(record.session_id, [])
        merged = 0
        target = None
        if (
            len(recent) == 2
            and recent[0][0] == ctx.speaker
            and recent[1][0] != ctx.speaker
            and recent[1][1]
            and recent[0][2] is not None
        ):
            target = recent[0][2]
        if target is not None and (
            candidates[target].attrs.get("threaded")
            or not _follows_up(self.question.get(record.session_id, ""), candidates[target].text)
        ):
            # one answer elaborates a statement, and only the answer to a question about it
            # ("Wanna do a family outing?" after the Pride fest starts something new)
            target = None
        first_index: int | None = None
        if (
            extra is not None
            and target is not None
            and can_merge(candidates[target], extra)
            and _follows_up(self.question.get(record.session_id, ""), candidates[target].text)
        ):
            candidates[target] = merge(candidates[target], extra, threaded=True)
            merged, first_index = 1, target
        for cand in statements:
            if target is not None and can_merge(candidates[target], cand):
                candidates[target] = merge(candidates[target], cand, threaded=True)
                merged = 1
                first_index = target
                continue
            candidates.append(cand)
            if first_index is None:
                first_index = len(candidates) - 1
        if first_index is None:
            first_index = said
        if first_index is not None:
            self.latest[(record.session_id, ctx.speaker)] = first_index
        asked = any(s.question for s in sentences)
        about = any(s.question and _YOU.search(s.text) is not None for s in sentences)
        self.question[record.session_id] = " ".join(s.text for s in sentences if s.question)
        self.said[record.session_id] = " ".join(s.text for s in sentences)
        recent.append((ctx.speaker, asked, first_index, about))
        if record.node.name and record.node.name.strip():
            self.named[record.session_id] = ctx.speaker
        del recent[:-2]
        return merged


_ANAPHORA = re.compile(
    r"\b(?:it|its|that|this|they|them|their|those|these|there|he|she|his"
    r"|her)\b|它|那|这|他们|她们",
    re.IGNORECASE,
)
_WORD = re.compile(r"[A-Za-z]{4,}|[\u4e00-\u9fff]{2}")
_TIME_DEIXIS = re.compile(
    r"\b(?:this|that|these|those)\s+(?:summer|winter|spring|fall|autumn|year|month|week"
    r"|weekend|morning|evening|afternoon|time|days?)\b",
    re.IGNORECASE,
)
# "Where did you go?", "What did you see?": asking on about what was just told
_WH_YOU = re.compile(r"\b(?:what|where|how|who|when|which|why)\b[^?]*\byou\b", re.IGNORECASE)


def _follows_up(question: str, said: str) -> bool:
    """Whether a question asks about what was just said: it points back ("What are their
    names?", "How was it?"), asks on ("Where did you go?") or names something of it; "Do you
    like jazz?" starts something new."""
    question = _TIME_DEIXIS.sub("", question)  # "this summer" points at no thing
    if _ANAPHORA.search(question) or _WH_YOU.search(question):
        return True
    words = {w.lower() for w in _WORD.findall(said)}
    return any(w.lower() in words for w in _WORD.findall(question))


def can_merge(old: Candidate, new: Candidate) -> bool:
    return (
        old.language == new.language
        and old.type in STATEMENT_TYPES
        and "stance" not in old.attrs
        and "whole" not in old.attrs
        and len(old.text) + len(new.text) < _MERGE_LIMIT
    )


def merge(old: Candidate, new: Candidate, *, threaded: bool = False) -> Candidate:
    """``old`` elaborated by ``new``; ``threaded``: by the speaker's answer to a question."""
    attrs = {**old.attrs, "elaborated": True, **({"threaded": True} if threaded else {})}
    if "date" not in attrs and "date" in new.attrs:
        attrs.update({k: v for k, v in new.attrs.items() if k.startswith("date")})
    sep = "" if old.language == "zh" else " "
    return replace(
        old,
        text=f"{old.text}{sep}{new.text}",
        node_ids=tuple(dict.fromkeys((*old.node_ids, *new.node_ids))),
        importance=max(old.importance, new.importance),
        attrs=attrs,
    )
