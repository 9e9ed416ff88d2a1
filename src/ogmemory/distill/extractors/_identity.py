"""Who the speaker is and who they work with, in English and Chinese.

* identity: the speaker's name ("I'm Dana Whitfield", "我叫李雷"), role and employer ("the
  backend lead at Corvid Labs", "在星河科技做前端负责人"), where they live and moves ("I moved
  from Lisbon to Berlin last month", "我上个月从上海搬到杭州了": the old place stops being
  current where the new one starts);
* people: colleagues and their roles ("Priya Raman is our product owner", "我们的产品经理是王
  芳", "My manager is Tom Becker"), and what they expect ("she expects a status report every
  Friday", "她每周五要看周报"), with "she"/"he"/她/他 resolved to the person just named.

Memories are third person ("The user is the backend lead at Corvid Labs.") and every one states
its graph relations: ``works_at`` (slot ``employer``), ``has_role`` (slot ``role``),
``lives_in`` (slot ``residence``), ``reports_to`` (slot ``manager``), ``works_with``,
``expects``. The Chinese readings are in ``_identity_zh``.

>>> from datetime import date
>>> from ogmemory.distill.extractors._common import split_sentences
>>> s = split_sentences("My manager is Tom Becker.", date(2026, 3, 2))[0]
>>> manager_of(s)
('Tom Becker', 'manager', 'my')
"""

from __future__ import annotations

import re
from typing import Any

from ..types import Candidate, EntityRef, Fact
from ._catalog import lookup
from ._common import NodeContext, Sentence, date_attrs, gate
from ._grammar import finish_en

__all__ = ["identity_en", "manager_of"]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Job titles (people met at work); family and friends ("my partner Anna") are read elsewhere.
_HEADS = (
    r"engineer|developer|dev|lead|manager|designer|architect|scientist|analyst|owner"
    r"|director|founder|co-founder|cofounder|head|intern|consultant|administrator|admin"
    r"|tester|researcher|programmer|maintainer|specialist|officer|reviewer|coordinator"
    r"|strategist|marketer|recruiter|accountant|contractor|freelancer"
)
_ACRONYM_ROLES = r"SRE|PM|QA|CTO|CEO|CFO|COO|CIO|VP|PO|EM|TPM|DBA|UX|UI"
_ROLE = (
    rf"(?:(?:[a-z][\w-]*|[A-Z]{{2,5}})\s+){{0,3}}(?:{_HEADS})s?\b|(?:{_ACRONYM_ROLES})\b"
    rf"(?:\s+(?:{_HEADS}))?"
)
# Names in any Latin script ("Tomás", "Zoë", "Łukasz"): a capital, then lower-case letters.
_UP = r"[A-ZÀ-ÖØ-ÞĀ-Ž]"
_LO = r"[a-zß-öø-ÿā-ž]"
_WORD = rf"{_UP}{_LO}+(?:[-'’]{_UP}?{_LO}+)?"
_PERSON = rf"{_WORD}(?:\s+{_WORD}){{0,2}}"
_ORG = rf"{_UP}[\w&.'-]*(?:\s+(?:(?!I\b){_UP}[\w&.'-]*|of|and(?!\s+I\b)|&|for|de))*"
_PLACE = rf"{_UP}[\w.'-]*(?:\s+{_UP}[\w.'-]*){{0,2}}"

