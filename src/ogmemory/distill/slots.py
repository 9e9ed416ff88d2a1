"""Stage 4 rules: when a new fact contradicts an old one (seed 003, "不删除，只迭代").

A slot is one specific attribute of one subject: ``database``, ``cache``, ``residence``,
``manager``, ``deadline:beta``, ``version:python``. Two facts contradict when they fill the same
slot of the same subject with different values, when the new one names the old value as
replaced ("switched from MySQL"), or when one says the opposite of the other about the same
object (``prefers``/``dislikes``, ``uses``/``avoids``). The generic ``tool`` slot is not
one-at-a-time, and a ``deadline`` of nothing in particular ("the deadline moved to ...") is the
subject's one current deadline when it has exactly one; the deadline of "the beta" is the
deadline of "the public beta" too.

Whichever of two contradicting facts started later wins, whatever order they arrive in: an
older fact arriving after a newer one is written already ended where the newer one begins.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import replace

from ..knowledge.models import Edge
from .types import Candidate

__all__ = [
    "OPPOSITE",
    "contradicts",
    "ends_replaced",
    "generic_deadline_slot",
    "inherit_slot",
    "moves_deadline",
    "preference_slot",
    "reverts",
]

OPPOSITE = {
    "prefers": "dislikes",
    "dislikes": "prefers",
    "likes": "dislikes",
    "uses": "avoids",
    "avoids": "uses",
}
# what a named replacement ends: "switched from Jenkins to GitHub Actions" ends "our CI runs
# on Jenkins" as well as "we use Jenkins"
_REPLACEABLE = ("uses", "prefers", "decided", "lives_in", "focuses_on", "works_at", "deployed_to")


_CHOSEN = ("prefers", "uses")  # an older preference, a newer use of the same slot


def preference_slot(cand: Candidate) -> str | None:
    """A candidate's slot; a preference for a tool of a known kind fills that kind's slot
    ("prefers pnpm": ``package_manager``), so a later preference or use of another one of that
    kind ends it."""
    if cand.slot or cand.relation != "prefers" or cand.object is None:
        return cand.slot
    kind = cand.object.attrs.get("slot")
    return kind if isinstance(kind, str) and kind != "tool" else None


def contradicts(
    old: Edge,
    relation: str,
    slot: str | None,
    dst: str,
    replaced: str | None,
    resolve: Callable[[str], str],
) -> bool:
    """Whether a current ``old`` edge of the same subject and scope contradicts a new fact
    ``relation``/``slot`` → ``dst`` (``replaced``: the entity the new fact says was dropped)."""
    old_dst = resolve(old.dst)
    if slot and slot != "tool" and old.slot == slot and old.relation == relation:
        return old_dst != dst
    if slot and slot != "tool" and old.slot == slot and (old.relation, relation) == _CHOSEN:
        # "I prefer pnpm", later "we switched to yarn, use yarn from now on": what is used
        # now in that slot is the choice; the older preference of another tool ends. A use
        # that names what it replaced ("switched from JavaScript to TypeScript") ends that
        # only: "I prefer Python" stays.
        return replaced is None and old_dst != dst
    if replaced is not None and old_dst == replaced and old.relation in (relation, *_REPLACEABLE):
        return True
    if replaced is not None and old.slot and old.slot.startswith("version:"):
        # "we're moving from Vue 2 to Nuxt" ends "the app runs on Vue 2" (slot version:vue)
        return _bare(old.slot.split(":", 1)[1]) == _bare(replaced.split(".", 1)[-1])
    return old_dst == dst and OPPOSITE.get(relation) == old.relation


# what a switch away from a tool ends whoever holds it in the scope: "we're moving from FreeRTOS
# to RT-Thread" said by the user ends "the project runs on FreeRTOS 10.5"
_TOOL_HOLDS = ("uses", "prefers", "decided", "deployed_to", "runs_on")


def ends_replaced(
    old: Edge, replaced: str | None, name: str, resolve: Callable[[str], str]
) -> bool:
    """Whether a switch away from ``name`` (``replaced``: its entity, when one has that name)
    ends ``old``, a current fact of any subject of the same scope that holds the tool: it names
    the same entity, a tool whose name starts with that word ("Photon" for "Photon Fusion"),
    or that tool's version ("FreeRTOS 10.5")."""
    if old.relation not in _TOOL_HOLDS:
        return False
    dst = resolve(old.dst)
    if replaced is not None and dst == replaced:
        return True
    key = _bare(name)
    if not key:
        return False
    if old.slot and old.slot.startswith("version:") and _bare(old.slot.split(":", 1)[1]) == key:
        return True
    # "from HaplotypeCaller to DeepVariant" ends "GATK HaplotypeCaller": a word of its name;
    # "dropping clustered forward" ends "clustered forward shading": the words it begins with
    words = re.findall(r"[a-z0-9]+", name.lower())
    parts = dst[5:].split("-")
    return dst.startswith("tool.") and (
        key in parts or (len(words) > 1 and parts[: len(words)] == words)
    )


