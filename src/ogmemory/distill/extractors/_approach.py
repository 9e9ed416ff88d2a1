"""A choice of approach, not of a named tool: "for regridding we're going with bilinear through
xESMF", "big change on lighting. ... we're dropping clustered forward and going with a
visibility buffer instead", "change of plan on regridding ... we're switching to conservative
regridding". What is chosen is a few lower-case words, so it is read only where the speaker
names what the choice is for: "for <topic>" before it, or a change announced "on <topic>"
earlier in the turn. The topic is the slot, so a later approach for it ends the earlier one.

>>> approach_at("a visibility buffer (deferred texturing) instead")
'visibility buffer'
>>> approach_at("bilinear through xESMF, it's fast")
'bilinear'
>>> approach_at("sigmoid / Platt scaling instead, scrap isotonic")
'sigmoid / Platt scaling'
>>> approach_at("that") is None, approach_at("option B") is None
(True, True)
>>> turn_topic("Big change on lighting. After review we're going with X.", 30)
'lighting'
>>> turn_topic("Sure thing, John. Let's keep spreading positivity.", 40) is None
True
>>> turn_topic("INT8 校准换方案了：我们改用 MinMax。", 12)
'INT8 校准'
"""

from __future__ import annotations

import re

from ._common import NodeContext, Sentence, content_text, gate

__all__ = ["approach_at", "approach_for", "topic_before", "turn_topic"]

_ARTICLE = re.compile(r"(?i)^(?:an?|the|our|some)\s+")
_WORD = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
# words that end the approach's name ("bilinear through xESMF", "a visibility buffer instead")
_ENDS = gate(
    "through via for with instead because since so and but as in on to from which that who"
    " where when until unless if than rather now then again too also here there everywhere"
    " anymore going please"
)
# what no approach is called: pointers back to something said ("go with that", "option B"),
# fillers ("go with the flow") and time words
_NOT_APPROACH = gate(
    "it that this these those them one ones option options approach plan idea suggestion"
    " version yours mine flow something anything everything nothing whatever same other"
    " yes no ok okay now later today tomorrow default defaults usual original first second"
    " last latest new old best simplest easiest"
)
_TOPIC = re.compile(
    r"(?i)\b(?:change\s+of\s+plans?|(?:big|small|quick|another)\s+change|update|news|decision"
    r"|rethink|u-?turn)\s+(?:on|re|for|about|regarding)\s+(?:the\s+|our\s+)?"
    r"(?P<t>[a-z][\w-]*(?:\s+(?!(?:and|but|so|then|after|because)\b)[a-z][\w-]*)?)"
    # "calibration thing. I looked at ...": the topic the turn opens with
    r"|^(?:(?:ok|so|re)[,:\s]+)?(?!(?:sure|good|great|funny|same|other|one|first|last|cool|nice"
    r"|weird|whole|only|main|big|little|best|worst|crazy|hard|tough|real|right|wrong|any|some|no"
    r"|the|a|this|that|that's|my|our|your)\b)"
    r"(?P<lead>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)\s+(?:thing|stuff|question)"
    r"\s*[.:,!]"
    # "INT8 校准换方案了：…": the part whose plan changed
    r"|(?:^|[。！；，,]\s*)(?P<zh>[\u4e00-\u9fffA-Za-z0-9][\u4e00-\u9fffA-Za-z0-9\s]{1,9}?)"
    r"(?:这块|这边|方面)?(?:换方案了|改方案了|方案变了|方案改了|有变)[：:，,。]"
)


def approach_at(text: str) -> str | None:
    """The approach named at the start of ``text``: one to three lower-case words, without an
    article, up to a word that ends it or a punctuation mark (more words are a clause)."""
    tokens = _ARTICLE.sub("", text.strip()).split()
    words: list[str] = []
    for raw in tokens[:6]:
        w = raw.rstrip(".,;:!?)")
        if w == "/" and words and words[-1] != "/":
            words.append(w)  # "sigmoid / Platt scaling": one approach by two names
            continue
        named = words[-1:] == ["/"] and _WORD.fullmatch(w.lower()) is not None
        if raw.startswith("(") or not (named or _WORD.fullmatch(w)) or w in _ENDS:
            break
        if len([x for x in words if x != "/"]) == 3:
            return None  # "going with what the downscaling folks use": a clause
        words.append(w)
        if w != raw:
            break
    while words and words[-1] == "/":
        words.pop()
    if not words or words[0] in _NOT_APPROACH:
        return None
    return " ".join(words)


def turn_topic(said: str, upto: int) -> str | None:
    """The topic a change is announced on earlier in the turn ("Change of plan on
    regridding."), read before offset ``upto``."""
    found = list(_TOPIC.finditer(said, 0, max(upto, 0)))
    if not found:
        return None
    m = found[-1]
    if m.group("lead"):
        return m.group("lead").lower()
    return m.group("t").lower() if m.group("t") else m.group("zh").strip()


def topic_before(s: Sentence, ctx: NodeContext, at: int) -> str | None:
    """The topic a change is announced on in the turn before offset ``at`` of sentence ``s``
    ("Big change on caching: we're dropping ...")."""
    said = content_text(ctx.record.node.content)
    start = said.find(s.text)
    return turn_topic(said, start + at if start >= 0 else 0)


def approach_for(text: str, topic: str | None, ctx: NodeContext) -> str | None:
    """The approach named at the start of ``text`` when a topic says what it is for and the
    speaker is an agent's user (between two friends "let's keep spreading positivity" is no
    technical choice)."""
    return approach_at(text) if topic and not ctx.record.node.name else None
