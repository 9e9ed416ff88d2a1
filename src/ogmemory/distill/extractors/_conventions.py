"""Standing rules and configuration, English and Chinese (the configuration itself is read
by ``_config``).

* rules: "Always run ruff before you commit", "never push directly to main", "When you review,
  flag any function longer than 50 lines", "提交代码之前一定要先跑 lint", "写 SQL 的时候一律用
  小写关键字" → ``The user's rule: ...`` (a ``rule`` memory, ``follows_rule`` edge);
* configuration the speaker states: ports, versions, regions, hosts, paths and where things
  live ("The service listens on port 8080 and we're on Python 3.12", "开发服务器跑在 3000 端口",
  "集群部署在华东 2 区域") → a ``config`` memory whose relations each fill a specific slot
  (``port``, ``version:python``, ``region``, ``host:staging``);
* the team's working language ("我们团队平时用中文交流").

Deadlines and their changes are read by ``_deadlines``.
"""

from __future__ import annotations

import re

from ..types import Candidate, EntityRef
from ._common import NodeContext, Sentence, content_text
from ._config import stated_config
from ._conventions_label import (
    GOES_ON_EN,
    LABEL_ONLY_EN,
    for_this_project,
    in_message,
    rule_body_zh,
    under_label,
)
from ._grammar import finish_en, finish_zh, third_person_en, third_person_zh
from ._you import no_you

__all__ = ["conventions_en", "conventions_zh"]

# ----------------------------------------------------------------------------- rules

