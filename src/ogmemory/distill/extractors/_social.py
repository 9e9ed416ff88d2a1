"""How two people in a conversation stand to each other: who encourages, admires, thanks whom.

Friends talking spend many turns on each other rather than on themselves: "Keep going, don't
give up!", "I'm so proud of you!", "Thanks for always having my back". None of these is worth a
memory, and neither is what they add up to: "Gina encourages and supports Jon" or "Jon is
grateful for Gina's support" says nothing a careful reader would note about either (it filled
core.md's "Who" and half the facts between two friends). So such a sentence is recognised
(``relation_of``) and is evidence of the news it answers ("Keep going, you got this!" after
"I'm opening my own studio" is one more turn resting on that). What it adds up to is one
note per pair and relation, always stated with the same words, so the pipeline keeps one
memory and adds every further turn to its evidence; it is no fact and no line of core.md
(LoCoMo's annotators do note how two friends stand to each other: without these notes the
development file's semantic coverage falls from 0.78 to 0.70). Only an offer of help, which
names something the speaker will do, is a fact.

Only people count: the listener must be a named speaker of the session (not an unnamed AI
assistant: "thanks, that works" to a coding assistant is no relation worth keeping).

>>> from datetime import date
>>> from ogmemory.distill.extractors._common import split_sentences
>>> [relation_of(s) for s in split_sentences("Keep going, you got this!", date(2023, 1, 1))]
['encourages']
"""

from __future__ import annotations

import re
from typing import Any

from ..types import Candidate, EntityRef
from ._common import NodeContext, Sentence, gate
from ._grammar import finish_en, finish_zh

__all__ = ["relation_of", "social"]

