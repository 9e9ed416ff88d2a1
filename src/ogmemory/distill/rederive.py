"""A memory the user edits re-derives its facts, in the same batch as the edit (seed 003).

The edit is a new version of the memory; what the old text supported is withdrawn from it; the
new text is read by the extractor as the user saying it now, so its facts begin at the edit and
win over older ones in their slots ("prefers pnpm" edited to "prefers yarn" ends nothing but
now holds; "we use MySQL for the database" edited to PostgreSQL ends MySQL). Distilled memories
are written in the third person ("The user prefers pnpm."); the extractor reads first-person
speech, so the text is turned back first ("I prefer yarn."). One batch holds the new version,
the withdrawal and the new facts (``KnowledgeBase.edit_memory(rederive=...)``, with
``Distiller.distill_memory(batch=...)``): rolling it back restores all three.

>>> first_person("The user prefers yarn over npm.")
'I prefer yarn over npm.'
>>> first_person("The user's rule: always run ruff before committing.")
'always run ruff before committing.'
>>> first_person("用户住在杭州。")
'我住在杭州。'
"""

from __future__ import annotations

import re

from ..entity.records import Node, NodeRecord

__all__ = ["first_person", "said_by_user"]

_VERBS = {
    "is": "am",
    "has": "have",
    "does": "do",
    "was": "was",
    "doesn't": "don't",
    "hasn't": "haven't",
    "isn't": "am not",
}
_SUBJECT_EN = re.compile(r"^(?P<s>The user|The team)(?P<poss>['’]s)?\s+(?P<v>[\w'’]+)\b")
_RULE_EN = re.compile(r"^The (?:user|team)['’]s rule:\s*", re.IGNORECASE)
_RULE_ZH = re.compile(r"^(?:用户|团队)的规则[：:]\s*")


def _base(verb: str, plural: bool) -> str:
    low = verb.lower()
    if low in _VERBS:
        return "are" if plural and low == "is" else _VERBS[low]
    if low.endswith("ies") and len(low) > 4:
        return verb[:-3] + "y"
    if low.endswith(("sses", "shes", "ches", "xes", "zes", "oes")):
        return verb[:-2]
    if low.endswith("s") and not low.endswith("ss"):
        return verb[:-1]
    return verb


def first_person(text: str) -> str:
    """A third-person memory as its speaker would have said it (see the module docstring)."""
    text = text.strip()
    if _RULE_EN.match(text):
        return _RULE_EN.sub("", text)
    if _RULE_ZH.match(text):
        return _RULE_ZH.sub("", text)
    if text.startswith(("用户", "团队")):
        return ("我们" if text.startswith("团队") else "我") + text[2:].replace("用户", "我")
    m = _SUBJECT_EN.match(text)
    if m is None:
        return text
    plural = m.group("s") == "The team"
    subject = "We" if plural else "I"
    if m.group("poss"):
        return f"{'Our' if plural else 'My'} {m.group('v')}{text[m.end() :]}"
    verb = m.group("v") if plural else _base(m.group("v"), plural)
    return f"{subject} {verb}{text[m.end() :]}".replace(" the user's ", " my ")


def said_by_user(node_id: str, text: str, scope: str, when: float) -> NodeRecord:
    """A memory the user wrote, as a turn they said when it was written, in its scope."""
    project = scope.split(":", 1)[1] if scope.startswith("project:") else "default"
    agent = scope.split(":", 1)[1] if scope.startswith("agent:") else None
    node = Node(
        id=node_id,
        seq=0,
        role="user",
        content=first_person(text),
        parent_id=None,
        event_time=when,
        ingestion_time=when,
    )
    return NodeRecord(
        session_id="", project_id=project, agent_id=agent, node=node, commit="", turn=0
    )
