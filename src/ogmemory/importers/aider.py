"""aider's chat log: ``.aider.chat.history.md`` at the root of the repository it worked in.

aider appends Markdown as it goes (``aider/io.py``): ``# aider chat started at <local time>``
opens a session; each line of what the user typed is prefixed ``#### ``; the model's answer is
plain Markdown; aider's own output (edits applied, commits made, command output, token costs,
confirmations) is block-quoted ``> ``. There are no per-message times; the prompt history
``.aider.input.history`` beside it (``# <time>`` then ``+``-prefixed lines per entry), when it
exists, dates each prompt.

How they become sessions: one per ``chat started`` header, ``aider-<repo>-<hash>-<start>``,
bound to the repository. A prompt is a user message, an answer an assistant message; a quoted
block becomes the work aider did: one assistant step whose ``tool_calls`` are ``edit_file``
(each "Applied edit to"), ``git_commit`` (each "Commit <sha> <message>"), ``run`` (the output
of ``/run``, ``/test`` or ``!``) or ``aider`` (other output, e.g. a failed edit), each answered
by a ``tool`` message. Status lines (token counts, "Added x to the chat", confirmations) are
left out and counted; the header block (version, model, repository) becomes session metadata.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import re
from dataclasses import replace
from datetime import datetime
from pathlib import Path, PurePath
from typing import Any

from .base import session_key, slug
from .model import DEFAULT_LIMIT, DraftNode, Issue, ParseResult, iter_lines, truncate

__all__ = [
    "AGENT_ID",
    "HISTORY_FILE",
    "INPUT_HISTORY_FILE",
    "discover",
    "parse",
    "read_input_history",
]

AGENT_ID = "aider"
HISTORY_FILE = ".aider.chat.history.md"
INPUT_HISTORY_FILE = ".aider.input.history"
_HEADER = re.compile(r"^# aider chat started at (?P<when>\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d)")
_EDIT = re.compile(r"^Applied edit to (?P<path>.+?)\s*$")
_COMMIT = re.compile(r"^Commit (?P<sha>[0-9a-f]{7,40}) (?P<message>.+?)\s*$")
_RUN = re.compile(r"^(?:/(?:run|test)\s+|!)(?P<cmd>.+)$", re.DOTALL)
_STATUS = re.compile(
    r"^(?:Tokens: |Cost: |Added .+ to the chat|Removed .+ from the chat|Dropping |"
    r"You can use /undo|Repo-map:|Use /help|Aider v\d|Main model:|Model:|Weak model:|"
    r"Editor model:|Git repo:|Warning: |Added \d+ lines? of output|Restored previous|"
    r"Scraping |https?://\S+$)|\(Y\)es/\(N\)o"
)
_VERSION = re.compile(r"^Aider v(?P<v>\S+)")
_MODEL = re.compile(r"^(?:Main model|Model): (?P<m>\S+)")


def discover(root: Path) -> list[Path]:
    """``.aider.chat.history.md`` files: ``root`` itself, or under it (a folder of repos)."""
    if root.is_file():
        return [root]
    return sorted(p for p in root.rglob(HISTORY_FILE) if p.is_file())


def read_input_history(text: str) -> dict[str, list[float]]:
    """``.aider.input.history`` as prompt text -> the times it was entered (sorted)."""
    out: dict[str, list[float]] = {}
    when: float | None = None
    lines: list[str] = []

    def flush() -> None:
        if when is not None and lines:
            out.setdefault("\n".join(lines).strip(), []).append(when)

    for raw in text.splitlines():
        if raw.startswith("# "):  # prompt_toolkit's FileHistory: "# <time>", then "+<line>"s
            flush()
            lines = []
            when = _local(raw[2:].strip())
        elif raw.startswith("+"):
            lines.append(raw[1:])
    flush()
    return {k: sorted(v) for k, v in out.items()}


def _local(text: str) -> float | None:
    try:
        return datetime.fromisoformat(text).timestamp()  # naive: the machine's local time
    except ValueError:
        return None


class _Reader:
    def __init__(
        self,
        path: str,
        result: ParseResult,
        context: dict[str, Any],
        prompts: dict[str, list[float]],
        limit: int,
    ) -> None:
        self.path = path
        self.result = result
        self.prompts = prompts
        self.limit = limit
        self.session: str | None = context.get("session")
        self.info: dict[str, Any] = dict(context.get("info") or {})
        self.used: list[str] = list(context.get("used") or [])
        self.last_time = float(context.get("last_time") or 0.0)
        self.fence = bool(context.get("fence"))
        self.prompt: str = str(context.get("prompt") or "")
        self.block: list[tuple[int, str]] = []
        self.kind = ""  # what ``block`` holds: "user", "text" or "quote"

    def context(self) -> dict[str, Any]:
        return {
            "session": self.session,
            "info": self.info,
            "used": self.used[-200:],
            "last_time": self.last_time,
            "fence": self.fence,
            "prompt": self.prompt,
        }

    # ------------------------------------------------------------------ lines

    def line(self, number: int, text: str) -> None:
        header = _HEADER.match(text)
        if header and not self.fence:
            self.flush()
            self.start(header.group("when"))
            return
        if self.session is None:
            if text.strip():
                self.result.dropped["text before the first session"] += 1
            return
        if text.startswith("####") and not self.fence:
            self.switch("user")
        elif text.startswith(">") and not self.fence:
            self.switch("quote")
        elif not text.strip() and self.kind in ("user", "quote"):
            return  # blank lines around prompts and quotes separate, they are not content
        else:
            self.switch("text")
            if text.lstrip().startswith(("```", "~~~")):
                self.fence = not self.fence
        self.block.append((number, text))

    def switch(self, kind: str) -> None:
        if kind != self.kind:
            self.flush()
            self.kind = kind

    def start(self, when_text: str) -> None:
        when = _local(when_text.replace("T", " ")) or self.last_time
        self.last_time = when
        folder = PurePath(self.path).parent
        digest = hashlib.sha1(str(folder).encode()).hexdigest()[:6]
        stamp = when_text.replace("-", "").replace(":", "").replace(" ", "-").replace("T", "-")
        base = session_key("aider", f"{slug(folder.name)[:40]}-{digest}-{stamp}")
        sid, n = base, 1
        while sid in self.used:
            n += 1
            sid = f"{base}-{n}"
        self.used.append(sid)
        self.session = sid
        self.info = {"format": "aider", "source": self.path, "cwd": str(folder), "started_at": when}
        self.prompt = ""
        self.fence = False

    # ------------------------------------------------------------------ blocks

    def flush(self) -> None:
        block, kind = self.block, self.kind
        self.block, self.kind = [], ""
        if not block or self.session is None:
            return
        first = block[0][0]
        if kind == "user":
            self.user(first, [t[4:].removeprefix(" ").removesuffix("  ") for _, t in block])
        elif kind == "quote":
            lines = [t[1:].removeprefix(" ").rstrip() for _, t in block]
            if not self.has_nodes():
                self.header_info(lines)
            else:
                self.quote(first, lines)
        else:
            text = "\n".join(t for _, t in block).strip()
            if text:
                self.add(
                    DraftNode(
                        f"L{first}", "assistant", text, self.last_time, metadata=self.model_meta()
                    )
                )

    def has_nodes(self) -> bool:
        draft = self.result.sessions.get(self.session or "")
        return bool(draft and draft.nodes) or bool(self.info.get("_has_nodes"))

    def model_meta(self) -> dict[str, Any]:
        model = self.info.get("model")
        return {"model": model} if isinstance(model, str) else {}

    def add(self, node: DraftNode) -> None:
        assert self.session is not None
        draft = self.result.session(self.session)
        draft.info.update({k: v for k, v in self.info.items() if not k.startswith("_")})
        draft.cwd = str(self.info.get("cwd") or "") or None
        number = node.id[1:].split("-", 1)[0]
        draft.nodes.append(replace(node, line=int(number)) if number.isdigit() else node)
        self.info["_has_nodes"] = True

    def header_info(self, lines: list[str]) -> None:
        kept = [line for line in lines if line]
        for line in kept:
            if (m := _VERSION.match(line)) is not None:
                self.info["aider_version"] = m.group("v")
            elif (m := _MODEL.match(line)) is not None:
                self.info["model"] = m.group("m")
            elif line.startswith("Git repo: "):
                self.info["git_repo"] = line.removeprefix("Git repo: ")
        if kept and ("aider" in kept[0] and not _STATUS.search(kept[0])):
            self.info.setdefault("command", kept[0][:500])
        self.result.dropped["session header"] += len(kept)

    def user(self, first: int, lines: list[str]) -> None:
        text = "\n".join(lines).strip()
        if not text or text == "<blank>":
            self.result.dropped["empty prompt"] += 1
            return
        self.prompt = text
        times = self.prompts.get(text, [])
        i = bisect.bisect_left(times, self.last_time)
        if i < len(times):
            self.last_time = times[i]
        meta: dict[str, Any] = {"kind": "command"} if text.startswith(("/", "!")) else {}
        self.add(DraftNode(f"L{first}", "user", text, self.last_time, metadata=meta, new_turn=True))

    def quote(self, first: int, lines: list[str]) -> None:
        calls: list[tuple[str, dict[str, Any], str]] = []
        other: list[str] = []
        for line in lines:
            if not line:
                other.append(line)
            elif (m := _EDIT.match(line)) is not None:
                calls.append(("edit_file", {"path": m.group("path")}, line))
            elif (m := _COMMIT.match(line)) is not None:
                calls.append(
                    ("git_commit", {"sha": m.group("sha"), "message": m.group("message")}, line)
                )
            elif _STATUS.search(line):
                self.result.dropped["status line"] += 1
            else:
                other.append(line)
        output = "\n".join(other).strip()
        if output:
            run = _RUN.match(self.prompt)
            if run is not None and not calls:
                calls.append(("run", {"command": run.group("cmd").strip()}, output))
            else:
                calls.append(("aider", {}, output))
        if not calls:
            return
        ids = [f"L{first}-{k}" for k in range(1, len(calls) + 1)]
        tool_calls = [
            {
                "id": cid,
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)},
            }
            for cid, (name, args, _) in zip(ids, calls, strict=True)
        ]
        self.add(
            DraftNode(
                f"L{first}",
                "assistant",
                None,
                self.last_time,
                tool_calls=tool_calls,
                metadata={"synthetic": True, "by": "aider"},
            )
        )
        for cid, (name, _, body) in zip(ids, calls, strict=True):
            text, meta = truncate(body, self.limit)
            self.add(
                DraftNode(
                    f"{cid}-r",
                    "tool",
                    text,
                    self.last_time,
                    name=name,
                    tool_call_id=cid,
                    metadata=meta,
                )
            )


def parse(
    data: bytes,
    *,
    path: str,
    start: int = 0,
    line: int = 1,
    context: dict[str, Any] | None = None,
    limit: int = DEFAULT_LIMIT,
    input_history: str | None = None,
) -> ParseResult:
    """Read ``data[start:]`` (the bytes not imported yet) of the chat log ``path``;
    ``input_history`` is the text of ``.aider.input.history``, when there is one."""
    result = ParseResult()
    prompts = read_input_history(input_history) if input_history else {}
    reader = _Reader(path, result, context or {}, prompts, limit)
    for ln in iter_lines(
        data, start=start, first_line=line, path=path, result=result, final_json=False
    ):
        reader.line(ln.number, ln.text)
    reader.flush()
    result.context = reader.context()
    if not result.messages and start == 0:
        result.issues.append(Issue(path, None, "empty file" if not data.strip() else "no messages"))
    return result
