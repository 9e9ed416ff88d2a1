"""Which service listens on which port, English and Chinese (part of the configuration that
``_conventions`` reads).

The subject of a port is the service the sentence names, not the speaker: "The API listens
on port 8080" is ``API --listens_on--> port 8080``, and "the inference server listens on 8500
and the metrics exporter on port 9100" are two facts of two services, so neither ends the
other. A port said of nothing in particular ("the port is 8080", "we run on port 3000", "the
service listens on 8080") is the team's (the project's, in a bound session).

>>> [(s, v) for s, v, _ in ports_en("The API listens on port 8080.")]
[('API', '8080')]
>>> said = "The inference server listens on 8500 and the metrics exporter on port 9100."
>>> [(s, v) for s, v, _ in ports_en(said)]
[('inference server', '8500'), ('metrics exporter', '9100')]
>>> [(s, v) for s, v, _ in ports_zh("网关服务跑在 8443 端口，监控服务用 9090 端口")]
[('网关服务', '8443'), ('监控服务', '9090')]
"""

from __future__ import annotations

import re

from ..types import EntityRef, Fact

__all__ = ["port_facts", "ports_en", "ports_zh"]

_NAME = r"(?:[\w.-]+(?:['’]s)?)(?:\s+[\w.-]+){0,2}?"
_SUBJ = rf"(?P<subj>(?i:the|our)\s+{_NAME}|[A-Z][\w.-]*(?:['’]s)?(?:\s+[\w.-]+){{0,2}}?|it)"
_VERB = (
    r"(?:listens|runs|is\s+running|serves|is\s+served|is\s+exposed|is\s+reachable|is|lives"
    r"|sits|binds|answers)"
)
# "the mock server for UI tests runs on ...": what the service is for is not its name
_FOR = r"(?:\s+for\s+[\w.-]+(?:\s+[\w.-]+){0,2}?)?"
# "<the API> listens on port 8080", "<Grafana> runs on port 3000"
_AT_PORT = re.compile(
    rf"(?:{_SUBJ}{_FOR}\s+)?{_VERB}\s+(?:only\s+)?(?:on|at|to)\s+port\s+(?P<v>\d{{2,5}})\b"
)
# "<the inference server> listens on 8500", "Postgres runs on 5433 here": a number after a
# listening or running verb is a port, unless a count of something follows ("16 cores")
_BARE = re.compile(
    rf"(?:{_SUBJ}{_FOR}\s+)?(?:listens|serves|binds|is\s+served|is\s+listening|runs"
    r"|is\s+running)\s+(?:only\s+)?(?:on|to|at)\s+(?:localhost:|0\.0\.0\.0:|127\.0\.0\.1:)?"
    r"(?P<v>\d{2,5})\b(?!\.\d|\s*[%x]|\s+(?!(?:here|locally|now|and|but|by|in|instead|on|for"
    r"|with|so|because|too|again|as|not|while|since|locally)\b)[A-Za-z])"
)
# "... and the metrics exporter on port 9100": the verb of the clause before
_AND = re.compile(
    rf",?\s+(?:and|while|with)\s+(?P<subj>(?i:the|our)\s+{_NAME}|[A-Z][\w.-]*(?:\s+[\w.-]+)?)"
    r"\s+(?:on|at)\s+(?:port\s+)?(?P<v>\d{2,5})\b"
)
# "the port is 8080", "the Redis port is 6380", "port 8080"
_PORT_WORD = re.compile(
    r"(?:(?P<subj>(?i:the|our)\s+[\w.-]+(?:\s+[\w.-]+)?|[A-Z][\w.-]*)(?:['’]s)?\s+)?"
    r"\b(?i:port)\s+(?:is\s+|number\s+is\s+|of\s+)?(?P<v>\d{2,5})\b"
)
_NOT_NAMES = re.compile(
    r"(?i)^(?:it|this|that|we|i|they|everything|everyone|all|both|also|and|so|then|now|here"
    r"|there|service|app|application|project|system|codebase|repo|stack|one|default|same"
    r"|new|local|dev|its)$"
)
_ADVERB_TAIL = re.compile(
    r"(?i)(?:\s+(?:now|currently|still|also|only|actually|usually|always|normally|by\s+default))+$"
)
_ZH_PORT = re.compile(
    r"(?P<v>\d{2,5})\s*端口"
    r"|端口(?:号)?\s*(?:已经|现在)?(?:是|为|号是|用|改成了?|改为|换成了?|改到|变成了?)?\s*(?P<v2>\d{2,5})"
)
_ZH_CLAUSE = re.compile(r"[，,；;。！!]")
_ZH_HEAD = re.compile(
    r"^(?:另外|还有|然后|而且|以及|我们的|我们|我们这边|目前|现在)?(?:的)?"
    r"(?P<subj>[\u4e00-\u9fffA-Za-z][\u4e00-\u9fffA-Za-z0-9._-]{1,15}?)\s*"
    r"(?:的端口|端口|跑在|监听|运行在|部署在|开在|用的是|用|在|是)"
)
_ZH_GENERIC = re.compile(
    r"^(?:服务|应用|项目|系统|它|这个|那个|本地|默认|开发|我们|团队|端口|端口号)$"
)


def _service(raw: str | None) -> str | None:
    """The service a subject phrase names, or ``None`` for a pronoun or a generic word."""
    if not raw:
        return None
    name = re.sub(r"(?i)^(?:the|our)\s+", "", raw.strip())
    name = re.sub(r"['’]s\b", "", name).strip(" ,")
    name = _ADVERB_TAIL.sub("", name)  # "the API now listens ...": the API
    if not name or _NOT_NAMES.match(name) or _NOT_NAMES.match(name.split()[0]):
        return None
    return name


def ports_en(text: str) -> list[tuple[str | None, str, int]]:
    """(service or ``None``, port, position) for every port an English sentence states."""
    found: list[tuple[str | None, str, int]] = []
    taken: list[tuple[int, int]] = []
    for rx in (_AT_PORT, _BARE, _AND, _PORT_WORD):
        for m in rx.finditer(text):
            a, b = m.span("v")
            if any(x <= a < y for x, y in taken):
                continue
            taken.append((a, b))
            found.append((_service(m.group("subj")), m.group("v"), a))
    found.sort(key=lambda f: f[2])
    return found


def ports_zh(text: str) -> list[tuple[str | None, str, int]]:
    """The same for a Chinese sentence: the service is the clause's head noun."""
    found: list[tuple[str | None, str, int]] = []
    for m in _ZH_PORT.finditer(text):
        v = m.group("v") or m.group("v2")
        start = max((c.end() for c in _ZH_CLAUSE.finditer(text, 0, m.start())), default=0)
        head = _ZH_HEAD.match(text[start : m.end()].strip())
        subj = head.group("subj").strip() if head else None
        if subj and _ZH_GENERIC.match(subj):
            subj = None
        found.append((subj, v, m.start()))
    return found


def port_facts(text: str, zh: bool) -> list[Fact]:
    """One ``listens_on`` fact per stated port; a named service is its subject."""
    out: list[Fact] = []
    for service, port, _ in ports_zh(text) if zh else ports_en(text):
        subject = EntityRef(service, "resource", attrs={"kind": "service"}) if service else None
        out.append(
            Fact("listens_on", EntityRef(f"port {port}", "value"), subject=subject, slot="port")
        )
    return out
