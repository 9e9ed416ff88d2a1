"""Colleagues and what they expect, English: "Priya Raman is our product owner", "My manager is
Tom Becker", "Marta heads the security team; she reviews every IAM change", "Olu does design",
"I report to Hana", "Ngozi runs the data team, she's my boss", "Ines started as our QA lead,
she'll sign off on releases". "She"/"he" is the person just named (``ctx.people``).

Relations: ``works_with`` or ``reports_to`` (slot ``manager``) with ``has_role`` (slot ``role``)
on the colleague; ``expects`` and ``owns`` from the colleague.

>>> from datetime import date
>>> from ogmemory.distill.extractors._common import split_sentences
>>> s = split_sentences("My manager is Tom Becker.", date(2026, 3, 2))[0]
>>> manager_of(s)
('Tom Becker', 'manager', 'my')
"""

from __future__ import annotations

import re

from ..types import Candidate, EntityRef, Fact
from ._common import NodeContext, Sentence, gate
from ._grammar import finish_en, third_person_en
from ._names_en import (
    ACRONYM_ROLES as _ACRONYM_ROLES,
)
from ._names_en import (
    HEADS as _HEADS,
)
from ._names_en import (
    NOT_NAMES as _NOT_NAMES,
)
from ._names_en import (
    PERSON as _PERSON,
)
from ._names_en import (
    ROLE as _ROLE,
)
from ._names_en import (
    role_name as _role,
)

__all__ = [
    "APPROVAL_EN",
    "CONDITION_FIRST",
    "EXPECTATION_FIRST",
    "PEOPLE_GATE",
    "colleagues_en",
    "manager_of",
]


