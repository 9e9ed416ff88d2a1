"""⑤ Compaction: fold older turns into one summary that keeps the signal.

Rule-based by default: one line per message (user and assistant text cut to a sentence or
two, tool calls with their arguments, tool outputs to their first line), repeated context shown
once, and the files read and written listed. With an LLM configured, the model writes the
summary from the same lines; any failure falls back to the rules and says why.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..config import LLMSettings
from ..entity.records import Node
from ..entity.times import day_label
from ..llm.client import LLMError
from .live import dedupe, files_of, tool_calls_by_id

__all__ = ["Summary", "summarize"]

log = logging.getLogger(__name__)

_LINE_CHARS = 240
_HEADER = "Summary of the earlier conversation"
LLM_PROMPT = (
    "You compress the earlier part of a conversation for an AI assistant that must continue "
    "it. Write a concise summary of at most {words} words: the facts about the user, their "
    "preferences and decisions, what was done, the files read or changed, and what is still "
    "open. Plain text, no preamble."
)


@dataclass(frozen=True)
class Summary:
    text: str
    method: str  # rules | llm
    deduplicated: int
    note: str | None = None  # why the rules were used although an LLM was configured


def _one_line(text: str, limit: int = _LINE_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def message_lines(nodes: Sequence[Node]) -> tuple[list[str], list[str], list[str], int]:
    """(lines, files read, files written, outputs deduplicated) for ``nodes``."""
    calls = tool_calls_by_id(nodes)
    repeated = dedupe(nodes)
    lines: list[str] = []
    read: dict[str, None] = {}
    written: dict[str, None] = {}
    day = ""
    for node in nodes:
        if day_label(node.event_time) != day:
            day = day_label(node.event_time)
            lines.append(f"[{day}]")
        if node.role == "tool":
            call = calls.get(str(node.tool_call_id))
            r, w = files_of(node, call)
            read.update(dict.fromkeys(r))
            written.update(dict.fromkeys(w))
            name = call["name"] if call else (node.name or "tool")
            body = repeated.get(node.id) or _one_line(node.text.split("\n", 1)[0], 120)
            lines.append(f"  → {name}: {body}")
        elif node.tool_calls:
            for call in node.tool_calls:
                fn = call.get("function") if isinstance(call, dict) else None
                if isinstance(fn, dict):
                    args = _one_line(str(fn.get("arguments") or ""), 120)
                    lines.append(f"{node.role} called {fn.get('name', 'tool')}({args})")
            if isinstance(node.content, str) and node.content.strip():
                lines.append(f"{node.role}: {_one_line(node.content)}")
        elif node.text.strip():
            lines.append(f"{node.name or node.role}: {_one_line(node.text)}")
    return lines, list(read), list(written), len(repeated)


def _body(previous: Node | None) -> list[str]:
    if previous is None:
        return []
    lines = previous.text.splitlines()
    # drop the previous header and file lists: they are rebuilt over everything folded
    return [ln for ln in lines[1:] if not ln.startswith(("Files read:", "Files written:"))]


def _fit(
    header: str, lines: list[str], tail: list[str], cap: int, count: Callable[[str], int]
) -> str:
    """Header, the newest lines that fit in ``cap`` tokens, and the file lists."""
    kept = list(lines)
    dropped = 0

    def render() -> str:
        omitted = (
            [f"(… {dropped} older lines omitted; the folded nodes stay in the session)"]
            if dropped
            else []
        )
        return "\n".join([header, *omitted, *kept, *tail])

    while kept and count(render()) > cap:
        # drop the oldest tenth at a time: a long history fits in a few token counts
        step = max(1, len(kept) // 10)
        kept = kept[step:]
        dropped += step
    text = render()
    if count(text) > cap:  # the file lists alone are too long: shorten them, then cut
        tail = [_one_line(t, 400) for t in tail]
        text = render()
        while count(text) > cap and len(text) > 200:
            text = text[: int(len(text) * 0.8)] + "…"
    return text


def summarize(
    previous: Node | None,
    folded: Sequence[Node],
    *,
    cap: int,
    count: Callable[[str], int],
    llm: LLMSettings | None = None,
) -> Summary:
    """The summary replacing ``previous`` (the last summary, if any) and ``folded``, within
    ``cap`` tokens."""
    lines, read, written, deduplicated = message_lines(folded)
    tail = []
    if read:
        tail.append("Files read: " + ", ".join(read[:40]))
    if written:
        tail.append("Files written: " + ", ".join(written[:40]))
    note = None
    if llm is not None:
        try:
            text = _llm_summary(llm, [*_body(previous), *lines, *tail], cap, count)
            return Summary(text, "llm", deduplicated)
        except (LLMError, ValueError) as exc:  # model output is never trusted; rules work
            log.warning("LLM compaction failed, using the rules: %s", exc)
            note = f"the LLM summary failed ({type(exc).__name__}: {str(exc)[:160]}); rules used"
    header = f"{_HEADER} ({len(folded)} more messages folded; rules):"
    text = _fit(header, [*_body(previous), *lines], tail, cap, count)
    return Summary(text, "rules", deduplicated, note)


def _llm_summary(llm: LLMSettings, lines: list[str], cap: int, count: Callable[[str], int]) -> str:
    from ..llm.client import ChatClient

    # the transcript the model reads is bounded too (small models have small windows)
    source = _fit("Conversation:", lines, [], 2500, count)
    words = max(40, int(cap * 0.6))
    messages = [
        {"role": "system", "content": LLM_PROMPT.format(words=words)},
        {"role": "user", "content": source},
    ]
    with ChatClient(llm) as client:
        reply = client.chat(messages, max_tokens=min(cap, 600), temperature=0.2)
    text = reply.content.strip()
    if len(text) < 20:
        raise ValueError(f"the model returned {len(text)} characters")
    header = f"{_HEADER} (written by {llm.model}):"
    return _fit(header, text.splitlines(), [], cap, count)
