"""``python -m ogmemory_hook <event>``: what Claude Code runs at each hook event (installed by
``ogmem hooks install``; ``ogmem hook <event>`` is the same command through the CLI).

It reads the event's JSON from stdin and, when ``ogmem serve`` runs locally (``--server``,
``$OGMEM_SERVER_URL``, default ``http://127.0.0.1:8765``), hands it to the server, whose memory
is warm and whose embedder is loaded. Otherwise it answers on its own from full text, without
loading the embedder (``ogmemory.interfaces.claude_hook.run_local``), and a detached
``ogmem hook-work`` process distils, titles and embeds after the turn.

It never breaks the user's session: whatever fails, it prints nothing, logs to
``<home>/logs/hooks.log`` and exits 0 (Claude Code reads exit code 2 as "block"; see
https://code.claude.com/docs/en/hooks).

This is a top-level module of the ogmemory distribution, and imports only the standard library
until the local path needs the package: importing anything inside ``ogmemory`` first runs the
package's ``__init__``, which loads the whole facade (git, numpy, the index) — about half a
second of start-up that handing an event to a running server does not need.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from logging.handlers import RotatingFileHandler
from pathlib import Path
from typing import IO, Any

__all__ = ["EVENTS", "last_reply", "main"]

EVENTS = ("SessionStart", "UserPromptSubmit", "PostToolUse", "Stop", "PreCompact", "SessionEnd")
DEFAULT_SERVER = "http://127.0.0.1:8765"
MAX_INPUT = 32 * 1024 * 1024
_FALLBACK_STATUSES = (401, 403, 404, 409)  # nothing was recorded: work locally
_TAIL_BYTES = 4 * 1024 * 1024

log = logging.getLogger("ogmemory.hook")


def _home(value: str | None) -> Path:
    env = os.environ.get("OGMEM_HOME")
    return Path(value or env or Path.home() / ".ogmemory").expanduser()


def _setup_log(home: Path) -> None:
    try:
        (home / "logs").mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = RotatingFileHandler(home / "logs" / "hooks.log",
                                                       maxBytes=1_000_000, backupCount=2)
    except OSError:
        handler = logging.NullHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    root = logging.getLogger("ogmemory")
    root.handlers = [handler]
    root.setLevel(logging.INFO)
    root.propagate = False


def _parse(argv: Sequence[str]) -> dict[str, Any]:
    opts: dict[str, Any] = {"event": None, "home": None, "account": None, "space": None,
                            "server": os.environ.get("OGMEM_SERVER_URL") or DEFAULT_SERVER}
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg in ("--home", "--account", "--space", "--server") and args:
            opts[arg[2:]] = args.pop(0)
        elif arg == "--no-server":
            opts["server"] = "off"
        elif opts["event"] is None and not arg.startswith("-"):
            opts["event"] = arg
        else:
            raise ValueError(f"unexpected argument {arg!r}")
    if opts["event"] not in EVENTS:
        raise ValueError(f"usage: ogmem hook <{'|'.join(EVENTS)}> [--home DIR] [--account A] "
                         "[--space S] [--server URL | --no-server]")
    return opts


def main(argv: Sequence[str], stdin: IO[bytes] | None = None,
         stdout: IO[str] | None = None) -> int:
    """Run one hook event; always returns 0 (see the module docstring)."""
    try:
        opts = _parse(argv)
    except ValueError as exc:
        print(f"ogmem hook: {exc}", file=sys.stderr)
        return 0
    home = _home(opts["home"])
    _setup_log(home)
    started = time.perf_counter()
    try:
        if os.environ.get("OGMEM_TEMPORARY", "").lower() in ("1", "true", "yes"):
            log.info("%s: temporary conversation, nothing read or written", opts["event"])
            return 0
        raw = (stdin or sys.stdin.buffer).read(MAX_INPUT + 1)
        if len(raw) > MAX_INPUT:
            raise ValueError(f"hook input larger than {MAX_INPUT} bytes")
        payload = json.loads(raw.decode("utf-8"))
        if opts["event"] == "Stop" and isinstance(payload, dict):
            _add_reply(payload)
        handled, output, how = _via_server(opts, home, payload)
        if not handled:
            from ogmemory.interfaces.claude_hook import run_local

            output, how = run_local(opts["event"], payload, home, opts["account"],
                                    opts["space"]), "local"
        if output:
            out = stdout or sys.stdout
            out.write(json.dumps(output, ensure_ascii=False))
            out.flush()
        log.info("%s %s handled (%s) in %.0f ms", opts["event"], payload.get("session_id"),
                 how, (time.perf_counter() - started) * 1000)
    except Exception:
        log.exception("%s failed; the session goes on without memory for this event",
                      opts["event"])
    return 0


def _add_reply(payload: dict[str, Any]) -> None:
    """Older Claude Code versions send no ``last_assistant_message`` with Stop: read it from
    the transcript here, on the user's machine, so a server never opens a path it is given."""
    reply = payload.get("last_assistant_message")
    if not isinstance(reply, str) or not reply.strip():
        found = last_reply(payload.get("transcript_path"))
        if found:
            payload["last_assistant_message"] = found


