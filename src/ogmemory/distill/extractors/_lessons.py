"""Lessons: an explanation the user asked for, and a lesson the user draws, English and Chinese.

* "Why did the migration fail yesterday?" answered with "The migration failed because ...
  Dropping the constraint first fixes it." is a ``learning`` worth keeping: the cause and the
  fix, resting on the question and the answer;
* "So the lesson is to drop foreign keys before dropping the tables they point to", "the
  takeaway is to ...", "教训是...", "经验就是..." → ``Lesson: ...``.

>>> asks_why("How come the widget stopped updating after the upgrade?")
True
"""

from __future__ import annotations

import re

from ..types import Candidate
from ._common import NodeContext, Sentence, gate
from ._grammar import finish_en, finish_zh, third_person_en

__all__ = ["asks_why", "explanation", "lesson"]

_WHY = re.compile(
    r"(?i)^(?:\W*(?:so|and|but|ok|hmm|hey)\W+)*(?:why|how\s+come|what\s+(?:caused"
    r"|happened|went\s+wrong|broke|made)|what['’]s\s+(?:causing|wrong))\b"
    r"|为什么|为啥|怎么会|什么原因|怎么回事|原因是什么"
)
_BECAUSE = re.compile(
    r"(?i)\bbecause\b|\bdue\s+to\b|\bcaused\s+by\b|\bthe\s+(?:root\s+)?cause\b"
    r"|\bwhich\s+means\b|\bthat['’]s\s+why\b|\bthis\s+is\s+why\b"
    # an answer to a why that reasons in steps: "B帧 要参考后面的帧，所以编码器必须先攒帧"
    r"|是因为|由于|原因是|根因|根本原因|导致|因为|所以|因此|这就"
)
_FIX = re.compile(
    r"(?i)\bfix(?:es|ed)?\b|\bsolv(?:es|ed)\b|\bresolv|\bavoid"
    r"|\bworks?\s+(?:now|again)|^[a-z]+ing\b|\bafter\b"
    r"|解决|修复|就好了|就行了|改成|加上|之后就|就能避免|可以避免|防止"
)
# a step of the chain the cause set off, said next
_CHAIN = re.compile(
    r"(?i)\bas\s+a\s+result\b|\bwhich\s+(?:then\s+)?(?:made|caused|meant)\b|以后|之后|于是|结果"
)
# "the lesson is to ...", "Lesson learned, ...", "Takeaway: ...", "the moral here - ..."
_LESSON_EN = re.compile(
    r"(?i)\b(?:the\s+)?(?:lessons?(?:\s+learned)?|takeaway|moral|rule\s+of\s+thumb)"
    r"(?:\s+(?:here|for\s+(?:next\s+time|the\s+future|\w+)))?\s*(?:\s(?:is|was)|:|,|\s[-–—])\s+"
    r"(?:to\s+|that\s+)?(?P<x>.{6,200})"
)
_LESSON_ZH = re.compile(r"(?:教训|经验|结论|收获)(?:就)?(?:是|：|:)\s*(?P<x>.{4,120})")
_ME_EN = re.compile(r"\bI(?:['’]ve|\s+have)?\s+(?=[a-z])")


_WHY_GATE = re.compile(r"(?i)why|how come|what|为什么|为啥|怎么会|原因|怎么回事")


def asks_why(text: str) -> bool:
    """Whether a message asks for a cause ("why ...?", "how come ...", "为什么 ...")."""
    if not _WHY_GATE.search(text):
        return False
    return any(
        _WHY.search(part.strip())
        for part in re.split(r"(?<=[.!?。！？])\s*", text)
        if part.strip().endswith(("?", "？")) or re.search(r"为什么|为啥|怎么会", part)
    )


# "It timed out because ...", "They were double counted because ...": a pronoun subject
_PRONOUN_EN = re.compile(
    r"^(?P<p>it|they|this|that)\s+(?:(?:was|were|is|are|has|had|have)\s+)?"
    r"(?P<w>[a-z]+)",
    re.IGNORECASE,
)
# where the noun phrase a question asks about starts: a determiner, or right after the
# auxiliary of "why were X ...", "how come X ..."
_DET_EN = re.compile(
    r"\b(?:the|our|my|this|that|these|those|your)\s+|\b(?:why\s+(?:was|were|is"
    r"|are|did|does|do|has|have|had)|how\s+come)\s+(?!the\b|our\b|my\b|this\b"
    r"|that\b|these\b|those\b|your\b|it\b|they\b|you\b|we\b|i\b)",
    re.IGNORECASE,
)
_WHEN_POSS = re.compile(
    r"^(?:yesterday|today|tonight|last\s+\w+|this\s+\w+)['’]s\s+", re.IGNORECASE
)
# words that end the noun phrase: "the retries kept piling up", "the build suddenly broke"
_NP_STOP = frozenset(
    (
        "kept",
        "keep",
        "keeps",
        "get",
        "gets",
        "got",
        "start",
        "started",
        "starts",
        "stopped",
        "suddenly",
        "always",
        "still",
        "just",
        "so",
        "too",
        "very",
        "really",
        "that",
        "this",
    )
)
_CAUSE_ZH = re.compile(r"^(?P<p>它|这|那)?(?P<pred>[^，,。是]{0,4}?)(?:是因为|是由于|的原因是)")
_ASK_ZH = re.compile(r"(?:为什么|为啥|怎么会)(?P<q>[^？?。]+)")
_DEGREE_ZH = re.compile(r"(?:这么|那么|会|又|总是|老是|一直|突然|总)+$")


