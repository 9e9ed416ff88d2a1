"""The "latest 20" read from the session files themselves (seed 003's deterministic fallback),
for when the index cannot answer at all: damaged, missing, or failing mid-read."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from ..entity.records import DEFAULT_PROJECT, Node
from ..entity.service import SessionService
from ..entity.times import day_label
from .config import RecallConfig
from .results import RecallItem, RecallResult

__all__ = ["latest_from_files"]

log = logging.getLogger(__name__)


def _line(node: Node) -> str:
    speaker = node.name or node.role
    return f"[{day_label(node.event_time)}] {speaker}: {node.text}"


def latest_from_files(
    sessions: SessionService,
    query: str,
    *,
    budget: int,
    scopes: Sequence[str] | None,
    config: RecallConfig,
    hidden: Callable[[], set[str]],
    count_tokens: Callable[[str], int],
    reason: str,
) -> RecallResult:
    """The newest turns of the most recently updated sessions, newest first, within
    ``budget``: at most ``config.top`` items, one turn each, never a turn that evidences only
    disabled or deleted memories, only sessions within ``scopes``."""
    try:
        withheld = hidden()
    except Exception as exc:  # the knowledge logs may be what broke; turns are still turns
        log.warning("visibility unknown for the fallback: %s", exc)
        withheld = set()
    items: list[RecallItem] = []
    used = 0
    for info in sessions.list_sessions():
        scope = "global" if info.project_id == DEFAULT_PROJECT else f"project:{info.project_id}"
        if scopes is not None and scope not in scopes:
            continue
        try:
            nodes = sessions.get_branch_nodes(info.session_id)
        except Exception as exc:  # one unreadable session must not hide the others
            log.warning("fallback: session %s unreadable: %s", info.session_id, exc)
            continue
        for node in reversed(nodes):
            if len(items) >= config.top:
                break
            if node.id in withheld or not node.text.strip():
                continue
            item = RecallItem(
                text=_line(node),
                kind="turn",
                score=0.0,
                cites=(node.id,),
                node_ids=(node.id,),
                session_id=info.session_id,
                commit=None,
                event_time=node.event_time,
                doc_ids=(),
                headers=config.headers,
            )
            # (counted under the widest number: the items are put in time order afterwards)
            tokens = count_tokens(item.render(config.top)) + 1
            if used + tokens > budget:
                continue
            items.append(RecallItem(**{**item.__dict__, "tokens": tokens}))
            used += tokens
        if len(items) >= config.top:
            break
    items.sort(key=lambda i: -(i.event_time or 0.0))
    return RecallResult(query, tuple(items), used, budget, fallback=True, reason=reason)
