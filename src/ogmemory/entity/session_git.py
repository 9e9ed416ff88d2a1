"""One Session-Git repository (seed 001 §2-3): DAG nodes as files, one git commit per turn.

Layout of a session directory::

    <session>/
      .git/                      real git repository (``git log`` = one commit per turn)
      meta.json                  mutable metadata (untracked; shared by all branches)
      history/NNNNNN-<u|a|t>-<id>.json   immutable DAG nodes (tracked)
      context/commits/<sha>.json per-turn context view (untracked; rebuilt from git if missing)
      workdir/                   scratch space for the session (untracked)

Only ``history/`` is versioned: a retry is a git branch ``retry-<assistant_id>`` and switching
the DAG head checks that branch out, so metadata must not travel with checkouts.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pygit2

from ..errors import Conflict, InvalidInput, NotFound, SessionNotFound, StorageError
from ..limits import check_text
from ..storage.files import atomic_write_bytes, atomic_write_json, dump_json, file_lock, read_json
from ..tenancy import validate_id
from .git_plumbing import (
    HISTORY,
    branch_of,
    branch_with_node,
    clear_stale_locks,
    history_stamp,
    init_session_repo,
    map_turns,
    missed_turn,
    move_branch,
    reserve_seq,
    reserved_seq,
    stage,
    tree_nodes,
    turn_log,
    turn_objects,
    worktree_nodes,
    write_turn_context,
)
from .records import CommitInfo, Node

__all__ = ["GitSession", "is_valid_session_dir"]

log = logging.getLogger(__name__)


def is_valid_session_dir(path: Path) -> dict[str, Any] | None:
    """Seed 001 §3.2: a session is valid iff the directory exists and holds a parsable meta.json."""
    meta = read_json(path / "meta.json")
    return meta if isinstance(meta, dict) else None


class GitSession:
    """An open session repository with its in-memory node index.

    Thread safety: callers hold :attr:`lock` (re-entrant) around compound operations; every
    mutating method also takes a cross-process file lock.
    """

    def __init__(self, path: Path, session_id: str, *, fsync: bool = False) -> None:
        self.path = path
        self.session_id = session_id
        self.fsync = fsync
        self.lock = threading.RLock()
        try:
            self.repo = pygit2.Repository(str(path))
        except pygit2.GitError as exc:
            raise StorageError(f"session {session_id}: not a git repository ({exc})") from exc
        self._stamp: tuple[int, int, str | None, str] = (-1, -1, None, "")
        self._raw: dict[str, bytes] = {}  # serialised nodes not yet committed
        self._flock_depth = 0
        self._load_or_gone()

    # ------------------------------------------------------------------ creation

    @classmethod
    def create(
        cls, path: Path, session_id: str, meta: dict[str, Any], *, fsync: bool = False
    ) -> GitSession:
        """``git init`` a new session repository and write its ``meta.json`` last.

        meta.json is what makes the directory a valid session, so a crash before it leaves an
        invalid directory that discovery skips.
        """
        init_session_repo(path)
        for sub in (HISTORY, "context/commits", "workdir"):
            (path / sub).mkdir(parents=True, exist_ok=True)
        atomic_write_json(path / "meta.json", meta, fsync=fsync)
        return cls(path, session_id, fsync=fsync)

    def continue_seq(self, next_seq: int) -> None:
        """Number this (new, empty) session's nodes from ``next_seq`` on."""
        with self.lock:
            if self.nodes:
                raise InvalidInput(f"session {self.session_id} already has nodes")
            reserve_seq(Path(self.repo.path), next_seq, fsync=self.fsync)
            self._next_seq = next_seq

    # ------------------------------------------------------------------ loading

    def _history_stamp(self) -> tuple[int, int, str | None, str]:
        return history_stamp(self.repo, self.path)

    def refresh(self) -> None:
        """Reload if another process changed the repository since we last looked."""
        with self.lock:
            if self._history_stamp() != self._stamp:
                self._load_or_gone()

    def _load_or_gone(self) -> None:
        try:
            self._load()
        except (pygit2.GitError, OSError, StorageError) as exc:
            if is_valid_session_dir(self.path) is None:
                # Deleted while we read it: say so, instead of a raw git/OS error.
                raise SessionNotFound(self.session_id) from exc
            if isinstance(exc, pygit2.GitError):
                # A damaged object or reference: a storage problem of this session that
                # callers can skip and 'ogmem fsck' reports, not a raw git error.
                raise StorageError(
                    f"session {self.session_id}: its git history cannot be read ({exc})"
                ) from exc
            raise

    def _load(self) -> None:
        # Stamp first: a write that lands while we scan then shows up as a change next time,
        # instead of being hidden behind a stamp taken after it.
        stamp = self._history_stamp()
        self.nodes: dict[str, Node] = {}
        self._worktree: set[str] = set()
        for node in worktree_nodes(self.path, self.session_id):
            self.nodes[node.id] = node
            self._worktree.add(node.id)
        # Nodes of other branches live only in git objects.
        current = self.branch
        for name in self.repo.branches.local:
            if name == current:
                continue
            tree = self.repo.branches.local[name].peel(pygit2.Commit).tree
            for node in self._tree_nodes(tree):
                self.nodes.setdefault(node.id, node)
        self._load_commits()
        meta = self.read_meta()
        self.meta = meta
        self._next_seq = max((n.seq for n in self.nodes.values()), default=0) + 1
        self.head = self._initial_head(meta)
        self._stamp = stamp
        if missed_turn(self.repo, meta) is not None:
            self._repair_meta()
        if stamp[0] > self._next_seq:
            # A seq is reserved but its node file is not there yet: a writer is between the two
            # steps of an append (or died there). Look again next time instead of trusting
            # this view, or a turn committed from it could leave that node out.
            self._stamp = (-2, -2, None, "")

    def _tree_nodes(self, tree: pygit2.Tree) -> Iterable[Node]:
        return tree_nodes(self.repo, tree, self.session_id)

    def _load_commits(self) -> None:
        """Map every committed node to the turn commit that added it (all branches)."""
        turns = map_turns(
            self.repo,
            self.path,
            self.session_id,
            seq_of=lambda i: self.nodes[i].seq if i in self.nodes else 0,
            fsync=self.fsync,
        )
        self.commit_turn = {sha: turn for sha, (turn, _) in turns.items()}
        self.commit_nodes = {sha: ids for sha, (_, ids) in turns.items()}
        self.node_commit: dict[str, str] = {}
        for sha, (_, node_ids) in turns.items():
            for nid in node_ids:
                self.node_commit.setdefault(nid, sha)

    def _initial_head(self, meta: dict[str, Any]) -> str | None:
        mark = int(meta.get("head_mark", 0))
        newest = [self.nodes[i] for i in self._worktree if self.nodes[i].seq >= mark]
        if newest:
            return max(newest, key=lambda n: n.seq).id
        head = meta.get("head")
        if isinstance(head, str) and head in self.nodes:
            return head
        wt = [self.nodes[i] for i in self._worktree]
        return max(wt, key=lambda n: n.seq).id if wt else None

    def _repair_meta(self) -> None:
        """Record the turn meta.json missed (see ``missed_turn``), under the file lock, after
        looking again: the writer may still be finishing it."""
        with self.lock, self._file_lock():
            meta = self.read_meta()
            sha = missed_turn(self.repo, meta)
            if sha is None:
                self.meta = meta
                return
            commit = self.repo.get(sha)
            when = (
                float(commit.peel(pygit2.Commit).commit_time) if commit is not None else time.time()
            )
            meta.update(
                turns=self.commit_turn.get(sha, meta.get("turns", 0)),
                last_commit=sha,
                updated_at=max(float(meta.get("updated_at") or 0), when),
                head=self.head,
            )
            self._store_meta(meta)
            log.warning(
                "session %s: meta.json missed turn commit %s; repaired", self.session_id, sha[:12]
            )

    # ------------------------------------------------------------------ metadata

    def read_meta(self) -> dict[str, Any]:
        meta = read_json(self.path / "meta.json")
        if not isinstance(meta, dict):
            raise StorageError(f"session {self.session_id}: meta.json is missing or unreadable")
        return meta

    def write_meta(self, **changes: Any) -> dict[str, Any]:
        """Merge ``changes`` into meta.json atomically (read-modify-write under the file lock)."""
        return self.edit_meta(lambda _: changes) or self.meta

    def edit_meta(
        self, decide: Callable[[dict[str, Any]], dict[str, Any] | None]
    ) -> dict[str, Any] | None:
        """``decide(meta)`` returns the changes to merge, or ``None`` for none; both the read it
        sees and the write happen under the file lock, so no other process writes in between.
        Returns the new meta, or ``None`` if nothing was written."""
        with self.lock, self._file_lock():
            meta = self.read_meta()
            changes = decide(dict(meta))
            if changes is None:
                return None
            meta.update(changes)
            self._store_meta(meta)
            return meta

    def _store_meta(self, meta: dict[str, Any]) -> None:
        atomic_write_json(self.path / "meta.json", meta, fsync=self.fsync)
        self.meta = meta

    @property
    def branch(self) -> str:
        return branch_of(self.repo)

    @property
    def turns(self) -> int:
        if self.repo.head_is_unborn:
            return 0
        return self.commit_turn.get(str(self.repo.head.target), 0)

    @property
    def uncommitted(self) -> list[Node]:
        pending = (self.nodes[i] for i in self._worktree if i not in self.node_commit)
        return sorted(pending, key=lambda n: n.seq)

    def branches(self) -> list[str]:
        return sorted(self.repo.branches.local)

    # ------------------------------------------------------------------ writes

    @contextmanager
    def _file_lock(self) -> Iterator[None]:
        """The cross-process lock of this repository; re-entrant within this object (a flock
        taken twice by one process through two descriptors would wait for itself)."""
        with self.lock:
            if self._flock_depth:
                self._flock_depth += 1
                try:
                    yield
                finally:
                    self._flock_depth -= 1
                return
            with file_lock(Path(self.repo.path) / "ogmemory.lock"):
                self._flock_depth = 1
                try:
                    yield
                finally:
                    self._flock_depth = 0

    def append(self, fields: dict[str, Any]) -> Node:
        """Write one node file (synchronously, atomically) and make it the DAG head."""
        with self.lock, self._file_lock():
            self.refresh()
            node_id = fields.pop("id", None) or uuid.uuid4().hex[:12]
            validate_id(node_id, "node id")
            if node_id in self.nodes:
                raise Conflict(f"session {self.session_id}: node {node_id} already exists")
            parent_id = fields.pop("parent_id", None) or self.head
            if parent_id is not None and parent_id not in self.nodes:
                raise InvalidInput(f"session {self.session_id}: no parent node {parent_id}")
            if fields["role"] == "tool":
                fields["called_by"] = self._caller_of(parent_id, fields.get("tool_call_id"))
            now = time.time()
            fields.setdefault("event_time", now)
            seq = max(self._next_seq, reserved_seq(Path(self.repo.path)))
            # Reserve the seq first: a writer dying after this leaves a gap, never a reuse.
            reserve_seq(Path(self.repo.path), seq + 1, fsync=self.fsync)
            self._next_seq = seq
            node = Node(id=node_id, seq=seq, parent_id=parent_id, ingestion_time=now, **fields)
            raw = dump_json(node.to_dict())
            atomic_write_bytes(self.path / HISTORY / node.filename, raw, fsync=self.fsync)
            self._raw[node.id] = raw
            self._next_seq += 1
            self.nodes[node.id] = node
            self._worktree.add(node.id)
            self.head = node.id
            self._stamp = self._history_stamp()
            return node

    def _caller_of(self, parent_id: str | None, tool_call_id: str | None) -> str | None:
        nearest = None
        for node in self._ancestors(parent_id):
            if node.role != "assistant":
                continue
            nearest = nearest or node.id
            ids = {c.get("id") for c in node.tool_calls or [] if isinstance(c, dict)}
            if tool_call_id is not None and tool_call_id in ids:
                return node.id
        return nearest

    def _ancestors(self, node_id: str | None) -> Iterable[Node]:
        seen: set[str] = set()
        while node_id is not None and node_id in self.nodes and node_id not in seen:
            seen.add(node_id)
            node = self.nodes[node_id]
            yield node
            node_id = node.parent_id

    def commit(
        self, message: str, *, context: Any = None
    ) -> tuple[str | None, int, tuple[str, ...]]:
        """Commit every uncommitted node as one turn. Returns ``(sha, turn, node_ids)``.

        With nothing to commit, returns ``(None, current_turn, ())`` and makes no commit.
        Atomic across git and the files beside it: the commit object and the turn's context
        view are written first, then the branch moves (the commit point), then meta.json. A
        failure before the branch moves leaves no turn; one after it (a crash, a full disk)
        leaves meta.json behind, which the next open or commit repairs.
        """
        check_text(message, "commit message")
        check_text(context, "commit context")
        try:
            dump_json(context)
        except (TypeError, ValueError) as exc:
            raise InvalidInput(f"commit context is not JSON-serialisable: {exc}") from None
        with self.lock, self._file_lock():
            self.refresh()
            if missed_turn(self.repo, self.meta) is not None:
                self._repair_meta()
            pending = self.uncommitted
            if not pending:
                return None, self.turns, ()
            clear_stale_locks(self.repo, self.session_id)
            turn = self.turns + 1
            oid, entries = turn_objects(self.repo, message, pending, self._raw_of)
            sha = str(oid)
            node_ids = tuple(n.id for n in pending)
            write_turn_context(
                self.path, sha, turn, node_ids, self.branch, context, fsync=self.fsync
            )
            move_branch(self.repo, oid)  # the commit point: from here on the turn exists
            for node in pending:
                self._raw.pop(node.id, None)
            self.commit_turn[sha] = turn
            self.commit_nodes[sha] = node_ids
            for nid in node_ids:
                self.node_commit[nid] = sha
            stage(self.repo, entries)
            meta = self.read_meta()
            # When the conversation happened (imported history is dated in the past): listing
            # orders by it.
            last_event = max(float(n.event_time) for n in pending)
            if isinstance(meta.get("last_event_at"), (int, float)):
                last_event = max(last_event, float(meta["last_event_at"]))
            meta.update(
                updated_at=time.time(),
                turns=turn,
                head=self.head,
                head_mark=self._next_seq,
                last_commit=sha,
                last_event_at=last_event,
            )
            self._store_meta(meta)
            self._stamp = self._history_stamp()
            return sha, turn, node_ids

    def _raw_of(self, node: Node) -> bytes:
        raw = self._raw.get(node.id)
        return raw if raw is not None else (self.path / HISTORY / node.filename).read_bytes()

    # ------------------------------------------------------------------ branches

    def retry(self, assistant_id: str) -> str:
        """Start a retry of an assistant message: branch ``retry-<id>``, head = its parent."""
        with self.lock, self._file_lock():
            self.refresh()
            node = self.nodes.get(assistant_id)
            if node is None or node.role != "assistant":
                raise NotFound(f"session {self.session_id}: no assistant node {assistant_id}")
            self._require_clean("retry")
            name = f"retry-{assistant_id}"
            if name in self.repo.branches.local:
                # Regenerating the same reply again: its branch already holds the reply and
                # the earlier alternatives, so the next sibling goes there too.
                self._checkout(name)
            else:
                tip = self._commit_containing(assistant_id)
                self.repo.branches.local.create(name, tip)
                self._checkout(name)
            self._set_head(node.parent_id)
            return name

    def switch_head(self, node_id: str) -> str:
        """Make ``node_id`` the DAG head, checking out a branch that contains it."""
        with self.lock, self._file_lock():
            self.refresh()
            if node_id not in self.nodes:
                raise NotFound(f"session {self.session_id}: no node {node_id}")
            if node_id not in self._worktree:
                self._require_clean("switch head")
                target = branch_with_node(self.repo, self.session_id, node_id)
                if target is None:
                    raise NotFound(f"session {self.session_id}: node {node_id} is on no branch")
                self._checkout(target)
            self._set_head(node_id)
            return self.branch

    def checkout(self, branch: str) -> None:
        """Check out ``branch``; the head becomes its newest node."""
        with self.lock, self._file_lock():
            self.refresh()
            if branch not in self.repo.branches.local:
                raise NotFound(f"session {self.session_id}: no branch {branch}")
            self._require_clean("checkout")
            self._checkout(branch)
            newest = max((self.nodes[i] for i in self._worktree), key=lambda n: n.seq, default=None)
            self._set_head(newest.id if newest else None)

    def _commit_containing(self, node_id: str) -> pygit2.Commit:
        if node_id not in self.node_commit:
            raise Conflict(f"session {self.session_id}: node {node_id} is not committed yet")
        if node_id not in self._worktree:
            raise Conflict(
                f"session {self.session_id}: node {node_id} is on another branch; "
                "switch to it first"
            )
        return self.repo.head.peel(pygit2.Commit)

    def _require_clean(self, what: str) -> None:
        if self.uncommitted:
            raise Conflict(f"session {self.session_id}: commit the current turn before {what}")

    def _checkout(self, branch: str) -> None:
        clear_stale_locks(self.repo, self.session_id)
        ref = f"refs/heads/{branch}"
        self.repo.checkout(ref, strategy=pygit2.enums.CheckoutStrategy.FORCE)
        self._worktree = {n.id for n in self._tree_nodes(self.repo.head.peel(pygit2.Commit).tree)}

    def _set_head(self, node_id: str | None) -> None:
        self.head = node_id
        meta = self.read_meta()
        meta.update(head=node_id, head_mark=self._next_seq, branch=self.branch)
        self._store_meta(meta)
        self._stamp = self._history_stamp()

    # ------------------------------------------------------------------ reads

    def branch_nodes(self, head_id: str | None = None) -> list[Node]:
        """Nodes from the root to ``head_id`` (default: the current head), following parent ids."""
        head_id = self.head if head_id is None else head_id
        if head_id is not None and head_id not in self.nodes:
            raise NotFound(f"session {self.session_id}: no node {head_id}")
        return list(reversed(list(self._ancestors(head_id))))

    def all_nodes(self) -> list[Node]:
        return sorted(self.nodes.values(), key=lambda n: n.seq)

    def log(self, branch: str | None = None, limit: int | None = None) -> list[CommitInfo]:
        """Turn commits of ``branch`` (default: current), newest first."""
        if self.repo.head_is_unborn:
            return []
        name = branch or self.branch
        if name not in self.repo.branches.local:
            raise NotFound(f"session {self.session_id}: no branch {name}")
        return turn_log(self.repo, name, self.commit_nodes, limit)
