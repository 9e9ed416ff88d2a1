"""Chinese patterns: 偏好、决策、切换、约束、人物与组织、项目与工具、经验。

Chinese has no spaces, so a captured object ends at punctuation or at an anchor word ("不用",
"而不是", "因为", ...). Texts are written in Chinese with the speaker's name (或「用户」).
"""

from __future__ import annotations

import re
from typing import Any

from ..numbers import parse_number
from ..types import Candidate, EntityRef
from ._common import NodeContext, Sentence, date_attrs, object_ref, tool_ref
from ._deadlines import future_time
from ._grammar import finish_zh, third_person_zh

__all__ = ["extract_zh"]

_STOP = r"，,。！!？?；;：:、\n"
# A captured object: up to punctuation, lazily; the caller trims anchor words after it.
_OBJ = rf"[^{_STOP}]{{1,30}}"
_TAIL_ZH = re.compile(
    r"(?:因为|但是|不过|所以|而且|的时候|，|了吧|了啊|了呀|吧|啦|呀|哦|呢|啊|了|的)+$"
)
_CUT_ZH = re.compile(r"(?:因为|但是|不过|所以|而且|然后|并且|的时候|比较多|比较好|一些)")
_PRONOUN_ZH = re.compile(r"^(?:你|您|他|她|它|这|那|这个|那个|这样|那样|这些|那些|自己|大家|一切)")
_TOOLISH = re.compile(r"[A-Za-z][\w.+#-]*(?:\s+[A-Z][\w.+#-]*)?")


def _clean(x: str, s: Sentence) -> str:
    for t in s.times:
        x = x.replace(t.text, "")
    m = _CUT_ZH.search(x)
    if m and m.start() > 0:
        x = x[: m.start()]
    x = _TAIL_ZH.sub("", x.strip())
    return x.strip(" 的")


def _tool_in(x: str) -> str | None:
    """The tool name at the start of a phrase ("Next.js 做前端" → "Next.js")."""
    m = _TOOLISH.match(x.strip())
    return m.group().strip() if m else None


# ----------------------------------------------------------------------------- preferences

_PREF_GATE = re.compile(r"喜欢|偏好|偏爱|喜爱|热爱|爱|钟爱|讨厌|受不了|反感|厌恶|烦|看不惯|习惯")
_FAV_ZH = re.compile(
    rf"我(?:们)?最(?:喜欢|爱)的(?P<cat>[^{_STOP}是]{{1,10}})(?:是|就是)(?P<x>{_OBJ})"
)
_PREF_ZH = re.compile(
    r"(?:我(?:个人|自己|平时)?|(?<=[，,])\s*(?=不太喜欢|不怎么喜欢|不喜欢|讨厌|受不了))"
    r"(?:也|还|真的|很|最|非常|特别|比较|一直|更|超|蛮|挺|都|其实|向来|从来)*"
    r"(?P<v>不太喜欢|不怎么喜欢|不喜欢|不爱|受不了|讨厌|反感|厌恶|看不惯|烦(?![死透了])|喜欢|偏好|偏爱"
    rf"|喜爱|热爱|钟爱|爱好|爱)(?P<x>{_OBJ})"
)
_NEGATIVE_ZH = (
    "不太喜欢",
    "不怎么喜欢",
    "不喜欢",
    "不爱",
    "受不了",
    "讨厌",
    "反感",
    "厌恶",
    "看不惯",
    "烦",
)


