"""Deadlines and their changes, English and Chinese: "The beta is due on March 20", "the
beta deadline moved to March 27", "上线时间推迟到 4 月 22 日了". The slot is ``deadline:<what>``,
so a change ends the old date of the same thing and nothing else; a deadline stays current
until it changes.

>>> deadline_key("the 1.0 release"), deadline_key("Release 1.0"), deadline_key("上线截止日期")
('1.0', '1.0', '上线')
>>> deadline_key("the new checkout"), deadline_key("the checkout launch")
('checkout', 'checkout')
>>> deadline_key("新版推流 SDK的发版"), deadline_key("推流 SDK 的发版")
('sdk 发版 推流', 'sdk 发版 推流')
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

from ...entity.periods import period_bounds
from ..dates import TimeExpr, find_times
from ..types import Candidate, EntityRef
from ._common import NodeContext, Sentence, content_text, date_attrs, gate
from ._grammar import finish_en, finish_zh

__all__ = ["deadline_key", "deadlines", "future_time"]


_DUE_EN = re.compile(
    r"(?P<thing>(?<![\w.-])(?:(?i:the|our)\s+)?(?!(?i:to|of|for|in|on|at|by|with|from)\b)[\w.-]+"
    r"(?:\s+[\w.-]+){0,3}?)\s+(?P<verb>is\s+due|are\s+due"
    r"|(?:has|have|needs?|is\s+supposed|are\s+supposed|is\s+going|are\s+going)\s+to\s+"
    r"(?:be\s+)?(?:done|shipped|ship|released|release|launch(?:ed)?|land(?:ed)?|out|live|go\s+live"
    r"|ready|finished|finish|submitted|submit|delivered|deliver|merged|locked|frozen|complete[d]?"
    r"|in\s+[\w\s]{1,20}?)"
    r"|must\s+(?:ship|launch|land|go\s+live|be\s+\w+)|should\s+(?:ship|launch|land|be\s+\w+)"
    r"|will\s+(?:ship|launch|land|go\s+live|go\s+out|be\s+(?:released|out|live|ready|done))"
    r"|(?:is|are)\s+(?:scheduled|planned|slated|set|targeted|penciled\s+in|booked)\s+for"
    r"|(?:is|are)\s+(?:shipping|launching|releasing|going\s+live|going\s+out)"
    r"|ships|launches|lands|releases|goes\s+live|goes\s+out|(?:deadline|due\s+date)\s+is)\b"
)
# "the CORDEX deliverable slipped, it's November 5 now": the change, then the new date
_SLIPPED_NOW_EN = re.compile(
    r"(?P<thing>(?:(?i:the|our)\s+)?[\w.-]+(?:\s+[\w.-]+){0,3}?)\s+(?:(?i:has|have)\s+)?"
    r"(?P<verb>(?i:slipped|slid|moved|(?:got|was|has\s+been|were)\s+(?:pushed|moved|delayed|postponed)"
    r"(?:\s+(?:back|out))?|(?:is|was)\s+delayed|(?:is|was)\s+postponed))\s*[,;:–—-]+\s*"
    # "..., Hana says it's May 28 now": who says so, before the new date
    r"(?:[A-Z][\w-]*\s+(?i:says|said|thinks|confirmed)\s+)?"
    r"(?:(?i:it['’]s|it\s+is|that['’]s|now|the\s+new\s+date\s+is)\s+)(?:(?i:now|due|on)\s+)*(?=\S)"
)
# "the CORDEX deliverable for the EUR-11 runs is due ...": the head of the thing said
_HEAD_FOR_EN = re.compile(
    r"(?:^|[:,;]\s*|\s)(?P<h>(?i:the|our)\s+[\w.-]+(?:\s+[\w.-]+){0,2}?)\s+(?i:for|of)\s+$"
)
# "Correction, the release is now April 21": a new date for something already planned
_NOW_EN = re.compile(
    r"(?P<thing>(?:(?i:the|our)\s+)?[\w.-]+(?:\s+[\w.-]+){0,2}?)\s+(?P<verb>(?:is|are)\s+now"
    r"|now\s+(?:ships|launches|lands|goes\s+live))(?:\s+(?:due|scheduled\s+for|set\s+for"
    r"|planned\s+for|happening))?(?:\s+(?:on|for|by))?\s+(?=\S)"
)
_MOVED_EN = re.compile(
    r"(?P<thing>(?:the\s+|our\s+)?[\w.-]+(?:\s+[\w.-]+){0,2}?)(?:['’]s)?\s*(?:deadline|due\s+date"
    r"|date)?\s+(?:was\s+|got\s+|has\s+been\s+|is\s+|just\s+)?(?P<verb>moved|slipped"
    r"|pushed(?:\s+(?:back|out))?|postponed|delayed|changed|rescheduled|brought\s+forward"
    r"|moved\s+(?:up|out)|bumped|shifted|slid|got\s+moved|slips|moves|shifts|slides"
    r"|(?:gets|is\s+being)\s+(?:pushed|moved)(?:\s+(?:back|out))?|is\s+(?:slipping|moving))"
    r"(?:\s+from\s+[^,;.!?]{1,24}?)?"
    # "slips a week, to August 27", "moved by two days to ..."
    r"(?:\s+(?:by\s+)?(?:a|an|one|two|three|four|a\s+few|\d+)\s+(?:days?|weeks?|months?)\s*,?)?"
    r"\s+(?:back\s+)?(?:to|until|till)\b",
    re.IGNORECASE,
)
# "The launch is June 5th", "our demo is on Friday", "v2.1 is set for May 30": a work event
# named as a date is its plan
_WORK_EVENT = (
    r"demo|launch|release|release\s+date|go-live|cutover|deadline|milestone|submission|handoff"
    r"|beta|code\s+freeze|feature\s+freeze|freeze|rc|rollout|migration|kickoff|ga"
)
_IS_ON_EN = re.compile(
    rf"(?P<thing>(?:(?i:the|our)\s+|^(?=[A-Z]))(?:[\w.-]+\s+){{0,2}}?(?i:{_WORK_EVENT})|v?\d+(?:\.\d+)+)"
    r"(?P<verb>\s+is|'s)\b(?!\s+(?i:done|over|finished|complete|behind|late|ready|live|out)\b)"
)
# "We're shipping v2 on May 30", "we go live on the 12th of May", "we launch next Tuesday"
# "We're aiming to cut 1.0 on February 26th": a version cut is its release
_WE_SHIP_EN = re.compile(
    r"\b(?i:we)(?:['’]re|\s+are|['’]ll|\s+will|\s+plan\s+to|\s+want\s+to)?\s+(?:be\s+)?"
    r"(?:(?i:aiming|planning|hoping|going|targeting|trying|expecting)\s+to\s+)?"
    r"(?P<verb>(?i:ship(?:ping)?|launch(?:ing)?|releas(?:e|ing)|go(?:ing)?\s+live|deliver(?:ing)?"
    r"|cut(?:ting)?\s+over|(?:cut|tag)(?:ting|ging)?(?=\s+v?\d+(?:\.\d+)+)))"
    r"(?:\s+(?P<thing>(?!on\b|by\b|in\b|next\b|this\b)"
    r"[\w.-]+(?:\s+[\w.-]+)?))??\s+(?i:on|by|in|next|this)\b"
)
# "1.0 is slipping. …, so the new target is March 12th": a new date for what slipped before
_NEW_TARGET_EN = re.compile(
    r"(?i)\b(?:the\s+)?new\s+(?:target(?:\s+date)?|date|deadline|due\s+date|release\s+date|eta)"
    r"(?:\s+for\s+(?P<thing>(?:the\s+)?[\w.-]+(?:\s+[\w.-]+){0,4}?))?\s+(?P<verb>is|will\s+be)\b"
)
_SLIPPING_EN = re.compile(
    r"(?P<thing>(?i:the|our)\s+[\w.-]+(?:\s+[\w.-]+){0,2}?|(?:[A-Z][\w.-]*|v?\d+(?:\.\d+)+"
    r"|(?i:release|launch|beta|demo|migration|rollout|delivery))(?:\s+[\w.-]+){0,2}?)\s+"
    r"(?i:is|was|has\s+been|['’]s)?\s*"
    r"(?i:slipping|slipped|slips|delayed|late|behind|going\s+to\s+slip|not\s+going\s+to\s+make\s+it)\b"
)
_VERB_NOUN = {
    "ship": "the release",
    "laun": "the launch",
    "rele": "the release",
    "go": "the go-live",
    "deli": "the delivery",
    "cut": "the cutover",
}
_COMMON_THING = re.compile(rf"(?i)^(?:{_WORK_EVENT})$")
_MOVED_OBJ_EN = re.compile(
    r"(?i)\b(?P<verb>(?:push|move|postpone|delay|reschedule|bump|shift)(?:ed|d|ing|es|s)?"
    r"|bring|brought|bringing)\s+(?P<thing>(?:the|our)\s+[\w.-]+(?:\s+[\w.-]+){0,3}?)"
    r"(?:\s+(?:for|of)\s+(?:the\s+)?[\w.-]+)?\s+"  # "the Flask decommission for the recommender"
    r"(?:out\s+|back\s+|up\s+|forward\s+)?(?:to|until|till)\b"
)
# "the trio delivery slips. Fiona agreed to push it to April 2nd": "it" is what slipped
_MOVED_IT_EN = re.compile(
    r"(?i)\b(?P<verb>push|move|postpone|delay|reschedule|bump|shift)(?:ed|d|ing|es|s)?\s+it\s+"
    r"(?:out\s+|back\s+)?(?:to|until|till)\b(?P<thing>)"
)
# "Finance want the margin model by Thursday next week", "Colin needs the backfill finished by
# May 27": someone asks for a thing by a date
_WANTS_BY_EN = re.compile(
    r"(?i)\b(?:wants?|needs?|expects?|asked\s+for|asks\s+for)\s+(?P<thing>(?:the|our)\s+[\w.-]+"
    r"(?:\s+[\w.-]+){0,3}?)\s+(?:(?:done|finished|ready|delivered|shipped|submitted|merged)\s+)?"
    r"(?=by\b)"
)
_NAMES_DEADLINE = re.compile(r"(?i)\b(?:deadline|due\s+date)$")
_DEADLINE_WORD_EN = re.compile(r"\b(?:deadline|due\s+date)\s+(?:is|was)\b", re.IGNORECASE)
_DUE_ZH = re.compile(
    r"(?P<thing>[\u4e00-\u9fffA-Za-z0-9.\s]{1,12}?)(?:的)?(?:截止日期|截止时间|截止|期限|deadline)"
    r"(?:是|为|定在|在)?"
)
_BEFORE_ZH = re.compile(
    r"(?P<thing>[\u4e00-\u9fffA-Za-z0-9.\s]{1,12}?)(?:要|必须|需要|得|务必|应该)在\s*$"
)
# "二期固件最晚 12 月 1 日要交付": the thing, "at the latest", the date, the act that is due
_LATEST_ZH = re.compile(
    r"(?P<thing>[\u4e00-\u9fffA-Za-z0-9.]{1,12}?)\s*(?:最晚|最迟)(?:要|得|必须)?在?\s*$"
)
_DUE_ACT_ZH = re.compile(
    r"\s*(?:之前|以前|前)?\s*(?:要|得|必须|需要)?\s*(?P<act>交付|上线|发布|完成|提交|交)"
)
_MODAL_ACT_ZH = re.compile(
    r"\s*(?:之前|以前|前)?\s*(?:必须|一定要|务必|得|需要|要)\s*(?P<act>交付|上线|发布|完成|提交|上架|交)"
)
# "新版排序模型 9 月 1 日上线": a thing, a date, and the act planned for it (not "上线了")
_PLAIN_ACT_ZH = re.compile(
    r"\s*(?:正式)?(?P<act>上线|发布|交付|提测|提审|上架|发版|开服)(?![了过])(?=\s*(?:[。！!，,；;]|$))"
)
_PAST_ZH = re.compile(r"昨天|前天|上周|上个月|去年|刚才|已经")
_THING_ZH = re.compile(
    r"(?:^|[，,。；;]\s*)(?P<thing>[\u4e00-\u9fffA-Za-z0-9.][\u4e00-\u9fffA-Za-z0-9.\s]{0,13}?)\s*"
    r"(?:定在|定于|在)?\s*$"
)
_MOVED_ZH = re.compile(
    r"(?P<thing>[\u4e00-\u9fffA-Za-z0-9.\s]{1,14}?)(?:的)?(?:截止日期|截止时间|截止|期限|时间|日期)?"
    r"(?P<verb>推迟|延期|延迟|延后|推后|顺延|往后推|延|改|提前|挪|调整|推)"
    r"(?:了?(?:一|两|三|几|半|\d+)\s*(?:天|周|个?星期|个?月)[，,]?\s*(?:改)?)?(?:到|至|为)"
)
_PERSONAL = re.compile(r"(?i)^(?:i|we|you|he|she|they|it|me|us|them|this|that|我|我们|你|他|她)$")
_DEADLINE_CONTEXT = re.compile(
    r"(?i)\b(?:deadline|due|release|launch|beta|demo|delivery|milestone|sprint|review|v?\d+\.\d+"
    r"|ship(?:ping)?|go-live|cutover|freeze|submission|handoff|kickoff|rollout)\b|截止|期限|上线|发布|交付|报表|报告|推迟|延期|延到|提前"
)
_NOISE_THING = re.compile(
    r"^(?:(?:bad|good)\s+news|so|and|but|also|ok(?:ay)?|change\s+of\s+plans|actually|update"
    r"|correction|reminder|fyi|btw|heads\s+up|note|quick\s+update"
    # reported speech: "Sara says API v2 slips ...", "(he) told me the beta moved ..."
    r"|(?:[A-Z][\w-]*\s+)?(?:says|said|told\s+(?:me|us)|mentioned|confirmed|reports|reported)"
    r"(?:\s+that)?)[:,\s]+",
    re.IGNORECASE,
)


_KEY_STOP = frozenset("the our a an is was my this that".split())
_KEY_GENERIC = frozenset(
    "new upcoming next launch release rollout roll-out go-live golive cutover ship shipping"
    " version".split()
)


def deadline_key(thing: str) -> str:
    """What a deadline is of, normalised so that two phrasings meet: sorted words, no
    articles, no "deadline"/"截止日期"."""
    t = re.sub(
        # and the modal or change words a Chinese thing runs into ("接口要在", "接口改成 … 上线")
        r"(?:截止日期|截止时间|截止|期限|时间|日期|的|改成|改到|改为|提前|推迟|延期|必须|需要|要|新版|新的"
        r"|deadline|due\s+date|date)",
        " ",
        thing,
        flags=re.IGNORECASE,
    )
    words = [w.lower() for w in re.findall(r"[\w.]+", t) if w.lower() not in _KEY_STOP]
    # "the new checkout" and "the checkout launch" are one thing; "the launch" alone is what
    # is due, so it stays
    named = [w for w in words if w not in _KEY_GENERIC]
    return " ".join(sorted(named or words))


def _last_day(t: TimeExpr) -> str:
    """The day a deadline falls on: the phrase's day, or the last day of its month or year."""
    if t.granularity in ("day", "week", "weekend"):
        return t.iso
    start = datetime(t.day.year, t.day.month, 1, tzinfo=UTC).timestamp()
    _, end = period_bounds(start, t.precision.lstrip("~"))
    return (datetime.fromtimestamp(end, UTC).date() - timedelta(days=1)).isoformat()


