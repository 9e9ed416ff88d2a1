"""The messages of Claude Code lines as draft nodes (see :mod:`.claude_code` for the file).

A ``user`` line holds a prompt (or a slash command) and ``tool_result`` blocks; an
``assistant`` line holds text, thinking and ``tool_use`` blocks (server tools answer in the same
line); a ``system`` ``local_command`` line holds a command typed at the prompt; the line after a
compaction boundary holds its summary. Thinking, meta lines and the output the CLI itself wrote
are left out and counted through ``drop``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .base import session_key
from .blocks import as_dict, block_text, text_of
from .model import DraftNode, shrink_json, truncate

__all__ = ["ClaudeMessages"]

_COMMAND = re.compile(r"<command-name>\s*(?P<name>[^<]*?)\s*</command-name>")
_COMMAND_ARGS = re.compile(r"<command-args>(?P<args>.*?)</command-args>", re.DOTALL)
_AGENT_IN_RESULT = re.compile(r"\bagent_?[iI]d:\s*(?P<id>[A-Za-z0-9@._-]+)")
_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
_REPLY_META = (("model", "model"), ("id", "message_id"), ("stop_reason", "stop_reason"))


class ClaudeMessages:
    """Draft nodes from the message of one line at a time. Remembers each tool call's name (to
    name its result, which arrives in a later line) in ``calls``, and the metadata of the last
    compaction boundary (for the summary that follows it) in ``compact``."""

    def __init__(
        self,
        limit: int,
        drop: Callable[[str], None],
        calls: dict[str, str] | None = None,
        compact: dict[str, Any] | None = None,
    ) -> None:
        self.limit = limit
        self.drop = drop
        self.calls: dict[str, str] = dict(calls or {})
        self.compact = compact

    # ------------------------------------------------------------------ user lines

    def user(
        self, obj: dict[str, Any], uuid: str | None, when: float, parent: str | None, main: str
    ) -> list[DraftNode]:
        """A user line: its tool results, then its prompt (``main``: the file's session)."""
        content = as_dict(obj.get("message")).get("content")
        if obj.get("isMeta"):
            self.drop("meta")
            return []
        if obj.get("isCompactSummary"):
            return [self._compact_summary(text_of(content), uuid, when, parent)]
        ids = _Ids(uuid, when)
        nodes: list[DraftNode] = []
        texts: list[str] = []
        for block in content if isinstance(content, list) else [content]:
            if isinstance(block, str):
                texts.append(block)
            elif isinstance(block, dict) and block.get("type") == "tool_result":
                nodes.append(self._result(block, obj, ids.next(), when, main))
            elif isinstance(block, dict):
                part = block_text(block)
                if part:
                    texts.append(part)
        text = "\n".join(t for t in texts if t)
        if text.strip():
            node = self._prompt(text, ids.next(), when, parent, obj)
            if node is not None:
                nodes.append(node)
        elif not nodes:
            self.drop("empty message")
        return nodes

    def command(
        self, obj: dict[str, Any], uuid: str | None, when: float, parent: str | None
    ) -> list[DraftNode]:
        """A ``local_command`` system line: the command typed, as a prompt."""
        content = obj.get("content")
        node = None
        if isinstance(content, str) and content.strip():
            node = self._prompt(content, uuid or f"cmd-{when}", when, parent, obj)
        if node is None:
            self.drop("command output" if isinstance(content, str) else "system")
            return []
        return [node]

    def _compact_summary(
        self, text: str, uuid: str | None, when: float, parent: str | None
    ) -> DraftNode:
        meta: dict[str, Any] = {"kind": "compaction_summary"}
        for key, name in (("trigger", "trigger"), ("preTokens", "pre_tokens")):
            if self.compact and key in self.compact:
                meta[name] = self.compact[key]
        self.compact = None
        node_id = uuid or f"compact-{when}"
        content = text or "(empty summary)"
        return DraftNode(node_id, "assistant", content, when, parent, metadata=meta, new_turn=True)

    def _prompt(
        self, text: str, node_id: str, when: float, parent: str | None, obj: dict[str, Any]
    ) -> DraftNode | None:
        stripped = text.strip()
        if stripped.startswith(("<local-command-stdout>", "<local-command-stderr>")):
            self.drop("command output")
            return None
        if stripped.startswith("<local-command-caveat>"):
            self.drop("meta")
            return None
        meta: dict[str, Any] = {}
        match = _COMMAND.search(stripped)
        if match and stripped.startswith(("<command-", "<command-name>")):
            args = _COMMAND_ARGS.search(stripped)
            name = match.group("name")
            name = name if name.startswith("/") else "/" + name
            text = f"{name} {args.group('args').strip() if args else ''}".strip()
            meta["kind"] = "command"
        if obj.get("permissionMode"):
            meta["permission_mode"] = obj["permissionMode"]
        return DraftNode(node_id, "user", text, when, parent, metadata=meta, new_turn=True)

    def _result(
        self, block: dict[str, Any], obj: dict[str, Any], node_id: str, when: float, main: str
    ) -> DraftNode:
        call_id = str(block.get("tool_use_id") or f"unknown-{node_id}")
        text, meta = truncate(text_of(block.get("content")), self.limit)
        if block.get("is_error") is True:
            meta["is_error"] = True
        extra = obj.get("toolUseResult")
        agent = extra.get("agentId") if isinstance(extra, dict) else None
        if not isinstance(agent, str) and self.calls.get(call_id) in ("Task", "Agent"):
            found = _AGENT_IN_RESULT.search(text)
            agent = found.group("id") if found else None
        if isinstance(agent, str) and main:
            claude_session = str(obj.get("sessionId") or main.removeprefix("claude-"))
            meta["subagent_session"] = session_key("claude", f"{claude_session}-agent-{agent}")
        name = self.calls.get(call_id)
        body = text or "(no output)"
        return DraftNode(
            node_id, "tool", body, when, None, name=name, tool_call_id=call_id, metadata=meta
        )

    # ------------------------------------------------------------------ assistant lines

    def assistant(
        self, obj: dict[str, Any], uuid: str | None, when: float, parent: str | None
    ) -> list[DraftNode]:
        """An assistant line: its reply with the tool calls, then any server tool results."""
        message = as_dict(obj.get("message"))
        if obj.get("isApiErrorMessage") or message.get("model") == "<synthetic>":
            self.drop("API error or synthetic message")  # written by the CLI, not the model
            return []
        content = message.get("content")
        reply = self._reply(content if isinstance(content, list) else [content], uuid)
        if not reply.text and not reply.calls:
            self.drop("thinking" if reply.thinking else "empty message")
            return []
        meta: dict[str, Any] = {
            name: message[key] for key, name in _REPLY_META if isinstance(message.get(key), str)
        }
        if reply.thinking:
            meta["thinking_dropped"] = True
        if reply.cut:
            meta["arguments_truncated"] = True
        ids = _Ids(uuid, when)
        calls = reply.calls or None
        text = reply.text or None
        nodes = [
            DraftNode(ids.next(), "assistant", text, when, parent, tool_calls=calls, metadata=meta)
        ]
        for block in reply.results:
            body, rmeta = truncate(text_of(block.get("content")), self.limit)
            call_id = block.get("tool_use_id")
            nodes.append(
                DraftNode(
                    ids.next(),
                    "tool",
                    body or "(no output)",
                    when,
                    None,
                    name=self.calls.get(str(call_id)),
                    tool_call_id=str(call_id or "server"),
                    metadata=rmeta,
                )
            )
        return nodes

    def _reply(self, blocks: list[Any], uuid: str | None) -> _Reply:
        """What an assistant line's blocks hold (the tool calls' names are remembered)."""
        reply = _Reply()
        texts: list[str] = []
        for block in blocks:
            if isinstance(block, str):
                texts.append(block)
                continue
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
            elif kind in ("thinking", "redacted_thinking"):
                reply.thinking = True
            elif kind in ("tool_use", "server_tool_use"):
                reply.calls.append(self._tool_call(block, uuid, len(reply.calls), reply))
            elif isinstance(kind, str) and kind.endswith("_tool_result"):
                reply.results.append(block)
        reply.text = "\n".join(t for t in texts if t).strip()
        return reply

    def _tool_call(
        self, block: dict[str, Any], uuid: str | None, index: int, reply: _Reply
    ) -> dict[str, Any]:
        args, was_cut = shrink_json(block.get("input") or {}, self.limit)
        reply.cut = reply.cut or was_cut
        call_id = str(block.get("id") or f"call-{uuid}-{index}")
        name = str(block.get("name") or "tool")
        self.calls[call_id] = name
        arguments = json.dumps(args, ensure_ascii=False)
        return {
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": arguments},
        }


@dataclass
class _Reply:
    """The blocks of one assistant line, sorted out."""

    text: str = ""
    calls: list[dict[str, Any]] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)
    thinking: bool = False
    cut: bool = False


class _Ids:
    """Node ids of one line: its uuid, then ``<uuid>-2``, ``<uuid>-3``..."""

    def __init__(self, uuid: str | None, when: float) -> None:
        base = uuid or f"t{int(when * 1000)}"
        if not _SAFE_ID.fullmatch(base):  # it becomes part of a file name
            base = "h" + hashlib.sha1(base.encode()).hexdigest()[:24]
        self.base = base
        self.count = 0

    def next(self) -> str:
        self.count += 1
        return self.base if self.count == 1 else f"{self.base}-{self.count}"
