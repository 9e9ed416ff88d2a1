"""Technical choices in Chinese ("状态管理用 Zustand", "调度我们换成 Dagster 了", "以后都用
TypeScript 写", "不要再用 jQuery"), and pivots of the business focus in both languages ("我们最近
转向 C 端了", "We pivoted to B2C"). The slots and helpers are those of ``_stack``.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ..types import Candidate, EntityRef, Fact
from ._approach import topic_before
from ._catalog import lookup
from ._choice import choice as _choice
from ._choice import when_said as _when
from ._choice import who_chose as _who
from ._common import NodeContext, Sentence, tool_ref
from ._grammar import finish_en, finish_zh, third_person_zh
from ._stack import avoided

__all__ = ["pivot_en", "stack_zh"]

_T = r"[A-Za-z][\w.+#-]*(?:\s+[A-Z][\w.+#-]*)?"
_P = r"(?P<purpose>[\u4e00-\u9fffA-Za-z][\u4e00-\u9fffA-Za-z0-9\s]{0,9}?)"
_USE_ZH = re.compile(
    rf"(?:^|[，,；;。]\s*){_P}?\s*(?:我们|我|团队)?(?:组)?(?:就|都|还是|统一|一律|主要)?\s*"
    rf"(?P<plan>打算|准备|计划|要|会|决定)?\s*(?:定了|选定了|决定了)?\s*"
    rf"(?:把\s*(?P<p4>[\u4e00-\u9fff]{{1,10}}?)\s*(?=从))?"
    rf"(?:全面|全部|逐步|统一|都)?\s*(?:从\s*{_T}\s*)?"
    rf"(?P<verb>改用|选了|选用|采用|使用|换成|换到|改成|切换到|迁移到|迁到|转到|用的是|用|写入|写到|写)了?\s*"
    rf"(?P<y>{_T})"
)
_DROP_ZH = re.compile(
    rf"(?:不用|不再用|不再使用|停用|弃用|不要再用|别再用|不写|不再写)\s*(?P<x>{_T})\s*了|"
    rf"(?P<x2>{_T})\s*(?:不再用|不用|不再使用)了"
)
_NOT_AFTER = re.compile(
    rf"\s*[，,]?\s*(?:不用|而不是|而不用|不要用|不选|别用|代替|替代|取代)\s*(?:用)?\s*"
    rf"(?P<x>{_T})"
)
# "缓存之前是 Memcached，现在换成 Redis 了", "特征存储一直用的是 Hive 表，查询太慢了，下个月起全部
# 切到 Feast": what was in use, up to two clauses of why, then what replaces it (and when)
_BEFORE_NOW_ZH = re.compile(
    rf"(?P<purpose>[\u4e00-\u9fff]{{1,8}}?)?(?:之前|以前|原来|过去|本来|一直)(?:一直)?"
    rf"(?:的(?P<p3>[\u4e00-\u9fff]{{1,8}}?))?(?:是|用|用的是|在用)\s*"
    rf"(?P<x>{_T})\s*(?:(?:来)?(?:做|当|作为)\s*(?P<p2>[^，,。；;]{{1,10}}?)\s*)?"
    rf"[\u4e00-\u9fff]{{0,2}}[，,]\s*(?:[^，,。；;]{{1,16}}[，,]\s*){{0,2}}?"
    rf"(?P<when>现在|后来|目前|如今|以后|之后|今后|从现在起|从下[^，,。；;]{{1,4}}起|下[^，,。；;]{{1,4}}起"
    rf"|(?:从)?[^，,。；;]{{1,8}}?开始)?\s*(?:我们|团队)?(?:已经|打算|准备|计划|要|会)?"
    rf"(?:全部|统一|都|全都|一律|全面|逐步)?\s*(?:换成|改成|改用|换|切到|切换到|切换成|迁到|迁移到|转到|换到)"
    rf"(?:了)?\s*(?P<y>{_T})"
)
# "用 pnpm 替掉 npm", "单元测试用 Vitest 替换 Jest 吧", "我们打算把 MySQL 迁到 PostgreSQL": the
# new tool named before the old one, or the old one put where the new one goes
_REPLACE_ZH = re.compile(
    rf"(?:^|[，,；;。]\s*){_P}?\s*(?:我们|我|团队)?(?:就|都)?(?P<plan>打算|准备|计划|要|会|决定)?\s*"
    rf"(?:用|拿|改用)\s*(?P<y>{_T})\s*(?:来)?\s*(?:替掉|替换掉?|换掉|代替|取代|顶替|替代)(?:了)?\s*"
    rf"(?P<x>{_T})"
    rf"|(?:^|[，,；;。]\s*){_P.replace('purpose', 'p2')}?\s*(?:我们|我|团队)?(?:就|都)?"
    rf"(?P<plan2>打算|准备|计划|要|会|决定)?\s*把\s*(?P<x2>{_T})\s*(?:全部|都|整体|逐步)?\s*"
    rf"(?:迁到|迁移到|换成|替换成|切到|切换到|换到|改成)(?:了)?\s*(?P<y2>{_T})"
)
_DECIDED_ZH = re.compile(r"决定|定了|选|以后|今后|就用|还是用|统一|一律|改|换|迁|不用|而不是")
_FROM_ZH = re.compile(rf"从\s*(?P<x>{_T})\s*(?:迁移|迁|换|切换|切|转|改)")
_AVOID_ZH = re.compile(
    rf"(?:不要|别|千万别|千万不要|不准|禁止)\s*(?:再)?\s*(?:用|使用|引入)\s*(?P<x>{_T})"
)
_PIVOT_ZH = re.compile(
    r"(?:(?:之前|以前|原来|过去)(?:一直)?(?:做|是|搞|专注)\s*(?P<x>[^，,。；;]{1,12}?)[，,]\s*)?"
    r"(?:最近|现在|目前|如今|已经|开始)?(?:转向|转型到?|转到|转做)(?:了)?\s*(?P<y>[^，,。；;了]{1,12})"
)
_PIVOT_EN = re.compile(
    r"\b(?:we|i)(?:['’]ve|\s+have)?\s+(?:recently\s+|just\s+|now\s+)?(?:pivoted|shifted|switched"
    r"|moved)\s+(?:our\s+focus\s+)?to\s+(?P<y>(?:B2C|B2B|consumers?|enterprise|[A-Z][\w-]*)"
    r"(?:\s+[\w-]+)?)(?:\s+from\s+(?P<x>[\w-]+(?:\s+[\w-]+)?))?"
)
_FORMERLY_ZH = re.compile(r"(?:之前|以前|原来|过去|本来)(?:一直)?(?:是|在)?\s*$")
_NOT_PURPOSE = re.compile(
    r"^(?:我们|我|团队|以后|之后|现在|目前|还是|就|都|也|先|那|这|再|全部|全都|统统|一律|所有|整个)+$"
)
# "我们不用 Helm", "我们不用 ORM，SQL 都是手写的": what the team does not use
_NOT_USING_ZH = re.compile(
    rf"(?:我们|我|团队|组里)(?:现在|目前|已经|也|都|从来|一直|平时)?"
    # not "我们不用 TypeScript 的 enum": a feature of the tool
    rf"(?:不用|不使用|不再用|没用|没有用|不需要|从来不用)\s*(?P<x>{_T})(?![\w.+#-]|\s*的)"
)


def _before_now_zh(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    """ "缓存之前是 Memcached，现在换成 Redis 了": a switch whose old value was named first."""
    for m in _BEFORE_NOW_ZH.finditer(s.text):
        x, y = m.group("x").strip(), m.group("y").strip()
        purpose = (m.group("purpose") or m.group("p3") or m.group("p2") or "").strip()
        purpose = (
            "" if _NOT_PURPOSE.match(purpose) or re.search(r"[我你他她]", purpose) else purpose
        )
        name = "团队" if not ctx.record.node.name else ctx.name("zh")
        what = f"的{purpose}" if purpose else ""
        planned = bool(re.match(r"以后|之后|今后|从|下", m.group("when") or ""))
        said = f"{name}打算把{purpose}从 {x} 换成" if planned else f"{name}{what}从 {x} 换成了"
        c = _choice(
            ctx,
            s,
            y,
            x=x,
            purpose=purpose or None,
            switch=True,
            planned=planned,
            text=finish_zh(f"{said} {tool_ref(y)[0].name}"),
        )
        if c is not None:
            out.append(c)


def _replaces_zh(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    """ "用 pnpm 替掉 npm", "把 MySQL 迁到 PostgreSQL": a switch between two named tools."""
    for m in _REPLACE_ZH.finditer(s.text):
        x, y = (m.group("x") or m.group("x2")).strip(), (m.group("y") or m.group("y2")).strip()
        if not (lookup(x) or lookup(y)) and not re.search(r"[A-Z]", x + y):
            continue
        purpose = _stated_purpose(m.group("purpose") or m.group("p2") or "") or ""
        name = "团队" if not ctx.record.node.name else ctx.name("zh")
        plan = m.group("plan") or m.group("plan2")
        told = re.match(r"\W*(?:用|拿|改用|把)", s.text[m.start() :].lstrip("，,；;。")) is not None
        new, old = tool_ref(y)[0].name, tool_ref(x)[0].name
        what = f"把{purpose}" if purpose else ""
        if plan or s.times:
            text = f"{name}打算{what}从 {old} 换成 {new}"
        elif told or s.text.rstrip("。！ ").endswith("吧"):
            text = f"{name}决定{what}从 {old} 换成 {new}"
        else:
            text = f"{name}{'的' + purpose if purpose else ''}从 {old} 换成了 {new}"
        label = f"（从 {_when(s, ctx)[1].get('date', s.times[0].iso)} 起）" if s.times else ""
        c = _choice(
            ctx,
            s,
            y,
            x=x,
            purpose=purpose or None,
            switch=True,
            planned=bool(plan),
            text=finish_zh(text + label),
        )
        if c is not None:
            out.append(c)


# "改成 CARLA 自带的 Traffic Manager": a part of a tool is what is chosen
_OWN_PART_ZH = re.compile(rf"\s*(?:自带|内置|原生|官方)的\s*(?P<z>{_T})")


def _choices_zh(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    dropped = _DROP_ZH.search(s.text)
    old = (dropped.group("x") or dropped.group("x2")) if dropped else None
    later = re.search(r"以后|之后|从现在起|今后", s.text)
    for m in _USE_ZH.finditer(s.text):
        y = m.group("y").strip()
        part = _OWN_PART_ZH.match(s.text, m.end("y"))
        if part is not None and y:
            y = f"{y} {part.group('z').strip()}"
        if not y or _FORMERLY_ZH.search(s.text[: m.start("verb")]):
            continue  # "原来用 Jenkins": what was used, not a choice
        if any(c.replaces is not None and c.replaces.name == tool_ref(y)[0].name for c in out):
            continue  # "一直用的是 Hive，……切到 Feast": Hive is what the switch leaves
        purpose = _stated_purpose(m.group("p4") or m.group("purpose") or "")
        if purpose is None:
            continue
        if not purpose and m.group("verb") in ("改用", "换成", "换到", "改成"):
            purpose = topic_before(s, ctx, m.start()) or ""  # "INT8 校准换方案了：… 改用 Y"
        if m.group("verb").startswith("写") and not _DECIDED_ZH.search(s.text[: m.start("verb")]):
            continue  # "我写 Python": writing, not a choice; "我们决定写 ClickHouse" is one
        if m.group("verb") == "用" and not purpose and not _DECIDED_ZH.search(s.text):
            continue  # "我们用 FastAPI 和 Redis": what is in use, read as tools elsewhere
        switch = m.group("verb") in ("改用", "换成", "换到", "改成", "切换到", "迁移到") or bool(
            later and old
        )
        x = old
        if later and not x:
            prev = re.search(rf"(?:不要|别)(?:再)?(?:写|用)\s*(?P<x>{_T})", s.text)
            x = prev.group("x") if prev else None
            switch = switch or x is not None
        obj, _ = tool_ref(y)
        name = "团队" if not ctx.record.node.name else ctx.name("zh")
        what = f"{purpose}" if purpose else ""
        rejected = _NOT_AFTER.match(s.text, m.end())
        if rejected is not None and not x:
            x = rejected.group("x")
        source = _FROM_ZH.search(s.text[: m.end()])
        if source is not None and not x:  # "数据库我们打算从 MongoDB 迁移到 PostgreSQL"
            x, switch = source.group("x"), True
        if x and tool_ref(x)[0].name.lower() == obj.name.lower():
            continue  # "从 Calico 换成 Cilium，……继续用 Calico": the kept tool, not a switch
        if switch and x and m.group("plan"):
            text = f"{name}打算把{what}从 {x} 换成 {obj.name}"
        elif switch and x:
            text = (
                f"{name}的{what}从 {x} 换成了 {obj.name}"
                if what
                else f"{name}从 {x} 换成了 {obj.name}"
            )
        else:
            text = f"{name}决定{what}用 {obj.name}"
            if x:
                text += f"，不用 {tool_ref(x)[0].name}"
        label = _zh_label(s, m)
        if switch and x and s.times and not m.group("plan"):
            label = f"（从 {_when(s, ctx)[1].get('date', s.times[0].iso)} 起）"
        c = _choice(
            ctx,
            s,
            y,
            x=x,
            purpose=purpose or None,
            switch=switch,
            planned=bool(m.group("plan")),
            text=finish_zh(text + label),
        )
        if c is not None and m.group("verb") == "用的是":
            c = _in_use_zh(c, s, m)
        if c is not None:
            out.append(c)
    _avoids_zh(s, ctx, out)


# "后端用的是 Python 3.12 和 FastAPI": the version and the further tools of the list
_LIST_ZH = re.compile(
    rf"(?:\s*v?\d+(?:\.\d+){{0,2}})?(?:\s*(?:和|、|跟|以及|加上|还有)\s*(?P<z>{_T})"
    rf"(?:\s*v?\d+(?:\.\d+){{0,2}})?)*"
)


def _in_use_zh(c: Candidate, s: Sentence, m: re.Match[str]) -> Candidate:
    """A statement of what is in use keeps its words (versions, every tool of the list)."""
    tail = _LIST_ZH.match(s.text, m.end("y"))
    end = tail.end() if tail else m.end("y")
    start = m.start("purpose") if m.group("purpose") else m.start("verb")
    said = s.text[start:end].strip()
    more = [
        Fact("uses", tool_ref(z)[0], slot=None if tool_ref(z)[1] == "tool" else tool_ref(z)[1])
        for z in re.findall(rf"(?:和|、|跟|以及|加上|还有)\s*({_T})", s.text[m.end("y") : end])
    ]
    said = third_person_zh(said, "团队").replace("团队他们", "团队")  # "我们现在用的是 X"
    return replace(c, text=finish_zh(said), more=(*c.more, *more))


def _stated_purpose(raw: str) -> str | None:
    """What a choice is for ("状态管理用 Zustand" → 状态管理), "" when none is said; ``None``
    when the match is no choice at all (a refusal or an ending)."""
    purpose = raw.strip()
    if re.search(r"不|别|禁止|没|千万", purpose):
        return None  # "不要用 Redux", "不用 npm 了": a refusal, read by _avoids_zh
    if re.search(r"直到|还在", purpose):
        return None  # "直到上周我还在用 X": an ending, read elsewhere
    if re.fullmatch(r"(?:能|可以|尽量|最好|应该|得)+", purpose):
        return None  # "能用 constexpr 就别写宏": a way preferred, not a choice of a tool
    # "INT8 校准这块我们定了": who decided and "this part" are no part of what it is for
    purpose = re.sub(
        r"(?:我们|我|团队|以后|之后|都|就|是|这块|那块|这边|那边|方面|定了|决定|统一)+$",
        "",
        purpose,
    )
    if re.search(r"[我你他她它了吗呢吧从周月年天]|以前|之前|开始|现在|以后", purpose):
        purpose = ""  # "从上周开始", "以后都": when, not what for
    if not purpose or _NOT_PURPOSE.match(purpose) or not re.search(r"[\u4e00-\u9fff]", purpose):
        return ""
    return purpose


def _avoids_zh(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    """ "不要用 Redux": the team decided against a tool."""
    for m in _AVOID_ZH.finditer(s.text):
        x = m.group("x").strip()
        if not ctx.first("avoids", x):
            continue
        obj, _ = tool_ref(x)
        name = "团队" if not ctx.record.node.name else ctx.name("zh")
        out.append(avoided(ctx, finish_zh(f"{name}决定不用 {obj.name}"), "zh", obj, True))


def _not_using_zh(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    """ "我们不用 Helm": a plain statement of what is not in use (not a switch)."""
    replaced = {c.replaces.name.lower() for c in out if c.replaces is not None}
    for m in _NOT_USING_ZH.finditer(s.text):
        x = m.group("x").strip()
        obj, _ = tool_ref(x)
        if obj.name.lower() in replaced or x.lower() in replaced or not ctx.first("avoids", x):
            continue
        name = "团队" if not ctx.record.node.name else ctx.name("zh")
        ended = "不再" in m.group() or bool(re.search(r"不用\s*" + re.escape(x) + r"\s*了", s.text))
        said = finish_zh(f"{name}{'不再用' if ended else '不用'} {obj.name}")
        out.append(avoided(ctx, said, "zh", obj, True, 0.75))


def _zh_label(s: Sentence, m: re.Match[str]) -> str:
    """The time of the clause the choice ``m`` was said in ("这周我先把 demo 搭起来" dates
    the next clause, not the choice before its comma)."""
    for t in s.times:
        lo, hi = min(t.start, m.start()), max(t.end, m.end())
        if not re.search(r"[，,；;。]", s.text[lo:hi]):
            return f"（{t.label('zh')}）"
    return ""


def _pivot(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    rx = _PIVOT_ZH if s.lang == "zh" else _PIVOT_EN
    m = rx.search(s.text)
    if m is None:
        return
    y = m.group("y").strip()
    x = (m.group("x") or "").strip() or None
    if re.match(r"[A-Za-z][\w.+#-]{2,}", y):
        return  # "转到 Spring Cloud": a tool, read as a switch ("转向 C 端" is a focus)
    if not y or not ctx.first("focus", y):
        return
    when, attrs = _when(s, ctx)
    if s.lang == "zh":
        name = "团队" if not ctx.record.node.name else ctx.name("zh")
        text = finish_zh(f"{name}{'从' + x if x else ''}转向了{y}")
    else:
        who, _ = _who(ctx, s)
        text = finish_en(f"{who} shifted focus to {y}" + (f" from {x}" if x else ""))
    out.append(
        ctx.candidate(
            "decision",
            text,
            s.lang,
            relation="focuses_on",
            object=EntityRef(y, "concept"),
            slot="business_focus",
            replaces=EntityRef(x, "concept") if x else None,
            kind="decision",
            event_time=when,
            valid_from=when,
            confidence=0.8,
            importance=0.85,
            attrs=attrs,
            collective=True,
        )
    )


_RATHER_ZH = re.compile(
    r"^我[^，。]*?(?:不喜欢|不太喜欢|讨厌|受不了)[^，。]*[，,]\s*(?:而是|但是|但)?\s*"
    r"(?:更|还是|比较)(?:喜欢|偏爱|倾向于?)(?:用)?\s*(?P<y>[^，。！]{1,20})"
)


def _rather_zh(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    """ "我不太喜欢用 Jenkins，更喜欢 GitHub Actions": the liked half is a preference too."""
    m = _RATHER_ZH.search(s.text)
    if m is None:
        return
    y = m.group("y").strip()
    if not y or not ctx.first("pref", f"prefers:{y}"):
        return
    obj = tool_ref(y)[0] if lookup(y) else EntityRef(y, "preference")
    out.append(
        ctx.candidate(
            "preference",
            finish_zh(f"{ctx.name('zh')}更喜欢{y}"),
            "zh",
            relation="prefers",
            object=obj,
            confidence=0.8,
            importance=0.75,
        )
    )


def stack_zh(s: Sentence, ctx: NodeContext) -> list[Candidate]:
    """Technical choices, switches, refusals and pivots in one Chinese sentence."""
    out: list[Candidate] = []
    if s.question or s.hypothetical or not ctx.personal:
        return out
    _pivot(s, ctx, out)
    _rather_zh(s, ctx, out)
    _before_now_zh(s, ctx, out)
    _replaces_zh(s, ctx, out)
    _choices_zh(s, ctx, out)
    _not_using_zh(s, ctx, out)
    return out


def pivot_en(s: Sentence, ctx: NodeContext) -> list[Candidate]:
    """ "We pivoted to B2C": the business focus (English)."""
    out: list[Candidate] = []
    if not s.question and ctx.personal:
        _pivot(s, ctx, out)
    return out
