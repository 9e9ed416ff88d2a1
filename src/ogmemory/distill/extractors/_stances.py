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
* **plans of the moment**: ``I'm off to / heading to <X>``;
* **feelings**: what someone finds rewarding or sad (``It's so rewarding to <X>``), what made
  them feel something, what they felt like, what a reminder tells them is important;
* **suggestions** to the person spoken to: ``Wanna <do X>?``.

Chinese has the first five: ``X对我很重要`` / ``我很珍惜X``, ``我觉得X很重要``, ``我需要…的建议``,
``我可以帮你…``, ``我得去…了``. Each becomes a ``note`` in the third person, in the language of
its evidence.

Reading a sentence is ``_stance_read``'s part; this module words what it finds.
Views (beliefs, what someone finds rewarding) are kept and joined by ``_views``.
"""

from __future__ import annotations

import re

from ..types import Candidate
from ._common import NodeContext, Sentence
from ._grammar import finish_en, third_person_en
from ._stance_read import _CONTENT, _PERSONAL, _YOU, _read_en

__all__ = ["stances_en"]


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
        elif kind == "feels":
            x, verb, y = what.split("\0")
            verb = {"make": "makes", "leave": "leaves"}.get(verb, verb)
            cause = third_person_en(_lower_first(x), name)
            text = f"{cause} {verb} {name} feel {third_person_en(y, name)}"
            text = text[:1].upper() + text[1:]
            text = text.replace(" feel feel ", " feel ")
        elif kind == "felt_like":
            verb, y = what.split("\0")
            y = _I_WAS.sub(lambda m: "they were " if m.group(1) == "was" else "they are ", y)
            text = f"{name} {'felt' if verb == 'felt' else 'feels'} like {third_person_en(y, name)}"
        elif kind == "finds":
            text = f"{name} finds {third_person_en(_GENERIC_YOU.sub(_one, what), name)}"
        elif kind == "matters":
            adj, x = what.split("\0")
            shown = third_person_en(x, name).replace(f"{name}'s", "their")
            text = f"It is {adj} to {name} {shown}"
        elif kind == "did":
            text = f"{name} {third_person_en(what, name)}"
        elif kind == "believes":  # a general truth: "we" and "us" are people at large
            shown = _GENERIC_WE.sub(lambda m: _PEOPLE[m.group().lower()], what)
            shown = _GENERIC_YOU.sub(_one, shown)
            text = f"{name} believes that {_lower_first(shown)}"
        else:
            shown = third_person_en(what, name)
            if kind == "values":
                shown = _lower_first(re.sub(rf"^{re.escape(name)}'s\b", "their", shown))
            text = {
                "values": f"{name} values {shown}",
                "says": shown if name in shown else f"For {name}, {_lower_first(shown)}",
                "needs": f"{name} needs {shown}",
                "about_to": f"{name} is about to {shown}",
                "heading": f"{name} is heading to {shown}",
            }[kind]
        if _REFERS_BACK.search(re.sub(r"^it\s+(?:is\s+)?", "", what.replace("\0", " "))):
            continue  # "it was amazing to see one of them": who?
        if kind == "did" and len(_CONTENT.findall(what)) < 3:
            continue  # "made a piece"
        head = what.split()[0].strip("'s,") if what.split() else ""
        if kind in ("values", "believes") and head in (name, ctx.listener, *ctx.people):
            continue  # "Caroline is everything to me" is about a person, not a value
        if _YOU.search(text) or not ctx.first("stance", f"{kind}:{what}"):
            continue  # "you" in a memory names no one
        text = _again(text, name)
        out.append(
            ctx.candidate(
                "note",
                finish_en(text),
                "en",
                confidence=0.6,
                importance=0.5,
                attrs={"stance": kind},
            )
        )
    return out


_GENERIC_WE = re.compile(r"\b(?:we|us|our|ours|ourselves)\b", re.IGNORECASE)
_PEOPLE = {
    "we": "people",
    "us": "people",
    "our": "their",
    "ours": "theirs",
    "ourselves": "themselves",
}
_REFERS_BACK = re.compile(
    r"\b(?:he|she|him|his|her|hers|they|them|their|theirs|it|its)\b"
    r"|\b(?:this|that|these|those)\s*$",
    re.IGNORECASE,
)
_GENERIC_YOU = re.compile(r"\b(?:yourself|your\s+own)\b", re.IGNORECASE)


def _one(m: re.Match[str]) -> str:
    return "oneself" if m.group().lower() == "yourself" else "one's own"


_I_WAS = re.compile(r"^I\s+(was|am|'m)\s+")


def _again(text: str, name: str) -> str:
    """After the first mention, "Caroline's own platform" is "their own platform"."""
    first = text.find(name)
    if first < 0:
        return text
    cut = first + len(name)
    return text[:cut] + text[cut:].replace(f"{name}'s", "their")


def _lower_first(text: str) -> str:
    first = text.split(" ", 1)[0]
    if (first.isupper() and len(first) > 1) or first == "I":  # an acronym
        return text
    return text[:1].lower() + text[1:]
