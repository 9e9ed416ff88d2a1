"""Configuration a user states, English and Chinese: ports, versions ("we're on Python 3.12",
"MSRV is 1.74", "FFmpeg 用的 6.1"), regions, hosts and addresses ("仿真服务器是 sim-gpu-03，IP
10.30.7.21"), paths, the team's language and where things deploy. Each is a fact in the slot
of the thing it sets (``port``, ``version:python``, ``region``, ``host:staging``), so a later
value of the same thing ends the earlier one.
"""

from __future__ import annotations

import re

from ..dates import names_a_time
from ..types import Candidate, EntityRef, Fact
from ._catalog import lookup
from ._common import NodeContext, Sentence, gate
from ._grammar import (
    finish_en,
    finish_zh,
    stated_before_ask,
    strip_label_en,
    third_person_en,
    third_person_zh,
)
from ._services import port_facts

__all__ = ["stated_config"]


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
    r"|\b(?:on|is|are|runs?|running|uses?|using|with|and)\s+"
    r"(?P<tool3>[A-Z][\w+-]*[A-Za-z](?:\s+(?:SDK|CLI|API|NDK|JDK|Runtime|Toolkit|Engine))?)\s+v?"
    r"(?P<ver3>\d+\.\d+(?:\.\d+)?)\b(?!\s*(?:%|ms|s\b|GB|MB|x\b))"
    # "MSRV is 1.74 for now", "CARLA is 0.9.15": an upper-case name and the version it is at
    r"|(?<![\w.+-])(?P<tool4>[A-Z][A-Z0-9+-]*[A-Z0-9]|[A-Z][a-z]+[A-Z][\w+-]*|[A-Z][a-z]+(?=\s+is\s+on\s))"
    r"\s+is\s+(?:now\s+|still\s+)?(?:on\s+)?v?"
    r"(?P<ver4>\d+\.\d+(?:\.\d+)?)\b(?!\s*(?:%|ms|s\b|GB|MB|x\b|times|seconds|hours))"
)
_NAMED_VERSION_ZH = re.compile(
    r"(?P<tool>[A-Za-z][\w.+-]*[A-Za-z0-9])\s*(?:的)?版本\s*(?:是|为|：|:)\s*v?(?P<ver>\d+(?:\.\d+){0,2})"
    r"|(?:是|用的是|用|跑在|基于|和|、)\s*(?P<tool3>[A-Za-z][\w+-]*[A-Za-z])\s*v?"
    r"(?P<ver3>\d+\.\d+(?:\.\d+)?|(?<=[A-Z]\s)\d{1,3}(?=\s*(?:[，,。；;]|$)))(?![\d.]|\s*(?:%|ms|GB|MB))"
    # "CARLA 是 0.9.15", "FFmpeg 用的 6.1": the name, then what it is at
    r"|(?<![\w.+-])(?P<tool4>[A-Za-z][\w+-]*[A-Za-z0-9])\s*(?:集群|服务端|版本)?\s*(?:现在|目前)?"
    r"(?:是|用的是|用的|用)\s*v?"
    r"(?P<ver4>\d+\.\d+(?:\.\d+)?)(?![\d.]|\s*(?:%|ms|GB|MB|秒|倍|个|台|块))"
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
    r"\s+(?:is|lives|runs|sits|is\s+hosted)?\s*(?:at|on)?\s*(?:https?://)?"
    r"(?P<h>(?:[a-z0-9-]+\.)+(?:internal|local|lan|corp|com|io|net|org|dev|app|cloud|health"
    r"|ai|co|cn|de|uk)\b(?::\d{2,5}\b)?)",
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
    rf"(?P<tool>{_TOOLS_V})\s*(?:的)?(?:版本)?\s*(?:是|为|用的是|用的|用)?\s*"
    rf"v?(?P<ver>\d+(?:\.\d+){{0,2}})"
)
# "仿真服务器是 sim-gpu-03，IP 10.30.7.21": an address, of the machine named before it
_IP_ZH = re.compile(
    r"(?<![\w.])(?:IP|ip|地址)\s*(?:是|为|：|:)?\s*(?P<ip>\d{1,3}(?:\.\d{1,3}){3})(?![\d.])"
)
_MACHINE_ZH = re.compile(r"[\u4e00-\u9fff]{0,4}?(?:服务器|主机|机器|节点|网关|跳板机|数据库)")
# "预发环境的地址是 staging.foo.cn": where a named thing is reached
_HOST_ZH = re.compile(
    r"(?P<what>[\u4e00-\u9fffA-Za-z0-9]{1,12}?)(?:的)?(?:地址|域名|网址|主机|host|环境)\s*(?:是|为|在|：|:)?\s*"
    r"(?:[a-z][a-z0-9+]{1,8}://)?(?P<h>(?:[a-z0-9-]+\.)+[a-z]{2,12})\b",
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


_LEFT_VALUE = re.compile(
    r"(?i:instead\s+of|rather\s+than|\bnot|no\s+longer(?:\s+in)?|away\s+from|\bfrom)\s*$"
    r"|(?:而不是|不再是|不是|从)\s*$"
)
_NOT_REGION = frozenset(
    "same other right wrong whole dr primary secondary backup failover default home new old"
    " closest nearest cheapest".split()
)
_CONFIG_GATE = gate(
    "port region host server lives stored kept sits speak talk communicate"
    " language sdk minsdk targetsdk version deploys deployed deploy ships ship"
    " runs run running live folder directory"
)
_PATHISH = re.compile(r"(?:^|\s)(?:/|~/|\./)\w")
_CONFIG_GATE_ZH = re.compile(r"\d|端口|版本|区域|地域|机房|部署|交流|沟通|地址|域名|网址|主机|环境")
_DIGIT_OR_DOT = re.compile(r"\d|\w\.\w")


# "kotlin 1.9.22 on java 17, spring boot 3.2", "node 20，pnpm 9，next 14.2": a list of tools
# and their versions (a dotted version after any name, a whole one after a known tool)
_PAIR = re.compile(
    r"(?<![\w.-])(?P<tool>[A-Za-z][\w+#-]*(?:\s+[A-Za-z][\w+#-]*)?)\s*v?"
    r"(?P<ver>\d+(?:\.\d+){0,3})(?![\w.]*\d)"
    r"(?!\s*(?:%|ms|s\b|GB|MB|KB|TB|x\b|h\b|min|hours?|days?|km|m\b|kg|个|台|秒|块|倍))"
)
_NOT_TOOL = frozenset(
    "on at to is in of for and with by from since about around only just over under than v"
    " version release build step phase page chapter section table figure room floor sprint week"
    " day days iteration item line port ports top first last next up down the a an take took"
    " costs cost score gets got has have had was were are be latest new old current stable beta"
    " rc solver db stack is our we use using".split()
)


def _stack_list(text: str, seen: set[str]) -> list[Fact]:
    """Version facts of a list of two or more tools with their versions."""
    pairs = []
    for m in _PAIR.finditer(text):
        words = m.group("tool").split()
        while words and words[0].lower() in _NOT_TOOL:
            words = words[1:]  # "on java 17", "is OptaPlanner 9.44"
        tool, ver = " ".join(words), m.group("ver")
        if not words or words[-1].lower() in _NOT_TOOL:
            continue
        if "." not in ver and lookup(tool) is None:
            continue  # a whole number is a version only after a known tool ("java 17")
        pairs.append((tool, ver))
    if len(pairs) < 2:
        return []
    out = []
    for tool, ver in pairs:
        if tool.lower() not in seen:
            seen.add(tool.lower())
            out.append(
                Fact("runs_on", EntityRef(f"{tool} {ver}", "value"), slot=f"version:{tool.lower()}")
            )
    return out


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
        tool = (
            m.group("tool") or g.get("what") or g.get("tool2") or g.get("tool3") or g.get("tool4")
        ) or ""
        ver = m.group("ver") or g.get("ver2") or g.get("ver3") or g.get("ver4")
        if not tool or not ver or tool.lower() in seen:
            continue
        seen.add(tool.lower())
        facts.append(
            Fact("runs_on", EntityRef(f"{tool} {ver}", "value"), slot=f"version:{tool.lower()}")
        )
    facts.extend(_stack_list(s.text, seen))
    for m in (_REGION_ZH if zh else _REGION_EN).finditer(s.text):
        r = m.group("r") or m.groupdict().get("r2") or m.groupdict().get("r3")
        # "failing over to the DR region": a region's role, not its name; "in eu-central-1
        # now instead of eu-west-1": the region left
        left = _LEFT_VALUE.search(s.text[max(0, m.start() - 20) : m.start()])
        if r and r.lower() not in _NOT_REGION and left is None:
            facts.append(Fact("deployed_in", EntityRef(r.strip(), "value"), slot="region"))
    if zh:
        for m in _IP_ZH.finditer(s.text):
            machines = list(_MACHINE_ZH.finditer(s.text, 0, m.start()))
            what = machines[-1].group() if machines else "ip"
            facts.append(Fact("has_host", EntityRef(m.group("ip"), "value"), slot=f"host:{what}"))
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


def _stated_before_asked(text: str, facts: list[Fact]) -> bool:
    """ "编译器现在统一是 GCC 12，先帮我 build 一把看看有没有 warning": the setting is stated
    before the sentence asks."""
    lead = stated_before_ask(text)
    return bool(lead) and all(f.object.name.split()[-1] in lead for f in facts)


def stated_config(s: Sentence, ctx: NodeContext, out: list[Candidate], taken: set[str]) -> None:
    """The configuration one sentence states (ports, versions, regions, hosts, paths), as one
    ``config`` memory whose first fact leads; ``taken``: objects other families hold."""
    # "going with Nuxt 3 instead of Vue 2": a version of what a choice names or drops is part
    # of that choice, not a setting of its own
    facts = [
        f
        for f in _config_facts(s)
        if f.object.name.lower() not in taken
        and not (f.relation == "runs_on" and f.object.name.split()[0].lower() in taken)
    ]
    if not facts or (s.question and not _stated_before_asked(s.text, facts)):
        return
    if not ctx.first("config", s.text):
        return
    values = [f.object.name.split()[-1] for f in facts]
    # and the machine an address is of ("仿真服务器是 sim-gpu-03，IP 10.30.7.21")
    hosts = [f.slot or "" for f in facts]
    values += [h[5:] for h in hosts if h.startswith("host:") and h != "host:ip"]
    said = _clauses_with(s.text, values)
    said = _TOLD_YOU_ZH.sub("", said) if s.lang == "zh" else strip_label_en(said)
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
# "环境信息你记一下：", "先把环境跟你说一下：": what is said to the assistant before the facts
_TOLD_YOU_ZH = re.compile(
    r"^[^：:，,。]{0,14}(?:你|一下)[^：:，,。]{0,8}[：:]\s*"
    # "说下环境：…", "环境：…": a short label before what is stated
    r"|^(?:说下|说说|补充下|顺便说下)?[\u4e00-\u9fff]{1,6}[：:]\s*(?=.{6})"
)


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
