"""Switches said as what happens from here on, English: "alerting moves to Grafana OnCall from
now on", "builds run on Buildkite going forward", "let's port every cron job over to Kubernetes
CronJobs", "time to move all our images over to GHCR".

The tool left behind is what the same message says is being left ("instead of Elasticsearch",
"we've outgrown Jenkins") or what a clause before "but" says is in use ("We page through
PagerDuty today, but ..."). ``_stack`` reads the forward marker when it comes first ("From now on
CI runs on GitHub Actions").

>>> contrast_tool("We page through PagerDuty today, but alerting moves on")
'PagerDuty'
"""

from __future__ import annotations

import re

from ..types import Candidate
from ._catalog import lookup
from ._choice import add_choice, choice, who_chose
from ._common import NodeContext, Sentence, content_text, gate
from ._grammar import finish_en
from ._purpose import tool_at

__all__ = ["contrast_tool", "forward_en"]

_FORWARD = (
    r"(?:from\s+now\s+on|going\s+forward|from\s+here\s+on(?:\s+out)?|henceforth|from\s+today"
    r"|starting\s+(?:today|now|this\s+(?:week|sprint|release)))"
)
_FORWARD_RE = re.compile(rf"(?i){_FORWARD}")
_TOOL = r"[A-Z][\w.+#&-]*(?:\s+[A-Z&][\w.+#&-]*){0,2}"
# "<part> moves to <Y> from now on", "<part> runs on <Y> going forward"
_THEN_FORWARD = re.compile(
    r"(?:^(?=[A-Za-z])|[,;:]\s*|\b(?i:but|and|so)\s+)(?!(?i:but|and|so|then)\b)"
    r"(?P<p>(?i:the\s+|our\s+|all\s+|new\s+)?(?:(?<=^)[A-Z]|[a-z]|[A-Z]{2,}(?=[a-z]?\b))[\w-]*"
    r"(?:\s+(?!(?:gets?|is|are|will|should)\b)[a-z][\w-]*)?)\s+(?i:will\s+|should\s+)?(?i:moves?|goes|go|runs?|lives?|happens?"
    r"|switches|migrates|gets?\s+(?:built|tracked|logged|deployed|hosted|written|run|managed"
    r"|stored|kept|done)|(?:is|are)\s+(?:built|tracked|logged|deployed|hosted|written|run|managed"
    r"|stored|kept|done))\s+(?i:over\s+)?(?i:to|on|in|onto|into|through|via|with|for)\s+"
    r"(?P<y>" + _TOOL + r")(?P<rest>[^.;!?]*)"
    # "let's do all the tracking in W&B going forward": a part of the work done with a tool
    r"|\b(?i:do|handle|keep|put|manage|run)\s+(?:(?i:all|every|each)\s+)?(?:(?i:of\s+)?"
    r"(?i:the|our)\s+)?(?P<p2>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)\s+(?i:in|with|on|through|via"
    r"|using)\s+(?P<y2>" + _TOOL + ")"
)
# "let's port every cron job over to Kubernetes CronJobs", "move all our images over to GHCR"
_MOVE_ALL = re.compile(
    r"\b(?P<verb>(?i:move|port|migrate|switch|convert|shift|transition))\s+(?P<q>(?i:every|all"
    r"|each|the\s+rest\s+of))\s+(?:(?i:of\s+)?(?i:our|the|your)\s+)?(?P<what>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?)"
    r"\s+(?i:over\s+)?(?i:to|onto|into)\s+(?P<y>" + _TOOL + r")"
)
# "we're moving them to GoodJob", "we're porting it over to Vite": what was just named moves
_MOVING_IT = re.compile(
    r"\b(?i:we|i)(?:['’]re|['’]m|\s+are|\s+am|['’]ll|\s+will)\s+(?:(?i:now|slowly|finally)\s+)?"
    r"(?i:moving|porting|migrating|switching|shifting|move|port|migrate|switch|shift)\s+"
    r"(?i:them|it|those|these|that|this|everything|things)\s+(?i:over\s+)?(?i:to|onto|into)\s+"
    r"(?P<y>" + _TOOL + ")"
)
_INSTEAD = re.compile(r"(?i:instead\s+of|rather\s+than|in\s+place\s+of)\s+(?P<x>" + _TOOL + ")")
_LEFT = re.compile(
    r"(?i:outgrown|outgrew|ditched|dropped|abandoned|retired|retiring|dropping|ditching"
    r"|got\s+rid\s+of|getting\s+rid\s+of|done\s+with|moving\s+off(?:\s+of)?|leaving)\s+"
    r"(?P<x>" + _TOOL + ")"
)
# "We page through PagerDuty today, but", "we're still on CocoaPods, but", "background jobs
# have been on Sidekiq for years, but": in use until now
_CONTRAST = re.compile(
    r"\b(?:(?i:we|i)(?:['’]re|['’]ve(?:\s+been)?|\s+are|\s+have(?:\s+been)?)?|(?i:has|have)\s+been"
    r"|(?i:is|are|was|were))\s+(?:(?i:still|currently|mostly|always)\s+)?(?:[a-z]+\s+){0,3}?"
    r"(?P<x>" + _TOOL + r")(?:\s+[a-z]+){0,3}?\s*[,;]?\s+(?i:but|though)\b"
)
_NOT_PARTS = re.compile(r"(?i)^(?:we|i|it|this|that|they|you|he|she|everything|everyone)$")
_LIFE = re.compile(r"(?i)\b(?:house|home|apartment|flat|city|town|country|place|boxes|stuff)\b")


