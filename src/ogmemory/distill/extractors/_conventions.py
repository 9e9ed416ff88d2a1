"""Standing rules and configuration, English and Chinese.

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

from ..dates import names_a_time
from ..types import Candidate, EntityRef, Fact
from ._common import NodeContext, Sentence, content_text, gate
from ._conventions_label import (
    GOES_ON_EN,
    LABEL_ONLY_EN,
    for_this_project,
    in_message,
    rule_body_zh,
    under_label,
)
from ._grammar import finish_en, finish_zh, third_person_en, third_person_zh
from ._services import port_facts
from ._you import no_you

__all__ = ["conventions_en", "conventions_zh"]

# ----------------------------------------------------------------------------- rules

_RULE_LEAD_EN = re.compile(
    r"^(?:(?:and|also|so|oh|plus|but|ok(?:ay)?|btw|one\s+more\s+thing|from\s+now\s+on"
    r"|going\s+forward|in\s+general|as\s+a\s+rule|remember|important|note|rule"
    r"|(?:we|i)\s+(?:also\s+|all\s+)?(?:agreed|decided)(?:\s+that)?)[,:!\s]+)*",
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
    r"^(?:[\w'-]+\s+){0,2}(?:rules?|conventions?|polic(?:y|ies)|guidelines?|principles?)"
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
_NO_EVER_EN = re.compile(
    r"^(?P<body>no\s+(?:more\s+)?[\w-]+(?:\s+[\w-]+){0,3}?(?:,?\s+(?:ever|at\s+all|allowed"
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
_ONE_OFF = re.compile(r"\b(?:today|tonight|this\s+time|right\s+now|for\s+now|yet)\b", re.IGNORECASE)
_RULE_ZH = re.compile(
    r"一定要|千万不要|千万别|务必|必须|一律|禁止|严禁|不得|杜绝|切记|不准|不许|以后都要|以后都|从今往后"
    r"|今后|记得|不要|别再|不允许|不可以|绝对不|绝不|永远不要"
    r"|^(?:每个|每次|所有|任何|全部)[^，。]{0,16}?(?:都)?(?:要|得|需要|必须|不能|不得|至少)"
)
_RULE_LEAD_ZH = re.compile(
    r"^(?:(?:记住|另外|还有|对了|而且|注意|以及|然后|明白了?|懂了|知道了|了解|好的?|行|嗯|收到"
    r"|OK|ok|(?:团队|我们|公司|项目|组里)?(?:的)?(?:规定|规矩|规则|约定|原则))[，,：:！!。\s]*)+"
)
# "Got it, ...", "Makes sense. ...": an acknowledgement before the rule is not part of it
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
        body = _ME_EN.sub(ctx.speaker, body)  # "without asking me" → "... asking the user"
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
    ):
        return
    if s.lang == "zh":
        body = rule_body_zh(_RULE_LEAD_ZH.sub("", s.text.strip()), _RULE_ZH, ctx)
        insisted = _INSIST_ZH.search(body)
        if insisted and insisted.start() > 3:
            body = body[: insisted.start()]  # "所有寄存器操作都封装成函数，没有例外"
        announced_zh = re.match(r"^[^，,。]{0,6}(?:规定|规矩|规则|约定|原则)[：:]", s.text.strip())
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


# ----------------------------------------------------------------------------- configuration

_TOOLS_V = (
    r"Python|Node(?:\.js)?|Java|Go|Ruby|PHP|Rust|Kotlin|Swift|PostgreSQL|Postgres|MySQL"
    r"|Django|React|Angular|Vue|Android|iOS|Xcode|Gradle|TypeScript|\.NET|Elixir|Scala"
    r"|Terraform|Kubernetes|Ubuntu|Debian|Redis|Spark|Flink|Kafka|JDK|Dart|Flutter"
)
_VERSION_EN = re.compile(
    rf"\b(?P<tool>{_TOOLS_V})\s+(?:version\s+)?(?:is\s+|of\s+)?v?(?P<ver>\d+(?:\.\d+){{0,2}})"
    rf"\b(?!\s*(?:%|ms|s\b|GB|MB|x\b))"
    r"|\b(?P<what>(?:minimum|min|target|compile)\s+SDK|minSdk|targetSdk)\s+(?:version\s+)?"
    r"(?:is\s+)?(?P<ver2>\d+)\b"
)
# any named tool with the word "version" ("ESP-IDF version is 5.2", "ESP-IDF 版本是 5.2") or
# pinned to one ("pinned to numpy 1.26")
_NAMED_VERSION_EN = re.compile(
    r"\b(?P<tool>[A-Za-z][\w.+-]*[A-Za-z0-9])\s+version\s+(?:is\s+|:\s*)?v?"
    r"(?P<ver>\d+(?:\.\d+){0,2})\b|\bpinned\s+(?:to|at)\s+(?P<tool2>[A-Za-z][\w.+-]*[A-Za-z0-9])"
    r"\s+v?(?P<ver2>\d+(?:\.\d+){0,2})\b"
    # "production runs Ruby 3.3 and Rails 7.2": a name and a dotted version after a verb of use
    r"|\b(?:on|is|are|runs?|running|uses?|using|with|and)\s+(?P<tool3>[A-Z][\w+-]*[A-Za-z])\s+v?"
    r"(?P<ver3>\d+\.\d+(?:\.\d+)?)\b(?!\s*(?:%|ms|s\b|GB|MB|x\b))"
)
_NAMED_VERSION_ZH = re.compile(
    r"(?P<tool>[A-Za-z][\w.+-]*[A-Za-z0-9])\s*(?:的)?版本\s*(?:是|为|：|:)\s*v?(?P<ver>\d+(?:\.\d+){0,2})"
    r"|(?:是|用的是|用|跑在|基于|和|、)\s*(?P<tool3>[A-Za-z][\w+-]*[A-Za-z])\s*v?"
    r"(?P<ver3>\d+\.\d+(?:\.\d+)?)(?![\d.]|\s*(?:%|ms|GB|MB))"
)
_REGION_EN = re.compile(
    r"\b(?P<r>(?:us|eu|ap|sa|ca|me|af|cn)-(?:north|south|east|west|central|northeast|southeast"
    r"|northwest|southwest)-\d"
    # Google Cloud's names: us-central1, europe-west4, asia-northeast1
    r"|(?:us|europe|asia|australia|northamerica|southamerica|me|africa)-(?:north|south|east|west"
    r"|central|northeast|southeast|northwest|southwest)\d)\b"
    r"|\b(?:in|to)\s+the\s+(?P<r2>[\w-]+)\s+region\b"
)
_HOST_EN = re.compile(
    r"\b(?P<what>[\w-]+(?:\s+(?:host|server|endpoint|url|domain|api|backend|database|db))?)"
    r"\s+(?:is|lives|runs|sits|is\s+hosted)?\s*(?:at|on)?\s*"
    r"(?P<h>(?:[a-z0-9-]+\.)+(?:internal|local|lan|corp|com|io|net|org|dev|app|cloud|health"
    r"|ai|co|cn|de|uk)\b)",
    re.IGNORECASE,
)
_LIVES_EN = re.compile(
    r"\b(?P<what>(?:the|our)\s+[\w-]+(?:\s+[\w-]+)?)\s+(?:lives|is\s+stored|is\s+kept|sits)\s+"
    r"(?:in|on|at)\s+(?P<where>(?:an?\s+|the\s+)?[\w./~-]+(?:\s+[\w-]+)?)"
)
_PATH_EN = re.compile(
    r"\b(?P<what>(?i:the|our|all(?:\s+(?:the|our))?)\s+[\w-]+(?:\s+[\w-]+)?)\s+(?:is|are|lives?|sits?"
    r"|(?:is|are)\s+(?:stored|kept)|(?:go|goes))\s+(?:at|in|under|into)\s+(?:the\s+)?"
    r"(?P<p>(?:/|~/|\./)[\w./~-]+|[\w.-]+/[\w./-]*)"
)
_LANG_EN = re.compile(
    r"\b(?:we|the\s+team|our\s+team)\s+(?:usually\s+|mostly\s+|always\s+)?(?:speak|talk"
    r"|communicate|work)\s+in\s+(?P<lang>English|Chinese|Mandarin|German|French|Spanish"
    r"|Japanese|Portuguese)\b|\bour\s+team\s+language\s+is\s+(?P<lang2>\w+)",
    re.IGNORECASE,
)
# "The webshop deploys to Kubernetes", "our API runs on AWS Lambda", "we deploy the frontend to
# Vercel": where a named thing runs (the target is a name: capitalised, or a dotted host name)
_TARGET_EN = r"(?P<to>[A-Z][\w.-]*[\w](?:\s+[A-Z][\w.-]*[\w])?)"
_DEPLOY_EN = re.compile(
    r"\b(?P<what>(?i:the|our)\s+[\w-]+(?:\s+[\w-]+)?)\s+(?:deploys|is\s+deployed|gets\s+deployed"
    r"|ships|runs|is\s+running)\s+(?:to|on|in)\s+"
    + _TARGET_EN
    + r"|\b(?i:we|they)\s+(?:deploy|ship|run|host)\s+(?P<what2>(?i:the|our)\s+[\w-]+"
    r"(?:\s+[\w-]+)?)\s+(?:to|on|in)\s+" + _TARGET_EN.replace("?P<to>", "?P<to2>")
)
_VERSION_ZH = re.compile(
    rf"(?P<tool>{_TOOLS_V})\s*(?:的)?(?:版本)?\s*(?:是|为|用的是|用)?\s*"
    rf"v?(?P<ver>\d+(?:\.\d+){{0,2}})"
)
# "预发环境的地址是 staging.foo.cn": where a named thing is reached
_HOST_ZH = re.compile(
    r"(?P<what>[\u4e00-\u9fffA-Za-z0-9]{1,12}?)(?:的)?(?:地址|域名|网址|主机|host|环境)\s*(?:是|为|在|：|:)\s*"
    r"(?:https?://)?(?P<h>(?:[a-z0-9-]+\.)+[a-z]{2,12})\b",
    re.IGNORECASE,
)
_REGION_ZH = re.compile(
    r"在\s*(?P<r>[^，,。；;在]{2,10}?)\s*(?:区域|地域|机房|可用区)"
    r"|(?:部署|托管|放|跑)在\s*(?P<r2>[^，,。；;在]{1,12}?(?:区|云|机房))(?=\s*(?:[，,。；;]|$|上))"
    # "部署在阿里云华北 2": a cloud's region by its name and number
    r"|(?P<r3>(?:阿里云|腾讯云|华为云|百度云|京东云|天翼云)?\s*(?:华北|华东|华南|华中|西南|西北|东北)"
    r"\s*\d{1,2})(?![\d.])"
)
_LANG_ZH = re.compile(
    r"(?:我们|团队|我们团队)[^，。]{0,4}?(?:用|说)\s*(?P<lang>中文|英文|英语|日语|粤语)"
    r"\s*(?:交流|沟通|讨论)"
)


_CONFIG_GATE = gate(
    "port region host server lives stored kept sits speak talk communicate"
    " language sdk minsdk targetsdk version deploys deployed deploy ships ship"
    " runs run running live folder directory"
)
_PATHISH = re.compile(r"(?:^|\s)(?:/|~/|\./)\w")
_CONFIG_GATE_ZH = re.compile(r"\d|端口|版本|区域|地域|机房|部署|交流|沟通|地址|域名|网址|主机|环境")
_DIGIT_OR_DOT = re.compile(r"\d|\w\.\w")


def _config_facts(s: Sentence) -> list[Fact]:
    facts: list[Fact] = []
    zh = s.lang == "zh"
    if zh and not _CONFIG_GATE_ZH.search(s.text):
        return facts
    if (
        not zh
        and not s.has(_CONFIG_GATE)
        and not _DIGIT_OR_DOT.search(s.text)
        and not _PATHISH.search(s.text)
    ):
        return facts
    facts.extend(port_facts(s.text, zh))
    named = _NAMED_VERSION_ZH if zh else _NAMED_VERSION_EN
    seen: set[str] = set()
    for m in [*(_VERSION_ZH if zh else _VERSION_EN).finditer(s.text), *named.finditer(s.text)]:
        g = m.groupdict()
        tool = m.group("tool") or g.get("what") or g.get("tool2") or g.get("tool3") or ""
        ver = m.group("ver") or g.get("ver2") or g.get("ver3")
        if not tool or not ver or tool.lower() in seen:
            continue
        seen.add(tool.lower())
        facts.append(
            Fact("runs_on", EntityRef(f"{tool} {ver}", "value"), slot=f"version:{tool.lower()}")
        )
    for m in (_REGION_ZH if zh else _REGION_EN).finditer(s.text):
        r = m.group("r") or m.groupdict().get("r2") or m.groupdict().get("r3")
        if r and r.lower() not in ("same", "other", "right", "wrong", "whole"):
            facts.append(Fact("deployed_in", EntityRef(r.strip(), "value"), slot="region"))
    if zh:
        for m in _HOST_ZH.finditer(s.text):
            what = re.sub(r"^(?:我们的|我们|另外|还有)", "", m.group("what")) or "host"
            facts.append(Fact("has_host", EntityRef(m.group("h"), "value"), slot=f"host:{what}"))
    if not zh:
        for m in _HOST_EN.finditer(s.text):
            what = m.group("what").lower()
            what = re.sub(r"\s+(?:host|server|url|domain)$", "", what)
            if what in ("is", "at", "on", "lives", "the"):
                what = "host"
            facts.append(Fact("has_host", EntityRef(m.group("h"), "value"), slot=f"host:{what}"))
        for m in _PATH_EN.finditer(s.text):
            what = re.sub(r"^(?:all\s+)?(?:the\s+|our\s+)?", "", m.group("what").lower())
            facts.append(
                Fact(
                    "located_at", EntityRef(m.group("p").rstrip("."), "value"), slot=f"path:{what}"
                )
            )
        for m in _DEPLOY_EN.finditer(s.text):
            what = re.sub(r"^(?:the|our)\s+", "", (m.group("what") or m.group("what2")).lower())
            target = (m.group("to") or m.group("to2")).rstrip(".")
            if names_a_time(target):
                continue  # "The beta ships on March 3": a date, read as a deadline
            if not any(f.object.name == target for f in facts):
                facts.append(Fact("deployed_to", EntityRef(target, "tool"), slot=f"deploy:{what}"))
        hosts = {f.object.name for f in facts}
        for m in _LIVES_EN.finditer(s.text):
            if any(h in m.group("where") for h in hosts):
                continue
            what = re.sub(r"^(?:the|our)\s+", "", m.group("what").lower())
            facts.append(
                Fact("stored_in", EntityRef(m.group("where"), "value"), slot=f"location:{what}")
            )
    for m in (_LANG_ZH if zh else _LANG_EN).finditer(s.text):
        lang = m.group("lang") or m.groupdict().get("lang2")
        facts.append(Fact("communicates_in", EntityRef(str(lang), "concept"), slot="team_language"))
    return facts


def _config(s: Sentence, ctx: NodeContext, out: list[Candidate], taken: set[str]) -> None:
    # "going with Nuxt 3 instead of Vue 2": a version of what a choice names or drops is part
    # of that choice, not a setting of its own
    facts = [
        f
        for f in _config_facts(s)
        if f.object.name.lower() not in taken
        and not (f.relation == "runs_on" and f.object.name.split()[0].lower() in taken)
    ]
    if not facts or s.question:
        return
    if not ctx.first("config", s.text):
        return
    said = _clauses_with(s.text, [f.object.name.split()[-1] for f in facts])
    if s.lang == "zh":
        text = finish_zh(_team_zh(said))
    else:
        text = finish_en(third_person_en(said, "the team", group="the team"))
        text = text[:1].upper() + text[1:]
    # a fact of the team (the project) leads; a service named in the sentence is the subject
    # of its own facts ("The API listens on port 8080": the API's port, not the user's)
    facts.sort(key=lambda f: f.subject is not None)
    first, more = facts[0], tuple(facts[1:])
    subject = {"subject": first.subject} if first.subject is not None else {}
    out.append(
        ctx.candidate(
            "config",
            text,
            s.lang,
            relation=first.relation,
            object=first.object,
            slot=first.slot,
            more=more,
            confidence=0.85,
            importance=0.75,
            collective=first.subject is None,
            **subject,
        )
    )


_CLAUSE = re.compile(r",\s+(?:and|but|so)\s+|;\s+|，|；")


def _clauses_with(text: str, values: list[str]) -> str:
    """The clauses of ``text`` that state one of ``values`` ("For infra we use Terraform, and
    the state lives in an S3 bucket" → the second clause)."""
    parts = _CLAUSE.split(text)
    keep = [p for p in parts if any(v in p for v in values)]
    if not keep or len(keep) == len(parts):
        return text
    return ("，" if re.search(r"[\u4e00-\u9fff]", text) else ", ").join(keep)


def _team_zh(text: str) -> str:
    text = re.sub(r"我们(?=团队|组|公司)", "", text)
    return third_person_zh(text, "团队").replace("团队他们", "团队")


def conventions_en(s: Sentence, ctx: NodeContext, found: list[Candidate]) -> list[Candidate]:
    """Rules and configuration in one English sentence (``found``: what the other families
    already took from it)."""
    out: list[Candidate] = []
    if not ctx.personal or s.hypothetical:
        return out
    taken = {c.object.name.lower() for c in found if c.object is not None}
    taken |= {c.replaces.name.lower() for c in found if c.replaces is not None}
    _config(s, ctx, out, taken)
    decided = any(c.relation in ("avoids", "uses", "has_deadline") for c in found)
    _rules(s, ctx, out, decided or bool(out))
    return out


def conventions_zh(s: Sentence, ctx: NodeContext, found: list[Candidate]) -> list[Candidate]:
    """The same for one Chinese sentence."""
    out: list[Candidate] = []
    if not ctx.personal or s.hypothetical:
        return out
    taken = {c.object.name.lower() for c in found if c.object is not None}
    _config(s, ctx, out, taken)
    decided = any(c.relation in ("avoids", "uses", "has_deadline") for c in found)
    _rules(s, ctx, out, decided or bool(out))
    return out
