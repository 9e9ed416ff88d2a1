"""Whose fact a candidate is, and in which scope it lives (part of stage 3, link).

* Scope: what is said in a session that belongs to an agent is that agent's (``agent:<id>``),
  except who the user is and who they know (``profile``, ``entity``), which holds everywhere;
  in a session bound to a project, the types declared ``scope: project`` (decisions, tools,
  rules, configuration, deadlines, work) are that project's (``project:<id>``); the rest is
  ``global``. A rule the user says is for this repository ("Rule for this repo - never push
  to main", "在这个项目里……") is the project's even in an agent's session.
* Subject: a choice the speaker makes for the team ("let's use PostgreSQL", "the service
  listens on port 8080": ``collective``) in a session bound to a project is the project's: the
  project is an entity of its own, and its stack, rules and deadlines hang off it.
* Further facts: a memory may state several relations (``Candidate.more``); each becomes a
  candidate of its own for reconciliation, with the same evidence and support.
"""

from __future__ import annotations

from dataclasses import replace

from ..entity.records import NodeRecord
from ..errors import NotFound, StorageError
from ..knowledge.schema import MemoryType
from ..storage.protocols import ProjectStore
from .types import Candidate, EntityRef

__all__ = ["ProjectSubjects", "expand_facts", "scope_of"]

DEFAULT_PROJECT = "default"
_EVERYWHERE = ("profile", "entity")


def scope_of(cand: Candidate, mtype: MemoryType, rec: NodeRecord) -> str:
    """The scope a candidate's memory and facts live in (see the module docstring).

    >>> from ogmemory.knowledge.schema import SchemaRegistry
    >>> from ogmemory.entity.records import Node
    >>> node = Node("n", 1, "user", "x", None, 0.0, 0.0)
    >>> rec = NodeRecord("s", "proj_a", "reviewer", node, "c", 1)
    >>> rule = SchemaRegistry.load().get("rule")
    >>> scope_of(Candidate("rule", "x", "s", ("n",)), rule, rec)
    'agent:reviewer'
    """
    if cand.scope:
        return cand.scope
    bound = mtype.scope == "project" and rec.project_id != DEFAULT_PROJECT
    if bound and cand.attrs.get("project_rule"):  # "Rule for this repo - ...", said to an agent
        return f"project:{rec.project_id}"
    if rec.agent_id and mtype.name not in _EVERYWHERE:
        return f"agent:{rec.agent_id}"
    if mtype.scope == "project" and rec.project_id != DEFAULT_PROJECT:
        return f"project:{rec.project_id}"
    if mtype.scope == "agent" and rec.agent_id:
        return f"agent:{rec.agent_id}"
    return "global"


class ProjectSubjects:
    """The project entity of each bound project, and who speaks for it."""

    def __init__(self, projects: ProjectStore) -> None:
        self.projects = projects
        self._refs: dict[str, EntityRef | None] = {}

    def ref(self, project_id: str) -> EntityRef | None:
        """The entity of a bound project (``None`` for the default or an unknown one)."""
        if project_id == DEFAULT_PROJECT:
            return None
        if project_id not in self._refs:
            try:
                project = self.projects.get(project_id)
            except (NotFound, StorageError):  # unbound since: its facts stay with the speaker
                self._refs[project_id] = None
            else:
                self._refs[project_id] = EntityRef(
                    project.name,
                    "project",
                    attrs={"project_id": project.project_id, "path": project.path},
                )
        return self._refs[project_id]

    def subject(self, cand: Candidate, rec: NodeRecord) -> Candidate:
        """``cand`` with the project as its subject when the speaker speaks for the team in a
        session bound to a project."""
        if not cand.collective:
            return cand
        project = self.ref(rec.project_id)
        if project is None:
            return cand
        more = tuple(f if f.subject is not None else replace(f, subject=project) for f in cand.more)
        return replace(cand, subject=project, more=more)


def expand_facts(cand: Candidate) -> list[Candidate]:
    """One candidate per further relation of ``cand`` (same evidence, no timeline event)."""
    out = []
    for fact in cand.more:
        out.append(
            replace(
                cand,
                subject=fact.subject or cand.subject,
                relation=fact.relation,
                object=fact.object,
                slot=fact.slot,
                replaces=fact.replaces,
                text=fact.text or cand.text,
                more=(),
                kind=None,
                entities=(),
            )
        )
    return out
