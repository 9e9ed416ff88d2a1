"""The provenance read layer (seed 001 §5, seed 000 §6.3): what distillation reads.

The pipeline reads DAG nodes directly, tool nodes included, never a rendered transcript.
A cursor maps each session id to the highest node ``seq`` already consumed; only committed
nodes are yielded, and a session's uncommitted nodes always come after its committed ones,
so advancing the cursor node by node never skips anything.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Mapping

from ..errors import NotFound, StorageError
from .git_plumbing import next_seq_of
from .project_git import ProjectRegistry
from .records import DEFAULT_PROJECT, CommitInfo, Node, NodeRecord, Provenance
from .session_store import SessionStore

__all__ = ["DERIVED_KEY", "ProvenanceReader", "is_derived"]

log = logging.getLogger(__name__)

#: Node metadata key marking a node the context engine wrote *about* the record (a compaction
#: summary, seed 004): it stays in the DAG with provenance to the nodes it replaced, but it is
#: not something that was said, so distillation and the index never read it.
DERIVED_KEY = "ogmem_derived"


def is_derived(node: Node) -> bool:
    """Whether ``node`` is derived (see ``DERIVED_KEY``), not part of the conversation."""
    return bool(node.metadata.get(DERIVED_KEY))


class ProvenanceReader:
    def __init__(self, sessions: SessionStore, projects: ProjectRegistry) -> None:
        self.sessions = sessions
        self.projects = projects

    def iter_nodes_since(
        self, cursor: Mapping[str, int] | None = None, *, session_ids: Iterable[str] | None = None
    ) -> Iterator[NodeRecord]:
        """Committed nodes newer than ``cursor`` across all sessions (oldest session first).

        >>> cursor: dict[str, int] = {}
        >>> for rec in reader.iter_nodes_since(cursor):  # doctest: +SKIP
        ...     cursor[rec.session_id] = rec.node.seq
        """
        cursor = cursor or {}
        if session_ids is None:
            order = [
                s.session_id
                for s in sorted(self.sessions.list(), key=lambda s: (s.created_at, s.session_id))
            ]
        else:
            order = list(session_ids)
        for session_id in order:
            done = cursor.get(session_id, 0)
            if done and not self._has_nodes_after(session_id, done):
                continue  # nothing new: skip reading every node of it (a fresh process's sync)
            try:
                session = self.sessions.open(session_id)
            except NotFound:
                continue  # deleted meanwhile
            except StorageError as exc:  # listed (meta.json parses) but not a readable repo
                log.warning("skipping unreadable session %s: %s", session_id, exc)
                continue
            with session.lock:
                try:
                    session.refresh()
                except NotFound:
                    continue  # deleted while we read it
                fresh = [
                    n
                    for n in session.all_nodes()
                    if n.seq > done and n.id in session.node_commit and not is_derived(n)
                ]
                records = [
                    NodeRecord(
                        session_id=session_id,
                        project_id=str(session.meta.get("project_id") or DEFAULT_PROJECT),
                        agent_id=session.meta.get("agent_id"),
                        node=node,
                        commit=session.node_commit[node.id],
                        turn=session.commit_turn.get(session.node_commit[node.id], 0),
                    )
                    for node in fresh
                ]
            yield from records

    def _has_nodes_after(self, session_id: str, seq: int) -> bool:
        """Whether the session holds a node numbered above ``seq``, from its file names and
        seq counter alone (no node is parsed)."""
        path = self.sessions.locate(session_id)
        return path is None or next_seq_of(path) - 1 > seq

    def node_provenance(self, session_id: str, node_id: str) -> Provenance | None:
        """Provenance of one node, or ``None`` when the session or node no longer exists
        (a deleted session leaves derived pointers dangling but harmless, seed 001 §3.7)."""
        try:
            session = self.sessions.open(session_id)
        except NotFound:
            return None
        with session.lock:
            try:
                session.refresh()
            except NotFound:
                return None
            node = session.nodes.get(node_id)
            if node is None:
                return None
            return Provenance(
                project_id=str(session.meta.get("project_id") or DEFAULT_PROJECT),
                session_id=session_id,
                node_ids=(node_id,),
                commit=session.node_commit.get(node_id),
                event_time=node.event_time,
                ingestion_time=node.ingestion_time,
            )

    def session_commits(
        self, session_id: str, branch: str | None = None, limit: int | None = None
    ) -> list[CommitInfo]:
        session = self.sessions.open(session_id)
        with session.lock:
            session.refresh()
            return session.log(branch, limit)

    def project_commits(
        self, project_id: str, limit: int = 100, *, agent_only: bool = False
    ) -> list[CommitInfo]:
        return self.projects.git(project_id).log(limit, agent_only=agent_only)

    def project_commits_since(
        self, project_id: str, since: str | None, limit: int = 200
    ) -> list[CommitInfo]:
        """Commits of a project after ``since`` (oldest first), with the files each changed."""
        return self.projects.git(project_id).commits_since(since, limit)
