"""Claude Code hooks: payloads of every event (the six of issue 11 and PostToolUseFailure)
replayed through ``ogmem hook`` as a subprocess
(as Claude Code runs it), with and without a running ``ogmem serve``; and
``ogmem hooks install/uninstall`` on a settings file that already holds other hooks.

The payloads (``tests/fixtures/claude_code/``) follow the hooks reference,
https://code.claude.com/docs/en/hooks, and payloads real Claude Code sessions recorded in public
repositories (Read/Edit/Bash ``tool_response`` from ``ast-grep/claude-skill``
``logs/post_tool_use.json``; newer Bash fields from ``kunchenguid/firstmate``
``logs/post_tool_use.json``; auto PreCompact with ``custom_instructions: null`` from
``dirvine/saorsa-core`` ``logs/pre_compact.json``; SessionEnd reasons from
``wolfiesch/vibecraft`` ``logs/session_end.json``): the fixtures' README names each source."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import _GIT_ENV, fsck, git_out, make_project

from ogmemory import Memory, Settings
from ogmemory.engine.claude_code import HOOK_EVENTS, MAX_CONTEXT_CHARS, last_reply
from ogmemory.engine.claude_code import _context as hook_context
from ogmemory.engine.results import ContextItem

pytestmark = pytest.mark.timeout(300)

FIXTURES = Path(__file__).parent / "fixtures" / "claude_code"
SID = "3f2b9c1e-7a4d-4e8b-9c2a-1d5e6f7a8b9c"
CSID = f"claude-{SID}"  # the ogmemory session id (the one the importer gives it too)
PROMPT = "We deploy the billing service with Nomad. Add a health check to app.py."
REPLY = "I added a health() function to app.py; it returns {'status': 'ok'}."
CLI = [sys.executable, "-m", "ogmemory.interfaces.cli"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Replay:
    """Fills the recorded payloads in and runs ``ogmem hook`` on them."""

    def __init__(
        self,
        home: Path,
        project: Path,
        server: str,
        command: tuple[str, ...] = (sys.executable, "-m", "ogmemory_hook"),
    ) -> None:
        self.command = command
        self.home = home
        self.project = project
        self.transcript = home.parent / "transcript.jsonl"
        self.values = {
            "SESSION_ID": SID,
            "CWD": str(project),
            "TRANSCRIPT": str(self.transcript),
            "PROMPT": PROMPT,
            "REPLY": REPLY,
        }
        self.env = {
            **os.environ,
            **_GIT_ENV,
            "OGMEM_HOOK_BACKGROUND": "0",
            "OGMEM_SERVER_URL": server,
            "OGMEM_EMBEDDER": "none",
        }
        self.env.pop("OGMEM_HOME", None)

    def fill(self, text: str) -> str:
        for key, value in self.values.items():
            text = text.replace("{{" + key + "}}", json.dumps(value)[1:-1])
        return text

    def payload(self, name: str) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.fill((FIXTURES / name).read_text()))
        return data

    def run(
        self,
        name: str,
        *,
        raw: str | None = None,
        event: str | None = None,
        extra: tuple[str, ...] = (),
    ) -> subprocess.CompletedProcess[str]:
        text = raw if raw is not None else self.fill((FIXTURES / name).read_text())
        event = event or json.loads(text)["hook_event_name"]
        self.transcript.write_text(self.fill((FIXTURES / "transcript.jsonl").read_text()))
        # by default the command Claude Code runs (see hook_command): the light entry point
        return subprocess.run(
            [*self.command, event, "--home", str(self.home), *extra],
            input=text,
            capture_output=True,
            text=True,
            env=self.env,
            timeout=120,
            check=False,
        )

    def log(self) -> str:
        path = self.home / "logs" / "hooks.log"
        return path.read_text() if path.exists() else ""


def _context(out: str, event: str) -> str:
    data = json.loads(out)
    assert set(data) == {"hookSpecificOutput"}
    specific = data["hookSpecificOutput"]
    assert specific["hookEventName"] == event
    assert isinstance(specific["additionalContext"], str)
    return str(specific["additionalContext"])


def _prepare_memory(home: Path) -> None:
    """What earlier sessions left: a remembered preference and a past conversation."""
    with Memory(settings=Settings(home=home, embedder="none")) as mem:
        mem.remember("I prefer tabs over spaces.", type="preference")
        mem.append_message(
            "old",
            {
                "role": "user",
                "content": "The billing service talks to Postgres through pgbouncer on port 6432.",
            },
        )
        mem.append_message("old", {"role": "assistant", "content": "Noted."})
        mem.commit_turn("old")
        mem.wait_background(30)


def _replay_session(replay: Replay) -> None:
    """Every event, in the order Claude Code fires them for three prompts and an exit."""
    start = replay.run("session_start.json")
    assert start.returncode == 0 and start.stderr == ""
    core = _context(start.stdout, "SessionStart")
    assert "tabs over spaces" in core and "↪" in core

    replay.values["PROMPT"] = "Which port does the billing service use for Postgres? " + PROMPT
    prompt = replay.run("user_prompt_submit.json")
    assert prompt.returncode == 0
    recalled = _context(prompt.stdout, "UserPromptSubmit")
    assert "6432" in recalled  # recalled from the earlier session

    for name in ("post_tool_use_read.json", "post_tool_use_edit.json", "post_tool_use_bash.json"):
        if name == "post_tool_use_edit.json":  # Claude's Edit tool changed the file
            (replay.project / "app.py").write_text(
                "def health():\n    return {'status': 'ok'}\n\n\nprint('hi')\n"
            )
        done = replay.run(name)
        assert done.returncode == 0 and done.stdout == ""
    stop = replay.run("stop.json")
    assert stop.returncode == 0 and stop.stdout == ""
    for i in (2, 3):  # two more turns, so that PreCompact has an older one to fold
        replay.values["PROMPT"] = f"Question {i}: is the health check enough?"
        replay.values["REPLY"] = f"Answer {i}: yes."
        assert replay.run("user_prompt_submit.json").returncode == 0
        if i == 3:  # a tool that failed: PostToolUseFailure, not PostToolUse
            failed = replay.run("post_tool_use_failure.json")
            assert failed.returncode == 0 and failed.stdout == ""
        assert replay.run("stop_last_message.json").returncode == 0
    replay.values["REPLY"] = REPLY
    compact = replay.run("pre_compact.json")
    assert compact.returncode == 0 and compact.stdout == ""
    end = replay.run("session_end.json")
    assert end.returncode == 0 and end.stdout == ""


def _check_recorded(home: Path, project: Path) -> None:
    with Memory(settings=Settings(home=home, embedder="none")) as mem:
        info = mem.get_session(CSID)
        assert info.project_id != "default" and info.turns >= 1
        nodes = mem.get_nodes(CSID)
        originals = [n for n in nodes if not n.metadata.get("ogmem_derived")]
        assert [n.role for n in originals] == [
            "user",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "assistant",
            "user",
            "assistant",
            "user",
            "assistant",
            "tool",
            "assistant",
        ]
        assert info.turns == 4  # three turns and the compaction between turns
        assert mem.session_commits(CSID)[0].message.startswith("compaction: 8 nodes folded")
        calls = {n.id: n for n in nodes if n.tool_calls}
        results = [n for n in nodes if n.role == "tool"]
        assert [r.tool_call_id for r in results] == [
            "toolu_01HmRZ3fJ8wQp2Vn7Kx4Ls9A",
            "toolu_01Pq8sWc4Nd2Yh6Fe1Tb3Gk7",
            "toolu_01Ab5Cd7Ef9Gh1Ij3Kl5Mn7O",
            "toolu_01Fx2Lq8Rb4Tn6Vs0Wd3Yh5J",
        ]
        for result in results:
            assert result.called_by in calls
            caller = calls[str(result.called_by)]
            assert caller.tool_calls and caller.tool_calls[0]["id"] == result.tool_call_id
        assert results[0].metadata["files_read"] == [f"{project}/app.py"]
        assert results[1].metadata["files_written"] == [f"{project}/app.py"]
        # PostToolUseFailure: the result is the error Claude was given, marked as an error
        assert results[3].metadata["is_error"] is True
        assert results[3].content.startswith("Exit code 1\nImportError")
        assert not any(results[i].metadata["is_error"] for i in range(3))
        assert originals[7].content == REPLY  # read from the transcript (no reply field)
        assert originals[9].content == "Answer 2: yes."  # last_assistant_message
        # PreCompact folded the oldest turn into a summary node naming all of its nodes
        summary = next(n for n in nodes if n.metadata.get("ogmem_derived") == "compaction")
        assert summary.metadata["replaces"] == [n.id for n in originals[:8]]
        assert "Claude Code manual compaction" in summary.metadata["reason"]
        # SessionEnd: closed and archived
        archive = mem.resolve_uri(f"ogm://archive/{CSID}").content or {}
        assert archive["files_written"][0] == f"{project}/app.py"
        assert archive["reason"] == "prompt_input_exit"
        fsck(info.path)
    # the agent's edit was committed in the project, as the agent, from a clean tree
    assert git_out(project, "log", "-1", "--format=%an").startswith("agent (")
    assert "app.py" in git_out(project, "show", "--name-only", "--format=", "HEAD")
    fsck(project)


def test_replay_all_six_events_without_a_server(tmp_path: Path) -> None:
    home = tmp_path / "home"
    project = make_project(tmp_path)
    _prepare_memory(home)
    replay = Replay(home, project, f"http://127.0.0.1:{_free_port()}")  # nothing listens
    _replay_session(replay)
    _check_recorded(home, project)
    log = replay.log()
    for event in HOOK_EVENTS:
        assert f"{event} {SID} handled (local)" in log
    assert "Traceback" not in log


def test_replay_all_six_events_through_the_ogmem_hook_command(tmp_path: Path) -> None:
    """``ogmem hook <event>``, the CLI spelling of the same client, handles them all too."""
    home = tmp_path / "home"
    project = make_project(tmp_path)
    _prepare_memory(home)
    replay = Replay(home, project, f"http://127.0.0.1:{_free_port()}", command=(*CLI, "hook"))
    _replay_session(replay)
    _check_recorded(home, project)
    log = replay.log()
    assert all(f"{event} {SID} handled (local)" in log for event in HOOK_EVENTS)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    home = tmp_path / "served"
    port = _free_port()
    env = {**os.environ, **_GIT_ENV, "OGMEM_EMBEDDER": "none"}
    proc = subprocess.Popen(
        [*CLI, "serve", "--port", str(port), "--home", str(home), "--log-level", "warning"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, "ogmem serve did not start"
            time.sleep(0.2)
        yield url, home
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_replay_all_six_events_through_a_running_server(
    tmp_path: Path, server: tuple[str, Path]
) -> None:
    url, home = server
    project = make_project(tmp_path)
    _prepare_memory(home)
    replay = Replay(home, project, url)
    _replay_session(replay)
    _check_recorded(home, project)
    log = replay.log()
    for event in HOOK_EVENTS:
        assert f"{event} {SID} handled (server)" in log

    # A hook configured for another home is refused by the server (409) and works locally:
    # nothing of it lands in the server's memory.
    other = tmp_path / "other-home"
    elsewhere = Replay(other, project, url)
    elsewhere.values["SESSION_ID"] = "other-session"
    elsewhere.values["PROMPT"] = "Remember the deploy window is Tuesday."
    assert elsewhere.run("user_prompt_submit.json").returncode == 0
    assert "handled (local)" in elsewhere.log()
    with Memory(settings=Settings(home=other, embedder="none")) as mem:
        assert mem.get_session("claude-other-session").turns == 0
    assert httpx.get(f"{url}/v1/sessions/claude-other-session").status_code == 404


def test_an_auto_compaction_as_an_older_claude_code_sends_it(tmp_path: Path) -> None:
    """PreCompact recorded from a real session: ``trigger: auto``, ``custom_instructions:
    null`` and no ``permission_mode``."""
    home = tmp_path / "home"
    replay = Replay(home, make_project(tmp_path), "off")
    for i in range(3):
        replay.values["PROMPT"] = f"Question {i}: where do the billing logs go?"
        replay.values["REPLY"] = f"Answer {i}: to Loki."
        assert replay.run("user_prompt_submit.json").returncode == 0
        assert replay.run("stop_last_message.json").returncode == 0
    done = replay.run("pre_compact_auto.json")
    assert done.returncode == 0 and done.stdout == ""
    assert f"PreCompact {SID} handled (local)" in replay.log()
    with Memory(settings=Settings(home=home, embedder="none")) as mem:
        nodes = mem.get_nodes(CSID)
        summary = next(n for n in nodes if n.metadata.get("ogmem_derived") == "compaction")
        assert "Claude Code auto compaction" in summary.metadata["reason"]
        assert summary.metadata["replaces"] == [n.id for n in nodes[:2]]


def test_stop_with_last_assistant_message_and_a_resumed_session(tmp_path: Path) -> None:
    home = tmp_path / "home"
    project = make_project(tmp_path)
    replay = Replay(home, project, "off")
    replay.values["REPLY"] = "Done: the reply came in the payload."
    assert replay.run("user_prompt_submit.json").returncode == 0
    assert replay.run("stop_last_message.json").returncode == 0
    assert replay.run("session_end.json").returncode == 0
    replay.values["PROMPT"] = "Back again after claude --resume."
    assert replay.run("user_prompt_submit.json").returncode == 0  # reopens the closed session
    with Memory(settings=Settings(home=home, embedder="none")) as mem:
        nodes = mem.get_nodes(CSID)
        assert nodes[1].content == "Done: the reply came in the payload."
        assert nodes[-1].metadata["reopens_session"]["closed_at"]
        assert (mem.session_state(CSID, "engine") or {})["reopened"]


def test_the_event_is_read_when_claude_code_keeps_stdin_open(tmp_path: Path) -> None:
    """Claude Code writes SessionEnd for ``/clear`` without closing the pipe
    (https://github.com/anthropics/claude-code/issues/79508): the hook must not wait for an
    end of file that never comes."""
    home = tmp_path / "home"
    replay = Replay(home, make_project(tmp_path), "off")
    assert replay.run("user_prompt_submit.json").returncode == 0
    payload = replay.payload("session_end.json")
    payload["reason"] = "clear"
    proc = subprocess.Popen(
        [*replay.command, "SessionEnd", "--home", str(home)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=replay.env,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(json.dumps(payload, indent=2).encode())
        proc.stdin.flush()  # ... and the pipe stays open
        assert proc.wait(timeout=120) == 0
        assert proc.stdout.read() == b""
    finally:
        proc.kill()
        proc.stdin.close()
        proc.wait()
    assert f"SessionEnd {SID} handled (local)" in replay.log()
    with Memory(settings=Settings(home=home, embedder="none")) as mem:
        archive = mem.resolve_uri(f"ogm://archive/{CSID}").content or {}
        assert archive["reason"] == "clear"


@pytest.mark.parametrize(
    "raw, event, extra",
    [
        ("{not json", "UserPromptSubmit", ()),
        (json.dumps({"session_id": "../../etc", "prompt": "hi"}), "UserPromptSubmit", ()),
        (json.dumps({"session_id": SID, "hook_event_name": "Stop"}), "UserPromptSubmit", ()),
        (json.dumps({"session_id": SID, "tool_input": {}}), "PostToolUse", ()),
        (json.dumps({"session_id": SID, "error": "Exit code 1"}), "PostToolUseFailure", ()),
        ("[]", "SessionEnd", ()),
    ],
)
def test_a_failing_hook_prints_nothing_logs_and_exits_zero(
    tmp_path: Path, raw: str, event: str, extra: tuple[str, ...]
) -> None:
    replay = Replay(tmp_path / "home", tmp_path, "off")
    with Memory(settings=Settings(home=tmp_path / "home", embedder="none")) as mem:
        mem.append_message(CSID, {"role": "user", "content": "earlier"})
        mem.commit_turn(CSID)
    done = replay.run("", raw=raw, event=event, extra=extra)
    assert done.returncode == 0 and done.stdout == ""
    assert "failed; the session goes on without memory" in replay.log()
    with Memory(settings=Settings(home=tmp_path / "home", embedder="none")) as mem:
        assert [n.content for n in mem.get_nodes(CSID)] == ["earlier"]  # nothing half-written


def test_unknown_event_and_temporary_mode_do_nothing(tmp_path: Path) -> None:
    replay = Replay(tmp_path / "home", tmp_path, "off")
    bad = replay.run("", raw="{}", event="NoSuchEvent")
    assert bad.returncode == 0 and bad.stdout == "" and "usage" in bad.stderr
    replay.env["OGMEM_TEMPORARY"] = "1"
    done = replay.run("user_prompt_submit.json")
    assert done.returncode == 0 and done.stdout == ""
    assert not (tmp_path / "home" / "tenants").exists()


def test_background_work_distils_and_embeds_after_a_local_turn(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with Memory(settings=Settings(home=home, index_worker=False)) as mem:
        mem.sync_index()  # an index that records its embedder, as a real one does
    replay = Replay(home, tmp_path, "off")
    replay.values["PROMPT"] = "I prefer Rust over Go for command line tools."
    assert replay.run("user_prompt_submit.json").returncode == 0
    assert replay.run("stop_last_message.json").returncode == 0
    with Memory(settings=Settings(home=home, embedder="none")) as mem:
        stats = mem.index_stats()
        assert stats["vectors"] < stats["documents"]  # written by the hook, no vectors
        assert not mem.memories()
    env = {**replay.env, "OGMEM_EMBEDDER": "e5"}
    work = subprocess.run(
        [*CLI, "hook-work", CSID, "--home", str(home)],
        capture_output=True,
        text=True,
        env=env,
        timeout=240,
        check=False,
    )
    assert work.returncode == 0, work.stderr
    result = json.loads(work.stdout)
    assert result["ran"] and result["embedded"] > 0
    with Memory(settings=Settings(home=home, index_worker=False)) as mem:
        assert any("Rust" in m.text for m in mem.memories())
        stats = mem.index_stats()
        assert stats["vectors"] == stats["documents"]


def test_additional_context_stays_under_claude_codes_cap() -> None:
    """Over 10,000 characters Claude Code shows the model a 2,000-character preview only
    (hooks reference, "JSON output"): the last recalled items are dropped instead."""
    items = [
        ContextItem("recall", f"fact {i}: " + "the billing service " * 20, 90, "recalled")
        for i in range(40)
    ]
    out = hook_context("UserPromptSubmit", items)
    assert out is not None
    text = out["hookSpecificOutput"]["additionalContext"]
    assert 9_000 < len(text) <= MAX_CONTEXT_CHARS
    assert "fact 0:" in text and "fact 39:" not in text  # the first (best) items are kept
    core = ContextItem(
        "core",
        "\n".join(f"- preference {i}: tabs, not spaces" for i in range(2000)),
        20_000,
        "core.md",
    )
    out = hook_context("SessionStart", [core])
    assert out is not None
    text = out["hookSpecificOutput"]["additionalContext"]
    assert len(text) <= MAX_CONTEXT_CHARS and text.endswith("tabs, not spaces")
    assert hook_context("UserPromptSubmit", []) is None


def test_the_hook_clients_own_http() -> None:
    """The server path speaks HTTP/1.1 over a socket (``http.client`` costs start-up time);
    the replays above run it against ``ogmem serve``, these the corners uvicorn did not show."""
    import ogmemory_hook as hook

    assert hook._split_url("http://127.0.0.1:8765") == ("http", "127.0.0.1", 8765, "")
    assert hook._split_url("HTTPS://mem.example/base/") == ("https", "mem.example", 443, "/base")
    assert hook._split_url("http://[::1]:9000/x") == ("http", "::1", 9000, "/x")
    for bad in ("ftp://host", "127.0.0.1:8765", "http://:80"):
        with pytest.raises(ValueError):
            hook._split_url(bad)
    chunked = (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        b'8\r\n{"output\r\n6;x=1\r\n": nul\r\n2\r\nl}\r\n0\r\n\r\n'
    )
    assert hook._parse_response(chunked, "u") == (200, b'{"output": null}')
    sized = b"HTTP/1.1 409 Conflict\r\ncontent-length: 2\r\n\r\n{}"
    assert hook._parse_response(sized, "u") == (409, b"{}")
    for broken in (b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n{}", b"garbage"):
        with pytest.raises(OSError):
            hook._parse_response(broken, "u")


def test_ogmem_hook_exits_zero_on_a_usage_error(tmp_path: Path) -> None:
    """Exit code 2 blocks the prompt (hooks reference, "Exit code output"): the command line's
    own usage errors must not reach the parser that would exit 2."""
    replay = Replay(tmp_path / "home", tmp_path, "off", command=(*CLI, "hook"))
    for extra, said in (
        (("--no-server",), ""),
        (("--bogus",), "'--bogus'"),
        (("--home",), "'--home'"),
    ):
        done = replay.run("user_prompt_submit.json", extra=extra)
        assert done.returncode == 0 and done.stdout == ""
        assert said in done.stderr
    assert f"UserPromptSubmit {SID} handled (local)" in replay.log()  # --no-server worked


def test_nothing_but_the_answer_reaches_standard_output(tmp_path: Path) -> None:
    """On SessionStart and UserPromptSubmit Claude Code adds a hook's stdout to the model's
    context: whatever the package (or a library it loads) prints there while handling the
    event goes to stderr instead."""
    home = tmp_path / "home"
    _prepare_memory(home)
    replay = Replay(home, make_project(tmp_path), "off")
    noisy = (
        "import os, sys\n"
        "import ogmemory.interfaces.claude_hook as local\n"
        "real = local.run_local\n"
        "def run_local(*args):\n"
        "    print('a library talking on stdout', flush=True)\n"
        "    os.write(1, b'a C library writing to fd 1\\n')\n"
        "    return real(*args)\n"
        "local.run_local = run_local\n"
        "import ogmemory_hook\n"
        "sys.exit(ogmemory_hook.main(sys.argv[1:]))\n"
    )
    replay.command = (sys.executable, "-c", noisy)
    done = replay.run("session_start.json")
    assert done.returncode == 0
    assert "tabs over spaces" in _context(done.stdout, "SessionStart")  # JSON and nothing else
    assert "a library talking on stdout" in done.stderr and "fd 1" in done.stderr


def test_an_answer_not_in_the_hook_format_is_never_printed(tmp_path: Path) -> None:
    """Something else listening where the server was expected, answering 200 with JSON: the
    hook prints only what Claude Code documents for added context."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Other(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            body = json.dumps({"output": {"decision": "block", "reason": "not ours"}}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Other)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        replay = Replay(tmp_path / "home", tmp_path, url)
        done = replay.run("user_prompt_submit.json")
        assert done.returncode == 0 and done.stdout == ""
        assert "not in the hook format is dropped" in replay.log()
    finally:
        server.shutdown()
        server.server_close()


def test_the_hook_gives_up_on_the_server_before_claude_code_gives_up_on_it() -> None:
    import ogmemory_hook as hook
    from ogmemory.engine.claude_settings import TIMEOUTS

    assert set(hook.SERVER_WAIT) == set(TIMEOUTS) == set(HOOK_EVENTS) == set(hook.EVENTS)
    for event, wait in hook.SERVER_WAIT.items():
        assert wait <= TIMEOUTS[event] - 2  # time left to log and exit 0


def test_last_reply_reads_the_transcript_tail(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    replay = Replay(tmp_path, tmp_path, "off")
    path.write_text(replay.fill((FIXTURES / "transcript.jsonl").read_text()) + '{"type": "assi')
    assert last_reply(str(path)) == REPLY  # the torn last line is skipped
    assert last_reply(str(tmp_path / "missing.jsonl")) == ""
    assert last_reply(None) == ""


# ---------------------------------------------------------------------- install / uninstall

EXISTING: dict[str, Any] = {
    "permissions": {"allow": ["Bash(npm run test:*)"]},
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    {"type": "command", "command": "jq -r .tool_input.command >> ~/bash.log"}
                ],
            }
        ],
        "PostToolUse": [
            {
                "matcher": "Write|Edit",
                "hooks": [
                    {
                        "type": "command",
                        "command": 'npx prettier --write "$(jq -r .tool_input.file_path)"',
                    }
                ],
            }
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done", "timeout": 5}]}],
    },
}


