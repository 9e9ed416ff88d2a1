"""What a speaker says of themselves in passing, which a careful reader still notes.

* a short answer to "how long / how far / how often ... you ...?": "How long have you been
  married?" - "5 years already!" is "Melanie has been married for 5 years.";
* a hardship named only as the time of something else: "... especially after that tough
  breakup" is "Caroline went through a tough breakup.";
* a role the speaker has or will have, named only as a circumstance: "It'll be tough as a
  single parent" is "Caroline will be a single parent.".

>>> from datetime import date
>>> from ogmemory.distill.extractors._common import split_sentences
>>> [s] = split_sentences("5 years already!", date(2023, 1, 1))
>>> quantity_answer("How long have you been married?", s, "Melanie")
'Melanie has been married for 5 years'
"""

from __future__ import annotations

import re
from dataclasses import replace

from ..types import Candidate, EntityRef
from ._common import NodeContext, Sentence, gate
from ._grammar import finish_en, third_person_en
from ._salience import too_thin

__all__ = [
    "answered",
    "hope_after_event",
    "how_it_goes",
    "in_passing",
    "literal",
    "quantity_answer",
    "wish",
]

_HOW = re.compile(
    r"\bhow\s+(?P<wh>long|far|often)\s+(?P<aux>have|can|do|are|could)\s+you\s+"
    r"(?P<rest>[^?.!]{2,60}?)\s*\?",
    re.IGNORECASE,
)
_NUMBER = (
    r"\d+(?:[.,]\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen"
    r"|twenty|thirty|forty|fifty|a\s+few|a\s+couple(?:\s+of)?|several|half\s+an?|an?"
)
_QUANTITY = re.compile(
    rf"^(?:(?:oh|wow|well|yeah|yes|hmm|haha|um)\b[\s,!.]*)*"
    rf"(?P<q>(?:about|around|nearly|almost|over|just|only|roughly|maybe|like|at\s+least)?\s*"
    rf"(?:{_NUMBER})\s+(?:[a-z-]+\s+){{0,1}}(?:years?|months?|weeks?|days?|hours?|minutes?"
    rf"|kilometres?|kilometers?|km|miles?|metres?|meters?|laps?|times?\s+a\s+\w+)"
    rf"(?:\s+(?!already\b|now\b|so\s+far\b)[a-z]+){{0,3}})",
    re.IGNORECASE,
)
_OFTEN = re.compile(
    r"^(?:(?:oh|well|yeah|yes)\b[\s,!.]*)*(?P<q>(?:once|twice|three\s+times|\d+\s+times"
    r"|every|each|most|almost\s+every)\s+[a-z]+(?:\s+[a-z]+)?)",
    re.IGNORECASE,
)
_IDLE_TAIL = re.compile(r"\s+(?:right\s+now|now|these\s+days|so\s+far|currently|lately)$")
_YOU = {"you": "me", "your": "my", "yours": "mine", "yourself": "myself"}


def quantity_answer(question: str, s: Sentence, speaker: str) -> str | None:
    """The fact a short quantity answer completes, as a third-person clause (no full stop)."""
    m = _HOW.search(question)
    if m is None:
        return None
    found = (_OFTEN if m.group("wh").lower() == "often" else _QUANTITY).match(s.text)
    if found is None:
        return None
    rest = _IDLE_TAIL.sub("", m.group("rest").strip())
    rest = re.sub(r"\b(?:you|your|yours|yourself)\b", lambda w: _YOU[w.group().lower()], rest)
    q = found.group("q").strip()
    q = q[:1].lower() + q[1:]  # "About eight kilometres" in the middle of the clause
    how = "for " if m.group("wh").lower() == "long" and not q.lower().startswith("for") else ""
    return third_person_en(f"I {m.group('aux').lower()} {rest} {how}{q}", speaker)


_HARDSHIP = re.compile(
    r"\b(?:after|since|through|during|following|over|from)\s+(?:that|the|my|a|this|our)\s+"
    r"(?P<np>(?:(?:tough|bad|hard|messy|painful|rough|nasty|awful|terrible|difficult|long"
    r"|big|recent|serious|sudden|horrible)\s+)?(?:breakup|break-up|divorce|surgery|operation"
    r"|car\s+accident|accident|miscarriage|layoff|injury|illness|diagnosis|burnout|breakdown"
    r"|separation|bankruptcy|loss|heartbreak))\b",
    re.IGNORECASE,
)
_PERSON_NOUNS = (
    r"parent|mom|mum|mother|dad|father|teacher|nurse|doctor|student|freelancer|artist"
    r"|musician|writer|volunteer|mentor|coach|veteran|immigrant|caregiver|widow|widower"
    r"|newcomer|beginner|business\s+owner|entrepreneur|foster\s+parent"
)
_ROLE = re.compile(
    r"\b(?:tough|hard|difficult|challenging|scary|lonely|exhausting|busy|easy|tricky)\s+"
    r"(?:being\s+)?as\s+(?P<det>an?)\s+(?P<np>(?:[a-z-]+\s+)?(?:"
    + _PERSON_NOUNS
    + r"))\b|\bbeing\s+(?P<det2>an?)\s+(?P<np2>(?:[a-z-]+\s+)?(?:"
    + _PERSON_NOUNS
    + r"))\s+(?:is|was|has\s+been|can\s+be|will\s+be)\b",
    re.IGNORECASE,
)
_WILL = re.compile(r"\b(?:will|'ll|’ll|gonna|going\s+to)\b", re.IGNORECASE)
_WAS = re.compile(r"\b(?:was|were)\b", re.IGNORECASE)
_GATE = frozenset(
    "after since through during following over from tough hard difficult challenging scary"
    " lonely exhausting busy easy tricky being".split()
)


