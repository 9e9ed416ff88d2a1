"""A one-off request restated as done, for a work event whose answer says too little
("Restarted."): "Please bump the build number" → "Bumped the build number".

>>> requested("Restart the flaky exporter please")
'Restarted the flaky exporter'
"""

from __future__ import annotations

import re

__all__ = ["requested"]

_REQUEST = re.compile(
    r"(?i)^(?:(?:ok(?:ay)?|now|also|and|next|then)[,\s]+)*(?:(?:please|pls|can\s+you|could\s+you"
    r"|would\s+you|go\s+ahead\s+and)\s+)?(?P<verb>[a-z]+)\s+(?P<rest>[^.!?\n]{3,80}?)"
    r"(?:,?\s+(?:please|pls|for\s+me|thanks))?[.!?]*$"
)
_IRREGULAR = {
    "run": "ran",
    "rerun": "reran",
    "build": "built",
    "rebuild": "rebuilt",
    "make": "made",
    "write": "wrote",
    "rewrite": "rewrote",
    "set": "set",
    "reset": "reset",
    "put": "put",
    "cut": "cut",
    "get": "got",
    "send": "sent",
    "take": "took",
    "find": "found",
    "do": "did",
    "redo": "redid",
    "spin": "spun",
    "split": "split",
    "undo": "undid",
    "shut": "shut",
}
_VERBS = frozenset(
    "restart bump deploy redeploy launch start stop kill rerun run build rebuild install"
    " update upgrade downgrade clean clear delete remove add rename tag release publish push"
    " merge rebase revert roll rollback reset retry migrate seed reindex regenerate format lint"
    " test compile package submit trigger schedule sync refresh reload flush purge rotate"
    " scale drain cordon backfill snapshot archive export import create generate fix pin"
    " unpin enable disable open close apply".split()
)


def requested(text: str) -> str:
    """A one-off request restated as done ("Please bump the build number" → "Bumped the
    build number"); "" when the message is no such request."""
    m = _REQUEST.match(text.strip())
    if m is None or m.group("verb").lower() not in _VERBS:
        return ""
    verb = m.group("verb").lower()
    past = _IRREGULAR.get(verb) or (
        verb + "d"
        if verb.endswith("e")
        else verb + verb[-1] + "ed"
        if verb in ("stop", "drop", "plan", "ship", "tag", "pin", "unpin", "scan", "skip")
        else verb + "ed"
    )
    return f"{past[:1].upper()}{past[1:]} {m.group('rest').strip()}"