def future_time(s: Sentence, ctx: NodeContext, after: int) -> TimeExpr | None:
    """The date after position ``after``, read as a future one (deadlines are ahead)."""
    for t in find_times(s.text, ctx.ref_day, past=False):
        if t.start >= after:
            return t
    return None


def _deadline(
    ctx: NodeContext,
    s: Sentence,
    thing: str,
    t: TimeExpr,
    moved: bool,
) -> Candidate | None:
    thing = _NOISE_THING.sub("", thing.strip()).strip()
    if s.lang == "zh":  # "一是大屏上线推迟到 …": the count of news is no part of the thing
        thing = re.sub(
            r"^(?:[一二三四]是|其[一二三]|首先|其次|第[一二三四]|另外|还有)\s*", "", thing
        )
    else:
        thing = re.sub(r"^(?i:our)\s+", "the ", thing)
    key = deadline_key(thing)
    if not ctx.first("constraint", "deadline") or not ctx.first("deadline", key):
        return None
    zh = s.lang == "zh"
    iso = _last_day(t)
    # "due in June" is due by its last day, and the text says June, not a made-up day
    when = iso if t.granularity == "day" else f"{t.label(s.lang)}，最晚 {iso}"
    if not zh and t.granularity != "day":
        when = f"{t.label()}, by {iso}"
    if zh:
        shown = thing or "截止日期"
        due = "截止日期是" if "的" in shown else "的截止日期是"  # 二期固件的交付截止日期是
        text = finish_zh(f"{shown}{'改到了' if moved else due} {when}")
    else:
        shown = thing or "the deadline"
        if not moved:  # "the release date is due on ...": the release is
            shown = re.sub(r"(?i)\s+(?:date|due\s+date)$", "", shown) or shown
        if _COMMON_THING.match(shown):
            shown = shown.lower()  # "Launch moved to ...": the launch, not a name
        shown = re.sub(r"^(?i:our)\b", "the", shown)  # memories are third person
        if not (re.match(r"(?i)the\b|v?\d", shown) or shown[:1].isupper()):
            shown = f"the {shown}"
        on = "on" if t.granularity == "day" else "in"
        moved_to = "moved to" if _NAMES_DEADLINE.search(shown) else "deadline moved to"
        text = finish_en(f"{shown} {moved_to if moved else 'is due ' + on} {when}")
        text = text[:1].upper() + text[1:]
    slot = f"deadline:{key}" if key else "deadline"
    name = f"{thing or ('截止' if zh else 'deadline')} due {iso}"
    attrs: dict[str, Any] = {**date_attrs(t), "deadline": iso, "what": thing, "planned": True}
    if moved:
        attrs["moved"] = True
    return ctx.candidate(
        "constraint",
        text,
        s.lang,
        relation="has_deadline",
        object=EntityRef(name, "deadline", attrs={"deadline": iso}),
        slot=slot,
        confidence=0.85,
        importance=0.9,
        attrs=attrs,
        collective=True,
    )


