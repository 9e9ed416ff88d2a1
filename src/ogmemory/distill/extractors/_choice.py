"""A technical choice as a candidate: who chose (the speaker, or the team they speak for), when,
the slot it fills (the purpose named, else the tool's usual role), what it replaces. Shared by
the English (``_stack``) and Chinese (``_stack_zh``) readings."""

from __future__ import annotations

import re
from typing import Any

from ..types import Candidate
from ._common import NodeContext, Sentence, date_attrs, tool_ref
from ._grammar import finish_en
from ._purpose import purpose_slot

__all__ = ["FOR_PURPOSE", "add_choice", "choice", "near_purpose", "when_said", "who_chose"]

#: "... for the database": the purpose a choice names
FOR_PURPOSE = re.compile(
    # not "for now", "for the time being": how long, not what for
    r"\s+(?i:for)\s+(?!(?i:now|today|the\s+time\s+being|the\s+moment|a\s+while|good|sure|real"
    r"|example|instance|once|free|fun)\b)(?P<purpose>(?:the\s+|our\s+)?[\w-]+(?:\s+(?!(?:for|now|in|on"
    r"|at|to|because|since|as|so|and|but|too|instead|rather|not|over|with|using|via|by)\b)"
    r"[\w-]+)?)"
)
_OURS = re.compile(r"(?i)^(?:our|my)\b")
_TEAM = re.compile(r"(?i)\b(?:we|we're|we've|we'll|let's|our|us|team)\b")


def who_chose(ctx: NodeContext, s: Sentence) -> tuple[str, bool]:
    """The subject's name in the text, and whether the speaker speaks for the team."""
    team = bool(_TEAM.search(s.text)) or not re.search(r"(?i)\bI\b", s.text)
    if ctx.record.node.name:
        return ctx.speaker, team
    return ("The team" if team else ctx.speaker), True


def when_said(s: Sentence, ctx: NodeContext) -> tuple[float, dict[str, Any]]:
    for t in s.times:
        if not re.search(r"(?i)(?:until|till|by|due|before)\s*$", s.text[: t.start]):
            return ctx.epoch(t.day), date_attrs(t)
    return ctx.event_time, {}


def choice(
    ctx: NodeContext,
    s: Sentence,
    y: str,
    *,
    purpose: str | None = None,
    x: str | None = None,
    why: str | None = None,
    switch: bool = False,
    planned: bool = False,
    text: str | None = None,
    thing: str | None = None,
) -> Candidate | None:
    """``thing``: what is switched ("the e2e suite"), said between the verb and "from"."""
    obj, slot = tool_ref(y)
    if purpose:
        slot = purpose_slot(purpose, slot)
    rep = tool_ref(x)[0] if x else None
    if slot == "tool" and x:
        slot = tool_ref(x)[1]
    if not ctx.first("uses", obj.name):
        return None
    ctx.first("decision", obj.name)
    who, team = who_chose(ctx, s)
    when, attrs = when_said(s, ctx)
    if text is None:
        what = f" for {purpose.strip()}" if purpose else ""
        if thing and purpose and purpose.strip().lower() in thing.lower():
            what = ""  # "switch the port discovery stage from A to B": said once
        if purpose and purpose.split()[-1].lower() in obj.name.lower().split():
            what = ""  # "conservative regridding for regridding": said once
        if switch and x:
            verb = "decided to switch" if planned else "switched"
            label = f" (since {attrs['date']})" if attrs and not planned else ""
            moved = " " + _OURS.sub("the", thing) if thing else ""
            text = f"{who} {verb}{moved} from {rep.name if rep else x} to {obj.name}{what}{label}"
        else:
            text = f"{who} decided to use {obj.name}{what}"
            if x:
                text += f", not {rep.name if rep else x}"
        if why:
            text += f" ({why.strip()})"
        text = finish_en(text)
    # an unknown tool is not one-at-a-time: it ends nothing by itself
    fills = None if slot == "tool" else slot
    return ctx.candidate(
        "decision",
        text,
        s.lang,
        relation="uses",
        object=obj,
        slot=fills,
        replaces=rep,
        kind="decision",
        event_time=when,
        valid_from=when,
        confidence=0.85,
        importance=0.85,
        attrs={**attrs, **({"purpose": purpose.strip()} if purpose else {})},
        collective=team,
    )


def near_purpose(text: str) -> str | None:
    """The purpose named right after a choice ("... to Redis for caching")."""
    fm = FOR_PURPOSE.search(text)
    return fm.group("purpose") if fm and fm.start() < 25 else None


def add_choice(out: list[Candidate], c: Candidate | None) -> None:
    if c is not None:
        out.append(c)
