"""Project commits in the distilled knowledge (part of stage 2, for ``project-git``).

* A commit the agent made at the end of a turn (``[agent <session>] turn N: ...``) is that
  turn's work: its sha and files are added to the turn's ``work`` event, and it is never a
  memory or a timeline line of its own (its message only repeats the user's request). Only
  when the turn recorded no tool call does the commit make the turn's work event ("Edited
  README.md (add a readme).").
* A commit the user made is history of the project: a ``work`` event per commit on the
  timeline (low importance, so it never crowds core.md), all supported by one memory per
  project, "The user's own commits to <project> ...", whose evidence grows with each commit.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from ..entity.records import CommitInfo, Provenance
from ..knowledge.models import TimelineEvent
from .types import Candidate, EntityRef

if TYPE_CHECKING:
    from .pipeline import _Applier

__all__ = ["agent_commit", "apply_commit"]

_AGENT_MSG = re.compile(r"^\[agent (?P<sid>[A-Za-z0-9._-]+)\] turn (?P<turn>\d+):")


def agent_commit(message: str) -> tuple[str, int] | None:
    """``(session id, turn)`` of a commit the agent made at the end of a turn.

    >>> agent_commit("[agent s1] turn 4: Please run the tests")
    ('s1', 4)
    """
    m = _AGENT_MSG.match(message)
    return (m.group("sid"), int(m.group("turn"))) if m else None


def _work_event(applier: _Applier, session_id: str, turn: int) -> TimelineEvent | None:
    eid = applier.work_events.get((session_id, turn))
    if eid is not None:
        return applier.batch.get(TimelineEvent, eid)
    for ev in applier.d.kb.store.all(TimelineEvent):
        if (
            ev.kind == "work"
            and ev.attrs.get("turn") == turn
            and ev.provenance is not None
            and ev.provenance.session_id == session_id
            and not ev.superseded_by
        ):
            return ev
    return None


def _agent_work(
    applier: _Applier, project_id: str, commit: CommitInfo, found: tuple[str, int], headline: str
) -> None:
    """The work event of a turn known only from the agent's commit: the files it changed."""
    session_id, turn = found
    request = headline.split(":", 1)[1].strip() if ":" in headline else ""
    shown = ", ".join(commit.files[:4]) + (" …" if len(commit.files) > 4 else "")
    text = f"Edited {shown or 'the project'}" + (f" ({request})" if request else "") + "."
    prov = Provenance(
        project_id=project_id,
        session_id=session_id,
        node_ids=(),
        commit=commit.sha,
        event_time=commit.time,
        ingestion_time=applier.batch.now,
    )
    scope = f"project:{project_id}"
    mtype = applier.d.registry.get("case")
    cand = Candidate(
        type="case",
        text=text,
        session_id=session_id,
        node_ids=(),
        kind="work",
        event_time=commit.time,
        importance=0.6,
        attrs={"files": list(commit.files)[:50], "project_commit": commit.sha, "turn": turn},
    )
    memory_id = applier._memory(cand, mtype, prov, scope, commit.message[:1000])
    ents = [
        applier.linker.link(
            EntityRef(name=f, type="resource", attrs={"kind": "file"}),
            scope=scope,
            support=memory_id,
        )
        for f in commit.files[:8]
    ]
    applier.reconciler.event(cand, "work", ents, prov, scope=scope, support=memory_id)


def apply_commit(applier: _Applier, project_id: str, commit: CommitInfo) -> None:
    """Fold an agent's commit into its turn's work event; record a user's commit."""
    found = agent_commit(commit.message)
    event = _work_event(applier, *found) if found is not None else None
    if event is not None:
        files = list(dict.fromkeys([*event.attrs.get("files", []), *commit.files]))[:50]
        applier.batch.put(
            replace(event, attrs={**event.attrs, "project_commit": commit.sha, "files": files})
        )
        return
    if "case" not in applier.d.registry:
        return
    mtype = applier.d.registry.get("case")
    project = applier.subjects.ref(project_id)
    name = project.name if project else project_id
    headline = commit.message.splitlines()[0] if commit.message else commit.sha[:7]
    if found is not None:  # the agent edited files but recorded no tool call: the commit tells
        _agent_work(applier, project_id, commit, found, headline)
        return
    prov = Provenance(
        project_id=project_id,
        session_id="",
        node_ids=(),
        commit=commit.sha,
        event_time=commit.time,
        ingestion_time=applier.batch.now,
    )
    scope = f"project:{project_id}"
    holder = Candidate(
        type="case",
        text=f"The user's own commits to {name} (its history on the timeline).",
        session_id="",
        node_ids=(),
    )
    memory_id = applier._memory(holder, mtype, prov, scope, commit.message[:1000])
    ents = [
        applier.linker.link(
            EntityRef(name=f, type="resource", attrs={"kind": "file"}),
            scope=scope,
            support=memory_id,
        )
        for f in commit.files[:8]
    ]
    if project is not None:
        ents.insert(0, applier.linker.link(project, scope=scope, support=memory_id))
    shown = ", ".join(commit.files[:4]) + (" …" if len(commit.files) > 4 else "")
    cand = Candidate(
        type="case",
        text=f"Committed to {name}: {headline}" + (f" ({shown})" if shown else ""),
        session_id="",
        node_ids=(),
        kind="work",
        event_time=commit.time,
        importance=0.3,
        attrs={"files": list(commit.files)[:50], "commit": commit.sha, "author": commit.author},
    )
    applier.reconciler.event(cand, "work", ents, prov, scope=scope, support=memory_id)
