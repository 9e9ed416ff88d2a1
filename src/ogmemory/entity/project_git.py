"""Project-Git (seed 001 §4): the user's own repository, and the registry of bound projects.

The agent's edits are committed at turn end only when the tree was clean before the agent's
turn; otherwise the turn is skipped with a warning so the user's uncommitted work is never
swept into an agent commit. Session repositories inside the project (``.ogmemory/``) are kept
out of the project's history through ``.git/info/exclude``.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pygit2

from ..errors import InvalidInput, NotFound, ProjectNotFound, StorageError
from ..storage.files import atomic_write_json, file_lock, read_json
from ..tenancy import validate_id
from .records import DEFAULT_PROJECT, CommitInfo, Project

if TYPE_CHECKING:
    from ..storage.protocols import NodeLog

__all__ = [
    "AGENT_EMAIL",
    "ProjectGit",
    "ProjectRegistry",
    "agent_author",
    "agent_commit_message",
    "agent_commit_session",
    "commit_agent_turn",
    "note_turn_start",
]

log = logging.getLogger(__name__)

AGENT_EMAIL = "agent@ogmemory.local"
PROJECT_STATE_DIR = ".ogmemory"
_AGENT_RE = re.compile(r"^agent \(.* via ogmemory\)$")


def agent_author(model: str | None) -> str:
    return f"agent ({model or 'unknown'} via ogmemory)"


def _slug(name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return slug[:40] or "project"


class ProjectGit:
    """A real project directory with a git repository (reused, or created by ``git init``)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self.repo = pygit2.Repository(str(path))
        except pygit2.GitError as exc:
            raise StorageError(f"{path}: not a git repository ({exc})") from exc

    @classmethod
    def open_or_init(cls, path: Path) -> ProjectGit:
        if not path.is_dir():
            raise InvalidInput(f"project path is not a directory: {path}")
        if not (path / ".git").exists():
            pygit2.init_repository(str(path))
        project = cls(path)
        project._exclude_state_dir()
        return project

    def _exclude_state_dir(self) -> None:
        info = Path(self.repo.path) / "info"
        info.mkdir(exist_ok=True)
        exclude = info / "exclude"
        text = exclude.read_text() if exclude.exists() else ""
        line = f"/{PROJECT_STATE_DIR}/"
        if line not in text.splitlines():
            exclude.write_text(
                text + ("" if text.endswith("\n") or not text else "\n") + line + "\n"
            )

    def is_clean(self) -> bool:
        """True when the working tree has no change git would commit (ignored files aside)."""
        return not self._changes()

    def _changes(self) -> dict[str, int]:
        ignored = pygit2.enums.FileStatus.IGNORED
        return {p: f for p, f in self.repo.status().items() if not f & ignored}

    def head(self) -> str | None:
        return None if self.repo.head_is_unborn else str(self.repo.head.target)

    def commit_all(self, author: str, message: str) -> str | None:
        """Stage every change (additions, edits, deletions) and commit; ``None`` if nothing
        changed."""
        try:
            return self._commit_all(author, message)
        except pygit2.GitError as exc:
            # Typically index.lock held by the user's own git: never remove it, report it.
            raise StorageError(f"{self.path}: {exc}") from exc

    def _commit_all(self, author: str, message: str) -> str | None:
        changes = self._changes()
        if not changes:
            return None
        deleted = pygit2.enums.FileStatus.WT_DELETED | pygit2.enums.FileStatus.INDEX_DELETED
        index = self.repo.index
        index.read(True)
        for path, flags in changes.items():
            if flags & deleted and not (self.path / path).exists():
                if path in index:
                    index.remove(path)
            else:
                index.add(path)
        index.write()
        tree = index.write_tree()
        sig = pygit2.Signature(author, AGENT_EMAIL)
        parents = [] if self.repo.head_is_unborn else [self.repo.head.target]
        return str(self.repo.create_commit("HEAD", sig, sig, message, tree, parents))

    def log(self, limit: int = 20, *, agent_only: bool = True) -> list[CommitInfo]:
        """Commits on HEAD, newest first; by default only the agent-attributed ones."""
        if self.repo.head_is_unborn:
            return []
        out: list[CommitInfo] = []
        # TIME alone is unstable for commits made within the same second (git times have
        # one-second resolution); TOPOLOGICAL keeps children before their parents.
        sort = pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.TIME
        for commit in self.repo.walk(self.repo.head.target, sort):
            if agent_only and not _AGENT_RE.match(commit.author.name):
                continue
            out.append(
                CommitInfo(
                    sha=str(commit.id),
                    message=commit.message.strip(),
                    author=commit.author.name,
                    time=float(commit.commit_time),
                )
            )
            if len(out) >= limit:
                break
        return out

    def commits_since(self, since: str | None, limit: int = 200) -> list[CommitInfo]:
        """Commits on HEAD after ``since`` (exclusive), oldest first, with changed files."""
        if self.repo.head_is_unborn:
            return []
        out: list[CommitInfo] = []
        sort = pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.TIME
        for commit in self.repo.walk(self.repo.head.target, sort):
            if since is not None and str(commit.id) == since:
                break
            if commit.parents:
                diff = self.repo.diff(commit.parents[0], commit)
            else:
                diff = commit.tree.diff_to_tree(swap=True)
            files = tuple(sorted({d.delta.new_file.path for d in diff if d is not None}))
            out.append(
                CommitInfo(
                    sha=str(commit.id),
                    message=commit.message.strip(),
                    author=commit.author.name,
                    time=float(commit.commit_time),
                    files=files,
                )
            )
            if len(out) >= limit:
                break
        return list(reversed(out))