_ENCOURAGE_EN = re.compile(
    r"\b(?:keep\s+(?:it\s+up|going|pushing|at\s+it|on\s+\w+ing|up\s+the|shining|chasing|believing"
    r"|rocking|working)|don['’]?t\s+(?:give\s+up|quit|stop|let\s+\w+|forget\s+to|lose)"
    r"|never\s+give\s+up|you\s+got\s+this|you['’]ve\s+got\s+this|you\s+can\s+do\s+(?:it|this)"
    r"|believe\s+in\s+(?:yourself|you)|go\s+for\s+it|good\s+luck|rooting\s+for\s+you"
    r"|(?:i['’]m|i\s+am|always)\s+here\s+for\s+you|got\s+your\s+back|have\s+your\s+back"
    r"|you['’]ll\s+(?:get\s+there|do\s+great|make\s+it|be\s+(?:fine|great|okay|ok))"
    r"|you['’]re\s+(?:gonna|going\s+to)\s+(?:do|kill|rock|nail|be)|hang\s+in\s+there"
    r"|stay\s+(?:positive|strong|focused)|cheering\s+(?:you\s+on|for\s+you))\b",
    re.IGNORECASE,
)
_ADMIRE_EN = re.compile(
    r"\b(?:(?:so|really|super|very)\s+proud\s+of\s+you|proud\s+of\s+you|in\s+awe\s+of\s+your?"
    r"|impressed\s+(?:by|with)\s+(?:you|your|how\s+you)|(?:sweet|great|awesome|amazing|inspiring"
    r"|nice|wonderful|cool|good)\s+to\s+see\s+(?:you|your|how\s+(?:\w+\s+){0,2}you)"
    r"|you['’]re\s+(?:definitely\s+|truly\s+|really\s+)?(?:the|a|such\s+an?)\s+(?:perfect|great"
    r"|amazing|awesome|wonderful|fantastic|true|natural|real)\s+\w+|way\s+to\s+\w+\s+your"
    r"|i\s+(?:really\s+|truly\s+|seriously\s+|so\s+)?admire\s+(?:you|your|what\s+you|how\s+you)"
    r"|(?:honou?r|privilege|great|cool|nice|lucky)\s+to\s+(?:know|have)\s+(?:a\s+friend|someone"
    r"|friends|people)\s+like\s+you|friends?\s+like\s+you\s+make|(?:people|someone|friends?)\s+like\s+you\b(?!\s+(?:said|do))"
    r"|you['’]re\s+(?:really\s+|truly\s+|definitely\s+)?(?:making\s+a\s+(?:\w+\s+)?difference"
    r"|doing\s+(?:a|our|the|such)\s+\w+)|you\s+did\s+(?:great|amazing|awesome|so\s+well|a\s+great)"
    r"|your\s+(?:\w+\s+){0,4}(?:will|is\s+making|are\s+making|makes?|made)\s+(?:definitely\s+|really\s+)?"
    r"(?:a\s+(?:big\s+|huge\s+|real\s+)?(?:difference|impact)|start|create|change|inspire)"
    r"|you['’]re\s+(?:so\s+|really\s+|truly\s+|such\s+an?\s+|an?\s+)?"
    r"(?:amazing|awesome|inspiring|inspirational|talented|strong|brave|incredible|an\s+inspiration"
    r"|a\s+star|a\s+natural|the\s+best|doing\s+(?:great|amazing|awesome|so\s+well|an\s+awesome))"
    r"|you\s+(?:inspire|amaze)\s+me|your\s+(?:\w+\s+){0,5}(?:is|are|was|were|looks?|sounds?)"
    r"\s+(?:so\s+|really\s+|truly\s+|super\s+)?(?:inspiring|impressive|amazing|awesome|incredible"
    r"|great|beautiful|gorgeous|stunning|wonderful|fantastic|admirable)|way\s+to\s+go"
    r"|congrat(?:s|ulations)|well\s+done|good\s+(?:job|for\s+you|on\s+you)|(?:i\s+)?love\s+(?:how"
    r"|that)\s+you|(?:so\s+)?glad\s+(?:you|to\s+(?:hear|see)\s+you)|(?:great|awesome|amazing)"
    r"\s+(?:job|work)|you\s+(?:did|nailed|killed|rocked)\s+it|you\s+deserve)\b",
    re.IGNORECASE,
)
_CARE_EN = re.compile(
    r"\b(?:sorry\s+(?:to\s+hear|about|for\s+your|'?bout)|(?:(?:that|it)\s+)?must\s+(?:have\s+been|be)\s+"
    r"(?:so\s+|really\s+)?(?:hard|tough|scary|rough|difficult|traumati[sz]ing|awful|painful)"
    r"|(?:hope|hoping)\s+(?:you|your\s+\w+)\s+(?:feel|get|are|is|'re|'s)\s+(?:better|well|ok"
    r"|okay|alright|fine|recover\w*)|take\s+care\s+of\s+yourself|thinking\s+of\s+you"
    r"|here\s+if\s+you\s+need|let\s+me\s+know\s+if\s+you\s+need|glad\s+(?:you['’]re|your\s+\w+"
    r"\s+(?:is|are))\s+(?:ok|okay|fine|safe|better|alright))\b",
    re.IGNORECASE,
)
_GRATEFUL_EN = re.compile(
    r"\b(?:thanks?\s+(?:you\s+)?(?:so\s+much\s+)?for\s+(?:your|the|being|having|believing|all"
    r"|always|listening|supporting|cheering|offering|helping|letting\s+me|the\s+offer)|your\s+(?:\w+\s+)?(?:support|help|words|encouragement"
    r"|belief|faith|kindness|friendship|backing)\s+(?:\w+\s+){0,2}(?:means?|meant|matters?"
    r"|helps?|keeps?|motivates?)|(?:i\s+)?appreciate\s+(?:you|your|our\s+friendship|the\s+support)"
    r"|grateful\s+(?:for|to\s+have)\s+you"
    r"|lucky\s+to\s+have\s+(?:(?:people|friends|someone)\s+like\s+)?you"
    r"|glad\s+(?:I|to)\s+have\s+you|your\s+(?:\w+\s+){0,2}(?:is|are)\s+(?:so\s+|really\s+)?"
    r"(?:encouraging|motivating|uplifting|helpful|priceless)"
    r"|means\s+(?:so\s+much|a\s+lot|the\s+world)\b[^.!?]*\byou|all\s+of\s+you\s+means)\b",
    re.IGNORECASE,
)
_ENCOURAGE_ZH = re.compile(r"加油|别放弃|不要放弃|相信你|你可以的|你一定(?:能|可以|行)|支持你|挺你")
_ADMIRE_ZH = re.compile(r"为你骄傲|为你感到骄傲|你真棒|你太棒了|佩服你|你好厉害|你真厉害")
_GRATEFUL_ZH = re.compile(
    r"谢谢你的(?:支持|帮助|鼓励)|感谢你的(?:支持|帮助|鼓励)|有你真好|谢谢你一直"
)

