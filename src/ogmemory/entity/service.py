"""The entity layer as one service (seed 001): sessions in git, projects, provenance, titles,
temporary conversations, and the turn-end policy of Project-Git.

Other layers learn of new turns through ``on_turn`` listeners (distillation queues the session,
the index marks its turns dirty) and of ended sessions through ``on_session_end``: the service
never calls them by name, so the entity layer depends on nothing above it.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Protocol

from ..config import Settings
from ..errors import Conflict, InvalidInput
from ..storage.protocols import NodeLog, ProjectStore, ProvenanceSource, SessionRepository
from ..tenancy import TenantRoot, validate_id
from .messages import message_fields
from .project_git import ProjectRegistry, commit_agent_turn, note_turn_start
from .provenance import ProvenanceReader
from .records import (
    DEFAULT_PROJECT,
    CommitInfo,
    ImportResult,
    Node,
    NodeRecord,
    Project,
    Provenance,
    SessionInfo,
    TurnResult,
)
from .session_state import edit_state, read_state
from .session_store import SessionStore
from .titles import after_first_turn, generate_title_now

__all__ = ["ConversationLike", "SessionService", "import_conversations"]

log = logging.getLogger(__name__)


class SessionService:
    """Sessions, projects and provenance of one tenant."""

    def __init__(self, tenant: TenantRoot, settings: Settings) -> None:
        self.tenant = tenant
        self.settings = settings
        self.store: SessionRepository = SessionStore(
            tenant, cap=settings.session_cache_cap, fsync=settings.fsync
        )
        self.registry = ProjectRegistry(tenant.projects_file, fsync=settings.fsync)
        self.projects: ProjectStore = self.registry
        self.provenance: ProvenanceSource = ProvenanceReader(self.store, self.registry)
        #: called after every committed turn of a normal (not temporary) session
        self.on_turn: list[Callable[[TurnResult], None]] = []
        #: called when a normal session ends (``end_session``)
        self.on_session_end: list[Callable[[str], None]] = []
        #: called after a normal session was deleted (what was indexed of it must go at once)
        self.on_session_deleted: list[Callable[[str], None]] = []
        self._titles: list[threading.Thread] = []
        self._temp_store: SessionRepository | None = None
        self._temp_dir: Path | None = None
        self._temp_lock = threading.Lock()

    # ================================================================== temporary sessions

    def _of(self, session_id: str) -> SessionRepository:
        """The store holding ``session_id``: the temporary one for temporary sessions."""
        temp = self._temp_store
        if temp is not None and temp.exists(session_id):
            return temp
        return self.store

    @property
    def temporary_dir(self) -> Path | None:
        """Where this instance keeps its temporary sessions (outside the state directory)."""
        return self._temp_dir

    def is_temporary(self, session_id: str) -> bool:
        """Whether ``session_id`` is a temporary conversation of this instance."""
        return self._temp_store is not None and self._temp_store.exists(
            validate_id(session_id, "session id")
        )

    def _temporary_store(self) -> SessionRepository:
        with self._temp_lock:
            store = self._temp_store
            if store is None:
                # Outside the state directory, in the system's temporary space: a temporary
                # conversation is never written where memory lives (seed 003).
                self._temp_dir = Path(tempfile.mkdtemp(prefix="ogmem-temporary-"))
                root = TenantRoot(self._temp_dir, self.tenant.account, self.tenant.space)
                store = self._temp_store = SessionStore(root, cap=64)
            return store

    def end_session(self, session_id: str) -> None:
        """A temporary session is erased with everything it held; a normal one is announced
        to the ``on_session_end`` listeners (the session-end fast path)."""
        if self.is_temporary(session_id):
            assert self._temp_store is not None
            self._temp_store.delete(session_id)
            return
        self.store.info(session_id)
        for listener in self.on_session_end:
            listener(session_id)

    # ================================================================== writes

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
        """Create a session explicitly (``append_message`` creates one lazily)."""
        if temporary:
            if project is not None:
                raise InvalidInput("a temporary session cannot be bound to a project")
            if session_id is not None and self.store.exists(validate_id(session_id, "session id")):
                raise Conflict(f"session already exists: {session_id}")
            store = self._temporary_store()
            session = store.create(
                session_id, agent_id=agent_id, title=title, model=model, extra={"temporary": True}
            )
            return store.info(session.session_id)
        if session_id is not None and self.is_temporary(session_id):
            raise Conflict(f"session already exists: {session_id}")
        session = self.store.create(
            session_id, **self._create_kwargs(project, agent_id, title, model)
        )
        return self.store.info(session.session_id)

    def _create_kwargs(
        self, project: str | Path | None, agent_id: str | None, title: str | None, model: str | None
    ) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"agent_id": agent_id, "title": title, "model": model}
        if project is None or project == DEFAULT_PROJECT:
            return kwargs
        if isinstance(project, Path) or "/" in str(project) or Path(str(project)).is_dir():
            proj = self.resolve_project(project)
        else:
            proj = self.projects.get(str(project))
        kwargs.update(project_id=proj.project_id, project_path=Path(proj.path))
        return kwargs

    def append_message(
        self,
        session_id: str,
        msg: dict[str, Any],
        *,
        project: str | Path | None = None,
        agent_id: str | None = None,
        model: str | None = None,
    ) -> Node:
        """Write one message as a DAG node, synchronously; creates the session on first use."""
        validate_id(session_id, "session id")
        fields = message_fields(msg)
        store = self._of(session_id)
        if "parent_id" in fields and not store.exists(session_id):
            # Checked before the lazy creation: a rejected message must write nothing.
            raise InvalidInput(
                f"session {session_id}: parent node {fields['parent_id']} "
                "does not exist (the session is new)"
            )
        if store is not self.store:
            session = store.open(session_id)
        else:
            session = store.open_or_create(
                session_id, **self._create_kwargs(project, agent_id, None, model)
            )
        with session.lock:
            session.refresh()  # another process may have appended or committed meanwhile
            if not session.uncommitted:
                note_turn_start(self.registry, session)
            return session.append(fields)

    def commit_turn(
        self,
        session_id: str,
        message: str | None = None,
        *,
        context: Any = None,
        model: str | None = None,
    ) -> TurnResult:
        """End the turn: one git commit holding every node appended since the last one, then
        the bound project's auto-commit (seed 001 §4.2) and the ``on_turn`` listeners."""
        store = self._of(session_id)
        session = store.open(session_id)
        with session.lock:
            session.refresh()  # see other writers' nodes before deciding what this turn holds
            pending = session.uncommitted
            if not pending:
                return TurnResult(
                    session_id, session.turns, None, (), warnings=("nothing to commit",)
                )
            user_text = next((n.text for n in pending if n.role == "user"), "")
            if not user_text:
                user_text = next(
                    (n.text for n in reversed(session.branch_nodes()) if n.role == "user"), ""
                )
            turn_no = session.turns + 1
            sha, turn, node_ids = session.commit(
                message or f"turn {turn_no}: {_first_line(user_text, 60)}", context=context
            )
            model = model or _model_of(session, pending)
            project_commit, warnings = commit_agent_turn(
                self.registry, session, turn, user_text, model
            )
        if turn == 1 or not session.meta.get("preview"):
            thread = after_first_turn(store, session, pending, self.settings.llm)
            if thread is not None:
                self._titles.append(thread)
        result = TurnResult(session_id, turn, sha, node_ids, project_commit, tuple(warnings))
        if store is self.store:
            for listener in self.on_turn:
                listener(result)
        return result

    def update_session(self, session_id: str, **fields: Any) -> SessionInfo:
        return self._of(session_id).update(session_id, **fields)

    def delete_session(self, session_id: str) -> None:
        """Remove the session's directory and git history (seed 001 §3.7)."""
        store = self._of(session_id)
        store.delete(session_id)
        if store is self.store:
            for listener in self.on_session_deleted:
                listener(session_id)

    def session_exists(self, session_id: str) -> bool:
        """Whether a (normal) session of this id exists now, in any process's view."""
        try:
            return self.store.exists(session_id)
        except InvalidInput:
            return False

    def retry(self, session_id: str, assistant_id: str) -> str:
        return self._of(session_id).open(session_id).retry(assistant_id)

    def switch_head(self, session_id: str, node_id: str) -> str:
        return self._of(session_id).open(session_id).switch_head(node_id)

    def checkout(self, session_id: str, branch: str) -> None:
        self._of(session_id).open(session_id).checkout(branch)

    # ================================================================== reads

    def list_sessions(self) -> list[SessionInfo]:
        return self.store.list()

    def get_session(self, session_id: str) -> SessionInfo:
        return self._of(session_id).info(session_id)

    def get_branch_nodes(self, session_id: str, head: str | None = None) -> list[Node]:
        session = self._of(session_id).open(session_id)
        with session.lock:
            session.refresh()
            return session.branch_nodes(head)

    def get_nodes(self, session_id: str) -> list[Node]:
        session = self._of(session_id).open(session_id)
        with session.lock:
            session.refresh()
            return session.all_nodes()

    def branches(self, session_id: str) -> list[str]:
        return self._of(session_id).open(session_id).branches()

    def session_commits(
        self, session_id: str, branch: str | None = None, limit: int | None = None
    ) -> list[CommitInfo]:
        if self.is_temporary(session_id):
            return self._of(session_id).open(session_id).log(branch, limit)
        return self.provenance.session_commits(session_id, branch, limit)

    # ================================================================== per-session files

    def session_state(self, session_id: str, name: str) -> dict[str, Any] | None:
        """A session's state file ``context/<name>.json`` (the context engine's), if any."""
        return read_state(Path(self.get_session(session_id).path), name)

    def edit_session_state(
        self,
        session_id: str,
        name: str,
        change: Callable[[dict[str, Any]], dict[str, Any] | None],
    ) -> dict[str, Any]:
        """Atomically replace a session state file with ``change(current)`` (under a lock)."""
        path = Path(self.get_session(session_id).path)
        return edit_state(path, name, change, fsync=self.settings.fsync)

    def write_meta(self, session_id: str, **changes: Any) -> None:
        """Merge raw fields into a session's meta.json (an import's source, its title)."""
        self.store.open(session_id).write_meta(**changes)

    def generate_title(self, session_id: str) -> SessionInfo:
        """Ask the configured LLM for the session's title now (see ``titles``)."""
        info = self.get_session(session_id)
        nodes = self.get_branch_nodes(session_id)
        return generate_title_now(self.store, info, nodes, self.settings.llm)

    # ================================================================== projects

    def resolve_project(self, path: str | Path, name: str | None = None) -> Project:
        project, _ = self.registry.resolve(path, name)
        return project

    def list_projects(self) -> list[Project]:
        return self.projects.all()

    def get_project(self, project_id: str) -> Project:
        return self.projects.get(project_id)

    def unbind_project(self, project_id: str) -> Project:
        return self.projects.unbind(project_id)

    def project_log(self, project_id: str, limit: int = 20) -> list[CommitInfo]:
        return self.registry.git(project_id).log(limit)

    # ================================================================== provenance

    def iter_nodes_since(
        self,
        cursor: Mapping[str, int] | None = None,
    ) -> Iterator[NodeRecord]:
        return self.provenance.iter_nodes_since(cursor)

    def node_provenance(self, session_id: str, node_id: str) -> Provenance | None:
        return self.provenance.node_provenance(session_id, node_id)

    def project_commits(self, project_id: str, limit: int = 100) -> list[CommitInfo]:
        return self.provenance.project_commits(project_id, limit)

    # ================================================================== lifecycle

    def wait(self, timeout: float | None = None) -> None:
        """Wait for background title generation."""
        for thread in list(self._titles):
            thread.join(timeout)
        self._titles = [t for t in self._titles if t.is_alive()]

    @property
    def background(self) -> list[threading.Thread]:
        """Title threads started since the last ``wait`` that found them finished."""
        return list(self._titles)

    def close(self) -> None:
        """Erase this instance's temporary sessions."""
        if self._temp_dir is not None:
            shutil.rmtree(self._temp_dir, ignore_errors=True)
            self._temp_store = None
            self._temp_dir = None


