"""The git side of a session repository (seed 001 §2-3), as functions over a pygit2
repository: creating one, reading the nodes a tree holds, building a turn's objects, moving
the branch, staging, clearing the lock files a dead writer left, the seq counter and the stamp
that tell readers a session changed, and the one rule for a turn that meta.json missed.
:class:`~ogmemory.entity.session_git.GitSession` holds the state."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import pygit2

from ..storage.files import atomic_write_bytes, atomic_write_json, read_json
from .records import CommitInfo, Node

__all__ = [
    "HISTORY",
    "MAIN",
    "branch_of",
    "branch_with_node",
    "clear_stale_locks",
    "history_stamp",
    "init_session_repo",
    "map_turns",
    "missed_turn",
    "move_branch",
    "next_seq_of",
    "reserve_seq",
    "reserved_seq",
    "stage",
    "tree_nodes",
    "turn_log",
    "turn_objects",
    "worktree_nodes",
    "write_turn_context",
]

log = logging.getLogger(__name__)

#: The tracked directory of node files.
HISTORY = "history"
#: The branch a session starts on.
MAIN = "main"
_EXCLUDE = "meta.json\ncontext/\nworkdir/\n.tmp-*\n.ogmemory.lock\n"
_NEXT = "ogmemory.next"
_SIGNATURE = ("ogmemory", "ogmemory@localhost")
_BLOB = pygit2.enums.FileMode.BLOB


def init_session_repo(path: Path) -> None:
    """``git init`` a session directory: branch ``main``, no reflogs (turn commits are the
    history; reflogs would only double the writes per turn), untracked files excluded."""
    path.mkdir(parents=True, exist_ok=True)
    repo = pygit2.init_repository(str(path), initial_head=MAIN)
    repo.config["core.logAllRefUpdates"] = False
    (Path(repo.path) / "info").mkdir(exist_ok=True)
    (Path(repo.path) / "info" / "exclude").write_text(_EXCLUDE)


def missed_turn(repo: pygit2.Repository, meta: dict[str, Any]) -> str | None:
    """The HEAD commit if meta.json missed it: a writer stopped (crash, full disk) after moving
    the branch to a new turn and before recording it in meta.json. That is exactly when HEAD is
    a child of ``last_commit`` (or the first commit, with none recorded)."""
    if repo.head_is_unborn:
        return None
    head = repo.head.peel(pygit2.Commit)
    last = meta.get("last_commit")
    if str(head.id) == last:
        return None
    parents = [str(p) for p in head.parent_ids]
    return str(head.id) if parents == ([last] if isinstance(last, str) else []) else None


def branch_of(repo: pygit2.Repository) -> str:
    """The checked-out branch (``main`` before anything is committed)."""
    try:
        ref = repo.lookup_reference("HEAD").target
    except (KeyError, pygit2.GitError):
        return MAIN
    return str(ref).removeprefix("refs/heads/")


def tree_nodes(repo: pygit2.Repository, tree: pygit2.Tree, session_id: str) -> Iterable[Node]:
    """The nodes a commit's tree holds (unreadable blobs are logged and skipped)."""
    if HISTORY not in tree:
        return
    for entry in tree[HISTORY].peel(pygit2.Tree):
        blob = repo[entry.id].peel(pygit2.Blob)
        try:
            yield Node.from_dict(json.loads(blob.data))
        except (ValueError, TypeError):
            log.warning("session %s: skipping unreadable node blob %s", session_id, entry.name)


def branch_with_node(repo: pygit2.Repository, session_id: str, node_id: str) -> str | None:
    """The first local branch (by name) whose tree holds node ``node_id``, if any."""
    for name in sorted(repo.branches.local):
        tree = repo.branches.local[name].peel(pygit2.Commit).tree
        if any(n.id == node_id for n in tree_nodes(repo, tree, session_id)):
            return name
    return None