def in_passing(s: Sentence, ctx: NodeContext) -> list[Candidate]:
    """Memories of a hardship or a role the sentence names only in passing (``whole``: no
    later answer elaborates them)."""
    if s.lang != "en" or s.question or not s.has(_GATE):
        return []
    out: list[Candidate] = []
    h = _HARDSHIP.search(s.text)
    if h is not None:
        np = h.group("np").lower()
        article = "an" if np[0] in "aeiou" else "a"
        text = finish_en(f"{ctx.speaker} went through {article} {np}")
        out.append(
            ctx.candidate(
                "note", text, "en", confidence=0.6, importance=0.55, attrs={"whole": True}
            )
        )
    r = _ROLE.search(s.text)
    if r is not None:
        np = (r.group("np") or r.group("np2")).lower()
        det = (r.group("det") or r.group("det2")).lower()
        before = s.text[: r.start()]
        verb = "will be" if _WILL.search(before) else "was" if _WAS.search(before) else "is"
        text = finish_en(f"{ctx.speaker} {verb} {det} {np}")
        out.append(
            ctx.candidate(
                "note", text, "en", confidence=0.6, importance=0.55, attrs={"whole": True}
            )
        )
    return out


def _note(text: str, ctx: NodeContext) -> Candidate:
    return ctx.candidate("note", text, "en", confidence=0.6, importance=0.55, attrs={"whole": True})


# "How is the new job going?" - "It's going well, though the commute is long."
_HOW_IS = re.compile(
    r"\bhow\s+(?:is|was|are|'s|’s)\s+(?P<d>the|your)\s+(?P<np>(?:[a-z-]+\s+){0,2}?[a-z-]+)"
    r"\s+(?:going|coming\s+along|treating\s+you)\b",
    re.IGNORECASE,
)
_IT_GOES = re.compile(
    r"^(?:(?:oh|well|yeah|yes|hey|hi)\b[\s,!.]*|[A-Z][a-z]+[,!]\s*)*"
    r"(?:it['’]s|it\s+is|it\s+was|it['’]s\s+been|it\s+has\s+been)\s+(?P<rest>(?:going|been"
    r"|great|good|fine|okay|ok|hard|tough|busy|amazing|awesome|rough|slow|stressful)\b.+)",
    re.IGNORECASE,
)


def how_it_goes(question: str, s: Sentence, speaker: str) -> str | None:
    """The answer to "how is the X going?" said of X: "Tomas's new job is going well, though
    the commute is long" (a third-person clause, no full stop)."""
    q = _HOW_IS.search(question)
    a = _IT_GOES.match(s.text) if q is not None else None
    if q is None or a is None or s.question:
        return None
    rest = a.group("rest").rstrip(" .!")
    verb = "has been" if rest.startswith("been") else "is"
    rest = rest.removeprefix("been ") if verb == "has been" else rest
    return third_person_en(f"my {q.group('np')} {verb} {rest}", speaker)


# "I've started Portuguese lessons, and I hope to find a pottery studio there": a hope or
# plan said after an event, in the same sentence
_ALSO_HOPE = re.compile(
    r"[,;]?\s+(?:and|but|so)\s+(?P<c>I\s+(?:really\s+|also\s+)?(?:hope|plan|want|intend"
    r"|['’]d\s+love|would\s+love)\s+to\s+[^.!?;,]{3,80})"
)
_PLACE = re.compile(
    r"\b(?:in|to|at)\s+(?:the\s+)?(?P<p>(?!(?:January|February|March|April|May|June|July"
    r"|August|September|October|November|December)\b)[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)"
)


def hope_after_event(s: Sentence, ctx: NodeContext, before: str) -> Candidate | None:
    """The hope or plan a sentence adds after an event it states; "there" is the place the
    turn before named ("Are you excited about living in Portugal?"), if it named one."""
    m = _ALSO_HOPE.search(s.text) if s.lang == "en" and not s.question else None
    if m is None:
        return None
    clause = m.group("c")
    if re.search(r"\bthere\b", clause):
        place = [p.group("p") for p in _PLACE.finditer(before)]
        if len(set(place)) != 1:
            return None  # "there" names nothing the memory could say
        clause = re.sub(r"\bthere\b", f"in {place[0]}", clause, count=1)
    return _note(finish_en(third_person_en(clause, ctx.speaker)), ctx)


