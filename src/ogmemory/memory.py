"""``Memory``: the one facade users hold. Interfaces parse input, call it, format output."""

from __future__ import annotations

import logging
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .config import Settings
from .distill.types import Extractor
from .embed import Embedder
from .entity.messages import message_fields
from .entity.project_git import ProjectRegistry, agent_author
from .entity.provenance import ProvenanceReader
from .entity.session_store import DEFAULT_PROJECT, SessionStore
from .entity.titles import fallback_title, preview, start_title_thread
from .errors import Conflict, InvalidInput, NotFound, ProjectNotFound, StorageError
from .importers import Conversation
from .knowledge_api import KnowledgeAPI
from .recall_api import RecallAPI
from .records import CommitInfo, Node, NodeRecord, Project, Provenance, SessionInfo, TurnResult
from .storage.protocols import NodeLog, ProjectStore, ProvenanceSource, SessionRepository
from .tenancy import TenantRoot, validate_id

__all__ = ["ImportResult", "Memory"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ImportResult:
    sessions_created: int
    sessions_skipped: int
    turns: int
    messages: int
    messages_skipped: int

    def to_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


class Memory(KnowledgeAPI, RecallAPI):
    """Long-term memory of one tenant ``(account, space)``.

    >>> mem = Memory(home="/tmp/ogm-doc")                     # doctest: +SKIP
    >>> mem.append_message("s1", {"role": "user", "content": "We use Postgres."})  # doctest: +SKIP
    >>> mem.append_message("s1", {"role": "assistant", "content": "Noted."})       # doctest: +SKIP
    >>> mem.commit_turn("s1").turn                             # doctest: +SKIP
    1

    ``extractor`` replaces the Stage-2 extractor chosen by ``settings.extractor`` (a plug-in);
    ``embedder`` shares one loaded embedding model between several tenants' instances.
    """

    def __init__(self, home: str | Path | None = None, *, account: str | None = None,
                 space: str | None = None, settings: Settings | None = None,
                 extractor: Extractor | None = None, embedder: Embedder | None = None) -> None:
        settings = settings or Settings()
        if home is not None:
            settings = Settings(**{**settings.__dict__, "home": Path(home).expanduser()})
        if account is not None or space is not None:
            # ``is None``, not falsiness: an empty account/space must be rejected by
            # validation, never silently mapped to the default tenant.
            settings = settings.with_tenant(settings.account if account is None else account,
                                            settings.space if space is None else space)
        self.settings = settings
        self.tenant = TenantRoot(settings.home, settings.account, settings.space)
        self._sessions: SessionRepository = SessionStore(
            self.tenant, cap=settings.session_cache_cap, fsync=settings.fsync)
        self._registry = ProjectRegistry(self.tenant.projects_file, fsync=settings.fsync)
        self._projects: ProjectStore = self._registry
        self._provenance: ProvenanceSource = ProvenanceReader(self._sessions, self._registry)
        self._background: list[threading.Thread] = []
        self._temp_store: SessionRepository | None = None
        self._temp_dir: Path | None = None
        self._temp_lock = threading.Lock()
        self._knowledge_init(extractor)
        self._recall_init(embedder)

    # ================================================================== temporary sessions

    def _store(self, session_id: str) -> SessionRepository:
        """The store holding ``session_id``: the temporary one for temporary sessions."""
        temp = self._temp_store
        if temp is not None and temp.exists(session_id):
            return temp
        return self._sessions

    def is_temporary(self, session_id: str) -> bool:
        return self._temp_store is not None and self._temp_store.exists(validate_id(
            session_id, "session id"))

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
        """The session is over. A temporary session is erased with everything it held; a normal
        one is distilled now (the session-end fast path)."""
        if self.is_temporary(session_id):
            assert self._temp_store is not None
            self._temp_store.delete(session_id)
            return
        self._store(session_id).info(session_id)
        self._distill_soon(session_id)

    # ================================================================== sessions: writes

    def create_session(self, session_id: str | None = None, *, project: str | Path | None = None,
                       agent_id: str | None = None, title: str | None = None,
                       model: str | None = None, temporary: bool = False) -> SessionInfo:
        """Create a session explicitly (``append_message`` also creates one lazily).

        ``project`` is a registered project id or a directory (bound via ``resolve_project``);
        such a session's repository lives in ``<project>/.ogmemory/sessions/<id>/``.
        ``temporary``: a conversation that neither reads memory nor writes it (seed 003): it is
        kept outside the state directory, never distilled, indexed or recalled, and
        ``end_session`` (or ``close``) erases it.
        """
        if temporary:
            if project is not None:
                raise InvalidInput("a temporary session cannot be bound to a project")
            if session_id is not None and self._sessions.exists(validate_id(session_id, "session id")):
                raise Conflict(f"session already exists: {session_id}")
            store = self._temporary_store()
            session = store.create(session_id, agent_id=agent_id, title=title, model=model,
                                   extra={"temporary": True})
            return store.info(session.session_id)
        if session_id is not None and self.is_temporary(session_id):
            raise Conflict(f"session already exists: {session_id}")
        kwargs = self._create_kwargs(project, agent_id, title, model)
        session = self._sessions.create(session_id, **kwargs)
        return self._sessions.info(session.session_id)

    def _create_kwargs(self, project: str | Path | None, agent_id: str | None,
                       title: str | None, model: str | None) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"agent_id": agent_id, "title": title, "model": model}
        if project is None or project == DEFAULT_PROJECT:
            return kwargs
        if isinstance(project, Path) or "/" in str(project) or Path(str(project)).is_dir():
            proj = self.resolve_project(project)
        else:
            proj = self._projects.get(str(project))
        kwargs.update(project_id=proj.project_id, project_path=Path(proj.path))
        return kwargs

    def append_message(self, session_id: str, msg: dict[str, Any], *,
                       project: str | Path | None = None, agent_id: str | None = None,
                       model: str | None = None) -> Node:
        """Write one message as a DAG node, synchronously. Creates the session on first use.

        ``msg`` is an OpenAI-style dict: ``role`` (user | assistant | tool), ``content``,
        optional ``name``, ``tool_calls``, ``tool_call_id``, ``event_time`` (epoch seconds or
        ISO-8601; defaults to now), ``metadata``, ``id`` and ``parent_id`` (default: the head).
        """
        validate_id(session_id, "session id")
        fields = message_fields(msg)
        store = self._store(session_id)
        if "parent_id" in fields and not store.exists(session_id):
            # Checked before the lazy creation: a rejected message must write nothing.
            raise InvalidInput(f"session {session_id}: parent node {fields['parent_id']} "
                               "does not exist (the session is new)")
        if store is not self._sessions:
            session = store.open(session_id)
        else:
            session = store.open_or_create(
                session_id, **self._create_kwargs(project, agent_id, None, model))
        with self._lock_of(session):
            session.refresh()  # another process may have appended or committed meanwhile
            starts_turn = not _has_pending(session)
            if starts_turn:
                self._note_turn_start(session)
            return session.append(fields)

    def commit_turn(self, session_id: str, message: str | None = None, *,
                    context: Any = None, model: str | None = None) -> TurnResult:
        """End the turn: exactly one git commit holding every node appended since the last one.

        ``message`` is the commit message (default ``turn N: <user message>``); ``context`` is
        stored as the turn's context view (``context/commits/<sha>.json``). If the session is
        bound to a real project, the agent's edits are committed there too when the tree was
        clean before the turn; otherwise a warning says why they were not.
        """
        store = self._store(session_id)
        temporary = store is not self._sessions
        session = store.open(session_id)
        with self._lock_of(session):
            session.refresh()  # see other writers' nodes before deciding what this turn holds
            pending = _pending(session)
            if not pending:
                return TurnResult(session_id, session.turns, None, (),
                                  warnings=("nothing to commit",))
            user_text = next((n.text for n in pending if n.role == "user"), "")
            if not user_text:
                user_text = next((n.text for n in reversed(session.branch_nodes())
                                  if n.role == "user"), "")
            turn_no = session.turns + 1
            sha, turn, node_ids = session.commit(
                message or f"turn {turn_no}: {_first_line(user_text, 60)}", context=context)
            model = model or _model_of(session, pending)
            project_commit, warnings = self._commit_project(session, turn, user_text, model)
        if turn == 1 or not session.meta.get("preview"):
            self._after_first_turn(session, pending)
        if not temporary:
            self._mark_turns_dirty()
            if self.settings.distill_on_turn:
                self._distill_soon(session_id)
        return TurnResult(session_id, turn, sha, node_ids, project_commit, tuple(warnings))

    def _lock_of(self, session: NodeLog) -> Any:
        return session.lock

    def _note_turn_start(self, session: NodeLog) -> None:
        project_id = str(session.meta.get("project_id") or DEFAULT_PROJECT)
        if project_id == DEFAULT_PROJECT:
            return
        try:
            git = self._registry.git(project_id)
        except (ProjectNotFound, StorageError) as exc:  # unbound or unreadable: nothing to protect
            log.debug("project %s not usable at turn start: %s", project_id, exc)
            return
        session.write_meta(turn_start={"project_clean": git.is_clean(), "project_head": git.head()})

    def _commit_project(self, session: NodeLog, turn: int, user_text: str,
                        model: str | None) -> tuple[str | None, list[str]]:
        project_id = str(session.meta.get("project_id") or DEFAULT_PROJECT)
        if project_id == DEFAULT_PROJECT:
            return None, []
        start = session.meta.get("turn_start") or {}
        session.write_meta(turn_start=None)
        try:
            git = self._registry.git(project_id)
        except NotFound:
            return None, []
        except StorageError as exc:  # the session turn is committed; say why the project is not
            return None, [f"project {project_id} is not usable ({exc}); "
                          "the agent's edits were not committed"]
        if git.is_clean():
            return None, []
        if not start.get("project_clean"):
            return None, [f"project {project_id} had uncommitted changes before the agent's turn; "
                          "the agent's edits were not committed"]
        message = f"[agent {session.session_id}] turn {turn}: {_first_line(user_text, 60)}"
        try:
            return git.commit_all(agent_author(model), message), []
        except StorageError as exc:  # e.g. the user's own git holds index.lock right now
            return None, [f"project {project_id}: could not commit the agent's edits ({exc})"]

    def _after_first_turn(self, session: NodeLog, pending: list[Node]) -> None:
        first_user = next((n for n in session.all_nodes() if n.role == "user"), None)
        if first_user is None:
            return
        meta = session.read_meta()
        changes: dict[str, Any] = {}
        if not meta.get("preview"):
            changes["preview"] = preview(first_user.text)
        if changes:
            session.write_meta(**changes)
        if not meta.get("title_manual") and not meta.get("title"):
            self._store(session.session_id).set_auto_title(session.session_id, fallback_title(first_user.text), llm=False)
        if self.settings.llm is not None and not meta.get("_titled") and not meta.get("title_manual"):
            # The assistant's response (§3.3): the last reply of the turn, not a tool-call step.
            replies = [n for n in pending if n.role == "assistant"]
            reply = next((n.text for n in reversed(replies) if isinstance(n.content, str)
                          and n.content.strip()), replies[-1].text if replies else "")
            sid = session.session_id
            thread = start_title_thread(
                self.settings.llm, first_user.text, reply,
                lambda title, model: self._apply_llm_title(sid, title, model),
                model=meta.get("model") or None)
            self._background.append(thread)

    def _apply_llm_title(self, session_id: str, title: str, model: str) -> None:
        self._store(session_id).set_auto_title(session_id, title, llm=True, model=model)

    def wait_background(self, timeout: float | None = None) -> None:
        """Wait for background work (LLM titles, fast-path distillation) of this instance."""
        self._wait_distill(timeout)
        for thread in list(self._background):
            thread.join(timeout)
        self._background = [t for t in self._background if t.is_alive()]

    def update_session(self, session_id: str, **fields: Any) -> SessionInfo:
        """Change ``title`` (a manual title wins forever), ``project_id``, ``agent_id``, ``model``."""
        return self._store(session_id).update(session_id, **fields)

    def rename_session(self, session_id: str, title: str) -> SessionInfo:
        return self._store(session_id).update(session_id, title=title)

    def delete_session(self, session_id: str) -> None:
        """Remove the session's directory (and its git history). Derived records that cite it
        keep dangling but harmless pointers (seed 001 §3.7)."""
        self._store(session_id).delete(session_id)

    def retry(self, session_id: str, assistant_id: str) -> str:
        """Retry an assistant message: git branch ``retry-<assistant_id>``; the next appended
        message becomes a sibling of it. Returns the branch name."""
        return self._store(session_id).open(session_id).retry(assistant_id)

    def switch_head(self, session_id: str, node_id: str) -> str:
        """Move the DAG head to ``node_id``, checking out the branch holding it."""
        return self._store(session_id).open(session_id).switch_head(node_id)

    def checkout(self, session_id: str, branch: str) -> None:
        self._store(session_id).open(session_id).checkout(branch)

    # ================================================================== sessions: reads

    def list_sessions(self) -> list[SessionInfo]:
        """Every valid session of this tenant, most recently updated first."""
        return self._sessions.list()

    def _sessions_for_daemon(self) -> list[SessionInfo]:
        return self._sessions.list()

    def get_session(self, session_id: str) -> SessionInfo:
        return self._store(session_id).info(session_id)

    def get_branch(self, session_id: str, head: str | None = None) -> list[dict[str, Any]]:
        """The conversation from the root to ``head`` (default: current head) as messages."""
        return [n.to_message() for n in self.get_branch_nodes(session_id, head)]

    def get_branch_nodes(self, session_id: str, head: str | None = None) -> list[Node]:
        session = self._store(session_id).open(session_id)
        with self._lock_of(session):
            session.refresh()
            return session.branch_nodes(head)

    def get_nodes(self, session_id: str) -> list[Node]:
        """Every node of the session (all branches, tool calls included), in write order."""
        session = self._store(session_id).open(session_id)
        with self._lock_of(session):
            session.refresh()
            return session.all_nodes()

    def branches(self, session_id: str) -> list[str]:
        return self._store(session_id).open(session_id).branches()

    def session_commits(self, session_id: str, branch: str | None = None,
                        limit: int | None = None) -> list[CommitInfo]:
        """The session's turn commits (git log), newest first."""
        if self.is_temporary(session_id):
            return self._store(session_id).open(session_id).log(branch, limit)
        return self._provenance.session_commits(session_id, branch, limit)

    # ================================================================== projects

    def resolve_project(self, path: str | Path, name: str | None = None) -> Project:
        """Bind a directory: reuse its ``.git`` or ``git init`` it; register it."""
        project, _ = self._registry.resolve(path, name)
        return project

    def list_projects(self) -> list[Project]:
        return self._projects.all()

    def get_project(self, project_id: str) -> Project:
        return self._projects.get(project_id)

    def unbind_project(self, project_id: str) -> Project:
        """Remove the registry entry only; git history and sessions' project_id stay."""
        return self._projects.unbind(project_id)

    def project_log(self, project_id: str, limit: int = 20) -> list[CommitInfo]:
        """Agent-attributed commits of a project, newest first."""
        return self._registry.git(project_id).log(limit)

    # ================================================================== provenance

    def iter_nodes_since(self, cursor: Mapping[str, int] | None = None) -> Iterator[NodeRecord]:
        return self._provenance.iter_nodes_since(cursor)

    def node_provenance(self, session_id: str, node_id: str) -> Provenance | None:
        return self._provenance.node_provenance(session_id, node_id)

    def project_commits(self, project_id: str, limit: int = 100) -> list[CommitInfo]:
        return self._provenance.project_commits(project_id, limit)

    # ================================================================== import

    def import_conversations(self, conversations: Iterable[Conversation], *,
                             on_session: Callable[[Conversation, bool], None] | None = None,
                             ) -> ImportResult:
        """Record conversations, one commit per turn. Sessions that already exist are skipped,
        so importing the same file twice is harmless."""
        created = skipped = turns = messages = dropped = 0
        for conv in conversations:
            validate_id(conv.session_id, "session id")
            for i, msg in enumerate(conv.messages):
                try:  # check the whole conversation first: never leave it half-imported
                    message_fields(msg)
                except InvalidInput as exc:
                    raise InvalidInput(f"session {conv.session_id}, message {i + 1}: {exc}") from None
            if self._sessions.exists(conv.session_id):
                skipped += 1
                if on_session:
                    on_session(conv, False)
                continue
            self.create_session(conv.session_id, title=conv.title, agent_id=conv.agent_id)
            for turn in conv.turns:
                for msg in turn:
                    self.append_message(conv.session_id, msg)
                    messages += 1
                self.commit_turn(conv.session_id)
                turns += 1
            dropped += conv.skipped
            created += 1
            if on_session:
                on_session(conv, True)
        return ImportResult(created, skipped, turns, messages, dropped)

    def close(self) -> None:
        """Finish background work and erase this instance's temporary sessions."""
        self.wait_background(timeout=5)
        self._stop_worker()
        if self._temp_dir is not None:
            shutil.rmtree(self._temp_dir, ignore_errors=True)
            self._temp_store = None
            self._temp_dir = None

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _pending(session: NodeLog) -> list[Node]:
    return session.uncommitted


def _has_pending(session: NodeLog) -> bool:
    return bool(_pending(session))


def _first_line(text: str, limit: int) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line[:limit]


def _model_of(session: NodeLog, pending: list[Node]) -> str | None:
    for node in reversed(pending):
        model = node.metadata.get("model") or (node.metadata.get("extra") or {}).get("model")
        if isinstance(model, str):
            return model
    meta_model = session.meta.get("model")
    return meta_model if isinstance(meta_model, str) else None