def _via_server(opts: dict[str, Any], home: Path,
                payload: Any) -> tuple[bool, dict[str, Any] | None, str]:
    """(handled, output, how). Not handled when no server answers or it serves another home
    (nothing was recorded then); a server that failed mid-way is not retried locally."""
    url = str(opts["server"])
    if url.lower() in ("off", "none", "0", ""):
        return False, None, "local"
    body = {"payload": payload, "home": str(home.resolve()), "account": opts["account"] or
            os.environ.get("OGMEM_ACCOUNT"), "space": opts["space"] or
            os.environ.get("OGMEM_SPACE")}
    headers = {"Content-Type": "application/json"}
    if os.environ.get("OGMEM_API_KEY"):
        headers["Authorization"] = f"Bearer {os.environ['OGMEM_API_KEY']}"
    request = urllib.request.Request(f"{url.rstrip('/')}/v1/engine/claude-code/{opts['event']}",
                                     data=json.dumps(body).encode(), headers=headers,
                                     method="POST")
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback, no proxy
    try:
        with opener.open(request, timeout=20) as response:
            data = json.loads(response.read().decode("utf-8"))
    except urllib.error.HTTPError as exc:
        if exc.code in _FALLBACK_STATUSES:
            log.info("server %s answered %s: working locally", url, exc.code)
            return False, None, "local"
        log.warning("server %s failed with %s: %s", url, exc.code, exc.read()[:300])
        return True, None, f"server error {exc.code}"
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, OSError) and not isinstance(exc.reason, TimeoutError):
            return False, None, "local"  # refused, unreachable: nothing was sent
        raise
    output = data.get("output") if isinstance(data, dict) else None
    return True, output if isinstance(output, dict) else None, "server"


def last_reply(transcript_path: Any) -> str:
    """Claude's final answer of the turn: the text of the assistant entries after the last user
    entry (the prompt or a tool result), read from the end of the transcript (a JSONL file of
    ``{"type": "user"|"assistant", "message": {...}}`` entries, one per content block)."""
    if not isinstance(transcript_path, str) or not transcript_path:
        return ""
    path = Path(os.path.expanduser(transcript_path))
    try:
        with path.open("rb") as fh:
            size = fh.seek(0, os.SEEK_END)
            fh.seek(max(0, size - _TAIL_BYTES))
            lines = fh.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return ""
    texts: list[str] = []
    for line in reversed(lines):
        try:
            entry = json.loads(line)
        except ValueError:
            continue  # a torn last line, or the cut first one
        if not isinstance(entry, dict) or not isinstance(entry.get("message"), dict):
            continue
        content = entry["message"].get("content")
        if entry.get("type") == "assistant" and isinstance(content, list):
            texts += [b["text"] for b in reversed(content) if isinstance(b, dict)
                      and b.get("type") == "text" and isinstance(b.get("text"), str)]
        elif entry.get("type") == "user":
            break  # the prompt, or a tool result: what follows it is the final answer
    return "\n\n".join(reversed([t for t in texts if t.strip()]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