def _preferences(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    if not _PREF_GATE.search(s.text):
        return
    name = ctx.name("zh")
    for m in _FAV_ZH.finditer(s.text):
        x, cat = _clean(m.group("x"), s), m.group("cat").strip()
        if not x or not ctx.first("pref", f"prefers:{x}"):
            continue
        out.append(
            ctx.candidate(
                "preference",
                finish_zh(f"{name}最喜欢的{cat}是{x}"),
                "zh",
                relation="prefers",
                object=object_ref(x),
                confidence=0.85,
                importance=0.75,
                attrs={"verb": "最喜欢", "category": cat},
            )
        )
    mine = False  # "我偏爱 X，不喜欢 Y": a clause without 我 continues the speaker's own
    for m in _PREF_ZH.finditer(s.text):
        if not m.group().startswith("我") and not mine:
            continue
        mine = True
        if m.group("x").lstrip().startswith("的"):
            continue  # "我最喜欢的 X 是 Y" was read above
        v, x = m.group("v"), _clean(m.group("x"), s)
        if not x or _PRONOUN_ZH.match(x):
            continue
        negative = v in _NEGATIVE_ZH
        relation = "dislikes" if negative else "prefers"
        if not ctx.first("pref", f"{relation}:{x}"):
            continue
        tool = _tool_in(x)
        obj = object_ref(tool if tool and tool == x.strip() else x)
        out.append(
            ctx.candidate(
                "preference",
                finish_zh(f"{name}{v}{third_person_zh(x, name)}"),
                "zh",
                relation=relation,
                object=obj,
                confidence=0.8,
                importance=0.75,
                attrs={"verb": v},
            )
        )

    _habits_zh(s, ctx, out)


# "我写运维脚本习惯用 Python": the tool the speaker is used to for a kind of work
_HABIT_ZH = re.compile(
    r"我(?:平时|一般|一直)?(?P<what>[写做跑搞开][\u4e00-\u9fffA-Za-z]{1,10}?)?(?:都|一般|平时)?"
    r"习惯(?:了)?用\s*(?P<x>[A-Za-z][\w.+#-]*)"
)


def _habits_zh(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    m = _HABIT_ZH.search(s.text)
    if m is None or not ctx.first("pref", f"prefers:{m.group('x')}"):
        return
    name = ctx.name("zh")
    what = m.group("what") or ""
    out.append(
        ctx.candidate(
            "preference",
            finish_zh(f"{name}{what}习惯用 {m.group('x')}"),
            "zh",
            relation="prefers",
            object=tool_ref(m.group("x"))[0],
            confidence=0.8,
            importance=0.75,
            attrs={"verb": "习惯用"},
        )
    )


# ----------------------------------------------------------------------------- decisions

_DEC_GATE = re.compile(r"决定|确定|定了|选择|选定|拍板|改用|不用|而不是|代替|替代|取代|就用|还是用")
_TOOL_ZH = r"[A-Za-z][\w.+#-]*(?:\s+[A-Z][\w.+#-]*)?"
_DEC_USE_NOT = re.compile(
    rf"用(?:的是)?\s*(?P<x>{_TOOL_ZH})\s*[，,]?\s*(?:不用|而不是|而不用|不要用|不选|别用|代替|替代|取代|替换)"
    rf"\s*(?:用)?\s*(?P<y>{_TOOL_ZH})"
)
_DEC_NOT_USE = re.compile(
    rf"不用\s*(?P<y>{_TOOL_ZH})\s*(?:了)?\s*[，,]?\s*(?:改用|用|换成|选)\s*(?P<x>{_TOOL_ZH})"
)
_DEC_DECIDE = re.compile(
    r"(?:决定|确定|定了|选择了?|选定|拍板|就用|还是用|最终用|最后用|改用)(?:了)?"
    rf"(?P<use>用|采用|使用|改用|选用)?\s*(?P<x>{_OBJ})"
)

# "决定把 FFmpeg 从 6.1 升到 7.1": a setting changed, read by _changes
_VALUE_CHANGE_ZH = re.compile(r"从\s*v?\d[\w.]*\s*(?:升级|升|调整|调|改|换|降|提)(?:到|成|为|至)")
_TOOL_SWITCH_ZH = re.compile(rf"从\s*{_TOOL_ZH}\s*(?:迁|换|切|转|改)[^，,。]*?(?:到|成)\s*[A-Za-z]")


def _read_elsewhere(x: str) -> bool:
    """What was decided is a switch of tools ("从 RabbitMQ 迁到 Kafka"), a tool dropped ("不用
    SUMO 了") or a setting changed ("把 FFmpeg 从 6.1 升到 7.1"): ``_stack_zh`` and
    ``_changes`` read those, and a decision whose object is the dropped tool would keep it."""
    dropped = re.search(rf"(?:不用|不再用|不要用|不使用|停用|弃用)\s*{_TOOL_ZH}", x)
    written = re.match(rf"(?:写入|写到|写)\s*{_TOOL_ZH}", x)  # "决定写 ClickHouse": a sink chosen
    return bool(_TOOL_SWITCH_ZH.search(x) or dropped or written or _VALUE_CHANGE_ZH.search(x))


def _decisions(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    if not _DEC_GATE.search(s.text):
        return
    name = ctx.name("zh")
    when = ctx.epoch(s.times[0].day) if s.times else ctx.event_time
    attrs: dict[str, Any] = date_attrs(s.times[0]) if s.times else {}
    for rx in (_DEC_USE_NOT, _DEC_NOT_USE):
        for m in rx.finditer(s.text):
            x, y = m.group("x").strip(), m.group("y").strip()
            obj, slot = tool_ref(x)
            rej = tool_ref(y)[0]
            if not ctx.first("decision", obj.name):
                continue
            ctx.first("uses", obj.name)
            out.append(
                ctx.candidate(
                    "decision",
                    finish_zh(f"{name}决定用 {x}，不用 {y}"),
                    "zh",
                    relation="uses",
                    object=obj,
                    slot=slot,
                    replaces=rej,
                    kind="decision",
                    event_time=when,
                    valid_from=when,
                    confidence=0.85,
                    importance=0.85,
                    attrs=dict(attrs),
                )
            )
    for m in _DEC_DECIDE.finditer(s.text):
        x = _clean(m.group("x"), s)
        if not x or _PRONOUN_ZH.match(x):
            continue
        tool = _tool_in(x) if (m.group("use") or "用" in m.group()) else None
        if tool:
            obj, slot = tool_ref(tool)
            if not ctx.first("decision", obj.name):
                continue
            ctx.first("uses", obj.name)
            out.append(
                ctx.candidate(
                    "decision",
                    finish_zh(f"{name}决定用 {tool}"),
                    "zh",
                    relation="uses",
                    object=obj,
                    slot=slot,
                    kind="decision",
                    event_time=when,
                    valid_from=when,
                    confidence=0.8,
                    importance=0.85,
                    attrs=dict(attrs),
                )
            )
        elif m.group().startswith(("决定", "确定", "定了", "拍板")):
            if _read_elsewhere(x):
                continue
            if not ctx.first("decision", x):
                continue
            out.append(
                ctx.candidate(
                    "decision",
                    finish_zh(f"{name}决定{third_person_zh(x, name)}"),
                    "zh",
                    relation="decided",
                    object=EntityRef(x, "decision"),
                    kind="decision",
                    event_time=when,
                    confidence=0.75,
                    importance=0.8,
                    attrs=dict(attrs),
                )
            )


# ----------------------------------------------------------------------------- switches

_SW_GATE = re.compile(
    r"换成|改成|切换|切到|迁移|转到|换到|改为|转向|转为|迁到|不再|停用|弃用|现在|目前|如今|直到"
)
_SW_FROM = re.compile(
    rf"从\s*(?P<x>{_TOOL_ZH}|[^{_STOP}从]{{1,12}}?)\s*(?:换成|改成|切换到|切换成|切到|迁移到|转到|换到"
    rf"|改为|转向|转为|迁到)\s*(?:了)?\s*(?P<y>{_TOOL_ZH}|[^{_STOP}]{{1,12}})"
)
_SW_BA = re.compile(
    rf"把\s*(?P<x>{_TOOL_ZH})\s*(?:换成|改成|替换成|迁移到|切换到|换为)\s*(?:了)?\s*(?P<y>{_TOOL_ZH})"
)
_NO_LONGER_ZH = re.compile(
    rf"(?:不再用|不再使用|停用了?|弃用了?|不用)\s*(?P<x>{_TOOL_ZH})(?P<le>\s*了)?"
)
_NOW_ZH = re.compile(rf"(?:现在|目前|如今)(?:都)?(?:改)?(?:用|使用|在用)\s*(?P<y>{_TOOL_ZH})")
_UNTIL_ZH = re.compile(
    rf"直到(?P<t>[^{_STOP}]{{1,8}}?)(?:都|还|一直)*(?:在)?(?:用|使用)\s*(?P<x>{_TOOL_ZH})"
)
_SINCE_ZH = re.compile(r"从\s*$|自\s*$")


def _switch_time(s: Sentence, ctx: NodeContext) -> tuple[float, dict[str, Any]]:
    for t in s.times:
        if "直到" not in s.text[max(0, t.start - 3) : t.start]:
            return ctx.epoch(t.day), date_attrs(t)
    return ctx.event_time, {}


def _switches(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    if not _SW_GATE.search(s.text):
        return
    name = ctx.name("zh")
    for rx in (_SW_FROM, _SW_BA):
        for m in rx.finditer(s.text):
            x, y = _clean(m.group("x"), s), _clean(m.group("y"), s)
            y_tool, x_tool = _tool_in(y), _tool_in(x)
            if not y or not x or not re.search(r"[^\W\d_]", x + y):
                continue  # "端口从 5080 改成 5090": a value changed, read by _changes
            obj, slot = tool_ref(y_tool or y)
            rep, rep_slot = tool_ref(x_tool or x)
            if slot == "tool":
                slot = rep_slot
            if not ctx.first("uses", obj.name):
                continue
            when, attrs = _switch_time(s, ctx)
            since = f"（从 {attrs['date']} 起）" if attrs else ""
            text = f"{name}从 {rep.name} 换成了 {obj.name}{since}"
            out.append(
                ctx.candidate(
                    "tool",
                    finish_zh(text),
                    "zh",
                    relation="uses",
                    object=obj,
                    slot=slot,
                    replaces=rep,
                    kind="decision",
                    event_time=when,
                    valid_from=when,
                    confidence=0.85,
                    importance=0.8,
                    attrs=attrs,
                )
            )
    _endings(s, ctx, out)


def _endings(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    """ "不再用 X", "现在用 Y", "直到三月还在用 X"."""
    name = ctx.name("zh")
    for m in _NO_LONGER_ZH.finditer(s.text):
        if m.group().startswith("不用") and not m.group("le"):
            continue  # "不用 X" alone is a decision's other half, not an ending
        x = m.group("x").strip()
        obj, slot = tool_ref(x)
        if not ctx.first("ended", obj.name) or ("decision", obj.name.lower()) in ctx.seen:
            continue
        when, attrs = _switch_time(s, ctx)
        out.append(
            ctx.candidate(
                "tool",
                finish_zh(f"{name}不再用 {obj.name}"),
                "zh",
                relation="uses",
                object=obj,
                slot=slot,
                valid_until=when,
                event_time=when,
                confidence=0.8,
                importance=0.75,
                attrs={**attrs, "ended": True},
            )
        )
    for m in _NOW_ZH.finditer(s.text):
        obj, slot = tool_ref(m.group("y").strip())
        if not ctx.first("uses", obj.name):
            continue
        when, attrs = _switch_time(s, ctx)
        out.append(
            ctx.candidate(
                "tool",
                finish_zh(f"{name}现在用 {obj.name}"),
                "zh",
                relation="uses",
                object=obj,
                slot=slot,
                valid_from=when,
                confidence=0.8,
                importance=0.75,
                attrs=attrs,
            )
        )
    for m in _UNTIL_ZH.finditer(s.text):
        t = next((t for t in s.times if t.start >= m.start("t")), None)
        if t is None:
            continue
        obj, slot = tool_ref(m.group("x").strip())
        if not ctx.first("ended", obj.name):
            continue
        out.append(
            ctx.candidate(
                "tool",
                finish_zh(f"直到 {t.label('zh')}，{name}还在用 {obj.name}"),
                "zh",
                relation="uses",
                object=obj,
                slot=slot,
                valid_until=ctx.epoch(t.day),
                event_time=ctx.epoch(t.day),
                confidence=0.8,
                importance=0.75,
                attrs={**date_attrs(t), "ended": True},
            )
        )


# ----------------------------------------------------------------------------- constraints

_CONS_GATE = re.compile(r"预算|团队|小组|人|截止|期限|之前|以前|前|deadline|到期")
_ZN = r"\d+(?:\.\d+)?|[一二两三四五六七八九十百千]+"
_BUDGET_ZH = re.compile(
    rf"预算(?:是|为|有|大概|大约|约|只有|就|在|一共|总共|：|:|\s)*(?P<amt>{_ZN})\s*"
    r"(?P<mult>万|千|百万|亿|k|K|w|W)?\s*(?P<cur>元|块钱|块|人民币|美元|美金|刀|欧元)?"
)
_ZH_MULT = {"万": 1e4, "w": 1e4, "W": 1e4, "千": 1e3, "k": 1e3, "K": 1e3, "百万": 1e6, "亿": 1e8}
_ZH_CUR = {
    "元": "CNY",
    "块钱": "CNY",
    "块": "CNY",
    "人民币": "CNY",
    "美元": "USD",
    "美金": "USD",
    "刀": "USD",
    "欧元": "EUR",
}
_TEAM_ZH = re.compile(
    rf"(?P<n>{_ZN})\s*(?:个)?人(?:的)?(?:小)?(?:团队|小组|队伍|公司|创业团队)"
    rf"|团队(?:有|共|一共|总共|只有|就|是)\s*(?P<n2>{_ZN})\s*(?:个)?人"
    rf"|我们(?:一共|总共|只有|就)(?P<n3>{_ZN})\s*个人"
)
_DEADLINE_AFTER = re.compile(r"^\s*(?:之前|以前|前|截止|到期|为止)")
_DEADLINE_BEFORE = re.compile(
    rf"(?:截止|deadline|期限|交付日期|截止日期|截止时间)[^{_STOP}]{{0,6}}$"
)


def _constraint(
    ctx: NodeContext, text: str, name: str, slot: str, attrs: dict[str, Any], **kw: Any
) -> Candidate:
    return ctx.candidate(
        "constraint",
        finish_zh(text),
        "zh",
        relation="has_constraint",
        object=EntityRef(name, "constraint", attrs=dict(attrs)),
        slot=slot,
        confidence=kw.pop("confidence", 0.85),
        importance=0.85,
        attrs=attrs,
        **kw,
    )


def _constraints(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    if not _CONS_GATE.search(s.text):
        return
    name = ctx.name("zh")
    for m in _BUDGET_ZH.finditer(s.text):
        base = parse_number(m.group("amt")) if not re.match(r"[\d.]+$", m.group("amt")) else None
        amount = float(base) if base is not None else float(m.group("amt"))
        mult = m.group("mult") or ""
        amount *= _ZH_MULT.get(mult, 1)
        shown = m.group()[2:].lstrip("是为有大概约只就在一共总：: ").strip()
        if not ctx.first("constraint", "budget"):
            continue
        attrs: dict[str, Any] = {"amount": amount, "text": shown}
        if m.group("cur"):
            attrs["currency"] = _ZH_CUR[m.group("cur")]
        out.append(_constraint(ctx, f"{name}的预算是 {shown}", f"预算 {shown}", "budget", attrs))
    for m in _TEAM_ZH.finditer(s.text):
        raw = m.group("n") or m.group("n2") or m.group("n3")
        size = int(float(raw)) if raw[0].isdigit() else parse_number(raw)
        if not size or not ctx.first("constraint", "team"):
            continue
        out.append(
            _constraint(
                ctx, f"{name}的团队有 {size} 人", f"{size} 人团队", "team_size", {"size": size}
            )
        )
    for t in s.times:
        if _DEADLINE_AFTER.match(s.text[t.end :]) or _DEADLINE_BEFORE.search(s.text[: t.start]):
            if not ctx.first("constraint", "deadline"):
                break
            t = (
                future_time(s, ctx, t.start) or t
            )  # a deadline is ahead ("延期了，改到 12 月 12 日")
            clause = third_person_zh(s.text, name)
            out.append(
                _constraint(
                    ctx,
                    f"{finish_zh(clause)[:-1]}（截止 {t.iso}）",
                    f"截止 {t.iso}",
                    "deadline",
                    {**date_attrs(t), "deadline": t.iso},
                    valid_until=ctx.epoch(t.day),
                    confidence=0.8,
                )
            )
            break


# ----------------------------------------------------------------------------- people, orgs

_ROLES_ZH = (
    r"商业伙伴|合作伙伴|合伙人|联合创始人|老板|上司|领导|经理|同事|好朋友|朋友|闺蜜|室友|姐姐|妹妹|哥哥"
    r"|弟弟|妻子|老婆|太太|丈夫|老公|男朋友|女朋友|妈妈|母亲|爸爸|父亲|儿子|女儿|孩子|导师|老师|客户"
    r"|搭档|队友|表姐|表妹|表哥|表弟|堂哥|堂姐|爷爷|奶奶|外公|外婆"
)
_SURNAMES = (
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁"
    "任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴"
    "莫孔向汤"
)
_NAME_END = r"(?=[说是在和也都很去来要会的了给跟让把被，。！？、\s,.!?]|$)"
_NAME_ZH = (
    rf"(?:[A-Z][a-z]+|[{_SURNAMES}](?:总|老师|经理|哥|姐|叔|姨|博士|医生|教授|工|律师)"
    rf"|[小老][\u4e00-\u9fff]{_NAME_END}|[{_SURNAMES}][\u4e00-\u9fff]{{1,2}}?{_NAME_END})"
)
_PEOPLE_GATE = re.compile(rf"我的|工作|上班|实习|任职|加入|入职|{_ROLES_ZH}")
_MY_ROLE_ZH = re.compile(rf"我的(?P<role>{_ROLES_ZH})(?:是|叫|，)?\s*(?P<name>{_NAME_ZH})")
_NAME_ROLE_ZH = re.compile(rf"(?P<name>{_NAME_ZH})是我的(?P<role>{_ROLES_ZH})")
_WORK_ZH = re.compile(
    rf"我(?:现在|目前|一直|还|也)?在\s*(?P<org>[^{_STOP}\s在我]{{2,20}}?)\s*(?P<v>工作|上班|实习|任职)"
)
_JOIN_ZH = re.compile(
    rf"我(?:们)?(?:刚|最近|已经|终于)?(?P<v>加入了?|入职了?)\s*(?P<org>[^{_STOP}]{{2,20}})"
)


def _people(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    if not _PEOPLE_GATE.search(s.text):
        return
    name = ctx.name("zh")
    for rx in (_MY_ROLE_ZH, _NAME_ROLE_ZH):
        for m in rx.finditer(s.text):
            person, role = m.group("name"), m.group("role")
            if not ctx.first("person", person):
                continue
            out.append(
                ctx.candidate(
                    "entity",
                    finish_zh(f"{person}是{name}的{role}"),
                    "zh",
                    relation="has_relation",
                    object=EntityRef(person, "person", attrs={"role": role}),
                    confidence=0.85,
                    importance=0.65,
                    attrs={"role": role},
                )
            )
    for m in _WORK_ZH.finditer(s.text):
        org = _clean(m.group("org"), s)
        if len(org) < 2 or not ctx.first("org", org):
            continue
        out.append(
            ctx.candidate(
                "entity",
                finish_zh(f"{name}在{org}{m.group('v')}"),
                "zh",
                relation="works_at",
                object=EntityRef(org, "organization"),
                confidence=0.8,
                importance=0.7,
            )
        )
    for m in _JOIN_ZH.finditer(s.text):
        org = _clean(m.group("org"), s)
        if len(org) < 2 or not ctx.first("org", org):
            continue
        t = s.times[0] if s.times else None
        when = ctx.epoch(t.day) if t else ctx.event_time
        works = m.group("v").startswith("入职")
        out.append(
            ctx.candidate(
                "entity",
                finish_zh(f"{name}{'入职了' if works else '加入了'}{org}"),
                "zh",
                relation="works_at" if works else "member_of",
                object=EntityRef(org, "organization"),
                valid_from=when,
                confidence=0.8,
                importance=0.65,
                attrs=date_attrs(t) if t else {},
            )
        )


# ----------------------------------------------------------------------------- projects, tools

_PROJ_GATE = re.compile(r"在做|在开发|在搞|在写|在弄|项目|用|使用|采用")
_DOING_ZH = re.compile(
    rf"我(?:们)?(?:正|现在|目前|最近|一直)?(?:正)?在(?:做|开发|搞|写|弄)\s*(?:一个|个)?\s*"
    rf"(?P<p>[^{_STOP}]{{2,24}}?)(?P<kind>项目|系统|平台|产品|应用|网站)?(?=[{_STOP}]|$)"
)
_PROJ_NAME_ZH = re.compile(rf"(?:我们|我)的项目(?:叫|是|名为|名叫)\s*(?P<p>[^{_STOP}\s]{{1,20}})")
_USE_ZH = re.compile(
    rf"(?:我们|我|咱们)(?:现在|目前|一直|平时|主要|都|也)*(?:用|使用|采用|在用)\s*"
    rf"(?P<t>{_TOOL_ZH}(?:\s*(?:和|、|,|，|与|跟|\+|加)\s*{_TOOL_ZH})*)"
)


def _projects(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    if not _PROJ_GATE.search(s.text):
        return
    name = ctx.name("zh")
    for m in _DOING_ZH.finditer(s.text):
        p = _clean(m.group("p"), s)
        if len(p) < 2 or _PRONOUN_ZH.match(p) or not ctx.first("project", p):
            continue
        shown = p + (m.group("kind") or "")
        out.append(
            ctx.candidate(
                "entity",
                finish_zh(f"{name}在做{shown}"),
                "zh",
                relation="works_on",
                object=EntityRef(p, "project"),
                valid_from=ctx.event_time,
                confidence=0.75 if m.group("kind") else 0.6,
                importance=0.65,
            )
        )
    for m in _PROJ_NAME_ZH.finditer(s.text):
        p = _clean(m.group("p"), s)
        if not p or not ctx.first("project", p):
            continue
        out.append(
            ctx.candidate(
                "entity",
                finish_zh(f"{name}的项目叫 {p}"),
                "zh",
                relation="works_on",
                object=EntityRef(p, "project"),
                confidence=0.8,
                importance=0.65,
            )
        )
    for m in _USE_ZH.finditer(s.text):
        for tool in re.split(r"\s*(?:和|、|,|，|与|跟|\+|加)\s*", m.group("t")):
            obj, slot = tool_ref(tool.strip())
            if not tool.strip() or not ctx.first("uses", obj.name):
                continue
            out.append(
                ctx.candidate(
                    "tool",
                    finish_zh(f"{name}用 {obj.name}"),
                    "zh",
                    relation="uses",
                    object=obj,
                    slot=None if slot == "tool" else slot,
                    confidence=0.8 if slot != "tool" else 0.65,
                    importance=0.6,
                )
            )


# ----------------------------------------------------------------------------- learnings

_LEARN_ZH = re.compile(
    r"(?:我)?(?:今天|刚刚?)?(?:学到了|学会了|才知道|意识到|明白了|认识到|发现)[，,:：]?(?P<x>[^。！？\n]{4,80})"
    r"|(?P<kw>教训|经验|心得|启示|收获)(?:是|就是|：|:)+\s*(?P<x2>[^。！？\n]{4,80})"
    # "原来是这样" (it turns out); not "原来用的是 MySQL" (formerly: a switch, read elsewhere)
    r"|原来(?!(?:一直)?(?:用|是用|在用|使用|采用|的|住|在|做|叫))(?P<x3>[^。！？\n]{4,80})"
)


def _learnings(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    m = _LEARN_ZH.search(s.text)
    if not m:
        return
    x = (m.group("x") or m.group("x2") or m.group("x3") or "").strip(" ：:，,")
    if len(x) < 4 or not ctx.first("learning", x):
        return
    name = ctx.name("zh")
    if m.group("x2"):
        text = f"{m.group('kw')}：{x}"
    else:
        text = f"{name}学到：{third_person_zh(x, name)}"
    out.append(
        ctx.candidate(
            "pattern",
            finish_zh(text),
            "zh",
            kind="learning",
            event_time=ctx.event_time,
            confidence=0.7,
            importance=0.7,
        )
    )


def extract_zh(s: Sentence, ctx: NodeContext) -> list[Candidate]:
    """All non-event candidates of one Chinese sentence (questions give none)."""
    if s.question:
        return []
    out: list[Candidate] = []
    if ctx.personal and not s.hypothetical:
        _preferences(s, ctx, out)
        _people(s, ctx, out)
    if not s.hypothetical:
        _decisions(s, ctx, out)
        _switches(s, ctx, out)
        _projects(s, ctx, out)
    _constraints(s, ctx, out)
    _learnings(s, ctx, out)
    return out
