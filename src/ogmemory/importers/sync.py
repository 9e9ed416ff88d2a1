"""Sync agent histories into sessions: read what is new in each source file, record it.

For each file: compare it with its sync state (``state.py``): unchanged (same size and time)
means nothing to do; a file whose start changed was written anew and is reported, never
re-imported over what is there. Otherwise its parser reads the new bytes, and each session it
found gets the new messages appended through the ``Memory`` facade, one git commit per turn as
the agent saw them (a turn starts at a prompt, at the model's answer to tool results, at a
compaction summary). Node ids come from the source, so a message already recorded is never
recorded twice. A message whose parent is not the conversation's tip is a branch (a rewind):
the turn is committed, the head moved back (``switch_head``), and a retry branch opened on the
reply being replaced (``retry``), as seed 001 records retries. Sessions bound to a project
(the agent's ``cwd``, when it is a git repository here) never commit into it: they are history.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import pygit2

from ..entity.titles import fallback_title
from ..errors import Conflict, InvalidInput, NotFound, OgmemError, SessionNotFound
from . import aider, claude_code, codex
from .model import DEFAULT_LIMIT, DraftNode, Issue, ParseResult, SessionDraft
from .report import FileOutcome, ImportReport, SessionOutcome
from .state import StateStore

if TYPE_CHECKING:
    from ..memory import Memory

__all__ = ["FORMATS", "HistorySync"]

log = logging.getLogger(__name__)


class _Parse(Protocol):
    def __call__(
        self,
        data: bytes,
        *,
        path: str,
        start: int,
        line: int,
        context: dict[str, Any] | None,
        limit: int,
    ) -> ParseResult: ...


@dataclass(frozen=True)
class _Format:
    agent_id: str
    discover: Callable[[Path], list[Path]]
    parse: _Parse


def _parse_aider(
    data: bytes, *, path: str, start: int, line: int, context: dict[str, Any] | None, limit: int
) -> ParseResult:
    sibling = Path(path).with_name(aider.INPUT_HISTORY_FILE)
    try:
        history = sibling.read_text(encoding="utf-8", errors="replace")
    except OSError:
        history = None
    return aider.parse(
        data, path=path, start=start, line=line, context=context, limit=limit, input_history=history
    )


#: The agent-history formats, by the name ``ogmem import <format>`` takes.
FORMATS: dict[str, _Format] = {
    "claude-code": _Format(claude_code.AGENT_ID, claude_code.discover, claude_code.parse),
    "codex": _Format(codex.AGENT_ID, codex.discover, codex.parse),
    "aider": _Format(aider.AGENT_ID, aider.discover, _parse_aider),
}


@dataclass
class _Live:
    """A session as this sync sees it: its nodes' roles and parents, the branch to its head."""

    session_id: str
    roles: dict[str, str] = field(default_factory=dict)
    parents: dict[str, str | None] = field(default_factory=dict)
    path: list[str] = field(default_factory=list)
    #: Position of each node on ``path`` (membership and slicing without a scan).
    pos: dict[str, int] = field(default_factory=dict)
    pending: bool = False
    turns: int = 0
    messages: int = 0

    @property
    def head(self) -> str | None:
        return self.path[-1] if self.path else None

    def set_path(self, ids: list[str]) -> None:
        self.path = ids
        self.pos = {n: i for i, n in enumerate(ids)}

    def extend(self, node_id: str) -> None:
        self.pos[node_id] = len(self.path)
        self.path.append(node_id)


