"""Clause-level salience of a Chinese sentence: a 我/我们/我的 statement with enough content (谢谢,
太好了 and requests to the assistant are not statements); see ``_salience``."""

from __future__ import annotations

import re

from ._common import Sentence
from ._salience import Salience

__all__ = ["salience_zh"]


_SELF_ZH = re.compile(r"我们|咱们|我的|我")
_PHATIC_ZH = re.compile(
    r"^(?:谢谢|多谢|感谢|太好了|好的|好啊|好呀|没问题|恭喜|加油|哈哈|嗯|哦|对|是的|真棒|太棒了|不客气"
    r"|再见|拜拜|晚安|早安|你好|嗨|哇)"
)
_STOP_ZH = re.compile(
    r"[我你他她它们的了是在也都很就还又吧呢啊呀吗哦嗯和跟与把被这那个有没不要会太真好]"
)
_SECOND_ZH = re.compile(r"你|您")
_REACTION_ZH = re.compile(
    r"我(?:也|真|很|非常|真的)*(?:同意|觉得你|为你|替你|理解|明白|希望你|祝你)"
)


# "帮我跑一下压测脚本", "麻烦你看一下日志": a request to the assistant, not a fact about the user
_REQUEST_ZH = re.compile(
    r"^(?:[好嗯那行]的?[，,\s]*)?(?:请|麻烦|劳驾)?(?:你|您)?(?:帮我|帮忙|替我|给我)"
    r"|^(?:请|麻烦)(?:你|您)?[^，。]{0,6}一下"
)


def salience_zh(s: Sentence, min_content: float = 4.0) -> Salience:
    """The same for a Chinese sentence: a 我/我们/我的 statement with enough content."""
    if s.question or s.hypothetical:
        return Salience(False, 0.0)
    text = s.text.strip()
    if _PHATIC_ZH.match(text) or _REACTION_ZH.search(text) or _REQUEST_ZH.match(text):
        return Salience(False, 0.0)
    subj = _SELF_ZH.search(text)
    if subj is None or subj.start() > 12:
        return Salience(False, 0.0)
    han = re.findall(r"[\u4e00-\u9fff]", text)
    latin = re.findall(r"[A-Za-z][\w.+#-]*|\d+", text)
    content = len([c for c in han if not _STOP_ZH.match(c)]) / 2 + len(latin)
    second = len(_SECOND_ZH.findall(text))
    score = content + 0.75 * min(len(s.times), 2) - 1.5 * second
    return Salience(score >= min_content, score, subj.start())