_CARE_ZH = re.compile(r"(?:很|真)?遗憾|太难了吧|保重|好好休息|早日康复|希望你")
# Offers of help: "Can I do anything to help?", "Whenever you need help, just let me know".
_OFFERS_EN = re.compile(
    r"\b(?:(?:is\s+there\s+)?any(?:thing|\s+way)\s+(?:else\s+)?I\s+can\s+(?:do\s+to\s+)?"
    r"(?:help|assist|do)|can\s+I\s+(?:do\s+anything\s+to\s+)?help|whenever\s+you\s+need"
    r"|if\s+you\s+(?:ever\s+)?need\s+(?:any\s+)?(?:help|anything|a\s+hand)|count\s+me\s+in"
    r"|I['’]m\s+in\s+to\s+help|(?:I['’]d\s+be|I['’]m|I\s+am)\s+(?:more\s+than\s+|always\s+|so\s+)?"
    r"(?:happy|glad)\s+to\s+help|I['’]ll\s+(?:make\s+sure\s+to\s+)?(?:spread\s+the\s+word|ask\s+around"
    r"|help\s+(?:you|out))|I\s+can\s+(?:help|lend\s+a\s+hand|give\s+you\s+a\s+hand))\b",
    re.IGNORECASE,
)
_OFFERS_GATE = gate("help assist anything count spread around lend hand need")
_OFFERS_ZH = re.compile(
    r"需要帮忙(?:的话)?(?:就|随时)?(?:告诉|找)我|我(?:可以|能|来)帮(?:你|您)|算我一个|有什么我能"
)
#: How each relation is written, always in the same words (one memory per pair gathers every
#: further turn as evidence). Only an offer of help is a graph fact; the others are notes.
_TEXT_EN = {
    "encourages": "{a} encourages and supports {b}",
    "offers_help": "{a} offers to help {b}",
    "admires": "{a} admires and praises {b}",
    "grateful_to": "{a} is grateful for {b}'s support",
    "cares_about": "{a} cares about {b}",
}
_TEXT_ZH = {
    "encourages": "{a}鼓励并支持{b}",
    "admires": "{a}欣赏并称赞{b}",
    "offers_help": "{a}主动提出帮助{b}",
    "grateful_to": "{a}感谢{b}的支持",
    "cares_about": "{a}关心{b}",
}
_FACT = "offers_help"


_ADDRESSED_EN = re.compile(r"\b(?:you|your|yours|yourself|ya)\b", re.IGNORECASE)
_IMPERATIVE_EN = re.compile(
    r"^(?:(?:hey|oh|wow|yeah|yes|so|and|now|just|go|ok|okay|well)\b[\s,!.]*|[A-Z][a-z]+[,!]\s*)*"
    r"(?:keep|don['’]?t|never|believe|go|good|hang|stay|way|congrat|well|great|awesome|amazing"
    r"|nice|take|rock|thanks?\b|appreciate)",
    re.IGNORECASE,
)


