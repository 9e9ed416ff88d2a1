"""Reading stances from an English sentence: each family (values, beliefs, what someone finds or
feels, needs, offers, plans of the moment, suggestions) behind its own keyword gate, as
``(kind, what)`` pairs that ``_stances`` words as memories.

>>> from datetime import date
>>> from ogmemory.distill.extractors._common import split_sentences
>>> stance_en(split_sentences("Family time matters to me.", date(2023, 5, 8))[0])
('values', 'Family time')
"""

from __future__ import annotations

import re

from ._common import Sentence, gate
from ._grammar import clean_phrase

__all__ = ["Found", "stance_en"]


_INTENS = r"(?:(?:so|really|super|very|truly|incredibly|extremely|hugely|just|also|always|still"
_INTENS += r"|actually|definitely|absolutely)\s+)*"
_LEAD = re.compile(
    r"^(?:(?:and|but|so|also|plus|honestly|yeah|yes|oh|well|definitely|totally|absolutely"
    r"|true|exactly|agreed|for\s+sure|i\s+think|i\s+believe|i\s+feel\s+like|i\s+guess"
    r"|i\s+know|i\s+agree|for\s+me|to\s+me|personally|remember(?:\s+that)?|trust\s+me"
    r"|after\s+all|in\s+the\s+end)\b[\s,!.~…-]*)+"
    r"|^[A-Z][a-z]+\s*[,!]\s*",
    re.IGNORECASE,
)
# A subject that is no generic thing: a pronoun, the listener, a demonstrative.
_NOT_GENERIC = re.compile(
    r"^(?:it|its|it's|that|this|these|those|they|them|he|she|his|her|him|there|here|you|your"
    r"|yours|ya|u|ur|what|which|who|everything|something|nothing|anything|one|all|which|i|we"
    r"|me|my|our|their|the|thank|thanks|sounds?|seems?|how|why|when|where|if|so|such|being"
    r"|seeing|hearing|talking\s+to|chatting|glad|always|now|just|really|still|then|also|reminds?"
    r"|remember|not|no|never|only)\b",
    re.IGNORECASE,
)
_PRONOUN = re.compile(
    r"^(?:it|that|this|these|those|them|you|your|yours|him|her|what|how|every"
    r"(?:one|thing)|some(?:one|thing)|any(?:one|thing)|each\s+other)\b",
    re.IGNORECASE,
)
_SUBJECT = r"(?P<x>[A-Za-z][\w-]*(?:\s+[\w-]+){0,7}?)"
# Words a generic subject never holds: persons, "it", verbs of a clause of its own.
_SUBJECT_STOP = frozenset(
    "i i'm i've i'd i'll me we we're us you you're your it it's its this that they them he she"
    " him her his their was were is are am be been had did do does would could should will can"
    " to here there these those".split()
)

# ----------------------------------------------------------------------------- English

