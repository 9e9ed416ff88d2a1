"""One session repository's health (seed 001's immutable record).

Checked: the git objects (``git fsck``), the node files against their committed blobs, the git
index against HEAD, git lock files left by a killed writer, and meta.json against the branch (a
writer stopped between moving the branch and recording the turn). Everything but damaged git
objects can be repaired from the repository itself.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pygit2

from ..entity.git_plumbing import HISTORY, missed_turn
from ..entity.session_git import GitSession
from .findings import Finding

__all__ = ["SessionHealth", "check_session"]

_GIT_LOCKS = ("index.lock", "HEAD.lock")


@dataclass(frozen=True)
class SessionHealth:
    findings: tuple[Finding, ...]
    committed_seqs: tuple[int, ...]
    note: str | None = None


@contextmanager
def _quiet(path: Path) -> Iterator[bool]:
    """The session's writer lock, without waiting: ``False`` while a writer is at work."""
    lock = path / ".git" / "ogmemory.lock"
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _git_fsck(path: Path) -> str | None:
    if shutil.which("git") is None:
        return None
    res = subprocess.run(
        [
            "git",
            "-c",
            "safe.directory=*",
            "-C",
            str(path),
            "fsck",
            "--no-progress",
            "--no-dangling",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if res.returncode == 0:
        return None
    lines = [ln for ln in (res.stderr + res.stdout).splitlines() if ln.strip()]
    return "; ".join(lines[:3]) or f"git fsck exited {res.returncode}"


def _tree_blobs(repo: pygit2.Repository, commit: pygit2.Commit) -> dict[str, pygit2.Oid]:
    if HISTORY not in commit.tree:
        return {}
    tree = repo[commit.tree[HISTORY].id].peel(pygit2.Tree)
    return {entry.name: entry.id for entry in tree}  # type: ignore[misc]


def check_session(path: Path, session_id: str, where: str, *, repair: bool) -> SessionHealth:
    """Findings for the session repository at ``path`` (``where``: how to name it)."""
    problem = _git_fsck(path)
    if problem is not None:
        return SessionHealth((Finding("session", where, f"git fsck: {problem}", False),), ())
    try:
        repo = pygit2.Repository(str(path))
    except pygit2.GitError as exc:
        return SessionHealth(
            (Finding("session", where, f"not a git repository ({exc})", False),), ()
        )
    seqs: set[int] = set()
    for name in repo.branches.local:
        commit = repo.branches.local[name].peel(pygit2.Commit)
        seqs.update(int(n.split("-", 1)[0]) for n in _tree_blobs(repo, commit) if n[:1].isdigit())
    with _quiet(path) as quiet:
        if not quiet:
            return SessionHealth(
                (), tuple(sorted(seqs)), f"{where}: a writer is at work; only git fsck was run"
            )
        findings = [
            *_locks(repo, where, repair),
            *_nodes(repo, path, where, repair),
            *_index(repo, where, repair),
        ]
        behind = _meta_behind(repo, path)
    if behind is not None:
        if repair:
            GitSession(path, session_id)  # opening records the missed turn (under its lock)
        findings.append(
            Finding(
                "session",
                where,
                f"meta.json missed turn commit {behind[:12]} (a writer stopped after the commit)",
                True,
                repair,
                "recorded the turn in meta.json" if repair else "",
            )
        )
    return SessionHealth(tuple(findings), tuple(sorted(seqs)))


def _locks(repo: pygit2.Repository, where: str, repair: bool) -> list[Finding]:
    gitdir = Path(repo.path)
    stale = [gitdir / n for n in _GIT_LOCKS] + list(gitdir.glob("refs/heads/*.lock"))
    found = []
    for lock in stale:
        if not lock.exists():
            continue
        if repair:
            lock.unlink(missing_ok=True)
        found.append(
            Finding(
                "session",
                where,
                f"stale git lock {lock.name} (a writer was killed)",
                True,
                repair,
                "removed" if repair else "",
            )
        )
    return found


def _nodes(repo: pygit2.Repository, path: Path, where: str, repair: bool) -> list[Finding]:
    """Node files that do not parse, or differ from the blob their turn committed."""
    committed = {} if repo.head_is_unborn else _tree_blobs(repo, repo.head.peel(pygit2.Commit))
    found = []
    hist = path / HISTORY
    names = {e.name for e in os.scandir(hist)} if hist.is_dir() else set()
    for name in sorted(names | set(committed)):
        if not name.endswith(".json") or name.startswith("."):
            continue
        file = hist / name
        data = file.read_bytes() if name in names else None
        blob = committed.get(name)
        if blob is not None and data != repo[blob].peel(pygit2.Blob).data:
            if repair:
                file.write_bytes(repo[blob].peel(pygit2.Blob).data)
            what = "is missing" if data is None else "differs from its committed version"
            found.append(
                Finding(
                    "session",
                    where,
                    f"node file {name} {what}",
                    True,
                    repair,
                    "restored from git" if repair else "",
                )
            )
        elif blob is None and data is not None and not _parses(data):
            found.append(
                Finding("session", where, f"uncommitted node file {name} is unreadable", False)
            )
    return found


def _parses(data: bytes) -> bool:
    try:
        return isinstance(json.loads(data), dict)
    except ValueError:
        return False


def _index(repo: pygit2.Repository, where: str, repair: bool) -> list[Finding]:
    if repo.head_is_unborn:
        return []
    head = repo.head.peel(pygit2.Commit)
    index = repo.index
    index.read(False)
    if len(index) == len(_tree_blobs(repo, head)):
        return []
    if repair:
        index.read_tree(head.tree)
        index.write()
    return [
        Finding(
            "session",
            where,
            "the git index is behind HEAD (a writer was killed between commit and index)",
            True,
            repair,
            "reset to HEAD" if repair else "",
        )
    ]


def _meta_behind(repo: pygit2.Repository, path: Path) -> str | None:
    try:
        meta = json.loads((path / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return missed_turn(repo, meta) if isinstance(meta, dict) else None