def _first_line(text: str, limit: int) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line[:limit]


def _model_of(session: NodeLog, pending: Iterable[Node]) -> str | None:
    for node in reversed(list(pending)):
        model = node.metadata.get("model") or (node.metadata.get("extra") or {}).get("model")
        if isinstance(model, str):
            return model
    meta_model = session.meta.get("model")
    return meta_model if isinstance(meta_model, str) else None


class ConversationLike(Protocol):
    """What an importer yields: one session's messages, already split into turns."""

    session_id: str
    title: str | None
    agent_id: str | None
    skipped: int

    @property
    def messages(self) -> list[dict[str, Any]]: ...
    @property
    def turns(self) -> list[list[dict[str, Any]]]: ...


def import_conversations(
    sessions: SessionService,
    conversations: Iterable[ConversationLike],
    *,
    on_session: Callable[[Any, bool], None] | None = None,
) -> ImportResult:
    """Record conversations, one commit per turn. Sessions that already exist are skipped,
    so importing the same file twice is harmless; a conversation with an invalid message is
    refused whole before anything of it is written."""
    created = skipped = turns = messages = dropped = 0
    for conv in conversations:
        validate_id(conv.session_id, "session id")
        for i, msg in enumerate(conv.messages):
            try:
                message_fields(msg)
            except InvalidInput as exc:
                raise InvalidInput(f"session {conv.session_id}, message {i + 1}: {exc}") from None
        if sessions.store.exists(conv.session_id):
            skipped += 1
            if on_session:
                on_session(conv, False)
            continue
        sessions.create_session(conv.session_id, title=conv.title, agent_id=conv.agent_id)
        for turn in conv.turns:
            for msg in turn:
                sessions.append_message(conv.session_id, msg)
                messages += 1
            sessions.commit_turn(conv.session_id)
            turns += 1
        dropped += conv.skipped
        created += 1
        if on_session:
            on_session(conv, True)
    return ImportResult(created, skipped, turns, messages, dropped)