# "Prof. Henrik Sandberg", "Dr Lee": a title before a name is not part of it
_TITLE = r"(?:(?:Prof|Dr|Mr|Mrs|Ms)\.?\s+)?"
_PEOPLE_EN = (
    re.compile(
        rf"\b(?P<name>{_PERSON})\s+(?:is|was)\s+(?:now\s+|currently\s+|still\s+)?"
        rf"(?P<poss>our|my|the)\s+(?:new\s+)?"
        rf"(?P<role>{_ROLE})"
    ),
    re.compile(
        rf"\b(?P<poss>[Oo]ur|[Mm]y)\s+(?:new\s+|current\s+|direct\s+)?(?P<role>{_ROLE}|boss)"
        rf"(?:\s+(?:on|for)\s+(?:the\s+)?[a-z][\w-]*(?:\s+[a-z][\w-]*)?(?=\s+is\b)"
        # "my PM at Brightloop is Carla Nguyen": where they are
        rf"|\s+(?:at|with)\s+[A-Z][\w&.-]*(?:\s+[A-Z][\w&.-]*)?(?=\s+is\b))?"
        rf"(?:\s+is|,)?\s+{_TITLE}(?P<name>{_PERSON})\b"
    ),
    re.compile(
        rf"\b(?P<name>{_PERSON})\s+(?:has\s+|just\s+|recently\s+)*(?:joined|started|came\s+on"
        rf"(?:\s+board)?|signed\s+on)\s+(?:(?:the|our)\s+"
        rf"(?:[\w-]+\s+)?(?:team|company|group|squad)\s+|us\s+)?as\s+(?P<poss>a|an|our|the)\s+"
        rf"(?:(?:new|second|third|another|first|full-time|part-time)\s+)?(?P<role>{_ROLE})"
    ),
    # "Jin Park, our CTO, ...", "a new hire, Tobi Adeyemi, a junior pentester, starting Monday"
    re.compile(rf"\b(?P<name>{_PERSON}),\s+(?P<poss>our|my|the|an?)\s+(?P<role>{_ROLE}),"),
    # "Jin Park (our CTO) wants ...": a title in brackets after the name
    re.compile(rf"\b(?P<name>{_PERSON})\s+\((?P<poss>our|my|the)\s+(?P<role>{_ROLE})\)"),
    # "Ana Costa is on my team as an ML engineer"
    re.compile(
        rf"\b(?P<name>{_PERSON})\s+(?:is|was)\s+(?:also\s+)?(?:on|in)\s+(?:my|our|the)\s+(?:[\w-]+\s+)?"
        rf"(?:team|group|squad)\s+as\s+(?P<poss>a|an|our|the)\s+(?P<role>{_ROLE})"
    ),
    # "Dmitri is acting manager", "Nadia is PM for the app": a title with no article
    re.compile(
        rf"\b(?P<name>{_PERSON})\s+(?:is|was)\s+(?:now\s+|currently\s+)?(?P<poss>)"
        rf"(?P<role>(?:acting|interim|deputy|temporary)\s+(?:{_ROLE})|(?:{_ACRONYM_ROLES})\b)"
    ),
    # "we hired a second programmer, Jonas Becker", "we've onboarded a new QA lead, Ana Ruiz"
    re.compile(
        rf"\b(?i:we|i)(?:['’]ve|\s+have)?\s+(?:just\s+)?(?i:hired|onboarded|brought\s+on|took\s+on)"
        rf"\s+(?P<poss>a|an|our)\s+(?:(?:new|second|third|another|first|full-time|part-time)\s+)?"
        rf"(?P<role>{_ROLE}),?\s+{_TITLE}(?P<name>{_PERSON})\b"
    ),
    # "I report to Hana Kobayashi"
    re.compile(
        rf"\b(?i:i)\s+(?:now\s+|directly\s+)?report\s+(?:directly\s+)?to\s+(?P<name>{_PERSON})"
        rf"(?P<poss>)(?P<role>)"
    ),
)
_JOINED = (_PEOPLE_EN[2], _PEOPLE_EN[7])  # "X joined as our Y", "we hired a Y, X"
_EXPECT_EN = re.compile(
    rf"\b(?P<who>{_PERSON}|[Ss]he|[Hh]e|[Tt]hey),?\s*(?:also\s+|always\s+|usually\s+)?"
    r"(?P<verb>expects|wants|needs|asks\s+for|requires|reviews|approves|signs\s+off\s+on"
    r"|(?:['’]ll|\swill|\smust|\shas\s+to|\sneeds\s+to|\sgets\s+to)\s+(?:also\s+)?(?:sign\s+off\s+on"
    r"|review|approve|own|handle|lead|run"
    r"|manage|take\s+care\s+of|be\s+responsible\s+for|be\s+in\s+charge\s+of)"
    r"|checks|likes|prefers|insists(?:\s+(?:on|that))?|owns|runs|leads|heads|manages|maintains"
    r"|handles|does|covers|is\s+responsible\s+for|takes\s+care\s+of)\s+"
    r"(?P<what>(?!to\s+know\b)(?:(?!(?:\s+(?:and|but|so|because)|,)\s+(?:I|we|you|he|she"
    r"|they)\b)"
    r"(?:[^.;!?]|\.(?=\w))){3,90})"
)
# "Hannah Weiss from the data team owns ...": who they are with, before what they do
_FROM_TEAM = re.compile(
    r"\s+(?:from|on|in|of)\s+(?:the\s+|our\s+)?(?:[\w-]+(?:\s+[\w-]+)?\s+team\b|(?:design|product"
    r"|QA|ops|devops|infra(?:structure)?|security|frontend|backend|mobile|data|analytics|marketing|sales"
    r"|support|finance|legal|research|SRE|platform|IT|ML)\b(?!\s+\w+ing\b))"
)
_BOSS = re.compile(r"\b(?:manager|boss|lead|supervisor|head)\b", re.IGNORECASE)


def manager_of(s: Sentence) -> tuple[str, str, str] | None:
    """``(name, role, possessive)`` of the first colleague a sentence introduces, if any."""
    for rx in _PEOPLE_EN:
        m = rx.search(s.text)
        if m and m.group("name").split()[0] not in _NOT_NAMES:
            return m.group("name"), *_role_of(m)
    return None