def _ogmem(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(home)}
    return subprocess.run(
        [*CLI, *args], capture_output=True, text=True, env=env, timeout=60, check=False
    )


def test_install_merges_and_uninstall_removes_only_ours(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    settings = project / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps(EXISTING, indent=2))

    done = _ogmem("hooks", "install", "--project", str(project), "--json", home=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["events"] == list(HOOK_EVENTS)
    data = json.loads(settings.read_text())
    assert data["permissions"] == EXISTING["permissions"]
    hooks = data["hooks"]
    assert hooks["PreToolUse"] == EXISTING["hooks"]["PreToolUse"]
    assert hooks["PostToolUse"][0] == EXISTING["hooks"]["PostToolUse"][0]
    assert hooks["Stop"][0] == EXISTING["hooks"]["Stop"][0]
    for event in HOOK_EVENTS:
        ours = [h for g in hooks[event] for h in g["hooks"] if "ogmemory_hook" in h["command"]]
        assert len(ours) == 1 and ours[0]["type"] == "command" and ours[0]["timeout"] > 0
        assert ours[0]["command"].endswith(f"-m ogmemory_hook {event}")
    assert [g.get("matcher") for g in hooks["PostToolUse"]] == ["Write|Edit", "*"]

    again = _ogmem("hooks", "install", "--project", str(project), home=tmp_path)
    assert again.returncode == 0 and json.loads(settings.read_text()) == data  # idempotent
    status = _ogmem("hooks", "status", "--project", str(project), "--json", home=tmp_path)
    assert json.loads(status.stdout)["events"] == list(HOOK_EVENTS)

    # the installed command really runs: it is what Claude Code executes through a shell
    command = hooks["SessionEnd"][-1]["hooks"][0]["command"]
    ran = subprocess.run(
        command,
        shell=True,
        input="{}",
        capture_output=True,
        text=True,
        env={**os.environ, "OGMEM_HOME": str(tmp_path / "h"), "OGMEM_SERVER_URL": "off"},
        timeout=120,
        check=False,
    )
    assert ran.returncode == 0 and ran.stdout == ""

    removed = _ogmem("hooks", "uninstall", "--project", str(project), "--json", home=tmp_path)
    assert json.loads(removed.stdout)["removed"] == len(HOOK_EVENTS)
    assert json.loads(settings.read_text()) == EXISTING


def test_user_settings_and_a_broken_file_is_never_overwritten(tmp_path: Path) -> None:
    user_settings = tmp_path / ".claude" / "settings.json"
    done = _ogmem("hooks", "install", "--user", home=tmp_path)
    assert done.returncode == 0, done.stderr
    assert set(json.loads(user_settings.read_text())["hooks"]) == set(HOOK_EVENTS)
    assert _ogmem("hooks", "uninstall", home=tmp_path).returncode == 0
    assert json.loads(user_settings.read_text()) == {}

    user_settings.write_text('{"hooks": {"Stop": [ broken')
    bad = _ogmem("hooks", "install", "--user", home=tmp_path)
    assert bad.returncode == 2 and "not valid JSON" in bad.stderr
    assert user_settings.read_text() == '{"hooks": {"Stop": [ broken'
    both = _ogmem("hooks", "install", "--user", "--project", str(tmp_path), home=tmp_path)
    assert both.returncode == 2


def test_a_long_claude_session_still_gets_recall(tmp_path: Path) -> None:
    """Claude Code keeps the conversation in its own context, so UserPromptSubmit assembles
    recall only: the session's own turns neither cost the hook O(session) per prompt nor
    squeeze recall out of the budget once they pass it."""
    from ogmemory import ContextEngine
    from ogmemory.engine.claude_code import handle_event

    home = tmp_path / "home"
    _prepare_memory(home)
    base = {"session_id": SID, "transcript_path": None, "cwd": str(tmp_path)}
    with Memory(settings=Settings(home=home, embedder="none")) as mem:
        engine = ContextEngine(mem)
        for i in range(12):  # ~10,000 tokens of conversation: more than the 8,000 budget
            prompt = f"Step {i}: " + " ".join(f"refactor module{i}_{j}" for j in range(300))
            handle_event(engine, "UserPromptSubmit", {**base, "prompt": prompt})
            handle_event(engine, "Stop", {**base, "last_assistant_message": f"Done {i}."})
        out = handle_event(
            engine,
            "UserPromptSubmit",
            {**base, "prompt": "Which port does the billing service use for Postgres?"},
        )
        assert out is not None and "6432" in out["hookSpecificOutput"]["additionalContext"]
        context = engine.last_context[CSID]
        assert not [i for i in context.items if i.source == "recent"]
        assert "live turns: the caller keeps the conversation" in context.skipped
