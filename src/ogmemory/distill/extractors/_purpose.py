"""What a technical choice is for, and the tool it names: a stated purpose ("for caching",
"状态管理") is a slot shared across languages, a component ("for the backend") qualifies the
tool's own kind.

>>> purpose_slot("the database"), purpose_slot("缓存"), purpose_slot("feature flags")
('database', 'cache', 'feature flags')
>>> purpose_slot("the backend", "language")
'language:backend'
>>> tool_at("Jetpack Compose for the UI")
'Jetpack Compose'
"""

from __future__ import annotations

import re

from ._catalog import lookup
from ._common import FEATURE_WORD, gate

__all__ = ["purpose_slot", "tool_at"]


_PURPOSES = {
    "database": "database",
    "db": "database",
    "the database": "database",
    "storage": "database",
    "persistence": "database",
    "data store": "database",
    "datastore": "database",
    "cache": "cache",
    "caching": "cache",
    "the cache": "cache",
    "缓存": "cache",
    "数据库": "database",
    "存储": "database",
    "数据仓库": "warehouse",
    "warehouse": "warehouse",
    "the data warehouse": "warehouse",
    "data warehouse": "warehouse",
    "state management": "state_management",
    "state": "state_management",
    "状态管理": "state_management",
    "scheduling": "scheduler",
    "scheduler": "scheduler",
    "orchestration": "scheduler",
    "workflows": "scheduler",
    "调度": "scheduler",
    "infra": "infrastructure",
    "infrastructure": "infrastructure",
    "iac": "infrastructure",
    "基础设施": "infrastructure",
    "package manager": "package_manager",
    "packages": "package_manager",
    "包管理": "package_manager",
    "包管理器": "package_manager",
    "the frontend": "frontend",
    "frontend": "frontend",
    "前端": "frontend",
    "the backend": "backend",
    "backend": "backend",
    "后端": "backend",
    "language": "language",
    "语言": "language",
    "framework": "framework",
    "框架": "framework",
    "ui": "ui",
    "the ui": "ui",
    "layouts": "ui",
    "the layouts": "ui",
    "testing": "testing",
    "tests": "testing",
    "测试": "testing",
    "ci": "ci",
    "deployment": "hosting",
    "hosting": "hosting",
    "部署": "hosting",
    "monitoring": "monitoring",
    "监控": "monitoring",
    "logging": "logging",
    "日志": "logging",
    "auth": "auth",
    "authentication": "auth",
    "认证": "auth",
    "queue": "queue",
    "queues": "queue",
    "messaging": "queue",
    "消息队列": "queue",
    "队列": "queue",
    "search": "search",
    "搜索": "search",
    "transformations": "transform",
    "transformation": "transform",
    "transforms": "transform",
    "数据转换": "transform",
}


_COMPONENTS = frozenset(
    {
        "frontend",
        "backend",
        "api",
        "web",
        "mobile",
        "ios",
        "android",
        "server",
        "client",
        "dashboard",
        "cli",
        "app",
        "website",
        "site",
        "admin",
    }
)


def purpose_slot(purpose: str, kind: str = "tool") -> str:
    """The slot a stated purpose names (known purposes share one name across languages). A
    component ("for the backend") qualifies the tool's own kind: ``language:backend``."""
    key = " ".join(purpose.strip().lower().split())
    key = re.sub(r"^(?:the|our|a|an)\s+", "", key) if key not in _PURPOSES else key
    slot = _PURPOSES.get(key, _PURPOSES.get(f"the {key}", key))
    if slot in _COMPONENTS or key in _COMPONENTS:
        return f"{kind}:{slot}" if kind != "tool" else "tool"
    return slot


_NAME_WORD = re.compile(r"[A-Z][\w.+#-]*(?:&[A-Z]\w*)?|[A-Za-z][\w+#-]*(?:\.[\w-]+)+|\d[\w.]*")


# lower-case words a switch names that are no tool ("switch from monthly to weekly")
_LOOSE_STOP = gate(
    "it them that this there here home work school now then later scratch hand manual monthly"
    " weekly daily nightly hourly yearly one two three something nothing everything anything"
    " yes no the a an our my your their his her its time day week month year"
)
_LOOSE_WORD = re.compile(r"[a-z][a-z0-9_+-]{2,15}")


def tool_at(text: str, loose: bool = False) -> str | None:
    """The tool named at the start of ``text``: a catalog name or one to three name-like words
    ("Jetpack Compose", "Next.js", "pnpm"). ``loose``: the words around already say a tool is
    named ("replace clap with lexopt"), so one lower-case word the catalog does not know is
    one too."""
    words = text.strip().split()
    if loose and words:
        w = words[0].rstrip(".,;:!?)")
        if _LOOSE_WORD.fullmatch(w) and w not in _LOOSE_STOP and not lookup(w):
            return w
    for n in (3, 2, 1):
        phrase = " ".join(words[:n]).rstrip(".,;:!?)")
        if phrase and lookup(phrase):
            part = words[n].rstrip(".,;:!?)") if len(words) > n and phrase == words[n - 1] else ""
            if FEATURE_WORD.fullmatch(part):
                return f"{phrase} {part}"  # "Django signals": a part of the tool, not the tool
            return phrase
    out: list[str] = []
    for i, raw in enumerate(words[:4]):
        w = raw.rstrip(".,;:!?)")
        if w == "&" and out and i + 1 < len(words) and words[i + 1][:1].isupper():
            out.append(w)  # "Weights & Biases"
            continue
        if len([x for x in out if x != "&"]) == 3:
            break
        if not _NAME_WORD.fullmatch(w) or (out and w[:1].islower() and not lookup(w)):
            break
        out.append(w)
        if w != raw:
            break  # punctuation ended the name
    name = " ".join(out)
    if (
        not name
        or re.fullmatch(r"[\d.]+", name)  # "go with 90 days": a number is no tool
        or name.lower() in _NOT_TOOLS
        or (len(out) == 1 and name[:1].islower() and not lookup(name))
    ):
        return None
    return name


_NOT_TOOLS = gate("i we you it this that they the a an our my it's let's so and")
