"""Running a compaction on a session: choose the turns to fold, summarize them, and append the
summary as a derived DAG node naming every node it replaced (the originals stay)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..entity.provenance import DERIVED_KEY
from .compaction import summarize
from .live import live_view, split_turns
from .results import CompactionResult

if TYPE_CHECKING:
    from .engine import ContextEngine

__all__ = ["SUMMARY_NAME", "compact"]

#: the ``name`` of summary nodes, so that transcripts show who wrote them
SUMMARY_NAME = "ogmem-summary"


def compact(engine: ContextEngine, sid: str, *, force: bool, why: str,
            limit: int | None = None) -> CompactionResult:
    """Fold the oldest live turns (never the newest ``keep_turns``) until the live context
    is under ``compact_to`` of ``limit`` (``force``: fold all of them)."""
    mem, cfg = engine.memory, engine.config
    limit = limit or cfg.live_limit
    branch = mem.get_branch_nodes(sid)
    view = live_view(branch)
    cost = {n.id: engine.node_tokens(sid, n) for n in view.nodes}
    summary_cost = engine.node_tokens(sid, view.summary) if view.summary is not None else 0
    before = sum(cost.values()) + summary_cost
    if not force and before <= limit:
        return CompactionResult(sid, False, tokens_before=before, tokens_after=before,
                                reasons=((f"the live context ({before} tokens) is within its "
                                          f"{limit}-token share: nothing to fold"),))
    turns = split_turns(view.nodes)
    foldable = max(0, len(turns) - cfg.keep_turns)
    target = cfg.compact_to * limit
    fold = 0
    remaining = before
    while fold < foldable and (force or remaining > target):
        remaining -= sum(cost[n.id] for n in turns[fold])
        fold += 1
    if fold == 0:
        return CompactionResult(sid, False, tokens_before=before, tokens_after=before,
                                reasons=((f"nothing old enough to fold: the newest "
                                          f"{cfg.keep_turns} turn(s) always stay live"),))
    folded = [n for turn in turns[:fold] for n in turn]
    summary = summarize(view.summary, folded, cap=max(200, int(limit * cfg.summary_share)),
                        count=engine.count, llm=engine.compaction_llm())
    prev = view.summary.id if view.summary is not None else None
    replaced_tokens = sum(cost[n.id] for n in folded)
    node = mem.append_message(sid, {
        "role": "assistant", "name": SUMMARY_NAME, "content": summary.text,
        "metadata": {DERIVED_KEY: "compaction", "replaces": [n.id for n in folded],
                     "folds": prev, "method": summary.method, "reason": why,
                     "tokens_replaced": replaced_tokens, "deduplicated": summary.deduplicated}})
    last = mem.session_commits(sid, limit=1)
    if branch and last and branch[-1].id in last[0].node_ids:
        # between turns (a PreCompact, /compact): the summary is committed on its own, so
        # that it is never mistaken for part of the next turn
        mem.commit_turn(sid, f"compaction: {len(folded)} nodes folded into {node.id}")
    after = remaining - summary_cost + engine.node_tokens(sid, node)
    reasons = [(f"{why}: folded {fold} turn(s), {len(folded)} nodes, {replaced_tokens} "
                f"tokens into summary node {node.id} ({summary.method})")]
    if prev:
        reasons.append(f"the summary also carries the previous summary {prev} forward")
    if summary.deduplicated:
        reasons.append(f"{summary.deduplicated} repeated tool output(s) summarized once")
    if summary.note:
        reasons.append(summary.note)
    return CompactionResult(sid, True, node.id, tuple(n.id for n in folded), prev,
                            summary.method, before, after, summary.deduplicated, tuple(reasons))