_RULE_LEAD_EN = re.compile(
    r"^(?:(?:and|also|so|oh|plus|but|ok(?:ay)?|btw|one\s+more\s+thing|from\s+now\s+on"
    r"|going\s+forward|in\s+general|as\s+a\s+rule|remember|important|note|rule"
    r"|(?:we|i)\s+(?:also\s+|all\s+)?(?:agreed|decided)(?:\s+that)?)[,:!\s]+)*",
    re.IGNORECASE,
)
# "..., but remember any IAM change in prod needs sign-off": a rule reminded after a request
_REMINDED_EN = re.compile(
    r"[,;–—-]\s*(?:(?:but|and|also|though)\s+)?(?:remember|keep\s+in\s+mind|don['’]t\s+forget)"
    r"(?:\s+that)?[,:]?\s+(?P<body>.{6,})",
    re.IGNORECASE,
)
_RULE_EN = re.compile(
    r"^(?P<body>(?:please\s+)?(?:always|never(?!\s+mind\b)|don['’]?t|do\s+not|make\s+sure|be\s+sure\s+to"
    r"|remember\s+to|avoid|only\s+ever|no\s+\w+(?:\s+\w+)?\s+without|stop\s+\w+ing"
    r"|whenever\s+you|when\s+you\s+[^,]{3,40},\s+(?:always\s+|please\s+)?[a-z]+)\b.*)",
    re.IGNORECASE,
)
# "Rule of the house: every public function needs a docstring", "Our convention is ...",
# "Every endpoint must be authenticated", "No force pushes, ever."
# A label that names a rule, then the rule: "<a word or two> rule(s) <up to four words>:" or
# "... is (that)", e.g. "Rule of thumb here:", "House rules for this project:", "Our policy is".
_ANNOUNCED_EN = re.compile(
    r"^(?:[\w'-]+\s+){0,2}(?:rules?|conventions?|polic(?:y|ies)|guidelines?|principles?"
    r"|non-negotiables?|must-haves?)"
    r"(?:\s+(?!is\b|are\b)[\w'-]+){0,5}?(?:\s+is\s+(?:that\s+)?|\s*:\s*|\s+[-–—]+\s+)(?P<body>.{6,})",
    re.IGNORECASE,
)
_UNIVERSAL_EN = re.compile(
    r"^(?P<body>(?:every|all|each|any|no)\s+(?:[\w-]+\s+){0,4}?(?:must|should|needs?\s+to|needs"
    r"|has\s+to|have\s+to|may\s+not|can['’]?t|cannot|shall)\b.*)",
    re.IGNORECASE,
)
# "Every experiment gets a fixed seed", "each PR is reviewed twice": a rule for every instance
_EVERY_EN = re.compile(
    r"^(?P<body>(?:every|each)\s+(?:single\s+)?(?!(?:day|week|month|year|time|night|morning"
    r"|evening|hour|minute|moment|one|step|season)s?\b)(?:[\w-]+\s+){0,3}?(?:gets|goes\s+through"
    r"|requires|carries|ships\s+with|comes\s+with|is\s+(?!\w+ing\b)\w+ed|has\s+(?:a|an|its"
    r"|their|to)|gets\s+\w+ed)\s+(?!(?:a\s+(?:bit|little|lot)\s+)?(?:\w+er|more|less|worse)\b)\w.*)",
    re.IGNORECASE,
)
# "Errors go through thiserror in the lib crate", "All writes go through the repository layer"
_THROUGH_EN = re.compile(
    r"^(?P<body>(?:all\s+)?(?!(?:things|people|kids|days|weeks|times|moments|relationships|feelings"
    r"|friends|folks|guys|we|you|they|plans|ideas)\b)(?:[a-z][\w-]*\s+){0,2}?[a-z][\w-]*[^s\W]s\s+"
    r"(?:always\s+|must\s+|should\s+)?"
    r"(?:go|are\s+routed|get\s+routed|are\s+handled|get\s+handled)\s+(?:through|via)\s+\S.{2,90})",
    re.IGNORECASE,
)
_NO_EVER_EN = re.compile(
    r"^(?P<body>no\s+(?:more\s+)?[\w:.+#/-]+(?:\s+[\w:.+#/-]+){0,3}?(?:,?\s+(?:ever|at\s+all|allowed"
    r"|please|period))\b.*)",
    re.IGNORECASE,
)
# "Keep every migration reversible", "Tag each release with semver": an imperative over every
# instance of something is a standing rule (a one-off request names one thing)
_IMPERATIVE_EN = re.compile(
    r"^(?P<body>(?!(?:i|we|you|he|she|they|it|this|that|there|here|the|a|an|my|our|your|his"
    r"|her|their|every|each|all|any|what|which|who|how|when|where|why|is|are|was|were|do|does"
    r"|did|can|could|will|would|should|let|thanks|thank|and|but|so|or|if|now|then)\b)[a-z]+(?<!ed)"
    # "Marta will review every change": a name and a verb of its own, not an imperative
    r"(?<!ing)(?!\s+(?:will|would|can|could|should|must|may|might|has|have|had|is|was|are|were"
    r"|does|did|needs|wants|always|also|never)\b)\s+(?:[\w-]+\s+){0,2}?(?:every|each|all(?!\s+(?:the|of|these|those|my|our)\b))"
    r"\s+(?!.*\b(?:now|again|for\s+me)\b)\w+.*)",
    re.IGNORECASE,
)
# "Use tabs in this repo", "Write docstrings by default", "Squash commits, no exceptions": an
# imperative with a standing scope or an insistence is a rule (a one-off request names neither)
_BARE_IMPERATIVE_EN = re.compile(
    r"^(?P<body>(?:please\s+)?(?!(?:i|we|you|he|she|they|it|this|that|there|here|the|a|an|my|our"
    r"|your|his|her|their|what|which|who|how|when|where|why|is|are|was|were|do|does|did|can"
    r"|could|will|would|should|let|thanks|thank|and|but|so|or|if|no|not|just|also|sounds"
    r"|looks|seems|makes|got|good|great|nice|ok|okay|sure|yes|yeah|maybe|perhaps|for|in|on|at"
    r"|to|with|from|by|as|of|after|before|heads|fyi|btw|note|one|some|something|quick|time"
    r"|every|each|all|any)\b)"
    r"[a-z]+(?<!ed)(?<!ing)(?<!s)(?<!ly)\s+(?!.*\b(?:I|me|my)\b).*)",
    re.IGNORECASE,
)
_STANDING_EN = re.compile(
    r"(?i)\b(?:in\s+(?:this|our|the)\s+(?:repo(?:sitory)?|codebase|code\s*base|project|team"
    r"|monorepo|service)|by\s+default|from\s+now\s+on|going\s+forward|at\s+all\s+times"
    r"|no\s+exceptions?|without\s+(?:an?\s+)?exception|every\s+(?:single\s+)?time"
    r"|(?:in|for)\s+(?:all\s+|any\s+)?new\s+(?:code|services?|files?|modules?|components?|features?))\b"
)
_EXCEPTION_EN = r"(?:no\s+exceptions?|without\s+(?:an?\s+)?exception)"
_INSIST_EN = re.compile(rf"(?i)[,;:\s-]*\b{_EXCEPTION_EN}\b[.!]*\s*$")
_INSIST_ALONE = re.compile(rf"(?i)[\s.!]*{_EXCEPTION_EN}[.!]*\s*(?:$|[A-Z])")  # its own sentence
_INSIST_ZH = re.compile(
    r"[，,；;：:\s]*(?:没有例外|无一例外|不能例外|不许例外|不得例外|概不例外)[。！!]*\s*$"
)
# "For the record, in this repo: never skip the hooks": a label of any words, then the rule
_COLON_LABEL = re.compile(r"^(?P<label>[^:]{3,80}?):\s+(?P<body>\S.{5,})$")
_WE_RULE_EN = re.compile(
    r"\b(?P<who>we|I)\s+(?:also\s+)?(?P<body>(?:always|never)\s+\w+.*)", re.IGNORECASE
)
# what holds once, or points back at what was just said ("don't let me forget that")
_ONE_OFF = re.compile(
    r"\b(?:today|tonight|this\s+time|right\s+now|for\s+now|yet"
    r"|let\s+me\s+forget\s+(?:that|it|this)|remind\s+me\s+(?:of\s+)?(?:that|it|this)\s*$)\b",
    re.IGNORECASE,
)
_RULE_ZH = re.compile(
    r"一定要|千万不要|千万别|务必|必须|一律|禁止|严禁|不得|杜绝|切记|不准|不许|以后都要|以后都|从今往后"
    r"|今后|记得|(?<!要)不要|别再|不允许|不可以|绝对不|绝不|永远不要"  # not "要不要": whether
    # "别直连生产主库": a bare 别 opening a clause (not 别人/别的, not a two-word "别急")
    r"|(?:^|[，,：:；;！!\s])别(?![人的处家急慌怕担客气])[^，,。；;！!]{3,}"
    r"|^(?:每个|每次|所有|任何|全部)[^，。]{0,16}?(?:都)?(?:要|得|需要|必须|不能|不得|至少)"
)
# a short rule whose object is only "this" or "that": it points back at what was just said
_POINTS_BACK_ZH = re.compile(r"^[^，,。]{0,4}(?:这|那)(?:上面|里|个|件事|些|样)?[^，,。]{0,5}$")
_RULE_LEAD_ZH = re.compile(
    r"^(?:(?:记住|另外|还有|对了|而且|注意|以及|然后|明白了?|懂了|知道了|了解|好的?|行|嗯|收到"
    r"|OK|ok|(?:团队|我们|公司|项目|组里)?(?:的)?(?:规定|规矩|规则|约定|原则))[，,：:！!。\s]*)+"
)
# "Got it, ...", "Makes sense. ...": an acknowledgement before the rule is not part of it
# "HaplotypeCaller is out, DeepVariant from now on": a switch, read by _stack_switch
_TOOL_OUT_EN = re.compile(r"\s*[A-Z][\w.+#-]*\s+(?:is|are)\s+out\s*[,;:–—-]")
# "I always forget what we settled on": the speaker's own lapse, no rule
_OWN_LAPSE_EN = re.compile(
    r"(?i)\bI\s+(?:always|never|usually|often|keep|tend\s+to)\s+(?:forget|forgetting|mix(?:ing)?\s+up"
    r"|lose\s+track|confuse|misremember|get\s+confused|mess(?:ing)?\s+up|remember)\b"
)
_ACK_EN = re.compile(
    r"^(?:(?:got\s+it|i\s+see|makes\s+sense|good\s+to\s+know|understood"
    r"|right(?!\s+(?:now|away|here|there|after|before|then)\b)|sure|thanks"
    r"|ok(?:ay)?|cool|great)[,:!.\s-]+)+",
    re.IGNORECASE,
)
# "the lesson is ...", "经验是 ...": a lesson (learning), never a second memory as a rule
_LESSON_LEAD = re.compile(
    r"(?i)\b(?:lessons?(?:\s+learned)?|takeaway|moral|rule\s+of\s+thumb)"
    r"\s*(?:here\s+|for\s+(?:next\s+time|the\s+future|\w+)\s*)?(?:\b(?:is|was)\b|:|,|-|–|—)"
    r"|(?:教训|经验|结论|收获)(?:就)?(?:是|：|:)"
)
_PLEASE_EN = re.compile(r"^please\s+|,?\s+please(?=[.!]*$)", re.IGNORECASE)
_ME_EN = re.compile(r"\b(?:me|myself)\b(?!['’-])")


