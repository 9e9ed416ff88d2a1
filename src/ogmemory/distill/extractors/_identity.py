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
``expects``. Colleagues are read by ``_colleagues``; the Chinese readings are in
``_identity_zh``.
"""

from __future__ import annotations

import re
from typing import Any

from ..types import Candidate, EntityRef, Fact
from ._catalog import lookup
from ._colleagues import (
    APPROVAL_EN,
    CONDITION_FIRST,
    EXPECTATION_FIRST,
    colleagues_en,
    manager_of,
)
from ._common import NodeContext, Sentence, date_attrs, gate
from ._grammar import finish_en
from ._life import life_en
from ._names_en import (
    NOT_NAMES as _NOT_NAMES,
)
from ._names_en import (
    ORG as _ORG,
)
from ._names_en import (
    PERSON as _PERSON,
)
from ._names_en import (
    PLACE as _PLACE,
)
from ._names_en import (
    ROLE as _ROLE,
)
from ._names_en import (
    WORD as _WORD,
)
from ._names_en import (
    role_name as _role,
)

__all__ = ["identity_en", "manager_of"]


# "Hey there, Marcus Oyelaran here": a greeting before "<name> here"
_HELLO = (
    r"(?i:hi|hey|hello|morning|good\s+morning|afternoon|evening)(?:\s+(?i:there|all|team|folks))?"
    r"[,!]\s*"
)
# what may open a message before "<name> here": a label ("quick intro since this is a fresh
# setup:") or a greeting ("Hi, Dana Whitfield here, ...")
_LEAD = rf"^(?:[^:]{{0,60}}:\s*|{_HELLO})?"
# "Quick intro so you have some context: Tomasz Wierzbicki, gameplay programmer at X": a label
# that introduces the speaker, then their name and what they do
_INTRO = r"^(?:{h})?[^:]{{0,60}}\b(?i:intro|introduction|about\s+me|who\s+i\s+am)\b[^:]{{0,40}}:\s*"
_NAME_EN = re.compile(
    rf"(?:(?:\b(?i:my\s+name(?:['’]s|\s+is)|call\s+me)|(?:^|[-–—:,]\s*)(?i:name['’]s|name\s+is))\s+"
    rf"(?P<n1>{_PERSON})|\b(?i:i['’]m|i\s+am)\s+(?P<n2>{_PERSON}))"
    rf"(?=\s*(?:[,.!;:)]|$|\s+(?i:and|from|here|by|btw)\b))"
    # "quick intro: Jonah Brandt here, ...": a full name and "here" opening the message
    rf"|{_LEAD}(?P<n3>{_WORD}\s+{_WORD}(?:\s+{_WORD})?)\s+(?i:here)(?=\s*[,.!;:—–-])"
    rf"|{_INTRO.format(h=_HELLO)}(?P<n4>{_WORD}\s+{_WORD}(?:\s+{_WORD})?),\s+(?=[a-z])"
    # "Lucía Ortega, I'm an application security engineer at ...": the name, then who they are
    rf"|{_LEAD}(?P<n5>{_WORD}\s+{_WORD}(?:\s+{_WORD})?),\s+(?=I['’]m\s|I\s+am\s)"
)
_ROLE_AT = re.compile(
    rf"\b(?:(?i:i['’]m|i\s+am|i\s+work\s+as|i['’]m\s+working\s+as|working\s+as)\s+"
    rf"(?i:the|a|an|our)\s+"
    rf"|(?:(?i:i['’]m|i\s+am|my\s+name\s+is|my\s+name['’]s)|^(?i:name['’]s|name\s+is|this\s+is))"
    rf"\s+{_PERSON},\s+(?:(?i:the|a|an)\s+)?"
    rf"|{_LEAD}{_PERSON}\s+(?i:here),\s+(?:(?i:the|a|an)\s+)?"
    rf"|{_INTRO.format(h=_HELLO)}{_PERSON},\s+(?:(?i:the|a|an)\s+)?)"
    rf"(?P<role>{_ROLE})(?:\s+(?i:for|on|of|in)\s+(?:the\s+|our\s+)?(?:[\w&-]+\s+){{0,3}}?"
    rf"(?i:team|group|lab|squad|department)\b|\s+(?i:for|on|of)\s+(?:the\s+)?[a-z][\w-]*(?:\s+[a-z][\w-]*)?)?"
    rf"(?:\s+(?:(?i:over|out|down|up)\s+)?(?i:at|for|with|in)\s+(?P<org>{_ORG}))?"
)
_WORK_AT = re.compile(
    rf"\b(?i:i\s+(?:currently\s+|now\s+|still\s+)?work|i['’]m\s+(?:currently\s+)?working"
    rf"|i\s+am\s+(?:currently\s+)?working)\s+(?i:at|for|with)\s+(?P<org>{_ORG})"
    rf"(?:\s+(?i:as)\s+(?i:a|an|the|our)\s+(?P<role>{_ROLE}))?"
)
# "I do iOS at PawPal", "I do backend for Kestrel Labs": a field of the work as the role
_DO_AT = re.compile(
    rf"\b(?i:i)\s+(?:(?i:mostly|mainly|currently|now)\s+)?(?i:do)\s+(?P<role>iOS|Android|(?i:backend"
    rf"|frontend|front-end|back-end|mobile|design|QA|data\s+engineering|ML|DevOps|infra|security"
    rf"|web|ops|SRE|research|full-stack|fullstack))(?:\s+(?i:work|development|engineering))?\s+"
    rf"(?i:at|for)\s+(?P<org>{_ORG})"
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
    rf"|\b(?i:working|calling\s+in|dialing\s+in|writing|remote,?|remotely,?)\s+"
    rf"(?:(?i:remotely|from\s+home)\s+)?"
    rf"(?i:from)\s+(?P<to2>{_PLACE})"
    rf"|\b(?i:work|working|based|operate|operating)\s+(?i:out\s+of)\s+(?P<to4>{_PLACE})"
    rf"|\b(?i:i['’]m|i\s+am)\s+(?:(?i:now|currently|still)\s+)?(?i:in)\s+(?P<to3>{_PLACE})"
    rf"(?=\s+(?i:these\s+days|now|nowadays|at\s+the\s+moment|for\s+now)\b|\s*[.!;]|\s*$)"
)
_MOVE = re.compile(
    rf"\b(?i:(?:i|we)\s+(?:just\s+|recently\s+|finally\s+|also\s+)?(?:moved|relocated)"
    rf"|(?:i|we)['’](?:ve|re|m)\s+(?:just\s+|recently\s+)?(?:moved|relocated|moving|relocating)"
    rf"|(?:i|we)\s+(?:will|am\s+going\s+to|are\s+going\s+to|plan\s+to)\s+(?:move|relocate))"
    # "I'm moving up to Edinburgh", "we moved back to Lyon"
    rf"(?:\s+(?i:up|down|over|back|out))?"
    rf"(?:\s+(?i:from)\s+(?P<from>{_PLACE}))?\s+(?i:to)\s+(?P<to>{_PLACE})"
)


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
        name = m.group("n1") or m.group("n2") or m.group("n3") or m.group("n4") or m.group("n5")
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
    for rx in (_ROLE_AT, _WORK_AT, _DO_AT):
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
            if rx is _DO_AT:
                text = f"{name} does {m.group('role')} at {org}"
            elif role and org:
                lead = s.text[m.start() : m.start("role")]
                article = "the" if re.search(r"\bthe\b", lead, re.IGNORECASE) else "a"
                if article == "a" and str(role)[:1].lower() in "aeiou":
                    article = "an"  # "an application security engineer"
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


# "Denver office.", "I work out of the Berlin office": the city the user works in
_OFFICE = re.compile(
    rf"^(?:(?:I\s+work|I['’]m|I\s+am|[Bb]ased)\s+(?:in|at|out\s+of|from)\s+(?:the|our)\s+)?"
    rf"(?P<city>{_PLACE})\s+(?i:office)\b(?:\s+(?:now|these\s+days))?[.!]?$"
)


def _office_en(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    m = _OFFICE.match(s.text.strip())
    if m is None or m.group("city").split()[0] in _NOT_NAMES or lookup(m.group("city")):
        return
    city = m.group("city")
    if not ctx.first("office", city):
        return
    text = finish_en(f"{ctx.speaker} works from the {city} office")
    out.append(
        _profile(ctx, text, "en", "works_in", EntityRef(city, "place"), slot="work_location")
    )


def _home_en(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    _office_en(s, ctx, out)
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
                    if src and ctx.first("home", src):  # where they live until the move
                        out.append(
                            _profile(
                                ctx,
                                finish_en(f"{ctx.speaker} lives in {src}"),
                                "en",
                                "lives_in",
                                EntityRef(src, "place"),
                                slot="residence",
                                valid_from=ctx.event_time,
                            )
                        )
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


def identity_en(s: Sentence, ctx: NodeContext) -> list[Candidate]:
    """Identity, colleagues and expectations in one English sentence."""
    out: list[Candidate] = []
    if s.question or not ctx.personal:
        return out
    if s.hypothetical:  # "if we add an alert she expects X": a standing expectation
        said_first = EXPECTATION_FIRST.match(s.text) or APPROVAL_EN.search(s.text)
        if CONDITION_FIRST.search(s.text) or said_first:
            colleagues_en(s, ctx, out)
        return out
    if s.has(_ID_GATE) or (s.has(_HERE_GATE) and _HERE_START.match(s.text)):
        _name_en(s, ctx, out)
        _job_en(s, ctx, out)
        _lead_en(s, ctx, out)
        _home_en(s, ctx, out)
    colleagues_en(s, ctx, out)
    out += life_en(s, ctx)  # who they are beyond work: family, origin, goals
    return out


_ID_GATE = gate(
    "i i'm im my work working live living based located moved relocated run lead"
    " moving relocating call calling dialing writing name names remote remotely do intro"
    " introduction office"
)
_HERE_GATE = gate("here")
_HERE_START = re.compile(rf"{_LEAD}{_WORD}\s+{_WORD}(?:\s+{_WORD})?\s+(?i:here)\b")
