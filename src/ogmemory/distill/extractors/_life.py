"""Life facts, English: what a careful reader notes about a person beyond their job.

* who they are: "I'm a trans woman", "my path as a trans woman", "it'll be tough as a single
  parent" (``is_a``);
* family, named or not: "I'm lucky to have my husband and kids" (``has_family``), and how
  long: "How long have you been married?" - "5 years already!" (``is_a`` married, read by
  ``_passing.answered`` from the question and its answer);
* where they come from: "my home country, Sweden", "I'm originally from Lyon", "I grew up in
  Accra" (``comes_from``, slot ``origin``); "since I moved from my home country"
  (``moved_from``, a dated event);
* work said as news: "How is the new job going?" - "It's going well, though the commute is
  long." (``has`` a new job, also ``_passing.answered``);
* long-running goals: "I'm keen on counseling", "looking into counseling as a career", "my goal
  is to give kids a loving home", "it's been a dream to adopt" (``aims_for``).

Every memory is third person and states its relation; the object of a relation is neutral
("husband", "a career in counseling"), never in the speaker's words.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from ..types import Candidate, EntityRef, Fact
from ._common import NodeContext, Sentence, date_attrs, gate
from ._grammar import finish_en, third_person_en

__all__ = ["LIFE_GATE", "life_en"]

_IDENTITY = (
    r"(?:trans(?:gender)?\s+(?:woman|man|person|girl|guy)|non-?binary(?:\s+person)?"
    r"|queer\s+(?:woman|man|person)|gay\s+man|lesbian|bisexual\s+(?:woman|man|person)"
    r"|single\s+(?:parent|mom|mum|mother|dad|father)|stay-at-home\s+(?:mom|mum|dad|parent)"
    r"|(?:first-time\s+)?(?:mom|mum|mother|dad|father|parent)\s+of\s+(?:two|three|four|\d)"
    r"|widow(?:er)?|veteran|immigrant|refugee|vegan|vegetarian|christian|muslim|buddhist"
    r"|hindu|atheist|retiree|grandparent|grandmother|grandfather|foster\s+parent)"
)
# "I'm a trans woman", "I am a vegan" (not "I'm a big fan")
_I_AM = re.compile(
    rf"\b(?i:i['’]m|i\s+am)\s+(?:(?i:a|an)\s+)?(?:proud\s+)?(?P<x>(?i:{_IDENTITY}))\b"
)
# "my path as a trans woman", "my own journey as a transgender woman"
_AS_MY = re.compile(
    r"\b(?i:my)\s+(?:own\s+)?(?i:journey|path|life|experience|story|story|years|time|role)"
    rf"\s+(?i:as)\s+(?:(?i:a|an)\s+)?(?P<x>(?i:{_IDENTITY}))\b"
)
# "it'll be tough as a single parent": who the speaker will be
_AS_WILL = re.compile(
    r"\b(?i:it['’]ll|it\s+will|it['’]s\s+going\s+to)\s+be\s+(?:\w+\s+){0,2}?"
    rf"(?i:as)\s+(?:(?i:a|an)\s+)?(?P<x>(?i:{_IDENTITY}))\b"
)
_KIN = (
    r"husband|wife|partner|spouse|kids|children|son|sons|daughter|daughters|baby|twins"
    r"|stepson|stepdaughter|grandkids|grandchildren"
)
# "lucky to have my husband and kids", "I have my two kids", "my husband and I": said as
# having them (a mention in passing, "took my kids to the park", tells it less plainly)
_MY_KIN = re.compile(
    r"\b(?i:have|having|got|blessed\s+with|raising|married\s+to)\s+(?i:my)\s+"
    rf"(?:(?:two|three|four|five|\d|little|young|older|lovely|amazing)\s+)?"
    rf"(?P<a>(?i:{_KIN}))\b(?:\s+(?i:and)\s+(?:(?i:my)\s+)?(?P<b>(?i:{_KIN}))\b)?"
    r"|\b(?i:my)\s+(?P<c>(?i:husband|wife|partner))\s+(?i:and)\s+I\b"
    r"|\b(?i:i\s+have|i['’]ve\s+got)\s+(?P<d>(?:two|three|four|five|\d)\s+(?i:kids|children|sons|daughters))\b"
)
_PLACE = r"[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+){0,2}"
_FROM = re.compile(
    rf"\b(?i:my)\s+(?i:home\s+country|homeland|home\s+town|hometown),\s+(?P<p>{_PLACE})"
    rf"|\b(?i:i['’]m|i\s+am)\s+(?i:originally\s+)?(?i:from)\s+(?P<p2>{_PLACE})"
    rf"|\b(?i:i)\s+(?i:grew\s+up|was\s+born(?:\s+and\s+raised)?)\s+(?i:in)\s+(?P<p3>{_PLACE})"
)
# "since I moved from my home country": where they come from, unnamed (a named place, "I
# moved here from Milan", is an event of the timeline; "from A to B" is read by _identity)
_MOVED_FROM = re.compile(
    r"\b(?i:i|we)\s+(?:(?i:just|recently|finally)\s+)?(?i:moved|relocated|came)\s+"
    r"(?:(?i:here|over|away)\s+)?(?i:from)\s+"
    r"(?P<p>(?i:my|our)\s+(?i:home\s+country|homeland|home\s+town|hometown))\b"
    r"(?!\s+to\b)"
)
_FIELD = r"(?P<f>[a-z][\w-]*(?:\s+(?:and|or|&)?\s*[a-z][\w-]*){0,4}?)"
_GOAL = (
    re.compile(
        r"\b(?i:looking|look|looked)\s+into\s+(?P<f>[a-z][\w\s&-]{2,50}?)\s+"
        r"(?i:as\s+a\s+career|jobs|careers?(?:\s+options)?|career\s+paths?|work)\b"
    ),
    re.compile(
        r"\b(?i:i['’]m|i\s+am)\s+(?:(?i:really|very|so)\s+)?(?i:keen\s+on|set\s+on)\s+"
        rf"{_FIELD}(?=\s*(?:[-—–,.;!]|$|\s+(?:and|but|so)\s))"
    ),
    re.compile(
        r"\b(?i:i)\s+(?:(?i:really|still)\s+)?(?:(?i:want|hope|plan|would\s+love|['’]d\s+love)"
        r"\s+to\s+(?:work|become|be)|(?i:dream\s+of)\s+(?:working|becoming))\s+"
        r"(?P<f>(?:(?i:as|in)\s+)?(?:(?i:a|an)\s+)?[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}?)"
        r"(?=\s*(?:[-—–,.;!]|$|\s+(?:and|but|so|because|one\s+day|someday)\b))"
    ),
)
_CAREER_WORDS = gate(
    "counseling counselling therapy therapist nurse nursing teacher teaching medicine doctor"
    " law lawyer engineering engineer design designer writing writer art artist music"
    " musician social work psychology psychologist coaching coach research researcher"
    " science scientist health care tech software marketing business chef cooking"
)
# "my goal is to give kids a loving home", "it's been a dream to adopt", "my dream is to ..."
_DREAM = re.compile(
    r"\b(?:(?i:my)\s+(?:(?i:biggest|big|main|life['’]?s?|ultimate)\s+)?(?i:goal|dream|ambition)"
    r"\s+(?i:is|has\s+always\s+been)\s+to"
    r"|(?i:it['’]s|it\s+has|it['’]s\s+always)\s+(?:been\s+)?(?:(?i:always)\s+)?(?:been\s+)?"
    r"(?:(?i:a|my)\s+)?(?i:dream)\s+(?:(?i:of\s+mine)\s+)?to"
    r"|(?i:towards|toward)\s+(?i:my)\s+(?i:goal|dream)\s+of)\s+"
    r"(?P<g>[a-z][^.!?;—–]{3,90}?)(?=\s*(?:[.!?;—–]|$|,\s+(?:and|but|so)\b|\s+-\s))"
)
_VENTURE = (
    r"(?:[\w-]+\s+){0,2}?(?:business|studio|store|shop|company|startup|start-up|restaurant|bakery"
    r"|caf[eé]|clinic|practice|agency|brand|label|podcast|channel|nonprofit|charity|salon|gym"
    r"|farm|workshop|boutique|firm)"
)
# "I'm starting a dance studio", "running my own studio", "starting my own store"
_RUNS = re.compile(
    r"\b(?:(?i:i['’]m|i\s+am|i\s+love|i\s+enjoy|i['’]ve\s+been|i\s+have\s+been)\s+)"
    r"(?:(?i:gonna\s+take\s+a\s+shot\s+at)\s+)?"
    r"(?P<verb>(?i:starting|opening|running|launching|building|growing))\s+"
    rf"(?:(?i:my\s+own|our\s+own|a|an|my|our)\s+)(?P<what>(?i:{_VENTURE}))\b"
    r"|\b(?i:i)\s+(?:(?i:just|finally|recently)\s+)?(?P<verb2>(?i:started|opened|launched|founded))"
    rf"\s+(?:(?i:my\s+own|our\s+own|a|an|my)\s+)(?P<what2>(?i:{_VENTURE}))\b"
)
# "Lost my job as a banker", "I used to work as a nurse": the work they did before (a job
# lost at a named employer ends its works_at fact: _patterns_en)
_END = r"\s*(?:[,.;!]|$|\s+(?:and|but|so|for|at|in|before|yesterday|today|last|this|recently)\b)"
_ROLE2 = (
    r"[a-z][\w-]*(?:\s+(?!(?:yesterday|today|last|this|recently|before|and|but|so)\b)[a-z][\w-]*)?"
)
_WORKED = re.compile(
    r"\b(?:(?i:lost|quit|left)\s+(?i:my)\s+(?i:job|position)\s+(?i:as)"
    r"|(?i:i\s+used\s+to\s+(?:be|work\s+as)))\s+"
    rf"(?:(?i:a|an)\s+)?(?P<role>{_ROLE2})(?={_END})"
)
_PRONOUNS = re.compile(r"\b(?:it|this|that|them|these|those)\b", re.IGNORECASE)

_WORK_GATE = gate(
    "starting opening running launching building growing started opened launched"
    " founded lost quit left used"
)
LIFE_GATE = _WORK_GATE | gate(
    "trans transgender nonbinary non binary queer gay lesbian bisexual single parent mom mum"
    " mother dad father widow widower veteran immigrant refugee vegan vegetarian christian"
    " muslim buddhist hindu atheist retiree grandparent grandmother grandfather foster"
    " husband wife partner spouse kids children son sons daughter daughters baby twins"
    " stepson stepdaughter grandkids grandchildren home homeland hometown originally grew"
    " born moved relocated came looking look looked keen set want hope plan love dream"
    " goal ambition towards toward"
)


def _entity(
    ctx: NodeContext,
    text: str,
    relation: str,
    obj: EntityRef,
    *,
    label: str | None = None,
    importance: float = 0.75,
    **kw: Any,
) -> Candidate:
    """A life fact: an ``entity`` memory (one per statement, never updated in place) with its
    relation."""
    return ctx.candidate(
        "entity",
        finish_en(text, label),
        "en",
        relation=relation,
        object=obj,
        confidence=0.8,
        importance=importance,
        **kw,
    )


def _article(x: str) -> str:
    return "an" if x[:1].lower() in "aeiou" else "a"


def _who(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    for rx in (_I_AM, _AS_MY, _AS_WILL):
        for m in rx.finditer(s.text):
            x = re.sub(r"^transgender\b", "trans", " ".join(m.group("x").lower().split()))
            if not ctx.first("is_a", x):
                continue
            verb = "will be" if rx is _AS_WILL else "is"
            text = f"{ctx.speaker} {verb} {_article(x)} {x}"
            out.append(_entity(ctx, text, "is_a", EntityRef(x, "concept")))


def _kin(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    for m in _MY_KIN.finditer(s.text):
        kin = [k.lower() for k in (m.group("a"), m.group("b"), m.group("c"), m.group("d")) if k]
        if not ctx.first("kin", "+".join(kin)):
            continue
        said = " and ".join(k if k.endswith(("s", "ren")) else f"{_article(k)} {k}" for k in kin)
        refs = [EntityRef(f"{ctx.speaker}'s {k}", "person", attrs={"role": k}) for k in kin]
        out.append(
            _entity(
                ctx,
                f"{ctx.speaker} has {said}",
                "has_family",
                refs[0],
                more=tuple(Fact("has_family", r) for r in refs[1:]),
                attrs={"role": kin[0]},
            )
        )


def _origin(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    for m in _FROM.finditer(s.text):
        place = (m.group("p") or m.group("p2") or m.group("p3") or "").strip()
        if (
            not place
            or place.split()[0] in ("I", "The", "My", "Our")
            or not ctx.first("from", place)
        ):
            continue
        text = f"{ctx.speaker} is from {place}"
        out.append(
            _entity(
                ctx, text, "comes_from", EntityRef(place, "place"), slot="origin", importance=0.8
            )
        )
    for m in _MOVED_FROM.finditer(s.text):
        place = re.sub(r"^(?i:my|our)\b", "their", m.group("p"))
        if not ctx.first("home", place):
            continue
        t = s.times[0] if s.times else None
        attrs = date_attrs(t) if t else {}
        when = ctx.epoch(t.day) if t else ctx.event_time
        label = replace(t, since=False).label() if t else None
        neutral = re.sub(r"^their\s+", f"{ctx.speaker}'s ", place)
        out.append(
            _entity(
                ctx,
                f"{ctx.speaker} moved from {place}",
                "moved_from",
                EntityRef(neutral, "place"),
                label=label,
                kind="event",
                event_time=when,
                attrs=attrs,
                importance=0.8,
            )
        )


def _goals(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    for i, rx in enumerate(_GOAL):
        for m in rx.finditer(s.text):
            field = " ".join(m.group("f").split()).strip(" ,")
            if not field or _PRONOUNS.search(field):
                continue
            if i == 2 and not (gate(field.lower().replace("-", " ")) & _CAREER_WORDS):
                continue  # "I want to be there for her" is no career
            field = re.sub(r"^(?:as|in)\s+", "", field)
            if i == 0:
                text, obj = f"{ctx.speaker} wants a career in {field}", f"a career in {field}"
            elif i == 1:
                text, obj = f"{ctx.speaker} is keen on {field}", field
            else:
                text, obj = (
                    f"{ctx.speaker} wants to work as {field}"
                    if re.match(r"(?:a|an)\s", field)
                    else f"{ctx.speaker} wants to work in {field}",
                    field,
                )
            if not ctx.first("goal", obj):
                continue
            out.append(_entity(ctx, text, "aims_for", EntityRef(obj, "preference")))
    for m in _DREAM.finditer(s.text):
        goal = " ".join(m.group("g").split()).rstrip(" ,")
        if _PRONOUNS.match(goal) or not ctx.first("goal", goal):
            continue
        goal = re.sub(r"^to\s+", "", third_person_en(goal, ctx.speaker))
        out.append(
            _entity(
                ctx,
                f"{ctx.speaker}'s goal is {'' if goal.split()[0].endswith('ing') else 'to '}{goal}",
                "aims_for",
                EntityRef(goal, "preference"),
            )
        )


def _work(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    for m in _RUNS.finditer(s.text):
        what = " ".join((m.group("what") or m.group("what2")).lower().split())
        verb = (m.group("verb") or m.group("verb2")).lower()
        if not ctx.first("runs", what):
            continue
        said = {
            "starting": "is starting",
            "opening": "is opening",
            "launching": "is launching",
            "building": "is building",
            "growing": "is growing",
            "running": "runs",
            "started": "started",
            "opened": "opened",
            "launched": "launched",
            "founded": "founded",
        }[verb]
        own = "their own" if verb in ("running", "growing") else _article(what)
        ref = EntityRef(f"{ctx.speaker}'s {what}", "project")
        out.append(_entity(ctx, f"{ctx.speaker} {said} {own} {what}", "runs", ref))
    for m in _WORKED.finditer(s.text):
        role = " ".join(m.group("role").split())
        if role.split()[0] in ("job", "the", "my", "it", "there") or not ctx.first("worked", role):
            continue
        text = f"{ctx.speaker} used to work as {_article(role)} {role}"
        out.append(_entity(ctx, text, "worked_as", EntityRef(role, "role")))


def life_en(s: Sentence, ctx: NodeContext) -> list[Candidate]:
    """Identity, family, origin, moves and goals said in one English sentence."""
    out: list[Candidate] = []
    if s.question or s.hypothetical or not ctx.personal or not s.has(LIFE_GATE):
        return out
    _who(s, ctx, out)
    _kin(s, ctx, out)
    _origin(s, ctx, out)
    _goals(s, ctx, out)
    if s.has(_WORK_GATE):
        _work(s, ctx, out)
    return out
