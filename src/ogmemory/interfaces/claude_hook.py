"""``ogmem hook <event>``: the command Claude Code runs at each hook event.

It reads the event's JSON from stdin and, when ``ogmem serve`` runs locally (``--server``,
``$OGMEM_SERVER_URL``, default ``http://127.0.0.1:8765``), hands it to the server, whose memory
is warm and whose embedder is loaded. Otherwise it answers on its own from full text, without
loading the embedder: the documents it writes queue their embeddings for the index's embedder,
and a detached ``ogmem hook-work`` process distils, titles and embeds after the turn.

It never breaks the user's session: whatever fails, it prints nothing, logs to
``<home>/logs/hooks.log`` and exits 0 (Claude Code reads exit code 2 as "block"; see
https://code.claude.com/docs/en/hooks). Until the local path is needed this module imports only
the standard library (``ogmemory.interfaces.entry`` dispatches here before loading anything
else), so forwarding to a server costs one Python start-up.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from logging.handlers import RotatingFileHandler
from pathlib import Path
from typing import IO, Any

__all__ = ["background_work", "main", "run_local"]

EVENTS = ("SessionStart", "UserPromptSubmit", "PostToolUse", "Stop", "PreCompact", "SessionEnd")
DEFAULT_SERVER = "http://127.0.0.1:8765"
MAX_INPUT = 32 * 1024 * 1024
_FALLBACK_STATUSES = (401, 403, 404, 409)  # nothing was recorded: work locally
#: events after which a detached worker distils, titles and embeds (local path only)
_BACKGROUND_EVENTS = ("Stop", "SessionEnd", "PreCompact")

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
        from ..engine.transcript import last_reply

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


def run_local(event: str, payload: Any, home: Path, account: str | None,
              space: str | None) -> dict[str, Any] | None:
    """Handle the event in this process: full text only (no embedder is loaded), no LLM
    calls, no background threads; the slow work goes to a detached ``ogmem hook-work``."""
    from ..config import Settings
    from ..engine import ContextEngine
    from ..engine.claude_code import handle_event
    from ..memory import Memory

    settings = Settings.from_env(home=home, account=account, space=space, embedder="none",
                                 distill_on_turn=False, index_worker=False)
    settings = Settings(**{**settings.__dict__, "llm": None})
    with Memory(settings=settings) as mem:
        output = handle_event(ContextEngine(mem), event, payload)
    sid = payload.get("session_id") if isinstance(payload, dict) else None
    if event in _BACKGROUND_EVENTS and isinstance(sid, str):
        _spawn_background(sid, home, account, space)
    return output


def _spawn_background(session_id: str, home: Path, account: str | None,
                      space: str | None) -> None:
    if os.environ.get("OGMEM_HOOK_BACKGROUND", "1").lower() in ("0", "false", "no"):
        return
    argv = [sys.executable, "-m", "ogmemory.interfaces.cli", "hook-work", session_id,
            "--home", str(home)]
    for flag, value in (("--account", account), ("--space", space)):
        if value:
            argv += [flag, value]
    subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True)


def background_work(session_id: str, home: Path, account: str | None,
                    space: str | None) -> dict[str, Any]:
    """After a turn handled locally: distil what is pending, title the session with the LLM
    (when one is configured), index it and embed the queued documents. One worker at a time per
    tenant; a run that finds one busy leaves it a note to go round once more."""
    import fcntl

    from ..config import Settings
    from ..memory import Memory

    settings = Settings.from_env(home=home, account=account, space=space, index_worker=False,
                                 distill_on_turn=False)
    with Memory(settings=settings) as mem:
        work = mem.tenant.root / "engine"
        work.mkdir(parents=True, exist_ok=True)
        again = work / "work.again"
        fd = os.open(work / "work.lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                again.touch()
                return {"ran": False, "reason": "another worker is running; it goes round again"}
            done = {"ran": True, "rounds": 0, "nodes": 0, "embedded": 0}
            for _ in range(20):
                again.unlink(missing_ok=True)
                done["nodes"] += mem.distill().nodes
                if settings.llm is not None and done["rounds"] == 0:
                    try:
                        mem.generate_title(session_id)  # no-op once titled or renamed
                    except Exception:
                        log.warning("title of %s failed", session_id, exc_info=True)
                mem.sync_index()
                done["embedded"] += mem.drain_outbox()
                done["rounds"] += 1
                if not again.exists():
                    break
            return done
        finally:
            os.close(fd)
