"""Who the speaker is and who they work with, in Chinese ("我叫李雷", "在星河科技做前端负责人",
"我们的产品经理是王芳", "她每周五要看周报"); see ``_identity`` for the relations each states."""

from __future__ import annotations

import re
from typing import Any

from ..types import Candidate, EntityRef, Fact
from ._catalog import lookup
from ._common import NodeContext, Sentence, date_attrs
from ._grammar import finish_zh, third_person_zh

__all__ = ["identity_zh"]


_SURNAMES = (
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董"
    "袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟"
    "熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤"
    "宁葛殷施牛洪翟柯裴詹倪樊岳祝包左鲁庞单甘耿关景柴符聂阮纪苗车伍温凌桂谷戚房卜路"
)
_END_ZH = (
    r"(?=[说是在和也都很去来要会的了给跟让把被负每管习希需现目审点批签确拍同经（("
    r"，。！？、；\s,.!?;]|$|教授|老师|博士|师兄|师姐)"  # "周立群教授": a title after the name
)
_NAME_ZH = (
    rf"(?:[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?|[{_SURNAMES}](?![不没都也就要是在有和的了])"
    rf"[\u4e00-\u9fff]{{1,2}}?{_END_ZH})"
)
# "博三学生", "在读博士生", "研二": a student's or researcher's standing
_STUDY_ZH = (
    r"(?:[\u4e00-\u9fff]{0,4}?(?:学生|研究生|博士生|硕士生|本科生|博士后|研究员|讲师|副教授|教授)"
    r"|博[一二三四五六]|研[一二三]|大[一二三四])"
)
_ROLE_ZH = (
    r"(?:[\u4e00-\u9fff]{0,4}?(?:工程师|经理|负责人|总监|主管|主任|专员|分析师|顾问|架构师)"
    r"|(?:前端|后端|数据|测试|运维|算法|全栈|移动端|客户端|服务端|资深|高级)(?:开发)?(?:工程师|负责人)"
    r"|上级|主管领导|直接上级"
    r"|产品经理|项目经理|技术负责人|负责人|直属领导|领导|上司|老板|经理|设计师"
    r"|主策划|策划|运营|美术|客服|销售|市场|人事|财务|法务|服务端|客户端|主程|组长|架构师"
    r"|测试(?:同学|工程师)?|运维|架构师|总监|主管|组长|同事|导师|前端|后端|数据工程师|工程师|开发"
    r"|工程师|对接人|联系人|接口人|CTO|CEO|SRE|PM"
    r"|师兄|师姐|师弟|师妹|博导|" + _STUDY_ZH + ")"
)
_STOP_ZH = r"，,。！!？?；;：:、\s"
_MY_NAME_ZH = re.compile(
    rf"我(?:的名字)?(?:叫|是)\s*(?P<n>{_NAME_ZH})"
    # "我是做数据开发的，叫尹若曦": a clause of its own after the speaker's other words
    rf"|(?<=[，,])\s*(?:我)?(?:名字)?叫\s*(?P<n2>{_NAME_ZH})(?=[，,。！!；;]|$)"
)
# "我是做数据开发的" (the role), "公司是青禾健康" (the employer)
_DO_ZH = re.compile(rf"我(?:现在|目前)?是做\s*(?P<role>[^{_STOP_ZH}的]{{2,8}})的")
_COMPANY_ZH = re.compile(
    rf"(?:^|[{_STOP_ZH}])(?:我(?:的|们)?)?(?:公司|单位)(?:是|叫)\s*(?!做)(?P<org>[^{_STOP_ZH}]{{2,12}})(?<!的)(?=[{_STOP_ZH}]|$)"
)
_JOB_ZH = re.compile(
    rf"(?:我(?:现在|目前)?)?在\s*(?P<org>[^{_STOP_ZH}在我]{{2,12}}?)\s*(?P<verb>做|当|担任|任|负责|工作|上班)"
    # "当 Java 架构师": a Latin word before the title
    rf"\s*(?P<role>(?:[A-Za-z][\w.+#-]*\s*)?[^{_STOP_ZH}]{{0,10}})"
)
# "在驰远智驾做感知算法部署": a kind of work done there is the role
_WORK_KIND_ZH = re.compile(
    r"..(?:开发|部署|运维|测试|算法|研发|设计|维护|架构|推荐|数仓|交付|集成|运营|风控)$"
)
_JOB_OF_ZH = re.compile(
    rf"(?:我|^|[，,]\s*)(?:也|现在|目前)?是\s*"
    rf"(?P<org>[^{_STOP_ZH}的是]{{2,12}})的\s*(?P<role>{_ROLE_ZH})"
)
# "方向是单细胞转录组分析", "研究方向是图神经网络": the speaker's field of study or work
_FIELD_ZH = re.compile(
    rf"(?:^|[{_STOP_ZH}])(?:我的?)?(?:研究|主要|主攻)?方向(?:是|为|主要是)\s*(?P<f>[^{_STOP_ZH}]{{2,16}})"
)
_LIVE_ZH = re.compile(
    rf"(?:我?(?:现在|目前)?住在|(?:^|[，,]\s*)(?:我)?(?:人在|现居|坐标|常驻"
    rf"|目前在|现在在|[Bb]ase\s*在|驻)|我在)\s*"
    rf"(?P<to>[\u4e00-\u9fff]{{2,5}}?)(?<![做当任干])(?=[{_STOP_ZH}了]|$)"  # not "在X公司当 ..."
)
_MOVE_ZH = re.compile(
    rf"我(?:们)?(?P<when>[^{_STOP_ZH}从搬]{{0,6}})(?P<plan>要|会|准备|打算|计划)?"
    rf"(?:从\s*(?P<from>[\u4e00-\u9fff]{{2,5}}))?\s*搬(?:家)?(?:到|去)了?\s*(?P<to>[\u4e00-\u9fff]{{2,5}}?)"
    rf"(?=[{_STOP_ZH}了]|$)"
)
# why a move happens: "我女儿下个月上小学了，所以我打算搬到苏州", "因为换了工作，我搬到了上海"
_REASON_ZH = re.compile(
    r"^(?:因为)?(?P<a>[^，,。；;]{4,30}?)[，,]\s*(?:所以|因此|于是)|因为(?P<b>[^，,。；;]{4,30})"
)
_PEOPLE_ZH = (
    # "孙慧（我们部门经理）已经同意了": the role in brackets after the name
    re.compile(
        rf"(?P<name>{_NAME_ZH})\s*[（(]\s*(?P<poss>我们|我)?(?:组|团队|公司)?的?\s*"
        rf"(?P<role>[\u4e00-\u9fff]{{0,4}}?{_ROLE_ZH})\s*[）)]"
    ),
    re.compile(
        rf"(?P<name>{_NAME_ZH})\s*是\s*(?P<poss>我们|我)(?:组|团队|公司)?的?\s*(?P<role>{_ROLE_ZH})"
    ),
    re.compile(
        rf"(?P<poss>我们|我)(?:组|团队|公司)?的?\s*(?P<role>{_ROLE_ZH})\s*(?:是|叫)\s*"
        rf"(?:[\u4e00-\u9fff]{{0,2}}?(?:副总裁|总裁|副总|总监|主管|经理|老师|教授|博士))?(?P<name>{_NAME_ZH})"
    ),
    re.compile(rf"(?P<role>{_ROLE_ZH})\s*(?:同学|同事)?\s*叫\s*(?P<name>{_NAME_ZH})(?P<poss>)"),
    # "组长邓丽娟要求……", "我们主管魏国栋说……": a title right before the name, then what they do
    re.compile(
        rf"(?:^|[，,。；;]\s*)(?:另外|还有|对了)?(?P<poss>我们|我)?(?:组|团队|公司)?的?"
        rf"(?P<role>组长|主管|经理|领导|老板|总监|导师|(?:[\u4e00-\u9fff]{{1,4}}?)?负责人)"
        rf"(?P<name>{_NAME_ZH})(?=\s*(?:要求|希望|说|负责|管|让|需要|习惯|定了|规定))"
    ),
    # "测试负责人是李强", "赵磊现在是代理组长": a role and a name with no possessive
    re.compile(
        rf"(?:^|[，,。；]\s*)(?:另外|还有|对了)?[，,]?\s*(?P<role>{_ROLE_ZH})\s*(?:现在|目前)?是\s*"
        rf"(?P<name>{_NAME_ZH})(?P<poss>)"
    ),
    # "测绘组的对接人是甘露", "运维那边对接人是孙悦": who to deal with for a part of the work
    re.compile(
        rf"(?:^|[，,。；]\s*)(?:另外|还有)?(?P<role>[\u4e00-\u9fffA-Za-z]{{1,8}}?(?:的|那边的?|这边的?)?"
        rf"(?:对接人|联系人|接口人))\s*(?:是|叫)\s*(?P<name>{_NAME_ZH})(?P<poss>)"
    ),
    # "分析师宁静每天早上要看报表": a title right before the name
    re.compile(
        rf"(?:^|[，,。；：:]\s*)(?:另外|还有)?(?P<role>分析师|设计师|产品经理|项目经理|测试负责人|运维|架构师"
        rf"|[\u4e00-\u9fff]{{2,4}}?工程师"
        rf"|技术负责人|(?:前端|后端|数据|测试|算法)(?:开发|工程师)|师兄|师姐|师弟|师妹|导师)"
        rf"(?P<name>{_NAME_ZH})(?P<poss>)"
    ),
    re.compile(
        rf"(?:^|[，,。；]\s*)(?P<name>{_NAME_ZH})\s*(?:现在|目前|暂时)?是\s*(?P<poss>)"
        rf"(?P<role>(?:代理|临时|新的?|我们的新)?(?:{_ROLE_ZH}))(?=[，,。！!；;\s]|$)"
    ),
)
# "模型上线都要他点头", "改表结构得经过王磊审批": what needs someone's approval
_APPROVE_VERBS_ZH = "点头|同意|审批|批准|签字|过目|审核|确认|拍板"
_APPROVAL_ZH = re.compile(
    rf"(?:^|[，,。；;]\s*)(?P<what>[^{_STOP_ZH}]{{2,12}}?)(?:[，,]\s*)?(?:都|也|一律)?(?:要|得|需要|必须)"
    # "…的改动，都要医务处的李敏签字同意": the department before the name
    rf"(?:经过?|让|找)?\s*(?:[\u4e00-\u9fff]{{1,6}}的)?(?P<who>{_NAME_ZH}|他|她)\s*"
    rf"(?P<verb>(?:{_APPROVE_VERBS_ZH})+)"
)
_APPROVE_GATE_ZH = re.compile(_APPROVE_VERBS_ZH)
# "新来了一个同事叫陈晨，负责数据平台": what the person just named owns
_THEN_OWNS_ZH = re.compile(
    rf"[，,]\s*(?:以后|之后|今后|主要|专门)?负责\s*(?P<what>[^{_STOP_ZH}]{{2,12}})"
)
_EXPECT_ZH = re.compile(
    rf"(?P<when1>每[^{_STOP_ZH}要]{{1,5}}?(?:上午|下午|早上|晚上)?)?(?P<who>{_NAME_ZH}|她|他)"
    rf"(?P<when2>每[^{_STOP_ZH}要]{{1,5}}?(?:上午|下午|早上|晚上)?)?(?:都)?"
    rf"(?P<verb>要求|希望|需要|习惯|要)\s*(?P<what>[^，,。！!？?；;：:、]{{1,30}}(?<![和与及跟\s]))"
)
_JOINED_ZH = re.compile(r"^(?:新来了?|刚来了?|来了|来的)(?:一个|一位|个|位)?的?|^(?:一个|一位)")
_INSIDE_ZH = re.compile(r"[，,](?:里面|其中|内容|上面)(?:要|得|需要|必须)[^，,。；;！!？?]{2,30}")
# "前端那边由许静负责", "许静负责前端": who owns what
_OWNS_ZH = re.compile(
    rf"(?P<what>(?:[A-Za-z]+\s*)?[^{_STOP_ZH}由]{{1,8}}?)(?:那边|这块|这边|部分|方面)?由\s*(?P<who>{_NAME_ZH})"
    rf"\s*(?:来)?负责"
    rf"|(?<![\u4e00-\u9fff])(?P<who2>{_NAME_ZH})\s*负责\s*(?P<what2>[^{_STOP_ZH}]{{1,10}})"
    rf"|(?P<what3>[^{_STOP_ZH}归]{{1,8}}?)(?:那块|这块|那边|这边)?归\s*(?P<who3>{_NAME_ZH})\s*管"
    # "师兄马骁管测序平台": who runs a part of the work
    rf"|(?:师兄|师姐|师弟|师妹|同事|导师|[\u4e00-\u9fff]{{0,4}}?(?:工程师|经理|设计师|分析师))(?P<who4>{_NAME_ZH})"
    rf"\s*(?:主要)?(?P<v4>管|负责)\s*(?P<what4>[^{_STOP_ZH}]{{2,10}})"
)