_VALUE_EN = re.compile(
    _SUBJECT
    + r"(?:['’]s|\s+(?:is|are|was|were|has\s+been|have\s+been))?\s+"
    + _INTENS
    + r"(?:(?:important|precious|special|dear|everything|the\s+world|a\s+big\s+deal)"
    r"|matters?(?:\s+(?:so\s+much|a\s+lot|the\s+most))?"
    r"|means?\s+(?:so\s+much|a\s+lot|the\s+world|everything))\s+to\s+(?:me|us)\b",
    re.IGNORECASE,
)
_VALUE_VERB_EN = re.compile(
    r"\b(?:I|we)\s+" + _INTENS + r"(?P<v>value|cherish|treasure)\s+(?P<x>[^,;:!?.]{3,80})",
    re.IGNORECASE,
)
_VERDICT = (
    r"(?:key|vital|essential|crucial|important|so\s+important|necessary|everything"
    r"|a\s+must|the\s+key|a\s+game[-\s]changer|a\s+lifesaver|so\s+rewarding|rewarding"
    r"|so\s+healing|healing|therapeutic|worth\s+it)"
)
_BELIEF_EN = re.compile(
    _SUBJECT
    + r"(?:['’]s|\s+(?:is|are|can\s+be|has\s+been|have\s+been))\s+"
    + _INTENS
    + _VERDICT
    + r"(?P<rest>(?:\s+(?:for|to|in|when|if)\s+[^,;:!?.]{3,80})?)\s*(?:[,;:!?.]|$)"
    r"|" + _SUBJECT.replace("x>", "x2>") + r"(?:\s+|(?=['’]))(?:can\s+|really\s+|also\s+"
    r"|totally\s+)*"
    r"(?:will\s+|would\s+|could\s+|may\s+)?"
    r"(?P<v>do(?:es)?\s+wonders|helps?|helped|can\s+help|brings?\s+(?:so\s+much\s+)?(?:joy|peace"
    r"|people\s+together|happiness|hope)|(?:can\s+)?have\s+a\s+(?:big|huge|real|great|lasting)\s+"
    r"(?:effect|impact)|matters|counts?|(?:make|makes|making)\s+(?:such\s+)?a\s+(?:big\s+|huge\s+"
    r"|real\s+|great\s+|positive\s+)?difference|(?:is|are|'s|'re)\s+"
    + _INTENS
    + r"(?:great|good|awesome|amazing|perfect"
    r"|wonderful|the\s+best)\s+(?:for|at))\b(?P<rest2>[^,;:!?.]{0,80})",
    re.IGNORECASE,
)
_NEED_EN = re.compile(
    r"(?:^|\b(?:I|we)\s+" + _INTENS + r")(?:need|could\s+use|could\s+really\s+use|(?:am|'m|are"
    r"|'re)\s+looking\s+for)\s+(?:some\s+|a\s+little\s+|a\s+bit\s+of\s+|more\s+|your\s+)?"
    r"(?P<what>help|advice|tips|ideas|suggestions|input|feedback|support|guidance|pointers)"
    r"\s+(?P<prep>with|on|for|about|in)\s+(?P<x>[^,;:!?.]{3,80})",
    re.IGNORECASE,
)
_OFFER_EN = re.compile(
    r"\b(?:I|we)\s*(?:could|can|'d\s+be\s+(?:happy|glad)\s+to|would\s+be\s+(?:happy|glad)\s+to"
    r"|(?:'m|am)\s+(?:happy|glad)\s+to|'d\s+love\s+to|would\s+love\s+to)\s+"
    + _INTENS
    + r"(?P<v>help|show|teach|give|lend|send|introduce|recommend|bring|make|cook|take)"
    r"\s+(?:you|ya)\b(?P<x>[^,;:!?.]{0,80})",
    re.IGNORECASE,
)
_NOW_EN = re.compile(
    r"\b(?:I|we)(?:['’]m|\s+am|['’]re|\s+are)\s+(?:just\s+|now\s+|about\s+|actually\s+)?"
    r"(?P<how>off|heading|headed)\s+(?:out\s+|over\s+|back\s+)?to\s+(?P<x>[^,;:!?.]{3,80})",
    re.IGNORECASE,
)
_IMPORTANT = r"important|essential|vital|crucial|key|necessary"
_FEELING = (
    r"rewarding|fulfilling|empowering|freeing|humbling|heartwarming|heartbreaking|sad"
    r"|inspiring|motivating|amazing|wonderful|awesome|incredible|great|cool|nice|fun"
    r"|satisfying|special|tough|hard|calming|relaxing|refreshing|scary|exciting|powerful"
    r"|an\s+honou?r|a\s+privilege|a\s+blessing"
)
_IT_IS_EN = re.compile(
    r"^(?:it|that)(?:'s|\s+is|\s+was|\s+has\s+been|\s+can\s+be)\s+"
    + _INTENS
    + r"(?P<adj>"
    + _IMPORTANT
    + "|"
    + _FEELING
    + r")\s+(?P<me>(?:to|for)\s+(?:me|us)\s+)?"
    r"(?P<x>(?:to\s+|seeing\s+|knowing\s+|being\s+|having\s+|watching\s+|helping\s+|working\s+"
    r"|making\s+|getting\s+)[^,;:!?.]{6,100})",
    re.IGNORECASE,
)
_NOT_AN_ACTIVITY = re.compile(
    r"^(?:to\s+)?(?:hear|see|know|chat|talk|catch|meet|read)\w*\s+(?:from\s+|with\s+|about\s+)?"
    r"(?:you|that|this|it|your)\b|^to\s+(?:have|be)\s+(?:a\s+)?(?:friend|friends|someone|people)",
    re.IGNORECASE,
)
_REMINDS_EN = re.compile(
    r"\bremind(?:s|ed)?\s+(?:me|us)\s+(?:of\s+)?how\s+(?P<adj>" + _IMPORTANT + r")\s+"
    r"(?P<x>[^,;:!?.]{3,80}?)\s+(?:is|are)\b"
    r"|\bremind(?:s|ed)?\s+(?:me|us)\s+(?:of\s+)?how\s+(?P<adj2>" + _IMPORTANT + r")\s+it\s+is\s+"
    r"(?P<x2>to\s+[^,;:!?.]{3,80})",
    re.IGNORECASE,
)
_FEEL_EN = re.compile(
    r"^(?P<x>[A-Za-z][\w-]*(?:\s+[\w'-]+){0,6}?)\s+(?P<v>made|makes|make|left|leaves)\s+me\s+"
    r"(?:feel\s+)?(?P<y>[^,;:!?.]{3,80})"
    r"|^I\s+(?:really\s+|truly\s+|just\s+)?(?P<fv>felt|feel)\s+(?:so\s+|really\s+)?like\s+"
    r"(?P<y2>[^,;:!?.]{6,80})",
    re.IGNORECASE,
)
_MET_EN = re.compile(
    r"^(?:check\s+out|look\s+at|here\s+(?:is|are)|here['']s|meet)\s+(?P<d>these|this|my|our|the|some)"
    r"\s+(?P<x>\w+(?:\s+\w+)?)\s+(?:that\s+)?I\s+(?:just\s+|recently\s+)?(?P<v>met|made|got|bought"
    r"|found|took|saw|painted|built|baked|cooked|wrote|adopted|drew|knitted|planted|caught|grew)"
    r"\b(?P<rest>[^,;:!?.]{0,80})",
    re.IGNORECASE,
)
# Clause ends for what a need, an offer or a plan is about.
_CUT = re.compile(
    r"(?:\s+even)?\s+(?:because|but|so\s+(?:that|I|we)|since|though|although|when|which|and\s+(?:I|we|it|that|you|then)"
    r"|if|haha|lol|any\s+advice|any\s+tips|any\s+ideas|anytime|if\s+you)\b|\s[-–—]\s",
    re.IGNORECASE,
)
_THIN = frozenset(
    "go it that this there home now then soon bed out later something anything stuff things".split()
)
_CONTENT = re.compile(r"[A-Za-z]{3,}")


