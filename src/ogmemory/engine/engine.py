"""``ContextEngine``: memory around an agent loop, intercepted at its six boundaries (seed 004).

    ① on_message        record the user node (lazy session, project bound from the cwd)
    ② before_inference  assemble core.md + bounded recall + the live turns within a budget
    ③ on_tool_call      record a tool call / its result (``called_by``), with files touched
       on_tool_result
    ④ after_turn        commit the turn, auto-commit the project, queue distillation + index
    ⑤ on_compact        fold older turns into a summary node (originals stay)
    ⑥ on_session_close  final distillation, title, state snapshot and archive

Nothing here runs inside inference: each point returns a small result saying what it did and
why. The engine holds no state a second process could not see: what must outlive a call is in
the session's files (``Memory.session_state``), so a Claude Code hook run as one process per
event behaves exactly like a long-lived loop.

>>> engine = ContextEngine(Memory(home="/tmp/ogm"))              # doctest: +SKIP
>>> engine.on_message("s1", "We deploy with Nomad, not Kubernetes.")  # doctest: +SKIP
>>> ctx = engine.before_inference("s1")                           # doctest: +SKIP
>>> reply = my_llm(ctx.messages)                                  # doctest: +SKIP
>>> engine.after_turn("s1", reply=reply)                          # doctest: +SKIP
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..config import LLMSettings
from ..entity.records import Node
from ..errors import InvalidInput, NotFound, OgmemError
from ..recall.tokens import count_tokens
from ..tenancy import format_uri, validate_id
from .config import EngineConfig
from .inputs import as_text, paths_of, signals, text_of
from .live import LiveCache, LiveView
from .pending import PendingViews
from .results import (
    CloseResult,
    CompactionResult,
    ContextResult,
    MessageResult,
    ToolResult,
    TurnEndResult,
)

if TYPE_CHECKING:
    from ..memory import Memory

__all__ = ["ContextEngine", "project_root"]

log = logging.getLogger(__name__)


def project_root(path: str | Path) -> Path | None:
    """The root of the git work tree holding ``path`` (the directory with ``.git``), if any."""
    try:
        here = Path(path).expanduser().resolve()
        for candidate in (here, *here.parents):
            if (candidate / ".git").exists():
                return candidate
    except (OSError, ValueError, RuntimeError):  # an unusable path binds nothing
        return None
    return None


class ContextEngine:
    """The six interception points over one ``Memory`` (one tenant). Thread-safe; cheap to
    create (all state lives in the session files)."""

    def __init__(self, memory: Memory, config: EngineConfig | None = None) -> None:
        self.memory = memory
        self.config = config or EngineConfig()
        self._tokens: dict[str, int] = {}
        self._lock = threading.Lock()
        self._live = LiveCache()
        self._pending = PendingViews(memory)
        #: the last context assembled per session in this process (``/why``)
        self.last_context: dict[str, ContextResult] = {}

    # ================================================================== helpers

    def count(self, text: str) -> int:
        """Tokens of ``text`` (o200k_base, the tokenizer recall budgets with)."""
        return count_tokens(text)

    def exists(self, session_id: str) -> bool:
        """Whether the session exists (temporary ones included)."""
        try:
            self.memory.get_session(session_id)
            return True
        except NotFound:
            return False

    def is_temporary(self, session_id: str) -> bool:
        """Whether the session is a temporary conversation (nothing read or written)."""
        return self.memory.is_temporary(session_id)

    def scope_of(self, session_id: str) -> str:
        """The scope a session reads memory in: its project's, else global."""
        try:
            project = self.memory.get_session(session_id).project_id
        except NotFound:
            return "global"
        return f"project:{project}" if project and project != "default" else "global"

    def state(self, session_id: str) -> dict[str, Any]:
        """The engine's own state of a session (closed, reopenings, ...)."""
        return self.memory.session_state(session_id, "engine") or {}

    def _project_for(
        self, project: str | Path | None, cwd: str | Path | None, reasons: list[str]
    ) -> str | Path | None:
        if project is not None:
            return project
        if cwd is None or self.config.bind_project == "never":
            return None
        if self.config.bind_project == "always":
            return Path(cwd)
        root = project_root(cwd)
        if root is None:
            reasons.append(
                f"{cwd} is not inside a git repository: the session is not bound to a project"
            )
        elif self.config.bind_project == "registered":
            known = next(
                (
                    p.project_id
                    for p in self.memory.list_projects()
                    if Path(p.path).resolve() == root
                ),
                None,
            )
            if known is None:
                reasons.append(f"{root} is not a registered project: the session is not bound")
            return known
        return root

    # ================================================================== ① message arrives

    def on_message(
        self,
        session_id: str | None,
        content: Any,
        *,
        cwd: str | Path | None = None,
        project: str | Path | None = None,
        temporary: bool = False,
        agent_id: str | None = None,
        model: str | None = None,
        event_time: float | str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> MessageResult:
        """Record a user message. The session is created on first use (bound to ``project``,
        or to the git repository around ``cwd``); a closed session is reopened and the
        reopening recorded. Only cheap signals are computed here."""
        content = text_of(content, "the message")
        reasons: list[str] = []
        sid = (
            validate_id(session_id, "session id")
            if session_id is not None
            else f"s-{uuid.uuid4().hex[:12]}"
        )
        exists = self.exists(sid)
        if temporary and not exists:
            self.memory.create_session(sid, temporary=True, agent_id=agent_id, model=model)
            reasons.append("temporary conversation: nothing is read from or written to memory")
        elif temporary and not self.is_temporary(sid):
            raise InvalidInput(f"session {sid} exists and is not temporary")
        meta = dict(metadata or {})
        reopened = False
        if exists and not self.is_temporary(sid):
            closed = self.state(sid).get("closed_at")
            if closed:
                reopened = True
                meta["reopens_session"] = {"closed_at": closed}
        bind = None if exists or temporary else self._project_for(project, cwd, reasons)
        msg: dict[str, Any] = {"role": "user", "content": content, "metadata": meta}
        if event_time is not None:
            msg["event_time"] = event_time
        node = self.memory.append_message(sid, msg, project=bind, agent_id=agent_id, model=model)
        if reopened:
            self._record_reopen(sid, node.id, reasons)
        info = self.memory.get_session(sid)
        if not exists:
            reasons.insert(
                0,
                f"created session {sid}"
                + (f" bound to project {info.project_id}" if info.project_id != "default" else ""),
            )
        return MessageResult(
            sid,
            node.id,
            created=not exists,
            reopened=reopened,
            temporary=self.is_temporary(sid),
            project_id=info.project_id,
            signals=signals(node.text, self.count(node.text)),
            reasons=tuple(reasons),
        )

    def _record_reopen(self, sid: str, node_id: str, reasons: list[str]) -> None:
        now = time.time()

        def reopen(state: dict[str, Any]) -> dict[str, Any]:
            history = list(state.get("reopened") or [])
            history.append({"at": now, "node_id": node_id, "closed_at": state.get("closed_at")})
            return {**state, "closed_at": None, "reopened": history[-100:]}

        state = self.memory.edit_session_state(sid, "engine", reopen)
        reasons.append(
            f"the session was closed; reopened by node {node_id} "
            f"(reopening #{len(state['reopened'])})"
        )

    # ================================================================== ② before inference

    def before_inference(
        self,
        session_id: str,
        query: str | None = None,
        *,
        budget: int | None = None,
        system: str | None = None,
        compact: bool = True,
        core: bool = True,
        live: bool = True,
    ) -> ContextResult:
        """The context for the next model call, within ``budget`` tokens (default: the
        config's): core.md for the session's scope, bounded recall for ``query`` (default: the
        last user message), the compaction summary and the live turns. ``system`` is the
        caller's own system prompt, counted in the budget; ``core=False`` for a caller that
        gave the model core.md already (Claude Code, at SessionStart); ``live=False`` for one
        that keeps the conversation itself (Claude Code): its turns are not sent, and recall
        gets its whole share. Never waits for embeddings."""
        from .assembly import assemble

        result = assemble(
            self,
            validate_id(session_id, "session id"),
            query,
            budget or self.config.budget,
            system,
            compact,
            core,
            live,
        )
        with self._lock:
            self.last_context[session_id] = result
        if not result.temporary:  # its turn end records nothing
            self._pending.save(session_id, result.to_record())
        return result

    def flush(self, session_id: str | None = None) -> None:
        """Wait until the context views assembled so far (of ``session_id``, or of every
        session) are written (``pending.PendingViews``)."""
        self._pending.flush(session_id)

    def core_for(self, scope: str) -> str:
        """core.md for ``scope`` (rendered once per knowledge change: ``Memory.core``)."""
        return self.memory.core(scope=scope).strip()

    def live(self, session_id: str) -> LiveView:
        """The live part of the session's branch (see ``live.LiveCache``)."""
        return self._live.view(session_id, self.memory.get_branch_nodes(session_id))

    def node_tokens(self, session_id: str, node: Node) -> int:
        """Tokens of a node as sent (cached per session and node)."""
        key = f"{session_id}/{node.id}"
        with self._lock:
            found = self._tokens.get(key)
        if found is None:
            found = self.count(node.text) + 4
            with self._lock:
                if len(self._tokens) > 200_000:
                    self._tokens.clear()
                self._tokens[key] = found
        return found

    # ================================================================== ③ tool calls

    def on_tool_call(
        self,
        session_id: str,
        name: str | None = None,
        arguments: Any = None,
        *,
        call_id: str | None = None,
        calls: list[dict[str, Any]] | None = None,
        content: str | None = None,
        model: str | None = None,
    ) -> ToolResult:
        """Record the assistant's tool call(s) as one node: one call by ``name``/``arguments``
        (``call_id`` defaults to a new id), or OpenAI-format ``calls``."""
        if calls is None:
            if not isinstance(name, str) or not name.strip():
                raise InvalidInput("a tool call needs a tool name")
            cid = call_id or f"call_{uuid.uuid4().hex[:12]}"
            args = arguments if isinstance(arguments, str) else as_text(arguments or {})
            calls = [{"id": cid, "type": "function", "function": {"name": name, "arguments": args}}]
        if not isinstance(calls, list) or not calls:
            raise InvalidInput("calls must be a non-empty list of OpenAI tool calls")
        msg: dict[str, Any] = {"role": "assistant", "content": content, "tool_calls": calls}
        if model:
            msg["metadata"] = {"model": model}
        node = self.memory.append_message(session_id, msg, model=model)
        ids = tuple(str(c.get("id")) for c in calls if isinstance(c, dict))
        return ToolResult(
            session_id,
            node.id,
            "call",
            call_ids=ids,
            reasons=(f"recorded {len(calls)} tool call(s) as node {node.id}",),
        )

    def on_tool_result(
        self,
        session_id: str,
        call_id: str,
        output: Any,
        *,
        name: str | None = None,
        is_error: bool = False,
        files_read: Sequence[str] | None = None,
        files_written: Sequence[str] | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> ToolResult:
        """Record a tool's result; it names the assistant node that called it (``called_by``).
        ``files_read``/``files_written``: what the tool touched, when the caller knows."""
        if not isinstance(call_id, str) or not call_id:
            raise InvalidInput("a tool result needs the call_id of its call")
        read, written = paths_of(files_read, "files_read"), paths_of(files_written, "files_written")
        text = as_text(output)
        reasons = []
        meta: dict[str, Any] = {**(metadata or {}), "is_error": bool(is_error)}
        limit = self.config.max_tool_output_chars
        if len(text) > limit:
            meta["truncated_from_chars"] = len(text)
            reasons.append(f"output of {len(text)} characters stored cut to {limit}")
            text = text[:limit] + f"\n[… {len(text) - limit} more characters not stored]"
        if read:
            meta["files_read"] = list(read)
        if written:
            meta["files_written"] = list(written)
        node = self.memory.append_message(
            session_id,
            {
                "role": "tool",
                "tool_call_id": call_id,
                "name": name,
                "content": text or "(empty)",
                "metadata": meta,
            },
        )
        reasons.insert(
            0, f"recorded the result of {call_id} as node {node.id}, called by {node.called_by}"
        )
        return ToolResult(
            session_id,
            node.id,
            "result",
            call_ids=(call_id,),
            called_by=node.called_by,
            files_read=read,
            files_written=written,
            reasons=tuple(reasons),
        )

    def on_assistant(self, session_id: str, content: Any, *, model: str | None = None) -> Node:
        """Record an assistant reply (``after_turn(reply=...)`` does this for the last one)."""
        msg: dict[str, Any] = {"role": "assistant", "content": text_of(content, "the reply")}
        if model:
            msg["metadata"] = {"model": model}
        return self.memory.append_message(session_id, msg, model=model)

    # ================================================================== ④ turn end

    def after_turn(
        self, session_id: str, *, reply: Any = None, model: str | None = None
    ) -> TurnEndResult:
        """End the turn: record ``reply``, commit (one git commit), auto-commit the bound
        project from a clean tree, queue the fast distillation and write the index documents
        with their embedding jobs. Returns before distillation and embedding finish."""
        reasons: list[str] = []
        reply_node = self.on_assistant(session_id, reply, model=model).id if reply else None
        temporary = self.is_temporary(session_id)
        self.flush(session_id)
        pending = None if temporary else self.memory.session_state(session_id, "pending-context")
        turn = self.memory.commit_turn(session_id, context=pending, model=model)
        queued: list[str] = []
        if turn.commit is None:
            reasons.append("nothing to commit")
        else:
            reasons.append(f"turn {turn.turn} committed as {turn.commit[:12]}")
        if turn.project_commit:
            reasons.append(f"project edits committed as {turn.project_commit[:12]}")
        if temporary:
            reasons.append("temporary conversation: not distilled, not indexed")
        elif turn.commit is not None:
            queued += self._queue_background(session_id, reasons)
            if pending is not None:
                self.memory.edit_session_state(session_id, "pending-context", lambda _: {})
        return TurnEndResult(
            session_id,
            turn.turn,
            turn.commit,
            turn.node_ids,
            reply_node,
            turn.project_commit,
            turn.warnings,
            tuple(queued),
            tuple(reasons),
        )

    def _queue_background(self, session_id: str, reasons: list[str]) -> list[str]:
        queued = []
        if self.memory.settings.distill_on_turn:
            queued.append("distill")  # commit_turn queued the fast path
        try:
            self.memory.sync_index()  # full text now; embeddings queued in the outbox
            queued.append("embed")
        except (OgmemError, OSError, sqlite3.Error) as exc:  # a cache: the next recall catches up
            log.warning("index sync after the turn of %s failed: %s", session_id, exc)
            reasons.append(f"index sync failed ({exc}); the next recall catches up")
        return queued

    # ================================================================== ⑤ compaction

    def on_compact(
        self, session_id: str, *, force: bool = True, reason: str = "requested"
    ) -> CompactionResult:
        """Fold all but the newest ``keep_turns`` turns into one summary node (``force``: even
        when the live context is under its budget)."""
        from .compact_run import compact

        return compact(self, validate_id(session_id, "session id"), force=force, why=reason)

    def compaction_llm(self) -> LLMSettings | None:
        """The LLM that writes compaction summaries, or None for the rules."""
        mode = self.config.compaction
        if mode in ("rules", "off"):
            return None
        return self.memory.settings.llm

    # ================================================================== ⑥ session close

    def on_session_close(self, session_id: str, *, reason: str | None = None) -> CloseResult:
        """Close the session: commit what is pending, distill it now, write its title and
        archive (L0 abstract, L1 overview, files touched, open tasks, a state snapshot). A
        temporary session is erased instead. Appending later reopens it."""
        validate_id(session_id, "session id")
        self.flush(session_id)
        if self.is_temporary(session_id):
            self.memory.end_session(session_id)
            with self._lock:
                self.last_context.pop(session_id, None)
            return CloseResult(
                session_id,
                closed=True,
                erased=True,
                reasons=("temporary conversation erased: nothing remains",),
            )
        from .archive import close_session

        return close_session(self, session_id, reason)

    def archive_uri(self, session_id: str) -> str:
        """The URI of the session's archive (written when it closes)."""
        return format_uri("archive", session_id)