def _role_of(m: re.Match[str]) -> tuple[str, str]:
    """The role and possessive a colleague pattern read ("I report to X": my manager)."""
    if not m.group("role") or m.group("role").lower() == "boss":
        return "manager", "my" if not m.group("role") else m.group("poss").lower()
    return _role(m.group("role")), m.group("poss").lower()


def _article(role: str) -> str:
    """ "an ML engineer", "an engineer", "a QA lead": by how the role is said."""
    first = role.split()[0] if role.split() else role
    spelled = first.isupper() and first[:1] in "AEFHILMNORSX"
    return "an" if spelled or (not first.isupper() and first[:1].lower() in "aeio") else "a"


def _owner_en(poss: str, ctx: NodeContext) -> str:
    if poss in ("my", "a", "an"):
        return f"{ctx.speaker}'s" if poss == "my" else "a"
    if poss == "our":
        return "the team's" if not ctx.record.node.name else f"{ctx.speaker}'s team's"
    return "the"


# "Ngozi runs the data team, she's my boss": the role of the person just named
_PRONOUN_ROLE = re.compile(
    rf"\b(?:[Ss]he|[Hh]e)(?:['’]s|\s+is)\s+(?:also\s+)?(?P<poss>our|my)\s+(?:new\s+|direct\s+)?"
    rf"(?P<role>{_ROLE}|boss)(?=\s*(?:[,.;!]|$|\s+(?:and|but|now|too)\b))"
)


def _pronoun_people(s: Sentence, ctx: NodeContext) -> list[tuple[str, str, str]]:
    """``(name, role, possessive)`` for "she's my boss" said of the person just named."""
    m = _PRONOUN_ROLE.search(s.text)
    if m is None or not ctx.people:
        return []
    role = "manager" if m.group("role").lower() == "boss" else _role(m.group("role"))
    return [(ctx.people[-1], role, m.group("poss").lower())]


