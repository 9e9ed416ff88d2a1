"""Switches between two named tools, English: "switch from X to Y", "replace X with Y", "we moved
off X to Y", "dropped X in favour of Y", "we were using X; moving to Y", "X is out, Y is in",
"Let's switch the e2e suite from Cypress to Playwright" (what is switched is named). The
choices they make are built by ``_choice`` with the slots of ``_stack``.
"""

from __future__ import annotations

import re

from ..types import Candidate
from ._approach import approach_at, approach_for, topic_before
from ._catalog import lookup
from ._choice import add_choice as _add
from ._choice import choice as _choice
from ._choice import near_purpose as _near_purpose
from ._common import NodeContext, Sentence
from ._forward import contrast_tool
from ._purpose import tool_at

__all__ = ["moves_en", "switches_en"]

_SWITCH = re.compile(
    r"\b(?P<lead>(?i:let['’]?s|we['’]ll|we\s+will|we\s+(?:have\s+)?|we['’]ve|i\s+(?:have\s+)?"
    r"|i['’]ve|we['’]re|we\s+are|we\s+need\s+to|we\s+should|please)\s+)?"
    r"(?P<verb>(?i:switch(?:ed|ing)?|mov(?:e|ed|ing)|migrat(?:e|ed|ing)|chang(?:e|ed|ing)"
    r"|port(?:ed|ing)?|swap(?:ped|ping|s)?))(?:\s+(?i:over|everything|it)|\s+(?P<what>(?i:the|our|my|this|all\s+(?:of\s+)?our"
    r"|all\s+the)(?:\s+[\w-]+){1,3}?))?\s+(?i:from)\s+"
    r"(?P<x>(?:[^,;.!?]|\.(?=\w))+?)\s+(?i:to|over\s+to)\s+(?P<y>(?:[^,;.!?]|\.(?=\w))+)"
)
_REPLACE = re.compile(
    r"\b(?P<lead>(?i:let['’]?s|we['’]ll|we\s+will|we['’]re|we\s+are|we\s+(?:have\s+)?|we['’]ve"
    r"|i['’]m|i\s+(?:have\s+)?|i['’]ve|please)\s+)?(?:(?P<going>(?i:going\s+to|gonna))\s+"
    r"|(?i:now|just)\s+)?"
    r"(?P<verb>(?i:replac(?:e|ed|ing)|swap(?:ped|ping)?))\s+(?P<x>(?:[^,;.!?]|\.(?=\w))+?)"
    r"(?:\s+(?i:out))?\s+"
    r"(?i:with|for|by)\s+(?P<y>(?:[^,;.!?]|\.(?=\w))+)"
)
# "we moved off X to Y", "We'll migrate the queue off RabbitMQ onto SQS", "Move billing off X to Y"
_MOVED_OFF = re.compile(
    r"(?:^|\b(?P<lead>(?:we|i)(?:['’]ve|\s+have|['’]ll|\s+will|['’]re|\s+are|['’]m|\s+am)?"
    r"|let['’]?s|please)\s+)(?:just\s+|finally\s+|now\s+|going\s+to\s+)?"
    r"(?P<verb>mov(?:e|ed|ing)|migrat(?:e|ed|ing)|switch(?:ed|ing)?|port(?:ed|ing)?)\s+"
    r"(?:(?:the|our|my|all)\s+(?:[\w-]+\s+){1,2}?)?off\s+"
    r"(?:of\s+)?(?P<x>(?:[^,;.!?]|\.(?=\w))+?)\s+(?:and\s+)?(?:onto|on\s+to|to)\s+"
    r"(?P<y>(?:[^,;.!?]|\.(?=\w))+)",
    re.IGNORECASE,
)
# "Webpack is out, Vite is in", "out with Moment, in with date-fns"
_OUT_IN = re.compile(
    r"(?:^|[,;:]\s*|\b(?i:so|and|now)\s+)(?P<x>[A-Za-z][\w.+#-]*(?:\s+[A-Z0-9][\w.+#-]*)?)\s+"
    r"(?i:is|are|['’]s)\s+(?i:out)\s*(?:[,;:–—-]+\s*|\s+(?i:and)\s+)(?i:and\s+)?"
    r"(?P<y>[A-Za-z][\w.+#-]*(?:\s+[A-Z0-9][\w.+#-]*)?)\s+(?i:is|are|['’]s)\s+(?i:in)\b"
    r"|\b(?i:out\s+with)\s+(?P<x2>[A-Za-z][\w.+#-]*)\s*[,;]?\s*(?i:in\s+with)\s+"
    r"(?P<y2>[A-Za-z][\w.+#-]*)"
    # "HaplotypeCaller is out, DeepVariant plus GLnexus from now on": what comes in, said next
    r"|(?:^|[,;:]\s*|\b(?i:so|and|now)\s+)(?P<x3>[A-Z][\w.+#-]*)\s+(?i:is|are)\s+(?i:out)\s*"
    r"[,;:–—-]+\s*(?P<y3>[A-Z][\w.+#-]*)\b(?!\s+(?i:is|are|was|were|has|said)\b)"
)
# nothing but a filler before an imperative verb at the start of a sentence
_TOLD = re.compile(r"(?i)^\W*(?:(?:ok(?:ay)?|so|and|also|then|now|alright)[,\s]+)*$")
_FOR_ALL = re.compile(
    r"\s+(?i:for)\s+(?i:all|any|every|each)\s+(?:(?i:new|future|the|our)\s+)?(?P<p>[a-z][\w-]*)"
)
_GENERIC_TAIL = re.compile(r"(?i)\s+(?:tooling|tools?|setup|stack|librar(?:y|ies)|framework)$")
_IT = re.compile(r"(?i)^(?:it|them|that|this)$")
# "we dropped X for Y", "we're ditching X in favour of Y", "we'll retire X for Y"
_IN_FAVOUR = re.compile(
    r"\b(?:we|i)(?:['’]ve|\s+have|['’]re|\s+are|['’]m|\s+am|['’]ll|\s+will)?\s+"
    r"(?:just\s+|finally\s+|now\s+)?(?P<verb>drop(?:ped|ping)?|ditch(?:ed|ing)?"
    r"|retir(?:ed|ing|e)|abandon(?:ed|ing)?|dump(?:ed|ing)?|replac(?:ed|ing)"
    # "I'm ripping out RevenueCat and going with StoreKit 2"
    r"|(?:rip(?:ped|ping)?|tear(?:ing)?|tore|pull(?:ed|ing)?)\s+out"
    r"|swap(?:ped|ping)?\s+out)\s+(?P<x>(?:[^,;.!?]|\.(?=\w))+?)\s+"
    r"(?:in\s+favou?r\s+of|for|and\s+(?:are\s+|will\s+)?(?:going|go|went|moving|move|moved|switching"
    r"|switch|switched|using|use|adopting|adopt|adopted)(?:\s+(?:with|to|over\s+to))?)\s+(?P<y>(?:[^,;.!?]|\.(?=\w))+)",
    re.IGNORECASE,
)
_MOVING_TO = re.compile(
    r"\b(?P<who>(?i:we|i))(?:['’]re|['’]m|\s+are|\s+am)\s+(?:now\s+)?(?i:moving|switching"
    r"|migrating)\s+(?:everything\s+)?(?i:to)\s+(?P<y>(?:[^,;.!?]|\.(?=\w))+)"
)
_WERE_USING = re.compile(
    r"\b(?i:we|i)\s+(?i:were|was|have\s+been|['’]ve\s+been)\s+(?:\w+\s+){0,3}?(?i:using|in|on|with)"
    r"\s+(?P<x>[A-Z][\w.+#-]*)"
)
_SCRAP = re.compile(r"(?i)\b(?:scrap|drop|ditch|forget(?:\s+about)?|kill)\s+(?P<x>[A-Z][\w.+#-]*)")
_SCRAP_LOOSE = re.compile(
    r"(?i)\b(?:scrap|drop|ditch|forget(?:\s+about)?|kill)\s+(?P<x>[a-z][\w-]*)"
)
_LIFE_PLACES = re.compile(r"(?i)\b(?:house|home|apartment|flat|city|town|country|place)\b")