# "运维那边找孙丽", "以后运维审批找周涛", "推送相关的功能以后归他负责": who to go to for a part of
# the work, or who it now belongs to (她/他: the person just named)
_CONTACT_ZH = re.compile(
    rf"(?:^|[{_STOP_ZH}])(?:另外|还有|对了|然后)?(?P<what>[^{_STOP_ZH}找归由]{{2,12}}?)"
    rf"(?:那边|这块|这边|方面|的事情?|的问题)?(?:以后|之后|今后|现在|有问题)?(?:都|就|统一)?"
    rf"(?:直接)?(?P<verb>找|问|归|由)\s*(?P<who>{_NAME_ZH}|他|她)\s*"
    rf"(?P<end>(?:来)?负责|管)?(?=[{_STOP_ZH}]|$)"
)
_WHEN_ZH = re.compile(r"^(?:以后|之后|今后|现在|另外|还有)+|(?:以后|之后|今后|现在)+$")


def _zh(
    ctx: NodeContext, type: str, text: str, relation: str | None, obj: EntityRef | None, **kw: Any
) -> Candidate:
    return ctx.candidate(
        type,
        finish_zh(text),
        "zh",
        relation=relation,
        object=obj,
        confidence=kw.pop("confidence", 0.85),
        importance=kw.pop("importance", 0.85),
        **kw,
    )