_DEADLINE_GATE = gate(
    "due deadline slips slides moves shifts slipping slipped moved pushed postponed delayed"
    " changed rescheduled"
    " brought has have needs need must ships ship launches launch date bumped"
    " shifted live goes out scheduled planned slated set targeted penciled booked"
    " shipping launching releasing releases now will slid lands demo release deadline"
    " milestone submission handoff beta freeze rc rollout migration kickoff ga cutover go"
    " deliver delivering"
    " move push postpone delay reschedule bump shift bring moving pushing"
    " want wants needs expect expects asked asks target eta cut tag"
)
_DEADLINE_GATE_ZH = re.compile(
    r"截止|期限|上线|发布|交付|提测|提审|上架|发版|开服|之前|以前|前|推|延期|延迟|延|改|提前|挪"
    r"|调整|deadline|最晚|最迟|必须|务必|一定要"
)


def _thing_due_zh(text: str, t: TimeExpr) -> str | None:
    """What is due by the date ``t``: "二期固件最晚 12 月 1 日要交付" (at the latest), "新模型 6 月
    20 日必须上线" (must)."""
    latest, act = _LATEST_ZH.search(text[: t.start]), _DUE_ACT_ZH.match(text, t.end)
    if latest and act:
        return f"{latest.group('thing')}的{act.group('act')}"
    # "场景库 v2 要在 5 月 31 日交付给主机厂": what must be done on the date
    must = _BEFORE_ZH.search(text[: t.start])
    if must and act and not re.match(r"\s*(?:之前|以前|前)", text[t.end :]):
        return f"{must.group('thing').strip()}的{act.group('act')}"
    modal = _MODAL_ACT_ZH.match(text, t.end)
    if modal is None and not _PAST_ZH.search(text):
        modal = _PLAIN_ACT_ZH.match(text, t.end)
    head = _THING_ZH.search(text[: t.start]) if modal else None
    if modal and head:
        return f"{head.group('thing')}的{modal.group('act')}"
    return None


