"""Work items from tool calls: commands run, files changed, errors fixed.

Seed 000 §6.3 insists that distillation reads the DAG, tool calls included, because that is
where "what the agent did" lives. Per turn this module writes one ``work`` summary (commands and
files, each a ``resource`` entity), and one ``case`` per error that a later run of the same
command no longer shows ("fixed the failing `pytest -q`").

Both OpenAI-style calls (``{"id", "function": {"name", "arguments": "<json>"}}``) and flat
ones (``{"id", "name", "input": {...}}``) are read. A tool result is matched to its call by
``tool_call_id``, else by ``called_by`` (the assistant node) when that node made one call.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ...entity.records import NodeRecord
from ..types import Candidate, EntityRef
from ._common import content_text

__all__ = ["extract_work"]

_SHELL_TOOLS = frozenset({"bash", "shell", "run", "run_command", "exec", "execute", "terminal",
                          "execute_command", "run_shell_command", "run_terminal_cmd", "sh",
                          "command", "local_shell", "container.exec", "run_in_terminal"})
_EDIT_TOOLS = frozenset({"write_file", "write", "edit", "edit_file", "apply_patch", "create_file",
                         "multiedit", "multi_edit", "replace", "str_replace", "str_replace_editor",
                         "str_replace_based_edit_tool", "insert", "patch", "notebookedit",
                         "update_file", "append_file", "writefile", "editfile", "save_file"})
_VIEW_COMMANDS = frozenset({"view", "read"})
_PATH_KEYS = ("path", "file_path", "filepath", "filename", "file", "target_file", "notebook_path")
_CMD_KEYS = ("command", "cmd", "script", "commands")
_PATCH_PATH = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (.+)$|^\+\+\+ (?:b/)?(.+)$",
                         re.MULTILINE)
_ERROR_RE = re.compile(
    r"Traceback \(most recent call last\)|^\s*\w*(?:Error|Exception)\b|\berror(?:\[\w+\])?:"
    r"|\bERROR\b|\bFAILED\b|\bFAIL\b|\d+\s+failed\b|exit (?:code|status)[:=]?\s*[1-9]"
    r"|non-zero exit|command not found|No such file or directory|panicked at"
    r"|[Ss]egmentation fault|Permission denied|fatal:",
    re.MULTILINE,
)
_FIRST_ERROR_LINE = re.compile(
    r"^.*(?:Error|Exception|error:|FAILED|FAIL|failed|fatal:|not found|denied).*$", re.MULTILINE
)
_CJK = re.compile(r"[\u4e00-\u9fff]")


@dataclass
class _Call:
    record: NodeRecord
    call_id: str | None
    name: str
    args: dict[str, Any]
    command: str | None = None
    files: list[str] = field(default_factory=list)

    @property
    def key(self) -> str:
        if self.command:
            return self.command
        return f"{self.name}({json.dumps(self.args, sort_keys=True, default=str)[:200]})"


def _parse_args(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            val = json.loads(raw)
        except ValueError:
            return {"_raw": raw}
        return val if isinstance(val, dict) else {"_raw": val}
    return {}


def _calls(rec: NodeRecord) -> list[_Call]:
    out = []
    for call in rec.node.tool_calls or []:
        if not isinstance(call, dict):
            continue
        fn: dict[str, Any] = call["function"] if isinstance(call.get("function"), dict) else call
        name = str(fn.get("name") or call.get("type") or "?")
        args = _parse_args(fn.get("arguments", fn.get("input", call.get("input"))))
        c = _Call(rec, call.get("id"), name, args)
        low = name.lower()
        cmd = next((args[k] for k in _CMD_KEYS if k in args), None)
        if isinstance(cmd, list):
            cmd = " ".join(str(p) for p in cmd)
        if low in _SHELL_TOOLS or (cmd is not None and low not in _EDIT_TOOLS):
            if isinstance(cmd, str) and cmd.strip():
                c.command = " ".join(cmd.split())
            elif isinstance(args.get("_raw"), str) and args["_raw"].strip():
                c.command = " ".join(args["_raw"].split())
        if low in _EDIT_TOOLS or low.endswith(("write_file", "edit_file")):
            if str(args.get("command", "")).lower() in _VIEW_COMMANDS:
                pass
            else:
                for key in _PATH_KEYS:
                    if isinstance(args.get(key), str):
                        c.files.append(args[key])
                        break
                patch = args.get("patch") or args.get("input") or args.get("_raw")
                if not c.files and isinstance(patch, str):
                    c.files.extend(a or b for a, b in _PATCH_PATH.findall(patch))
                c.command = None
        out.append(c)
    return out


def _is_error(rec: NodeRecord) -> tuple[bool, str]:
    """Whether a tool result reports a failure, and its first error line."""
    meta = rec.node.metadata or {}
    for key in ("is_error", "error"):
        if meta.get(key) is True:
            return True, str(meta.get("message", ""))[:160]
    for key in ("exit_code", "returncode", "exit_status"):
        if isinstance(meta.get(key), int):
            if meta[key] != 0:
                return True, f"exit code {meta[key]}"
            return False, ""
    text = content_text(rec.node.content) if not isinstance(rec.node.content, dict) else \
        json.dumps(rec.node.content)
    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            data = json.loads(stripped)
        except ValueError:
            data = None
        if isinstance(data, dict):
            for key in ("exit_code", "returncode", "exit_status"):
                if isinstance(data.get(key), int):
                    code = data[key]
                    out = str(data.get("stderr") or data.get("output") or "")
                    line = _FIRST_ERROR_LINE.search(out)
                    return code != 0, (line.group().strip() if line else f"exit code {code}")[:160]
            if data.get("is_error") is True or data.get("error"):
                return True, str(data.get("error") or "error")[:160]
    if _ERROR_RE.search(text):
        line = _FIRST_ERROR_LINE.search(text)
        return True, (line.group().strip() if line else "error")[:160]
    return False, ""


def _short(cmd: str, limit: int = 80) -> str:
    cmd = " ".join(cmd.split())
    return cmd if len(cmd) <= limit else cmd[: limit - 1] + "…"


def _listing(items: list[str], limit: int, zh: bool) -> str:
    shown = ", ".join(items[:limit]) if not zh else "、".join(items[:limit])
    more = len(items) - limit
    if more > 0:
        shown += f" 等 {len(items)} 项" if zh else f" and {more} more"
    return shown


def extract_work(records: Sequence[NodeRecord]) -> list[Candidate]:
    """Work summaries (one per turn) and fixed errors from the tool-call nodes of a batch."""
    by_id: dict[str, _Call] = {}
    by_node: dict[str, list[_Call]] = {}
    turns: dict[tuple[str, int], dict[str, Any]] = {}
    failing: dict[tuple[str, str], tuple[_Call, NodeRecord, str]] = {}
    edits_since: dict[str, list[_Call]] = {}
    out: list[Candidate] = []
    zh_turns: set[tuple[str, int]] = set()

    for rec in records:
        node = rec.node
        tkey = (rec.session_id, rec.turn)
        if node.role != "tool" and _CJK.search(content_text(node.content) or ""):
            zh_turns.add(tkey)
        if node.role == "assistant" and node.tool_calls:
            calls = _calls(rec)
            by_node[node.id] = calls
            turn = turns.setdefault(tkey, {"commands": [], "files": [], "nodes": [],
                                           "time": node.event_time, "failed": 0})
            turn["nodes"].append(node.id)
            for c in calls:
                if c.call_id:
                    by_id[c.call_id] = c
                if c.command and c.command not in turn["commands"]:
                    turn["commands"].append(c.command)
                for f in c.files:
                    if f not in turn["files"]:
                        turn["files"].append(f)
                if c.files:
                    edits_since.setdefault(rec.session_id, []).append(c)
        elif node.role == "tool":
            call = by_id.get(node.tool_call_id or "")
            if call is None and node.called_by in by_node and len(by_node[node.called_by]) == 1:
                call = by_node[node.called_by][0]
            if call is None:
                continue
            turn = turns.setdefault(tkey, {"commands": [], "files": [], "nodes": [],
                                           "time": node.event_time, "failed": 0})
            turn["nodes"].append(node.id)
            if not call.command and not call.files and call.name.lower() not in _SHELL_TOOLS:
                continue
            error, line = _is_error(rec)
            fkey = (rec.session_id, call.key)
            if error:
                turn["failed"] += 1
                failing[fkey] = (call, rec, line)
                edits_since[rec.session_id] = []
            elif fkey in failing:
                bad_call, bad_rec, bad_line = failing.pop(fkey)
                out.append(_fix_case(bad_call, bad_rec, bad_line, call, rec,
                                     edits_since.get(rec.session_id, []), tkey in zh_turns))
    for (session_id, turn_no), turn in turns.items():
        if not turn["commands"] and not turn["files"]:
            continue
        out.append(_summary(session_id, turn, (session_id, turn_no) in zh_turns))
    return out


def _resources(commands: list[str], files: list[str]) -> tuple[EntityRef, ...]:
    refs = [EntityRef(f, "resource", attrs={"kind": "file"}) for f in files]
    refs += [EntityRef(_short(c), "resource", attrs={"kind": "command"}) for c in commands]
    return tuple(refs)


def _summary(session_id: str, turn: dict[str, Any], zh: bool) -> Candidate:
    commands, files = turn["commands"], turn["files"]
    parts = []
    if commands:
        shown = _listing([f"`{_short(c, 60)}`" for c in commands], 4, zh)
        parts.append(f"运行了 {shown}" if zh else f"Ran {shown}")
    if files:
        shown = _listing(files, 6, zh)
        parts.append(f"修改了 {shown}" if zh else f"edited {shown}")
    text = ("；".join(parts) + "。") if zh else ("; ".join(parts) + ".")
    text = text[0].upper() + text[1:]
    return Candidate(
        type="tool", text=text, session_id=session_id, node_ids=tuple(dict.fromkeys(turn["nodes"])),
        kind="work", event_time=turn["time"], confidence=0.9,
        importance=min(0.3 + 0.05 * (len(files) + len(commands)), 0.6),
        language="zh" if zh else "en", entities=_resources(commands, files),
        attrs={"commands": commands[:20], "files": files[:50], "failures": turn["failed"]},
    )


def _fix_case(bad: _Call, bad_rec: NodeRecord, line: str, good: _Call, good_rec: NodeRecord,
              edits: list[_Call], zh: bool) -> Candidate:
    files = list(dict.fromkeys(f for c in edits for f in c.files))
    what = f"`{_short(good.command or good.name, 60)}`"
    if zh:
        text = f"修复了 {what} 的失败（{line}）"
        text += f"，修改了 {_listing(files, 4, True)}。" if files else "。"
    else:
        text = f"Fixed failing {what} ({line})"
        text += f" by editing {_listing(files, 4, False)}." if files else "."
    nodes = [bad.record.node.id, bad_rec.node.id, *(c.record.node.id for c in edits),
             good.record.node.id, good_rec.node.id]
    return Candidate(
        type="case", text=text, session_id=good_rec.session_id,
        node_ids=tuple(dict.fromkeys(nodes)), kind="work", event_time=good_rec.node.event_time,
        confidence=0.8, importance=0.7, language="zh" if zh else "en",
        entities=_resources([good.command or good.name], files),
        attrs={"command": good.command or good.name, "error": line, "files": files},
    )