def _people_en(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    found, shown = [], {}
    for rx in _PEOPLE_EN:
        for m in rx.finditer(s.text):
            found.append((m.group("name"), *_role_of(m), rx in _JOINED))
            extra = _APPOSITIVE.match(s.text, m.end())  # "My boss is X, the studio's CTO."
            if extra is not None:
                shown[m.group("name")] = f"{m.group('name')} ({extra.group('a')})"
    _colleagues(found, ctx, out, shown)


_APPOSITIVE = re.compile(
    rf",\s+(?P<a>(?:the\s+[\w'’-]+|our|my)\s+(?:[\w-]+\s+){{0,2}}?(?:{_ROLE}))(?=\s*(?:[.;!]|$))"
)


def _colleagues(
    found: list[tuple[str, str, str, bool]],
    ctx: NodeContext,
    out: list[Candidate],
    shown: dict[str, str] | None = None,
) -> None:
    """Each named colleague with their role (``joined``: they joined the team as it)."""
    for name, role, poss, joined in found:
        if name.split()[0] in _NOT_NAMES or name == ctx.speaker:
            continue
        if not ctx.first("person", name):
            continue
        if name not in ctx.people:
            ctx.people.append(name)
        person = EntityRef(name, "person", attrs={"role": role})
        said = (shown or {}).get(name, name)
        if joined:
            text = f"{said} joined the team as {_article(role) if poss != 'the' else 'the'} {role}"
        else:
            owner = _owner_en(poss, ctx)
            text = f"{said} is {_article(role) if owner == 'a' else owner} {role}"
        more = [Fact("has_role", EntityRef(role, "role"), subject=person, slot="role")]
        if poss == "my" and _BOSS.search(role):
            relation, obj, slot = "reports_to", person, "manager"
        else:
            relation, obj, slot = "works_with", person, None
        out.append(
            ctx.candidate(
                "entity",
                finish_en(text),
                "en",
                relation=relation,
                object=obj,
                slot=slot,
                more=tuple(more),
                confidence=0.85,
                importance=0.8,
                attrs={"role": role},
            )
        )


def _who(said: str, ctx: NodeContext) -> str:
    """Who an expectation is of: the person just named for she/he/they, a name without the
    word before it ("And Amara Okafor reviews ..."), or "" when no person is named."""
    if said.lower() in ("she", "he", "they"):
        return ctx.people[-1] if ctx.people else ""
    words = said.split()
    if words[0] not in _NOT_NAMES:
        return said
    return " ".join(words[1:]) if len(words) > 1 and words[1] not in _NOT_NAMES else ""


def _expectations_en(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    text, shown = s.text, {}
    team = next(
        (
            m
            for m in re.finditer(rf"\b({_PERSON})(?=\s+(?:from|on|in|of)\s)", text)
            if _FROM_TEAM.match(text, m.end()) and m.group(1).split()[0] not in _NOT_NAMES
        ),
        None,
    )
    if team is not None:  # "Hannah from the data team owns X": read as "Hannah owns X"
        end = _FROM_TEAM.match(text, team.end())
        assert end is not None
        shown[team.group(1)] = team.group(1) + end.group()
        text = text[: team.end()] + text[end.end() :]
        ctx.people.append(team.group(1))
    text = _BRACKETED.sub(r"\1", text)  # "Jin Park (our CTO) wants ...": Jin Park wants ...
    clause = _WHO_CLAUSE.search(text)
    if clause is not None and clause.group("name").split()[0] not in _NOT_NAMES:
        name = clause.group("name")  # "Ravi, who leads the platform team, approves ..."
        said = clause.group()[: -1 if clause.group().endswith(",") else None] + ","
        shown[name] = third_person_en(said, ctx.speaker)  # "Femi, my manager": the user's
        text = text[: clause.start()] + name + text[clause.end() :]
        ctx.people.append(name)
    if s.has(_ONE_GATE):  # "she's the one who signs off on X": she signs off
        text = _THE_ONE_WHO.sub(r"\1 ", text)
    # "and if we add an alert she expects X": she expects X if we add an alert
    text = CONDITION_FIRST.sub(r"\g<pre>\g<who> \g<verb> \g<what> \g<c> \g<cond>", text)
    for m in _EXPECT_EN.finditer(text):
        who = _who(m.group("who"), ctx)
        if not who:
            continue
        what = re.split(
            r"\s+(?:and|but|so|because)\s+(?:I|we|you|he|she|they)\b|\s+[-–—]\s+|,\s+(?:so|but|which)\s+",
            m.group("what"),
        )[0].strip(" ,")
        what = _fronted(text[: m.start()], what)
        if not ctx.first("expects", f"{who}:{what}"):
            continue
        what = _FOR_US.sub(r"\1 the team", what)  # "runs QA for us": for the speaker's team
        when = _WHEN_BEFORE.search(text[: m.start()])  # "Every Monday she expects X"
        if when is not None and not re.search(r"(?i)\b(?:every|each)\b", what):
            what = f"{what} {when.group('w')[:1].lower()}{when.group('w')[1:]}"
        field = _FIELD.match(what) is not None
        # "a summary from me", "our release process": the speaker's, the team's
        what = third_person_en(_OUR.sub("the team's", what), ctx.speaker)
        verb = m.group("verb")
        base = re.sub(r"^(?:['’]ll|\s?will)\s+(?:also\s+)?", "", verb)
        if base != verb:  # "she'll sign off on releases": what she will do from now on
            verb = f"will {base}"
        verb = verb.strip()
        base = re.sub(r"^(?:must|has\s+to|needs\s+to|gets\s+to)\s+", "", base.strip())
        owning = _OWNS.match(base) or re.match(r"own|handle|lead|run|manage|take|be\s", base)
        relation = "owns" if owning else "expects"
        colleague = field or who in ctx.people or len(who.split()) > 1 or _FOR_US.search(m.group())
        if relation == "owns" and not colleague:
            continue  # "my partner Anna runs the shop": only colleagues own parts of the work
        if verb in ("does", "covers") and not field:
            continue  # "Anna does the dishes": only a part of the work makes a role
        if not colleague and re.match(r"(?i)(?:the\s+user|me|us|the\s+team)\s+to\b", what):
            continue  # "Inês wants me to read the dinosaur book": a request at home
        if who not in ctx.people:
            ctx.people.append(who)  # "..., and she reviews ...": she is who was just named
        out.append(
            ctx.candidate(
                "entity",
                finish_en(f"{shown.get(who, who)} {verb} {what}"),
                "en",
                subject=EntityRef(who, "person"),
                relation=relation,
                object=EntityRef(what, "concept"),
                confidence=0.8,
                importance=0.8,
                attrs={"verb": verb},
            )
        )


# "anything that touches cardholder data, he wants to hear about": the object said first
_FRONTED = re.compile(
    r"(?:^|[.;:]\s*|,\s*)(?P<obj>(?i:anything|everything|any|all|every|each)\b[^,;:]{2,60}),\s*$"
)
_STRANDED = re.compile(
    r"^(?P<v>(?:to\s+)?(?:hear|know|be\s+told|learn|see|look)\s+(?:about|of|at))"
    r"(?=\s+(?:before|after|when|first|early|right\s+away)\b|\s*$)"
)


def _fronted(before: str, what: str) -> str:
    """What a colleague wants, with the object the sentence put first ("anything that touches
    cardholder data, he wants to hear about before it's merged")."""
    gap, obj = _STRANDED.match(what), _FRONTED.search(before)
    if gap is None or obj is None:
        return what
    return f"{gap.group('v')} {obj.group('obj').strip()}{what[gap.end() :]}"


# a standing expectation under a condition (the sentence reads as hypothetical, but is not)
CONDITION_FIRST = re.compile(
    r"(?P<pre>,?\s*(?:and\s+|but\s+)?)(?P<c>\b(?i:if|when|whenever|once))\s+"
    r"(?P<cond>(?i:we|you|anyone|someone|somebody|the\s+team|I)\s+[^,;.!?]{3,60}?),?\s+"
    r"(?P<who>[Ss]he|[Hh]e|[Tt]hey)\s+(?P<verb>expects|wants|needs|requires|insists\s+on)\s+"
    r"(?P<what>[^.;!?]{3,90})"
)
_THE_ONE_WHO = re.compile(
    r"\b([Ss]he|[Hh]e|[Tt]hey)(?:['’]s|['’]re|\s+is|\s+are)\s+(?:also\s+)?the\s+(?:one|person"
    r"|people|ones)\s+(?:who|that)\s+"
)
_BRACKETED = re.compile(rf"\b({_PERSON})\s+\([^()]{{2,40}}\)")
_WHEN_BEFORE = re.compile(
    r"(?:^|[,;]\s*)(?P<w>(?i:every|each)\s+(?:other\s+)?[A-Za-z]+(?:\s+(?:morning|afternoon|evening))?)"
    r"\s*,?\s*$"
)
_ONE_GATE = gate("one ones person people")
_OUR = re.compile(r"\b[Oo]ur\b")
_FOR_US = re.compile(r"\b(for|with|to)\s+us\b", re.IGNORECASE)
_OWNS = re.compile(
    r"owns|runs|leads|heads|manages|maintains|handles|does|covers|is\s+responsible|takes\s+care"
)
# "Olu does design", "Jonas handles QA for us": the part of the work a colleague has
_FIELD = re.compile(
    r"(?i)^(?:the\s+|our\s+)?(?:design|UX|UI|QA|testing|ops|devops|infra(?:structure)?|security"
    r"|frontend|backend|mobile|data|analytics|marketing|sales|support|research|releases?"
    r"|on-call|hiring|product|documentation|docs)\b"
)
# "Ravi Patel, who leads the platform team, approves ...": who someone is, then what they do
# "Ravi, who leads the platform team, ...", "Reza, Brightloop's design lead, ..."
_WHO_CLAUSE = re.compile(
    rf"\b(?P<name>{_PERSON}),\s+(?:who|our|my|the|[A-Z][\w-]*['’]s)\s+[^,;.!?]{{3,50}},"
)


# "He insists every change gets a CHANGELOG line, and he'll bounce the PR if it's missing": an
# expectation said first, its condition after
EXPECTATION_FIRST = re.compile(
    rf"^(?:{_PERSON}|[Ss]he|[Hh]e|[Tt]hey)\s+(?:also\s+|always\s+)?(?:insists|expects|requires)\b"
)
# "If a PR adds an unsafe block it needs her approval before merge": whose approval it needs
APPROVAL_EN = re.compile(
    r"\b(?:needs?|requires?|must\s+(?:get|have)|has\s+to\s+(?:get|have))\s+(?P<p>her|his)\s+"
    r"(?P<what>approval|sign-?off|review|OK|okay|go-ahead|blessing)\b"
)


def _approvals_en(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    """What needs the approval of the person just named, as their expectation."""
    m = APPROVAL_EN.search(s.text)
    if m is None or not ctx.people or not ctx.first("expects", f"{ctx.people[-1]}:{s.text}"):
        return
    who = ctx.people[-1]
    cuts = [c.end() for c in re.finditer(r",\s+(?:and|but|so)\s+|;\s+", s.text[: m.start()])]
    start = cuts[-1] if cuts else 0  # the clause of the approval ("…, and anything … needs her")
    said = f"{s.text[start : m.start('p')]}{who}'s{s.text[m.end('p') :]}"
    text = finish_en(third_person_en(said, ctx.speaker))
    out.append(
        ctx.candidate(
            "entity",
            text[:1].upper() + text[1:],
            "en",
            subject=EntityRef(who, "person"),
            relation="expects",
            object=EntityRef(s.text[: m.end()].strip()[:80], "concept"),
            confidence=0.8,
            importance=0.8,
            attrs={"verb": m.group("what")},
        )
    )


def colleagues_en(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    """Colleagues, their roles and what they expect or own, in one English sentence."""
    if s.has(_PEOPLE_GATE):
        _people_en(s, ctx, out)
    if s.has(_APPROVAL_GATE):  # after the people: "X is our lead, and ... needs her sign-off"
        _approvals_en(s, ctx, out)
    if s.has(_EXPECT_GATE) or (s.has(_DOES_GATE) and s.has(_FIELD_GATE)):
        _expectations_en(s, ctx, out)
    if s.has(_PRONOUN_GATE) and s.has(_PEOPLE_GATE | _BOSS_GATE):
        _colleagues([(*p, False) for p in _pronoun_people(s, ctx)], ctx, out)


_EXPECT_GATE = gate(
    "expects wants needs asks requires reviews approves signs checks likes"
    " prefers insists owns runs leads heads manages maintains handles responsible"
    " takes covers sign approve review own handle manage lead charge"
)
# "Olu does design": "does" only with a part of the work named
_DOES_GATE = gate("does")
_APPROVAL_GATE = gate("approval sign sign-off signoff review ok okay go-ahead blessing")
_FIELD_GATE = gate(
    "design ux ui qa testing ops devops infra infrastructure security frontend backend mobile"
    " data analytics marketing sales support research release releases on-call hiring product"
    " documentation docs"
)
_PRONOUN_GATE = gate("she he she's he's")
_BOSS_GATE = gate("boss")
_PEOPLE_GATE = (
    frozenset((_HEADS + "|" + _ACRONYM_ROLES).lower().replace("-", "|").split("|"))
    | frozenset(f"{h}s" for h in _HEADS.split("|"))
    | {"joined", "started", "came", "signed", "acting", "interim", "deputy", "temporary", "report"}
    | {"hired", "onboarded", "brought", "took"}
)
PEOPLE_GATE = _PEOPLE_GATE
