"""The entity-layer methods of the ``Memory`` facade (seed 001): sessions, projects,
provenance, per-session state files and titles.

``Memory`` inherits them from ``SessionMethods``, which holds one-line delegations to
``self.sessions`` (the ``SessionService`` that ``Memory.__init__`` builds) and nothing else: no
state, no logic. It lives in its own module only so that the facade stays short enough to read;
users never see it (``Memory`` is the only public name).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from .entity.records import (
    CommitInfo,
    ImportResult,
    Node,
    NodeRecord,
    Project,
    Provenance,
    SessionInfo,
    TurnResult,
)
from .entity.service import ConversationLike, SessionService, import_conversations

__all__ = ["SessionMethods"]


class SessionMethods:
    """Sessions, projects and provenance of one tenant, as ``Memory`` methods."""

    sessions: SessionService

    # ================================================================== sessions

    def create_session(
        self,
        session_id: str | None = None,
        *,
        project: str | Path | None = None,
        agent_id: str | None = None,
        title: str | None = None,
        model: str | None = None,
        temporary: bool = False,
    ) -> SessionInfo:
        """Create a session (``append_message`` also creates one lazily). ``project``: a project
        id or directory; ``temporary``: a conversation that neither reads nor writes memory."""
        return self.sessions.create_session(
            session_id,
            project=project,
            agent_id=agent_id,
            title=title,
            model=model,
            temporary=temporary,
        )

    def append_message(
        self,
        session_id: str,
        msg: dict[str, Any],
        *,
        project: str | Path | None = None,
        agent_id: str | None = None,
        model: str | None = None,
    ) -> Node:
        """Write one OpenAI-style message (``role``, ``content``, optional ``name``,
        ``tool_calls``, ``tool_call_id``, ``event_time``, ``metadata``, ``id``, ``parent_id``)
        as a DAG node, synchronously; the session is created on first use."""
        return self.sessions.append_message(
            session_id, msg, project=project, agent_id=agent_id, model=model
        )

    def commit_turn(
        self,
        session_id: str,
        message: str | None = None,
        *,
        context: Any = None,
        model: str | None = None,
    ) -> TurnResult:
        """End the turn: exactly one git commit, the project's auto-commit when its tree was
        clean before the turn, and the background distillation and indexing."""
        return self.sessions.commit_turn(session_id, message, context=context, model=model)

    def end_session(self, session_id: str) -> None:
        """A temporary session is erased; a normal one is distilled now."""
        self.sessions.end_session(session_id)

    def is_temporary(self, session_id: str) -> bool:
        return self.sessions.is_temporary(session_id)

    def update_session(self, session_id: str, **fields: Any) -> SessionInfo:
        """Change ``title`` (a manual title wins forever), ``project_id``, ``agent_id``,
        ``model``."""
        return self.sessions.update_session(session_id, **fields)

    def rename_session(self, session_id: str, title: str) -> SessionInfo:
        return self.sessions.update_session(session_id, title=title)

    def delete_session(self, session_id: str) -> None:
        """Remove the session's directory and git history (seed 001 §3.7)."""
        self.sessions.delete_session(session_id)

    def retry(self, session_id: str, assistant_id: str) -> str:
        """Branch ``retry-<assistant_id>``: the next message becomes a sibling of it."""
        return self.sessions.retry(session_id, assistant_id)

    def switch_head(self, session_id: str, node_id: str) -> str:
        return self.sessions.switch_head(session_id, node_id)

    def checkout(self, session_id: str, branch: str) -> None:
        self.sessions.checkout(session_id, branch)

    def list_sessions(self) -> list[SessionInfo]:
        """Every valid session of this tenant, most recently active first (imported history by
        when it happened)."""
        return self.sessions.list_sessions()

    def get_session(self, session_id: str) -> SessionInfo:
        return self.sessions.get_session(session_id)

    def get_branch(self, session_id: str, head: str | None = None) -> list[dict[str, Any]]:
        """The conversation from the root to ``head`` (default: current head) as messages."""
        return [n.to_message() for n in self.sessions.get_branch_nodes(session_id, head)]

    def get_branch_nodes(self, session_id: str, head: str | None = None) -> list[Node]:
        return self.sessions.get_branch_nodes(session_id, head)

    def get_nodes(self, session_id: str) -> list[Node]:
        """Every node of the session (all branches, tool calls included), in write order."""
        return self.sessions.get_nodes(session_id)

    def branches(self, session_id: str) -> list[str]:
        return self.sessions.branches(session_id)

    def session_commits(
        self, session_id: str, branch: str | None = None, limit: int | None = None
    ) -> list[CommitInfo]:
        """The session's turn commits (git log), newest first."""
        return self.sessions.session_commits(session_id, branch, limit)

    def import_conversations(
        self,
        conversations: Iterable[ConversationLike],
        *,
        on_session: Callable[[Any, bool], None] | None = None,
    ) -> ImportResult:
        """Record conversations, one commit per turn; existing sessions are skipped."""
        return import_conversations(self.sessions, conversations, on_session=on_session)

    # ================================================================== projects, provenance

    def resolve_project(self, path: str | Path, name: str | None = None) -> Project:
        """Bind a directory: reuse its ``.git`` or ``git init`` it; register it."""
        return self.sessions.resolve_project(path, name)

    def list_projects(self) -> list[Project]:
        return self.sessions.list_projects()

    def get_project(self, project_id: str) -> Project:
        return self.sessions.get_project(project_id)

    def unbind_project(self, project_id: str) -> Project:
        """Remove the registry entry only; git history and sessions' project_id stay."""
        return self.sessions.unbind_project(project_id)

    def project_log(self, project_id: str, limit: int = 20) -> list[CommitInfo]:
        """Agent-attributed commits of a project, newest first."""
        return self.sessions.project_log(project_id, limit)

    def iter_nodes_since(self, cursor: Mapping[str, int] | None = None) -> Iterator[NodeRecord]:
        return self.sessions.iter_nodes_since(cursor)

    def node_provenance(self, session_id: str, node_id: str) -> Provenance | None:
        return self.sessions.node_provenance(session_id, node_id)

    def project_commits(self, project_id: str, limit: int = 100) -> list[CommitInfo]:
        return self.sessions.project_commits(project_id, limit)

    # ================================================================== per-session files

    def session_state(self, session_id: str, name: str) -> dict[str, Any] | None:
        """The engine's state file ``name`` of a session (``context/<name>.json``), if any."""
        return self.sessions.session_state(session_id, name)

    def edit_session_state(
        self,
        session_id: str,
        name: str,
        change: Callable[[dict[str, Any]], dict[str, Any] | None],
    ) -> dict[str, Any]:
        """Atomically replace a session state file with ``change(current)`` (under a lock)."""
        return self.sessions.edit_session_state(session_id, name, change)

    def generate_title(self, session_id: str) -> SessionInfo:
        """Ask the configured LLM for the session's title now, unless it was renamed by hand or
        already has an LLM title (seed 001 §3.3); without an LLM, the first-line title stays."""
        return self.sessions.generate_title(session_id)
