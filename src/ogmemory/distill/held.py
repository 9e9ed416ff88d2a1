"""The facts a follow-up may change, as it reads them (``followups``): what kind of value each
holds (a deadline's day, a version, a port, an address, a tool), the old value, and the words
that name what the fact is about.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ..knowledge.models import Edge, Entity
from .types import EntityRef

__all__ = ["CJK_RUN", "HOST", "ISO", "VERSION", "Held", "held_fact", "swap", "word"]

ISO = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")
# no Latin letter or digit joined to a value; Chinese may be ("升3.5.1了", "从8088改成9443")
VERSION = re.compile(r"(?<![A-Za-z0-9_.])v?(\d+(?:\.\d+){0,3})(?![A-Za-z0-9_.]*\d)")
# an address: a URL, an IP, or a dotted name whose last label is a word ("hil-rig-03.lab.local")
# (not a file: "dose_calc.c", "config.yaml")
_FILE_EXT = (
    r"(?:c|h|cc|cpp|hpp|py|go|rs|js|ts|tsx|jsx|md|ya?ml|json|toml|conf|cfg|ini|txt|sh|java|kt"
    r"|swift|rb|php|sql|log|csv|lock|xml|html|css|ex|exs|hs|f90|sv|vue|dart|env|proto|mod)"
)
HOST = re.compile(
    r"\b(?:[a-z][a-z0-9+.-]*://)?(?:\d{1,3}(?:\.\d{1,3}){3}|[A-Za-z0-9][\w-]*(?:\.[\w-]+)*"
    rf"\.(?!{_FILE_EXT}\b)[A-Za-z][\w-]*)(?::\d{{2,5}})?(?:/[\w./-]*)?"
)
_SCHEME = r"(?:[a-z][a-z0-9+.-]*://)?"
_GENERIC = frozenset(
    "the a an of for to in on at and or any before after deadline due date version port host"
    " uri url ip s tool main everything it this that our my is new old 截止 版本 端口 地址".split()
)
CJK_RUN = re.compile(r"[\u4e00-\u9fff]{2,}")
# the words of a fact's text that may name it: Chinese runs, and Latin words of four letters or
# more ("launch", "billing"; not "the", "due")
_FACT_WORD = re.compile(r"[\u4e00-\u9fff]{3,}|[A-Za-z][a-z]{3,}|[A-Z][A-Za-z]{2,}")


@dataclass(frozen=True)
class Held:
    """A fact current when a sentence was said, as this pass reads it: what kind of value it
    holds, the old value, and the words that name what it is about."""

    edge: Edge
    kind: str  # date | version | port | host | tool
    old: str  # the value as said ("2027-05-21", "5.3.2", "4444", "Redis")
    names: tuple[str, ...]  # the old value's names (a tool's aliases, a decision's terms)
    topic: tuple[str, ...]  # words of what the fact is about (from its slot)
    subject: EntityRef
    target: EntityRef  # the old value as an entity (what a calling off names)


def held_fact(edge: Edge, entity: Callable[[str], Entity | None]) -> Held | None:
    """How this pass reads ``edge`` (``None``: a fact of no kind it changes)."""
    if edge.relation not in _KIND_RELATIONS and not (edge.slot or "").startswith(_KIND_SLOTS):
        return None  # a rule, a person, a preference: no entity looked up (run per batch)
    src, dst = entity(edge.src), entity(edge.dst)
    if src is None or dst is None or edge.relation == "called_off":
        return None
    slot = edge.slot or ""
    kind = _kind(edge, dst)
    old = _old_value(kind, edge, dst) if kind else None
    if kind is None or not old:
        return None
    names: tuple[str, ...] = (old,)
    if kind == "tool":
        names = tuple(
            n for n in dict.fromkeys((dst.name, *dst.aliases, *_terms(dst.name))) if len(n) > 1
        )
        if not names:
            return None
    words = re.split(r"[\s:_/]+", slot.split(":", 1)[1]) if ":" in slot else []
    if kind == "tool" and slot and ":" not in slot and slot not in ("tool", "-"):
        words = slot.split()  # "阴影", "cache": what the tool is for
    if kind in ("date", "host") and not any(len(w) > 2 for w in words):
        # "deadline 是12月1号改版上线": what the fact says is due; "Redis 7.2 地址 10.8.3.21":
        # whose address it is (a slot of no words: "host:ip")
        words = _FACT_WORD.findall(ISO.sub(" ", edge.fact))
    topic = tuple(w for w in words if w and w.lower() not in _GENERIC and w != old)
    return Held(
        edge,
        kind,
        old,
        names,
        topic,
        EntityRef(src.name, src.type, attrs=dict(src.attrs)),
        EntityRef(dst.name, dst.type, aliases=tuple(dst.aliases), attrs=dict(dst.attrs)),
    )


# the relations and slots _kind reads a kind from
_KIND_RELATIONS = frozenset(
    {"has_deadline", "listens_on", "has_host", "runs_on", "uses", "decided", "deployed_to"}
)
_KIND_SLOTS = ("deadline", "port", "host", "version:")


def _kind(edge: Edge, dst: Entity) -> str | None:
    slot = edge.slot or ""
    if slot.startswith("deadline") or edge.relation == "has_deadline":
        return "date"
    if edge.relation == "listens_on" or slot.startswith("port"):
        return "port"
    if edge.relation == "has_host" or slot.startswith("host"):
        return "host"
    if slot.startswith("version:") or edge.relation == "runs_on":
        return "version"
    if edge.relation in ("uses", "decided", "deployed_to") and dst.type in ("tool", "decision"):
        return "tool"
    return None


def _old_value(kind: str, edge: Edge, dst: Entity) -> str | None:
    if kind == "date":
        iso = dst.attrs.get("deadline")
        m = ISO.search(iso if isinstance(iso, str) else f"{dst.name} {edge.fact}")
        return m.group(1) if m else None
    if kind == "version":
        m = VERSION.search(dst.name)
        return m.group(1) if m else None
    if kind == "port":
        m = re.search(r"\d{2,5}", dst.name)
        return m.group() if m else None
    if kind == "host":
        return dst.name if HOST.fullmatch(dst.name) else None
    return dst.name


def _terms(name: str) -> list[str]:
    """The technical words of a decision's name ("the settings subsystem on top of NVS":
    NVS): what a later sentence names it by."""
    return [w for w in re.findall(r"[\w.+#-]+", name) if re.search(r"[A-Z\d]", w) and len(w) > 1]


def swap(text: str, old: str, new: str, *, scheme: bool = False) -> str:
    """``text`` with ``old`` replaced by ``new`` once (an address with its scheme)."""
    return word(old, scheme=scheme).sub(lambda _: new, text, count=1)


def word(value: str, *, scheme: bool = False) -> re.Pattern[str]:
    """``value`` as a whole word: no Latin letter or digit joined to it (Chinese may be: "缓存用
    Redis", "改回CSM"); ``scheme``: an address with the URL scheme before it and the path after
    it ("https://api.tabwise.io/v1" for "api.tabwise.io")."""
    lead, tail = (_SCHEME, r"(?:/[\w./-]*)?") if scheme else ("", "")
    return re.compile(
        rf"(?<![A-Za-z0-9_.-]){lead}{re.escape(value)}{tail}(?![A-Za-z0-9_-]|\.[A-Za-z0-9])",
        re.IGNORECASE,
    )
