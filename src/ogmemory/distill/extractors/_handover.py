"""A duty handed from one person to another, English and Chinese: "Jonas is handing the Homebrew
tap over to Wei", "once he's settled I'm handing DefectDojo admin over to him", "Wei takes over
the release notes from Jonas", "易凡下周离职，他写的场景泛化生成器交给汤宁接手", "美颜滤镜模块以前
是我在管，从下周开始交给新来的实习生罗晓".

The new owner ``owns`` the duty (slot ``owner:<duty>``: one owner at a time, so a later
handover of the same duty ends this one); who handed it over is named in the text and in
``attrs["from"]``. "Him"/"her"/"他"/"她" is the person just named (``ctx.people``).

>>> from datetime import date
>>> from ogmemory.distill.extractors._common import split_sentences
>>> s = split_sentences("Jonas is handing the Homebrew tap over to Wei.", date(2027, 2, 1))[0]
>>> handed_over_en(s.text)
('Jonas', 'the Homebrew tap', 'Wei')
>>> handed_over_zh("他写的场景泛化生成器交给汤宁接手")
('', '场景泛化生成器', '汤宁')
"""

from __future__ import annotations

import re

from ..types import Candidate, EntityRef
from ._common import NodeContext, Sentence, content_text, gate
from ._grammar import finish_en, finish_zh

__all__ = ["handed_over_en", "handed_over_zh", "handovers"]

_WHO_EN = r"[A-Z][a-z][\w'-]*(?:\s+[A-Z][a-z][\w'-]*)?"
_HAND_EN = re.compile(
    rf"\b(?P<from>{_WHO_EN}|I|[Ww]e)(?:\s+is|\s+are|\s+am|['’]s|['’]m|['’]re|\s+will|['’]ll)?"
    r"\s+(?:be\s+)?hand(?:ing|ed|s)?\s+(?P<what>(?:the\s+|our\s+|my\s+|his\s+|her\s+)?[^,;.!?]{2,60}?)"
    rf"\s+over\s+to\s+(?P<to>{_WHO_EN}|him|her|them)\b"
    rf"|\b(?P<to2>{_WHO_EN})(?:\s+is|['’]s|\s+will|['’]ll)?\s+(?:be\s+)?tak(?:ing|es|e)\s+over"
    rf"\s+(?P<what2>(?:the\s+)?[^,;.!?]{{2,60}}?)\s+from\s+(?P<from2>{_WHO_EN}|me|us|him|her)\b"
    # "Her inventory DAGs are getting handed to Ben Thorpe"
    rf"|\b(?P<from3>[Hh]er|[Hh]is|[Mm]y|[Oo]ur)\s+(?P<what3>[^,;.!?]{{2,50}}?)\s+(?:is|are)\s+"
    rf"(?:getting|being)\s+handed(?:\s+over)?\s+to\s+(?P<to3>{_WHO_EN})\b"
)
_GATE_EN = gate("handing handed hand hands taking takes take")
_NOT_WHO_EN = re.compile(r"^(?:It|This|That|There|Then|So|And|But|Also|Once|When)$")
_HAND_ZH = re.compile(r"(?:交给|交接给|移交给|转交给|转给|交由)了?\s*")
_NEW_ZH = re.compile(
    r"(?:新来的|新入职的|刚来的|新的)?(?:实习生|同事|同学|师弟|师妹|组员|新人)?"
    r"(?P<who>[\u4e00-\u9fff]{2,3}?)(?=\s*(?:来)?(?:接手|负责|来管|管|[，,。；;！!]|$))"
)
# what was handed: the clause before, without who had it and since when
_WHAT_ZH = re.compile(
    r"(?:^|[，,；;。])\s*(?:他|她|我)?(?:写的|做的|管的|负责的)?(?P<what>[^，,；;。]{2,16}?)"
    r"(?:以前|之前|原来|一直|本来)?(?:是|由)?(?:我|他|她)?(?:在管|负责|管)?\s*(?:[，,]|$)"
)
_OF_THEM_ZH = re.compile(r"\s*[他她](?!写的|做的|管的|负责的)")
_HAD_ZH = re.compile(
    r"(?P<what>[^，,；;。]{2,16}?)(?:以前|之前|原来|一直|本来)(?:是|由)?"
    r"(?P<who>我|(?![我他她是由])[\u4e00-\u9fff]{2,3}?)(?:在)?(?:做|管|负责)$"
)
_WHEN_ZH = re.compile(r"^(?:从)?[^，,]{0,6}(?:开始|起)$|^(?:以后|之后|下周|下个月|明天)")