# "要把运单查询接口的性能优化完，截止日期是 11 月 8 日": the date names no thing; the clause
# before says what is to be done
_BARE_DUE_ZH = re.compile(
    r"[，,；;]\s*(?:截止日期|截止时间|截止|期限|deadline)\s*(?:是|为|定在|在)"
)
_TO_DO_ZH = re.compile(
    r"把\s*(?P<x>[^，,把]{2,16}?)(?:的[^，,的]{1,6}?)?\s*(?:优化|做|改|写|迁移|上线|完成|交付|搞|弄|提交|开发"
    r"|重构|测)"
)


def _bare_due_zh(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    m = _BARE_DUE_ZH.search(s.text)
    due = future_time(s, ctx, m.end()) if m else None
    if m is None or due is None or due.start - m.end() > 8:
        return
    todo = _TO_DO_ZH.search(s.text[: m.start()])
    c = _deadline(ctx, s, todo.group("x") if todo else "", due, False)
    if c is not None:
        out.append(c)


def _slipped_before(s: Sentence, ctx: NodeContext, upto: int) -> str:
    """What the turn said had slipped before ``upto`` in ``s`` ("1.0 is slipping."), or ""."""
    said = content_text(ctx.record.node.content)
    at = said.find(s.text)
    found = list(_SLIPPING_EN.finditer(said, 0, at + upto if at >= 0 else 0))
    return found[-1].group("thing") if found else ""


def _deadlines(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    if s.question or not s.times:
        return
    if not (_DEADLINE_GATE_ZH.search(s.text) if s.lang == "zh" else s.has(_DEADLINE_GATE)):
        return
    if s.lang == "zh":
        _bare_due_zh(s, ctx, out)
        found = [(m, True) for m in _MOVED_ZH.finditer(s.text)]
        found += [(m, False) for m in _DUE_ZH.finditer(s.text)]
        for t in s.times:
            thing = _thing_due_zh(s.text, t)
            if thing:
                c = _deadline(ctx, s, thing, future_time(s, ctx, t.start) or t, False)
                if c is not None:
                    out.append(c)
                continue
            before = _BEFORE_ZH.search(s.text[: t.start])
            if before and re.match(r"\s*(?:之前|以前|前)", s.text[t.end :]):
                c = _deadline(
                    ctx, s, before.group("thing"), future_time(s, ctx, t.start) or t, False
                )
                if c is not None:
                    out.append(c)
    else:
        found = [(m, True) for m in _MOVED_EN.finditer(s.text)]
        found += [(m, True) for m in _MOVED_OBJ_EN.finditer(s.text)]
        found += [(m, True) for m in _NOW_EN.finditer(s.text)]
        found += [(m, True) for m in _SLIPPED_NOW_EN.finditer(s.text)]
        found += [(m, False) for m in _DUE_EN.finditer(s.text)]
        found += [(m, False) for m in _WANTS_BY_EN.finditer(s.text)]
        found += [(m, False) for m in _IS_ON_EN.finditer(s.text)]
        found += [(m, False) for m in _WE_SHIP_EN.finditer(s.text)]
        found += [(m, True) for m in _NEW_TARGET_EN.finditer(s.text)]
        found += [(m, True) for m in _MOVED_IT_EN.finditer(s.text)]
    for m, moved in sorted(found, key=lambda x: x[0].start()):
        due = future_time(s, ctx, m.end() if m.re is not _WE_SHIP_EN else m.start("verb"))
        if due is None or due.start - m.end() > 32:
            continue
        verb = (m.groupdict().get("verb") or "").lower().split()
        thing = m.group("thing") or _VERB_NOUN.get(verb[0][:4] if verb else "", "")
        if m.re in (_NEW_TARGET_EN, _MOVED_IT_EN) and not thing:
            thing = _slipped_before(s, ctx, m.start())
            if not thing:
                continue
        vague = moved and re.match(
            r"(?i)moved|changed|brought|is|are|now|挪|改|调整", m.group("verb")
        )
        if m.re in (_NEW_TARGET_EN, _MOVED_IT_EN):
            vague = None  # "the new target is ...", "push it to ...": a date named as a deadline
        if m.re is _MOVED_OBJ_EN and re.search(
            r"(?i)\b(?:out|back)\s+(?:to|until|till)$", m.group()
        ):
            vague = None  # "moved the backfill out to December 11th": a date pushed back
        if _PERSONAL.match(thing.strip()) or (vague and not _DEADLINE_CONTEXT.search(s.text)):
            continue  # "I moved to Boston on May 1": a life event, not a deadline
        if not moved and _DEADLINE_WORD_EN.search(m.group()):
            thing = re.sub(r"(?i)\s*(?:deadline|due\s+date)\s+(?:is|was)$", "", m.group())
        head = _HEAD_FOR_EN.search(s.text[: m.start()]) if m.re is _DUE_EN else None
        if head is not None and re.match(r"(?i)(?:the|our)\s", thing):
            thing = head.group("h")  # "the CORDEX deliverable for the EUR-11 runs"
        c = _deadline(ctx, s, thing, due, moved)
        if c is not None:
            out.append(c)


def deadlines(s: Sentence, ctx: NodeContext) -> list[Candidate]:
    """Deadlines and their changes in one sentence (either language)."""
    out: list[Candidate] = []
    if ctx.personal and not s.hypothetical:
        _deadlines(s, ctx, out)
    return out
