"""The part of ``ogmem hook`` that runs inside the package (the light client is the top-level
``ogmemory_hook`` module): an event handled without a server, in this process, without the
embedder; and ``ogmem hook-work``, the detached background work after such an event.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

__all__ = ["background_work", "run_local"]

#: events after which a detached worker distils, titles and embeds (local path only)
_BACKGROUND_EVENTS = ("Stop", "SessionEnd", "PreCompact")

log = logging.getLogger("ogmemory.hook")


def run_local(
    event: str, payload: Any, home: Path, account: str | None, space: str | None
) -> dict[str, Any] | None:
    """Handle the event in this process: full text only (no embedder is loaded), no LLM
    calls, no background threads; the slow work goes to a detached ``ogmem hook-work``."""
    from ..config import Settings
    from ..engine import ContextEngine
    from ..engine.claude_code import handle_event
    from ..memory import Memory

    settings = Settings.from_env(
        home=home,
        account=account,
        space=space,
        embedder="none",
        distill_on_turn=False,
        index_worker=False,
    )
    settings = Settings(**{**settings.__dict__, "llm": None})
    with Memory(settings=settings) as mem:
        engine = ContextEngine(mem)
        output = handle_event(engine, event, payload)
        engine.flush()  # the context view, before this short-lived process goes
    raw = payload.get("session_id") if isinstance(payload, dict) else None
    if event in _BACKGROUND_EVENTS and isinstance(raw, str):
        from ..importers.base import session_key

        try:
            _spawn_background(session_key("claude", raw), home, account, space)
        except (OSError, ValueError) as exc:  # the event is recorded; the next one catches up
            log.warning("could not start the background work after %s: %s", event, exc)
    return output


def _spawn_background(session_id: str, home: Path, account: str | None, space: str | None) -> None:
    if os.environ.get("OGMEM_HOOK_BACKGROUND", "1").lower() in ("0", "false", "no"):
        return
    argv = [
        sys.executable,
        "-m",
        "ogmemory.interfaces.cli",
        "hook-work",
        session_id,
        "--home",
        str(home),
    ]
    for flag, value in (("--account", account), ("--space", space)):
        if value:
            argv += [flag, value]
    subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
    )


def background_work(
    session_id: str, home: Path, account: str | None, space: str | None
) -> dict[str, Any]:
    """After a turn handled locally: distil what is pending, title the session with the LLM
    (when one is configured), index it and embed the queued documents. One worker at a time per
    tenant; a run that finds one busy leaves it a note to go round once more."""
    import fcntl

    from ..config import Settings
    from ..memory import Memory

    settings = Settings.from_env(
        home=home, account=account, space=space, index_worker=False, distill_on_turn=False
    )
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
