"""English patterns: preferences, decisions, switches, constraints, people, projects, learnings.

Each ``_family`` function reads one :class:`Sentence` and appends candidates. A cheap keyword gate
runs first so that most sentences (small talk) cost one regex search. Dated and undated life
events live in ``_events``.
"""

from __future__ import annotations

import re
from typing import Any

from ..numbers import parse_number
from ..types import Candidate, EntityRef
from ._catalog import find_tool, lookup
from ._choice import FOR_PURPOSE
from ._common import NodeContext, Sentence, date_attrs, gate, object_ref, tool_ref
from ._grammar import ADVERBS, clean_phrase, finish_en, third_person_en
from ._purpose import purpose_slot

__all__ = ["extract_en"]

# Running text up to a sentence end; a dot inside a word ("Next.js", "2.0") is kept.
_TXT = r"(?:[^.;!?]|\.(?=\w))"
_ADV = rf"(?:(?:{ADVERBS}|do|kind\s+of|sort\s+of|much|especially|generally)\s+)*"
# Where a captured object stops: a clause break or a word that starts a new thought.
_BREAK = re.compile(
    r"\s*(?:[,;:!?()]|\.(?:\s|$)|\s[-–—]\s|(?<=\w)[-–—](?=\s)"
    r"|\s+(?:because|but|since|so|though|although|when|while|which|who|where"
    r"|and\s+(?:I|we|it|that|they|he|she|you)|as\s+it|cause|'cause|cuz"
    r"|if|for\s+(?:sure|real)|any\s*more|right\s+now|these\s+days|lately|haha|lol|tbh|imo"
    r"|though|especially|like\s+you|than\s+(?:I|you)|and\s+(?:things|stuff|it's|that's|now))\b)",
    re.IGNORECASE,
)
_PRONOUN_OBJ = re.compile(
    r"^(?:it|that|this|them|you|your|him|her|those|these|how|what|when|where|why|who|the\s+idea"
    r"|the\s+way|hearing|to\s+hear|everything|all\s+of\s+(?:it|this|that|them)|so\s+much|one"
    r"|u|ya|ur|yours|seeing\s+(?:you|that|this|it)|each\s+other|em|'em|ones?)\b",
    re.IGNORECASE,
)
_VERB_OBJ = re.compile(
    r"^(?:is|was|are|were|has|had|will|would|can|could|and|or|but|so"
    r"|too|as|about|most|more|best)\b",
    re.IGNORECASE,
)
_CLAUSE_OK = frozenset(
    "and but so then when because since as that oh well yeah yes also just why"
    " really honestly personally totally absolutely still always plus though"
    " anyway btw haha lol wow hey".split()
)
_LAST_WORD = re.compile(r"(\w+)\W*$")


_FRONTED_PP = re.compile(
    r"(?i)^(?:(?:btw|ok|so|also|and|oh)[,\s]+)*(?:for|in|on|with|at)\s+(?:the\s+|our\s+|my\s+)?"
    r"[\w-]+(?:\s+[\w-]+)?$"
)


def _clause_start(text: str, start: int) -> bool:
    """Whether a subject at ``start`` begins a clause (not "something I love")."""
    before = text[max(0, start - 40) : start].rstrip()
    if not before or before[-1] in ",;:!.-–—(\"'“":
        return True
    if _FRONTED_PP.match(text[:start].rstrip()):
        return True  # "for the UI I prefer HTMX partials": a fronted phrase, then the clause
    m = _LAST_WORD.search(before)
    return m is None or m.group(1).lower() in _CLAUSE_OK


_ARTICLE = re.compile(r"^(?:the|a|an|some|my|our)\s+", re.IGNORECASE)
_TRAIL_PREP = re.compile(
    r"(?:\s+(?:for|to|of|with|at|in|on|a|an|the|and|or|my|our))+$", re.IGNORECASE
)


_DANGLING = frozenset(
    (
        "with",
        "and",
        "or",
        "but",
        "for",
        "of",
        "the",
        "a",
        "an",
        "to",
        "in",
        "on",
        "at",
        "by",
        "from",
        "as",
        "my",
        "our",
        "their",
        "his",
        "her",
    )
)


def _cut(text: str, s: Sentence, max_words: int = 8) -> str:
    """The object phrase of a match: up to the first clause break, time phrases removed."""
    m = _BREAK.search(text)
    if m:
        text = text[: m.start()]
    for t in s.times:
        text = text.replace(t.text, " ")
    words = clean_phrase(text).split()
    if len(words) > max_words:  # cut short: never end on "with", "and", "the", ...
        words = words[:max_words]
        while len(words) > 1 and words[-1].lower() in _DANGLING:
            words.pop()
    for t in s.times:  # a capture cut short inside a time phrase: "a group last" (Tuesday)
        head = t.text.split()[:-1]
        while head and words[-len(head) :] == head:
            words = words[: -len(head)]
        if len(head) > 1 and words and words[-1] == head[0]:
            words = words[:-1]
    return " ".join(words).rstrip(" ,.")