def turn_objects(
    repo: pygit2.Repository,
    message: str,
    pending: Sequence[Node],
    raw_of: Callable[[Node], bytes],
) -> tuple[pygit2.Oid, list[pygit2.IndexEntry]]:
    """A turn's blobs, trees and commit object, referenced by nothing yet. The trees are built
    directly (TreeBuilder), so a turn costs in proportion to the turn, not to the history."""
    head = None if repo.head_is_unborn else repo.head.peel(pygit2.Commit)
    root = repo.TreeBuilder(head.tree) if head else repo.TreeBuilder()
    old_hist: pygit2.Tree | None = None
    if head is not None and HISTORY in head.tree:
        old_hist = head.tree[HISTORY].peel(pygit2.Tree)
    hist = repo.TreeBuilder(old_hist) if old_hist is not None else repo.TreeBuilder()
    entries = []
    for node in pending:
        blob = repo.create_blob(raw_of(node))
        hist.insert(node.filename, blob, _BLOB)
        entries.append(pygit2.IndexEntry(f"{HISTORY}/{node.filename}", blob, _BLOB))
    root.insert(HISTORY, hist.write(), pygit2.enums.FileMode.TREE)
    parents = [head.id] if head is not None else []
    sig = pygit2.Signature(*_SIGNATURE)
    oid = repo.create_commit(None, sig, sig, message, root.write(), parents)
    return oid, entries


def move_branch(repo: pygit2.Repository, oid: pygit2.Oid) -> None:
    """Point the checked-out branch at ``oid`` (git writes the ref through a lock file and a
    rename: atomic)."""
    target = repo.lookup_reference("HEAD").target
    if isinstance(target, str):
        repo.references.create(target, oid, force=True)
    else:  # a detached HEAD (never made by ogmemory, but git allows it)
        repo.set_head(oid)


def stage(repo: pygit2.Repository, entries: list[pygit2.IndexEntry]) -> None:
    """Stage the committed node files, so ``git status`` is clean after a turn."""
    index = repo.index
    index.read(False)
    head = repo.head.peel(pygit2.Commit)
    committed = len(head.tree[HISTORY].peel(pygit2.Tree)) if HISTORY in head.tree else 0
    if len(index) + len(entries) != committed:
        # A writer stopped between a commit and its index write left the index behind HEAD:
        # reset it to HEAD (O(1) check, rare O(n) repair).
        index.read_tree(head.tree)
    else:
        for entry in entries:
            index.add(entry)
    index.write()


def clear_stale_locks(repo: pygit2.Repository, session_id: str) -> None:
    """Remove git's lock files. Called while holding the cross-process lock: any git lock file
    left is from a writer that died (e.g. SIGKILL in the middle of a commit)."""
    gitdir = Path(repo.path)
    for lock in [gitdir / "index.lock", gitdir / "HEAD.lock", *gitdir.glob("refs/heads/*.lock")]:
        try:
            lock.unlink()
            log.warning("session %s: removed stale %s", session_id, lock.name)
        except FileNotFoundError:
            pass


def write_turn_context(
    path: Path,
    sha: str,
    turn: int,
    node_ids: tuple[str, ...],
    branch: str,
    context: Any,
    *,
    fsync: bool,
) -> None:
    """The turn's context view, ``context/commits/<sha>.json`` (untracked; rebuilt from git
    when missing). ``head`` is the DAG head after the turn: rendering the branch up to it gives
    the conversation the model saw; ``context`` is what the caller actually sent, if it said."""
    view = {
        "commit": sha,
        "turn": turn,
        "branch": branch,
        "node_ids": list(node_ids),
        "head": node_ids[-1] if node_ids else None,
        "context": context,
    }
    atomic_write_json(path / "context" / "commits" / f"{sha}.json", view, fsync=fsync)