def _subject_en(question: str, answer: str) -> str | None:
    """The noun phrase of the question that the answer's pronoun stands for: "Why did the
    nightly job time out?" + "It timed out because ..." → "the nightly job"."""
    m = _PRONOUN_EN.match(answer)
    if m is None:
        return None
    stem = m.group("w").lower()[:3]
    for d in _DET_EN.finditer(question):
        words = question[d.end() :].split()
        for k, w in enumerate(words[:6]):
            if k and w.lower().strip("?,.!")[:3] == stem:
                det = d.group().strip().lower()
                det = (
                    "the" if det in ("our", "my", "your", "this", "that", "these", "those") else det
                )
                np = words[:k]
                while np and np[-1].lower() in _NP_STOP:
                    np.pop()
                if not np:
                    return None
                if det not in ("the",):  # the phrase itself starts right after the auxiliary
                    phrase = _WHEN_POSS.sub("the ", " ".join(np))
                    named = phrase.split()[0].lower() == "the" or phrase[:1].isupper()
                    return phrase if named or len(np) > 1 else None
                return " ".join([det, *np])
    return None


def _with_subject(text: str, question: str, zh: bool) -> str:
    """``text`` with a pronoun subject (or, in Chinese, a missing one) replaced by what the
    question asked about, so the lesson reads on its own."""
    if zh:
        m, q = _CAUSE_ZH.match(text), _ASK_ZH.search(question)
        if m is None or q is None or not m.group("pred"):
            return text
        asked = q.group("q")
        at = asked.find(m.group("pred"))
        subj = _DEGREE_ZH.sub("", asked[:at]).strip() if at > 0 else ""
        if not subj or subj in text:
            return text
        return subj + text[m.end("p") if m.group("p") else 0 :]
    phrase = _subject_en(question, text)
    pron = _PRONOUN_EN.match(text)
    if phrase is None or pron is None:
        return text
    return phrase[:1].upper() + phrase[1:] + text[pron.end("p") :]


def _you_zh(text: str) -> str:
    """The answer's 你 is the user it answers: "你这几面墙" is "这几面墙", "你的配置" is
    "用户的配置"."""
    text = re.sub(r"你(?=[这那])", "", text)
    return text.replace("你们", "团队").replace("您", "用户").replace("你", "用户")


def explanation(
    sentences: list[Sentence], ctx: NodeContext, question_id: str, question: str = ""
) -> Candidate | None:
    """The cause (and fix) an answer gives, as a learning resting on question and answer;
    ``question``'s subject stands in for a pronoun ("It failed because ...")."""
    cause = next((i for i, s in enumerate(sentences) if _BECAUSE.search(s.text)), None)
    if cause is None:
        return None
    picked = [_with_subject(_dated(sentences[cause]), question, sentences[cause].lang == "zh")]
    for s in sentences[cause + 1 : cause + 3]:
        if s.question:
            break
        if _FIX.search(s.text):
            picked.append(_dated(s))
            break
        if _CHAIN.search(s.text):  # "kubelet 检测到 DiskPressure 以后开始驱逐 Pod": what followed
            picked.append(_dated(s))
    zh = sentences[cause].lang == "zh"
    if zh:
        text = "".join(p.rstrip("。") + "。" for p in picked).replace("我", "")[:-1]
        text = finish_zh(_you_zh(text))
    else:
        text = " ".join(finish_en(_addressed(_ME_EN.sub("", p))) for p in picked)
    if len(text) > 320:
        text = text[:317].rstrip() + "…"
    return ctx.candidate(
        "pattern",
        text,
        "zh" if zh else "en",
        subject=None,
        kind="learning",
        event_time=ctx.event_time,
        confidence=0.75,
        importance=0.75,
        attrs={"explains": question_id},
    )


_YOU_SUBJ = re.compile(
    r"(?P<pre>^|[,;:(]\s|\b(?i:because|so|if|when|that|and|but|since|as|while|until)\s)"
    r"(?i:you)(?=\s)"
)


def _addressed(text: str) -> str:
    """An answer said to the user, restated of the user ("because you store times in UTC" →
    "because the user stores times in UTC")."""
    if not re.search(r"(?i)\byou", text):
        return text
    said = re.sub(
        r"(?i)\byou['’](re|ve|ll|d)\b",
        lambda m: "I" + {"re": "'m"}.get(m.group(1).lower(), "'" + m.group(1)),
        text,
    )
    said = _YOU_SUBJ.sub(r"\g<pre>I", said)
    said = re.sub(r"(?i)\byour\b", "my", re.sub(r"(?i)\byourself\b", "myself", said))
    said = re.sub(r"(?i)\byou\b", "me", said)
    said = third_person_en(said, "the user")
    return said[:1].upper() + said[1:]


