"""First-person events in Chinese ("我昨天去了一个互助小组"): a clause with a time phrase and a
我/我们 subject becomes a dated timeline event; see ``_events`` for the English ones."""

from __future__ import annotations

import re

from ..dates import TimeExpr
from ..types import Candidate
from ._common import NodeContext, Sentence
from ._events import _clauses, _event_candidate, at_session

__all__ = ["events_zh"]


# ----------------------------------------------------------------------------- Chinese

_CLAUSE_ZH = re.compile(r"[，,；;：:]|\s+[-—]+\s+|(?:但是|不过|因为|所以|而且)")
_SUBJ_ZH = re.compile(r"我们|咱们|我")
_OTHER_PRONOUN_ZH = re.compile(r"你|您|他|她|它")
_EVENTIVE_ZH = re.compile(r"了|过|要|会|将|打算|准备|计划|去|来|开始|结束|完成")
_MARKED_ZH = re.compile(r"了|过|要|会|将|打算|准备|计划")
_STATIVE_ZH = re.compile(
    r"^(?:们)?(?:也|都|还|真|很|就)?(?:觉得|认为|希望|喜欢|爱|讨厌|知道|记得|"
    r"想|感觉|以为|相信|明白|理解|同意|担心|害怕|是|很|太|挺|非常|特别|好|真|超|有点"
    r"|比较)"
)
_RECENT_ZH = re.compile(r"刚刚|刚|最近|今天|这几天")
_NEG_ZH = re.compile(r"没有?|不(?!错|少|久|断|停|仅|但)|别|未")
_LIFE_ZH = re.compile(
    r"(?:我|我们)(?:刚刚?|终于|已经|最近|也|今天)?(?:领养|收养|开始|完成|毕业|结婚|订婚"
    r"|买|搬|加入|赢|辞职|退休|入职|跑完|生|考上|拿到|获得|参加|发布|上线|换|找到|学会"
    r"|养|去|报名|注册|创办|成立)[^，。！？]{0,3}?了"
)


_SCHEDULED_ZH = re.compile(
    r"^(?:另外|还有|对了)?(?:凌晨|上午|下午|晚上|早上|中午)?[^，,。我你他她]{0,6}?有(?:个|一个|一次|一场|场)"
)
_CONNECTIVE_ZH = re.compile(r"^(?:另外|还有|对了|然后|而且|并且|同时)[，,\s]*")
_THING_SUBJ_ZH = re.compile(
    r"[A-Za-z0-9][\w.-]*(?:\s+[A-Za-z0-9][\w.-]*)?\s*(?:又|也|突然|一直)?"
    r"(?:变成|挂了|挂掉|宕机|宕了|出了|出现|报错|崩了|崩溃|被|重启|掉线|满了|超时)"
)


def events_zh(s: Sentence, ctx: NodeContext) -> list[Candidate]:
    """Dated and undated first-person events in one Chinese sentence."""
    if s.question or s.hypothetical or not ctx.personal:
        return []
    text = s.text
    out: list[Candidate] = []
    spans = _clauses(text, _CLAUSE_ZH)
    dated: set[int] = set()
    for t in s.times:
        idx = next((i for i, (a, b) in enumerate(spans) if a <= t.start < b), None)
        if idx is None or idx in dated:
            continue
        a, b = spans[idx]
        if not text[a:b].replace(t.text, "").strip() and idx + 1 < len(spans):
            idx += 1  # "昨天，我去了医院"
            a, b = spans[idx]
        when: TimeExpr | None = t
        if text.startswith("的", t.end):  # "我报名了九月的马拉松": the date is the race's
            clause, when = text[a:b].strip(), at_session(ctx)
        else:
            clause = text[a:b].replace(t.text, "", 1).strip()
        if t.text in ("今天", "今日") and not _SUBJ_ZH.search(clause):
            continue
        subj = _SUBJ_ZH.search(clause)
        if subj is None and _OTHER_PRONOUN_ZH.search(clause):
            continue
        after = clause[subj.end() :] if subj else clause
        if _STATIVE_ZH.match(after):
            continue
        # "下周三凌晨两点有个停机维护窗口": something scheduled, no one's action
        scheduled = subj is None and _SCHEDULED_ZH.match(clause) is not None
        if subj is None and not _MARKED_ZH.search(after) and not scheduled:
            continue  # no subject: only a clearly marked action ("去了医院") counts
        if not _EVENTIVE_ZH.search(after) and len(after) < 3:
            continue
        if _NEG_ZH.search(after[:4]):
            continue
        clause = _CONNECTIVE_ZH.sub("", clause)
        # "另外昨晚 node-7 变成 NotReady 了": a machine or service is what the event is about
        thing = subj is None and (scheduled or _THING_SUBJ_ZH.match(clause) is not None)
        body = clause if subj or thing else "我" + clause
        tense = "future" if when is t and t.day > ctx.ref_day else "past"
        cand = _event_candidate(ctx, s, when, body, "zh", tense, 0.7 if subj else 0.6)
        if cand is not None:
            out.append(cand)
            dated.add(idx)
    for i, (a, b) in enumerate(spans):
        if i in dated:
            continue
        m = _LIFE_ZH.search(text, a, b)
        if m is None or _NEG_ZH.search(text[m.start() : m.end()]):
            continue
        recent = _RECENT_ZH.search(m.group())
        when = TimeExpr(recent.group(), -1, -1, ctx.ref_day, approximate=True) if recent else None
        cand = _event_candidate(
            ctx, s, when, text[m.start() : b], "zh", "past", 0.55 if recent else 0.5
        )
        if cand is not None:
            out.append(cand)
    return out
