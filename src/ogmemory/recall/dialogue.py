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
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from ..index.docs import Doc

__all__ = [
    "asks",
    "body_of",
    "describe_skip",
    "is_tool_turn",
    "reacts",
    "speaker_of",
    "strip_day",
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


def describe_skip(speakers: Sequence[str], tools: int) -> str:
    """The line standing for turns left out: how many people's turns, and whose (speakers in
    the order they first speak, with a count when more than one speaks), then tool messages.
    ``speakers`` has one entry per skipped person's turn."""
    counts = Counter(speakers)
    order = sorted(counts, key=speakers.index)
    n = len(speakers)
    parts: list[str] = []
    if n:
        who = order[0] if len(order) == 1 else ", ".join(f"{w} {counts[w]}" for w in order)
        parts.append(f"{n} {'turn' if n == 1 else 'turns'} skipped: {who}")
    if tools:
        parts.append(f"{tools} tool {'message' if tools == 1 else 'messages'} skipped")
    return f"… ({'; '.join(parts)})"
