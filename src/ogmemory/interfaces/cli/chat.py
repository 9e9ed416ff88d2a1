"""``ogmem chat``: a terminal chat agent over any OpenAI-compatible endpoint, with memory through
the context engine (core.md and recall in, every turn recorded, compaction, an archive at the
end). Slash commands: /remember, /forget, /core, /recall, /rename, /why, /compact, /help, /exit.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, TextIO

import typer

from ...config import LLMSettings, Settings
from ...engine import ContextEngine, EngineConfig
from ...errors import InvalidInput, OgmemError
from ...llm.client import ChatClient, LLMError
from ...memory import Memory
from .common import AccountOption, HomeOption, SpaceOption, notice

__all__ = ["ChatLoop", "chat", "demo_chat", "run_chat"]

SYSTEM = "You are a helpful assistant. Answer briefly and use what you remember about the user."
HELP = """\
/remember TEXT   add TEXT to the memory list
/forget ID|TEXT  delete a memory (by id, or the one memory whose text contains TEXT)
/core            show core.md for this conversation's scope
/recall QUERY    show what recall finds for QUERY
/rename TITLE    rename this conversation
/why             what the last context held, and why
/compact         fold older turns into a summary now
/exit            end the conversation (it is distilled and archived)"""


class ChatLoop:
    """One conversation: lines in, replies and command output out (``write``)."""

    def __init__(
        self,
        engine: ContextEngine,
        client: ChatClient,
        *,
        session_id: str | None,
        temporary: bool,
        project: Path | None,
        system: str,
        max_tokens: int,
        write: Callable[[str], None],
    ) -> None:
        self.engine = engine
        self.mem: Memory = engine.memory
        self.client = client
        self.session_id = session_id
        self.temporary = temporary
        self.project = project
        self.system = system
        self.max_tokens = max_tokens
        self.write = write

    @property
    def scope(self) -> str:
        """The scope this conversation reads memory in."""
        return self.engine.scope_of(self.session_id) if self.session_id else "global"

    def handle(self, line: str) -> bool:
        """One line of input; returns False when the conversation should end."""
        text = line.strip()
        if not text:
            return True
        if text.startswith("/"):
            return self.command(text)
        self.turn(text)
        return True

    def turn(self, text: str) -> None:
        """One message: record it, assemble the context, ask the model, end the turn."""
        # bound only to a project named with --project: this agent has no tools, so what
        # changes in a repository during a turn is the user's own work, never to be committed
        # as the agent's
        got = self.engine.on_message(
            self.session_id,
            text,
            cwd=self.project,
            temporary=self.temporary,
            model=self.client.settings.model,
        )
        self.session_id = got.session_id
        ctx = self.engine.before_inference(got.session_id, system=self.system)
        try:
            reply = self.client.chat(
                list(ctx.messages), max_tokens=self.max_tokens, temperature=0.3
            )
            answer = reply.content.strip() or "(no reply)"
        except LLMError as exc:
            self.write(f"[the model failed: {exc}; your message is recorded]")
            self.engine.after_turn(got.session_id)
            return
        self.write(answer)
        self.engine.after_turn(got.session_id, reply=answer, model=self.client.settings.model)

    def command(self, text: str) -> bool:
        """A slash command; returns False for /exit."""
        name, _, arg = text.partition(" ")
        arg = arg.strip()
        if name in ("/exit", "/quit"):
            return False
        handlers: dict[str, Callable[[str], None]] = {
            "/help": lambda _: self.write(HELP),
            "/remember": self.remember,
            "/forget": self.forget,
            "/core": self.core,
            "/recall": self.recall,
            "/rename": self.rename,
            "/why": self.why,
            "/compact": self.compact,
        }
        handler = handlers.get(name)
        if handler is None:
            self.write(f"unknown command {name}; /help lists them")
            return True
        try:
            handler(arg)
        except OgmemError as exc:
            self.write(f"error: {exc}")
        return True

    def _memory_read(self) -> bool:
        if self.temporary:
            self.write("temporary conversation: memory is neither read nor written")
            return False
        return True

    def remember(self, arg: str) -> None:
        """/remember TEXT"""
        if not arg:
            raise InvalidInput("usage: /remember TEXT")
        if self._memory_read():
            item = self.mem.remember(arg, scope=self.scope)
            self.write(f"remembered {item.id}: {item.text}")

    def forget(self, arg: str) -> None:
        """/forget ID or TEXT"""
        if not arg:
            raise InvalidInput("usage: /forget MEMORY_ID or /forget TEXT")
        if not self._memory_read():
            return
        items = [m for m in self.mem.memories(include_disabled=True) if m.id == arg]
        if not items:
            needle = arg.lower()
            items = [
                m for m in self.mem.memories(include_disabled=True) if needle in m.text.lower()
            ]
        if len(items) != 1:
            listing = "\n".join(f"  {m.id}: {m.text}" for m in items[:10])
            self.write(
                f"{len(items)} memories match {arg!r}; give one id"
                + (f":\n{listing}" if listing else "")
            )
            return
        gone = self.mem.forget(items[0].id)
        self.write(f"forgot {gone.id}: {gone.text}")

    def core(self, _: str) -> None:
        """/core"""
        if self._memory_read():
            self.write(
                self.engine.core_for(self.scope)
                or "core.md is empty (nothing distilled yet; 'ogmem sleep deep' writes it)"
            )

    def recall(self, arg: str) -> None:
        """/recall QUERY"""
        if not arg:
            raise InvalidInput("usage: /recall QUERY")
        if self._memory_read():
            result = self.mem.recall(arg, scope=self.scope)
            lines = [
                f"{len(result.items)} item(s), {result.tokens} tokens"
                + (f" (fallback: {result.reason})" if result.fallback else "")
            ]
            if result.items:  # the items as the model gets them
                lines.append(result.as_context())
            self.write("\n".join(lines))

    def rename(self, arg: str) -> None:
        """/rename TITLE"""
        if not arg:
            raise InvalidInput("usage: /rename TITLE")
        if self.session_id is None:
            raise InvalidInput("say something first: the conversation starts with a message")
        info = self.mem.rename_session(self.session_id, arg)
        self.write(f"renamed to {info.title!r}")

    def why(self, _: str) -> None:
        """/why"""
        ctx = self.engine.last_context.get(self.session_id or "")
        self.write(ctx.explain() if ctx else "no context assembled yet")

    def compact(self, _: str) -> None:
        """/compact"""
        if self.session_id is None:
            raise InvalidInput("nothing to compact yet")
        result = self.engine.on_compact(self.session_id)
        self.write("; ".join(result.reasons))

    def close(self) -> None:
        """End the conversation: distil and archive it (a temporary one is erased)."""
        if self.session_id is None:
            return
        result = self.engine.on_session_close(self.session_id, reason="chat ended")
        notice(f"session {self.session_id}: " + "; ".join(result.reasons))


def _llm_settings(
    settings: Settings, base_url: str | None, model: str | None, api_key: str | None
) -> LLMSettings:
    base = settings.llm
    if base_url is None and base is None:
        raise InvalidInput(
            "ogmem chat needs an OpenAI-compatible endpoint: set "
            "OGMEM_LLM_BASE_URL (and OGMEM_LLM_MODEL) or pass --base-url"
        )
    return LLMSettings(
        base_url=base_url or (base.base_url if base else ""),
        model=model or (base.model if base else "default"),
        api_key=api_key or (base.api_key if base else None),
        timeout=base.timeout if base else 60.0,
    )


def run_chat(
    mem: Memory,
    client: ChatClient,
    lines: TextIO,
    *,
    session_id: str | None = None,
    temporary: bool = False,
    project: Path | None = None,
    system: str = SYSTEM,
    budget: int = 8000,
    max_tokens: int = 400,
    first: str | None = None,
) -> str | None:
    """Run a conversation over ``lines`` (a TTY gets a prompt); returns the session id."""
    engine = ContextEngine(mem, EngineConfig(budget=budget, recall_budget=min(2000, budget // 4)))
    loop = ChatLoop(
        engine,
        client,
        session_id=session_id,
        temporary=temporary,
        project=project,
        system=system,
        max_tokens=max_tokens,
        write=typer.echo,
    )
    interactive = lines.isatty()
    try:
        if first and not loop.handle(first):
            return loop.session_id
        while True:
            if interactive:
                sys.stderr.write("you> ")
                sys.stderr.flush()
            line = lines.readline()
            if not line or not loop.handle(line):
                break
    except KeyboardInterrupt:
        notice("")
    finally:
        loop.close()
    return loop.session_id


SessionOption = Annotated[
    str | None,
    typer.Option(
        "--session",
        help="Continue this session (a closed one is reopened). \\[default: a new one]",
    ),
]
TemporaryOption = Annotated[
    bool,
    typer.Option(
        "--temporary",
        help="A conversation that neither reads nor writes memory, erased when it ends.",
    ),
]
ChatProjectOption = Annotated[
    Path | None,
    typer.Option(
        "--project",
        file_okay=False,
        help="Bind the session to the git repository around this directory: memory is read "
        "in its scope, and what changes there during a turn from a clean tree is committed as "
        "the agent's. \\[default: not bound]",
    ),
]
BaseUrlOption = Annotated[
    str | None,
    typer.Option("--base-url", help="OpenAI-compatible endpoint \\[default: $OGMEM_LLM_BASE_URL]"),
]
ApiKeyOption = Annotated[
    str | None,
    typer.Option(
        "--api-key",
        envvar="OGMEM_LLM_API_KEY",
        show_default=False,
        help="\\[default: $OGMEM_LLM_API_KEY]",
    ),
]


def chat(
    session: SessionOption = None,
    temporary: TemporaryOption = False,
    project: ChatProjectOption = None,
    budget: Annotated[
        int,
        typer.Option("--budget", min=2000, max=200_000, help="Tokens of context per model call."),
    ] = 8000,
    base_url: BaseUrlOption = None,
    model: Annotated[
        str | None, typer.Option("--model", help="\\[default: $OGMEM_LLM_MODEL]")
    ] = None,
    api_key: ApiKeyOption = None,
    system: Annotated[str, typer.Option("--system", help="The system prompt.")] = SYSTEM,
    max_tokens: Annotated[
        int, typer.Option("--max-tokens", min=16, max=32_000, help="Longest reply.")
    ] = 400,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
) -> None:
    """Chat in the terminal with any OpenAI-compatible model, with long-term memory.

    Every turn is recorded (one git commit), memory is recalled into each prompt, long
    conversations are compacted, and the session is distilled and archived when it ends
    (/exit or end of input). Lines starting with / are commands; /help lists them.
    """
    settings = Settings.from_env(home=home, account=account, space=space)
    llm = _llm_settings(settings, base_url, model, api_key)
    settings = Settings(**{**settings.__dict__, "llm": llm})
    with Memory(settings=settings) as mem, ChatClient(llm) as client:
        notice(
            f"ogmem chat: {llm.model} at {llm.base_url}; memory in {settings.home}"
            f"{' (temporary conversation)' if temporary else ''}. /help lists commands."
        )
        run_chat(
            mem,
            client,
            sys.stdin,
            session_id=session,
            temporary=temporary,
            project=project,
            system=system,
            budget=budget,
            max_tokens=max_tokens,
        )


def demo_chat(home: Path, account: str | None, space: str | None, question: str) -> None:
    """The demo's second half when an endpoint is configured: ``ogmem chat`` on the memory just
    built, opening with a question about it (then interactive in a terminal)."""
    settings = Settings.from_env(home=home, account=account, space=space)
    if settings.llm is None:
        notice(
            "Set OGMEM_LLM_BASE_URL (and OGMEM_LLM_MODEL) to chat with this memory: "
            f"ogmem chat --home {home}"
        )
        return
    typer.echo(
        f"\nChat with this memory ({settings.llm.model}); /why shows the context, /exit ends."
    )
    typer.echo(f"you> {question}")
    with Memory(settings=settings) as mem, ChatClient(settings.llm) as client:
        lines: TextIO = sys.stdin if sys.stdin.isatty() else io.StringIO("/why\n")
        run_chat(mem, client, lines, first=question)
