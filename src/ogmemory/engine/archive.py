"""⑥ Session close: final distillation, title, and the session's archive.

The archive (``ogm://archive/<session>``, stored as the session's ``archive`` state) is what a
later session needs to pick the work up: the session's L0 abstract and L1 overview (from its
distilled memories when it has any), its title, the files it read and wrote (tool results and
the project's agent commits), the tasks still open (the last todo list a tool kept, unchecked
boxes in the last reply), and a snapshot of its state (head, turns, last commit, the project's
head, the memories it produced).
"""

from __future__ import annotations

import json
import logging
import re
import time
from typing import TYPE_CHECKING, Any

from ..entity.records import Node
from ..errors import OgmemError
from ..tenancy import format_uri
from .live import files_of, tool_calls_by_id
from .results import CloseResult

if TYPE_CHECKING:
    from .engine import ContextEngine

__all__ = ["close_session", "open_tasks"]

log = logging.getLogger(__name__)

_TODO_TOOLS = ("todowrite", "todo_write", "update_plan", "todos", "write_todos")
_DONE = ("completed", "complete", "done", "cancelled", "canceled")
_BOX = re.compile(r"^\s*[-*]\s+\[ \]\s+(.+)$", re.MULTILINE)


def open_tasks(nodes: list[Node]) -> list[str]:
    """Tasks still open: the newest todo list a tool call kept (Claude Code ``TodoWrite``,
    Codex ``update_plan``), plus unchecked ``- [ ]`` boxes in the last assistant reply."""
    tasks: list[str] = []
    for node in reversed(nodes):
        lists = [_todo_items(c) for c in node.tool_calls or [] if isinstance(c, dict)]
        found = next((items for items in lists if items is not None), None)
        if found is not None:
            tasks = found
            break
    last = next(
        (
            n
            for n in reversed(nodes)
            if n.role == "assistant" and not n.tool_calls and isinstance(n.content, str)
        ),
        None,
    )
    if last is not None:
        tasks += [m.strip() for m in _BOX.findall(last.content)]
    return list(dict.fromkeys(t for t in tasks if t))[:50]


def _todo_items(call: dict[str, Any]) -> list[str] | None:
    fn = call.get("function")
    if not isinstance(fn, dict) or str(fn.get("name", "")).lower() not in _TODO_TOOLS:
        return None
    try:
        args = json.loads(fn.get("arguments") or "{}")
    except (TypeError, ValueError):
        return None
    entries = args.get("todos") or args.get("plan") if isinstance(args, dict) else None
    if not isinstance(entries, list):
        return None
    out = []
    for entry in entries:
        if isinstance(entry, dict) and str(entry.get("status", "")).lower() not in _DONE:
            text = entry.get("content") or entry.get("step") or entry.get("title")
            if isinstance(text, str):
                out.append(text)
    return out


def _files(nodes: list[Node]) -> tuple[list[str], list[str]]:
    calls = tool_calls_by_id(nodes)
    read: dict[str, None] = {}
    written: dict[str, None] = {}
    for node in nodes:
        if node.role == "tool":
            r, w = files_of(node, calls.get(str(node.tool_call_id)))
            read.update(dict.fromkeys(r))
            written.update(dict.fromkeys(w))
    return list(read), list(written)


def _step(reasons: list[str], what: str, fn: Any) -> Any:
    """Run one best-effort step of the close; a failure is reported, never raised."""
    try:
        return fn()
    except Exception as exc:
        log.warning("session close: %s failed: %s", what, exc)
        log.debug("session close: %s failed", what, exc_info=True)
        reasons.append(f"{what} failed ({type(exc).__name__}: {exc})")
        return None