_NOT_NAMES = _words(
    "I Im The A An And But So Sorry Happy Fine Good Great Okay Ok Back Here Done Ready Sure"
    " Free Busy New Home Tired Glad Excited Just Also Still Not Really Very Totally Working"
    " Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April"
    " May June July August September October November December English Chinese French German"
    " Spanish American British Canadian Italian Japanese Indian Brazilian Mexican In On At"
    " From With Yes No Hi Hey Hello Thanks Thank Well Oh Our My Your We You He She They It"
    " This That Quick Some Everyone Team"
)
_NAME_EN = re.compile(
    rf"(?:(?:\b(?i:my\s+name(?:['’]s|\s+is)|call\s+me)|^(?i:name['’]s|name\s+is))\s+"
    rf"(?P<n1>{_PERSON})|\b(?i:i['’]m|i\s+am)\s+(?P<n2>{_PERSON}))"
    rf"(?=\s*(?:[,.!;:)]|$|\s+(?i:and|from|here|by|btw)\b))"
    # "quick intro: Jonah Brandt here, ...": a full name and "here" opening the message
    rf"|^(?:[^:]{{0,24}}:\s*)?(?P<n3>{_WORD}\s+{_WORD}(?:\s+{_WORD})?)\s+(?i:here)(?=\s*[,.!;:—–-])"
)
_ROLE_AT = re.compile(
    rf"\b(?:(?i:i['’]m|i\s+am|i\s+work\s+as|i['’]m\s+working\s+as|working\s+as)\s+"
    rf"(?i:the|a|an|our)\s+"
    rf"|(?:(?i:i['’]m|i\s+am|my\s+name\s+is|my\s+name['’]s)|^(?i:name['’]s|name\s+is|this\s+is))"
    rf"\s+{_PERSON},\s+(?:(?i:the|a|an)\s+)?"
    rf"|^(?:[^:]{{0,24}}:\s*)?{_PERSON}\s+(?i:here),\s+(?:(?i:the|a|an)\s+)?)"
    rf"(?P<role>{_ROLE})(?:\s+(?i:for|on|of)\s+(?:the\s+)?[\w-]+(?:\s+[\w-]+)?)?"
    rf"(?:\s+(?:(?i:over|out|down|up)\s+)?(?i:at|for|with|in)\s+(?P<org>{_ORG}))?"
)
_WORK_AT = re.compile(
    rf"\b(?i:i\s+(?:currently\s+|now\s+|still\s+)?work|i['’]m\s+(?:currently\s+)?working"
    rf"|i\s+am\s+(?:currently\s+)?working)\s+(?i:at|for|with)\s+(?P<org>{_ORG})"
    rf"(?:\s+(?i:as)\s+(?i:a|an|the|our)\s+(?P<role>{_ROLE}))?"
)
# "I lead the platform team at Cargonaut", "I run the data team for Fernwood Bank"
_LEAD_AT = re.compile(
    rf"\b(?i:i\s+(?:currently\s+|now\s+)?(?:run|lead|manage|head))\s+(?i:the|a|our)\s+"
    rf"(?P<team>(?:[\w-]+\s+){{0,2}}?)(?i:team|group|squad|department)\s+(?i:at|for|in)\s+"
    rf"(?P<org>{_ORG})"
)
_LIVE = re.compile(
    rf"\b(?i:i\s+(?:currently\s+|now\s+|still\s+)?live|i['’]m\s+(?:now\s+|currently\s+)?"
    rf"(?:based|living|located)|i\s+am\s+(?:now\s+|currently\s+)?(?:based|living|located))"
    rf"\s+(?i:in|at|near|outside)\s+(?P<to>{_PLACE})"
    rf"|\b(?i:working|calling\s+in|dialing\s+in|writing)\s+(?:(?i:remotely|from\s+home)\s+)?"
    rf"(?i:from)\s+(?P<to2>{_PLACE})"
    rf"|\b(?i:work|working|based|operate|operating)\s+(?i:out\s+of)\s+(?P<to4>{_PLACE})"
    rf"|\b(?i:i['’]m|i\s+am)\s+(?:(?i:now|currently|still)\s+)?(?i:in)\s+(?P<to3>{_PLACE})"
    rf"(?=\s+(?i:these\s+days|now|nowadays|at\s+the\s+moment|for\s+now)\b|\s*[.!;]|\s*$)"
)
_MOVE = re.compile(
    rf"\b(?i:(?:i|we)\s+(?:just\s+|recently\s+|finally\s+|also\s+)?(?:moved|relocated)"
    rf"|(?:i|we)['’](?:ve|re|m)\s+(?:just\s+|recently\s+)?(?:moved|relocated|moving|relocating)"
    rf"|(?:i|we)\s+(?:will|am\s+going\s+to|are\s+going\s+to|plan\s+to)\s+(?:move|relocate))"
    rf"(?:\s+(?i:from)\s+(?P<from>{_PLACE}))?\s+(?i:to)\s+(?P<to>{_PLACE})"
)
_PEOPLE_EN = (
    re.compile(
        rf"\b(?P<name>{_PERSON})\s+(?:is|was)\s+(?:now\s+|currently\s+|still\s+)?"
        rf"(?P<poss>our|my|the)\s+(?:new\s+)?"
        rf"(?P<role>{_ROLE})"
    ),
    re.compile(
        rf"\b(?P<poss>[Oo]ur|[Mm]y)\s+(?:new\s+|current\s+|direct\s+)?(?P<role>{_ROLE})"
        rf"(?:\s+is|,)?\s+(?P<name>{_PERSON})\b"
    ),
    re.compile(
        rf"\b(?P<name>{_PERSON})\s+(?:has\s+|just\s+|recently\s+)*(?:joined|started|came\s+on"
        rf"(?:\s+board)?|signed\s+on)\s+(?:(?:the|our)\s+"
        rf"(?:[\w-]+\s+)?(?:team|company|group|squad)\s+|us\s+)?as\s+(?P<poss>a|an|our|the)\s+"
        rf"(?:(?:new|second|third|another|first|full-time|part-time)\s+)?(?P<role>{_ROLE})"
    ),
    re.compile(rf"\b(?P<name>{_PERSON}),\s+(?P<poss>our|my|the)\s+(?P<role>{_ROLE}),"),
    # "Dmitri is acting manager", "Nadia is PM for the app": a title with no article
    re.compile(
        rf"\b(?P<name>{_PERSON})\s+(?:is|was)\s+(?:now\s+|currently\s+)?(?P<poss>)"
        rf"(?P<role>(?:acting|interim|deputy|temporary)\s+(?:{_ROLE})|(?:{_ACRONYM_ROLES})\b)"
    ),
    # "I report to Hana Kobayashi"
    re.compile(
        rf"\b(?i:i)\s+(?:now\s+|directly\s+)?report\s+(?:directly\s+)?to\s+(?P<name>{_PERSON})"
        rf"(?P<poss>)(?P<role>)"
    ),
)
_EXPECT_EN = re.compile(
    rf"\b(?P<who>{_PERSON}|[Ss]he|[Hh]e|[Tt]hey),?\s*(?:also\s+|always\s+|usually\s+)?"
    r"(?P<verb>expects|wants|needs|asks\s+for|requires|reviews|approves|signs\s+off\s+on"
    r"|(?:['’]ll|\swill)\s+(?:also\s+)?(?:sign\s+off\s+on|review|approve|own|handle|lead|run"
    r"|manage|take\s+care\s+of|be\s+responsible\s+for|be\s+in\s+charge\s+of)"
    r"|checks|likes|prefers|insists\s+on|owns|runs|leads|heads|manages|maintains|handles"
    r"|does|covers|is\s+responsible\s+for|takes\s+care\s+of)\s+"
    r"(?P<what>(?!to\s+know\b)(?:(?!(?:\s+(?:and|but|so|because)|,)\s+(?:I|we|you|he|she"
    r"|they)\b)"
    r"[^.;!?]){3,90})"
)
# "Hannah Weiss from the data team owns ...": who they are with, before what they do
_FROM_TEAM = re.compile(
    r"\s+(?:from|on|in|of)\s+(?:the\s+|our\s+)?(?:[\w-]+(?:\s+[\w-]+)?\s+team\b|(?:design|product"
    r"|QA|ops|devops|infra|security|frontend|backend|mobile|data|analytics|marketing|sales"
    r"|support|finance|legal|research)\b(?!\s+\w+ing\b))"
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
    if not m.group("role"):
        return "manager", "my"
    return _role(m.group("role")), m.group("poss").lower()


def _role(raw: str) -> str:
    return " ".join(w if w.isupper() else w.lower() for w in raw.split())


def _owner_en(poss: str, ctx: NodeContext) -> str:
    if poss in ("my", "a", "an"):
        return f"{ctx.speaker}'s" if poss == "my" else "a"
    if poss == "our":
        return "the team's" if not ctx.record.node.name else f"{ctx.speaker}'s team's"
    return "the"


def _profile(
    ctx: NodeContext,
    text: str,
    lang: str,
    relation: str | None,
    obj: EntityRef | None,
    *,
    slot: str | None = None,
    more: tuple[Fact, ...] = (),
    **kw: Any,
) -> Candidate:
    return ctx.candidate(
        "profile",
        text,
        lang,
        relation=relation,
        object=obj,
        slot=slot,
        more=more,
        confidence=kw.pop("confidence", 0.85),
        importance=kw.pop("importance", 0.85),
        **kw,
    )


def _name_en(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    if ctx.record.node.name:  # a named speaker needs no introduction
        return
    for m in _NAME_EN.finditer(s.text):
        name = m.group("n1") or m.group("n2") or m.group("n3")
        words = name.split()
        if words[0] in _NOT_NAMES or (
            m.group("n2") and len(words) < 2 and not re.match(r"\s*[,.!]", s.text[m.end() :] or ".")
        ):
            continue
        if not ctx.first("name", name):
            continue
        subject = ctx.subject("en", name)
        out.append(
            _profile(
                ctx,
                finish_en(f"{ctx.speaker}'s name is {name}"),
                "en",
                None,
                None,
                subject=subject,
                attrs={"name": name},
            )
        )


def _job_en(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    for rx in (_ROLE_AT, _WORK_AT):
        for m in rx.finditer(s.text):
            role = _role(m.group("role")) if m.group("role") else None
            org = (m.group("org") or "").strip(" .'")
            if org and org.split()[0] in _NOT_NAMES:
                org = ""
            if not role and not org:
                continue
            key = f"{role}@{org}"
            if not ctx.first("job", key) or (org and not ctx.first("org", org)):
                continue
            name = ctx.speaker
            if role and org:
                article = "the" if re.search(r"\bthe\b", m.group(), re.IGNORECASE) else "a"
                text = f"{name} is {article} {role} at {org}"
            elif org:
                text = f"{name} works at {org}"
            else:
                text = f"{name} is {'an' if str(role)[:1] in 'aeiou' else 'a'} {role}"
            role_fact = Fact("has_role", EntityRef(str(role), "role"), slot="role")
            if org:
                out.append(
                    _profile(
                        ctx,
                        finish_en(text),
                        "en",
                        "works_at",
                        EntityRef(org, "organization"),
                        slot="employer",
                        more=(role_fact,) if role else (),
                    )
                )
            else:
                out.append(
                    _profile(
                        ctx,
                        finish_en(text),
                        "en",
                        "has_role",
                        EntityRef(str(role), "role"),
                        slot="role",
                    )
                )


def _lead_en(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    """ "I lead the platform team at Cargonaut": the employer, and leading that team."""
    for m in _LEAD_AT.finditer(s.text):
        org = m.group("org").strip(" .'")
        if not org or org.split()[0] in _NOT_NAMES or not ctx.first("org", org):
            continue
        team = " ".join(m.group("team").split())
        role = f"{team} team lead" if team else "team lead"
        role_fact = Fact("has_role", EntityRef(role, "role"), slot="role")
        text = f"{ctx.speaker} leads the {team + ' ' if team else ''}team at {org}"
        out.append(
            _profile(
                ctx,
                finish_en(text),
                "en",
                "works_at",
                EntityRef(org, "organization"),
                slot="employer",
                more=(role_fact,),
            )
        )


def _home_en(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    for rx in (_MOVE, _LIVE):
        for m in rx.finditer(s.text):
            to = (
                m.group("to")
                or m.groupdict().get("to2")
                or m.groupdict().get("to3")
                or m.groupdict().get("to4")
                or ""
            ).strip(" .")
            if (
                to.split()[0] in _NOT_NAMES
                or lookup(to)
                or ("uses", to.lower()) in ctx.seen
                or not ctx.first("home", to)
            ):
                continue
            src = m.groupdict().get("from")
            t = s.times[0] if s.times else None
            when = ctx.epoch(t.day) if t else ctx.event_time
            attrs = date_attrs(t) if t else {}
            if rx is _MOVE:
                text = (
                    f"{ctx.speaker} moved from {src} to {to}"
                    if src
                    else f"{ctx.speaker} moved to {to}"
                )
                planned = bool(re.search(r"(?i)will|going|plan|moving|relocating", m.group()))
                if planned:
                    text = text.replace(" moved ", " is moving ", 1)
                    attrs["planned"] = True
                label = t.label() if t else None
                out.append(
                    _profile(
                        ctx,
                        finish_en(text, label),
                        "en",
                        "lives_in",
                        EntityRef(to, "place"),
                        slot="residence",
                        replaces=EntityRef(src, "place") if src else None,
                        kind="event",
                        event_time=when,
                        valid_from=when,
                        attrs=attrs,
                    )
                )
            else:
                out.append(
                    _profile(
                        ctx,
                        finish_en(f"{ctx.speaker} lives in {to}"),
                        "en",
                        "lives_in",
                        EntityRef(to, "place"),
                        slot="residence",
                        valid_from=when,
                        attrs=attrs,
                    )
                )


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
    found = [
        (m.group("name"), *_role_of(m), rx is _PEOPLE_EN[2])
        for rx in _PEOPLE_EN
        for m in rx.finditer(s.text)
    ]
    _colleagues(found, ctx, out)


def _colleagues(
    found: list[tuple[str, str, str, bool]], ctx: NodeContext, out: list[Candidate]
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
        if joined:
            text = f"{name} joined the team as {poss if poss != 'our' else 'a'} {role}"
        else:
            text = f"{name} is {_owner_en(poss, ctx)} {role}"
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


def _expectations_en(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    text, shown = s.text, {}
    team = next(
        (
            m
            for m in re.finditer(rf"\b({_PERSON})(?=\s+(?:from|on|in|of)\s)", text)
            if _FROM_TEAM.match(text, m.end())
        ),
        None,
    )
    if team is not None:  # "Hannah from the data team owns X": read as "Hannah owns X"
        end = _FROM_TEAM.match(text, team.end())
        assert end is not None
        shown[team.group(1)] = team.group(1) + end.group()
        text = text[: team.end()] + text[end.end() :]
        ctx.people.append(team.group(1))
    clause = _WHO_CLAUSE.search(text)
    if clause is not None and clause.group("name").split()[0] not in _NOT_NAMES:
        name = clause.group("name")  # "Ravi, who leads the platform team, approves ..."
        shown[name] = clause.group()[: -1 if clause.group().endswith(",") else None] + ","
        text = text[: clause.start()] + name + text[clause.end() :]
        ctx.people.append(name)
    for m in _EXPECT_EN.finditer(text):
        who = m.group("who")
        if who.lower() in ("she", "he", "they"):
            if not ctx.people:
                continue
            who = ctx.people[-1]
        elif who.split()[0] in _NOT_NAMES:
            continue
        what = re.split(
            r"\s+(?:and|but|so|because)\s+(?:I|we|you|he|she|they)\b|\s+[-–—]\s+", m.group("what")
        )[0].strip(" ,")
        if not ctx.first("expects", f"{who}:{what}"):
            continue
        what = _FOR_US.sub(r"\1 the team", what)  # "runs QA for us": for the speaker's team
        verb = m.group("verb")
        base = re.sub(r"^(?:['’]ll|\s?will)\s+(?:also\s+)?", "", verb)
        if base != verb:  # "she'll sign off on releases": what she will do from now on
            verb = f"will {base}"
        owning = _OWNS.match(base) or re.match(r"own|handle|lead|run|manage|take|be\s", base)
        relation = "owns" if owning else "expects"
        field = _FIELD.match(what) is not None
        colleague = field or who in ctx.people or len(who.split()) > 1 or _FOR_US.search(m.group())
        if relation == "owns" and not colleague:
            continue  # "my partner Anna runs the shop": only colleagues own parts of the work
        if verb in ("does", "covers") and not field:
            continue  # "Anna does the dishes": only a part of the work makes a role
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


_FOR_US = re.compile(r"\b(for|with|to)\s+us\b", re.IGNORECASE)
_OWNS = re.compile(
    r"owns|runs|leads|heads|manages|maintains|handles|does|covers|is\s+responsible|takes\s+care"
)
# "Olu does design", "Jonas handles QA for us": the part of the work a colleague has
_FIELD = re.compile(
    r"(?i)^(?:the\s+)?(?:design|UX|UI|QA|testing|ops|devops|infra(?:structure)?|security"
    r"|frontend|backend|mobile|data|analytics|marketing|sales|support|research|releases?"
    r"|on-call|hiring|product|documentation|docs)\b"
)
# "Ravi Patel, who leads the platform team, approves ...": who someone is, then what they do
_WHO_CLAUSE = re.compile(rf"\b(?P<name>{_PERSON}),\s+(?:who|our|my|the)\s+[^,;.!?]{{3,50}},")


def identity_en(s: Sentence, ctx: NodeContext) -> list[Candidate]:
    """Identity, colleagues and expectations in one English sentence."""
    out: list[Candidate] = []
    if s.question or s.hypothetical or not ctx.personal:
        return out
    if s.has(_ID_GATE) or (s.has(_HERE_GATE) and _HERE_START.match(s.text)):
        _name_en(s, ctx, out)
        _job_en(s, ctx, out)
        _lead_en(s, ctx, out)
        _home_en(s, ctx, out)
    if s.has(_PEOPLE_GATE):
        _people_en(s, ctx, out)
    if s.has(_EXPECT_GATE) or (s.has(_DOES_GATE) and s.has(_FIELD_GATE)):
        _expectations_en(s, ctx, out)
    if s.has(_PRONOUN_GATE) and s.has(_PEOPLE_GATE | _BOSS_GATE):
        _colleagues([(*p, False) for p in _pronoun_people(s, ctx)], ctx, out)
    return out


_ID_GATE = gate(
    "i i'm im my work working live living based located moved relocated run lead"
    " moving relocating call calling dialing writing name names"
)
_HERE_GATE = gate("here")
_HERE_START = re.compile(rf"^(?:[^:]{{0,24}}:\s*)?{_WORD}\s+{_WORD}(?:\s+{_WORD})?\s+(?i:here)\b")
_EXPECT_GATE = gate(
    "expects wants needs asks requires reviews approves signs checks likes"
    " prefers insists owns runs leads heads manages maintains handles responsible"
    " takes covers sign approve review own handle manage lead charge"
)
# "Olu does design": "does" only with a part of the work named
_DOES_GATE = gate("does")
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
)
