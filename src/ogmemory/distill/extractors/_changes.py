"""A setting changed from one value to another, English and Chinese.

"We've bumped the dbt warehouse up from TRANSFORM_S to TRANSFORM_M", "Prometheus 的保留时间从
15d 调到 45d 了", "已经把 Spring Boot 从 2.7.18 升到 3.2.5": the thing set, its old value and its
new one. The new value is a ``config`` fact in the slot of the thing (``version:<tool>`` when
the thing is a named tool, else ``setting:<thing>``), and the old value is what it replaces.

Only values that look like settings are read: a token with a digit ("45d", "3.2.5", "512Mi") or
an upper-case identifier ("TRANSFORM_M"). "Switch from Cypress to Playwright" is a tool switch,
read by ``_stack_switch``.
"""

from __future__ import annotations

import re

from ..types import Candidate, EntityRef
from ._common import NodeContext, Sentence
from ._grammar import finish_en, finish_zh, stated_before_ask, third_person_en, third_person_zh

__all__ = ["value_changes"]

_VALUE = r"[\w.+-]*\d[\w.+-]*|[A-Z][A-Z0-9]*_[A-Z0-9_]+"
_CHANGE_EN = re.compile(
    r"(?i:\b(?:bumped|bump|upgraded|upgrade|raised|raise|lowered|lower|increased|increase"
    r"|decreased|decrease|reduced|reduce|changed|change|moved|move|updated|update|downgraded"
    r"|downgrade|scaled|scale|set|turned|turn|went|go|switched|switch|resized|resize)\s+)"
    r"(?P<what>(?:(?i:the|our|its)\s+)?[\w.-]+(?:\s+[\w.-]+){0,3}?)\s+(?i:(?:up|down|over)\s+)?"
    rf"(?i:from)\s+(?P<old>{_VALUE})\s+(?i:to)\s+(?P<new>{_VALUE})(?!\w|\.\w)"
)
# "we're bumping MSRV to 1.78", "upgrade Node to 22.4": a new version, the old one unsaid
_BUMP_EN = re.compile(
    r"(?i:\b(?:bump(?:ed|ing)?|upgrad(?:e|ed|ing)|rais(?:e|ed|ing)|mov(?:e|ed|ing)|pinn?(?:ed|ing)?)\s+)"
    r"(?:(?i:the|our)\s+)?(?P<what>[A-Z][\w.+-]*(?:\s+[A-Z][\w.+-]*)?)\s+(?i:up\s+)?(?i:to)\s+v?"
    r"(?P<new>\d+(?:\.\d+){1,2})(?!\w|\.\w)"
)
# "所以编译器我们升到 GCC 13 了": a named tool's new version, the old one unsaid
_BUMP_ZH = re.compile(
    r"(?:升到|升级到|升级成|升成|换到|切到|改成|改到)\s*(?P<what>[A-Za-z][\w.+-]*[A-Za-z])\s*v?"
    r"(?P<new>\d+(?:\.\d+){0,2})(?![\w.])"
)
# "ES 集群也升级了，现在是 8.15", "AGP 我们升级了，现在是 8.4.1": the upgrade, then the version
_BUMPED_ZH = re.compile(
    r"(?<![\w.+-])(?P<what>[A-Za-z][\w.+-]*[A-Za-z])\s*(?:集群|版本|服务端)?\s*"
    r"(?:我们|团队|也|已经|都|刚|刚刚)*\s*(?:升级|升|更新|换)(?:过)?了\s*[，,]\s*(?:现在|目前)\s*"
    r"(?:是|为|用的是|到了)\s*v?(?P<new>\d+(?:\.\d+){1,2})(?![\w.])"
)
# "Postgres got upgraded, it's 16.2 now": the English counterpart
_BUMPED_EN = re.compile(
    r"(?<![\w.+-])(?P<what>[A-Z][\w.+-]*(?:\s+[A-Z][\w.+-]*)?)\s+(?:(?i:got|was|has\s+been|is)\s+)"
    r"(?i:upgraded|bumped|updated)(?:\s+(?i:again|too|as\s+well))?\s*[,;:–—-]+\s*"
    r"(?i:it['’]s|it\s+is|we['’]re|we\s+are|now)\s+(?:(?i:now|on)\s+)*v?(?P<new>\d+(?:\.\d+){1,2})"
    r"(?![\w.])"
)
# "while we're touching Triton, bump it to 24.08": "it" is the tool named before
_BUMP_IT_EN = re.compile(
    r"(?i:\b(?:bump(?:ed|ing)?|upgrad(?:e|ed|ing)|mov(?:e|ed|ing))\s+it\s+(?:up\s+)?to)\s+v?"
    r"(?P<new>\d+(?:\.\d+){1,2})(?!\w|\.\w)"
)
_NAMED = re.compile(r"(?<![\w.-])[A-Z][\w.+-]*[A-Za-z0-9]")


def _named_before(text: str) -> str:
    """The last capitalised name in ``text`` that is no sentence opener ("Triton")."""
    names = [n for n in _NAMED.findall(text) if n not in ("I", "While", "And", "So", "Also")]
    return names[-1] if names else ""