def close_session(engine: ContextEngine, sid: str, reason: str | None) -> CloseResult:
    """⑥ for a normal session: commit, distil, title, archive, mark closed (best effort)."""
    mem = engine.memory
    info = mem.get_session(sid)
    reasons: list[str] = []
    pending = mem.session_state(sid, "pending-context")
    turn = mem.commit_turn(sid, context=pending or None)
    committed = turn.turn if turn.commit else None
    if committed:
        reasons.append(f"committed the pending turn {committed}")
    report = _step(reasons, "final distillation", lambda: mem.distill([sid]))
    distilled = report.nodes if report is not None else 0
    reasons.append(
        f"final distillation: {distilled} new node(s)"
        if distilled
        else "final distillation: every turn was already distilled"
    )
    if mem.settings.llm is not None:
        titled = _step(reasons, "title generation", lambda: mem.generate_title(sid))
        if titled is not None:
            info = titled
    _step(reasons, "index sync", mem.sync_index)
    now = time.time()
    archive = _step(reasons, "archive", lambda: _archive(engine, sid, reason, now))
    mem.edit_session_state(sid, "engine", lambda s: {**s, "closed_at": now, "close_reason": reason})
    mem.edit_session_state(sid, "pending-context", lambda _: {})
    info = mem.get_session(sid)
    if archive is not None:
        reasons.append(
            f"archived as {format_uri('archive', sid)}: "
            f"{len(archive['files_read'])} file(s) read, "
            f"{len(archive['files_written'])} written, "
            f"{len(archive['open_tasks'])} open task(s)"
        )
    return CloseResult(
        sid,
        True,
        archive_uri=format_uri("archive", sid) if archive else None,
        title=info.display_title,
        distilled_nodes=distilled,
        committed_turn=committed,
        reasons=tuple(reasons),
    )


def _archive(engine: ContextEngine, sid: str, reason: str | None, now: float) -> dict[str, Any]:
    mem = engine.memory
    info = mem.get_session(sid)
    session = mem.resolve_uri(format_uri("session", sid), level=1)
    nodes = list(mem.get_branch_nodes(sid))
    read, written = _files(nodes)
    commits = []
    if info.project_id != "default":
        marker = f"[agent {sid}]"
        commits = [c for c in _project_log(engine, info.project_id) if c.message.startswith(marker)]
        for c in commits:
            written += [f for f in c.files if f not in written]
    session_log = mem.session_commits(sid, limit=1)
    memories = [
        m.id
        for m in mem.memories(include_disabled=True)
        if m.created_at >= info.created_at - 1 and _cites(engine, m.id, sid)
    ]
    archive = {
        "session_id": sid,
        "uri": format_uri("archive", sid),
        "title": info.display_title,
        "abstract": session.abstract,
        "overview": session.overview,
        "files_read": read[:200],
        "files_written": written[:200],
        "open_tasks": open_tasks(nodes),
        "closed_at": now,
        "reason": reason,
        "snapshot": {
            "turns": info.turns,
            "nodes": len(nodes),
            "head": nodes[-1].id if nodes else None,
            "last_commit": session_log[0].sha if session_log else None,
            "project_id": info.project_id,
            "project_commits": [c.sha for c in commits][:50],
            "memory_ids": memories[:200],
            "created_at": info.created_at,
            "updated_at": info.updated_at,
        },
    }

    def write(old: dict[str, Any]) -> dict[str, Any]:
        closes = [*(old.get("closes") or []), {"at": now, "reason": reason, "turns": info.turns}]
        return {**archive, "closes": closes[-50:]}

    return mem.edit_session_state(sid, "archive", write)


def _project_log(engine: ContextEngine, project_id: str) -> list[Any]:
    try:
        return list(engine.memory.project_log(project_id, 200))
    except (OgmemError, OSError) as exc:  # unbound or unreadable: tool-reported files remain
        log.info("project %s log unavailable for the archive: %s", project_id, exc)
        return []


def _cites(engine: ContextEngine, memory_id: str, sid: str) -> bool:
    return any(
        e.provenance is not None and e.provenance.session_id == sid
        for e in engine.memory.evidence(memory_id)
    )