def _tool_names(text: str) -> list[str]:
    """Tool-like names in a list ("React and PostgreSQL, plus Redis")."""
    out: list[str] = []
    for part in re.split(r"\s*(?:,|\band\b|&|/|\bplus\b|\bwith\b)\s*", text):
        part = re.split(r"\s+(?:for|to|on|in|at|as|because|since|over|instead)\b", part)[0]
        part = _ARTICLE.sub("", clean_phrase(part))
        if not part or len(part.split()) > 3:
            continue
        if lookup(part) or re.match(r"^[A-Z0-9][\w.+#-]*(?:\s+[A-Z0-9][\w.+#-]*)*$", part):
            out.append(part)
    return out


# ----------------------------------------------------------------------------- preferences

_PREF_GATE = gate(
    "prefer prefers like love enjoy adore hate dislike detest loathe stand fan into favorite"
    " favourite fave fav pick"
)
_PREF_RE = re.compile(
    rf"\b(?:I|i|we|We)\s+{_ADV}(?P<neg>don't|do\s+not|didn't|never|can't|cannot|can\s+not)?\s*"
    rf"{_ADV}(?P<verb>prefer|like|love|enjoy|adore|hate|dislike|detest|loathe|stand"
    r"|(?:am|'m)\s+(?:really\s+|totally\s+|so\s+|big\s+)?into"
    r"|(?:am|'m)\s+(?:not\s+)?(?:a\s+)?(?:big\s+|huge\s+|massive\s+)?fan\s+of)\s+"
    rf"(?P<obj>(?:(?!,?\s+(?:and|but)\s+(?:I|i|we|We)\b){_TXT}){{1,120}})",
)
_FAV_RE = re.compile(
    r"\b(?:my|My|our|Our)\s+(?:all[-\s]time\s+|absolute\s+|personal\s+)?(?:favou?rite|fave|fav"
    r"|top\s+pick)\s+(?P<cat>[\w'-]+(?:\s+[\w'-]+){0,2}?)\s+(?:is|are|was|has\s+to\s+be"
    rf"|would\s+have\s+to\s+be)\s+(?:definitely\s+|probably\s+|still\s+)?(?P<obj>{_TXT}{{1,80}})"
)
_FAV_AFTER_RE = re.compile(
    r"\b(?:is|are)\s+(?:definitely\s+|probably\s+|still\s+|totally\s+)?(?:my|our)\s+"
    r"(?:all[-\s]time\s+|absolute\s+)?(?:favou?rite|fave|fav|top\s+pick|go-to)\b"
    r"(?:\s+(?P<cat>(?!is\b|and\b|but\b)[a-z'-]+))?",
    re.IGNORECASE,
)
_FAV_WORDS = gate("favorite favourite fave fav pick go")
_SEGMENT_END = re.compile(r"[,;:!?()–—]|\s-\s|\.\s")
_FAV_SKIP = re.compile(
    r"^(?:it|that|this|he|she|they|which|what|who|there|here|one|these"
    r"|those|you)$",
    re.IGNORECASE,
)
_DISLIKE = {"hate", "dislike", "detest", "loathe"}


