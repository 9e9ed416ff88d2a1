"""Work items from tool calls: commands run, files changed, errors fixed.

Seed 000 §6.3 insists that distillation reads the DAG, tool calls included, because that is
where "what the agent did" lives. Per turn this module writes one ``work`` event that says what
was achieved, in the agent's own words when its answer says so ("Pinned numpy below 2 in
requirements.txt; the suite passes now"), with the cause it named and the error a later run of
the same command no longer shows ("Fixed a failing pytest run: ..."). Commands and files go to
the event's attributes (and files to ``resource`` entities); the text never lists raw commands,
so one memory stands for one turn of work, not one per command.

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
from ._grammar import IRREGULAR_PAST
from ._work_request import requested

__all__ = ["extract_work"]

_SHELL_TOOLS = frozenset(
    {
        "bash",
        "shell",
        "run",
        "run_command",
        "exec",
        "execute",
        "terminal",
        "execute_command",
        "run_shell_command",
        "run_terminal_cmd",
        "sh",
        "command",
        "local_shell",
        "container.exec",
        "run_in_terminal",
    }
)
_EDIT_TOOLS = frozenset(
    {
        "write_file",
        "write",
        "edit",
        "edit_file",
        "apply_patch",
        "create_file",
        "multiedit",
        "multi_edit",
        "replace",
        "str_replace",
        "str_replace_editor",
        "str_replace_based_edit_tool",
        "insert",
        "patch",
        "notebookedit",
        "update_file",
        "append_file",
        "writefile",
        "editfile",
        "save_file",
    }
)
_VIEW_COMMANDS = frozenset({"view", "read"})
_PATH_KEYS = ("path", "file_path", "filepath", "filename", "file", "target_file", "notebook_path")
_CMD_KEYS = ("command", "cmd", "script", "commands")
_PATCH_PATH = re.compile(
    r"^\*\*\* (?:Update|Add|Delete) File: (.+)$|^\+\+\+ (?:b/)?(.+)$", re.MULTILINE
)
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
    text = (
        content_text(rec.node.content)
        if not isinstance(rec.node.content, dict)
        else json.dumps(rec.node.content)
    )
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
    said: dict[tuple[str, int], list[NodeRecord]] = {}
    fixes: dict[tuple[str, int], list[tuple[str, str]]] = {}

    for rec in records:
        node = rec.node
        tkey = (rec.session_id, rec.turn)
        if node.role != "tool" and _CJK.search(content_text(node.content) or ""):
            zh_turns.add(tkey)
        if node.role in ("user", "assistant") and content_text(node.content).strip():
            said.setdefault(tkey, []).append(rec)
        if node.role == "assistant" and node.tool_calls:
            calls = _calls(rec)
            by_node[node.id] = calls
            turn = turns.setdefault(
                tkey,
                {"commands": [], "files": [], "nodes": [], "time": node.event_time, "failed": 0},
            )
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
            turn = turns.setdefault(
                tkey,
                {"commands": [], "files": [], "nodes": [], "time": node.event_time, "failed": 0},
            )
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
                fixes.setdefault(tkey, []).append((bad_call.command or bad_call.name, bad_line))
                turn["nodes"].extend([bad_call.record.node.id, bad_rec.node.id])
    for (session_id, turn_no), turn in turns.items():
        if not turn["commands"] and not turn["files"]:
            continue
        key = (session_id, turn_no)
        out.append(
            _summary(
                session_id, turn_no, turn, key in zh_turns, said.get(key, []), fixes.get(key, [])
            )
        )
    return out


_ACTION_EN = re.compile(
    r"^(?:I\s+(?:have\s+|'ve\s+|just\s+|also\s+|then\s+)*(?P<v>[a-z]+ed|"
    + "|".join(sorted(IRREGULAR_PAST, key=len, reverse=True))
    + r"|set\s+up)\b"
    r"|(?P<v2>(?:[A-Z][a-z]+ed|Made|Wrote|Set(?:\s+up)?|Built|Rewrote|Put|Split|Cut|Ran)\b))"
)
_FIX_SAID = re.compile(r"(?i)\bfix(?:es|ed)?\b|\bsolv|\bresolv|\bpass(?:es|ed)?\b|\bworks\b")
# "raising the memory limit to 512Mi let the rollout finish", "which got the build green
# again": a clause that says what the change achieved, without the word "fix"
_REMEDY = re.compile(
    r"(?i)^(?:[a-z]+ing|adding|moving|which|that|this|the\s+change|the\s+new\s+\w+)\b.*\b(?:lets?"
    r"|made|makes|got|gets|brought|brings|keeps|kept|stops|stopped|removes|removed|unblocks"
    r"|unblocked|cures|cured|clears|cleared)\b"
    r"|\b(?:finish(?:es|ed)?|succeed(?:s|ed)?|green|again|builds?\s+clean|runs?\s+fine)\b\W*$"
    # "Readiness now uses /v2/health/ready": what the edited thing does now
    r"|^[\w/.-]+(?:\s+[\w/.-]+){0,3}\s+now\s+(?:uses|points\s+(?:to|at)|hits|goes\s+to|reads|calls)\b"
)
# a cause: "because ...", "... failed", and a fault followed by what it did (", so the race
# detector tripped", "didn't reference it, so X couldn't see Y")
_CAUSE_EN = re.compile(
    r"(?i)\bbecause\b|\bdue\s+to\b|\bcaused\s+by\b|\bbroke\b|\bfailed\b|,\s+so\s+(?!I\s)\w"
)
_CAUSE_ZH = re.compile(r"因为|由于|导致|原因|所以|漏了|忘了")
# "Found it: the limiter ...": the finding, without the announcement
_FOUND = re.compile(
    r"(?i)^(?:found\s+it|got\s+it|the\s+(?:problem|issue|culprit|cause)\s+was)\s*[:,-]\s*"
)
# "Done: orders_daily now retries ...", "搞定：...": the result, without the announcement
_DONE_LABEL = re.compile(
    r"(?i)^(?:(?:all\s+)?done|all\s+set|fixed|finished|there\s+you\s+go)\s*[:!-]\s*|^(?:搞定|好了|完成)[：:！!]\s*"
)
# sentences, and the clauses an agent strings together ("...; I set X and it passes")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|(?<=[。！？；])|;\s+|,\s+(?:so\s+|and\s+)?(?=I\s)")


_POINTS_BACK = re.compile(r"(?i)^\w+\s+(?:it|them|that|this)\b")


def _achievement(texts: list[str], zh: bool) -> tuple[str, str]:
    """What the agent's answer says was done (first-person action sentences, "I" dropped)
    and the cause it names, if any."""
    sentences = [_DONE_LABEL.sub("", p.strip()) for t in texts for p in _SENTENCE.split(t)]
    sentences = [p[:1].upper() + p[1:] for p in sentences if p]
    if zh:
        cause = next((p for p in sentences if _CAUSE_ZH.search(p)), "")
        done = [
            p
            for p in sentences
            if re.search(
                r"我?(?:把|在|给|加了|改了|修了|更新了|删除了|添加了"
                r"|修复了|改成|换成)",
                p,
            )
            and p != cause
        ]
        body = "".join(p.replace("我", "") for p in ([cause] if cause else []) + done[:1])
        return body, cause
    cause = next((p for p in sentences if _CAUSE_EN.search(p) and not _ACTION_EN.match(p)), "")
    cause = _FOUND.sub("", cause)
    cause = cause[:1].upper() + cause[1:]
    done = []
    for p in sentences:
        m = _ACTION_EN.match(p)
        if m and m.group("v") and p.startswith("I"):
            p = re.sub(r"^I\s+(?:have\s+|'ve\s+|just\s+|also\s+)*", "", p)
            p = p[:1].upper() + p[1:]
        if m:
            done.append(p)
    return " ".join(done[:2]), cause


def _closing(said: list[NodeRecord]) -> tuple[list[str], str]:
    """The agent's closing answers (not a preamble that opened a tool call) and the first
    sentence of the last; an answer of a word or two ("Restarted.") says what was done in the
    words of the request ("Restart the flaky exporter please" → "Restarted the flaky
    exporter")."""
    final = [
        content_text(r.node.content)
        for r in said
        if r.node.role == "assistant" and not r.node.tool_calls
    ]
    first = _SENTENCE.split(final[-1].strip())[0] if final and final[-1].strip() else ""
    first = _DONE_LABEL.sub("", first)
    if len(first.split()) < 3:
        asked = [content_text(r.node.content) for r in said if r.node.role == "user"][:1]
        first = (requested(asked[0]) if asked else "") or first
    return final, first


def _remedy(answer: str, first: str) -> str:
    """The clause of an answer that says what fixed it, if any, past ``first`` (what the run
    showed, when the answer starts with it)."""
    parts = _SENTENCE.split(answer.strip())
    return next(
        (
            p
            for p in parts[1 if parts and first.strip() and first.strip() in parts[0] else 0 :]
            if _FIX_SAID.search(p) or _REMEDY.search(p.strip())
        ),
        "",
    )


def _summary(
    session_id: str,
    turn_no: int,
    turn: dict[str, Any],
    zh: bool,
    said: list[NodeRecord],
    fixes: list[tuple[str, str]],
) -> Candidate:
    """One work event for a turn's tool activity: what was achieved, in the agent's words when
    it said so; the commands and files go to attributes and entities, not into the text."""
    commands, files = turn["commands"], turn["files"]
    answers = [content_text(r.node.content) for r in said if r.node.role == "assistant"]
    done, cause = _achievement(answers[-1:], zh)
    if zh:
        first = _SENTENCE.split(answers[-1].strip())[0].strip() if answers else ""
        text = done or (
            "修改了 " + _listing(files, 4, True)
            if files
            else first.rstrip("。")  # "86 个测试全部通过": what the run showed
            if len(first) >= 4
            else f"运行了 {len(commands)} 条命令"
        )
        if fixes and not cause and "修" not in text:
            text = f"修复了一次失败的运行：{text}"
        text = text.rstrip("。") + "。"
    else:
        final, first = _closing(said)
        done = done if len(done.split()) > 2 else ""  # "Restarted.": the request says what
        if done and not cause and _POINTS_BACK.search(done):  # "Aliased it ...": what "it" is
            found = _SENTENCE.split(final[-1].strip())[0] if final else ""
            cause = found if found and found not in done and not _ACTION_EN.match(found) else ""
        if done:
            text = f"{cause.rstrip(' .;,')}. {done}" if cause and cause not in done else done
            fix = _remedy(final[-1], "") if final and not cause else ""
            if fix and fix.strip() not in done and done not in fix:  # "Readiness now uses X.
                text = f"{fix.strip().rstrip(' .;,')}. {done}"  # Applied to prod."
        elif first:  # what the run showed, in the agent's words; the files it edited
            text = first.rstrip(" .;,")
            fix = _remedy(final[-1], first)
            if fix:  # "...; using saturating_sub fixes it and all 58 tests pass"
                text = f"{text}; {fix.strip().rstrip(' .;,')}"
            text += f" (edited {_listing(files, 4, False)})." if files else "."
        elif files:
            text = f"Edited {_listing(files, 4, False)}."
        else:
            text = (
                f"Ran {len(commands)} command{'s' if len(commands) > 1 else ''} "
                f"({', '.join(sorted({c.split()[0] for c in commands}))})."
            )
        if fixes and not re.search(r"(?i)\bfix|\bfail|\bbroke", text):
            text = f"Fixed a failing run: {text[:1].lower()}{text[1:]}"
        text = text if text.endswith((".", "!", ")")) else text + "."
    if len(text) > 300:
        text = text[:297].rstrip() + "…"
    nodes = (
        [r.node.id for r in said if r.node.role == "user"][:1]
        + turn["nodes"]
        + [r.node.id for r in said if r.node.role == "assistant"][-1:]
    )
    important = bool(fixes) or bool(files)
    return Candidate(
        type="case",
        text=text,
        session_id=session_id,
        node_ids=tuple(dict.fromkeys(nodes)),
        kind="work",
        event_time=turn["time"],
        confidence=0.9,
        importance=0.7 if important else 0.4,
        language="zh" if zh else "en",
        entities=tuple(EntityRef(f, "resource", attrs={"kind": "file"}) for f in files[:8]),
        attrs={
            "commands": commands[:20],
            "files": files[:50],
            "failures": turn["failed"],
            "fixed": [{"command": c, "error": e} for c, e in fixes],
            "turn": turn_no,
        },
        collective=True,
    )