def _rule(ctx: NodeContext, s: Sentence, body: str, team: bool) -> Candidate | None:
    if not ctx.first("rule", body):
        return None
    ours = for_this_project(s, ctx)
    zh = s.lang == "zh"
    if zh:
        owner = "团队的规则" if team else f"{ctx.name('zh')}的规则"
        text = finish_zh(f"{owner}：{third_person_zh(body, '团队')}")
    else:
        owner = "The team's rule" if team else f"{ctx.speaker}'s rule"
        body = _PLEASE_EN.sub("", body).strip()
        body = re.sub(r"(?i),\s*I\s+(?:really\s+)?mean\s+it\s*(?=,|$)", "", body)  # insisted
        body = _ME_EN.sub(ctx.speaker, body)  # "without asking me" → "... asking the user"
        body = third_person_en(body, ctx.speaker)  # "before I ship anything": the user ships
        body = no_you(body)
        body = body[:1].lower() + body[1:]
        text = finish_en(f"{owner}: {body}")
        text = text[:1].upper() + text[1:]
    return ctx.candidate(
        "rule",
        text,
        s.lang,
        relation="follows_rule",
        object=EntityRef(body[:80].rstrip(" ,.;。！!"), "rule"),
        confidence=0.8,
        importance=0.9,
        collective=True,
        attrs={"project_rule": True} if ours else {},
    )


