"""Codex CLI rollouts: ``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl``.

Each line is an envelope ``{"timestamp", "type", "payload"}``:

- ``session_meta``: the session's ``id``, ``cwd``, ``cli_version``, ``git`` (branch, commit,
  repository), base ``instructions``;
- ``turn_context``: per turn, the ``model`` (and cwd, policies);
- ``response_item``: what the model exchanged: ``message`` (user / assistant / developer),
  ``reasoning`` (left out, counted), ``function_call`` / ``custom_tool_call`` /
  ``local_shell_call`` / ``web_search_call`` and the ``*_output`` items paired by ``call_id``;
- ``event_msg``: the display log (mirrors of the above, token counts): left out, counted;
- ``compacted``: the summary that replaced the history.

The older format (mid 2025) has no envelope: line 1 is a bare header ``{id, timestamp,
instructions, git}``, ``{"record_type": "state"}`` lines mark saves, and response items stand
on their own lines, without timestamps of their own (they get the latest time seen).

Developer and system messages, and the scaffolding the CLI sends as user messages (AGENTS.md,
``<environment_context>``, ``<user_instructions>``), are not turns: they are kept in the
metadata of the next message (``preamble``). A rollout is linear: no branches.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path, PurePath
from typing import Any

from .base import session_key
from .model import (
    DEFAULT_LIMIT,
    DraftNode,
    Issue,
    ParseResult,
    SessionDraft,
    iter_lines,
    loads,
    parse_iso,
    shrink_json,
    truncate,
)

__all__ = ["AGENT_ID", "discover", "parse"]

AGENT_ID = "codex"
_UUID_IN_NAME = re.compile(
    r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$", re.IGNORECASE
)
_SCAFFOLD = re.compile(
    r"^\s*(?:<(?P<tag>environment_context|user_instructions|"
    r"permissions instructions|INSTRUCTIONS|system-reminder)>|"
    r"# (?P<agents>AGENTS\.md) instructions)"
)
_CWD = re.compile(r"<cwd>([^<]+)</cwd>")
_CALLS = ("function_call", "custom_tool_call", "local_shell_call", "web_search_call")
_OUTPUTS = ("function_call_output", "custom_tool_call_output", "local_shell_call_output")
_ENVELOPES = ("session_meta", "response_item", "event_msg", "turn_context", "compacted")


def discover(root: Path) -> list[Path]:
    """Rollout files under ``root`` (``~/.codex``, its ``sessions``, a day's folder, a file)."""
    if root.is_file():
        return [root]
    return sorted(p for p in root.rglob("rollout-*.jsonl") if p.is_file())


class _Reader:
    def __init__(self, path: str, result: ParseResult, context: dict[str, Any], limit: int) -> None:
        self.path = path
        self.result = result
        self.limit = limit
        self.session: str | None = context.get("session")
        self.model: str | None = context.get("model")
        self.last_time = float(context.get("last_time") or 0.0)
        self.preamble: list[dict[str, Any]] = list(context.get("preamble") or [])
        self.calls: dict[str, str] = dict(context.get("calls") or {})
        self.number = 0

    def context(self) -> dict[str, Any]:
        return {
            "session": self.session,
            "model": self.model,
            "last_time": self.last_time,
            "preamble": self.preamble,
            "calls": dict(list(self.calls.items())[-2000:]),
        }

    def draft(self) -> SessionDraft:
        if self.session is None:
            match = _UUID_IN_NAME.search(PurePath(self.path).name)
            raw = match.group(1) if match else PurePath(self.path).stem
            self.session = session_key("codex", raw)
        draft = self.result.session(self.session)
        draft.info.setdefault("format", "codex")
        draft.info.setdefault("source", self.path)
        if self.model:
            draft.info["model"] = self.model
        return draft

    def line(self, number: int, text: str) -> None:
        self.number = number
        if not text.strip():
            return
        try:
            obj = loads(text)
        except ValueError as exc:
            self.result.issues.append(Issue(self.path, number, "invalid JSON", str(exc)[:80]))
            return
        if not isinstance(obj, dict):
            self.result.issues.append(Issue(self.path, number, "not a JSON object"))
            return
        kind = obj.get("type")
        if kind in _ENVELOPES and "payload" in obj:
            when = parse_iso(obj.get("timestamp"), self.last_time)
            self.last_time = max(self.last_time, when)
            payload = obj["payload"] if isinstance(obj.get("payload"), dict) else {}
            self.envelope(number, str(kind), payload, when)
        elif "record_type" in obj:
            self.result.dropped["state marker"] += 1
        elif kind is None and "id" in obj and "timestamp" in obj:
            when = parse_iso(obj.get("timestamp"), self.last_time)
            self.last_time = max(self.last_time, when)
            self.meta(obj, when)
        elif isinstance(kind, str):
            when = parse_iso(obj.get("timestamp"), self.last_time)
            self.last_time = max(self.last_time, when)
            self.item(number, obj, when)
        else:
            self.result.issues.append(
                Issue(self.path, number, "not a Codex record", "no type, payload or record_type")
            )

    def envelope(self, number: int, kind: str, payload: dict[str, Any], when: float) -> None:
        if kind == "session_meta":
            self.meta(payload, when)
        elif kind == "turn_context":
            if isinstance(payload.get("model"), str):
                self.model = payload["model"]
                self.draft()
            self.result.dropped["turn context"] += 1
        elif kind == "response_item":
            self.item(number, payload, when)
        elif kind == "compacted":
            text = payload.get("message")
            if isinstance(text, str) and text.strip():
                self.add(
                    DraftNode(
                        f"L{number}",
                        "assistant",
                        text,
                        when,
                        metadata={"kind": "compaction_summary"},
                        new_turn=True,
                    )
                )
            else:
                self.result.dropped["compaction marker"] += 1
        else:
            self.result.dropped["display event"] += 1

    def meta(self, payload: dict[str, Any], when: float) -> None:
        raw = payload.get("id")
        if self.session is None and isinstance(raw, str) and raw:
            self.session = session_key("codex", raw)
        draft = self.draft()
        info = draft.info
        if draft.info.get("codex_session_id") and raw and raw != info["codex_session_id"]:
            info.setdefault("other_session_ids", []).append(raw)
        elif isinstance(raw, str):
            info.setdefault("codex_session_id", raw)
        cwd = payload.get("cwd")
        if isinstance(cwd, str) and cwd and draft.cwd is None:
            draft.cwd = cwd
            info.setdefault("cwd", cwd)
        for key in ("cli_version", "originator", "model_provider", "source"):
            if isinstance(payload.get(key), (str, int, float)):
                info[f"codex_{key}" if key == "source" else key] = payload[key]
        git = payload.get("git")
        if isinstance(git, dict):
            for key, name in (
                ("branch", "git_branch"),
                ("commit_hash", "git_commit"),
                ("repository_url", "git_remote"),
            ):
                if isinstance(git.get(key), str) and git[key]:
                    info[name] = git[key]
        instructions = payload.get("instructions")
        if isinstance(instructions, str) and instructions.strip():
            self.hold("instructions", instructions)
        self.result.dropped["session header"] += 1

    def hold(self, kind: str, text: str) -> None:
        body, meta = truncate(text, self.limit)
        self.preamble.append({"kind": kind, "text": body, **meta})

    def add(self, node: DraftNode) -> None:
        if self.preamble:
            node.metadata["preamble"] = self.preamble
            self.preamble = []
        self.draft().nodes.append(replace(node, line=self.number))

    def item(self, number: int, item: dict[str, Any], when: float) -> None:
        kind = str(item.get("type"))
        node_id = f"L{number}"
        if kind == "message":
            self.message(node_id, item, when)
        elif kind == "reasoning":
            self.result.dropped["reasoning"] += 1
        elif kind in _CALLS:
            self.call(node_id, kind, item, when)
        elif kind in _OUTPUTS:
            self.output(node_id, item, when)
        else:
            self.result.dropped[f"{kind} item"] += 1

    def message(self, node_id: str, item: dict[str, Any], when: float) -> None:
        role = item.get("role")
        text = _text(item.get("content"))
        if role in ("developer", "system"):
            if text.strip():
                self.hold(str(role), text)
            self.result.dropped["preamble"] += 1
            return
        if role == "user":
            scaffold = _SCAFFOLD.match(text)
            if scaffold:
                self.hold(scaffold.group("tag") or "AGENTS.md", text)
                cwd = _CWD.search(text)
                draft = self.draft()
                if cwd and draft.cwd is None:  # older rollouts name it only here
                    draft.cwd = draft.info["cwd"] = cwd.group(1).strip()
                self.result.dropped["preamble"] += 1
                return
        if role not in ("user", "assistant") or not text.strip():
            self.result.dropped["empty message" if text.strip() == "" else "other role"] += 1
            return
        meta: dict[str, Any] = {}
        if role == "assistant" and self.model:
            meta["model"] = self.model
        self.add(DraftNode(node_id, role, text, when, metadata=meta, new_turn=role == "user"))

    def call(self, node_id: str, kind: str, item: dict[str, Any], when: float) -> None:
        call_id = str(item.get("call_id") or item.get("id") or node_id)
        name = str(
            item.get("name")
            or {"local_shell_call": "local_shell", "web_search_call": "web_search"}.get(
                kind, "tool"
            )
        )
        if kind == "function_call":
            raw = item.get("arguments")
            try:
                args: Any = json.loads(raw) if isinstance(raw, str) else raw or {}
            except ValueError:
                args = {"_raw": raw}
        elif kind == "custom_tool_call":
            args = {"input": item.get("input")}
        else:
            args = item.get("action") or {}
        args, cut = shrink_json(args, self.limit)
        self.calls[call_id] = name
        meta: dict[str, Any] = {"arguments_truncated": True} if cut else {}
        if self.model:
            meta["model"] = self.model
        call = {
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)},
        }
        self.add(DraftNode(node_id, "assistant", None, when, tool_calls=[call], metadata=meta))

    def output(self, node_id: str, item: dict[str, Any], when: float) -> None:
        call_id = str(item.get("call_id") or node_id)
        out = item.get("output")
        meta: dict[str, Any] = {}
        if isinstance(out, str) and out.lstrip().startswith("{"):
            try:  # shell calls: {"output": "...", "metadata": {"exit_code": 0, ...}}
                parsed = json.loads(out)
            except ValueError:
                parsed = None
            if isinstance(parsed, dict) and "output" in parsed:
                info = parsed.get("metadata")
                if isinstance(info, dict) and isinstance(info.get("exit_code"), int):
                    meta["exit_code"] = info["exit_code"]
                out = parsed["output"]
        text = (
            out
            if isinstance(out, str)
            else _text(out)
            if isinstance(out, list)
            else json.dumps(out, ensure_ascii=False)
        )
        body, cut = truncate(text, self.limit)
        meta.update(cut)
        self.add(
            DraftNode(
                node_id,
                "tool",
                body or "(no output)",
                when,
                name=self.calls.get(call_id),
                tool_call_id=call_id,
                metadata=meta,
            )
        )


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for part in content if isinstance(content, list) else []:
        if isinstance(part, dict):
            if isinstance(part.get("text"), str):
                parts.append(part["text"])
            elif str(part.get("type", "")).endswith("image"):
                parts.append("[image]")
    return "\n".join(parts)


def parse(
    data: bytes,
    *,
    path: str,
    start: int = 0,
    line: int = 1,
    context: dict[str, Any] | None = None,
    limit: int = DEFAULT_LIMIT,
) -> ParseResult:
    """Read ``data[start:]`` (the bytes not imported yet) of the rollout ``path``."""
    result = ParseResult()
    reader = _Reader(path, result, context or {}, limit)
    for ln in iter_lines(data, start=start, first_line=line, path=path, result=result):
        reader.line(ln.number, ln.text)
    result.context = reader.context()
    if not result.messages and start == 0:
        result.issues.append(Issue(path, None, "empty file" if not data.strip() else "no messages"))
    return result
