"""Stances: what the speaker values, believes, needs, offers and is about to do.

People say much about themselves that is neither an event nor a like: "Family time matters to
me", "Taking care of yourself is vital", "Need help with marketing - any advice?", "I could help
you with the photos", "I'm off to go swimming with the kids". A careful reader notes each of
these once ("Melanie values family time"). They have a small grammar of their own, the same in
any conversation:

* **values**: ``<X> matters / is important / means a lot to me``, ``I value / cherish <X>``;
* **beliefs**: a generic subject (a gerund or a bare noun phrase, not a pronoun and not the
  listener) with a verdict: ``<X> is key / vital / essential``, ``<X> can do wonders``,
  ``<X> helps <do Y>``, ``<X> is great for <Y>``;
* **needs**: ``(I) need / could use help / advice with <X>``;
* **offers** to the person spoken to: ``I can / could / 'd be happy to help you with <X>``;
* **plans of the moment**: ``I'm off to / heading to <X>``.

Chinese has the same five: ``X对我很重要`` / ``我很珍惜X``, ``我觉得X很重要``, ``我需要…的建议``,
``我可以帮你…``, ``我得去…了``. Each becomes a ``note`` in the third person, in the language of
its evidence.

>>> from datetime import date
>>> from ogmemory.distill.extractors._common import split_sentences
>>> s = split_sentences("Family time matters to me.", date(2023, 5, 8))[0]
>>> stance_en(s)
('values', 'family time')

A general belief is a view, not news: one memory holds a speaker's views of one session
("Gina believes that a mentor can do wonders, and that good flooring is crucial"), each turn
its evidence, rather than one memory per platitude.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ..types import Candidate
from ._common import NodeContext, Sentence, gate
from ._grammar import clean_phrase, finish_en, finish_zh, third_person_en, third_person_zh

__all__ = ["merge_beliefs", "stance_en", "stances_en", "stances_zh"]

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
_PRONOUN = re.compile(r"^(?:it|that|this|these|those|them|you|your|yours|him|her|what|how|every"
                      r"(?:one|thing)|some(?:one|thing)|any(?:one|thing)|each\s+other)\b",
                      re.IGNORECASE)
_SUBJECT = r"(?P<x>[A-Za-z][\w-]*(?:\s+[\w-]+){0,7}?)"
# Words a generic subject never holds: persons, "it", verbs of a clause of its own.
_SUBJECT_STOP = frozenset(
    "i i'm i've i'd i'll me we we're us you you're your it it's its this that they them he she"
    " him her his their was were is are am be been had did do does would could should will can"
    " to here there these those".split())

# ----------------------------------------------------------------------------- English

_VALUE_EN = re.compile(
    _SUBJECT + r"(?:['’]s|\s+(?:is|are|was|were|has\s+been|have\s+been))?\s+" + _INTENS
    + r"(?:(?:important|precious|special|dear|everything|the\s+world|a\s+big\s+deal)"
    r"|matters?(?:\s+(?:so\s+much|a\s+lot|the\s+most))?"
    r"|means?\s+(?:so\s+much|a\s+lot|the\s+world|everything))\s+to\s+(?:me|us)\b",
    re.IGNORECASE,
)
_VALUE_VERB_EN = re.compile(
    r"\b(?:I|we)\s+" + _INTENS + r"(?P<v>value|cherish|treasure)\s+(?P<x>[^,;:!?.]{3,80})",
    re.IGNORECASE,
)
_VERDICT = (r"(?:key|vital|essential|crucial|important|so\s+important|necessary|everything"
            r"|a\s+must|the\s+key|a\s+game[-\s]changer|a\s+lifesaver|so\s+rewarding|rewarding"
            r"|so\s+healing|healing|therapeutic|worth\s+it)")
_BELIEF_EN = re.compile(
    _SUBJECT + r"(?:['’]s|\s+(?:is|are|can\s+be|has\s+been|have\s+been))\s+" + _INTENS
    + _VERDICT + r"(?P<rest>(?:\s+(?:for|to|in|when|if)\s+[^,;:!?.]{3,80})?)\s*(?:[,;:!?.]|$)"
    r"|" + _SUBJECT.replace("x>", "x2>") + r"(?:\s+|(?=['’]))(?:can\s+|really\s+|also\s+"
    r"|totally\s+)*"
    r"(?P<v>do(?:es)?\s+wonders|helps?|can\s+help|makes?\s+a\s+(?:big\s+|huge\s+|real\s+)?"
    r"difference|(?:is|are|'s|'re)\s+" + _INTENS + r"(?:great|good|awesome|amazing|perfect"
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
    r"|(?:'m|am)\s+(?:happy|glad)\s+to|'d\s+love\s+to|would\s+love\s+to)\s+" + _INTENS
    + r"(?P<v>help|show|teach|give|lend|send|introduce|recommend|bring|make|cook|take)"
    r"\s+(?:you|ya)\b(?P<x>[^,;:!?.]{0,80})",
    re.IGNORECASE,
)
_NOW_EN = re.compile(
    r"\b(?:I|we)(?:['’]m|\s+am|['’]re|\s+are)\s+(?:just\s+|now\s+|about\s+|actually\s+)?"
    r"(?P<how>off|heading|headed)\s+(?:out\s+|over\s+|back\s+)?to\s+(?P<x>[^,;:!?.]{3,80})",
    re.IGNORECASE,
)
_GATE_EN = gate(
    "important precious special dear everything world deal matters matter means mean value"
    " cherish treasure key vital essential crucial necessary must lifesaver rewarding healing"
    " therapeutic worth wonders helps help difference great good awesome amazing perfect"
    " wonderful best need use looking could can happy glad love off heading headed going"
    " game changer"
)
# Clause ends for what a need, an offer or a plan is about.
_CUT = re.compile(
    r"\s+(?:because|but|so\s+(?:that|I|we)|since|though|although|when|which|and\s+(?:I|we|it|that|you|then)"
    r"|if|haha|lol|any\s+advice|any\s+tips|any\s+ideas|anytime|if\s+you)\b|\s[-–—]\s",
    re.IGNORECASE,
)
_THIN = frozenset("go it that this there home now then soon bed out later something anything"
                  " stuff things".split())
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
    if (not x or _NOT_GENERIC.match(x) or len(_CONTENT.findall(x)) < 1
            or any(w in _SUBJECT_STOP for w in words) or words[-1] in _DANGLING):
        return None
    if x.split()[0][:1].isupper() and x.split()[0].lower() not in _LOWER_OK and len(x.split()) == 1:
        return None  # a bare name: "Caroline is everything to me" is about a person
    return x


_DANGLING = frozenset("with and or but for of the a an to in on at by from as my our so".split())
_OWN = re.compile(r"^(?:my|our)\s+(?!own\b)\w+", re.IGNORECASE)
_LOWER_OK = frozenset("family friends health art music dance dancing love kindness".split())


def stance_en(s: Sentence) -> tuple[str, str] | None:
    """``(kind, what)`` of the first stance an English sentence states (see the docstring)."""
    found = _read_en(s)
    return found[0] if found else None


_QUESTION_TAIL = re.compile(r"\s+[-–—]\s+[^-–—]*$")
_SUGGEST_EN = re.compile(
    r"^(?:(?:so|hey|oh|and|well)\b[\s,]*)*(?:(?:do\s+you\s+)?(?:wanna|want\s+to)|how\s+about\s+we"
    r"|shall\s+we|should\s+we|why\s+don't\s+we|maybe\s+we\s+(?:can|could|should))\s+"
    r"(?P<x>[^,;:!?.]{6,80})\?",
    re.IGNORECASE,
)
_HEAR = re.compile(r"^(?:hear|see|know|talk|chat|catch|join\s+me|come\s+with|try\s+it|do\s+it"
                   r"|do\s+that|do\s+this|go\b|share|tell|check|grab\s+a\s+bite)\b",
                   re.IGNORECASE)


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
        return [x for x in _stances_en(text[: tail.start()]) if x[0] == "needs"]
    found = _stances_en(text)
    if s.hypothetical:
        return [x for x in found if x[0] == "offers"]
    return found


def _stances_en(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    clause = _LEAD.sub("", text)
    m = _VALUE_EN.match(clause)
    if m is not None:
        x = _generic(m.group("x"), own=True)
        if x is not None:
            out.append(("values", x))
    m = _VALUE_VERB_EN.search(clause)
    if m is not None and not out:
        x = _cut(m.group("x"))
        if x and not _PRONOUN.match(x):
            out.append(("values", x))
    m = _BELIEF_EN.match(clause)
    if m is not None and not out:
        if m.group("x") is not None:
            x = _generic(m.group("x"))
            body = clause[m.start("x"): m.end("rest")] if x else ""
        else:
            x = _generic(m.group("x2"))
            body = clause[m.start("x2"): m.end("rest2")] if x else ""
        body = _cut(body)
        if x and len(_CONTENT.findall(body)) >= 3:
            own = _PERSONAL.search(body) is not None  # "dancing helps me de-stress"
            out.append(("says" if own else "believes", body))
    m = _NEED_EN.search(clause)
    if m is not None:
        x = _cut(m.group("x"))
        if x and not _PRONOUN.match(x):
            out.append(("needs", f"{m.group('what').lower()} {m.group('prep').lower()} {x}"))
    m = _OFFER_EN.search(clause)
    if m is not None:
        out.append(("offers", f"{m.group('v').lower()}\0{_cut(m.group('x'))}"))
    m = _NOW_EN.search(clause)
    if m is not None:
        x = _cut(m.group("x"))
        words = [w.lower() for w in _CONTENT.findall(x)]
        if words and not all(w in _THIN for w in words) and not _NOT_GENERIC.match(x):
            how = (m.group("how") or "").lower()
            out.append(("about_to" if how == "off" or not _PLACE.match(x) else "heading", x))
    return out


_PERSONAL = re.compile(r"\b(?:me|my|myself)\b", re.IGNORECASE)
_PLACE = re.compile(r"^(?:the|a|an|my|our|his|her|their|[A-Z])", re.IGNORECASE)


def stances_en(s: Sentence, ctx: NodeContext) -> list[Candidate]:
    """Note candidates for what an English sentence says the speaker values, believes, needs,
    offers the listener or is about to do."""
    out: list[Candidate] = []
    name = ctx.speaker
    for kind, what in _read_en(s):
        if kind == "suggests":
            if not ctx.listener or _PERSONAL.search(what):
                continue  # "Wanna show me a routine?" asks for something; it plans nothing
            text = f"{name} suggested to {ctx.listener} that they {third_person_en(what, name)}"
        elif kind == "offers":
            if not ctx.listener:
                continue  # an offer to an unnamed assistant is no fact about anyone
            verb, rest = what.split("\0")
            text = f"{name} offered to {verb} {ctx.listener}"
            text += f" {third_person_en(rest, name)}" if rest else ""
        elif kind == "believes":  # a general truth: "we" and "us" are people at large
            shown = _GENERIC_WE.sub(lambda m: _PEOPLE[m.group().lower()], what)
            text = f"{name} believes that {_lower_first(shown)}"
        else:
            shown = third_person_en(what, name)
            if kind == "values":
                shown = _lower_first(re.sub(rf"^{re.escape(name)}'s\b", "their", shown))
            text = {"values": f"{name} values {shown}",
                    "says": shown,
                    "needs": f"{name} needs {shown}",
                    "about_to": f"{name} is about to {shown}",
                    "heading": f"{name} is heading to {shown}"}[kind]
        if _YOU.search(text) or not ctx.first("stance", f"{kind}:{what}"):
            continue  # "you" in a memory names no one
        out.append(ctx.candidate("note", finish_en(text), "en", confidence=0.6,
                                 importance=0.5, attrs={"stance": kind}))
    return out


_GENERIC_WE = re.compile(r"\b(?:we|us|our|ours|ourselves)\b", re.IGNORECASE)
_PEOPLE = {"we": "people", "us": "people", "our": "their", "ours": "theirs",
           "ourselves": "themselves"}
_YOU = re.compile(r"\b(?:you|your|yours|yourself|ya)\b", re.IGNORECASE)


def _lower_first(text: str) -> str:
    first = text.split(" ", 1)[0]
    if (first.isupper() and len(first) > 1) or first == "I":  # an acronym
        return text
    return text[:1].lower() + text[1:]


# ----------------------------------------------------------------------------- Chinese

_VALUE_ZH = re.compile(
    r"(?P<x>[^，,。！!？?；;：:]{2,20}?)对(?:我|我们)(?:来说|而言)?(?:真的|非常|特别|很|太|最|十分)?"
    r"(?:重要|珍贵|有意义|意义重大)"
    r"|(?:我|我们)(?:很|非常|特别|一直|真的)?(?:珍惜|看重|重视|在乎)(?P<x2>[^，,。！!？?；;：:]{2,20})"
)
_BELIEF_ZH = re.compile(
    r"(?:我|我们)(?:一直|真的|始终)?(?:觉得|认为|相信)(?P<x>[^，,。！!？?；;：:]{2,20}?)"
    r"(?:很|非常|特别|最|真的|才是)?(?:重要|关键|必要|有用|有帮助)"
)
_NEED_ZH = re.compile(
    r"(?:我|我们)(?:现在|真的|很|特别)?(?:需要|想要|想找)(?:一些|点|些)?"
    r"(?P<x>[^，,。！!？?；;：:]{1,20}?)(?:的|方面的)?(?P<what>帮助|帮忙|建议|意见|指导)"
)
_OFFER_ZH = re.compile(
    r"(?:我|我们)(?:可以|能|很乐意|愿意)(?P<v>帮|教|给)(?:你|您)(?P<x>[^，,。！!？?；;：:]{2,24})"
)
_NOW_ZH = re.compile(r"(?:我|我们)(?:得|要|先|该|马上)去(?P<x>[^，,。！!？?；;：:]{2,20}?)了")
_GATE_ZH = re.compile(
    r"重要|珍贵|意义|珍惜|看重|重视|在乎|觉得|认为|相信|需要|想要|想找|帮你|帮您|教你|给你|去"
)


def stances_zh(s: Sentence, ctx: NodeContext) -> list[Candidate]:
    """The same for a Chinese sentence."""
    if s.question or s.hypothetical or not _GATE_ZH.search(s.text):
        return []
    name = ctx.name("zh")
    out: list[tuple[str, str]] = []
    m = _VALUE_ZH.search(s.text)
    if m is not None:
        x = (m.group("x") or m.group("x2") or "").strip()
        if x and not re.match(r"^(?:这|那|它|你|您)", x):
            out.append(("values", f"{name}看重{third_person_zh(x, name)}"))
    m = _BELIEF_ZH.search(s.text)
    if m is not None and not out:
        body = s.text[m.start("x"): m.end()]
        if len(body) >= 5 and not re.match(r"^(?:这|那|它|你|您)", body):
            out.append(("believes", f"{name}认为{third_person_zh(body, name)}"))
    m = _NEED_ZH.search(s.text)
    if m is not None and not re.search(r"你|您", m.group("x")):
        out.append(("needs", f"{name}需要{third_person_zh(m.group('x'), name)}的{m.group('what')}"))
    m = _OFFER_ZH.search(s.text)
    if m is not None and ctx.listener:
        what = third_person_zh(m.group("x"), name)
        out.append(("offers", f"{name}提出{m.group('v')}{ctx.listener}{what}"))
    m = _NOW_ZH.search(s.text)
    if m is not None:
        out.append(("about_to", f"{name}要去{third_person_zh(m.group('x'), name)}"))
    cands = []
    for kind, text in out:
        if re.search(r"你|您", text) or not ctx.first("stance", f"{kind}:{text}"):
            continue
        cands.append(ctx.candidate("note", finish_zh(text), "zh", confidence=0.6,
                                   importance=0.5, attrs={"stance": kind}))
    return cands


#: How many views one memory holds at most.
MAX_VIEWS = 3


def merge_beliefs(candidates: list[Candidate]) -> list[Candidate]:
    """A speaker's general beliefs in one session as one memory per ``MAX_VIEWS`` views (in
    the order said, at the first one's place), with every turn as evidence."""
    groups: dict[tuple[str, str, str], list[int]] = {}
    for i, c in enumerate(candidates):
        if c.attrs.get("stance") == "believes" and c.subject is not None:
            groups.setdefault((c.session_id, c.subject.name, c.language), []).append(i)
    drop: set[int] = set()
    for (_, _, lang), idx in groups.items():
        for k in range(0, len(idx), MAX_VIEWS):
            part = [candidates[i] for i in idx[k:k + MAX_VIEWS]]
            if len(part) < 2:
                continue
            candidates[idx[k]] = replace(
                part[0], text=_join_views(part, lang),
                node_ids=tuple(dict.fromkeys(n for c in part for n in c.node_ids)))
            drop.update(idx[k + 1:k + MAX_VIEWS])
    return [c for i, c in enumerate(candidates) if i not in drop]


def _join_views(part: list[Candidate], lang: str) -> str:
    if lang == "zh":
        first, *rest = (c.text.rstrip("。") for c in part)
        views = [first] + [t.split("认为", 1)[-1] for t in rest]
        return "，".join(views) + "。"
    marker = " believes that "
    head, _, first = part[0].text.rstrip(".").partition(marker)
    views = [first] + [c.text.rstrip(".").partition(marker)[2] for c in part[1:]]
    joined = ", and that ".join(views) if len(views) == 2 else (
        ", that ".join(views[:-1]) + ", and that " + views[-1])
    return f"{head}{marker}{joined}."