def _identity_zh(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    name = ctx.name("zh")
    if not ctx.record.node.name:
        for m in _MY_NAME_ZH.finditer(s.text):
            n = (m.group("n") or m.group("n2")).strip()
            if ctx.first("name", n):
                subject = ctx.subject("zh", n)
                out.append(
                    _zh(
                        ctx,
                        "profile",
                        f"{name}叫{n}",
                        None,
                        None,
                        subject=subject,
                        attrs={"name": n},
                    )
                )
    for rx in (_JOB_OF_ZH, _JOB_ZH):
        for m in rx.finditer(s.text):
            org, role = m.group("org").strip(), m.group("role").strip()
            verb = m.groupdict().get("verb") or "担任"
            # "在安康医疗负责小程序开发": what they are responsible for is their role
            if rx is _JOB_ZH and not (
                re.search(_ROLE_ZH, role or "工作")
                or (verb == "负责" and len(role) >= 2)
                or (verb == "做" and _WORK_KIND_ZH.search(role))  # "做感知算法部署"
            ):
                continue
            if not ctx.first("org", org):
                continue
            more = (Fact("has_role", EntityRef(role, "role"), slot="role"),) if role else ()
            verb = verb if verb in ("负责", "做") else "担任"
            text = f"{name}在{org}{verb}{role}" if role else f"{name}在{org}工作"
            if rx is _JOB_OF_ZH and re.fullmatch(_STUDY_ZH, role):  # "博三学生": 是……的
                text = f"{name}是{org}的{role}"
            out.append(
                _zh(
                    ctx,
                    "profile",
                    text,
                    "works_at",
                    EntityRef(org, "organization"),
                    slot="employer",
                    more=more,
                )
            )


def _field_zh(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    """ "方向是单细胞转录组分析": the speaker's field of study or work."""
    m = _FIELD_ZH.search(s.text)
    if m is None or ctx.record.node.name or not ctx.first("field", m.group("f")):
        return
    field = m.group("f").strip()
    out.append(
        _zh(
            ctx,
            "profile",
            f"{ctx.name('zh')}的研究方向是{field}",
            "works_on",
            EntityRef(field, "concept"),
            slot="field",
        )
    )


def _job_parts_zh(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    """ "我是做数据开发的，……公司是青禾健康": the role and the employer said apart."""
    do, company = _DO_ZH.search(s.text), _COMPANY_ZH.search(s.text)
    role = do.group("role").strip() if do else ""
    org = company.group("org").strip() if company else ""
    if (org and not ctx.first("org", org)) or (role and not ctx.first("job", f"{role}@")):
        return
    name = ctx.name("zh")
    role_fact = Fact("has_role", EntityRef(role, "role"), slot="role")
    if org:
        text = f"{name}在{org}做{role}" if role else f"{name}在{org}工作"
        more = (role_fact,) if role else ()
        out.append(
            _zh(
                ctx,
                "profile",
                text,
                "works_at",
                EntityRef(org, "organization"),
                slot="employer",
                more=more,
            )
        )
    elif role:
        text = f"{name}是做{role}的"
        out.append(_zh(ctx, "profile", text, role_fact.relation, role_fact.object, slot="role"))


def _home_zh(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    """Where the speaker lives, and moves (the old place stops where the new one starts)."""
    name = ctx.name("zh")
    for rx in (_MOVE_ZH, _LIVE_ZH):
        for m in rx.finditer(s.text):
            to = m.group("to")
            if not ctx.first("home", to):
                continue
            src = m.groupdict().get("from")
            t = s.times[0] if s.times else None
            when = ctx.epoch(t.day) if t else ctx.event_time
            attrs = date_attrs(t) if t else {}
            if rx is _MOVE_ZH:
                planned = bool(m.group("plan")) or (t is not None and t.day > ctx.ref_day)
                text = (
                    f"{name}要{'从' + src if src else ''}搬到{to}"
                    if planned
                    else f"{name}{'从' + src if src else ''}搬到了{to}"
                )
                if planned:
                    attrs["planned"] = True
                why = _REASON_ZH.search(s.text)
                reason = (why.group("a") or why.group("b") or "").strip() if why else ""
                reason = f"，因为{third_person_zh(reason, name)}" if len(reason) > 3 else ""
                out.append(
                    _zh(
                        ctx,
                        "profile",
                        text + (f"（{t.label('zh')}）" if t else "") + reason,
                        "lives_in",
                        EntityRef(to, "place"),
                        slot="residence",
                        replaces=EntityRef(src, "place") if src else None,
                        kind="event",
                        event_time=when,
                        valid_from=when,
                        attrs=attrs,
                    )
                )
            else:
                out.append(
                    _zh(
                        ctx,
                        "profile",
                        f"{name}住在{to}",
                        "lives_in",
                        EntityRef(to, "place"),
                        slot="residence",
                        valid_from=when,
                        attrs=attrs,
                    )
                )


def _people_zh(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    name = ctx.name("zh")
    for rx in _PEOPLE_ZH:
        for m in rx.finditer(s.text):
            person_name, role = m.group("name").strip(), m.group("role")
            joined = _JOINED_ZH.match(role)  # "新来的测试工程师叫罗佳": new to the team
            role = role[joined.end() :] if joined and joined.end() < len(role) else role
            role = re.sub(r"(?:的|那边的?|这边的?)(?=对接人|联系人|接口人)", "", role)
            if lookup(person_name):
                continue  # "服务端是 Go 1.21": a tool, not a person
            if person_name in (ctx.speaker, ctx.speaker_zh) or not ctx.first("person", person_name):
                continue
            ctx.people.append(person_name)
            poss = m.group("poss") or ("我" if re.match(r"师|导师", role) else "我们")
            owner = f"{name}的" if poss == "我" else "团队的"
            person = EntityRef(person_name, "person", attrs={"role": role})
            boss = poss == "我" and re.search(r"领导|上司|上级|老板|经理|主管|组长", role)
            said = f"{person_name}是{owner}{role}"
            if joined:
                said = f"{person_name}是新来的{role}"
            out.append(
                _zh(
                    ctx,
                    "entity",
                    said,
                    "reports_to" if boss else "works_with",
                    person,
                    slot="manager" if boss else None,
                    more=(Fact("has_role", EntityRef(role, "role"), subject=person, slot="role"),),
                    importance=0.8,
                    attrs={"role": role},
                )
            )


def _person_zh(who: str, ctx: NodeContext) -> str | None:
    """A name, or the person just named for 她/他 (None when nobody was)."""
    if who in ("她", "他"):
        return ctx.people[-1] if ctx.people else None
    return who


def _expectations_zh(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    for m in _EXPECT_ZH.finditer(s.text):
        who = _person_zh(m.group("who"), ctx)
        if who is None or who not in ctx.people:
            continue  # only someone this message introduced
        when = (m.group("when1") or m.group("when2") or "").strip()
        what = m.group("what")
        inside = _INSIDE_ZH.match(s.text, m.end())  # "，里面要列出……": what it must hold
        what += inside.group() if inside else ""
        if not ctx.first("expects", f"{who}:{what}"):
            continue
        out.append(
            _zh(
                ctx,
                "entity",
                f"{who}{when}{m.group('verb')}{what}",
                "expects",
                EntityRef(f"{when}{what}", "concept"),
                subject=EntityRef(who, "person"),
                confidence=0.8,
                importance=0.8,
            )
        )


def _owners_zh(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    for m in _OWNS_ZH.finditer(s.text):
        who = next((m.group(g) for g in ("who", "who2", "who3", "who4") if m.group(g)), "").strip()
        what = next(
            (m.group(g) for g in ("what", "what2", "what3", "what4") if m.group(g)), ""
        ).strip()
        if (
            not who
            or not what
            or who in (ctx.speaker, ctx.speaker_zh)
            or not ctx.first("owns", f"{who}:{what}")
        ):
            continue
        ctx.people.append(who)
        text = f"{who}{m.group('v4')}{what}" if m.group("who4") else f"{what}由{who}负责"
        out.append(_of_person(ctx, who, text, "owns", what))


def _contacts_zh(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    for m in _CONTACT_ZH.finditer(s.text):
        who = _person_zh(m.group("who"), ctx)
        what = _WHEN_ZH.sub("", m.group("what").strip())
        what = re.sub(r"^有", "", what)  # "有权限问题直接问他": 权限问题
        verb = m.group("verb")
        if verb not in ("找", "问") and not m.group("end"):
            continue  # "归他"/"由她" only with 负责 or 管
        if re.match(r"[你我他她您帮请去]", what) or re.search(r"[去要得会想再]$", what):
            continue  # "你去找他", "我要找她": a request, not who looks after what
        if who is None or len(what) < 2 or who in (ctx.speaker, ctx.speaker_zh):
            continue
        if not ctx.first("owns", f"{who}:{what}"):
            continue
        if who not in ctx.people:
            ctx.people.append(who)
        said = _WHEN_ZH.sub("", s.text[m.start("what") : m.start("who")].strip())
        text = f"{said}{who}" if verb in ("找", "问") else f"{what}由{who}负责"  # "运维那边找孙丽"
        out.append(_of_person(ctx, who, text, "owns", what))


def _of_person(ctx: NodeContext, who: str, text: str, relation: str, what: str) -> Candidate:
    """A memory of what a colleague owns or expects (``who`` is the subject)."""
    return _zh(
        ctx,
        "entity",
        text,
        relation,
        EntityRef(what, "concept"),
        subject=EntityRef(who, "person"),
        confidence=0.8,
        importance=0.8,
    )


def _approvals_zh(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    for m in _APPROVAL_ZH.finditer(s.text):
        who, what = _person_zh(m.group("who"), ctx), m.group("what")
        if who is None or who in (ctx.speaker, ctx.speaker_zh):
            continue
        if not ctx.first("expects", f"{who}:{what}"):
            continue
        verb = m.group("verb")
        out.append(_of_person(ctx, who, f"{what}要{who}{verb}", "expects", f"{what}{verb}"))


def _then_owns_zh(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    m = _THEN_OWNS_ZH.search(s.text)
    if m is None or not ctx.people or ctx.people[-1] not in s.text[: m.start()]:
        return
    who, what = ctx.people[-1], m.group("what")
    if not ctx.first("owns", f"{who}:{what}"):
        return
    out.append(_of_person(ctx, who, f"{what}由{who}负责", "owns", what))


def identity_zh(s: Sentence, ctx: NodeContext) -> list[Candidate]:
    """Identity, colleagues and expectations in one Chinese sentence."""
    out: list[Candidate] = []
    if s.question or s.hypothetical or not ctx.personal:
        return out
    _identity_zh(s, ctx, out)
    if "是做" in s.text or "公司" in s.text or "单位" in s.text:
        _job_parts_zh(s, ctx, out)
    _home_zh(s, ctx, out)
    _people_zh(s, ctx, out)
    if "方向" in s.text:
        _field_zh(s, ctx, out)
    if "负责" in s.text or "归" in s.text or "管" in s.text:
        _owners_zh(s, ctx, out)
        _then_owns_zh(s, ctx, out)
    if "找" in s.text or "问" in s.text or re.search(r"[归由][他她]", s.text):
        _contacts_zh(s, ctx, out)
    if re.search(r"要|希望|需要|习惯", s.text):
        _expectations_zh(s, ctx, out)
    if _APPROVE_GATE_ZH.search(s.text):
        _approvals_zh(s, ctx, out)
    return out
