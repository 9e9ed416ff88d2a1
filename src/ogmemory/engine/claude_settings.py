"""Installing ``ogmem hook`` into Claude Code's settings, and removing it again.

Claude Code reads hooks from ``~/.claude/settings.json`` (user), ``<project>/.claude/settings.json``
(shared with the team) and ``<project>/.claude/settings.local.json`` (this machine only), in the
layout of https://code.claude.com/docs/en/hooks::

    {"hooks": {"PostToolUse": [{"matcher": "*",
                                "hooks": [{"type": "command", "command": "...", "timeout": 10}]}]}}

Installing merges: every other key, event and hook stays as it was, and running it twice changes
nothing. Ours are recognised by their command (``... -m ogmemory_hook <Event>`` or
``ogmem hook <Event>``), so uninstalling removes exactly those and the groups they leave empty.
A settings file that is not valid JSON is never overwritten.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import InvalidInput
from ..storage.files import atomic_write_bytes
from .claude_code import HOOK_EVENTS

__all__ = ["hook_command", "install", "installed", "is_ours", "load_settings", "uninstall"]

#: seconds Claude Code waits for each hook before cancelling it. Set on every hook: without it
#: SessionEnd gets 1.5 s (the final distillation and archive need more; a per-hook timeout
#: raises that budget, up to 60 s) and UserPromptSubmit 30 s (hooks reference, "SessionEnd" and
#: "UserPromptSubmit", https://code.claude.com/docs/en/hooks)
TIMEOUTS = {
    "SessionStart": 15,
    "UserPromptSubmit": 15,
    "PostToolUse": 10,
    "PostToolUseFailure": 10,
    "Stop": 30,
    "PreCompact": 30,
    "SessionEnd": 60,
}
#: events whose hooks are filtered by a matcher (tool names); the others take none
_MATCHED = {"PostToolUse": "*", "PostToolUseFailure": "*"}
_OURS = re.compile(
    r"(?:^|[\s/'\"])(?:(?:ogmem|ogmemory\.interfaces\.cli)['\"]?\s+hook|"
    r"ogmemory_hook['\"]?)\s+(" + "|".join(HOOK_EVENTS) + r")\b"
)


def hook_command(
    event: str,
    *,
    home: Path | None = None,
    account: str | None = None,
    space: str | None = None,
    python: str | None = None,
) -> str:
    """The shell command Claude Code runs for ``event``: this Python, so the hook works
    whatever ``PATH`` Claude Code was started with."""
    argv = [python or sys.executable, "-m", "ogmemory_hook", event]
    for flag, value in (("--home", home), ("--account", account), ("--space", space)):
        if value is not None:
            argv += [flag, str(value)]
    return " ".join(shlex.quote(a) for a in argv)


def is_ours(hook: Any) -> bool:
    """Whether a hook entry runs ``ogmem hook``."""
    return (
        isinstance(hook, dict)
        and isinstance(hook.get("command"), str)
        and bool(_OURS.search(hook["command"]))
    )


def load_settings(path: Path) -> dict[str, Any]:
    """The settings file as a dict ({} when it does not exist); refuses anything else."""
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror}") from None
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise InvalidInput(
            f"{path} is not valid JSON ({exc}); fix it first, nothing was changed"
        ) from None
    if not isinstance(data, dict):
        raise InvalidInput(f"{path} does not hold a JSON object; nothing was changed")
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict) or not all(isinstance(v, list) for v in hooks.values()):
        raise InvalidInput(f"{path}: 'hooks' is not an object of event lists; nothing was changed")
    return data


def _save(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode())


def _without_ours(groups: list[Any]) -> list[Any]:
    out = []
    for group in groups:
        if isinstance(group, dict) and isinstance(group.get("hooks"), list):
            kept = [h for h in group["hooks"] if not is_ours(h)]
            if not kept and group["hooks"]:
                continue  # a group that only held ours goes with them
            group = {**group, "hooks": kept}
        out.append(group)
    return out


def install(
    path: Path,
    *,
    events: Sequence[str] = HOOK_EVENTS,
    home: Path | None = None,
    account: str | None = None,
    space: str | None = None,
    python: str | None = None,
) -> list[str]:
    """Add (or refresh) our hook for each of ``events`` in the settings file at ``path``.
    Returns the events written."""
    from ..tenancy import validate_id

    for value, kind in ((account, "account"), (space, "space")):
        if value is not None:
            validate_id(value, kind)
    unknown = [e for e in events if e not in HOOK_EVENTS]
    if unknown:
        raise InvalidInput(f"unknown hook event(s) {unknown}; known: {', '.join(HOOK_EVENTS)}")
    data = load_settings(path)
    hooks = dict(data.get("hooks") or {})
    for event in events:
        command = hook_command(event, home=home, account=account, space=space, python=python)
        entry = {"type": "command", "command": command, "timeout": TIMEOUTS[event]}
        group: dict[str, Any] = {"hooks": [entry]}
        if event in _MATCHED:
            group = {"matcher": _MATCHED[event], **group}
        hooks[event] = [*_without_ours(list(hooks.get(event) or [])), group]
    _save(path, {**data, "hooks": hooks})
    return list(events)


def uninstall(path: Path) -> int:
    """Remove our hooks from the settings file; returns how many were removed."""
    if not path.exists():
        return 0
    data = load_settings(path)
    hooks = dict(data.get("hooks") or {})
    removed = 0
    for event in list(hooks):
        groups = list(hooks[event])
        removed += sum(
            1 for g in groups if isinstance(g, dict) for h in g.get("hooks") or [] if is_ours(h)
        )
        kept = _without_ours(groups)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if removed:
        new = {**data, "hooks": hooks}
        if not hooks and "hooks" in new:
            del new["hooks"]
        _save(path, new)
    return removed


def installed(path: Path) -> list[str]:
    """The events for which the settings file at ``path`` runs ``ogmem hook``."""
    try:
        data = load_settings(path)
    except InvalidInput:
        return []
    hooks = data.get("hooks") or {}
    return [
        event
        for event in HOOK_EVENTS
        if any(
            is_ours(h)
            for g in hooks.get(event) or []
            if isinstance(g, dict)
            for h in g.get("hooks") or []
        )
    ]