_VOCATIVE_EN = re.compile(r",\s+[A-Z][a-z]+\s*[.!~]*\s*$")


def _addressed(s: Sentence) -> bool:
    """Whether a sentence speaks to the listener ("you ...", an imperative "Keep going!", or
    a name called at its end: "I appreciate our friendship, Caroline.")."""
    return bool(
        _ADDRESSED_EN.search(s.text) or _IMPERATIVE_EN.match(s.text) or _VOCATIVE_EN.search(s.text)
    )


_GATE_EN = gate(
    "keep don dont never got believe go luck rooting here back hang stay cheering can proud"
    " awe admire amazing awesome inspiring inspirational talented strong brave incredible star"
    " natural best doing inspire amaze impressive great beautiful gorgeous stunning wonderful"
    " fantastic admirable way congrats congratulations done good job work nailed killed rocked"
    " deserve love glad thanks thank appreciate grateful lucky sorry must hope hoping take"
    " thinking let get there gonna going did support help words encouragement belief faith"
    " kindness friendship backing means meant matters helps keeps motivates feel better well"
    " okay ok fine safe alright recover recovering impressed sweet nice cool perfect true real"
    " encouraging motivating uplifting helpful priceless bout honor honour privilege friends"
    " friend someone people difference start create change offering helping letting"
)


def relation_of(s: Sentence) -> str | None:
    """The social relation a sentence addressed to the listener expresses, if any."""
    if s.lang == "en" and s.has(_OFFERS_GATE) and _OFFERS_EN.search(s.text):
        return "offers_help"  # "Count me in!" needs no "you"
    if s.lang == "zh" and _OFFERS_ZH.search(s.text):
        return "offers_help"
    if s.lang == "en" and (not s.has(_GATE_EN) or not _addressed(s)):
        return None
    if s.lang == "zh":
        found = [
            (_GRATEFUL_ZH, "grateful_to"),
            (_ADMIRE_ZH, "admires"),
            (_ENCOURAGE_ZH, "encourages"),
            (_CARE_ZH, "cares_about"),
        ]
    else:
        found = [
            (_GRATEFUL_EN, "grateful_to"),
            (_CARE_EN, "cares_about"),
            (_ADMIRE_EN, "admires"),
            (_ENCOURAGE_EN, "encourages"),
        ]
    for rx, relation in found:
        if rx.search(s.text):
            return relation
    return None


def social(
    sentences: list[Sentence], ctx: NodeContext, listener: str
) -> tuple[list[Candidate], bool]:
    """One candidate per relation the node expresses towards ``listener`` (a named person)
    that is a memory (an offer of help), and whether the node reacts to the listener
    (encourages, admires, thanks or comforts them: evidence of what they said, no memory)."""
    out: list[Candidate] = []
    seen: set[str] = set()
    reacted = False
    for s in sentences:
        relation = relation_of(s)
        if relation is not None and relation != _FACT:
            reacted = True
        if relation is None or relation in seen:
            continue
        seen.add(relation)
        zh = s.lang == "zh"
        a = ctx.name("zh") if zh else ctx.speaker
        text = (_TEXT_ZH if zh else _TEXT_EN)[relation].format(a=a, b=listener)
        text = finish_zh(text) if zh else finish_en(text)
        lang = "zh" if zh else "en"
        attrs = {"social": relation}
        if relation == _FACT:
            kw: dict[str, Any] = {"relation": relation, "object": EntityRef(listener, "person")}
            out.append(
                ctx.candidate(
                    "entity", text, lang, confidence=0.7, importance=0.45, attrs=attrs, **kw
                )
            )
        else:  # how two people stand to each other: a note, no fact, no line of core.md
            out.append(
                ctx.candidate("note", text, lang, confidence=0.6, importance=0.3, attrs=attrs)
            )
    return out, reacted
