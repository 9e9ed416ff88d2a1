"""Claude Code's hook events mapped onto the six interception points.

Formats from the Claude Code hooks reference, https://code.claude.com/docs/en/hooks (sections
"Common input fields", "SessionStart input" ... "SessionEnd input", "Add context for Claude"),
checked against payloads Claude Code really wrote (see ``tests/fixtures/claude_code/README.md``).
Every event's JSON on stdin carries ``session_id``, ``transcript_path`` (may be null), ``cwd``
and ``hook_event_name``; most carry ``permission_mode`` (``default``, ``plan``,
``acceptEdits``, ``auto``, ``dontAsk``, ``bypassPermissions``; older versions and some events
send none); newer versions add ``prompt_id``, ``effort``, ``duration_ms`` and more. Fields not
named below are ignored. Then:

==================  ==========================================  ============================
event               fields used here                            ogmemory
==================  ==========================================  ============================
SessionStart        ``source`` (startup|resume|clear|compact|   core.md as additional context
                    fork; not needed: every source gets it)
UserPromptSubmit    ``prompt``                                  ① record + ② recall as context
PostToolUse         ``tool_name``, ``tool_input``,              ③ call + result nodes
                    ``tool_response`` (the tool's own output
                    object: Bash ``stdout``/``stderr``/...,
                    Read ``{type, file}``, Edit ``filePath``/
                    ``structuredPatch``/...), ``tool_use_id``
PostToolUseFailure  ``tool_name``, ``tool_input``,              ③ call + result nodes, the
                    ``tool_use_id``, ``error`` (the text Claude  result marked ``is_error``
                    gets as the tool's result; Bash: ``Exit
                    code N`` first), ``is_interrupt``
Stop                ``last_assistant_message`` (newer           ④ reply recorded, turn ends
                    versions; else the transcript's tail);
                    ``stop_hook_active`` is not needed
PreCompact          ``trigger`` (manual|auto);                  ⑤ the session's own compaction
                    ``custom_instructions`` ("" or null) unused
SessionEnd          ``reason`` (clear|resume|logout|            ⑥ close: distill, archive
                    prompt_input_exit|bypass_permissions_
                    disabled|other)
==================  ==========================================  ============================

Output: SessionStart and UserPromptSubmit may print
``{"hookSpecificOutput": {"hookEventName": <event>, "additionalContext": <text>}}`` on stdout
with exit code 0, and Claude Code adds the text to the model's context as a system reminder
(reference, "JSON output" and "Add context for Claude"). The text is capped at
``MAX_CONTEXT_CHARS`` = 10,000 characters: over it, Claude Code saves it to a file and shows
the model only a 2,000-character preview, so the last recalled items are dropped instead.
Exit code 2 would block the prompt (or the stop) and other codes show an error to the user, so
``ogmem hook`` always exits 0 and prints nothing when anything goes wrong (it logs instead):
memory must never break the user's session.

Session ids: Claude Code's ``session_id`` (a UUID) becomes ``claude-<session_id>``, the id
``ogmem import claude-code`` gives the same conversation (so a session recorded live is never
imported again beside it); ``claude --resume`` continues it (a closed session is reopened by its
next prompt).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ogmemory_hook import EVENTS

from ..errors import InvalidInput
from ..importers.base import session_key
from ..tenancy import validate_id
from .assembly import PREAMBLE
from .engine import ContextEngine, project_root
from .results import ContextItem, render_memory_block
from .transcript import last_reply

__all__ = [
    "DOCS_URL",
    "HOOK_EVENTS",
    "MAX_CONTEXT_CHARS",
    "handle_event",
    "last_reply",
    "tool_files",
]

DOCS_URL = "https://code.claude.com/docs/en/hooks"
#: Claude Code's cap on one hook's ``additionalContext`` (hooks reference, "JSON output")
MAX_CONTEXT_CHARS = 10_000
#: the events handled, in the order of the hooks reference; the light client's list
HOOK_EVENTS = EVENTS
AGENT_ID = "claude-code"
#: tools whose input names the file they read / write (Claude Code's built-in tools)
_READS = {"Read": "file_path", "NotebookRead": "notebook_path"}
_WRITES = {
    "Write": "file_path",
    "Edit": "file_path",
    "MultiEdit": "file_path",
    "NotebookEdit": "notebook_path",
}


def handle_event(engine: ContextEngine, event: str, payload: Any) -> dict[str, Any] | None:
    """Apply one hook event; returns the JSON to print on stdout, or None for nothing."""
    if event not in HOOK_EVENTS:
        raise InvalidInput(f"unknown hook event {event!r}; known: {', '.join(HOOK_EVENTS)}")
    if not isinstance(payload, dict):
        raise InvalidInput("the hook input must be a JSON object")
    named = payload.get("hook_event_name")
    if named is not None and named != event:
        raise InvalidInput(f"the input is a {named!r} event, not {event!r}")
    # the id ``ogmem import claude-code`` gives the same conversation: a session recorded live
    # is never imported a second time beside it
    sid = session_key("claude", validate_id(payload.get("session_id"), "session id"))
    cwd = payload.get("cwd")
    if not isinstance(cwd, str) or not cwd or "\x00" in cwd or len(cwd) > 4096:
        cwd = None  # no usable working directory: the session is simply not bound
    if event == "SessionStart":
        return _session_start(engine, sid, cwd)
    if event == "UserPromptSubmit":
        return _prompt(engine, sid, cwd, payload.get("prompt"))
    if not engine.exists(sid):
        return None  # nothing was said in this session yet: nothing to attach this to
    if event in ("PostToolUse", "PostToolUseFailure"):
        _tool_use(engine, sid, payload, failed=event == "PostToolUseFailure")
    elif event == "Stop":
        reply = payload.get("last_assistant_message")
        if not isinstance(reply, str) or not reply.strip():
            reply = last_reply(payload.get("transcript_path"))
        engine.after_turn(sid, reply=reply or None)
    elif event == "PreCompact":
        trigger = payload.get("trigger") if isinstance(payload.get("trigger"), str) else "manual"
        engine.on_compact(sid, force=True, reason=f"Claude Code {trigger} compaction")
    else:
        reason = payload.get("reason") if isinstance(payload.get("reason"), str) else None
        engine.on_session_close(sid, reason=reason)
    return None


def _context(event: str, items: list[ContextItem]) -> dict[str, Any] | None:
    """The additional context of ``items``, within ``MAX_CONTEXT_CHARS`` (the last items go
    first; a single item too long on its own is cut at a line end)."""
    items = list(items)
    text = ""
    while items:
        text = f"{PREAMBLE}\n\n{render_memory_block(items)}"
        if len(text) <= MAX_CONTEXT_CHARS:
            break
        if len(items) > 1:
            items.pop()
            continue
        cut = text[:MAX_CONTEXT_CHARS]
        text = cut[: cut.rfind("\n")] if "\n" in cut else cut
        break
    if not items or not text.strip():
        return None
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


def _scope_for_cwd(engine: ContextEngine, cwd: str | None) -> str:
    root = project_root(cwd) if cwd else None
    if root is None:
        return "global"
    for project in engine.memory.list_projects():
        if Path(project.path).resolve() == root:
            return f"project:{project.project_id}"
    return "global"


def _session_start(engine: ContextEngine, sid: str, cwd: str | None) -> dict[str, Any] | None:
    """core.md for the session's scope (its project's, or the cwd's registered project)."""
    scope = engine.scope_of(sid) if engine.exists(sid) else _scope_for_cwd(engine, cwd)
    core = engine.core_for(scope)
    if not core:
        return None
    item = ContextItem("core", core, engine.count(core), f"core.md for scope {scope}")
    return _context("SessionStart", [item])