def switches_en(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    """ "switch from X to Y", "replace X with Y"."""
    for m in _SWITCH.finditer(s.text):
        loose = m.group("lead") is not None  # "we're swapping discovery from nmap to masscan"
        y, x = tool_at(m.group("y"), loose), tool_at(m.group("x"), loose)
        if (
            not y
            or not x
            or _LIFE_PLACES.search(m.group("x"))
            or not (lookup(y) or lookup(x) or m.group("lead"))
        ):
            continue
        planned = (
            bool(
                re.match(
                    r"(?i)let|we(?:'ll|\s+will|\s+need|\s+should)|please", m.group("lead") or ""
                )
            )
            or "ing" in m.group("verb")[-3:]
        )
        purpose = _near_purpose(s.text[m.end("y") - len(m.group("y")) :])
        if purpose is None and m.group("what") and not lookup(y):  # "switch the e2e suite"
            purpose = re.sub(
                r"(?i)^(?:the|our|my|this|all\s+(?:of\s+)?our|all\s+the)\s+", "", m.group("what")
            )
        thing = m.group("what")
        _add(
            out, _choice(ctx, s, y, x=x, switch=True, planned=planned, purpose=purpose, thing=thing)
        )
    for m in _REPLACE.finditer(s.text):
        loose = m.group("lead") is not None  # "we're going to replace clap with lexopt"
        y, x = tool_at(m.group("y"), loose), tool_at(m.group("x"), loose)
        if _IT.match(m.group("x")):  # "we've been on Datadog, but we're swapping it out for Y"
            x = contrast_tool(s.text[: m.start()], last=True)
        told = _TOLD.match(s.text[: m.start()]) is not None  # "Replace Moment with date-fns"
        if y and x and (lookup(y) or lookup(x) or m.group("lead") or told):
            planned = (
                told
                or m.group("going") is not None
                or "ing" in m.group("verb")[-3:]
                or bool(re.match(r"(?i)let|we(?:'ll|\s+will)|please", m.group("lead") or ""))
            )
            _switched(out, ctx, s, m, y, x, planned)


def _switched(
    out: list[Candidate],
    ctx: NodeContext,
    s: Sentence,
    m: re.Match[str],
    y: str,
    x: str,
    planned: bool,
) -> None:
    """A switch from ``x`` to ``y``, for the purpose named right after ``y`` if any."""
    purpose = _near_purpose(s.text[m.start("y") :])
    _add(out, _choice(ctx, s, y, x=x, switch=True, planned=planned, purpose=purpose))


def moves_en(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    """ "moved off X to Y", "dropped X in favour of Y", "we were using X; moving to Y",
    "X is out, Y is in"."""
    for m in _MOVED_OFF.finditer(s.text):
        y, x = tool_at(m.group("y")), tool_at(m.group("x"))
        if y and x:
            lead, verb = (m.group("lead") or "").lower(), m.group("verb").lower()
            planned = verb.endswith(("ing", "e", "ch")) or bool(
                re.match(r"let|please|\w+['’]ll|\w+ will", lead)
            )
            _switched(out, ctx, s, m, y, x, planned)
    for m in _OUT_IN.finditer(s.text):
        y = tool_at(m.group("y") or m.group("y2") or m.group("y3"))
        x = tool_at(m.group("x") or m.group("x2") or m.group("x3"))
        if y and x:
            _add(out, _choice(ctx, s, y, x=x, switch=True))
    for m in _IN_FAVOUR.finditer(s.text):
        y, x = tool_at(m.group("y")), tool_at(m.group("x"))
        # a tool the catalog knows, or one named for a part of the work ("retiring rosbag1
        # tooling and moving to MCAP for all new recordings")
        fm = _FOR_ALL.match(s.text, m.end("y") - len(m.group("y")) + len(y or ""))
        purpose = fm.group("p") if fm else _near_purpose(s.text[m.start("y") :])
        if not y:  # "big change on lighting. ... dropping clustered forward and going with Y"
            purpose = purpose or topic_before(s, ctx, m.start())
            y = approach_for(m.group("y"), purpose, ctx)
            x = x or (approach_at(m.group("x")) if y else None)
        if x is None and purpose:  # "rosbag1 tooling": the tool, without the generic noun
            bare = _GENERIC_TAIL.sub("", m.group("x").strip())
            x = bare if len(bare.split()) == 1 and re.search(r"\d|[A-Z]", bare) else None
        # "ripping out RevenueCat and going with StoreKit 2": only code is ripped out
        technical = bool(re.match(r"(?i)(?:rip|tear|tore|pull|replac|swap)", m.group("verb")))
        named = technical and x[:1].isupper() and y[:1].isupper() if x and y else False
        if (
            y
            and x
            and (lookup(y) or lookup(x) or named or (purpose and not _LIFE_PLACES.search(purpose)))
        ):
            ongoing = m.group("verb").lower().split()[0].endswith(("ing", "e"))
            known = lookup(y) is not None  # a known tool keeps its own slot
            purpose = None if known else purpose
            _add(out, _choice(ctx, s, y, x=x, switch=True, planned=ongoing, purpose=purpose))
    for m in _MOVING_TO.finditer(s.text):
        y = tool_at(re.sub(r"(?i)^(?:an?|the)\s+", "", m.group("y")))
        before = _WERE_USING.search(s.text[: m.start()])
        # "so scrap Render, we're moving to a Hetzner box": what is scrapped is what is left
        scrapped = _SCRAP.search(s.text[: m.start()])
        x = before.group("x") if before else (tool_at(scrapped.group("x")) if scrapped else None)
        topic = None
        if not y:  # "change of plan on regridding ... we're switching to conservative regridding"
            topic = _near_purpose(s.text[m.start("y") :]) or topic_before(s, ctx, m.start())
            y = approach_for(m.group("y"), topic, ctx)
            dropped = _SCRAP_LOOSE.search(s.text) if y else None  # "..., scrap isotonic"
            x = x or (approach_at(dropped.group("x")) if dropped else None)
        if y and (lookup(y) or x or topic):
            _add(out, _choice(ctx, s, y, x=x, switch=bool(x), planned=True, purpose=topic))
