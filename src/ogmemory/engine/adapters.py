"""Two ways to put the engine around an existing agent, with no glue code.

``with_memory`` wraps a plain function ``messages -> reply text`` into ``text -> reply``: each
call records the message, assembles the context, calls the function and ends the turn.

``OpenAIChatAdapter`` wraps any chat-completions call (the ``openai`` SDK's
``client.chat.completions.create``, ``litellm.completion``, or a function posting to an
endpoint with httpx): the caller keeps sending its own ``messages`` as usual; the adapter
records what is new in them (user messages, tool results), adds memory to the system message,
calls through, records the reply (tool calls, or the final answer, which ends the turn) and
returns the response untouched.

>>> adapter = OpenAIChatAdapter(engine, "s1", client.chat.completions.create)  # doctest: +SKIP
>>> response = adapter.create(model="gpt-4o-mini", messages=messages, tools=tools)  # doctest: +SKIP
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..errors import InvalidInput
from .assembly import PREAMBLE
from .engine import ContextEngine
from .results import ContextResult

__all__ = ["OpenAIChatAdapter", "with_memory"]


def with_memory(
    engine: ContextEngine,
    session_id: str | None,
    llm: Callable[[list[dict[str, Any]]], str],
    *,
    system: str | None = None,
    cwd: str | Path | None = None,
    temporary: bool = False,
    model: str | None = None,
) -> Callable[[str], str]:
    """``chat = with_memory(engine, "s1", my_llm); chat("Where do we deploy?")``.

    ``my_llm`` receives OpenAI-style messages (one system message with memory, then the live
    turns) and returns the reply text. ``session_id`` None starts a new session on first use.
    """
    sid: list[str | None] = [session_id]

    def chat(text: str) -> str:
        """One turn: the message in, the reply out."""
        got = engine.on_message(sid[0], text, cwd=cwd, temporary=temporary, model=model)
        sid[0] = got.session_id
        ctx = engine.before_inference(got.session_id, system=system)
        reply = llm(list(ctx.messages))
        if not isinstance(reply, str):
            raise InvalidInput(f"the LLM function must return text, not {type(reply).__name__}")
        engine.after_turn(
            got.session_id, reply=reply if reply.strip() else "(no reply)", model=model
        )
        return reply

    return chat


def _message_of(response: Any) -> dict[str, Any]:
    """The first choice's message of a chat-completions response, as a dict (SDK objects and
    plain JSON both work)."""
    choices = (
        response.get("choices")
        if isinstance(response, dict)
        else getattr(response, "choices", None)
    )
    if not choices:
        raise InvalidInput("the chat-completions response has no choices")
    first = choices[0]
    msg: Any = first.get("message") if isinstance(first, dict) else getattr(first, "message", None)
    if msg is not None and hasattr(msg, "model_dump"):
        msg = msg.model_dump(exclude_none=True)
    if not isinstance(msg, dict):
        raise InvalidInput("the chat-completions response has no message")
    return msg


def _fingerprint(msg: dict[str, Any]) -> tuple[Any, ...]:
    content = msg.get("content")
    text = content.strip() if isinstance(content, str) else json.dumps(content, sort_keys=True)
    calls = tuple(str(c.get("id")) for c in msg.get("tool_calls") or [] if isinstance(c, dict))
    return (msg.get("role"), "" if text == "null" else text, calls, msg.get("tool_call_id"))


def _plain_calls(calls: Sequence[Any]) -> list[dict[str, Any]]:
    out = []
    for call in calls:
        if hasattr(call, "model_dump"):
            call = call.model_dump(exclude_none=True)
        if isinstance(call, dict):
            out.append(call)
    return out


class OpenAIChatAdapter:
    """Memory around any chat-completions call for one session.

    ``mode="inject"`` (default) sends the caller's own messages with memory added to the
    system message; ``mode="manage"`` sends the engine's assembled context instead (the
    caller's system prompt, memory, and the live turns after compaction), for long sessions
    whose history the caller does not trim itself.
    """

    def __init__(
        self,
        engine: ContextEngine,
        session_id: str | None,
        create: Callable[..., Any],
        *,
        mode: str = "inject",
        cwd: str | Path | None = None,
        temporary: bool = False,
    ) -> None:
        if mode not in ("inject", "manage"):
            raise InvalidInput("mode must be inject or manage")
        self.engine = engine
        self.session_id = session_id
        self.create_fn = create
        self.mode = mode
        self.cwd = cwd
        self.temporary = temporary
        self._recorded: list[tuple[Any, ...]] = []
        #: the context sent with the last call (``explain()`` says what it held and why)
        self.last_context: ContextResult | None = None

    def create(self, *, messages: list[dict[str, Any]], **kwargs: Any) -> Any:
        """Record what is new in ``messages``, call through with memory, record the reply."""
        if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
            raise InvalidInput("messages must be a list of message objects")
        model = kwargs.get("model") if isinstance(kwargs.get("model"), str) else None
        self._record_new(messages, model)
        if self.session_id is None:
            raise InvalidInput("the messages hold no user message to start the session with")
        system = (
            "\n\n".join(str(m.get("content") or "") for m in messages if m.get("role") == "system")
            or None
        )
        ctx = self.engine.before_inference(self.session_id, system=system)
        self.last_context = ctx
        response = self.create_fn(messages=self._outgoing(messages, ctx), **kwargs)
        self._record_reply(_message_of(response), model)
        return response

    def _record_new(self, messages: list[dict[str, Any]], model: str | None) -> None:
        convo = [m for m in messages if m.get("role") != "system"]
        prints = [_fingerprint(m) for m in convo]
        same = 0
        while same < min(len(prints), len(self._recorded)) and prints[same] == self._recorded[same]:
            same += 1
        if same < len(self._recorded):
            self._recorded = self._recorded[:same]  # the caller rewrote its history
        for msg, fp in zip(convo[same:], prints[same:], strict=True):
            self._record(msg, model)
            self._recorded.append(fp)

    def _record(self, msg: dict[str, Any], model: str | None) -> None:
        role = msg.get("role")
        sid = self.session_id
        if role == "user":
            got = self.engine.on_message(
                sid, msg.get("content"), cwd=self.cwd, temporary=self.temporary, model=model
            )
            self.session_id = got.session_id
        elif sid is None:
            return  # history before the first user message has no session to go to
        elif role == "tool":
            self.engine.on_tool_result(
                sid, str(msg.get("tool_call_id") or ""), msg.get("content"), name=msg.get("name")
            )
        elif role == "assistant" and msg.get("tool_calls"):
            self.engine.on_tool_call(
                sid, calls=_plain_calls(msg["tool_calls"]), content=msg.get("content"), model=model
            )
        elif role == "assistant" and msg.get("content"):
            self.engine.on_assistant(sid, msg["content"], model=model)
        else:
            raise InvalidInput(f"cannot record a message with role {role!r}")

    def _outgoing(self, messages: list[dict[str, Any]], ctx: ContextResult) -> list[dict[str, Any]]:
        if self.mode == "manage":
            return list(ctx.messages)
        memory = ctx.additional_context()
        if not memory:
            return list(messages)
        block = f"{PREAMBLE}\n\n{memory}"
        out = [dict(m) for m in messages]
        if out and out[0].get("role") == "system" and isinstance(out[0].get("content"), str):
            out[0]["content"] = f"{out[0]['content']}\n\n{block}"
        else:
            out.insert(0, {"role": "system", "content": block})
        return out

    def _record_reply(self, msg: dict[str, Any], model: str | None) -> None:
        assert self.session_id is not None
        calls = _plain_calls(msg.get("tool_calls") or [])
        if calls:
            self.engine.on_tool_call(
                self.session_id, calls=calls, content=msg.get("content"), model=model
            )
            self._recorded.append(_fingerprint({**msg, "role": "assistant", "tool_calls": calls}))
            return
        content = msg.get("content")
        reply = content if isinstance(content, str) and content.strip() else "(no reply)"
        self.engine.after_turn(self.session_id, reply=reply, model=model)
        self._recorded.append(_fingerprint({"role": "assistant", "content": content}))