def _cut(text: str) -> str:
    m = _CUT.search(text)
    return clean_phrase(text[: m.start()] if m else text)


def _generic(x: str, own: bool = False) -> str | None:
    """The subject if it is a generic thing ("family time", "taking care of ourselves");
    ``own``: the speaker's own things ("my family") count too."""
    x = clean_phrase(_LEAD.sub("", x.strip()))
    if own and _OWN.match(x):
        return x
    words = x.lower().split()
    if (
        not x
        or _NOT_GENERIC.match(x)
        or len(_CONTENT.findall(x)) < 1
        or any(w in _SUBJECT_STOP for w in words)
        or words[-1] in _DANGLING
    ):
        return None
    return x


_DANGLING = frozenset("with and or but for of the a an to in on at by from as my our so".split())
_OWN = re.compile(r"^(?:my|our)\s+(?!own\b)\w+", re.IGNORECASE)


def stance_en(s: Sentence) -> tuple[str, str] | None:
    """``(kind, what)`` of the first stance an English sentence states (see the docstring)."""
    found = _read_en(s)
    return found[0] if found else None


_YOU = re.compile(r"\b(?:you|your|yours|yourself|ya)\b", re.IGNORECASE)
_QUESTION_TAIL = re.compile(r"\s+[-–—]\s+[^-–—]*$")
_SUGGEST_EN = re.compile(
    r"^(?:(?:so|hey|oh|and|well)\b[\s,]*)*(?:(?:do\s+you\s+)?(?:wanna|want\s+to)|how\s+about\s+we"
    r"|shall\s+we|should\s+we|why\s+don't\s+we|maybe\s+we\s+(?:can|could|should))\s+"
    r"(?P<x>[^,;:!?.]{6,80})\?",
    re.IGNORECASE,
)
_HEAR = re.compile(
    r"^(?:hear|see|know|talk|chat|catch|join\s+me|come\s+with|try\s+it|do\s+it"
    r"|do\s+that|do\s+this|go\b|share|tell|check|grab\s+a\s+bite)\b",
    re.IGNORECASE,
)