class ProjectRegistry:
    """``projects/projects.json``: project id → name, path. Thread- and process-safe."""

    def __init__(self, path: Path, *, fsync: bool = False) -> None:
        self.path = path
        self.fsync = fsync
        self._lock = threading.Lock()

    def _read(self) -> dict[str, Any]:
        data = read_json(self.path)
        return data if isinstance(data, dict) else {}

    def _write(self, data: dict[str, Any]) -> None:
        atomic_write_json(self.path, data, fsync=self.fsync)

    def all(self) -> list[Project]:
        return [Project(project_id=k, **v) for k, v in sorted(self._read().items())]

    def get(self, project_id: str) -> Project:
        validate_id(project_id, "project id")
        entry = self._read().get(project_id)
        if entry is None:
            raise ProjectNotFound(project_id)
        return Project(project_id=project_id, **entry)

    def find_by_path(self, path: Path) -> Project | None:
        resolved = str(path.resolve())
        return next((p for p in self.all() if p.path == resolved), None)

    def resolve(self, path: str | Path, name: str | None = None) -> tuple[Project, ProjectGit]:
        """Seed 001 §4.1: reuse the directory's ``.git`` or ``git init`` it; register it."""
        root = Path(path).expanduser().resolve()
        git = ProjectGit.open_or_init(root)
        with self._lock, file_lock(self.path.with_suffix(".lock")):
            existing = self.find_by_path(root)
            if existing is not None:
                return existing, git
            data = self._read()
            label = name or root.name
            digest = hashlib.sha1(str(root).encode()).hexdigest()[:6]
            project_id = f"proj_{_slug(label)}_{digest}"
            project = Project(
                project_id=project_id, name=label, path=str(root), created_at=time.time()
            )
            entry = project.to_dict()
            del entry["project_id"]
            data[project_id] = entry
            self._write(data)
            return project, git

    def unbind(self, project_id: str) -> Project:
        """Remove the registry entry only; the project's git history is the user's and stays."""
        with self._lock, file_lock(self.path.with_suffix(".lock")):
            project = self.get(project_id)
            data = self._read()
            data.pop(project_id, None)
            self._write(data)
            return project

    def git(self, project_id: str) -> ProjectGit:
        return ProjectGit(Path(self.get(project_id).path))


_AGENT_MSG = re.compile(r"^\[agent (?P<sid>[A-Za-z0-9._-]+)\] turn \d+")


def agent_commit_message(session_id: str, turn: int, user_text: str) -> str:
    """``[agent <session>] turn <N>: <first 60 characters of the user's message>`` (seed 001
    §4.2): the one builder of the message ``agent_commit_session`` reads back."""
    line = user_text.strip().splitlines()[0] if user_text.strip() else ""
    return f"[agent {session_id}] turn {turn}: {line[:60]}"


def agent_commit_session(message: str) -> str | None:
    """The session an agent commit was made in (``None`` for any other commit)."""
    match = _AGENT_MSG.match(message)
    return match.group("sid") if match else None


def note_turn_start(registry: ProjectRegistry, session: NodeLog) -> None:
    """Remember whether the bound project's tree is clean as the agent's turn starts."""
    project_id = str(session.meta.get("project_id") or DEFAULT_PROJECT)
    if project_id == DEFAULT_PROJECT or session.meta.get("import"):
        return  # an imported session is past history: today's working tree is not its
    try:
        git = registry.git(project_id)
    except (ProjectNotFound, StorageError) as exc:  # unbound or unreadable: nothing to protect
        log.debug("project %s not usable at turn start: %s", project_id, exc)
        return
    session.write_meta(turn_start={"project_clean": git.is_clean(), "project_head": git.head()})


def commit_agent_turn(
    registry: ProjectRegistry, session: NodeLog, turn: int, user_text: str, model: str | None
) -> tuple[str | None, list[str]]:
    """Seed 001 §4.2 at turn end: commit the agent's edits to the bound project only when the
    tree was clean before the turn; otherwise say why not. Returns ``(sha, warnings)``."""
    project_id = str(session.meta.get("project_id") or DEFAULT_PROJECT)
    if project_id == DEFAULT_PROJECT or session.meta.get("import"):
        return None, []
    start = session.meta.get("turn_start") or {}
    session.write_meta(turn_start=None)
    try:
        git = registry.git(project_id)
    except NotFound:
        return None, []
    except StorageError as exc:  # the session turn is committed; say why the project is not
        return None, [
            f"project {project_id} is not usable ({exc}); the agent's edits were not committed"
        ]
    if git.is_clean():
        return None, []
    if not start.get("project_clean"):
        return None, [
            f"project {project_id} had uncommitted changes before the agent's turn; "
            "the agent's edits were not committed"
        ]
    message = agent_commit_message(session.session_id, turn, user_text)
    try:
        return git.commit_all(agent_author(model), message), []
    except StorageError as exc:  # e.g. the user's own git holds index.lock right now
        return None, [f"project {project_id}: could not commit the agent's edits ({exc})"]
