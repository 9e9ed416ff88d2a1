"""What the agent-history parsers produce, and the helpers they share.

A parser reads the new bytes of one source file and yields ``ParseResult``: the sessions it
found (``SessionDraft``, each with ``DraftNode`` messages in file order), the lines it left out
on purpose (counted by reason), the lines it could not read (``Issue``: file, line, reason), how
far it consumed the file, and the small context it needs to go on from there next time.
``importers.sync`` turns that into git-backed sessions.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..entity.records import Role

__all__ = [
    "DEFAULT_LIMIT",
    "DraftNode",
    "Issue",
    "Line",
    "ParseResult",
    "SessionDraft",
    "iter_lines",
    "loads",
    "parse_iso",
    "shrink_json",
    "truncate",
]

#: Tool output and tool arguments longer than this many characters are cut (head and tail kept).
DEFAULT_LIMIT = 20_000


@dataclass(frozen=True)
class Issue:
    """A line (or a whole file, ``line=None``) that was reported and skipped."""

    path: str
    line: int | None
    reason: str
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "reason": self.reason, "detail": self.detail}

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        return f"{where}: {self.reason}" + (f" ({self.detail})" if self.detail else "")


@dataclass(frozen=True)
class DraftNode:
    """One message to record. ``id`` is stable (derived from the source), so a re-import finds
    it already there. ``parent`` is the id of the node it answers (``None``: the session's
    current head); a tool result is always recorded at the head (parallel results are not
    branches)."""

    id: str
    role: Role
    content: Any
    event_time: float
    parent: str | None = None
    name: str | None = None
    tool_calls: list[dict[str, Any]] | None = None
    tool_call_id: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    #: A turn starts here whatever the roles say (a compaction summary, a new prompt).
    new_turn: bool = False
    #: The source line it came from (for reports).
    line: int | None = None

    def message(self, *, with_parent: bool) -> dict[str, Any]:
        """The OpenAI-style message ``Memory.append_message`` takes."""
        msg: dict[str, Any] = {
            "id": self.id,
            "role": self.role,
            "content": self.content,
            "event_time": self.event_time,
        }
        if with_parent and self.parent is not None:
            msg["parent_id"] = self.parent
        for key in ("name", "tool_calls", "tool_call_id"):
            value = getattr(self, key)
            if value is not None:
                msg[key] = value
        if self.metadata:
            msg["metadata"] = self.metadata
        return msg


@dataclass
class SessionDraft:
    """A session found in a source file, and what this read added to it."""

    session_id: str
    title: str | None = None
    #: The user named it (Claude Code's /rename): a manual title, never replaced.
    title_manual: bool = False
    info: dict[str, Any] = field(default_factory=dict)
    nodes: list[DraftNode] = field(default_factory=list)
    #: Project directory the agent worked in (bound when it is a git repository here).
    cwd: str | None = None


@dataclass
class ParseResult:
    """What one read of a source file found."""

    sessions: dict[str, SessionDraft] = field(default_factory=dict)
    issues: list[Issue] = field(default_factory=list)
    dropped: Counter[str] = field(default_factory=Counter)
    #: Byte offset up to which the file was consumed (complete lines only).
    end: int = 0
    #: Lines consumed so far (the next line's number is ``lines + 1``).
    lines: int = 0
    context: dict[str, Any] = field(default_factory=dict)

    @property
    def messages(self) -> int:
        """Messages found in this read, over every session."""
        return sum(len(d.nodes) for d in self.sessions.values())

    def session(self, session_id: str) -> SessionDraft:
        draft = self.sessions.get(session_id)
        if draft is None:
            draft = self.sessions[session_id] = SessionDraft(session_id)
        return draft


@dataclass(frozen=True)
class Line:
    """One complete line of a source file: its number, byte offset and text."""

    number: int
    offset: int
    text: str


def iter_lines(
    data: bytes,
    *,
    start: int,
    first_line: int,
    path: str,
    result: ParseResult,
    final_json: bool = True,
) -> Iterator[Line]:
    """The complete lines of ``data[start:]``; ``result.end``/``result.lines`` advance past each.

    The last line without a newline is consumed only when ``final_json`` and it parses as JSON
    (a writer appends a whole line at once); otherwise it is left for the next read and reported
    as a truncated last line. Lines that are not UTF-8 are reported and skipped.
    """
    pos = start
    number = first_line
    result.end, result.lines = start, first_line - 1
    size = len(data)
    while pos < size:
        nl = data.find(b"\n", pos)
        raw = data[pos:size] if nl < 0 else data[pos:nl]
        nxt = size if nl < 0 else nl + 1
        if nl < 0 and not (final_json and _is_json(raw)):
            if raw.strip():
                result.issues.append(
                    Issue(path, number, "truncated last line", "left for the next import")
                )
            return
        try:
            text = raw.decode("utf-8").rstrip("\r")
        except UnicodeDecodeError as exc:
            result.issues.append(Issue(path, number, "not UTF-8", str(exc)[:80]))
            text = None
        result.end, result.lines = nxt, number
        if text is not None:
            yield Line(number, pos, text)
        pos, number = nxt, number + 1


def _is_json(raw: bytes) -> bool:
    try:
        loads(raw)
    except ValueError:
        return False
    return True


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def loads(text: str | bytes) -> Any:
    """``json.loads`` that refuses NaN and Infinity (they could never be stored again)."""
    return json.loads(text, parse_constant=_no_constant)


def parse_iso(value: Any, fallback: float) -> float:
    """Epoch seconds from an ISO-8601 string or epoch number (milliseconds accepted), else
    ``fallback``; naive times are local, as the tools that write them meant."""
    if isinstance(value, bool):
        return fallback
    if isinstance(value, (int, float)):
        seconds = float(value) / 1000 if value > 1e11 else float(value)
        return seconds if 0 <= seconds < 1e11 else fallback
    if isinstance(value, str) and value.strip():
        try:
            dt = datetime.fromisoformat(value.strip())
        except ValueError:
            return fallback
        return dt.timestamp()
    return fallback


def truncate(text: str, limit: int = DEFAULT_LIMIT) -> tuple[str, dict[str, Any]]:
    """``text`` cut to about ``limit`` characters (its head and tail, a marker between), and the
    metadata that says so (empty when nothing was cut).

    >>> truncate("x" * 10, 4)
    ('xxx\\n[… 6 of 10 characters cut by ogmemory …]\\nx', {'truncated': True, 'full_chars': 10})
    """
    if len(text) <= limit:
        return text, {}
    head = max(1, limit * 3 // 4)
    tail = max(1, limit - head)
    cut = len(text) - head - tail
    marker = f"\n[… {cut} of {len(text)} characters cut by ogmemory …]\n"
    return text[:head] + marker + text[-tail:], {"truncated": True, "full_chars": len(text)}


def shrink_json(value: Any, limit: int = DEFAULT_LIMIT) -> tuple[Any, bool]:
    """``value`` with every string longer than ``limit`` truncated (JSON stays valid), and
    whether anything was cut. Tool arguments carry whole files (a write) this way."""
    if isinstance(value, str):
        text, meta = truncate(value, limit)
        return text, bool(meta)
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        cut = False
        for key, item in value.items():
            out[str(key)], was = shrink_json(item, limit)
            cut = cut or was
        return out, cut
    if isinstance(value, list):
        items = [shrink_json(item, limit) for item in value]
        return [i for i, _ in items], any(c for _, c in items)
    return value, False