_CHANGE_ZH = re.compile(
    rf"从\s*(?P<old>{_VALUE})\s*(?:升级|升|调整|调|改|换|降|提|扩|涨|缩|减|加)(?:到|成|为|至)\s*"
    rf"(?P<new>{_VALUE})(?!\w|\.\w)"
)
_LEAD_ZH = re.compile(r"^(?:我们|我|团队|已经|刚刚|刚|现在|今天|昨天|把|将|也|都|就|还|又)+")
_CLAUSE_ZH = re.compile(r"[，,。；;：:！!]|把|将")
_TOOL = re.compile(r"^(?:[A-Z][\w.+-]*)(?:\s+[A-Z][\w.+-]*)?$")


_PORT = re.compile(r"(?i)端口|\bport\b")


def _slot(what: str) -> tuple[str, str]:
    """The slot of the thing set and the name its value is shown under: a named tool's
    version ("Spring Boot" → ``version:spring boot``, "Spring Boot 3.2.5"), else the setting."""
    if _TOOL.match(what) and not re.search(r"[\u4e00-\u9fff]", what):
        return f"version:{what.lower()}", what
    return f"setting:{what.lower()}", ""


def value_changes(s: Sentence, ctx: NodeContext, found: list[Candidate]) -> list[Candidate]:
    """The settings one sentence says were changed (``found``: what other families took)."""
    if s.hypothetical or not ctx.personal:
        return []
    if s.question:  # "AGP 我们升级了，现在是 8.4.1，帮我看看 build": stated before the ask
        head = stated_before_ask(s.text)
        return _bumps(s, ctx, found, head) if head else []
    zh = s.lang == "zh"
    if "from" not in s.text and "从" not in s.text:
        return _bumps(s, ctx, found)
    taken = {c.object.name for c in found if c.object is not None}
    out: list[Candidate] = []
    for m in (_CHANGE_ZH if zh else _CHANGE_EN).finditer(s.text):
        if zh:  # the thing set: what the clause names before 从 ("已经把 Spring Boot 从 ...")
            head = _CLAUSE_ZH.split(s.text[: m.start()])[-1]
            what = re.sub(r"\s*的$", "", _LEAD_ZH.sub("", head.strip())).strip()
        else:
            what = re.sub(r"(?i)^(?:the|our|its)\s+", "", m.group("what").strip())
        old, new = m.group("old"), m.group("new")
        if not what or old == new or new in taken or not ctx.first("config", f"{what}={new}"):
            continue
        slot, tool = _slot(what)
        name, was = (f"{tool} {new}", f"{tool} {old}") if tool else (new, old)
        relation = "runs_on" if tool else "has_setting"
        if _PORT.search(what) and new.isdigit():  # "接口服务端口要从 5080 改成 5090": the port
            slot, name, was, relation = "port", f"port {new}", f"port {old}", "listens_on"
        said = s.text.strip()
        if zh:
            text = finish_zh(third_person_zh(said, "团队").replace("团队他们", "团队"))
        else:
            text = finish_en(third_person_en(said, "the team", group="the team"))
            text = text[:1].upper() + text[1:]
        out.append(
            ctx.candidate(
                "config",
                text,
                s.lang,
                relation=relation,
                object=EntityRef(name, "value", attrs={"setting": what, "value": new}),
                slot=slot,
                replaces=EntityRef(was, "value"),
                confidence=0.85,
                importance=0.75,
                collective=True,
                attrs={"setting": what, "from": old, "to": new},
            )
        )
    return out


def _bumps(
    s: Sentence, ctx: NodeContext, found: list[Candidate], said: str | None = None
) -> list[Candidate]:
    """ "We're bumping MSRV to 1.78": a named tool's new version (which ends the old one in
    its ``version:`` slot); ``said``: the part of the sentence that states it."""
    said = s.text if said is None else said
    taken = {c.object.name for c in found if c.object is not None}
    out: list[Candidate] = []
    zh = s.lang == "zh"
    bumps = (_BUMP_ZH, _BUMPED_ZH) if zh else (_BUMP_EN, _BUMPED_EN, _BUMP_IT_EN)
    for m in [m for rx in bumps for m in rx.finditer(said)]:
        what = m.groupdict().get("what") or _named_before(said[: m.start()])
        new = m.group("new")
        if not what:
            continue
        name = f"{what} {new}"
        if name in taken or not ctx.first("config", f"{what}={new}"):
            continue
        if m.re is _BUMPED_ZH or m.re is _BUMPED_EN:  # said as "upgraded, now it's ...": plain
            text = (
                f"团队把 {what} 升级到了 {new}。" if zh else f"The team upgraded {what} to {new}."
            )
        elif m.re is _BUMP_IT_EN:  # "bump it to 24.08": the tool named, not "it"
            text = f"The team is upgrading {what} to {new}."
        elif zh:
            text = finish_zh(third_person_zh(said.strip(), "团队").replace("团队他们", "团队"))
        else:
            text = finish_en(third_person_en(said.strip(), "the team", group="the team"))
        out.append(
            ctx.candidate(
                "config",
                text[:1].upper() + text[1:],
                s.lang,
                relation="runs_on",
                object=EntityRef(name, "value", attrs={"setting": what, "value": new}),
                slot=f"version:{what.lower()}",
                confidence=0.85,
                importance=0.75,
                collective=True,
                attrs={"setting": what, "to": new},
            )
        )
    return out
