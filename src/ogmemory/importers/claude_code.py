"""Claude Code session files: ``~/.claude/projects/<project-dir>/<session-uuid>.jsonl``.

Each line is one JSON record. ``user`` and ``assistant`` lines wrap an Anthropic Messages API
``message`` and link to their parent by ``uuid``/``parentUuid``; one model response is written
as several lines (thinking, text, each ``tool_use``) sharing ``message.id``; tool results come
back as ``user`` lines of ``tool_result`` blocks, paired by ``tool_use_id``. Around them:
``progress`` (hooks, running tools), ``system`` (``compact_boundary``, whose
``logicalParentUuid`` carries the chain across a compaction), ``file-history-snapshot``,
``summary`` (a title, anchored at ``leafUuid``), ``custom-title``, ``queue-operation``.

How they become sessions (seed 001):

- a session is ``claude-<sessionId>`` (a file that continues a resumed session carries the
  original's id: its copied lines are found already recorded); the DAG comes from ``parentUuid``
  (lines left out are skipped over to their nearest kept ancestor), so a rewind (an edited earlier
  prompt) becomes a branch; tool results are recorded where the conversation is (parallel results
  answer lines that are not the chain's tip, and are not branches);
- ``tool_use`` blocks become the assistant message's ``tool_calls``, ``tool_result`` blocks
  ``tool`` messages (``called_by`` is that assistant message);
- subagents are sessions of their own, ``claude-<session>-agent-<id>``, from
  ``<session>/subagents/agent-<id>.jsonl`` or the older flat ``agent-<id>.jsonl``, and an inline
  sidechain of an old file is ``claude-<session>-side-<root uuid>``; each names its parent;
- a compaction summary is kept (an assistant message marked ``compaction_summary``, starting a
  turn);
- ``timestamp`` is the event time, ``cwd`` the project, ``gitBranch`` and the model are kept;
- thinking, progress, hook, snapshot and bookkeeping lines, and replies the CLI wrote itself
  (API errors), are left out and counted.

This module routes lines to sessions and the DAG; ``claude_code_messages`` turns each line's
message into draft nodes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path, PurePath
from typing import Any

from .base import session_key
from .blocks import as_dict
from .claude_code_messages import ClaudeMessages
from .model import (
    DEFAULT_LIMIT,
    Issue,
    ParseResult,
    SessionDraft,
    iter_lines,
    loads,
    parse_iso,
)

__all__ = ["AGENT_ID", "discover", "parse", "session_id_for"]

AGENT_ID = "claude-code"
#: Context entries kept between reads (uuid -> where it landed); older ones are re-read from
#: the file when a new line refers to them.
_INDEX_CAP = 4000
_SUBAGENT = re.compile(r"^agent-(?P<id>[A-Za-z0-9._-]+)\.jsonl$")
_DROPPED_TYPES = {
    "progress": "progress",
    "file-history-snapshot": "snapshot",
    "queue-operation": "queue operation",
    "attachment": "attachment",
}


def discover(root: Path) -> list[Path]:
    """Session files under ``root`` (a projects folder, one project's folder, or a file):
    every ``*.jsonl``, subagent files included, internal compaction agents left out."""
    if root.is_file():
        return [root]
    if (root / "projects").is_dir() and not any(root.glob("*/*.jsonl")):
        root = root / "projects"  # the Claude config folder itself (~/.claude)
    found = [
        p
        for p in root.rglob("*.jsonl")
        if p.is_file()
        and not p.name.startswith("agent-acompact-")
        and "tool-results" not in p.parts
    ]
    return sorted(found)


def session_id_for(path: PurePath, first: dict[str, Any] | None = None) -> str:
    """The session a file's lines go to: ``claude-<uuid>`` for a session file,
    ``claude-<session>-agent-<id>`` for a subagent file (nested or flat layout)."""
    match = _SUBAGENT.match(path.name)
    if match is None:
        return session_key("claude", path.stem)
    agent = match.group("id")
    parent = None
    if path.parent.name == "subagents":
        parent = path.parent.parent.name
    elif first and isinstance(first.get("sessionId"), str):
        parent = first["sessionId"]
    return session_key("claude", f"{parent}-agent-{agent}" if parent else f"agent-{agent}")


class _Reader:
    """One pass over lines; ``emit=False`` only rebuilds the uuid index (a re-read prefix)."""

    def __init__(self, path: str, result: ParseResult, context: dict[str, Any], limit: int) -> None:
        self.path = path
        self.name = PurePath(path)
        self.result = result
        self.index: dict[str, list[Any]] = dict(context.get("index") or {})
        self.messages = ClaudeMessages(
            limit, self._drop, context.get("calls"), context.get("compact")
        )
        self.last_time = float(context.get("last_time") or 0.0)
        self.main: str | None = context.get("session")
        self.subagent = bool(_SUBAGENT.match(self.name.name))
        self.emit = True
        self.seen: set[str] = set()

    # ------------------------------------------------------------------ lines

    def line(self, number: int, text: str) -> None:
        if not text.strip():
            return
        try:
            obj = loads(text)
        except ValueError as exc:
            self._issue(number, "invalid JSON", str(exc)[:80])
            return
        if not isinstance(obj, dict):
            self._issue(number, "not a JSON object")
            return
        if self.main is None:
            self.main = session_id_for(self.name, obj)
        uuid = obj.get("uuid") if isinstance(obj.get("uuid"), str) else None
        if uuid is not None:
            if uuid in self.seen or (self.emit and uuid in self.index):
                self._drop("duplicate line (uuid seen before)")
                return
            self.seen.add(uuid)
        kind = obj.get("type")
        when = parse_iso(obj.get("timestamp"), self.last_time)
        self.last_time = max(self.last_time, when) if when else self.last_time
        session = self._session_of(obj, uuid)
        parent = self._resolve(obj.get("parentUuid"), session)
        if kind == "system" and obj.get("subtype") == "compact_boundary":
            parent = self._resolve(obj.get("logicalParentUuid"), session)
            meta = obj.get("compactMetadata")
            self.messages.compact = dict(meta) if isinstance(meta, dict) else {}
            self._alias(uuid, session, parent)
            self._drop("compact boundary")
            return
        ids = uuid or f"line-{number}"  # a line without a uuid: named by its place
        if kind == "user":
            nodes = self.messages.user(obj, ids, when, parent, self.main or "")
        elif kind == "assistant":
            nodes = self.messages.assistant(obj, ids, when, parent)
        elif kind == "system" and obj.get("subtype") == "local_command":
            nodes = self.messages.command(obj, ids, when, parent)
        else:
            self._bookkeeping(obj, kind, session)
            self._alias(uuid, session, parent)
            return
        if not nodes:
            self._alias(uuid, session, parent)
            return
        self._alias(uuid, session, nodes[-1].id)
        if self.emit:
            draft = self._draft(session, obj)
            draft.nodes.extend(replace(n, line=number) for n in nodes)

    def _issue(self, number: int, reason: str, detail: str = "") -> None:
        if self.emit:
            self.result.issues.append(Issue(self.path, number, reason, detail))

    def _drop(self, reason: str) -> None:
        if self.emit:
            self.result.dropped[reason] += 1

    def _alias(self, uuid: str | None, session: str, node: str | None) -> None:
        if uuid is not None:
            self.index[uuid] = [session, node]

    def _resolve(self, ref: Any, session: str) -> str | None:
        """The kept node a parent uuid stands for (``None``: none in this session)."""
        if not isinstance(ref, str):
            return None
        hit = self.index.get(ref)
        if hit is None or hit[0] != session:
            return None
        node = hit[1]
        return node if isinstance(node, str) else None

    def _main_of(self, obj: dict[str, Any]) -> str:
        """The conversation a line belongs to: its ``sessionId`` (a file continuing a resumed
        session carries the original's, whose copied lines are then found already recorded),
        else the file's own; a subagent file is its own session."""
        main = self.main or session_id_for(self.name, obj)
        sid = obj.get("sessionId")
        if self.subagent or not isinstance(sid, str) or not sid.strip():
            return main
        return session_key("claude", sid)

    def _session_of(self, obj: dict[str, Any], uuid: str | None) -> str:
        main = self._main_of(obj)
        if self.subagent or not obj.get("isSidechain"):
            return main
        parent = obj.get("parentUuid")
        hit = self.index.get(parent) if isinstance(parent, str) else None
        if hit is not None and hit[0] != main:
            return str(hit[0])
        # The root of an inline sidechain (older files): a session of its own.
        return session_key("claude", f"{main.removeprefix('claude-')}-side-{uuid or 'x'}")

    def _draft(self, session: str, obj: dict[str, Any]) -> SessionDraft:
        draft = self.result.session(session)
        info = draft.info
        info.setdefault("format", "claude-code")
        info.setdefault("source", self.path)
        if isinstance(obj.get("sessionId"), str):
            info.setdefault("claude_session_id", obj["sessionId"])
        if self.subagent:
            parent = (
                self.name.parent.parent.name
                if self.name.parent.name == "subagents"
                else obj.get("sessionId")
            )
            if isinstance(parent, str) and parent:
                info.setdefault("parent_session", session_key("claude", parent))
        elif session != self._main_of(obj):
            info.setdefault("parent_session", self._main_of(obj))
        if isinstance(obj.get("agentId"), str):
            info.setdefault("subagent_id", obj["agentId"])
        cwd = obj.get("cwd")
        if isinstance(cwd, str) and cwd and draft.cwd is None:
            draft.cwd = cwd
            info.setdefault("cwd", cwd)
        branch = obj.get("gitBranch")
        if isinstance(branch, str) and branch:
            info["git_branch"] = branch
            seen = info.setdefault("git_branches", [])
            if branch not in seen:
                seen.append(branch)
        if isinstance(obj.get("version"), str):
            info["claude_code_version"] = obj["version"]
        model = as_dict(obj.get("message")).get("model")
        if isinstance(model, str) and model and model != "<synthetic>":
            info["model"] = model
        return draft

    # ------------------------------------------------------------------ kinds

    def _bookkeeping(self, obj: dict[str, Any], kind: Any, session: str) -> None:
        if kind in _DROPPED_TYPES:
            self._drop(_DROPPED_TYPES[str(kind)])
        elif kind == "system":
            sub = str(obj.get("subtype") or "")
            self._drop("hook" if "hook" in sub else "system")
        elif kind == "summary":
            self._summary(obj)
        elif kind == "custom-title" and isinstance(obj.get("customTitle"), str):
            if self.emit:
                draft = self.result.session(self._main_of(obj))
                draft.title, draft.title_manual = obj["customTitle"].strip()[:200], True
            self._drop("title")
        elif kind in ("ai-title", "agent-name", "last-prompt", "mode", "tag", "pr-link"):
            self._drop("title" if kind in ("ai-title", "agent-name") else "metadata")
        else:
            self._drop(f"{kind} line" if isinstance(kind, str) else "line without a type")

    def _summary(self, obj: dict[str, Any]) -> None:
        leaf = obj.get("leafUuid")
        hit = self.index.get(leaf) if isinstance(leaf, str) else None
        text = obj.get("summary")
        if hit is None or not isinstance(text, str) or not text.strip():
            self._drop("summary of another session")
            return
        self._drop("title")
        if self.emit:
            draft = self.result.session(str(hit[0]))
            if not draft.title_manual:
                draft.title = text.strip()[:200]

    # ------------------------------------------------------------------ context

    def context(self) -> dict[str, Any]:
        index = dict(list(self.index.items())[-_INDEX_CAP:])
        calls = dict(list(self.messages.calls.items())[-_INDEX_CAP:])
        return {
            "index": index,
            "calls": calls,
            "compact": self.messages.compact,
            "last_time": self.last_time,
            "session": self.main,
        }


def _refs(data: bytes, start: int) -> Iterable[str]:
    """Parent uuids the new lines name (cheap scan, no full parse)."""
    for match in re.finditer(
        rb'"(?:parentUuid|logicalParentUuid|leafUuid)":"([^"]+)"', data[start:]
    ):
        yield match.group(1).decode("utf-8", "replace")


def parse(
    data: bytes,
    *,
    path: str,
    start: int = 0,
    line: int = 1,
    context: dict[str, Any] | None = None,
    limit: int = DEFAULT_LIMIT,
) -> ParseResult:
    """Read ``data[start:]`` (the bytes not imported yet) of the Claude Code file ``path``.

    ``context`` is what the previous read left; when a new line refers to an older one it does
    not remember, the bytes before ``start`` are read again (nothing is emitted for them).
    """
    result = ParseResult()
    reader = _Reader(path, result, context or {}, limit)
    if start > 0:
        uuids = set(re.findall(rb'"uuid":"([^"]+)"', data[start:]))
        missing = {
            r for r in _refs(data, start) if r not in reader.index and r.encode() not in uuids
        }
        if missing:
            reader.emit = False
            scratch = ParseResult()
            for ln in iter_lines(data[:start], start=0, first_line=1, path=path, result=scratch):
                reader.line(ln.number, ln.text)
            reader.emit = True
            reader.seen.clear()
    for ln in iter_lines(data, start=start, first_line=line, path=path, result=result):
        reader.line(ln.number, ln.text)
    result.context = reader.context()
    if not result.messages and start == 0:
        reason = (
            "empty file"
            if not data.strip()
            else (
                "summary-only file (no messages)"
                if result.dropped.get("summary of another session") or result.dropped.get("title")
                else "no messages"
            )
        )
        result.issues.append(Issue(path, None, reason))
    return result
