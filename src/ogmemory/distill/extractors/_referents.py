"""Who "it" and "we" are in a memory: the sentence before, the question it answers, the
message itself.

A statement read out of its conversation must say what "it" is and who "we" are:

* "It's like therapy for Melanie": the sentence before says what "it" is ("Melanie is a big
  fan of pottery"), so the memory starts there;
* "What's the main idea of your art?" - "It's my way of showing my story": the question named
  it ("Caroline's art is their way of showing ...");
* "We went camping": the message may say who "we" is ("... the kids loved it"), or the question
  it answers ("How was the trip with your kids?"), or it is the two people talking ("we
  finally met up").
"""

from __future__ import annotations

import re
from dataclasses import replace

from ..types import Candidate
from ._common import NodeContext, Sentence
from ._grammar import group_of, third_person_en

__all__ = [
    "name_the_group",
    "name_the_object",
    "name_the_referent",
    "once_named",
    "points_back",
    "reads_alone",
    "told_once",
    "with_referent",
]


_POINTS_BACK = re.compile(r"^(?:It|Its|They|Their|Them|This|That|These|Those|He|She|His|Her)\b")


def points_back(cand: Candidate) -> bool:
    """Whether an English memory starts with a word that points back ("It", "They", "This")."""
    return cand.language == "en" and _POINTS_BACK.match(cand.text) is not None


def with_referent(
    cand: Candidate, s: Sentence, sentences: list[Sentence], ctx: NodeContext, kept: list[Sentence]
) -> Candidate:
    """ "It's like therapy for Melanie": the sentence before says what "it" is ("Melanie is a
    big fan of pottery"), so the memory starts there (unless that sentence is a memory of its
    own, a question or too long)."""
    i = sentences.index(s)
    if cand.language == "en" and i > 0 and not sentences[i - 1].question:
        cand = replace(cand, text=name_the_object(cand.text, sentences[i - 1].text))
    if cand.language != "en" or not _POINTS_BACK.match(cand.text):
        return cand
    lead: list[str] = []
    while i > 0 and len(lead) < 2:  # "She gave it to me. It stands for love." : two back
        prev = sentences[i - 1]
        said = _REFERENT_LEAD.sub("", prev.text).strip()
        if (
            prev in kept
            or prev.question
            or not said
            or len(said.split()) > 25
            or len(_WORDS.findall(said)) < 2
        ):
            break
        for t in prev.times:  # "yesterday" means nothing later: the day it was
            said = said.replace(t.text, f"({t.label()})")
        lead.insert(0, third_person_en(said, ctx.speaker).rstrip(" .!~"))
        if not _POINTS_BACK.match(lead[0][:1].upper() + lead[0][1:]):
            break
        i -= 1
    if not lead or _POINTS_BACK.match(lead[0][:1].upper() + lead[0][1:]):
        return cand
    before = ". ".join(x[:1].upper() + x[1:] for x in lead)
    return replace(cand, text=f"{before}. {cand.text}")


_REFERENT_LEAD = re.compile(
    r"^(?:(?:yeah|yes|yep|oh|wow|thanks|thank\s+you|haha|lol|aw+|hey|hi"
    r"|totally|definitely|sure|so|and|but|well|ok|okay)\b[\s,!.~]*)+"
    r"|^[A-Z][a-z]+\s*[,!]\s*",
    re.IGNORECASE,
)
_WORDS = re.compile(r"[A-Za-z]{3,}")


def name_the_group(
    candidates: list[Candidate],
    start: int,
    ctx: NodeContext,
    text: str,
    asked: str = "",
    earlier: str = "",
) -> None:
    """ "We went camping": the clause alone did not say who "we" is; the whole message may
    ("... the kids loved it"), or the question it answers ("How was the trip with your
    kids?"), or it is the two people talking ("we finally met up"), or the speaker's turn
    before (``earlier``: "The kids and I painted this" - "We both helped with it")."""
    vague = f"{ctx.speaker} and others"
    for i in range(max(0, start - 8), len(candidates)):  # and an earlier one it elaborated
        c = candidates[i]
        if vague not in c.text or ctx.record.node.id not in c.node_ids:
            continue
        group, _ = group_of(text, ctx.speaker)
        if group == vague and ctx.listener and _TOGETHER.search(text):
            group = f"{ctx.speaker} and {ctx.listener}"
        if group == vague and asked:
            yours = " ".join(m.group(1) for m in _YOUR_PEOPLE.finditer(asked))
            group = group_of(yours, ctx.speaker)[0] if yours else group
        if group == vague and earlier:
            group = group_of(earlier, ctx.speaker)[0]
            group = vague if group.endswith("'s team") and ctx.speaker != "the user" else group
        if group != vague:
            candidates[i] = replace(c, text=c.text.replace(vague, group))