def _prompt(engine: ContextEngine, sid: str, cwd: str | None, prompt: Any) -> dict[str, Any] | None:
    """Record the prompt, then recall for it. Claude Code keeps the conversation and core.md
    (from SessionStart) in its own context, so only the recalled items are added."""
    if not isinstance(prompt, str) or not prompt.strip():
        return None
    engine.on_message(sid, prompt, cwd=cwd, agent_id=AGENT_ID)
    # core.md went in at SessionStart, and Claude Code holds the conversation: only recall is
    # assembled (counting and de-duplicating the live turns cost O(session) per prompt, and
    # a long session squeezed recall out of the budget)
    ctx = engine.before_inference(sid, compact=False, core=False, live=False)
    return _context("UserPromptSubmit", [i for i in ctx.items if i.source == "recall"])


def tool_files(tool: str, tool_input: Any) -> tuple[list[str], list[str]]:
    """(files read, files written) by one of Claude Code's file tools."""
    if not isinstance(tool_input, dict):
        return [], []
    for table, reads in ((_READS, True), (_WRITES, False)):
        key = table.get(tool)
        path = tool_input.get(key) if key else None
        if isinstance(path, str) and path:
            return ([path], []) if reads else ([], [path])
    return [], []


def _is_error(response: Any) -> bool:
    if isinstance(response, dict):
        return (
            bool(response.get("is_error") or response.get("error"))
            or response.get("success") is False
        )
    return False


def _tool_use(engine: ContextEngine, sid: str, payload: dict[str, Any], *, failed: bool) -> None:
    """③ the call and its result; a failure's result is its ``error`` text (what Claude was
    given as the tool's result), marked ``is_error`` (and ``interrupted`` for an abort)."""
    tool = payload.get("tool_name")
    if not isinstance(tool, str) or not tool:
        raise InvalidInput(f"a {payload.get('hook_event_name') or 'tool'} event needs tool_name")
    tool_input = payload.get("tool_input") or {}
    call_id = payload.get("tool_use_id")
    if not isinstance(call_id, str) or not call_id:
        call_id = None
    call = engine.on_tool_call(sid, tool, tool_input, call_id=call_id)
    read, written = tool_files(tool, tool_input)
    response = payload.get("error" if failed else "tool_response")
    if failed and (not isinstance(response, str) or not response.strip()):
        response = "the tool failed" + (" (interrupted)" if payload.get("is_interrupt") else "")
    engine.on_tool_result(
        sid,
        call.call_ids[0],
        "" if response is None else response,
        name=tool,
        is_error=failed or _is_error(response),
        files_read=[]
        if failed
        else read,  # a failed Read read nothing, a failed Edit wrote nothing
        files_written=[] if failed else written,
        metadata={"interrupted": True} if failed and payload.get("is_interrupt") is True else None,
    )