def reverts(old: Edge, cand: Candidate, dst: str, resolve: Callable[[str], str]) -> bool:
    """Whether keeping a tool after a plan was called off without naming it ("所以不换了，还是
    继续用 Quartz", "we're reverting, the cache stays on Core Data") ends ``old``: a current use
    of another tool whose own fact names the kept one (the plan to move away from it)."""
    if old.relation not in ("uses", "decided") or resolve(old.dst) == dst or cand.object is None:
        return False
    kept = cand.object.name.lower()
    return (
        bool(kept) and re.search(rf"(?<!\w){re.escape(kept)}(?!\w)", old.fact.lower()) is not None
    )


def moves_deadline(old: Edge, slot: str | None, moved: bool) -> bool:
    """Whether a deadline that ``moved`` (in ``slot``) ends ``old``, a deadline of any subject of
    the same scope whose wording names its thing: "摘要 4 月 20 日截止" filed as the user's
    constraint, then "RECOMB 摘要截止延期到 4 月 27 日" as the project's deadline."""
    if not (moved and slot and slot.startswith("deadline:")):
        return False
    if not (old.slot or "").startswith("deadline"):
        return False
    words = _key_words(slot)
    fact = old.fact.lower()
    # "the trio delivery slips … the new deadline" moves "the trio cohort VCFs" due date: at
    # least half the words of what moved name the old one
    return (
        bool(words)
        and 2 * sum(w in fact for w in words) >= len(words)
        and any(w in fact for w in words)
    )


def generic_deadline_slot(
    slot: str | None,
    src: str,
    edges: Iterable[Edge],
    resolve: Callable[[str], str],
    *,
    moved: bool = False,
) -> str | None:
    """The current deadline slot of the subject that ``slot`` names: itself, or the subject's
    one current deadline when ``slot`` names nothing in particular ("the deadline moved") or
    when either is the generic ``deadline``, or the one whose thing is named with fewer or more
    words ("the beta" and "the public beta", "公测" and "公测的上线"). A deadline that
    ``moved`` had a date before: it is the one current deadline that shares a word with it
    ("the cluster upgrade" after "the upgrade to 1.31"), or else the subject's only current
    deadline ("交付改到 10 月 20 日" after "量产固件要在 10 月 10 日前交给工厂"). Any other
    slot is itself."""
    if not slot or not slot.startswith("deadline"):
        return slot
    found = {
        e.slot
        for e in edges
        if e.current and e.slot and e.slot.startswith("deadline") and resolve(e.src) == src
    }
    if slot in found:
        return slot
    if slot == "deadline" or found == {"deadline"}:
        return found.pop() if len(found) == 1 else slot
    words = set(slot.split(":", 1)[1].split())
    near = [
        s
        for s in found
        if s != "deadline"
        and words
        and (words <= set(s.split(":", 1)[1].split()) or set(s.split(":", 1)[1].split()) <= words)
    ]
    if len(near) == 1 or not moved:
        return near[0] if len(near) == 1 else slot
    shared = [s for s in found if s != "deadline" and _key_words(slot) & _key_words(s)]
    if len(shared) == 1:
        return shared[0]
    return found.pop() if len(found) == 1 and not shared else slot


def _key_words(slot: str) -> set[str]:
    """The words of a deadline slot that name its thing (not a bare version number)."""
    return {w for w in slot.split(":", 1)[-1].split() if not re.fullmatch(r"v?[\d.]+", w)}


def inherit_slot(
    cand: Candidate,
    src: str,
    replaced: str | None,
    edges: Iterable[Edge],
    resolve: Callable[[str], str],
) -> Candidate:
    """A switch away from a value takes that value's more specific slot: "we switched from
    JavaScript to TypeScript" after "we use JavaScript for the backend" fills
    ``language:backend``, not ``language``."""
    if replaced is None or not cand.slot:
        return cand
    for old in edges:
        if (
            old.current
            and old.slot
            and old.slot.startswith(f"{cand.slot}:")
            and resolve(old.src) == src
            and resolve(old.dst) == replaced
        ):
            part = old.slot.split(":", 1)[1]
            text = cand.text
            if part.lower() not in text.lower() and cand.language == "en":
                text = f"{text.rstrip('.')} (for the {part})."  # the fact says which one
            return replace(cand, slot=old.slot, text=text)
    return cand


def _bare(name: str) -> str:
    """A name with only its letters and digits, lower case ("node.js" and "node-js" meet)."""
    return "".join(ch for ch in name.lower() if ch.isalnum())