def _read_en(s: Sentence) -> list[tuple[str, str]]:
    """Every stance of an English sentence: a question may suggest something ("Wanna do a
    family outing this summer?") or carry a need before it ("Need help with X - any tips?"),
    a condition may only close an offer ("I could help you with it if you want")."""
    if not s.has(_GATE_EN) and not s.question:
        return []
    text = s.text.replace("’", "'")
    if s.question:
        m = _SUGGEST_EN.match(text)
        if m is not None and not _HEAR.match(m.group("x")) and not _YOU.search(m.group("x")):
            return [("suggests", clean_phrase(m.group("x")))]
        tail = _QUESTION_TAIL.search(text)
        if tail is None or tail.start() < 8:
            return []
        return [x for x in _stances_en(text[: tail.start()], s.words) if x[0] == "needs"]
    found = _stances_en(text, s.words)
    if s.hypothetical:
        return [x for x in found if x[0] == "offers"]
    return found


Found = list[tuple[str, str]]


def _values(clause: str) -> Found:
    m = _VALUE_EN.match(clause)
    x = _generic(m.group("x"), own=True) if m is not None else None
    if x is not None:
        return [("values", x)]
    m = _VALUE_VERB_EN.search(clause)
    x = _cut(m.group("x")) if m is not None else ""
    return [("values", x)] if x and not _PRONOUN.match(x) else []


def _belief(clause: str) -> Found:
    m = _BELIEF_EN.match(clause)
    if m is None:
        return []
    if m.group("x") is not None:
        x = _generic(m.group("x"))
        body = clause[m.start("x") : m.end("rest")] if x else ""
    else:
        x = _generic(m.group("x2"))
        body = clause[m.start("x2") : m.end("rest2")] if x else ""
    body = _cut(body)
    if not x or len(_CONTENT.findall(body)) < 3:
        return []
    own = _PERSONAL.search(body) is not None  # "dancing helps me de-stress"
    return [("says" if own else "believes", body)]


def _it_is(clause: str) -> Found:
    m = _IT_IS_EN.match(clause)
    if m is None or _NOT_AN_ACTIVITY.match(m.group("x")):
        return []
    x = _cut(m.group("x"))
    adj = " ".join(m.group("adj").lower().split())
    if len(_CONTENT.findall(x)) < 2:
        return []
    if not re.fullmatch(_IMPORTANT, adj):
        return [("finds", f"it {adj} {x}")]
    if m.group("me"):  # "It's important to me to keep my promises"
        return [("matters", f"{adj}\0{x}")]
    return [("believes", f"it is {adj} {x}")]


def _reminds(clause: str) -> Found:
    m = _REMINDS_EN.search(clause)
    if m is None:
        return []
    if m.group("x"):
        x = _cut(m.group("x"))
        verb = "are" if " and " in x else "is"
        return [("believes", f"{x} {verb} {m.group('adj').lower()}")]
    return [("believes", f"it is {m.group('adj2').lower()} {_cut(m.group('x2'))}")]