_FIGURE = re.compile(
    r"\b(?:feels?|felt|seems?|seemed)\s+like\s+(?:just\s+|only\s+)?yesterday\b", re.IGNORECASE
)


def literal(s: Sentence) -> Sentence:
    """ "Feels like just yesterday I put this dress on": a figure of speech dates nothing."""
    if not s.times or not _FIGURE.search(s.text):
        return s
    return replace(s, times=tuple(t for t in s.times if t.text.lower() != "yesterday"))


# What the answer says the speaker is or has: "How long have you been married?" (is_a
# married), "How is the new job going?" (has a new job): a life fact with its relation
_STATE_Q = re.compile(
    r"\bhow\s+long\s+have\s+you\s+(?:two\s+)?been\s+(?P<state>married|together|dating|engaged"
    r"|an?\s+[a-z]+|vegan|vegetarian|sober)\s*\?",
    re.IGNORECASE,
)
_NEW_THING = re.compile(r"^new\s+[a-z-]+(?:\s+[a-z-]+)?$")


def _life_fact(question: str, said: str) -> tuple[str, EntityRef] | None:
    """The relation and object of the life fact an answer completes, if it is one."""
    state = _STATE_Q.search(question)
    if state is not None and said.split(" has been ", 1)[-1].startswith(state.group("state")):
        return "is_a", EntityRef(" ".join(state.group("state").lower().split()), "concept")
    how = _HOW_IS.search(question)
    if how is not None and _NEW_THING.match(how.group("np").lower()):
        return "has", EntityRef(how.group("np").lower(), "concept")
    return None


def answered(question: str, sentences: list[Sentence], ctx: NodeContext) -> list[Candidate]:
    """The fact a short answer to ``question`` completes (see :func:`quantity_answer` and
    :func:`how_it_goes`); the answer comes first, after a greeting at most ("Hey Priya!").
    One answer is one memory: when it says what the speaker is or has (married for 5 years,
    a new job) that memory carries the relation too."""
    if not question or not ctx.personal or ctx.record.node.role not in ("user", "assistant"):
        return []
    for s in sentences[:2]:
        if s.lang != "en":
            continue
        said = quantity_answer(question, s, ctx.speaker) or how_it_goes(question, s, ctx.speaker)
        if not said:
            continue
        whole = {"whole": True}  # complete: no later answer elaborates it
        fact = _life_fact(question, said)
        if fact is None:
            return [ctx.candidate("note", finish_en(said), "en", importance=0.6, attrs=whole)]
        relation, obj = fact
        return [
            ctx.candidate(
                "entity",
                finish_en(said),
                "en",
                relation=relation,
                object=obj,
                confidence=0.8,
                importance=0.8,
                attrs=whole,
            )
        ]
    return []


# "I really wish I could go on a road trip with my dog": a wish the speaker has for themselves
# (a wish is otherwise a hypothetical, which no statement rule keeps); what follows ", but"
# says why not
_WISH_EN = re.compile(
    r"(?:^|[,;:!]\s*|\b(?:and|but|so)\s+)(?:I\s+)?(?:(?:really|just|sometimes|always|so)\s+)?"
    r"wish\s+I\s+(?P<aux>could|can|had|was|were)\s+(?P<x>[^.!?;,]{6,90}?)\s*(?=,|[.!?;]|$)",
    re.IGNORECASE,
)
_WISH_GATE = gate("wish")
_TO_YOU = re.compile(r"\b(?:you|your)\b", re.IGNORECASE)
_AS_WISHED = {"could": "", "can": "", "had": "have ", "was": "be ", "were": "be "}


def wish(sentences: list[Sentence], ctx: NodeContext) -> list[Candidate]:
    """ "Andrew wishes to go on a road trip with a furry companion." (one note per sentence
    that says such a wish; not when it names nothing: "I wish I could get one"). Chinese
    wishes (我真希望能...) are statements already (``_salience_zh``)."""
    if not ctx.personal:
        return []
    out: list[Candidate] = []
    for s in sentences:
        m = _WISH_EN.search(s.text) if s.lang == "en" and s.has(_WISH_GATE) else None
        if m is None or s.question or _TO_YOU.search(m.group("x")):
            continue  # "I wish I had known you back then": of the listener
        clause = f"I wish to {_AS_WISHED[m.group('aux').lower()]}{m.group('x')}"
        body = third_person_en(clause, ctx.speaker).replace(" wish to ", " wishes to ", 1)
        if not too_thin(body, ctx.speaker):
            out.append(_wish_note(finish_en(body), ctx))
    return out


def _wish_note(text: str, ctx: NodeContext) -> Candidate:
    return ctx.candidate("note", text, "en", confidence=0.55, importance=0.5, attrs={"whole": True})
