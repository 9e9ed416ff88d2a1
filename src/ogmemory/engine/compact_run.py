"""Running a compaction on a session: choose the turns to fold, summarize them, and append the
summary as a derived DAG node naming every node it replaced (the originals stay)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..entity.provenance import DERIVED_KEY
from ..entity.records import Node
from .compaction import Summary, summarize
from .live import live_view, split_turns
from .results import CompactionResult

if TYPE_CHECKING:
    from .engine import ContextEngine

__all__ = ["SUMMARY_NAME", "compact"]

#: the ``name`` of summary nodes, so that transcripts show who wrote them
SUMMARY_NAME = "ogmem-summary"


def compact(
    engine: ContextEngine, sid: str, *, force: bool, why: str, limit: int | None = None
) -> CompactionResult:
    """Fold the oldest live turns (never the newest ``keep_turns``) until the live context
    is under ``compact_to`` of ``limit`` (``force``: fold all of them)."""
    cfg = engine.config
    limit = limit or cfg.live_limit
    branch = engine.memory.get_branch_nodes(sid)
    view = live_view(branch)
    cost = {n.id: engine.node_tokens(sid, n) for n in view.nodes}
    summary_cost = engine.node_tokens(sid, view.summary) if view.summary is not None else 0
    before = sum(cost.values()) + summary_cost
    if not force and before <= limit:
        why_not = f"the live context ({before} tokens) is within its {limit}-token share"
        return _unchanged(sid, before, f"{why_not}: nothing to fold")
    turns = split_turns(view.nodes)
    target = None if force else cfg.compact_to * limit
    fold, remaining = _turns_to_fold(turns, cost, before, cfg.keep_turns, target)
    if fold == 0:
        why_not = f"the newest {cfg.keep_turns} turn(s) always stay live"
        return _unchanged(sid, before, f"nothing old enough to fold: {why_not}")
    folded = [n for turn in turns[:fold] for n in turn]
    cap = max(200, int(limit * cfg.summary_share))
    llm = engine.compaction_llm()
    summary = summarize(view.summary, folded, cap=cap, count=engine.count, llm=llm)
    prev = view.summary.id if view.summary is not None else None
    replaced_tokens = sum(cost[n.id] for n in folded)
    node = _append_summary(engine, sid, branch, summary, folded, prev, why, replaced_tokens)
    after = remaining - summary_cost + engine.node_tokens(sid, node)
    reasons = [
        f"{why}: folded {fold} turn(s), {len(folded)} nodes, {replaced_tokens} "
        f"tokens into summary node {node.id} ({summary.method})"
    ]
    if prev:
        reasons.append(f"the summary also carries the previous summary {prev} forward")
    if summary.deduplicated:
        reasons.append(f"{summary.deduplicated} repeated tool output(s) summarized once")
    if summary.note:
        reasons.append(summary.note)
    return CompactionResult(
        sid,
        True,
        node.id,
        tuple(n.id for n in folded),
        prev,
        summary.method,
        before,
        after,
        summary.deduplicated,
        tuple(reasons),
    )


def _unchanged(sid: str, tokens: int, reason: str) -> CompactionResult:
    return CompactionResult(
        sid, False, tokens_before=tokens, tokens_after=tokens, reasons=(reason,)
    )


def _turns_to_fold(
    turns: list[list[Node]], cost: dict[str, int], before: int, keep: int, target: float | None
) -> tuple[int, int]:
    """How many of the oldest ``turns`` to fold (never the newest ``keep``) so that the live
    tokens fall to ``target`` (``None``: fold all that may be), and the tokens left then."""
    fold, remaining = 0, before
    while fold < max(0, len(turns) - keep) and (target is None or remaining > target):
        remaining -= sum(cost[n.id] for n in turns[fold])
        fold += 1
    return fold, remaining


def _append_summary(
    engine: ContextEngine,
    sid: str,
    branch: list[Node],
    summary: Summary,
    folded: list[Node],
    prev: str | None,
    why: str,
    replaced_tokens: int,
) -> Node:
    """Append the summary as a derived node naming every node it replaces; between turns, it
    is committed on its own."""
    metadata = {
        DERIVED_KEY: "compaction",
        "replaces": [n.id for n in folded],
        "folds": prev,
        "method": summary.method,
        "reason": why,
        "tokens_replaced": replaced_tokens,
        "deduplicated": summary.deduplicated,
    }
    msg = {"role": "assistant", "name": SUMMARY_NAME, "content": summary.text, "metadata": metadata}
    node = engine.memory.append_message(sid, msg)
    last = engine.memory.session_commits(sid, limit=1)
    if branch and last and branch[-1].id in last[0].node_ids:
        # between turns (a PreCompact, /compact): the summary is committed on its own, so
        # that it is never mistaken for part of the next turn
        engine.memory.commit_turn(sid, f"compaction: {len(folded)} nodes folded into {node.id}")
    return node