def name_the_referent(
    candidates: list[Candidate], start: int, ctx: NodeContext, question: str
) -> None:
    """ "What's the main idea of your art?" - "It's my way of showing my story": a memory of
    the answer that starts with "it" says what "it" is, as the question named it ("Caroline's
    art is their way of showing ...")."""
    np = _asked_about(question, ctx.speaker)
    if np is None:
        return
    for i in range(start, len(candidates)):
        c = candidates[i]
        m = _IT_START.match(c.text)
        if (
            m is None
            or c.language != "en"
            or ctx.record.node.id not in c.node_ids
            or _EXTRAPOSED.match(c.text, m.end())
        ):
            continue  # "It's so peaceful waking up to birds": "it" stands for no thing
        verb = m.group("v")
        if verb.lower() in ("'s", "’s"):
            verb = " is"
        rest = c.text[m.end() :]
        if ctx.speaker in np:  # named once: "Caroline's art is their way of ..."
            rest = rest.replace(f"{ctx.speaker}'s", "their")
        candidates[i] = replace(c, text=f"{np[:1].upper()}{np[1:]}{verb}{rest}")


_IT_START = re.compile(
    r"^(?:It|This|That)(?P<v>['’]s|\s+(?:is|was|has|had|helps|helped|makes|made|gives|gave"
    r"|keeps|kept|reminds|reminded|means|meant|brings|brought|stands|represents|sets))\b"
)
# what a question asks about: "the necklace", "your art", "camping with your fam"
_ASKED_NP = re.compile(
    r"\babout\s+(?P<g>[a-z]+ing(?:\s+(?!you\b)[\w']+){0,4})"
    r"|\b(?P<d>the|your|that|this)\s+(?P<n>(?:(?!you\b|it\b)[a-z][\w'-]*\s+){0,2}"
    r"(?!thing\b|one\b|time\b|way\b|idea\b|most\b|best\b|same\b|kind\b|type\b|moment\b)"
    r"[a-z][\w'-]*)(?=\s*(?:[?,.!]|$|\s+(?:any|to|for|mean|about|is|was|do|does|did|means)\b))",
    re.IGNORECASE,
)


_EXTRAPOSED = re.compile(
    r"\s+(?:so\s+|really\s+|very\s+|super\s+|always\s+|just\s+)*(?!(?:my|a|an|the|like|about"
    r"|what|how|one|our|their|his|her|its|all|part|more|still|also|not|been)\b)[a-z]+\s+"
    r"(?:to\s+\w+|\w+ing|that|when|how|seeing|knowing)\b"
)
_PRONOUNS = re.compile(r"(?i)\b(?:it|them|they|us|me|him|her|this|that|those|these)\b")


def _asked_about(question: str, speaker: str) -> str | None:
    found = [
        m
        for m in _ASKED_NP.finditer(question)
        if not _PRONOUNS.search(m.group("n") or m.group("g") or "")
    ]
    if len(found) != 1:
        return None  # none, or several things asked about: which one "it" is, is unclear
    m = found[0]
    if m.group("g"):
        np = m.group("g")
    else:
        det = m.group("d").lower()
        np = f"{'the' if det in ('that', 'this') else det} {m.group('n')}"
    return re.sub(r"(?i)\byour\b", f"{speaker}'s", np)


# the two people talking: they met, talked or caught up ("we both", "together" are anyone's)
_TOGETHER = re.compile(
    r"\b(?:we|us)\b[^.!?]*\b(?:met\s+up|meet\s+up|hung\s+out"
    r"|hang\s+out|caught\s+up|catch\s+up|each\s+other)\b"
    r"|\bmet\s+up\b|\bus\s+two\b|\bthe\s+two\s+of\s+us\b"
    r"|\bwe\s+(?:last\s+|haven't\s+|have\s+not\s+)?(?:chatted|talked|spoke)\b",
    re.IGNORECASE,
)
_YOUR_PEOPLE = re.compile(r"\byour\s+((?:[\w-]+\s+)?[\w-]+)", re.IGNORECASE)


_VAGUE_WE = re.compile(r"\b(?P<n>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?) and others\b")
_GROUP_NAMED = (
    r"\b{n} and their (?:family|friends|colleagues|team)\b|\b{n}'s team\b"
    r"|\bwith (?:their|the) (?:fam|family|wife|husband|kids|partner|colleagues?|team|friends)\b"
)


# "We gotta push ourselves", "we have the power to make a difference": people at large
_GENERIC_WE = re.compile(
    r"^(?P<n>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?) and others (?P<m>gotta|have got to|must|should"
    r"|have the power to|can make|can do|can change|can help)\b"
)


def once_named(candidates: list[Candidate]) -> list[Candidate]:
    """Each memory names who "we" is once (see :func:`named_once`)."""
    return [
        c if " and others" not in c.text else replace(c, text=named_once(c.text))
        for c in candidates
    ]


