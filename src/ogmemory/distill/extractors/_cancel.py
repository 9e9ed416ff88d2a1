"""A plan called off: "算了，Vite 先不换了，还是继续用 webpack", "forget pytest - we're staying
on unittest after all". The tool kept is a decision that names the one called off as replaced,
so the planned switch to it (and every fact that holds it) ends, and the kept tool is current
without a slot read from the words around it ("还是继续" is no purpose).

A plan called off with nothing kept ("forget the Prefect migration, we're not doing it",
"Milvus 那个迁移计划取消了") is a decision of its own (``called_off``): a fact that ends at once,
and ends every current fact of the scope that holds the tool (the plan to move to it).

>>> from datetime import date
>>> from ogmemory.distill.extractors._common import split_sentences
>>> s = split_sentences("Forget pytest, we're staying on unittest after all.", date(2026, 12, 1))[0]
>>> called_off_names(s)
('pytest', 'unittest')
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from ..types import Candidate
from ._choice import choice, who_chose
from ._common import NodeContext, Sentence, content_text, gate, tool_ref
from ._purpose import tool_at

__all__ = ["called_off", "called_off_names"]

_TOOL = r"[A-Za-z][\w.+#-]*[\w+#]"
_CANCEL_ZH = re.compile(rf"(?P<x>{_TOOL})\s*(?:就|先|暂时|也|还是)?不(?:换|改|迁|上|用)了")
_KEEP_ZH = re.compile(rf"(?:还是|继续|仍然|照旧|接着)(?:继续)?(?:用|使用)\s*(?P<y>{_TOOL})")
_CANCEL_EN = re.compile(
    rf"\b(?:forget(?:\s+about)?|scrap|cancel|call\s+off|drop)\s+(?:the\s+)?"
    rf"(?:(?:move|switch|migration)\s+to\s+)?(?P<x>{_TOOL})",
    re.IGNORECASE,
)
_KEEP_EN = re.compile(
    rf"\b(?:stay(?:ing)?|stick(?:ing)?|keep(?:ing)?|remain(?:ing)?)\s+(?:on|with)\s+(?P<y>{_TOOL})"
    rf"|\bkeep(?:ing)?\s+using\s+(?P<y2>{_TOOL})",
    re.IGNORECASE,
)


# "所以不换了，定时任务还是继续用 Quartz", "We're reverting, the cache stays on Core Data": a
# plan called off without naming it again; the kept tool is named
_BARE_CANCEL_ZH = re.compile(
    r"(?:^|[，,。；;]|所以|那就|就|先|暂时)\s*不(?:换|改|迁)了"
    # "之前计划把 CNI 从 Calico 换成 Cilium，这个取消了": the plan called off as a whole
    r"|(?:这个|这事|这件事|计划|方案)\s*(?:先|也|就)?(?:取消了|作废了?|不搞了|不做了|搁置了)"
)
_BARE_CANCEL_EN = re.compile(
    r"(?i)\b(?:we(?:['’]re|\s+are)\s+)?revert(?:ing|ed)?\b|\bnot\s+(?:switching|moving|migrating)"
    r"(?:\s+after\s+all)?\b|\bback\s+to\b|\bchange\s+of\s+plans?\b|\bafter\s+all\b"
    r"|\b(?:drop|scrap|forget|cancel)\s+(?:the\s+)?[\w.+#-]+\s+(?:sketch|plan|idea|spike|branch"
    r"|prototype|migration|switch|stage|poc)\b"
)
# "the cache stays on Core Data", "we're going back to nmap for discovery"
_STAYS_EN = re.compile(
    r"\b(?i:stays?|remains?|goes\s+back|(?:going|switching|moving|go|switch|move)\s+back)\s+"
    r"(?i:on|with|to)\s+(?P<y>[A-Z][\w.+#-]*[\w+#](?:\s+[A-Z][\w.+#-]*[\w+#])?|[a-z][\w.+#-]*[\w+#])"
)


def reverted_to(s: Sentence, said: Callable[[], str] = str) -> str | None:
    """The tool a plan called off without naming it keeps ("所以不换了，还是继续用 Quartz");
    the calling off may be said anywhere in the turn ``said()`` ("Change of plan on lexopt. …
    We're staying on clap."), read only when the sentence keeps a tool."""
    zh = s.lang == "zh"
    kept = (_KEEP_ZH if zh else _KEEP_EN).search(s.text) or (
        None if zh else _STAYS_EN.search(s.text)
    )
    y = (kept.groupdict().get("y") or kept.groupdict().get("y2")) if kept else None
    if y is None:
        return None
    if not zh and y[:1].islower() and tool_at(y, loose=True) is None:
        return None  # "we're going back to work"
    cancel = _BARE_CANCEL_ZH if zh else _BARE_CANCEL_EN
    return y if cancel.search(s.text) or cancel.search(said()) else None


def called_off_names(s: Sentence) -> tuple[str, str] | None:
    """The tool called off and the tool kept, when the sentence says both."""
    zh = s.lang == "zh"
    off = (_CANCEL_ZH if zh else _CANCEL_EN).search(s.text)
    kept = (_KEEP_ZH if zh else _KEEP_EN).search(s.text)
    if off is None or kept is None:
        return None
    x, y = off.group("x"), kept.group("y") or kept.group("y2")
    return None if x.lower() == y.lower() else (x, y)


def called_off(s: Sentence, ctx: NodeContext, found: list[Candidate]) -> list[Candidate]:
    """``found`` with the kept tool's decision naming the called-off one as replaced (a new
    decision when no candidate holds the kept tool)."""
    names = called_off_names(s)
    if names is None:
        y = reverted_to(s, lambda: content_text(ctx.record.node.content))
        if y is None:
            return _plan_off(s, ctx, found)
        return _reverted(s, ctx, found, y)
    x, y = names
    gone, key = tool_ref(x)[0], tool_ref(y)[0].name.lower()

    def holds(c: Candidate) -> bool:
        return c.relation == "uses" and c.object is not None and c.object.name.lower() == key

    if any(holds(c) for c in found):
        return [replace(c, replaces=gone, slot=None) if holds(c) else c for c in found]
    zh = s.lang == "zh"
    text = f"团队决定继续用 {y}，不换 {x}。" if zh else f"The team is staying on {y}, not {x}."
    kept = choice(ctx, s, y, x=x, text=text)
    return [*found, replace(kept, slot=None)] if kept is not None else found


def _reverted(s: Sentence, ctx: NodeContext, found: list[Candidate], y: str) -> list[Candidate]:
    """The kept tool's decision, marked ``reverts``: it ends the plan that named it as what
    was left (knowledge linking reads the mark)."""
    key = tool_ref(y)[0].name.lower()
    # "之前计划把 CNI 从 Calico 换成 Cilium，这个取消了": the plan called off in the same breath
    # is no switch
    found = [c for c in found if c.replaces is None or c.replaces.name.lower() != key]
    held = [c for c in found if c.relation == "uses" and c.object and c.object.name.lower() == key]
    if held:
        return [
            replace(c, slot=None, attrs={**c.attrs, "reverts": True}) if c in held else c
            for c in found
        ]
    back = re.search(r"(?i)\bback\s+(?:on|with|to)\b", s.text) is not None
    text = f"The team is {'going back to' if back else 'staying on'} {y}."
    kept = choice(ctx, s, y, text=f"团队决定继续用 {y}。" if s.lang == "zh" else text)
    if kept is None:
        return found
    return [*found, replace(kept, slot=None, attrs={**kept.attrs, "reverts": True})]


_PLAN = r"migration|move|switch|plan|idea|port|rewrite|rollout|spike|prototype|poc|integration"
_PLAN_OFF_EN = re.compile(
    r"\b(?:forget(?:\s+about)?|scrap(?:ped|ping)?|cancel(?:l?ed|l?ing)?|kill(?:ed|ing)?"
    r"|drop(?:ped|ping)?|shelv(?:e|ed|ing)|call(?:ed|ing)?\s+off|abandon(?:ed|ing)?)\s+"
    rf"(?:the|our|my|that|this)\s+(?P<x>{_TOOL}(?:\s+[A-Z][\w.+#-]*)?)\s+(?P<what>{_PLAN})\b"
    rf"|\b(?:the|our)\s+(?P<x2>{_TOOL}(?:\s+[A-Z][\w.+#-]*)?)\s+(?P<what2>{_PLAN})\s+"
    r"(?:is|['’]s)\s+(?:off|cancel(?:l?ed)|dead|shelved|not\s+happening|called\s+off)\b"
    # "we're not doing ingress-nginx after all": a choice taken back
    rf"|\bwe(?:['’]re|\s+are)\s+not\s+(?:doing|going\s+with)\s+(?:the\s+)?(?P<x3>{_TOOL})"
    r"\s+(?:after\s+all|anymore|any\s+more)\b",
    re.IGNORECASE,
)
_PLAN_OFF_ZH = re.compile(
    rf"(?P<x>{_TOOL})\s*(?P<what>[\u4e00-\u9fff\s]{{0,10}}?(?:计划|方案|想法|迁移|改造|项目))\s*"
    r"(?:先|也|就|已经|彻底|暂时)?(?:取消了|取消|作废了?|不搞了|不做了|搁置了|黄了|砍掉了|砍了)"
)


_PLAN_OFF_GATE = gate(
    "forget scrap scrapped scrapping cancel cancelled canceled cancelling kill killed killing"
    " drop dropped dropping shelve shelved shelving call called calling abandon abandoned"
    " abandoning off dead happening not"
)
_PLAN_OFF_GATE_ZH = re.compile(r"取消|作废|不搞|不做|搁置|黄了|砍")


def _plan_off(s: Sentence, ctx: NodeContext, found: list[Candidate]) -> list[Candidate]:
    """``found`` and the plan the sentence calls off without keeping a tool, if any."""
    zh = s.lang == "zh"
    if not (_PLAN_OFF_GATE_ZH.search(s.text) if zh else s.has(_PLAN_OFF_GATE)):
        return found
    m = (_PLAN_OFF_ZH if zh else _PLAN_OFF_EN).search(s.text)
    named = [m.groupdict().get(g) for g in ("x", "x2", "x3")] if m else []
    x = tool_at(next(n for n in named if n), loose=True) if m else None
    if m is None or x is None or not ctx.first("called_off", x.lower()):
        return found
    if zh:
        what = re.sub(r"那个|这个|^的|\s+", "", m.group("what"))
        text = f"团队取消了 {x} {what}。"
    else:
        who, _ = who_chose(ctx, s)
        what = (m.group("what") or m.group("what2") or "").lower()  # none: "not doing X"
        done = f"called off the {x} {what}" if what else f"is not going with {x} after all"
        text = f"{who[:1].upper()}{who[1:]} {done}."
    obj = tool_ref(x)[0]
    off = ctx.candidate(
        "decision",
        text,
        s.lang,
        relation="called_off",
        object=obj,
        kind="decision",
        confidence=0.8,
        importance=0.8,
        valid_from=ctx.event_time,
        valid_until=ctx.event_time,
        collective=True,
    )
    # the same sentence's reading of the tool as a choice ("forget the X migration") is no use
    key = obj.name.lower()
    kept = [
        c for c in found if not (c.relation == "uses" and c.object and c.object.name.lower() == key)
    ]
    return [*kept, off]