def _preferences(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    if not s.has(_PREF_GATE):
        return
    name = ctx.speaker
    for m in _PREF_RE.finditer(s.text):
        if not _clause_start(s.text, m.start()):
            continue  # "everyone we love", "something I love": a relative clause
        verb = " ".join(m.group("verb").lower().split())
        neg = m.group("neg")
        if verb == "stand" and not neg:
            continue
        obj_raw = m.group("obj")
        prefer_over = None
        if verb == "prefer":
            parts = re.split(r"\s+(?:over|to|rather\s+than|instead\s+of)\s+", obj_raw, maxsplit=1)
            if len(parts) == 2:
                obj_raw, prefer_over = parts[0], _cut(parts[1], s)
        shown_obj = _cut(obj_raw, s, 12)
        obj = re.sub(r"^to\s+(?:just\s+)?", "", shown_obj)  # "I like to paint": the activity
        if not obj or obj.lower() == "to" or _PRONOUN_OBJ.match(obj) or _VERB_OBJ.match(obj):
            continue
        if len(obj) < 2:
            continue
        negative = verb in _DISLIKE or verb == "stand" or "not" in verb or bool(neg)
        if neg and verb in _DISLIKE:
            continue  # "I don't hate it": no usable preference
        relation = "dislikes" if negative else "prefers"
        if not ctx.first("pref", f"{relation}:{obj}"):
            continue
        if verb == "stand":
            said = "can't stand"
        elif neg:
            said = "doesn't " + verb
        elif verb.startswith(("am", "'m")):
            said = "is " + re.sub(r"^(?:am|'m)\s+", "", verb)
        else:
            said = {
                "prefer": "prefers",
                "like": "likes",
                "love": "loves",
                "enjoy": "enjoys",
                "adore": "adores",
                "hate": "hates",
                "dislike": "dislikes",
                "detest": "detests",
                "loathe": "loathes",
            }[verb]
        shown = third_person_en(shown_obj, name).replace(f"{name}'s", "their")
        text = f"{name} {said} {shown}"
        attrs: dict[str, Any] = {"verb": verb}
        if prefer_over:
            text += f" over {third_person_en(prefer_over, name)}"
            attrs["over"] = prefer_over
        strong = verb in ("prefer", "love", "hate", "adore", "stand") or "fan" in verb
        out.append(
            ctx.candidate(
                "preference",
                finish_en(text),
                "en",
                relation=relation,
                object=object_ref(obj),
                confidence=0.8 if strong else 0.7,
                importance=0.75,
                attrs=attrs,
            )
        )
    _favorites(s, ctx, out)


def _favorites(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    """ "My favorite X is Y", "Y is my go-to"."""
    if not s.has(_FAV_WORDS):
        return
    name = ctx.speaker
    for rx in (_FAV_RE, _FAV_AFTER_RE):
        for m in rx.finditer(s.text):
            if rx is _FAV_RE:
                obj = _cut(m.group("obj"), s)
            else:  # "contemporary is my top pick": the last words before "is"
                words = _SEGMENT_END.split(s.text[: m.start()])[-1].split()[-4:]
                obj = re.sub(
                    r"^(?:and|but|so|also|though|plus|oh|well|yeah)\s+",
                    "",
                    clean_phrase(" ".join(words)),
                    flags=re.IGNORECASE,
                )
            cat = clean_phrase(m.group("cat") or "")
            if not obj or _FAV_SKIP.match(obj) or _PRONOUN_OBJ.match(obj):
                continue
            if not ctx.first("pref", f"prefers:{obj}"):
                continue
            label = f"favorite {cat}" if cat else "favorite"
            text = f"{name}'s {label} is {third_person_en(obj, name)}"
            out.append(
                ctx.candidate(
                    "preference",
                    finish_en(text),
                    "en",
                    relation="prefers",
                    object=object_ref(obj),
                    confidence=0.85,
                    importance=0.75,
                    attrs={"verb": "favorite", **({"category": cat} if cat else {})},
                )
            )


# ----------------------------------------------------------------------------- decisions

_DEC_GATE = gate(
    "decided agreed chose opted settled let ll will should shall going instead rather use go"
)
_USE_VERBS = (
    r"use|go\s+with|stick\s+with|pick|choose|adopt|switch\s+to|move\s+to"
    r"|migrate\s+to|build\s+(?:it\s+)?(?:with|on|in)|write\s+it\s+in"
)
_DECIDE_RE = re.compile(
    r"\b(?:I|we|We|the\s+team|[Tt]he\s+team)\s+(?:have\s+|'ve\s+|had\s+)?(?:finally\s+|just\s+"
    r"|already\s+|collectively\s+)?(?P<verb>decided|agreed|chose|opted|settled)\s+"
    rf"(?P<to>(?:to|on|for)\s+)?(?:(?P<use>{_USE_VERBS})\s+)?(?P<x>{_TXT}{{1,120}})"
)
_WILL_USE_RE = re.compile(
    r"(?:\b(?:[Ll]et's|[Ll]et\s+us|(?:I|we|We)(?:'ll|\s+will|\s+should|\s+shall)"
    r"|(?:I|we|We)(?:'re|'m|\s+are|\s+am)\s+going\s+to)|^(?:please\s+)?(?=[Uu]se\b))\s*"
    rf"(?:just\s+|definitely\s+|probably\s+)?(?P<use>(?i:{_USE_VERBS}))\s+(?P<x>{_TXT}{{1,120}})"
)
_REJECT_SPLIT = re.compile(
    r"\s*,?\s+(?:not|instead\s+of|rather\s+than|over)\s+|\s*,\s*not\s+", re.IGNORECASE
)


def _decision_text(name: str, obj: str, rejected: str | None) -> str:
    text = f"{name} decided to use {obj}"
    return text + (f", not {rejected}" if rejected else "")


def _decisions(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    if not s.has(_DEC_GATE):
        return
    name = ctx.speaker
    for rx in (_DECIDE_RE, _WILL_USE_RE):
        for m in rx.finditer(s.text):
            raw = m.group("x")
            use = m.group("use")
            parts = _REJECT_SPLIT.split(raw, maxsplit=1)
            x = _cut(parts[0], s)
            rejected = _cut(parts[1], s, 4) if len(parts) == 2 else None
            if not x or _PRONOUN_OBJ.match(x):
                continue
            names = _tool_names(x) if use else []
            if use and not names and rx is _WILL_USE_RE:
                continue  # "let's use our imagination": not a tool decision
            attrs: dict[str, Any] = {}
            if s.times:
                attrs.update(date_attrs(s.times[0]))
            when = ctx.epoch(s.times[0].day) if s.times else ctx.event_time
            if names:
                obj, slot = tool_ref(names[0])
                rej_ref = (
                    tool_ref(_tool_names(rejected)[0])[0]
                    if rejected and _tool_names(rejected)
                    else (EntityRef(rejected, "tool") if rejected else None)
                )
                if not ctx.first("decision", obj.name):
                    continue
                out.append(
                    ctx.candidate(
                        "decision",
                        finish_en(_decision_text(name, obj.name, rejected)),
                        "en",
                        relation="uses",
                        object=obj,
                        slot=slot,
                        replaces=rej_ref,
                        kind="decision",
                        event_time=when,
                        valid_from=when,
                        confidence=0.85 if rx is _DECIDE_RE else 0.8,
                        importance=0.85,
                        attrs=attrs,
                    )
                )
            else:
                verb = m.group("verb") if rx is _DECIDE_RE else ""
                to = (m.group("to") or "").strip() if rx is _DECIDE_RE else ""
                if not verb or (to != "to" and verb != "settled"):
                    continue  # "I chose furniture": a purchase, not a decision worth keeping
                if not to and re.search(
                    r"(?i)\b(?:what|which|whatever)\s+\S+\s*$", s.text[: m.start("verb")]
                ):
                    continue  # "I always forget what we settled on": a question, no decision
                if not ctx.first("decision", x):
                    continue
                action = third_person_en(x, name)
                verb = "settled on" if verb == "settled" else f"{verb} to"
                out.append(
                    ctx.candidate(
                        "decision",
                        finish_en(f"{name} {verb} {action}"),
                        "en",
                        relation="decided",
                        object=EntityRef(x, "decision"),
                        kind="decision",
                        event_time=when,
                        confidence=0.75,
                        importance=0.8,
                        attrs=attrs,
                    )
                )


# ----------------------------------------------------------------------------- switches

_SWITCH_GATE = gate(
    "switched moved migrated changed transitioned converted swapped went longer stopped anymore"
    " now currently until till quit gave"
)
_SW_VERB = r"switched|moved|migrated|changed|transitioned|converted|swapped|went"
_SWITCH_FROM_RE = re.compile(
    rf"\b(?:I|we|We)\s+(?:'ve\s+|have\s+|had\s+)?{_ADV}(?P<verb>{_SW_VERB})\s+(?:over\s+|back\s+)?"
    rf"from\s+(?P<x>{_TXT}{{1,60}}?)\s+(?:to|for)\s+(?P<y>{_TXT}{{1,80}})"
)
_SWITCH_TO_RE = re.compile(
    rf"\b(?:I|we|We)\s+(?:'ve\s+|have\s+|had\s+)?{_ADV}(?P<verb>{_SW_VERB})\s+(?:over\s+|back\s+)?"
    rf"to\s+(?P<y>{_TXT}{{1,60}}?)(?:\s+from\s+(?P<x>{_TXT}{{1,60}}))?(?=[.;!?,]|\s+(?:since"
    r"|starting|last|this|from|as\s+of|because|and|but|for|in)\b|$)"
)
_NO_LONGER_RE = re.compile(
    rf"\b(?:I|we|We)\s+{_ADV}(?:no\s+longer\s+use|don't\s+use|do\s+not\s+use|stopped\s+using"
    rf"|quit\s+using|gave\s+up(?:\s+on)?)\s+(?P<x>{_TXT}{{1,60}})"
)
_NOW_USE_RE = re.compile(
    rf"\b(?:I|we|We)(?:'re|'m|\s+are|\s+am)?\s+(?:now|currently)\s+(?:use|using)\s+"
    rf"(?P<y>{_TXT}{{1,60}})|\b(?:I|we|We)\s+use\s+(?P<y2>{_TXT}{{1,40}}?)\s+now\b"
)
_USED_UNTIL_RE = re.compile(
    rf"\b(?:I|we|We)\s+(?:had\s+)?(?:used|was\s+using|were\s+using)\s+(?P<x>{_TXT}{{1,60}}?)\s+"
    r"(?:until|till|up\s+until|up\s+to)\s+"
)
_SINCE_BEFORE = re.compile(
    r"(?:since|starting|from|as\s+of|beginning|effective)\s*$", re.IGNORECASE
)
_UNTIL_BEFORE = re.compile(r"(?:until|till|up\s+to)\s*$", re.IGNORECASE)


def _switch_time(s: Sentence, ctx: NodeContext) -> tuple[float, dict[str, Any]]:
    """When a switch took effect: a time phrase in the sentence, else the node's time."""
    for t in s.times:
        if not _UNTIL_BEFORE.search(s.text[: t.start]):
            return ctx.epoch(t.day), date_attrs(t)
    return ctx.event_time, {}


def _toolish(phrase: str) -> str | None:
    names = _tool_names(phrase)
    return names[0] if names else None


def _switches(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    if not s.has(_SWITCH_GATE):
        return
    name = ctx.speaker
    for rx in (_SWITCH_FROM_RE, _SWITCH_TO_RE):
        for m in rx.finditer(s.text):
            y = _toolish(_cut(m.group("y"), s, 4))
            x = _toolish(_cut(m.group("x"), s, 4)) if m.group("x") else None
            known = (y and find_tool(y)) or (x and find_tool(x))
            if not y or (m.group("verb") in ("moved", "went", "changed") and not known):
                continue  # "moved to Seattle" is a life event, not a tool switch
            obj, slot = tool_ref(y)
            rep = tool_ref(x)[0] if x else None
            if slot == "tool" and rep is not None:
                slot = tool_ref(x)[1] if x else slot
            if not ctx.first("uses", obj.name):
                continue
            when, attrs = _switch_time(s, ctx)
            label = f" (since {attrs['date']})" if attrs else ""
            text = (
                f"{name} switched from {rep.name} to {obj.name}"
                if rep
                else f"{name} switched to {obj.name}"
            ) + label
            out.append(
                ctx.candidate(
                    "tool",
                    finish_en(text),
                    "en",
                    relation="uses",
                    object=obj,
                    slot=slot,
                    replaces=rep,
                    kind="decision",
                    event_time=when,
                    valid_from=when,
                    confidence=0.85,
                    importance=0.8,
                    attrs=attrs,
                )
            )
    _endings(s, ctx, out)


def _endings(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    """ "we no longer use X", "we now use Y", "we used X until March"."""
    name = ctx.speaker
    for m in _NO_LONGER_RE.finditer(s.text):
        plain_not = "don't" in m.group() or "do not" in m.group()
        if plain_not and not re.search(r"\bany\s*more\b|\bno\s+more\b", s.text, re.IGNORECASE):
            continue  # "we don't use X" is a plain fact, not an ending
        x = _toolish(_cut(m.group("x"), s, 4))
        if not x:
            continue
        obj, slot = tool_ref(x)
        if not ctx.first("ended", obj.name):
            continue
        when, attrs = _switch_time(s, ctx)
        out.append(
            ctx.candidate(
                "tool",
                finish_en(f"{name} no longer uses {obj.name}"),
                "en",
                relation="uses",
                object=obj,
                slot=slot,
                valid_until=when,
                event_time=when,
                confidence=0.8,
                importance=0.75,
                attrs={**attrs, "ended": True},
            )
        )
    _now_uses(s, ctx, out)
    for m in _USED_UNTIL_RE.finditer(s.text):
        x = _toolish(m.group("x"))
        until = next((t for t in s.times if t.start >= m.end() - 1), None)
        if not x or until is None:
            continue
        obj, slot = tool_ref(x)
        if not ctx.first("ended", obj.name):
            continue
        out.append(
            ctx.candidate(
                "tool",
                finish_en(f"{name} used {obj.name} until {until.label()}"),
                "en",
                relation="uses",
                object=obj,
                slot=slot,
                valid_until=ctx.epoch(until.day),
                event_time=ctx.epoch(until.day),
                confidence=0.8,
                importance=0.75,
                attrs={**date_attrs(until), "ended": True},
            )
        )


def _now_uses(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    """ "we now use Y", "we are currently using Y for Z"."""
    name = ctx.speaker
    for m in _NOW_USE_RE.finditer(s.text):
        y = _toolish(_cut(m.group("y") or m.group("y2"), s, 4))
        if not y:
            continue
        obj, slot = tool_ref(y)
        if not ctx.first("uses", obj.name):
            continue
        when, attrs = _switch_time(s, ctx)
        # "we are currently using MLflow for experiment tracking": the team's, for that
        team = m.group().lower().startswith("we")
        fm = FOR_PURPOSE.match(s.text, m.start("y") + len(y)) if m.group("y") else None
        purpose = fm.group("purpose") if fm else None
        if purpose and slot == "tool":
            slot = purpose_slot(purpose)
        said = f"{'The team' if team else name} now uses {obj.name}"
        out.append(
            ctx.candidate(
                "tool",
                finish_en(said + (f" for {purpose}" if purpose else "")),
                "en",
                relation="uses",
                object=obj,
                slot=slot,
                valid_from=when,
                confidence=0.8,
                importance=0.75,
                attrs=attrs,
                collective=team,
            )
        )


# ----------------------------------------------------------------------------- constraints

_CONS_GATE = gate("budget team us deadline due by before later")
_AMOUNT = (
    r"(?P<cur1>[$€£¥])?\s*(?P<amt>\d[\d,]*(?:\.\d+)?)\s*(?P<mult>k|m|mm|bn|thousand"
    r"|million|billion|grand)?\b\s*(?P<cur2>usd|eur|gbp|dollars|euros|pounds|bucks|rmb"
    r"|yuan|cny|jpy|yen)?"
)
_BUDGET_RE = re.compile(
    rf"\bbudget\b[^.;!?\d$€£¥]{{0,30}}?{_AMOUNT}|{_AMOUNT.replace('(?P<', '(?P<r_')}\s+budget\b",
    re.IGNORECASE,
)
_MULT = {
    "k": 1e3,
    "thousand": 1e3,
    "grand": 1e3,
    "m": 1e6,
    "mm": 1e6,
    "million": 1e6,
    "bn": 1e9,
    "billion": 1e9,
}
_CURRENCY = {
    "$": "USD",
    "€": "EUR",
    "£": "GBP",
    "¥": "CNY",
    "usd": "USD",
    "dollars": "USD",
    "bucks": "USD",
    "eur": "EUR",
    "euros": "EUR",
    "gbp": "GBP",
    "pounds": "GBP",
    "rmb": "CNY",
    "yuan": "CNY",
    "cny": "CNY",
    "jpy": "JPY",
    "yen": "JPY",
}
_N = (
    r"\d{1,4}|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty"
    r"|thirty|fifty|hundred"
)
_TEAM_RE = re.compile(
    rf"\b(?:team\s+of\s+|team\s+(?:is|has)\s+(?:only\s+|just\s+)?)(?P<n>{_N})\b"
    rf"|\b(?P<n2>{_N})[-\s](?:person|people|man|member|dev|developer|engineer)\s+team\b"
    rf"|\bthere\s+are\s+(?:only\s+|just\s+)?(?P<n3>{_N})\s+of\s+us\b",
    re.IGNORECASE,
)
_DEADLINE_KW = re.compile(r"\b(?:deadline|due(?:\s+date)?)\b", re.IGNORECASE)
_BY_BEFORE = re.compile(
    r"\b(?:by|before|no\s+later\s+than)\s+(?:the\s+end\s+of\s+)?$", re.IGNORECASE
)
_MUST = re.compile(
    r"\b(?:must|need\s+to|needs\s+to|have\s+to|has\s+to|got\s+to|gotta|should"
    r"|ship|deliver|submit|finish|launch|release|complete)\b",
    re.IGNORECASE,
)


def _constraint(
    ctx: NodeContext, s: Sentence, text: str, name: str, slot: str, attrs: dict[str, Any], **kw: Any
) -> Candidate:
    return ctx.candidate(
        "constraint",
        finish_en(text),
        "en",
        relation="has_constraint",
        object=EntityRef(name, "constraint", attrs=dict(attrs)),
        slot=slot,
        confidence=kw.pop("confidence", 0.85),
        importance=0.85,
        attrs=attrs,
        **kw,
    )


def _constraints(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    if not s.has(_CONS_GATE):
        return
    name = ctx.speaker
    for m in _BUDGET_RE.finditer(s.text):
        p = "" if m.group("amt") else "r_"
        amount = float(m.group(p + "amt").replace(",", ""))
        mult = (m.group(p + "mult") or "").lower()
        cur = m.group(p + "cur1") or (m.group(p + "cur2") or "").lower()
        if not cur and not mult and amount < 100:
            continue
        amount *= _MULT.get(mult, 1)
        raw = " ".join(m.group().split())
        shown = re.sub(r"^budget\b[^$€£¥\d]*|\s+budget$", "", raw, flags=re.IGNORECASE).strip()
        if not ctx.first("constraint", "budget"):
            continue
        attrs: dict[str, Any] = {"amount": amount, "text": shown}
        if cur:
            attrs["currency"] = _CURRENCY.get(cur, cur.upper())
        out.append(
            _constraint(
                ctx, s, f"{name} has a budget of {shown}", f"budget {shown}", "budget", attrs
            )
        )
    for m in _TEAM_RE.finditer(s.text):
        raw_n = (m.group("n") or m.group("n2") or m.group("n3")).lower()
        size = parse_number(raw_n)
        if not size or not ctx.first("constraint", "team"):
            continue
        out.append(
            _constraint(
                ctx,
                s,
                f"{name}'s team has {size} people",
                f"team of {size}",
                "team_size",
                {"size": size},
            )
        )
    kw = _DEADLINE_KW.search(s.text)
    for t in s.times:
        before = s.text[: t.start]
        if (kw and kw.start() < t.start) or (_BY_BEFORE.search(before) and _MUST.search(s.text)):
            if not ctx.first("constraint", "deadline"):
                break
            clause = third_person_en(s.text, name)
            attrs = {**date_attrs(t), "deadline": t.iso}
            out.append(
                _constraint(
                    ctx,
                    s,
                    f"{clean_phrase(clause)} ({t.iso})",
                    f"deadline {t.iso}",
                    "deadline",
                    attrs,
                    valid_until=ctx.epoch(t.day),
                    confidence=0.8,
                )
            )
            break


# ----------------------------------------------------------------------------- people, orgs

_ROLES = (
    r"business\s+partner|partner|co-?founder|boss|manager|sister|brother|wife|husband"
    r"|mom|mother|mum|dad|father|son|daughter|best\s+friend|friend|buddy|girlfriend"
    r"|boyfriend|fianc[eé]e?|colleague|co-?worker|teammate|cousin|aunt|uncle|niece|nephew"
    r"|grandma|grandmother|grandpa|grandfather|mentor|roommate|neighbou?r|therapist"
    r"|coach|teacher|kid|child|baby|dog|cat|puppy|kitten|pet"
)
_NAME = r"[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?"
_PEOPLE_GATE = gate(
    "partner cofounder co founder boss manager sister brother wife husband mom mother mum dad"
    " father son daughter friend buddy girlfriend boyfriend fiance fiancee fianc"
    " colleague coworker worker teammate cousin aunt uncle niece nephew grandma grandmother"
    " grandpa grandfather mentor roommate neighbor neighbour therapist coach teacher kid child"
    " baby dog cat puppy kitten pet work worked working intern interned job joined signed member"
)
_MY_ROLE_NAME = re.compile(
    rf"\b[Mm]y\s+(?:(?:older|younger|little|big|new|old|best|dear"
    rf"|eldest|oldest|youngest)\s+)?(?P<role>(?i:{_ROLES}))s?"
    rf"(?:\s*,\s*|\s+)(?:named\s+|called\s+)?(?P<name>{_NAME})\b"
)
_NAME_IS_ROLE = re.compile(
    rf"\b(?P<name>{_NAME})\s*(?:,|\s+is)\s+my\s+(?:(?:older|younger"
    rf"|little|big|new|old|best)\s+)?(?P<role>(?i:{_ROLES}))\b"
)
_NOT_NAMES = frozenset(
    "I And But The So We He She It They You Oh Yeah Also This That My Our"
    " Hey Hi Thanks Thank Wow Just When What How Why Who Where Today Last"
    " Next Yes No Well Anyway Plus Mr Mrs Ms Dr Is Was Has Had Who"
    # "moving to Dundee in August, my partner got a job there": a month, not the partner
    " January February March April June July August September October November December"
    " Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
)
_PETS = {"dog", "cat", "puppy", "kitten", "pet"}
_ORG = r"(?P<org>(?:the\s+)?[A-Z][\w&'.-]*(?:\s+(?:[A-Z][\w&'.-]*|of|and|&|for|de))*)"
_WORK_RE = re.compile(
    rf"\b(?:I|i)\s+(?:currently\s+|now\s+|still\s+)?(?P<verb>work|worked|am\s+working"
    rf"|'m\s+working|was\s+working|intern|interned)\s+(?:at|for|with)\s+{_ORG}"
    rf"|\b(?:I|i)(?:'m|\s+am)\s+(?:a|an)\s+(?P<title>[a-z][\w\s-]{{1,30}}?)\s+(?:at|for)\s+"
    rf"{_ORG.replace('org>', 'org2>')}"
    rf"|\bmy\s+(?:new\s+|old\s+)?job\s+(?:at|with)\s+{_ORG.replace('org>', 'org3>')}"
)
_JOIN_RE = re.compile(
    rf"\b(?:I|i|we|We)\s+(?:'ve\s+|have\s+)?(?:just\s+|recently\s+|finally\s+|also\s+)?"
    rf"(?:joined|became\s+a\s+member\s+of)\s+(?:{_ORG}"
    r"|(?P<low>(?:a|an|the|my)\s+[a-z][\w-]*(?:\s+[\w+-]+){0,4}))"
)
_ENDED_JOB = re.compile(
    r"\b(?:lost|quit|left|resigned\s+from|was\s+fired\s+from|got\s+laid\s+off"
    r"\s+from)\s+(?:my\s+)?(?:job|position|role)?",
    re.IGNORECASE,
)


def _people(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    if not s.has(_PEOPLE_GATE):
        return
    name = ctx.speaker
    for rx in (_MY_ROLE_NAME, _NAME_IS_ROLE):
        for m in rx.finditer(s.text):
            person, role = m.group("name"), " ".join(m.group("role").lower().split())
            first = person.split()[0]
            if first in _NOT_NAMES or (first.endswith("ly") and len(first) > 6):
                continue
            if not ctx.first("person", person):
                continue
            etype = "animal" if role in _PETS else "person"
            out.append(
                ctx.candidate(
                    "entity",
                    finish_en(f"{person} is {name}'s {role}"),
                    "en",
                    relation="has_relation",
                    object=EntityRef(person, etype, attrs={"role": role}),
                    confidence=0.85,
                    importance=0.65,
                    attrs={"role": role},
                )
            )
    _jobs(s, ctx, out)


def _jobs(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    """Where the speaker works or worked, and what they joined."""
    name = ctx.speaker
    for m in _WORK_RE.finditer(s.text):
        org = m.group("org") or m.group("org2") or m.group("org3")
        org = re.sub(r"^the\s+", "", org.strip(" .'"))
        if not org or org.split()[0] in _NOT_NAMES or not ctx.first("org", org):
            continue
        attrs: dict[str, Any] = {}
        if m.group("title"):
            attrs["role"] = clean_phrase(m.group("title"))
        ended = bool(m.group("org3") and _ENDED_JOB.search(s.text[: m.start() + 3]))
        past = (m.group("verb") or "").startswith(("worked", "was", "interned"))
        if ended:
            t = s.times[0] if s.times else None
            until = ctx.epoch(t.day) if t else ctx.event_time
            text = f"{name} lost their job at {org}"
            out.append(
                ctx.candidate(
                    "entity",
                    finish_en(text),
                    "en",
                    relation="works_at",
                    object=EntityRef(org, "organization"),
                    valid_until=until,
                    confidence=0.75,
                    importance=0.7,
                    attrs={**attrs, "ended": True, **(date_attrs(t) if t else {})},
                )
            )
            continue
        role = f" as {attrs['role']}" if "role" in attrs else ""
        text = f"{name} {'worked' if past else 'works'} at {org}{role}"
        out.append(
            ctx.candidate(
                "entity",
                finish_en(text),
                "en",
                relation="works_at",
                object=EntityRef(org, "organization"),
                confidence=0.8 if not past else 0.65,
                importance=0.7,
                attrs={**attrs, **({"past": True} if past else {})},
            )
        )
    for m in _JOIN_RE.finditer(s.text):
        said = clean_phrase(m.group("org") or _cut(m.group("low") or "", s, 6)).strip(" .'")
        said = _TRAIL_PREP.sub("", said)
        org = _ARTICLE.sub("", said)
        if not org or org.split()[0] in _NOT_NAMES or not ctx.first("org", org):
            continue
        said = third_person_en(said, name).replace(f"{name}'s", "their")
        t = s.times[0] if s.times else None
        when = ctx.epoch(t.day) if t else ctx.event_time
        out.append(
            ctx.candidate(
                "entity",
                finish_en(f"{name} joined {said}"),
                "en",
                relation="member_of",
                object=EntityRef(org, "organization"),
                valid_from=when,
                confidence=0.8 if m.group("org") else 0.6,
                importance=0.6,
                attrs=date_attrs(t) if t else {},
            )
        )


# ----------------------------------------------------------------------------- projects, tools

_PROJ_GATE = gate("working project use using rely built run deploy")
_WORKING_ON_RE = re.compile(
    r"\b(?:I|i|we|We)(?:'m|'re|\s+am|\s+are)\s+(?:currently\s+|still\s+|now\s+|also\s+|busy\s+)?"
    rf"working\s+on\s+(?P<p>{_TXT}{{2,80}})"
)
_PROJECT_NAME_RE = re.compile(
    r"\b(?:[Oo]ur|[Mm]y)\s+project\s+(?:is\s+)?(?:called\s+|named\s+)?(?P<p>[A-Z][\w.-]+"
    r"(?:\s+[A-Z][\w.-]+)?)|\b(?:[Oo]ur|[Mm]y)\s+(?P<p2>[A-Z][\w.-]+(?:\s+[A-Z][\w.-]+)?)\s+"
    r"project\b|\bproject\s+(?:called|named)\s+(?P<p3>[A-Z][\w.-]+(?:\s+[A-Z][\w.-]+)?)"
)
_WE_USE_RE = re.compile(
    rf"\b(?:I|we|We)\s+{_ADV}(?:use|are\s+using|'re\s+using|am\s+using|'m\s+using|rely\s+on"
    r"|built\s+(?:it\s+)?(?:with|on)|run\s+on|deploy\s+(?:to|on))\s+"
    rf"(?P<t>{_TXT}{{1,80}})"
)


def _projects(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    if not s.has(_PROJ_GATE):
        return
    name = ctx.speaker
    for m in _WORKING_ON_RE.finditer(s.text):
        said = _cut(m.group("p"), s, 8)  # the memory keeps "the dance studio"; the entity not
        p = _ARTICLE.sub("", said)
        if not p or _PRONOUN_OBJ.match(p) or not ctx.first("project", p):
            continue
        out.append(
            ctx.candidate(
                "entity",
                finish_en(third_person_en(f"I am working on {said}", name)),
                "en",
                relation="works_on",
                object=EntityRef(p, "project"),
                valid_from=ctx.event_time,
                confidence=0.75 if p[:1].isupper() else 0.6,
                importance=0.65,
            )
        )
    for m in _PROJECT_NAME_RE.finditer(s.text):
        p = (m.group("p") or m.group("p2") or m.group("p3") or "").rstrip(".-")
        if not p or p.split()[0] in _NOT_NAMES or not ctx.first("project", p):
            continue
        out.append(
            ctx.candidate(
                "entity",
                finish_en(f"{name} works on the project {p}"),
                "en",
                relation="works_on",
                object=EntityRef(p, "project"),
                confidence=0.8,
                importance=0.65,
            )
        )
    for m in _WE_USE_RE.finditer(s.text):
        for tool in _tool_names(_cut(m.group("t"), s, 10)):
            obj, slot = tool_ref(tool)
            if not ctx.first("uses", obj.name):
                continue
            # The generic "tool" slot is not functional: using Jenkins does not end Sentry.
            out.append(
                ctx.candidate(
                    "tool",
                    finish_en(f"{name} uses {obj.name}"),
                    "en",
                    relation="uses",
                    object=obj,
                    slot=None if slot == "tool" else slot,
                    confidence=0.8 if slot != "tool" else 0.65,
                    importance=0.6,
                )
            )


# ----------------------------------------------------------------------------- learnings

_LEARN_GATE = gate(
    "til learned learnt realized realised discovered found lesson note takeaway turns"
)
_LEARN_RE = re.compile(
    r"^(?:TIL|[Tt]oday\s+I\s+learned)\b[\s:,-]*(?:that\s+)?(?P<x>.+)"
    r"|\b(?:I|i|we|We)(?:'ve|\s+have)?\s+(?:just\s+|finally\s+|recently\s+|also\s+)?(?:learned"
    r"|learnt|realized|realised|discovered|found\s+out)\s+that\s+(?!the\s+hard\s+way|a\s+lot"
    r"|so\s+much)(?P<x2>.+)"
    r"|\b(?:[Ll]esson(?:\s+learned)?|[Nn]ote\s+to\s+self|(?:[Kk]ey\s+)?[Tt]akeaway)\s*[:：-]\s*"
    r"(?P<x3>.+)|\b[Tt]urns\s+out\s+(?:that\s+)?(?P<x4>.+)"
)


def _learnings(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    if not s.has(_LEARN_GATE):
        return
    m = _LEARN_RE.search(s.text)
    if not m:
        return
    x = clean_phrase(m.group("x") or m.group("x2") or m.group("x3") or m.group("x4") or "")
    if len(x) < 6 or not ctx.first("learning", x):
        return
    if m.group("x3"):
        text = f"Lesson: {x}"
    else:
        text = f"{ctx.speaker} learned that {third_person_en(x, ctx.speaker)}"
    out.append(
        ctx.candidate(
            "pattern",
            finish_en(text),
            "en",
            kind="learning",
            event_time=ctx.event_time,
            confidence=0.75 if m.group("x") or m.group("x3") else 0.6,
            importance=0.7,
        )
    )


def extract_en(s: Sentence, ctx: NodeContext) -> list[Candidate]:
    """All non-event candidates of one English sentence (questions give none)."""
    if s.question:
        return []
    out: list[Candidate] = []
    if ctx.personal and not s.hypothetical:
        _preferences(s, ctx, out)
        _people(s, ctx, out)
    if not s.hypothetical:
        _decisions(s, ctx, out)
        _switches(s, ctx, out)
        _projects(s, ctx, out)
    _constraints(s, ctx, out)
    _learnings(s, ctx, out)
    return out