def _dated(s: Sentence) -> str:
    """The sentence with its relative dates replaced by the days they name."""
    text = s.text
    for t in sorted(s.times, key=lambda t: -t.start):
        label = t.label(s.lang)
        text = f"{text[: t.start]}{label if s.lang == 'zh' else 'on ' + label}{text[t.end :]}"
    return text


# A cause the user found themselves: "The deploy hung because the readiness probe was
# missing", "Turned out the root cause was an expired cert", "打包失败是因为少了混淆规则"
_FAILED_EN = (
    r"(?:failed|fails|broke|breaks|hung|hangs|crashed|crashes|timed\s+out|times\s+out|stalled"
    r"|leaked|errored|lagged|went\s+down|kept\s+\w+ing|(?:was|were|is|are)\s+(?:slow|down|flaky"
    r"|failing|broken|hanging|crashing|dropped|duplicated|lost|stale|wrong))"
)
_CAUSE_STATED_EN = re.compile(
    r"(?i)^(?:(?:so|ok(?:ay)?|fyi|btw|found\s+it|got\s+it|update)[,:!.\s-]+)*(?:(?:it\s+)?turn(?:s|ed)"
    r"\s+out\s+(?:that\s+)?)?(?P<x>(?:(?:the|our|my)\s+[^,;:]{3,60}?\s+" + _FAILED_EN + r"\b"
    r"[^;:]{0,40}?\s+(?:because|due\s+to)\s+"
    # "The crash on startup was caused by a missing ProGuard rule"
    r"|(?:the|our|my)\s+(?:[\w-]+\s+){0,3}?(?:crash(?:es)?|errors?|bugs?|outages?|failures?|leaks?"
    r"|timeouts?|regressions?|slowdowns?|lag|incidents?|flak(?:e|es|iness))\b[^,;:]{0,40}?\s+"
    r"(?:was|were|is|are)\s+caused\s+by\s+"
    r"|(?:the\s+)?(?:root\s+cause|reason|culprit)(?:\s+(?:of"
    r"|for|why|behind)\s+[^,;:]{3,60}?|\s+(?:the|our|my)\s+[^,;:]{2,40}?\s+" + _FAILED_EN + r")?"
    r"\s+(?:was|is|turned\s+out\s+to\s+be)\s+)\S.{5,200})"
)
_CAUSE_STATED_ZH = re.compile(
    r"^(?:(?:原来|结果|查了一下|找到了)[，,]?)*(?P<x>(?![我你他她](?!们))[^，,。]{0,20}?(?:失败|报错|出错|出问题|崩溃|卡顿|超时|挂了"
    r"|慢|泄漏|重复|丢失|丢数据|不一致|白屏|闪退|卡死|打不开)(?:的原因)?[，,]?\s*(?:是因为|是由于|是|原因是)"
    r"\s*\S.{3,120})"
)
_CAUSE_GATE = gate("because due cause caused reason culprit")
_CAUSE_GATE_ZH = re.compile(r"原因|因为|由于")


def stated_cause(s: Sentence, ctx: NodeContext) -> Candidate | None:
    """A cause the user found and states (a ``learning``), in a developer session."""
    if ctx.listener:
        return None
    if not (_CAUSE_GATE_ZH.search(s.text) if s.lang == "zh" else s.has(_CAUSE_GATE)):
        return None
    m = (_CAUSE_STATED_ZH if s.lang == "zh" else _CAUSE_STATED_EN).match(s.text.strip())
    if m is None or not ctx.first("learning", m.group("x")):
        return None
    x = m.group("x").strip()
    if s.lang == "zh":
        text = finish_zh(x.replace("我们", "团队").replace("我", ctx.name("zh")))
    else:
        x = third_person_en(x, ctx.speaker, group="the team")
        text = finish_en(x[:1].upper() + x[1:])
    return _learning(ctx, s, text, 0.7, 0.75)


def _learning(
    ctx: NodeContext, s: Sentence, text: str, confidence: float, importance: float
) -> Candidate:
    """A ``learning`` of the team, dated when it was said."""
    return ctx.candidate(
        "pattern",
        text,
        s.lang,
        kind="learning",
        event_time=ctx.event_time,
        confidence=confidence,
        importance=importance,
        collective=True,
    )


def lesson(s: Sentence, ctx: NodeContext) -> Candidate | None:
    """A lesson the speaker states, if any (else a cause they found)."""
    if s.question or not ctx.personal:
        return None
    m = (_LESSON_ZH if s.lang == "zh" else _LESSON_EN).search(s.text)
    if m is None:
        return stated_cause(s, ctx)
    if not ctx.first("learning", m.group("x")):
        return None
    x = m.group("x").strip().lstrip("：:").strip()
    if s.lang == "zh":
        text = finish_zh(f"经验：{x.rstrip('。')}")
    else:
        text = finish_en(f"Lesson: {x[:1].lower()}{x[1:]}")
    return _learning(ctx, s, text, 0.8, 0.8)