def handed_over_en(text: str) -> tuple[str, str, str] | None:
    """(from, duty, to) of an English handover, or None."""
    m = _HAND_EN.search(text)
    if m is None:
        return None
    giver = (m.group("from") or m.group("from2") or m.group("from3") or "").strip()
    what = (m.group("what") or m.group("what2") or m.group("what3") or "").strip()
    to = (m.group("to") or m.group("to2") or m.group("to3") or "").strip()
    if m.group("from3"):  # "her DAGs": hers, handed by her
        giver = {"my": "I", "our": "we"}.get(
            giver.lower(), "her" if giver.lower() == "her" else "him"
        )
        what = f"the {what}"
    if _NOT_WHO_EN.match(giver) or _NOT_WHO_EN.match(to):
        return None
    return giver, what, to


def handed_over_zh(text: str) -> tuple[str, str, str] | None:
    """("", duty, to) of a Chinese handover (who gave it is the speaker or said before)."""
    m = _HAND_ZH.search(text)
    if m is None:
        return None
    new = _NEW_ZH.match(text, m.end())
    if new is None or re.match(r"[你我他她它咱大谁这那]|.*[了吧呢啊吗]$", new.group("who")):
        return None  # "交给你了", "交给我吧": a request to the listener, no handover
    clauses = [c for c in re.split(r"[，,；;。：:]", text[: m.start()]) if c.strip()]
    while clauses and (_WHEN_ZH.search(clauses[-1].strip()) or _OF_THEM_ZH.match(clauses[-1])):
        clauses.pop()  # "从下周开始": when, not what; "他调去做期权了": of the person, not the duty
    if not clauses:
        return None
    had = _HAD_ZH.match(clauses[-1].strip())  # "盘前检查原来是刘洋做": the duty and who had it
    if had:
        return had.group("who"), had.group("what"), new.group("who")
    last = _WHAT_ZH.search(clauses[-1].strip())
    what = last.group("what").strip() if last else ""
    what = re.sub(r"^(?:他|她|我)?(?:写的|做的|管的|负责的)", "", what)
    what = re.sub(r"^把\s*", "", what)
    if len(what) < 2 or re.match(r"[这那]", what):
        return None  # "把这个任务交给…": what is meant is not said
    return "", what, new.group("who")


# "a new hire, Tobi Adeyemi, a junior pentester": a person introduced by apposition
_INTRODUCED_EN = re.compile(
    r"\b(?P<n>[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?),\s+(?:a|an|our|the)\s+[a-z]"
    # "Farah Idowu is leaving ..., she's off to a fintech": a full name opening a sentence
    r"|(?:^|[.!?]\s+)(?P<n2>[A-Z][a-z]+\s+[A-Z][a-z]+)\s+(?:is|was|has|will)\b"
)


def _resolve(who: str, ctx: NodeContext, speaker: str) -> str:
    if who.lower() in ("him", "her", "them", "他", "她"):
        if ctx.people:
            return ctx.people[-1]
        named = list(_INTRODUCED_EN.finditer(content_text(ctx.record.node.content)))
        return (named[-1].group("n") or named[-1].group("n2")) if named else ""
    if who.lower() in ("i", "me", "we", "us", "我"):
        return speaker
    return who


def handovers(s: Sentence, ctx: NodeContext) -> list[Candidate]:
    """The handover one sentence states, as an ``entity`` memory of the new owner."""
    if s.question or not ctx.personal:
        return []
    zh = s.lang == "zh"
    if not (_HAND_ZH.search(s.text) if zh else s.has(_GATE_EN)):
        return []  # the cheap test first: most sentences hand nothing over
    found = handed_over_zh(s.text) if zh else handed_over_en(s.text)
    if found is None:
        return []
    giver, what, to = found
    speaker = ctx.name(s.lang)
    to = _resolve(to, ctx, speaker)
    giver = _resolve(giver, ctx, speaker) if giver else ""
    if not to or to == speaker or not ctx.first("handover", f"{what}>{to}"):
        return []
    if zh:
        text = finish_zh(f"{to}接手{what}" + (f"（原来是{giver}负责）" if giver else ""))
    else:
        duty = re.sub(r"^(?:his|her|my|our)\s+", "the ", what)
        text = finish_en(f"{to} takes over {duty}" + (f" from {giver}" if giver else ""))
    return [
        ctx.candidate(
            "entity",
            text[:1].upper() + text[1:],
            s.lang,
            subject=EntityRef(to, "person"),
            relation="owns",
            object=EntityRef(what, "concept"),
            slot=f"owner:{what.lower()}",
            confidence=0.8,
            importance=0.75,
            attrs={"from": giver} if giver else {},
        )
    ]
