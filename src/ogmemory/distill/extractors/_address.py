"""Who "you" is: a memory names the person spoken to, never "you".

A memory is read later, by someone else, out of its conversation; "you" there names no one. In a
conversation between two people "you" is the listener, so the memory says who that was:

* a telling frame addressed to the listener is no part of what is said: "Maria just wanted to
  let you know Maria did a charity event" is "Maria did a charity event"; with "about" it says
  who was told ("Caroline wanted to tell you about their school event" → "Caroline told
  Melanie about their school event");
* "you" as the one who did something is the listener ("the book you recommended" → "the book
  Melanie recommended"), and so is "your" before what a person gives ("your help" →
  "Gina's help") and "you" after a preposition ("shared it with you" → "with Gina");
* "yourself" and "your own" in a general truth are anyone's ("confidence in yourself" →
  "confidence in oneself").

>>> addressed_en("Maria just wanted to let you know Maria did a charity event.", "Maria", "John")
'Maria did a charity event.'
>>> addressed_en("Jon is reading the book you recommended.", "Jon", "Gina")
'Jon is reading the book Gina recommended.'
"""

from __future__ import annotations

import re

__all__ = ["addressed_en"]

_ADV = r"(?:(?:just|really|also|so|super|totally|finally|actually)\s+)*"
_WANTS = (
    r"(?:wanted|wants|needed|needs|had|has|has\s+got|got|is\s+" + _ADV + r"(?:excited|happy"
    r"|glad|thrilled|stoked|eager)|was\s+" + _ADV + r"(?:excited|happy|glad|thrilled|stoked|eager)"
    r"|can't\s+wait|couldn't\s+wait)\s+to\s+"
)
_TELL = (
    r"(?P<verb>tell\s+you|let\s+you\s+know|share\s+(?:(?:something|some|a|an|this|the|my|their)"
    r"(?:\s+[\w'-]+){0,3}\s+)?with\s+you|fill\s+you\s+in|update\s+you|show\s+you)"
)
_FRAME = re.compile(
    r"^(?P<who>[^,;:.!?]{1,60}?)\s+" + _ADV + _WANTS + _TELL + r"\b\s*(?P<prep>about|on|that)?\b"
    r"\s*[:,\-–—]*\s*",
    re.IGNORECASE,
)
_TOLD = {"tell": "told", "let": "told", "share": "told", "fill": "updated", "update": "updated"}
_DOER = re.compile(
    r"\byou(?=\s+(?:just\s+|once\s+|also\s+)?(?:said|told|recommended|suggested|mentioned|shared"
    r"|gave|showed|sent|asked|made|did|wrote|taught|helped|posted|bought|offered|introduced"
    r"|invited|lent|recommend|suggest|mention|gave)\b)",
    re.IGNORECASE,
)
_GIFT = re.compile(
    r"\byour(?=\s+(?:\w+\s+)?(?:help|support|advice|idea|ideas|suggestion|suggestions|tip|tips"
    r"|words|encouragement|recommendation|recommendations|feedback|input|kindness|friendship"
    r"|guidance|offer|book|books|pics?|photos?|pictures?)\b)",
    re.IGNORECASE,
)
_OBJECT = re.compile(
    r"\b(?P<p>with|to|for|from|about|thanks\s+to|like|of|told|thank|thanked|showed|gave)\s+you\b"
    r"(?!\s*(?:all|guys|two|both|'re|'ve|'ll|'d|are|were|know|see|can|could|will|would|should"
    r"|might|must|may|have|had|do|did)\b)",
    re.IGNORECASE,
)
_GENERIC = re.compile(r"\b(?:yourself|your\s+own)\b", re.IGNORECASE)
_YOU = re.compile(r"\byou", re.IGNORECASE)
_LISTENER = re.compile(r"\b(?:you|your|yours)\b", re.IGNORECASE)


def _unframe(text: str, listener: str | None) -> str:
    m = _FRAME.match(text)
    if m is None:
        return text
    rest = text[m.end() :]
    if len(re.findall(r"[A-Za-z]{3,}", rest)) < 2:
        return text
    prep = (m.group("prep") or "").lower()
    if prep in ("about", "on"):
        if listener is None:
            return text
        verb = _TOLD[m.group("verb").split()[0].lower()]
        link = "on" if verb == "updated" else "about"
        return f"{m.group('who')} {verb} {listener} {link} {rest}"
    return rest[:1].upper() + rest[1:]


def addressed_en(text: str, speaker: str, listener: str | None) -> str:
    """``text`` (a memory about ``speaker``) without "you": the telling frame dropped, the
    listener named where "you" is the listener (see the module docstring)."""
    if _YOU.search(text) is None:
        return text
    text = _unframe(text, listener)
    if listener:
        text = _DOER.sub(listener, text)
        text = _GIFT.sub(f"{listener}'s", text)
        text = _OBJECT.sub(lambda m: f"{m.group('p')} {listener}", text)
    if _LISTENER.search(_GENERIC.sub("", text)):
        return text  # "picture you all making your own pizzas": the listener's own
    return _GENERIC.sub(
        lambda m: "oneself" if m.group().lower() == "yourself" else "one's own", text
    )