def map_turns(
    repo: pygit2.Repository,
    path: Path,
    session_id: str,
    *,
    seq_of: Callable[[str], int],
    fsync: bool,
) -> dict[str, tuple[int, tuple[str, ...]]]:
    """Every turn commit of every branch: ``sha -> (turn number, node ids it added)``, read
    from the context views, or from the trees (writing the missing view) when one is gone."""
    turns: dict[str, tuple[int, tuple[str, ...]]] = {}
    for name in repo.branches.local:
        tip = repo.branches.local[name].peel(pygit2.Commit)
        order = pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE
        for turn, commit in enumerate(repo.walk(tip.id, order), start=1):
            sha = str(commit.id)
            if sha in turns:
                continue
            ctx = read_json(path / "context" / "commits" / f"{sha}.json")
            if isinstance(ctx, dict) and isinstance(ctx.get("node_ids"), list):
                node_ids = tuple(ctx["node_ids"])
            else:
                new = {n.id for n in tree_nodes(repo, commit.tree, session_id)}
                if commit.parents:
                    new -= {n.id for n in tree_nodes(repo, commit.parents[0].tree, session_id)}
                node_ids = tuple(sorted(new, key=seq_of))
                write_turn_context(path, sha, turn, node_ids, name, None, fsync=fsync)
            turns[sha] = (turn, node_ids)
    return turns


def turn_log(
    repo: pygit2.Repository,
    branch: str,
    commit_nodes: dict[str, tuple[str, ...]],
    limit: int | None,
) -> list[CommitInfo]:
    """The turn commits of ``branch``, newest first (at most ``limit``)."""
    tip = repo.branches.local[branch].peel(pygit2.Commit)
    out: list[CommitInfo] = []
    for commit in repo.walk(tip.id, pygit2.enums.SortMode.TOPOLOGICAL):
        sha = str(commit.id)
        out.append(
            CommitInfo(
                sha=sha,
                message=commit.message.strip(),
                author=commit.author.name,
                time=float(commit.commit_time),
                node_ids=commit_nodes.get(sha, ()),
                branch=branch,
            )
        )
        if limit is not None and len(out) >= limit:
            break
    return out


def worktree_nodes(path: Path, session_id: str) -> Iterable[Node]:
    """The node files of the checked-out branch (a stray or hand-edited file is logged and
    skipped)."""
    hist = path / HISTORY
    hist.mkdir(exist_ok=True)
    for entry in os.scandir(hist):
        if not entry.name.endswith(".json") or entry.name.startswith("."):
            continue
        data = read_json(Path(entry.path))
        try:
            yield Node.from_dict(data if isinstance(data, dict) else {})
        except (TypeError, ValueError, KeyError):
            log.warning("session %s: skipping unreadable node %s", session_id, entry.name)


def reserved_seq(git_dir: Path) -> int:
    """The next seq reserved in ``<git_dir>/ogmemory.next`` (0: the file is not there)."""
    try:
        return int((git_dir / _NEXT).read_bytes() or 0)
    except (FileNotFoundError, ValueError):
        return 0


def reserve_seq(git_dir: Path, next_seq: int, *, fsync: bool) -> None:
    """Reserve every seq below ``next_seq``. Writers do this (under the file lock) before they
    write the node file: one dying in between leaves a gap in the seqs, never a reuse."""
    atomic_write_bytes(git_dir / _NEXT, str(next_seq).encode(), fsync=fsync)


def history_stamp(repo: pygit2.Repository, path: Path) -> tuple[int, int, str | None, str]:
    """What changes whenever anyone (another process, or another ``GitSession`` object of this
    process after an LRU eviction) appends, commits or checks out in the session at ``path``.
    Writers reserve each node's seq in ``.git/ogmemory.next`` before writing the node, so one
    small file tells readers whether a node was added, without listing ``history/``. Sessions
    without that file fall back to counting the node files; a checkout changes the HEAD commit
    or branch."""
    counter = reserved_seq(Path(repo.path))
    count = -1
    if counter == 0:
        try:
            with os.scandir(path / HISTORY) as entries:
                count = sum(1 for e in entries if not e.name.startswith("."))
        except FileNotFoundError:
            count = 0
    try:
        head = str(repo.head.target) if not repo.head_is_unborn else None
    except pygit2.GitError:
        head = None
    return counter, count, head, branch_of(repo)


def next_seq_of(path: Path) -> int:
    """The next seq the session at ``path`` would give a node (1 for an empty one)."""
    reserved = reserved_seq(path / ".git")
    try:
        with os.scandir(path / HISTORY) as entries:
            seqs = [int(e.name.split("-", 1)[0]) for e in entries if e.name[:1].isdigit()]
    except FileNotFoundError:
        seqs = []
    return max(reserved, max(seqs, default=0) + 1)
