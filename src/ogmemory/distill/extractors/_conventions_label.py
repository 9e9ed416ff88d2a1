"""Where a rule is announced and what it goes on to say, English and Chinese: a label sentence
whose rules are the sentences after it ("Two hard rules in this codebase. Money is never a
float64. ..."), a rule's positive half said as a sentence of its own ("... Everything goes
through Addressables."), and a rule said for this repository ("Rule for this repo - ...",
"在这个项目里……"), which is the project's even in an agent's session.
"""

from __future__ import annotations

import re

from ._common import NodeContext, Sentence, content_text

__all__ = [
    "GOES_ON_EN",
    "LABEL_ONLY_EN",
    "for_this_project",
    "in_message",
    "rule_body_zh",
    "under_label",
]

# "Rule for this repo - ...", "在这个项目里，不要 ...": a rule of the project, whoever hears it
_THIS_PROJECT = re.compile(
    r"(?i)\b(?:for|in|of|on|across)\s+(?:this|our|the)\s+(?:repo(?:sitory)?|codebase|code\s*base"
    r"|project|monorepo)\b|(?:在|对)?(?:这个|本|咱们|我们的?)(?:项目|仓库|代码库|工程)(?:里|中|上|内)?"
)


# "Two hard rules in this codebase.", "House rules:": a label whose rules are the sentences after
LABEL_ONLY_EN = re.compile(
    r"(?i)^(?:[\w'-]+\s+){0,3}(?:rules?|conventions?|polic(?:y|ies)|guidelines?|non-negotiables)"
    r"(?:\s+[\w'-]+){0,5}?\s*[.:!]*$"
)
_COUNT_EN = {"two": 2, "three": 3, "four": 4}
_NEXT_SENTENCE = re.compile(r"(?<=[.!?])\s+")
# "... never load anything with Resources.Load. Everything goes through Addressables.": a rule's
# positive half said as a sentence of its own
GOES_ON_EN = re.compile(
    r"^(?:(?:everything|all\s+[\w-]+(?:\s+[\w-]+)?|only)\s+(?:goes|go|runs?|lives?|happens?"
    r"|is\s+done|are\s+done|must|should|has\s+to|have\s+to)\b[^.!?]{3,80}[.!]?)$",
    re.IGNORECASE,
)


def in_message(s: Sentence, ctx: NodeContext) -> tuple[list[str], str]:
    """The sentences of the message before ``s`` and the one right after it."""
    full = content_text(ctx.record.node.content)
    at = full.find(s.text)
    if at < 0:
        return [], ""
    before = [p for p in _NEXT_SENTENCE.split(full[:at].strip()) if p]
    after = _NEXT_SENTENCE.split(full[at + len(s.text) :].strip(), maxsplit=1)[0]
    return before, after


def under_label(before: list[str]) -> bool:
    """Whether ``s`` is one of the rules a label sentence before it announced."""
    for back, said in enumerate(reversed(before[-4:]), start=1):
        if LABEL_ONLY_EN.match(said.strip()):
            count = _COUNT_EN.get(said.split()[0].lower(), 2)
            return back <= count
    return False


def for_this_project(s: Sentence, ctx: NodeContext) -> bool:
    """Whether the rule in ``s`` is said for this repository (in it, or in the label sentence
    right before it)."""
    said = content_text(ctx.record.node.content)
    at = max(said.find(s.text), 0)
    return _THIS_PROJECT.search(said[max(0, at - 80) : at + len(s.text)]) is not None


# "说一下协作的人：", "先立一条铁律：": a label before what is said
_LABEL_ZH = re.compile(r"^[^，,。；;：:]{2,12}[：:]\s*(?=\S)")


def rule_body_zh(body: str, cue: re.Pattern[str], ctx: NodeContext) -> str:
    """A Chinese rule without the label before it, and from the clause that states it when the
    clauses before only introduce the person it names ("硬件工程师孙蕾负责电路板，改任何引脚分配之前
    必须先找她确认" → "改任何引脚分配之前必须先找孙蕾确认")."""
    body = _LABEL_ZH.sub("", body)
    clauses = re.split(r"(?<=[，,])", body)
    at = next((i for i, c in enumerate(clauses) if cue.search(c)), 0)
    person = next((p for p in reversed(ctx.people) if p in "".join(clauses[:at])), None)
    if at and person:
        body = re.sub(r"[她他](?!们)", person, "".join(clauses[at:]), count=1)
    return body
