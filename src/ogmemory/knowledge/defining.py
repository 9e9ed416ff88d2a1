"""What defines a person, against what only happened once: how core.md chooses its lines.

core.md has room for about fifteen lines, and a long conversation between people yields
hundreds of facts and events. A careful reader keeps what defines each person: who they are,
their family, work and home, the goals they keep coming back to, lasting likes (a thing or an
activity); and leaves out what was momentary ("bought the figurines", "loves all the yellow
leaves", "loves the self-acceptance and love theme": the object only makes sense next to the
photo it was said about). Three general signs, none tied to one data set:

* **recurrence**: a theme a person comes back to in several sessions (adoption, counseling,
  pottery) is long-running; a word said in one session is not. :class:`Themes` counts, per
  person, the sessions each content word of their facts and events occurs in;
* **what the line says**: a change of state (started, joined, moved, passed, applied,
  adopted, married ...) is a milestone; an outing or a purchase (went, took, bought, saw ...)
  with nothing recurring in it is momentary;
* **what a preference is about**: a thing or an activity ("creating art", "hiking in the
  mountains", "pnpm") lasts; an object that points at the moment ("the ...", "this ...",
  "all the ...", "... it brings", "such a great time") does not.

And each person gets a fair share: within a section, lines take turns by whose they are, so
one talkative speaker does not crowd the other out (:func:`fair_order`).
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import TypeVar

from .models import Edge, TimelineEvent

__all__ = [
    "Themes",
    "fair_order",
    "lasting_object",
    "milestone_factor",
    "pointing",
    "spread",
    "words",
]

T = TypeVar("T")

_WORD = re.compile(r"[a-z][a-z'-]+|[\u4e00-\u9fff]{2,4}")
_STOP = frozenset(
    """a an the and or but so to of in on at for with from by about as into over after before
    is are was were be been being am has have had do does did will would can could should may
    might must shall just also even really very so too more most much many lot lots some any
    all every each this that these those it its they them their theirs there here then than
    what which who whom whose when where why how not no yes i me my we us our you your he him
    his she her hers one ones other others thing things stuff time times day days week weeks
    month months year years today yesterday tomorrow now recently lately finally already still
    again always never ever new old good great nice fun awesome amazing special super big
    little got get gets getting go goes going went gone make makes made take takes took taken
    have having feel feels felt see saw seen seeing like likes liked love loves loved enjoy
    enjoys want wants wanted way ways user team s t re ve ll d m goal goals dream career keen
    favorite favourite prefer prefers""".split()
)

# a change of state: the kind of event a biography keeps
_MILESTONE = re.compile(
    r"\b(?:start(?:ed|s)?|began|begun|join(?:ed|s)?|mov(?:ed|es|ing)\s+(?:to|from|in|out)"
    r"|relocat\w+|pass(?:ed|es)|graduat\w+|appl(?:ied|ies)|adopt(?:ed|s|ing)|married|marr(?:y|ies)"
    r"|engaged|divorc\w+|gave\s+birth|had\s+a\s+(?:baby|son|daughter)|hired|promoted|retir\w+"
    r"|quit|lost\s+\w+\s+job|laid\s+off|launch(?:ed|es)|open(?:ed|s)\s+(?:a|an|their|his|her)"
    r"|found(?:ed|s)|won|finish(?:ed|es)\s+(?:a|an|their|the)\s+\w*\s*(?:degree|course|program"
    r"|training|book|marathon)|became|become|enroll\w+|sign(?:ed|s)\s+up|decid(?:ed|es)"
    r"|transition\w*|diagnos\w+|bought\s+(?:a|an|their)\s+(?:house|home|flat|apartment|car)"
    r"|shipp?(?:ed|s)|releas(?:ed|es)|fix(?:ed|es)|learn(?:ed|t|s)|switch(?:ed|es))\b"
    r"|开始|加入|搬到|搬家|毕业|结婚|离职|入职|上线|发布|修复|决定|改用|换成",
    re.IGNORECASE,
)
# a moment: an outing, a purchase, something seen, made or tried once
_MOMENT = re.compile(
    r"\b(?:went|visited|took\s+(?:the|their|a|his|her)|bought|saw|watched|found|tried|made"
    r"|had\s+a\s+(?:blast|great|good|wicked|fun|nice)|has\s+done|put|read|played|ate"
    r"|celebrated|painted|drew|got\s+into|ran\s+into|is\s+about\s+to)\b",
    re.IGNORECASE,
)
# an object that points at the moment it was said in ("the freedom it brings", "all the yellow
# leaves"); "in this codebase" only scopes a lasting one
_DEICTIC = re.compile(
    r"^(?:the|this|that|these|those|all\s+(?:the|these|those|this|that)|such|some|it|its|them"
    r"|his|her|their)\b|\b(?:it|them|such\s+a|so\s+much)\b",
    re.IGNORECASE,
)
_POINTING = re.compile(r"\b(?:this|that|these|those)\b", re.IGNORECASE)
_PLAIN = frozenset({"preference", "activity", "value"})


@lru_cache(maxsize=8192)
def words(text: str) -> frozenset[str]:
    """The content words of a text (lower case, a possessive's and a plural's ``s``
    dropped)."""
    out = set()
    for w in _WORD.findall(text.lower()):
        if w.endswith("'s"):
            w = w[:-2]
        w = w.strip("'-")
        if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
            w = w[:-1]
        if len(w) > 2 and w not in _STOP:
            out.add(w)
    return frozenset(out)


class Themes:
    """Per person (entity id), the sessions each content word of their lines occurs in."""

    def __init__(self, edges: Iterable[Edge], events: Iterable[TimelineEvent]) -> None:
        seen: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
        sessions: dict[str, set[str]] = defaultdict(set)
        for e in edges:
            sid = e.provenance.session_id or ""
            for w in words(e.fact):
                seen[e.src][w].add(sid)
            sessions[e.src].add(sid)
        for ev in events:
            sid = ev.provenance.session_id or ""
            for ent in ev.entities[:1]:
                for w in words(ev.summary):
                    seen[ent][w].add(sid)
                sessions[ent].add(sid)
        # people's names say whose line it is, not what it is about
        names = {part for owner in sessions for part in owner.split(".", 1)[-1].split("-")}
        for mine in seen.values():
            for name in names & set(mine):
                del mine[name]
        self._seen = seen
        self._sessions = sessions

    def recurrence(self, owner: str, text: str) -> float:
        """How long-running what ``text`` speaks of is for ``owner``: the log of the sessions
        its most recurring content word occurs in, and half that of the next one (0 for words
        said in one session only). Words the owner uses in most of their sessions ("kids" for a
        parent) say which person it is, not which theme: they count a little."""
        mine = self._seen.get(owner)
        if not mine:
            return 0.0
        total = max(1, len(self._sessions.get(owner, ())))
        weights = [0.0, 0.0]
        for w in words(text):
            n = len(mine.get(w, ()))
            if n < 2:
                continue
            weights.append(math.log(n) * (0.4 if n > 0.6 * total and total >= 6 else 1.0))
        top = sorted(weights, reverse=True)
        return top[0] + 0.5 * top[1]  # the theme, and a second one it shares


def milestone_factor(text: str) -> float:
    """2 for a change of state, 0.5 for a moment (an outing, a purchase), else 1."""
    head = text.split(". ")[0]
    if _MILESTONE.search(head):
        return 2.0
    if _MOMENT.search(head):
        return 0.5
    return 1.0


def lasting_object(name: str, etype: str) -> bool:
    """Whether a preference's object lasts: a thing or an activity ("creating art", "pnpm"),
    not something that points at the moment ("all the yellow leaves", "the freedom it
    brings"). Named things (tools, concepts, organisations) always do."""
    if etype not in _PLAIN:
        return True
    return not _DEICTIC.search(name.strip())


def pointing(name: str) -> bool:
    """Whether a name points at something of the conversation ("a home for these kids"):
    still lasting, but worded for the moment it was said in."""
    return bool(_POINTING.search(name))


def fair_order(items: Sequence[T], owner: Callable[[T], str]) -> list[T]:
    """``items`` (best first) reordered so that owners take turns: each one's best, then
    each one's second, ... (the owner with the better first line goes first)."""
    queues: dict[str, list[T]] = {}
    for item in items:
        queues.setdefault(owner(item), []).append(item)
    out: list[T] = []
    while queues:
        for key in list(queues):
            out.append(queues[key].pop(0))
            if not queues[key]:
                del queues[key]
    return out


def spread(items: Sequence[T], text: Callable[[T], str]) -> list[T]:
    """``items`` (best first) without those that say much the same as a better one (half the
    content words of the shorter shared): two lines on counseling say less than one on
    counseling and one on adoption, and the second would take the other's place."""
    out: list[T] = []
    taken: list[frozenset[str]] = []
    for item in items:
        mine = words(text(item))
        if any(len(mine & o) * 2 >= min(len(mine), len(o)) > 0 for o in taken):
            continue
        out.append(item)
        taken.append(mine)
    return out
