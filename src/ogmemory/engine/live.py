"""The live part of a session's context: the turns not yet folded into a compaction summary,
with repeated context (the same file read twice, the same tool output) shown once.

A compaction summary is a derived DAG node (``DERIVED_KEY``) placed on the branch when it was
made; it names the nodes it ``replaces`` and the summary it ``folds``. The live view of a branch
is therefore: the newest summary, then every original node no summary on the branch replaced.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..entity.provenance import DERIVED_KEY, is_derived
from ..entity.records import Node

__all__ = [
    "LiveCache",
    "LiveView",
    "dedupe",
    "files_of",
    "live_view",
    "node_tokens",
    "split_turns",
    "tool_calls_by_id",
]

#: a tool output shorter than this is never worth replacing by a pointer
_DEDUPE_MIN_CHARS = 200
_PATH_ARGS = ("file_path", "path", "notebook_path", "filename", "file")


@dataclass
class LiveView:
    """What is live on a branch: the newest summary (if any) and the unfolded nodes."""

    summary: Node | None
    nodes: list[Node]
    folded: set[str] = field(default_factory=set)


def live_view(branch: Sequence[Node]) -> LiveView:
    """Split a branch (root first) into its newest compaction summary and the live nodes."""
    return _extend(LiveView(None, []), branch)


class LiveCache:
    """Live views per session, extended by the nodes appended since the last look instead of
    computed again over the whole branch (at 1,000 turns a branch holds ~2,600 nodes, and the
    full scan was a tenth of the context assembly). The result is the one ``live_view`` gives:
    a branch that does not extend the one seen (a retry on another branch, a rewrite) is
    computed in full."""

    def __init__(self, limit: int = 256) -> None:
        self._views: dict[str, tuple[int, str, LiveView]] = {}
        self._limit = limit

    def view(self, session_id: str, branch: Sequence[Node]) -> LiveView:
        seen = self._views.get(session_id)
        if seen is not None and 0 < seen[0] <= len(branch) and branch[seen[0] - 1].id == seen[1]:
            view = _extend(seen[2], branch[seen[0] :])
        else:
            view = live_view(branch)
        if branch:
            if len(self._views) >= self._limit and session_id not in self._views:
                self._views.pop(next(iter(self._views)))
            self._views[session_id] = (len(branch), branch[-1].id, view)
        return view


def _extend(view: LiveView, new: Sequence[Node]) -> LiveView:
    """``view`` of a branch followed by ``new`` nodes (a node names its one parent, so the same
    node at the same place means the same path before it)."""
    summary, folded, nodes = view.summary, set(view.folded), list(view.nodes)
    refold = False
    for node in new:
        if is_derived(node) and node.metadata.get(DERIVED_KEY) == "compaction":
            summary = node
            replaced = node.metadata.get("replaces")
            if isinstance(replaced, list):
                folded.update(str(n) for n in replaced)
                refold = True
        elif not is_derived(node) and node.id not in folded:
            nodes.append(node)
    if refold:
        nodes = [n for n in nodes if n.id not in folded]
    return LiveView(summary, nodes, folded)


def split_turns(nodes: Sequence[Node]) -> list[list[Node]]:
    """Nodes grouped into turns: each user message starts one."""
    turns: list[list[Node]] = []
    for node in nodes:
        if not turns or node.role == "user":
            turns.append([])
        turns[-1].append(node)
    return turns


def node_tokens(
    node: Node, count: Callable[[str], int], cache: dict[str, int], text: str | None = None
) -> int:
    """Tokens of a node as sent (its text plus a few tokens of message framing)."""
    if text is not None:
        return count(text) + 4
    key = node.id
    found = cache.get(key)
    if found is None:
        found = count(node.text) + 4
        cache[key] = found
    return found


def tool_calls_by_id(nodes: Sequence[Node]) -> dict[str, dict[str, Any]]:
    """tool_call_id -> {"name", "args"} of every call on ``nodes``."""
    out: dict[str, dict[str, Any]] = {}
    for node in nodes:
        for call in node.tool_calls or []:
            fn = call.get("function") if isinstance(call, dict) else None
            if not isinstance(fn, dict):
                continue
            raw = fn.get("arguments")
            try:
                args = json.loads(raw) if isinstance(raw, str) else raw
            except ValueError:
                args = None
            out[str(call.get("id"))] = {
                "name": str(fn.get("name") or "tool"),
                "args": args if isinstance(args, dict) else {},
            }
    return out


def files_of(node: Node, call: dict[str, Any] | None = None) -> tuple[list[str], list[str]]:
    """(files read, files written) by a tool result: what the caller said (metadata), else a
    path argument of its call."""
    meta = node.metadata
    read = [str(f) for f in meta.get("files_read") or [] if isinstance(f, str)]
    written = [str(f) for f in meta.get("files_written") or [] if isinstance(f, str)]
    if not read and not written and call is not None:
        path = next(
            (call["args"][k] for k in _PATH_ARGS if isinstance(call["args"].get(k), str)), None
        )
        if path:
            name = call["name"].lower()
            (
                written if any(w in name for w in ("write", "edit", "patch", "create")) else read
            ).append(path)
    return read, written


def dedupe(nodes: Sequence[Node]) -> dict[str, str]:
    """Tool results repeated later on: node id -> the pointer text that replaces the earlier
    copy. The same file read twice keeps the newest read; the same output (same tool, same
    text) keeps the newest one."""
    calls = tool_calls_by_id(nodes)
    newest: dict[tuple[str, str], str] = {}
    replace: dict[str, str] = {}
    for node in reversed(nodes):
        if node.role != "tool":
            continue
        call = calls.get(str(node.tool_call_id))
        name = call["name"] if call else (node.name or "tool")
        read, written = files_of(node, call)
        text = node.text
        if len(read) == 1 and not written:
            key = ("read", read[0])
            note = f"[{read[0]} was read again later (node {{id}}); this older read is omitted]"
        elif len(text) >= _DEDUPE_MIN_CHARS:
            digest = hashlib.sha1(text.encode("utf-8", "replace")).hexdigest()
            key = ("output", f"{name}:{digest}")
            note = f"[same output as the later {name} call (node {{id}}); omitted]"
        else:
            continue
        if key in newest:
            replace[node.id] = note.format(id=newest[key])
        else:
            newest[key] = node.id
    return replace