def _insisted_after(s: Sentence, ctx: NodeContext) -> bool:
    """Whether the sentence after ``s`` only insists on it ("Squash first. No exceptions.")."""
    full = content_text(ctx.record.node.content)
    if "xception" not in full:
        return False
    at = full.find(s.text)
    return at >= 0 and _INSIST_ALONE.match(full, at + len(s.text)) is not None


def _rule_shaped(text: str, standing: bool = False) -> re.Match[str] | None:
    """The rule an English clause states, if it is shaped like one; ``standing``: the message
    insists on it, so a bare imperative is a rule too."""
    m = (
        _RULE_EN.match(text)
        or _UNIVERSAL_EN.match(text)
        or _EVERY_EN.match(text)
        or _NO_EVER_EN.match(text)
        or _IMPERATIVE_EN.match(text)
        or _THROUGH_EN.match(text)
    )
    if m is None and (standing or _STANDING_EN.search(text)):
        m = _BARE_IMPERATIVE_EN.match(_INSIST_EN.sub("", text))
    return m


def _rules(s: Sentence, ctx: NodeContext, out: list[Candidate], taken: bool) -> None:
    # "When you review, flag ..." reads like a question to the generic detector; a rule is
    # a question only when it asks one. Between two people, "don't give up!" is
    # encouragement, not a standing rule: rules are what a user asks of an assistant.
    if (
        taken
        or ctx.listener
        or s.text.rstrip().endswith(("?", "？"))
        or _LESSON_LEAD.search(s.text)
        or _OWN_LAPSE_EN.search(s.text)
        or _TOOL_OUT_EN.match(s.text)
    ):
        return
    if s.lang == "zh":
        body = rule_body_zh(_RULE_LEAD_ZH.sub("", s.text.strip()), _RULE_ZH, ctx)
        insisted = _INSIST_ZH.search(body)
        if insisted and insisted.start() > 3:
            body = body[: insisted.start()]  # "所有寄存器操作都封装成函数，没有例外"
        announced_zh = re.match(
            r"^[^，,。]{0,6}(?:规定|规矩|规则|约定|原则)[哈啊呀哦嘛吧]?[：:]", s.text.strip()
        )
        if _POINTS_BACK_ZH.match(body.strip(" ，,。！!")):
            return  # "别在这上面花时间了": about what was just said, not a standing rule
        if _RULE_ZH.search(body) or (insisted and insisted.start() > 3) or announced_zh:
            c = _rule(ctx, s, body, team=bool(re.search(r"我们|团队|公司|组里", s.text)))
            if c is not None:
                out.append(c)
        return
    if LABEL_ONLY_EN.match(s.text.strip()):
        return  # "Two hard rules in this codebase.": the rules are what follows
    announced = _ANNOUNCED_EN.match(s.text.strip())
    before, after = in_message(s, ctx)
    if announced is None and under_label(before):
        announced = re.match(r"(?P<body>.{6,})", _RULE_LEAD_EN.sub("", s.text.strip()))
    lead = _ACK_EN.sub("", s.text.strip())
    text = announced.group("body") if announced else _RULE_LEAD_EN.sub("", lead)
    standing = _insisted_after(s, ctx)
    labelled = _COLON_LABEL.match(text) if announced is None and ":" in text else None
    m = _rule_shaped(_RULE_LEAD_EN.sub("", labelled.group("body")), standing) if labelled else None
    m = m or _rule_shaped(text, standing)
    reminded = _REMINDED_EN.search(text) if m is None else None
    if reminded is not None:  # "write the IAM policy, but remember any IAM change needs ..."
        m = _rule_shaped(reminded.group("body"), standing)
    if m is None and announced is not None:
        m = re.match(r"(?P<body>.+)", text)
    team = False
    if m is None:
        m = _WE_RULE_EN.search(text)
        team = m is not None and m.group("who").lower() == "we"
    if m is None or _ONE_OFF.search(m.group("body")):
        return
    body = m.group("body").strip()
    if GOES_ON_EN.match(after.strip()):  # "Everything goes through Addressables."
        body = f"{body.rstrip(' .;!')}; {after.strip()[:1].lower()}{after.strip()[1:]}"
    c = _rule(ctx, s, body, team)
    if c is not None:
        out.append(c)