def contrast_tool(text: str, last: bool = False) -> str | None:
    """The tool a message says it leaves: "instead of X", "outgrown X", "we use X today, but";
    ``last``: else the last name before a "but" ("reports have gone to Sentry, but ...")."""
    for rx in (_INSTEAD, _LEFT, _CONTRAST):
        m = rx.search(text)
        if m is not None:
            x = tool_at(m.group("x"))
            if x and x.lower() not in ("i", "we"):
                return x
    but = re.search(r"(?i)\bbut\b", text) if last else None
    names = [m.group() for m in _NAME.finditer(text, 1, but.start())] if but else []
    return tool_at(names[-1]) if names else None


_NAME = re.compile(r"(?<![.!?]\s)\b(?!I\b)[A-Z][\w.+#&-]*[\w#+]")


def _left_behind(s: Sentence, ctx: NodeContext, y: str) -> str | None:
    x = contrast_tool(s.text) or contrast_tool(content_text(ctx.record.node.content))
    return x if x and x != y else None


def forward_en(s: Sentence, ctx: NodeContext) -> list[Candidate]:
    """Switches said as what happens from now on, and moves of everything over to a tool."""
    out: list[Candidate] = []
    if s.question or s.hypothetical or not ctx.personal:
        return out
    marked = s.has(_FORWARD_GATE) or (s.has(_NOW_ON_GATE) and s.has(_ON_GATE))
    if marked and _FORWARD_RE.search(s.text):
        for m in _THEN_FORWARD.finditer(s.text):
            y = tool_at(m.group("y") or m.group("y2"))
            part = (m.group("p") or m.group("p2")).strip()
            if part[:1].isupper() and not part[:2].isupper():
                part = part[:1].lower() + part[1:]  # "Logging goes to Loki": for logging
            part = re.sub(r"(?i)^(?:all|new|every)\s+", "", part)  # "New DAGs get written ..."
            if not y or _NOT_PARTS.match(part) or _LIFE.search(part):
                continue
            x = _left_behind(s, ctx, y)
            add_choice(out, choice(ctx, s, y, x=x, switch=bool(x), planned=True, purpose=part))
    if s.has(_MOVING_IT_GATE):
        for m in _MOVING_IT.finditer(s.text):
            y = tool_at(m.group("y"))
            x = _left_behind(s, ctx, y) if y else None
            if y and x:  # what "them" is: the tool the message says is being left
                part = _SUBJECT.match(s.text)
                purpose = part.group("p").lower() if part else None
                add_choice(out, choice(ctx, s, y, x=x, switch=True, planned=True, purpose=purpose))
    if s.has(_MOVE_ALL_GATE):
        for m in _MOVE_ALL.finditer(s.text):
            y = tool_at(m.group("y"))
            if not y or _LIFE.search(m.group("what")) or not (lookup(y) or y[:1].isupper()):
                continue
            x = _left_behind(s, ctx, y)
            who, _ = who_chose(ctx, s)
            whole = m.group("y").strip().rstrip(".,;:!?)")
            said = f"{who} decided to {m.group('verb').lower()} {m.group('q').lower()} "
            said += f"{m.group('what')} over to {whole}" + (f", replacing {x}" if x else "")
            c = choice(ctx, s, y, x=x, switch=bool(x), planned=True, text=finish_en(said))
            add_choice(out, c)
    return out


_FORWARD_GATE = gate("forward henceforth starting")
_NOW_ON_GATE = gate("now here today")
_ON_GATE = gate("on")
_MOVE_ALL_GATE = gate("move port migrate switch convert shift transition")
_MOVING_IT_GATE = gate("moving porting migrating switching shifting move port migrate switch shift")
# "Background jobs have been on Sidekiq ...": the part of the work the sentence is about
_SUBJECT = re.compile(
    r"^(?P<p>(?:(?i:our|the)\s+)?[A-Za-z][a-z-]+(?:\s+[a-z-]+)?)\s+(?i:have|has|had|are|is|were"
    r"|was)\s+(?:(?i:been|always\s+been|still)\s+)?(?i:on|in|with|through)\b"
)