def named_once(text: str) -> str:
    """A memory names who "we" is once: after "John and their family ..." (or a second "John
    and others"), a later "John and others" is "they"; "we gotta ..." at the start is a view
    of people at large ("John believes that people have to ...")."""
    g = _GENERIC_WE.match(text)
    if g is not None:
        modal = {"gotta": "have to", "have got to": "have to"}.get(g.group("m"), g.group("m"))
        text = f"{g.group('n')} believes that people {modal}{text[g.end() :]}"
    out, pos = [], 0
    for m in _VAGUE_WE.finditer(text):
        before = text[: m.start()]
        named = re.search(_GROUP_NAMED.format(n=re.escape(m.group("n"))), before)
        if named or m.group() in before:
            starts = not before.strip() or before.rstrip()[-1] in ".!?"
            out.append(text[pos : m.start()] + ("They" if starts else "they"))
            pos = m.end()
    return "".join(out) + text[pos:] if out else text


# A memory that starts with a word pointing at something it never names ("It reminded
# Caroline of ...", "They've been there for Caroline"), or with a gerund or verb that has no
# subject ("Seeing the kids' faces was the best", "Reminds Melanie it's important ...").
_NO_SUBJECT = re.compile(
    r"^(?:(?:It|Its|They|Them|Their|He|She|His|Her)\b(?!\s+own\b)"
    r"|(?:This|That)(?:['’]s|\s+(?:is|was|has|had|makes|made|helps|helped|reminds|reminded"
    r"|means|meant|gives|gave|keeps|kept)\b)"
    r"|(?:Reminds|Makes|Means|Feels|Helps|Each\s+\w+)\b)"
)
# "Seeing the kids' faces was the best": a gerund subject, said of the speaker
_GERUND = re.compile(
    r"^(?:Seeing|Realizing|Realising|Knowing|Having|Doing|Being|Getting|Finding|Playing"
    r"|Watching|Hearing|Making|Spending|Taking|Going|Looking|Working|Helping)\s"
)
# "Reminds Melanie it's important to ...": the subject was the photo just shown
_REMINDED = re.compile(
    r"(?P<at>^|\.\s)Reminds\s+(?P<n>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)\s+(?:that\s+)?"
)
# "Caroline drew it.", "Melanie put this dress on.": an object the memory never names
_UNNAMED_OBJECT = re.compile(
    r"^[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?\s+(?:[a-z]+\s+){0,2}?(?:it|them|this|that|these|those)"
    r"\b(?:\s+[a-z]+)?(?:\s+(?:on|up|out|off|in))?\s*[.!]?$"
)
# "Now the hard work starts ...", "Since we last chatted, ...": a lead that says nothing
_IDLE_LEAD = re.compile(
    r"^(?:Now|Anyway),?\s+(?!that\b|is\b|was\b)(?=\w)|^Since\s[^,.;]{3,60},\s+(?=[A-Z])"
)
_JOIN_LIMIT = 300
_STATEMENTS = ("note", "event")


def reads_alone(candidates: list[Candidate]) -> list[Candidate]:
    """Every English statement reads alone: a lead that says nothing goes ("Now the hard work
    starts" - "The hard work starts"); one that starts with an unexplained "It", "They", a
    gerund or a bare verb joins the statement just before it from the same message (what it
    points back to), or, with none, is dropped: out of its conversation it names nothing."""
    out: list[Candidate] = []
    last_of: dict[str, int] = {}  # node id -> index in ``out`` of its last statement
    for c in candidates:
        if c.language != "en" or c.type not in _STATEMENTS or "stance" in c.attrs:
            out.append(c)
            continue
        text = _IDLE_LEAD.sub("", c.text)
        if text != c.text:
            c = replace(c, text=text[:1].upper() + text[1:])
        node = c.node_ids[0]
        parts = c.text.split(". ")
        named = [p for p in parts if not (_UNNAMED_OBJECT.match(p) and len(p.split()) <= 6)]
        if not named:
            continue  # "Caroline drew it.": what "it" is, only the conversation knew
        if len(named) < len(parts):  # the next sentence may name it, or join the one before
            text = ". ".join(named)
            c = replace(c, text=text if text.endswith((".", "!", "?")) else f"{text}.")
        if _GERUND.match(c.text):
            c = replace(c, text=_for_speaker(c))
        c = replace(c, text=_REMINDED.sub(r"\g<at>\g<n> is reminded that ", c.text))
        if _NO_SUBJECT.match(c.text) is None:
            last_of[node] = len(out)
            out.append(c)
            continue
        j = last_of.get(node)
        if j is not None and len(out[j].text) + len(c.text) < _JOIN_LIMIT:
            old = out[j]
            out[j] = replace(
                old,
                text=f"{old.text} {c.text}",
                node_ids=tuple(dict.fromkeys((*old.node_ids, *c.node_ids))),
                importance=max(old.importance, c.importance),
            )
            continue
        parts = c.text.split(". ")  # nothing to join: what reads alone of it stays
        k = next((k for k, p in enumerate(parts) if _NO_SUBJECT.match(p) is None), None)
        if k is not None:
            last_of[node] = len(out)
            out.append(replace(c, text=". ".join(parts[k:])))
    return out


