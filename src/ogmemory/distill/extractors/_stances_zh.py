"""Chinese stances: X对我很重要, 我觉得X很重要, 我需要…的建议, 我可以帮你…, 我得去…了 (see
``_stances`` for the English ones and what each kind means)."""

from __future__ import annotations

import re

from ..types import Candidate
from ._common import NodeContext, Sentence
from ._grammar import finish_zh, third_person_zh

__all__ = ["stances_zh"]

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
        body = s.text[m.start("x") : m.end()]
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
        cands.append(
            ctx.candidate(
                "note",
                finish_zh(text),
                "zh",
                confidence=0.6,
                importance=0.5,
                attrs={"stance": kind},
            )
        )
    return cands


#: How many views one memory holds at most.
MAX_VIEWS = 3
