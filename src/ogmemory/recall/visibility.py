"""What one recall may see: the visibility rule every read of the index applies (scopes,
enabled memories, turns of disabled ones withheld), and whether a document's session still
exists (seed 001 §3.7: what cites a deleted session is skipped at read time).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..index.docs import Doc

__all__ = ["LiveSessions", "doc_visible"]


def doc_visible(
    doc: Doc, scopes: Sequence[str] | None, active: set[str], hidden_nodes: set[str]
) -> bool:
    """The visibility rule of every read of the index: within ``scopes``; a derived record
    while one of its supporting memories is ``active``; an overview or session (which quotes
    several) only while all of them are; no turn evidencing an inactive memory."""
    if scopes is not None and doc.scope not in scopes:
        return False
    quotes = doc.kind in ("turn", "session") or doc.level == 1
    if doc.kind == "session" or doc.level == 1:
        if not all(s in active for s in doc.support):
            return False
    elif doc.support and not any(s in active for s in doc.support):
        return False
    return not (quotes and hidden_nodes and any(n in hidden_nodes for n in doc.node_ids))


class LiveSessions:
    """Whether the session a document comes from still exists (seed 001 §3.7: what cites a
    deleted session is skipped at read time), asked once per session per read."""

    def __init__(self, exists: Callable[[str], bool] | None) -> None:
        self._exists = exists
        self._seen: dict[str, bool] = {}

    def __call__(self, doc: Doc) -> bool:
        sid = doc.session_id
        if not sid or self._exists is None:
            return True
        live = self._seen.get(sid)
        if live is None:
            live = self._seen[sid] = self._exists(sid)
        return live

    @property
    def gone(self) -> list[str]:
        """Sessions found deleted (their documents are still in the index)."""
        return sorted(s for s, live in self._seen.items() if not live)
