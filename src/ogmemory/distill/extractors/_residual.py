"""What the families left: a user's statement whose specific terms no candidate holds.

The pattern families read the shapes they were written for. A developer says the same things
in endless other ways ("honestly I'm much happier with Hydra configs than argparse flags",
"I'm Amara, a PhD student at Eindhoven University" read as a name only), and what is lost
then is exactly what a later question asks for: a name, a tool, a version, a host. So when a
user's statement in an agent session carries a specific term (a capitalised name inside the
sentence, a number, a dotted or slashed token such as ``api.example.com`` or ``eu-central-1``)
that none of the sentence's candidates mentions, the sentence itself is kept as a note,
restated in the third person. One-off requests ("Launch the sweep please", "can you run the
tests?") are not statements and are left out.

>>> from datetime import date
>>> from ogmemory.distill.extractors._common import split_sentences
>>> s = split_sentences("honestly I'm much happier with Hydra configs than argparse flags.",
...                     date(2026, 11, 2))[0]
>>> uncovered(s, [])
['Hydra']
>>> uncovered(split_sentences("Launch the sweep on Slurm please.", date(2026, 11, 2))[0], [])
[]
"""

from __future__ import annotations

import re
from datetime import date

from ..dates import is_relative
from ..types import Candidate
from ._common import NodeContext, Sentence
from ._grammar import finish_zh, third_person_en, third_person_zh
from ._referents import with_referent
from ._salience import _strip_lead

__all__ = ["residual", "uncovered"]

# a Latin token (also inside Chinese text): a name, a version, "eu-west-3", "api.example.com"
_TOKEN_EN = re.compile(r"[A-Za-z0-9][\w&+#.:/@-]*[\w+#]|[A-Za-z0-9]")
_INNER_MARK = re.compile(r"\w[./:@]\w")  # a dotted, slashed or colon token: host, path, port
# Capitalised words that are not names: sentence openers, pronouns, days and fillers.
_NOT_NAME = frozenset(
    "I I'm I've I'll I'd OK Ok Okay Hi Hey Hello Thanks Yes No So Also Actually Honestly"
    " Please Just Now Then Well Oh Good Great Sure Btw Anyway FYI BTW Prof Dr Mr Mrs Ms".split()
)
_REQUEST_EN = re.compile(
    r"^(?:(?:ok(?:ay)?|so|now|also|and|then|hey|hi)[\s,]+)*"
    r"(?:please\b|can\s+you\b|could\s+you\b|would\s+you\b|help\b|let\s+me\s+know\b"
    r"|(?:run|launch|start|open|show|check|fix|add|remove|delete|create|make|write|update"
    r"|deploy|build|test|try|look|find|give|tell|explain|rerun|revert|push|merge|commit"
    r"|install|bump|rename|move|clean|set\s+up|go\s+ahead)\b)",
    re.IGNORECASE,
)
_PLEASE = re.compile(r"\bplease\b|请|帮我|帮忙|麻烦", re.IGNORECASE)
_INTRO_EN = re.compile(r"^[^:;.!?]{1,40}:\s+")
_INTRO_ZH = re.compile(
    r"^(?:先)?(?:自我介绍一下|简单介绍一下|介绍一下|补充一下|顺便说一下|还有|另外)[，,：:\s]*"
)
_WE_ZH = re.compile(r"我们|咱们")
_REQUEST_ZH = re.compile(r"^(?:请|帮我|帮忙|麻烦|你(?:能|可以)|能不能|看看|跑一下|运行)")


def _specific_en(text: str, dated: list[tuple[int, int]]) -> list[str]:
    out: list[str] = []
    for i, m in enumerate(_TOKEN_EN.finditer(text)):
        tok = m.group()
        if any(a <= m.start() < b for a, b in dated):
            continue  # a date: the candidates hold it resolved ("April 14" as 2026-04-14)
        technical = any(c.isdigit() for c in tok) or _INNER_MARK.search(tok)
        # a capitalised word inside the sentence, or a first word in CamelCase ("GitHub")
        named = tok[0].isupper() and tok not in _NOT_NAME and (i > 0 or tok[1:] != tok[1:].lower())
        if technical or named:
            out.append(tok)
    return out


def uncovered(s: Sentence, found: list[Candidate], today: date | None = None) -> list[str]:
    """The sentence's specific terms that no candidate's text holds (none for a request); with
    ``today``, also a day ahead of it said by when it was said ("next Tuesday") that no
    candidate dated."""
    text = s.text
    dated = [(t.start, t.end) for t in s.times]
    if s.question or s.hypothetical:
        return []
    if s.lang == "zh":
        if _REQUEST_ZH.match(text.strip()) or _PLEASE.search(text):
            return []
        terms = [
            m.group()
            for m in _TOKEN_EN.finditer(text)
            if (len(m.group()) > 1 or m.group().isdigit())
            and not any(a <= m.start() < b for a, b in dated)
        ]
    else:
        if _REQUEST_EN.match(text.strip()) or _PLEASE.search(text) or len(text.split()) < 5:
            return []
        terms = _specific_en(text, dated)
    held = " ".join(c.text for c in found).lower()
    # a day ahead said by when it was said ("next Tuesday", "下周三") that no candidate dated
    days = [
        t.text
        for t in s.times
        if today is not None
        and t.day > today
        and is_relative(t)
        and t.iso not in held + _dates(found)
    ]
    return [t for t in dict.fromkeys(terms) if t.lower().rstrip(".") not in held] + days


def _dates(found: list[Candidate]) -> str:
    """The days the candidates hold in their attributes (an event's date, a deadline)."""
    return " ".join(str(c.attrs.get(k, "")) for c in found for k in ("date", "deadline"))


def residual(
    s: Sentence, ctx: NodeContext, found: list[Candidate], sentences: list[Sentence] | None = None
) -> Candidate | None:
    """The sentence as a third-person note when it holds a specific term no candidate holds."""
    if not uncovered(s, found, ctx.ref_day):
        return None
    raw = s.text.strip().replace("’", "'")
    zh = s.lang == "zh"
    if zh:
        raw = _WE_ZH.sub("团队", _INTRO_ZH.sub("", raw))  # an agent's user: "we" is the team
        text = finish_zh(third_person_zh(raw, ctx.name("zh")))
    else:
        raw = _strip_lead(raw)
        intro = _INTRO_EN.match(raw)
        if intro is not None and not _specific_en(intro.group(), []):
            raw = _strip_lead(raw[intro.end() :])  # "Quick background: I'm ..."
        body = third_person_en(raw, ctx.speaker)
        text = body[:1].upper() + body[1:].rstrip(" .!,;:") + "."
    key = re.sub(r"\W+", " ", text).strip().lower()
    if len(key) < 8 or not ctx.first("statement", key):
        return None
    cand = ctx.candidate(
        "note",
        text,
        "zh" if zh else "en",
        confidence=0.5,
        importance=0.45,
        attrs={"residual": True},
    )
    return with_referent(cand, s, sentences, ctx, []) if sentences else cand
