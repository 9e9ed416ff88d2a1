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
package's ``__init__``, which loads the whole facade (git, numpy, the index) — 0.3 s of
start-up on a quiet machine that handing an event to a running server does not need. The
server path imports ``json`` and ``socket`` and little else: not ``logging`` (log lines are
appended by hand, in the same format and file), ``pathlib``, ``typing`` nor ``http.client``
(which pulls in ``email`` and ``ssl``: 35 ms of a loaded machine's start-up); HTTP/1.1 to a
plain ``http://`` server is a few lines over a socket, ``https://`` goes through
``http.client``.

Claude Code does not always close the hook's stdin after writing the event (SessionEnd on
``/clear``: https://github.com/anthropics/claude-code/issues/79508; any event on Windows:
https://github.com/anthropics/claude-code/issues/78756), so the input is read until it is one
complete JSON object, not until end of file.
"""

from __future__ import annotations

import json
import os
import sys
import time

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs start-up time
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import IO, Any

__all__ = ["EVENTS", "last_reply", "main", "read_input"]

#: the events handled (``engine.claude_code.HOOK_EVENTS`` is this tuple)
EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PostToolUse",
    # PostToolUse fires only when a tool succeeds; one that started and failed fires this
    # instead (hooks reference, "PostToolUseFailure" and "PostToolUseFailure input",
    # https://code.claude.com/docs/en/hooks): without it a failed call left no node at all
    "PostToolUseFailure",
    "Stop",
    "PreCompact",
    "SessionEnd",
)
DEFAULT_SERVER = "http://127.0.0.1:8765"
MAX_INPUT = 32 * 1024 * 1024
_FALLBACK_STATUSES = (401, 403, 404, 409)  # nothing was recorded: work locally
_TAIL_BYTES = 4 * 1024 * 1024
_STDIN_WAIT = 10.0  # seconds to wait for an event that has not arrived in full
#: seconds to wait for the server's answer: below the timeout ``ogmem hooks install`` sets
#: for the event (engine.claude_settings.TIMEOUTS), so that a stuck server ends in a logged,
#: silent exit 0 here rather than in Claude Code cancelling the hook
SERVER_WAIT = {
    "SessionStart": 12.0,
    "UserPromptSubmit": 12.0,
    "PostToolUse": 7.0,
    "PostToolUseFailure": 7.0,
    "Stop": 26.0,
    "PreCompact": 26.0,
    "SessionEnd": 55.0,
}
_LOG_BYTES, _LOG_BACKUPS = 1_000_000, 2


def _home(value: str | None) -> str:
    home = value or os.environ.get("OGMEM_HOME") or os.path.join("~", ".ogmemory")
    return os.path.abspath(os.path.expanduser(home))


class _Log:
    """``<home>/logs/hooks.log``, written without the ``logging`` package (which the server path
    does not import); the local path adds ``logging``'s handler for the package's own loggers,
    in the same format and with the same rotation (1 MB, two backups)."""

    def __init__(self, home: str) -> None:
        self.path = os.path.join(home, "logs", "hooks.log")

    def write(self, level: str, message: str) -> None:
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            if os.path.exists(self.path) and os.path.getsize(self.path) > _LOG_BYTES:
                for i in range(_LOG_BACKUPS, 0, -1):
                    newer = f"{self.path}.{i - 1}" if i > 1 else self.path
                    if os.path.exists(newer):
                        os.replace(newer, f"{self.path}.{i}")
            now = time.time()
            stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(now))
            with open(self.path, "a", encoding="utf-8") as fh:
                fh.write(f"{stamp},{int(now * 1000) % 1000:03d} {level} {message}\n")
        except OSError:
            pass  # nowhere to log: the session goes on all the same

    def info(self, message: str) -> None:
        self.write("INFO", message)

    def error(self, message: str) -> None:
        import traceback

        self.write("ERROR", f"{message}\n{traceback.format_exc().rstrip()}")

    def route_package_logs(self) -> None:
        """Send the package's loggers (``ogmemory.*``) to the same file (local path only)."""
        import logging
        from logging.handlers import RotatingFileHandler

        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            handler: logging.Handler = RotatingFileHandler(
                self.path, maxBytes=_LOG_BYTES, backupCount=_LOG_BACKUPS
            )
        except OSError:
            handler = logging.NullHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        root = logging.getLogger("ogmemory")
        root.handlers = [handler]
        root.setLevel(logging.INFO)
        root.propagate = False


def _parse(argv: Sequence[str]) -> dict[str, Any]:
    opts: dict[str, Any] = {
        "event": None,
        "home": None,
        "account": None,
        "space": None,
        "server": os.environ.get("OGMEM_SERVER_URL") or DEFAULT_SERVER,
    }
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
        raise ValueError(
            f"usage: ogmem hook <{'|'.join(EVENTS)}> [--home DIR] [--account A] "
            "[--space S] [--server URL | --no-server]"
        )
    return opts


def main(argv: Sequence[str], stdin: IO[bytes] | None = None, stdout: IO[str] | None = None) -> int:
    """Run one hook event; always returns 0 (see the module docstring)."""
    try:
        opts = _parse(argv)
    except ValueError as exc:
        print(f"ogmem hook: {exc}", file=sys.stderr)
        return 0
    try:
        home = _home(opts["home"])
    except (OSError, ValueError):  # e.g. a relative --home under a deleted working directory
        home = _home(os.path.join("~", ".ogmemory"))
    log = _Log(home)
    started = time.perf_counter()
    try:
        if os.environ.get("OGMEM_TEMPORARY", "").lower() in ("1", "true", "yes"):
            log.info(f"{opts['event']}: temporary conversation, nothing read or written")
            return 0
        raw = read_input(stdin or sys.stdin.buffer)
        if len(raw) > MAX_INPUT:
            raise ValueError(f"hook input larger than {MAX_INPUT} bytes")
        payload = json.loads(raw.decode("utf-8"))
        if opts["event"] == "Stop" and isinstance(payload, dict):
            _add_reply(payload)
        handled, output, how = _via_server(opts, home, payload, log)
        if not handled:
            output, how = _local(opts, home, payload, log, guard=stdout is None), "local"
        if output is not None and not _is_context(output, opts["event"]):
            log.write("WARNING", f"{opts['event']}: an answer not in the hook format is dropped")
            output = None
        if output is not None:
            _emit(json.dumps(output, ensure_ascii=False), stdout)
        sid = payload.get("session_id") if isinstance(payload, dict) else None
        log.info(
            f"{opts['event']} {sid} handled ({how}) in "
            f"{(time.perf_counter() - started) * 1000:.0f} ms"
        )
    except (Exception, KeyboardInterrupt):  # an interrupt too: exit 0, never a traceback
        log.error(f"{opts['event']} failed; the session goes on without memory for this event")
    return 0


def _local(
    opts: dict[str, Any], home: str, payload: Any, log: _Log, *, guard: bool
) -> dict[str, Any] | None:
    """The event handled in this process. With ``guard`` (a real process), whatever the
    package or a library it loads would print on standard output goes to standard error
    instead: on SessionStart and UserPromptSubmit, Claude Code adds a hook's stdout to the
    model's context, so only the answer may reach it."""
    log.route_package_logs()
    saved_fd, saved = -1, sys.stdout
    if guard:
        try:
            sys.stdout.flush()
            saved_fd = os.dup(1)
            os.dup2(2, 1)
        except (OSError, ValueError):  # no file descriptors to swap: Python's stream at least
            saved_fd = -1
        sys.stdout = sys.stderr
    try:
        from pathlib import Path

        from ogmemory.interfaces.claude_hook import run_local

        return run_local(opts["event"], payload, Path(home), opts["account"], opts["space"])
    finally:
        if guard:
            sys.stdout = saved
            if saved_fd >= 0:
                try:
                    sys.stderr.flush()
                    os.dup2(saved_fd, 1)
                    os.close(saved_fd)
                except (OSError, ValueError):
                    pass


def _is_context(output: Any, event: str) -> bool:
    """Whether ``output`` is what Claude Code documents for adding context (hooks reference,
    "JSON output" and "Add context for Claude"): only that is ever printed."""
    if not isinstance(output, dict) or set(output) != {"hookSpecificOutput"}:
        return False
    specific = output["hookSpecificOutput"]
    return (
        isinstance(specific, dict)
        and set(specific) == {"hookEventName", "additionalContext"}
        and specific["hookEventName"] == event
        and isinstance(specific["additionalContext"], str)
    )


def _emit(text: str, stdout: IO[str] | None) -> None:
    """Write the answer: as UTF-8 bytes on a real standard output (whatever the locale's
    encoding, Claude Code reads UTF-8 JSON). A broken pipe leaves standard output on the null
    device, so that the interpreter's own flush at exit cannot fail and change the exit code."""
    if stdout is not None:
        stdout.write(text)
        stdout.flush()
        return
    try:
        sys.stdout.flush()
        sys.stdout.buffer.write(text.encode("utf-8"))
        sys.stdout.buffer.flush()
    except (OSError, ValueError):
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.close(devnull)
        except OSError:
            pass
        raise


def read_input(stream: IO[bytes]) -> bytes:
    """The event's JSON from ``stream``: everything up to end of file, or up to the moment what
    arrived parses as one JSON object when the writer keeps the pipe open (see the module
    docstring). Gives up after ``_STDIN_WAIT`` seconds without a complete object."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # not a file (a test's BytesIO)
        return stream.read(MAX_INPUT + 1)
    import select

    chunks: list[bytes] = []
    size = 0
    deadline = time.monotonic() + _STDIN_WAIT
    while size <= MAX_INPUT:
        try:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        except (OSError, ValueError):  # no select on this kind of file: read to the end
            return b"".join(chunks) + stream.read(MAX_INPUT + 1 - size)
        if not ready:
            break  # nothing complete arrived in time: the caller fails to parse it, and logs
        data = os.read(fd, 1 << 16)
        if not data:
            break  # end of file
        chunks.append(data)
        size += len(data)
        if data.rstrip().endswith(b"}") and _is_object(b"".join(chunks)):
            break
    return b"".join(chunks)


def _is_object(raw: bytes) -> bool:
    try:
        return isinstance(json.loads(raw.decode("utf-8")), dict)
    except ValueError:
        return False


def _add_reply(payload: dict[str, Any]) -> None:
    """Older Claude Code versions send no ``last_assistant_message`` with Stop: read it from
    the transcript here, on the user's machine, so a server never opens a path it is given."""
    reply = payload.get("last_assistant_message")
    if not isinstance(reply, str) or not reply.strip():
        found = last_reply(payload.get("transcript_path"))
        if found:
            payload["last_assistant_message"] = found


def _via_server(
    opts: dict[str, Any], home: str, payload: Any, log: _Log
) -> tuple[bool, dict[str, Any] | None, str]:
    """(handled, output, how). Not handled when no server answers or it serves another home
    (nothing was recorded then); a server that failed mid-way is not retried locally."""
    url = str(opts["server"])
    if url.lower() in ("off", "none", "0", ""):
        return False, None, "local"
    body = json.dumps(
        {
            "payload": payload,
            "home": home,
            "account": opts["account"] or os.environ.get("OGMEM_ACCOUNT"),
            "space": opts["space"] or os.environ.get("OGMEM_SPACE"),
        }
    ).encode()
    headers = {"Content-Type": "application/json", "Connection": "close"}
    if os.environ.get("OGMEM_API_KEY"):
        headers["Authorization"] = f"Bearer {os.environ['OGMEM_API_KEY']}"
    try:
        status, content = _post(
            url,
            f"/v1/engine/claude-code/{opts['event']}",
            body,
            headers,
            SERVER_WAIT[opts["event"]],
        )
    except _NotConnected:
        return False, None, "local"  # refused, unreachable: nothing was sent
    if status in _FALLBACK_STATUSES:
        log.info(f"server {url} answered {status}: working locally")
        return False, None, "local"
    if status >= 300:
        log.write("WARNING", f"server {url} failed with {status}: {content[:300]!r}")
        return True, None, f"server error {status}"
    data = json.loads(content.decode("utf-8"))
    output = data.get("output") if isinstance(data, dict) else None
    return True, output if isinstance(output, dict) else None, "server"


class _NotConnected(Exception):
    """No connection was made: nothing reached the server."""


def _split_url(url: str) -> tuple[str, str, int, str]:
    """(scheme, host, port, path prefix) of an ``http(s)://host[:port][/prefix]`` URL."""
    scheme, sep, rest = url.partition("://")
    scheme = scheme.lower()
    if not sep or scheme not in ("http", "https"):
        raise ValueError(f"the server URL {url!r} is not an http(s) URL")
    hostport, slash, path = rest.partition("/")
    host, port = hostport, 443 if scheme == "https" else 80
    if hostport.startswith("["):  # [::1]:8765
        host, _, tail = hostport[1:].partition("]")
        if tail.startswith(":"):
            port = int(tail[1:])
    elif ":" in hostport:
        host, _, number = hostport.rpartition(":")
        port = int(number)
    if not host:
        raise ValueError(f"the server URL {url!r} names no host")
    return scheme, host, port, (slash + path).rstrip("/")


def _post(
    url: str, path: str, body: bytes, headers: dict[str, str], wait: float = 20.0
) -> tuple[int, bytes]:
    """POST ``body`` to ``url`` + ``path``, directly (never through a proxy: the server is
    normally on loopback); (status, body of the answer). ``_NotConnected`` when the connection
    could not be made; a timeout or a broken exchange raise."""
    scheme, host, port, prefix = _split_url(url)
    if scheme == "https":
        from http.client import HTTPException, HTTPSConnection

        conn = HTTPSConnection(host, port, timeout=wait)
        try:
            try:
                conn.connect()
            except OSError as exc:
                if isinstance(exc, TimeoutError):
                    raise
                raise _NotConnected from exc
            conn.request("POST", prefix + path, body=body, headers=headers)
            response = conn.getresponse()
            return response.status, response.read()
        except HTTPException as exc:
            raise OSError(f"server {url} broke the exchange: {exc!r}") from exc
        finally:
            conn.close()
    import socket

    try:
        sock = socket.create_connection((host, port), timeout=min(wait, 5.0))
    except OSError as exc:
        if isinstance(exc, TimeoutError):
            raise
        raise _NotConnected from exc
    with sock:
        deadline = time.monotonic() + wait
        lines = [
            f"POST {prefix}{path} HTTP/1.1",
            f"Host: {host}:{port}",
            f"Content-Length: {len(body)}",
        ] + [f"{k}: {v}" for k, v in headers.items()]
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
        chunks = []
        while True:  # one deadline for the whole answer, not one per read
            sock.settimeout(max(0.05, deadline - time.monotonic()))
            data = sock.recv(1 << 16)
            if not data:
                break
            chunks.append(data)
    return _parse_response(b"".join(chunks), url)


def _parse_response(raw: bytes, url: str) -> tuple[int, bytes]:
    """(status, body) of an HTTP/1.1 response read to the end of the connection."""
    head, sep, content = raw.partition(b"\r\n\r\n")
    status_line, *fields = head.decode("latin-1").split("\r\n")
    parts = status_line.split(" ", 2)
    if not sep or len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
        raise OSError(f"server {url} sent no HTTP response: {raw[:100]!r}")
    names = {k.strip().lower(): v.strip() for k, _, v in (f.partition(":") for f in fields)}
    if names.get("transfer-encoding", "").lower() == "chunked":
        body, rest = b"", content
        while True:
            size_line, _, rest = rest.partition(b"\r\n")
            size = int(size_line.split(b";")[0] or b"0", 16)
            if size == 0:
                break
            body, rest = body + rest[:size], rest[size + 2 :]
        content = body
    elif "content-length" in names:
        length = int(names["content-length"])
        if len(content) < length:
            raise OSError(f"server {url} closed the connection mid-answer")
        content = content[:length]
    return int(parts[1]), content


def last_reply(transcript_path: Any) -> str:
    """Claude's final answer of the turn: the text of the assistant entries after the last user
    entry (the prompt or a tool result), read from the end of the transcript (a JSONL file of
    ``{"type": "user"|"assistant", "message": {...}}`` entries, one per content block)."""
    if not isinstance(transcript_path, str) or not transcript_path:
        return ""
    try:
        with open(os.path.expanduser(transcript_path), "rb") as fh:
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
            texts += [
                b["text"]
                for b in reversed(content)
                if isinstance(b, dict)
                and b.get("type") == "text"
                and isinstance(b.get("text"), str)
            ]
        elif entry.get("type") == "user":
            break  # the prompt, or a tool result: what follows it is the final answer
    return "\n\n".join(reversed([t for t in texts if t.strip()]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
