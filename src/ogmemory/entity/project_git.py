"""Project-Git (seed 001 §4): the user's own repository, and the registry of bound projects.

The agent's edits are committed at turn end only when the tree was clean before the agent's
turn; otherwise the turn is skipped with a warning so the user's uncommitted work is never
swept into an agent commit. Session repositories inside the project (``.ogmemory/``) are kept
out of the project's history through ``.git/info/exclude``.
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
from pathlib import Path
from typing import Any

import pygit2

from .._files import atomic_write_json, file_lock, read_json
from ..errors import InvalidInput, ProjectNotFound, StorageError
from ..records import CommitInfo, Project
from ..tenancy import validate_id

__all__ = ["AGENT_EMAIL", "ProjectGit", "ProjectRegistry", "agent_author"]

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
            exclude.write_text(text + ("" if text.endswith("\n") or not text else "\n") + line + "\n")

    def is_clean(self) -> bool:
        """True when the working tree has no change git would commit (ignored files aside)."""
        return not self._changes()

    def _changes(self) -> dict[str, int]:
        ignored = pygit2.enums.FileStatus.IGNORED
        return {p: f for p, f in self.repo.status().items() if not f & ignored}

    def head(self) -> str | None:
        return None if self.repo.head_is_unborn else str(self.repo.head.target)

    def commit_all(self, author: str, message: str) -> str | None:
        """Stage every change (additions, edits, deletions) and commit; ``None`` if nothing changed."""
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
            out.append(CommitInfo(
                sha=str(commit.id), message=commit.message.strip(), author=commit.author.name,
                time=float(commit.commit_time),
            ))
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
            out.append(CommitInfo(
                sha=str(commit.id), message=commit.message.strip(), author=commit.author.name,
                time=float(commit.commit_time), files=files,
            ))
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
            project = Project(project_id=project_id, name=label, path=str(root), created_at=time.time())
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