class HistorySync:
    """Imports one format's files into one tenant (``Memory.import_history`` runs it)."""

    def __init__(
        self, mem: Memory, fmt: str, *, bind_projects: bool = True, limit: int = DEFAULT_LIMIT
    ) -> None:
        if fmt not in FORMATS:
            raise InvalidInput(
                f"unknown import format {fmt!r}; use one of: {', '.join(sorted(FORMATS))}"
            )
        self.mem = mem
        self.fmt = fmt
        self.spec = FORMATS[fmt]
        self.bind_projects = bind_projects
        self.limit = limit
        self.states = StateStore(mem.tenant.root, fsync=mem.settings.fsync)
        self._projects: dict[str, str | None] = {}

    # ------------------------------------------------------------------ entry points

    def files(self, paths: Iterable[str | Path]) -> tuple[list[Path], list[FileOutcome]]:
        """The files ``paths`` name (folders searched), and outcomes for paths that are not."""
        found: dict[Path, None] = {}
        missing: list[FileOutcome] = []
        for raw in paths:
            path = Path(raw).expanduser()
            if not path.exists():
                missing.append(
                    FileOutcome(
                        str(path),
                        "skipped",
                        issues=(Issue(str(path), None, "no such file or directory"),),
                    )
                )
                continue
            for item in self.spec.discover(path):
                found.setdefault(item.resolve(), None)
        return list(found), missing

    def run(
        self,
        paths: Iterable[str | Path],
        *,
        on_file: Callable[[FileOutcome, int, int], None] | None = None,
    ) -> ImportReport:
        """Sync every file under ``paths``; ``on_file(outcome, done, total)`` after each."""
        files, outcomes = self.files(paths)
        with self.states.locked():
            for done, path in enumerate(files, start=1):
                outcome = self._file(path)
                outcomes.append(outcome)
                if on_file is not None:
                    on_file(outcome, done, len(files))
        return ImportReport.of(self.fmt, outcomes)

    def upload(self, data: bytes, name: str) -> ImportReport:
        """Sync the bytes of one uploaded file named ``name``; uploading it again after it
        grew records only what is new."""
        if not name or "\x00" in name or len(name) > 1000:
            raise InvalidInput("an upload needs a file name (at most 1,000 characters)")
        with self.states.locked():
            outcome = self._sync(f"upload:{name}", name, data, None)
        return ImportReport.of(self.fmt, [outcome])

    # ------------------------------------------------------------------ one file

    def _file(self, path: Path) -> FileOutcome:
        source = str(path)
        try:
            stat = path.stat()
            state = self.states.get(self.fmt, source)
            if state.unchanged(stat):
                return FileOutcome(
                    source,
                    "unchanged",
                    tuple(SessionOutcome(s, "unchanged") for s in state.sessions),
                )
            data = path.read_bytes()
        except OSError as exc:
            return FileOutcome(
                source, "skipped", issues=(Issue(source, None, "unreadable", str(exc)),)
            )
        try:
            return self._sync(source, source, data, stat)
        except (OgmemError, OSError, ValueError, pygit2.GitError) as exc:
            # One file that cannot be recorded must not stop the others; its state is not
            # saved, so the next run tries it again (what was recorded is found by node id).
            log.warning("import of %s failed", source, exc_info=True)
            return FileOutcome(
                source, "skipped", issues=(Issue(source, None, "import failed", str(exc)[:200]),)
            )

    def _sync(
        self, source: str, name: str, data: bytes, stat: os.stat_result | None
    ) -> FileOutcome:
        state = self.states.get(self.fmt, source)
        if state.offset and not state.same_start(data):
            return FileOutcome(
                source,
                "skipped",
                tuple(SessionOutcome(s, "unchanged") for s in state.sessions),
                issues=(
                    Issue(
                        source,
                        None,
                        "rewritten since the last import",
                        f"its first {state.head_len} bytes changed or it shrank below the "
                        f"{state.offset} bytes imported; not re-imported",
                    ),
                ),
            )
        result = self.spec.parse(
            data,
            path=name,
            start=state.offset,
            line=state.line + 1,
            context=state.context,
            limit=self.limit,
        )
        issues = list(result.issues)
        sessions = [self._session(draft, issues) for draft in result.sessions.values()]
        done = [s for s in sessions if s is not None]
        self.states.put(
            self.fmt,
            state.after(
                data,
                stat,
                offset=result.end,
                line=result.lines,
                sessions=tuple(s.session_id for s in done),
                context=result.context,
            ),
        )
        status: Any = "unchanged"
        if any(s.status == "new" for s in done):
            status = "new"
        elif any(s.status == "updated" for s in done):
            status = "updated"
        elif not state.offset and not done:
            status = "empty"
        return FileOutcome(source, status, tuple(done), dict(result.dropped), tuple(issues))

    # ------------------------------------------------------------------ one session

    def _session(self, draft: SessionDraft, issues: list[Issue]) -> SessionOutcome | None:
        sid = draft.session_id
        try:
            info = self.mem.get_session(sid)
            created = False
        except SessionNotFound:
            if not draft.nodes:
                return None
            self.mem.create_session(sid, agent_id=self.spec.agent_id, model=draft.info.get("model"))
            info = self.mem.get_session(sid)
            created = True
        except OgmemError as exc:
            issues.append(
                Issue(draft.info.get("source", sid), None, "session not usable", f"{sid}: {exc}")
            )
            return None
        origin = info.meta.get("import")
        ours = isinstance(origin, dict) and origin.get("format") == self.fmt
        if not created and not ours and info.turns == 0 and not self.mem.get_nodes(sid):
            created = True  # an import that died right after creating it left it empty
        elif not created and not ours:
            issues.append(
                Issue(
                    str(draft.info.get("source", sid)),
                    None,
                    "session id taken",
                    f"{sid} exists and was not imported from {self.fmt}",
                )
            )
            return None
        self._describe(draft, info.meta, created)
        live = self._live(sid)
        for node in draft.nodes:
            try:
                self._record(live, node)
            except OgmemError as exc:
                issues.append(
                    Issue(
                        str(draft.info.get("source", sid)),
                        node.line,
                        "message not recorded",
                        f"{node.id}: {exc}",
                    )
                )
        self._commit(live)
        if created:
            return SessionOutcome(sid, "new", live.turns, live.messages)
        return SessionOutcome(
            sid, "updated" if live.messages else "unchanged", live.turns, live.messages
        )

    def _describe(self, draft: SessionDraft, meta: dict[str, Any], created: bool) -> None:
        """Session metadata from the source: where it came from, its title, its project."""
        sid = draft.session_id
        raw = meta.get("import")
        before: dict[str, Any] = raw if isinstance(raw, dict) else {}
        info = {**before, **draft.info, "format": self.fmt}
        branches = [*before.get("git_branches", []), *draft.info.get("git_branches", [])]
        if branches:
            info["git_branches"] = list(dict.fromkeys(branches))
        changes: dict[str, Any] = {"import": info}
        if draft.title and not draft.title_manual and not meta.get("title_manual"):
            changes.update(title=draft.title, _titled=True)
        elif created and not draft.title:
            # The first prompt, not a command (/add, /model) or a summary, names it.
            first = next(
                (
                    n
                    for n in draft.nodes
                    if n.role == "user"
                    and isinstance(n.content, str)
                    and not n.metadata.get("kind")
                ),
                None,
            )
            if first is not None:
                changes["title"] = fallback_title(first.content)
        self.mem.sessions.write_meta(sid, **changes)
        if draft.title and draft.title_manual and draft.title != meta.get("title"):
            self.mem.rename_session(sid, draft.title)
        if created and self.bind_projects and draft.cwd:
            project = self._project(draft.cwd)
            if project is not None:
                self.mem.update_session(sid, project_id=project)

    def _project(self, cwd: str) -> str | None:
        """The registered project for the git repository holding ``cwd`` (``None`` when
        there is none here: the history came from another machine, or the folder is gone)."""
        if cwd not in self._projects:
            project = None
            try:
                found = pygit2.discover_repository(cwd) if Path(cwd).is_dir() else None
                workdir = pygit2.Repository(found).workdir if found else None
                if workdir:
                    project = self.mem.resolve_project(workdir).project_id
            except (pygit2.GitError, OSError, OgmemError) as exc:
                log.info("not binding %s to a project: %s", cwd, exc)
            self._projects[cwd] = project
        return self._projects[cwd]

    def _live(self, sid: str) -> _Live:
        live = _Live(sid)
        for node in self.mem.get_nodes(sid):
            live.roles[node.id] = node.role
            live.parents[node.id] = node.parent_id
        live.set_path([n.id for n in self.mem.get_branch_nodes(sid)])
        # An import that died mid-turn left nodes uncommitted: the next commit takes them.
        live.pending = True
        return live

    # ------------------------------------------------------------------ one message

    def _record(self, live: _Live, node: DraftNode) -> None:
        if node.id in live.roles:
            return  # recorded by an earlier import
        fork = self._needs_fork(live, node)
        starts = (
            fork
            or node.new_turn
            or node.role == "user"
            or (
                node.role == "assistant"
                and live.head is not None
                and live.roles.get(live.head) == "tool"
            )
        )
        if starts:
            self._commit(live)
        if fork:
            assert node.parent is not None
            self._fork(live, node.parent)
        self.mem.append_message(live.session_id, node.message(with_parent=fork))
        live.pending = True
        live.messages += 1
        live.roles[node.id] = node.role
        parent = node.parent if fork else live.head
        live.parents[node.id] = parent
        live.extend(node.id)

    def _needs_fork(self, live: _Live, node: DraftNode) -> bool:
        """Whether ``node`` answers something other than the conversation's tip: a rewind.

        Tool results are recorded at the tip (parallel calls answer lines that are not the
        tip); a parent on the current path with no prompt after it is the same conversation
        (a line skipped over), not a branch.
        """
        parent = node.parent
        if node.role == "tool" or parent is None or parent == live.head:
            return False
        if parent not in live.roles:
            return False  # its parent was not recorded: continue where the conversation is
        if parent in live.pos:
            after = live.path[live.pos[parent] + 1 :]
            return any(live.roles.get(n) == "user" for n in after)
        return True

    def _fork(self, live: _Live, parent: str) -> None:
        """Make ``parent`` the head on a git branch of its own (seed 001: retry = branch)."""
        sid = live.session_id
        self.mem.switch_head(sid, parent)
        children = [n for n, p in live.parents.items() if p == parent]
        replaced = self._first_reply(live, children)
        if replaced is not None:
            try:
                self.mem.retry(sid, replaced)
                if [n.id for n in self.mem.get_branch_nodes(sid)][-1:] != [parent]:
                    self.mem.switch_head(sid, parent)
            except (Conflict, NotFound) as exc:  # not on this branch: a plain DAG fork
                log.debug("session %s: no retry branch for %s: %s", sid, replaced, exc)
                self.mem.switch_head(sid, parent)
        live.set_path([n.id for n in self.mem.get_branch_nodes(sid)])

    def _first_reply(self, live: _Live, children: list[str]) -> str | None:
        """The first assistant message under ``children`` (breadth first): the reply the
        branch replaces."""
        queue = list(children)
        seen: set[str] = set()
        while queue:
            node = queue.pop(0)
            if node in seen:
                continue
            seen.add(node)
            if live.roles.get(node) == "assistant":
                return node
            queue.extend(n for n, p in live.parents.items() if p == node)
        return None

    def _commit(self, live: _Live) -> None:
        if not live.pending:
            return
        result = self.mem.commit_turn(live.session_id)
        if result.commit is not None:
            live.turns += 1
        live.pending = False
