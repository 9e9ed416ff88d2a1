"""How the turns of one recall item read as dialogue: who says what, which turn a cited one
answers or is answered by, and what lies between two shown turns.

A cited turn travels with the turn that makes sense of it: the question it answers (the turn
before it, by someone else, asking something), the reply that completes it (when it asks), and
the news it reacts to ("Wow, congratulations!" after "my company is moving me to Lisbon").
Turns left out between two shown ones are counted as a reader counts them: the messages of
people, by speaker, with tool calls and their results counted apart.

>>> speaker_of("[2023-05-27] Priya: Wow, congratulations!")
'Priya'
>>> asks("Tomas: Are you excited? I am.")
True
>>> reacts("Priya: Wow, congratulations! Are you excited about living in Portugal?")
True
>>> describe_skip(["Priya", "Tomas", "Priya"], 2)
'… (3 turns skipped: Priya 2, Tomas 1; 2 tool messages skipped)'
>>> describe_skip(["Priya", "Tomas", "Priya"], 0, whose=False)
'… (3 turns skipped)'
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from ..index.docs import Doc
from ..storage.protocols import IndexStore

__all__ = [
    "asks",
    "body_of",
    "describe_skip",
    "is_tool_turn",
    "neighbour",
    "reacts",
    "skip_line",
    "speaker_of",
    "strip_day",
    "within",
]

_DAY = re.compile(r"^\[[^\]\n]{1,40}\] ")
_QUESTION = re.compile(r"[?？]")
# a reply that opens on a reaction to what the other person said: a short exclamation ("Wow,
# congratulations!", "That's great!", "太好了！"), or a word of congratulation or sympathy
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s*")
_REACTION_WORDS = re.compile(
    r"\b(?:wow|congrat\w*|amazing|awesome|great|cool|nice|sorry|glad|happy for you)\b|"
    r"恭喜|太好了|真棒|好厉害|哇|抱歉|遗憾",
    re.IGNORECASE,
)
_FAR = 40  # messages after a turn searched for another within reach (tool calls between)
_REACTION_WORDS_MAX = 6  # words of an opening exclamation that is only a reaction


def strip_day(text: str) -> str:
    """A turn's text without its ``[day] `` prefix."""
    return _DAY.sub("", text, count=1)


def speaker_of(text: str) -> str:
    """Who says a turn (``[day] Speaker: body``), or ``""``."""
    head, sep, _ = strip_day(text).partition(": ")
    return head if sep and len(head) <= 80 else ""


def body_of(text: str) -> str:
    """What a turn says, without its day and speaker."""
    rest = strip_day(text)
    head, sep, body = rest.partition(": ")
    return body if sep and len(head) <= 80 else rest


def is_tool_turn(doc: Doc) -> bool:
    """A tool's result, or an agent's message that only calls tools: no turn of a person."""
    speaker = str(doc.prov.get("speaker") or speaker_of(doc.text))
    if speaker == "tool" or speaker.startswith("tool "):
        return True
    lines = [x for x in body_of(doc.text).splitlines() if x.strip()]
    return bool(lines) and all(x.lstrip().startswith("[call ") for x in lines)


def asks(text: str) -> bool:
    """Whether a turn asks something (a question mark in what it says)."""
    return bool(_QUESTION.search(body_of(text)))


def reacts(text: str) -> bool:
    """Whether a turn opens by reacting to what was just said to it: its first sentence is a
    short exclamation, or a word of congratulation or sympathy."""
    body = body_of(text).strip()
    first = _SENTENCE_END.split(body, maxsplit=1)[0]
    if not first:
        return False
    short = len(re.findall(r"\w+", first)) <= _REACTION_WORDS_MAX
    return short and (first.endswith(("!", "！")) or bool(_REACTION_WORDS.search(first)))


def describe_skip(speakers: Sequence[str], tools: int, *, whose: bool = True) -> str:
    """The line standing for turns left out: how many people's turns, and whose (speakers in
    the order they first speak, with a count when more than one speaks; ``whose=False``: only
    how many), then tool messages. ``speakers`` has one entry per skipped person's turn."""
    counts = Counter(speakers)
    order = sorted(counts, key=speakers.index)
    n = len(speakers)
    parts: list[str] = []
    if n:
        who = order[0] if len(order) == 1 else ", ".join(f"{w} {counts[w]}" for w in order)
        parts.append(f"{n} {'turn' if n == 1 else 'turns'} skipped" + (f": {who}" if whose else ""))
    if tools:
        parts.append(f"{tools} tool {'message' if tools == 1 else 'messages'} skipped")
    return f"… ({'; '.join(parts)})"


def within(store: IndexStore, a: Doc, b: Doc, reach: int) -> bool:
    """Whether ``b`` is at most ``reach`` people's turns from ``a`` in their session (tool
    calls and results between them do not count)."""
    if a.seq is None or b.seq is None or a.session_id != b.session_id:
        return False
    (lo_seq, lo), (hi_seq, hi) = sorted([(a.seq, a), (b.seq, b)], key=lambda x: x[0])
    if hi_seq - lo_seq <= reach:
        return True
    ids = store.window_ids(lo.session_id or "", lo_seq, 0, _FAR)
    if hi.id not in ids:
        return False
    between = ids[1 : ids.index(hi.id)]
    found = store.docs_by_id(between)
    people = sum(1 for i in between if i in found and not is_tool_turn(found[i]))
    return people < reach


def neighbour(store: IndexStore, t: Doc, step: int) -> Doc | None:
    """The turn right before (``step=-1``) or after (``+1``) ``t`` in its session."""
    if t.session_id is None or t.seq is None:
        return None
    ids = store.window_ids(t.session_id, t.seq, max(-step, 0), max(step, 0))
    if t.id not in ids:
        return None
    at = ids.index(t.id) + step
    if not 0 <= at < len(ids):
        return None
    return store.docs_by_id([ids[at]]).get(ids[at])


def skip_line(store: IndexStore, a: Doc, b: Doc, *, whose: bool = True) -> str:
    """The line standing for the turns of the session between ``a`` and ``b`` (``""`` when
    they are next to each other): people's turns (by speaker, ``whose``), tool messages
    apart."""
    if a.session_id != b.session_id or a.seq is None or b.seq is None or b.seq <= a.seq + 1:
        return ""
    ids = store.window_ids(a.session_id or "", a.seq, 0, b.seq - a.seq)
    between = ids[1 : ids.index(b.id)] if b.id in ids else ids[1:]
    if not between:
        return ""
    found = store.docs_by_id(between)
    docs = [found[i] for i in between if i in found]
    people = [speaker_of(d.text) or "someone" for d in docs if not is_tool_turn(d)]
    return describe_skip(people, sum(1 for d in docs if is_tool_turn(d)), whose=whose)