def _for_speaker(c: Candidate) -> str:
    """ "Seeing Jon's students succeed motivates Jon." - "For Jon, seeing their students
    succeed motivates them." (the first sentence; a memory not about its speaker stays)."""
    name = c.subject.name if c.subject is not None and c.subject.type == "person" else ""
    name = "the user" if name == "user" else name
    first, dot, rest = c.text.partition(". ")
    if not name or name not in first:
        return c.text
    body = re.sub(rf"\b{re.escape(name)}['’]s\b", "their", first)
    body = re.sub(rf"\bbe {re.escape(name)}\b|\bbe them\b", "be themselves", body)
    verb = r"\s+(?:is|was|has|had|will|would|can|could|does|did|[a-z]+s|[a-z]+ed)\b"
    body = re.sub(rf"\b{re.escape(name)}\b(?!{verb})", "them", body)  # "and Melanie is"
    return f"For {name}, {body[:1].lower()}{body[1:]}{dot}{rest}"


# "Priya named her Biscuit" after "I adopted a grey cat": the object pronoun of a short
# statement, and the first noun phrase the sentence before (or the question) names.
_OBJECT = re.compile(
    r"^(?P<pre>(?P<who>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)\s+(?:[a-z]+\s+)?"
    r"(?!(?:is|was|are|to|for|with|at|in|on|of|about|like)\s)[a-z]+)\s+"
    r"(?P<pro>her|him|it|them)\b(?!\s+(?:to|that|so|as)\b)"
)
_NP = re.compile(
    r"\b(?P<d>a|an|the|my|that|this|your)\s+(?P<n>(?:(?!(?:from|at|in|on|to|with|for|of|and"
    r"|but|is|was|looks?|last|this|next)\b)[a-z][\w-]*\s+){0,2}?"
    r"(?!(?:lot|bit|few|couple|time|way|thing|day|week|weekend|year|month|while)\b)[a-z][\w-]*)"
    r"(?=\s+(?:from|at|in|on|to|with|for|of|last|this|yesterday|today|looks?|is|was|and|but"
    r"|that|which)\b|\s*[.,!?]|$)"
)


_AFTER_PREP = re.compile(r"\b(?:on|in|at|from|to|with|for|of|by|about|into|onto)\s+$", re.I)


def name_the_object(text: str, before: str) -> str:
    """``text`` with its object pronoun named by the first noun phrase of ``before`` (a
    sentence or question just before it), when its first sentence is short."""
    first = text.split(". ", 1)[0]
    m = _OBJECT.match(text)
    if m is None or len(first.split()) > 12:
        return text
    # the first noun phrase that is no prepositional object ("On my side, I adopted a cat")
    np = next(
        (n for n in _NP.finditer(before) if not _AFTER_PREP.search(before, 0, n.start())), None
    )
    if np is None or _PRONOUNS.search(np.group("n")):
        return text
    det = np.group("d").lower()
    det = "the" if det in ("a", "an", "that", "this") else f"{m.group('who')}'s"
    return f"{m.group('pre')} {det} {np.group('n')}{text[m.end() :]}"


_LABEL = re.compile(r"\s*\([^)]*\)|[^\w\s']+")


def _told(text: str) -> str:
    return " ".join(_LABEL.sub(" ", text).lower().split())


def told_once(candidates: list[Candidate]) -> list[Candidate]:
    """A statement that begins with the event its message states ("Melanie signed up for a
    pottery class. It's like therapy for Melanie ...") is one memory: the event, elaborated."""
    events = {
        (c.node_ids[0], _told(c.text)): i
        for i, c in enumerate(candidates)
        if c.type == "event" and c.language == "en"
    }
    out = list(candidates)
    dropped: set[int] = set()
    for i, c in enumerate(candidates):
        first, _, rest = c.text.partition(". ")
        j = events.get((c.node_ids[0], _told(first))) if c.type == "note" else None
        if j is None or j in dropped:
            continue
        e = out[j]
        out[j] = replace(
            e,
            text=f"{e.text} {rest}" if rest else e.text,
            node_ids=tuple(dict.fromkeys((*e.node_ids, *c.node_ids))),
            importance=max(e.importance, c.importance),
        )
        dropped.add(i)
    return [c for i, c in enumerate(out) if i not in dropped]