def _feel(clause: str) -> Found:
    m = _FEEL_EN.match(clause)
    if m is None:
        return []
    if m.group("x"):
        x = _generic(m.group("x"))
        y = _cut(m.group("y"))
        return (
            [("feels", f"{x}\0{m.group('v').lower()}\0{y}")]
            if (x and y and not _PRONOUN.match(y))
            else []
        )
    if _PRONOUN.match(m.group("y2")):
        return []
    return [("felt_like", f"{m.group('fv').lower()}\0{_cut(m.group('y2'))}")]


def _met(clause: str) -> Found:
    m = _MET_EN.match(clause)
    if m is None:
        return []
    det = {"these": "some", "this": "a", "the": "the", "some": "some"}.get(
        m.group("d").lower(), m.group("d")
    )
    rest = _cut(m.group("rest"))
    return [("did", f"{m.group('v').lower()} {det} {m.group('x')} {rest}".strip())]


def _need(clause: str) -> Found:
    m = _NEED_EN.search(clause)
    x = _cut(m.group("x")) if m is not None else ""
    if m is None or not x or _PRONOUN.match(x):
        return []
    return [("needs", f"{m.group('what').lower()} {m.group('prep').lower()} {x}")]


def _offer(clause: str) -> Found:
    if "you" not in clause and "ya" not in clause:
        return []
    m = _OFFER_EN.search(clause)
    return [("offers", f"{m.group('v').lower()}\0{_cut(m.group('x'))}")] if m else []


def _now(clause: str) -> Found:
    m = _NOW_EN.search(clause)
    if m is None:
        return []
    x = _cut(m.group("x"))
    words = [w.lower() for w in _CONTENT.findall(x)]
    if not words or all(w in _THIN for w in words) or _NOT_GENERIC.match(x):
        return []
    how = (m.group("how") or "").lower()
    return [("about_to" if how == "off" or not _PLACE.match(x) else "heading", x)]


_FEELING_WORDS = (
    " rewarding fulfilling empowering freeing humbling heartwarming heartbreaking"
    " sad inspiring motivating amazing wonderful awesome incredible great cool nice"
    " fun satisfying special tough hard calming relaxing refreshing scary exciting"
    " powerful honor honour privilege blessing"
)
_IMPORTANT_WORDS = " important essential vital crucial key necessary"
# Each family with the words one of which it needs (a cheap test before its regexes); the
# first four are alternatives (one reading per sentence), the rest add up.
_ALTERNATIVES = (
    (
        gate(
            "important precious special dear everything world deal matters matter means mean"
            " value cherish treasure"
        ),
        _values,
    ),
    (
        gate(
            "key vital essential crucial important necessary everything must lifesaver game"
            " rewarding healing therapeutic worth wonders help helps helped brings bring impact"
            " effect matters counts count difference great good awesome amazing perfect"
            " wonderful best"
        ),
        _belief,
    ),
    (gate(_FEELING_WORDS + _IMPORTANT_WORDS), _it_is),
    (gate("remind reminds reminded"), _reminds),
    (gate("made makes make left leaves felt feel"), _feel),
)
_ADDITIONS = (
    (gate("check look here meet"), _met),
    (gate("need use looking"), _need),
    (gate("could can happy glad love"), _offer),
    (gate("off heading headed"), _now),
)


_GATE_EN = frozenset().union(*(keys for keys, _ in (*_ALTERNATIVES, *_ADDITIONS)))


def _stances_en(text: str, words: frozenset[str]) -> Found:
    out: Found = []
    clause = _LEAD.sub("", text)
    for keys, family in _ALTERNATIVES:
        if not words.isdisjoint(keys):
            out = family(clause)
            if out:
                break
    for keys, family in _ADDITIONS:
        if not words.isdisjoint(keys):
            out += family(clause)
    return out


_PERSONAL = re.compile(r"\b(?:me|my|myself)\b", re.IGNORECASE)
_PLACE = re.compile(r"^(?:the|a|an|my|our|his|her|their|[A-Z])", re.IGNORECASE)
