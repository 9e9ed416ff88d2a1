"""Generic checks of a scripted developer session's distillation, beside its own gold lists
(:mod:`ogmemory.evaluation.devsessions`): what no script has to spell out to be wrong.

* **Wrong facts**: a current fact whose object is a tool, place, organisation or person named
  by a date ("The beta ships on March 3" read as ``deployed_to tool.march``), or a
  configuration fact (a port, a host, a path, where something is deployed) whose subject is a
  person ("the user listens on port 8080": the subject is the service named).
* **Duplicates**: two enabled memories that say one thing twice: they rest on the same turn
  and name the same date and something else in common ("The beta ships on March 3." and "The
  beta is due on 2026-03-03."), or their words are nearly the same.
* **First or second person** in a core.md line ("she's my boss"): memories are third person.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime

from ..distill.dates import find_times, names_a_time
from ..knowledge.models import Edge, Entity, MemoryItem
from ..memory import Memory

__all__ = ["PERSONAL_LINE", "duplicate_memories", "wrong_facts"]

#: relations that state how a service is configured: their subject is never a person
CONFIG_RELATIONS = frozenset(
    {"listens_on", "has_host", "located_at", "stored_in", "deployed_to", "deployed_in"}
)
_NAMED_TYPES = frozenset({"tool", "place", "organization", "concept", "project"})
# a fact sentence that names the thing configured ("The API listens on port 8080"): its
# subject is that thing, never the person who said it
_NAMES_A_SERVICE = re.compile(
    r"(?i)^(?:the|our)\s+(?!team\b|user\b)[\w.-]+(?:\s+[\w.-]+){0,3}?\s+(?:listens|runs|serves"
    r"|is\s+served|is\s+at|lives|is\s+hosted|is\s+deployed|deploys|ships|sits)\b"
)
#: a core.md line that still speaks as the user or to the assistant
PERSONAL_LINE = re.compile(
    r"(?<![\w'])(?:I|I'm|I've|I'd|I'll|my|me|mine|myself|you|your|yours|yourself)(?![\w'])"
    r"|[我你您]"
)
_STOP = frozenset(
    "the a an is are was were be to of on in at for and or by with from that this it its as"
    " user user's team team's s now".split()
)
_WORD = re.compile(r"[\w.-]+")


def wrong_facts(mem: Memory, at: float) -> list[str]:
    """The current facts (as of ``at``) that no reading of the evidence supports."""
    kb = mem.knowledge.kb
    entities: dict[str, Entity] = {e.id: e for e in kb.entities(include_hidden=True)}
    out: list[str] = []
    for f in mem.facts(at=at):
        src, dst = entities.get(kb.resolve_id(f.src)), entities.get(kb.resolve_id(f.dst))
        if dst is not None and dst.type in _NAMED_TYPES and names_a_time(dst.name):
            out.append(_show(f, "a date named as a " + dst.type))
        elif (
            src is not None
            and src.type == "person"
            and f.relation in CONFIG_RELATIONS
            and _NAMES_A_SERVICE.match(f.fact)
        ):
            out.append(_show(f, "a person as the subject of a configuration fact"))
    return out


def _show(f: Edge, why: str) -> str:
    return f"{f.src} {f.relation} {f.dst} ({why})"


def _words(text: str, day: datetime | None) -> tuple[set[str], set[str]]:
    """A memory's content words and the days it names."""
    days: set[str] = set()
    rest = text
    if day is not None:
        for t in find_times(text, day.date(), past=False):
            days.add(t.iso)
            rest = rest.replace(t.text, " ")
    words = {w.lower().strip(".-") for w in _WORD.findall(rest)} - _STOP
    return {w for w in words if w}, days


def duplicate_memories(mem: Memory, memories: Sequence[MemoryItem]) -> list[str]:
    """Pairs of enabled memories that say the same thing twice (see the module docstring)."""
    seen: list[tuple[MemoryItem, set[str], set[str], set[str]]] = []
    out: list[str] = []
    for m in memories:
        nodes: set[str] = set()
        first: float | None = None
        for ev in mem.evidence(m.id):
            if ev.provenance is not None:
                nodes.update(ev.provenance.node_ids)
                first = ev.provenance.event_time if first is None else first
        day = datetime.fromtimestamp(first, UTC) if first is not None else None
        words, days = _words(m.text, day)
        for other, o_nodes, o_words, o_days in seen:
            if other.scope != m.scope:
                continue
            same_turn = bool(nodes & o_nodes) and bool(days & o_days) and bool(words & o_words)
            union = words | o_words
            overlap = len(words & o_words) / len(union) if union else 0.0
            # the same words, or most of them and the same date ("Reminder, the release
            # ships on April 14" beside "The release ships on April 14")
            similar = overlap >= 0.75 or (bool(days) and days == o_days and overlap >= 0.6)
            if same_turn or similar:
                out.append(f"{other.text} | {m.text}")
        seen.append((m, nodes, words, days))
    return out