def conventions_en(s: Sentence, ctx: NodeContext, found: list[Candidate]) -> list[Candidate]:
    """Rules and configuration in one English sentence (``found``: what the other families
    already took from it). A rule may hold a condition ("if a test is flaky, never retry it
    blindly"); a setting said under one is not stated."""
    out: list[Candidate] = []
    if not ctx.personal:
        return out
    taken = {c.object.name.lower() for c in found if c.object is not None}
    taken |= {c.replaces.name.lower() for c in found if c.replaces is not None}
    if not s.hypothetical:
        stated_config(s, ctx, out, taken)
    decided = any(c.relation in ("avoids", "uses", "has_deadline") for c in found)
    _rules(s, ctx, out, decided or bool(out))
    return out


def conventions_zh(s: Sentence, ctx: NodeContext, found: list[Candidate]) -> list[Candidate]:
    """The same for one Chinese sentence ("……的话在展示层自己转" is a condition inside a rule)."""
    out: list[Candidate] = []
    if not ctx.personal:
        return out
    taken = {c.object.name.lower() for c in found if c.object is not None}
    if not s.hypothetical:
        stated_config(s, ctx, out, taken)
    decided = any(c.relation in ("avoids", "uses", "has_deadline") for c in found)
    _rules(s, ctx, out, decided or bool(out))
    return out
