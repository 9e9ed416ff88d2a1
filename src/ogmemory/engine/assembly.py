"""② Before inference: the model's context, assembled within one token budget.

Order of claims on the budget: the caller's system prompt, core.md for the session's scope
(always; trimmed to its reserve), the live turns (compacted first when they pass their share),
then bounded recall for the current message in what is left (at most ``recall_budget``, seed
003: ≤ 20 items, ≤ 2,000 tokens). Recall items already among the live turns are left out, and
an empty recall adds nothing (issue 15 puts the relevance floor inside recall itself; the engine
only honours an empty result). Every included item says why it is there and what it cost.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..entity.records import Node
from ..errors import InvalidInput
from ..resolver import uri_for_doc
from ..tenancy import format_uri
from .live import LiveView, dedupe, split_turns
from .results import CompactionResult, ContextItem, ContextResult, render_memory_block

if TYPE_CHECKING:
    from .engine import ContextEngine

__all__ = ["PREAMBLE", "assemble"]

PREAMBLE = (
    "Long-term memory (ogmemory) follows: what is known about the user and earlier work, "
    "each line with a ↪ pointer to where it was said. It may be incomplete or out of "
    "date; when it disagrees with the conversation, the conversation wins."
)
_SLACK = 24  # headings and separators between the parts of the system message


def assemble(
    engine: ContextEngine,
    sid: str,
    query: str | None,
    budget: int,
    system: str | None,
    compact: bool,
    core: bool = True,
    live: bool = True,
) -> ContextResult:
    """② the context of ``sid`` within ``budget`` (see the module docstring). ``live=False``:
    the caller keeps the conversation itself (Claude Code), so its turns are neither sent nor
    counted, only kept out of recall."""
    cfg = engine.config
    if not isinstance(budget, int) or not 500 <= budget <= 1_000_000:
        raise InvalidInput("budget must be an integer between 500 and 1000000 tokens")
    engine.memory.get_session(sid)  # NotFound before anything else
    temporary = engine.is_temporary(sid)
    skipped: list[str] = []
    reasons: list[str] = []
    sys_tokens = engine.count(system) + 4 if system else 0
    core_res = min(cfg.core_budget, budget // 8)
    live_limit = budget - core_res - min(cfg.recall_budget, budget // 4) - sys_tokens - _SLACK
    if live_limit < budget // 5:
        raise InvalidInput(
            f"the system prompt ({sys_tokens} tokens) leaves too little of the "
            f"{budget}-token budget for the conversation"
        )
    view, compaction = _compacted_view(engine, sid, live_limit, compact, reasons)
    question = query if query is not None else _last_user(view.nodes)
    items: list[ContextItem] = []
    scope = engine.scope_of(sid)
    if temporary:
        skipped.append("core.md and recall: temporary conversation, memory is not read")
    elif core:
        items += _core(engine, scope, core_res, skipped)
    else:
        skipped.append("core.md: the caller gave it to the model already")
    if view.summary is not None and live:
        items.append(_summary_item(engine, sid, view.summary))
    room = live_limit - _tokens(items, "summary")
    if live:
        messages, recent = _live(engine, sid, view.nodes, room, skipped)
    else:
        messages, recent = [], []
        skipped.append("live turns: the caller keeps the conversation")
    used = sys_tokens + engine.count(PREAMBLE) + _SLACK + _tokens(items + recent, None)
    fallback = False
    if not temporary:
        room = min(cfg.recall_budget, budget - used)
        live_ids = {n.id for n in view.nodes}
        found, fallback = _recall(engine, sid, scope, question, room, live_ids, skipped)
        items += found
    items += recent
    system_text = _system_text(system, items)
    if system_text:
        messages.insert(0, {"role": "system", "content": system_text})
    total = sys_tokens + _tokens(items, None)
    if any(i.source != "recent" for i in items):
        total += engine.count(PREAMBLE) + _SLACK
    return ContextResult(
        sid,
        question,
        budget,
        total,
        tuple(items),
        tuple(messages),
        tuple(skipped),
        compaction,
        temporary,
        fallback,
        tuple(reasons),
    )


def _compacted_view(
    engine: ContextEngine, sid: str, live_limit: int, compact: bool, reasons: list[str]
) -> tuple[LiveView, CompactionResult | None]:
    """The live part of the session, compacted first if it passes ``live_limit``."""
    view = engine.live(sid)
    if not compact or engine.config.compaction == "off":
        return view, None
    if _live_tokens(engine, sid, view) <= live_limit:
        return view, None
    from .compact_run import compact as run_compaction

    why = f"the live context passed its {live_limit}-token share"
    compaction = run_compaction(engine, sid, force=False, why=why, limit=live_limit)
    if compaction.compacted:
        view = engine.live(sid)
        reasons.append(f"compacted {len(compaction.replaces)} nodes into {compaction.node_id}")
    return view, compaction


def _tokens(items: list[ContextItem], source: str | None) -> int:
    """Tokens of the items from ``source`` (``None``: of all of them)."""
    return sum(i.tokens for i in items if source is None or i.source == source)


def _live_tokens(engine: ContextEngine, sid: str, view: LiveView) -> int:
    total = sum(engine.node_tokens(sid, n) for n in view.nodes)
    return total + (engine.node_tokens(sid, view.summary) if view.summary is not None else 0)


def _last_user(nodes: list[Node]) -> str:
    return next((n.text for n in reversed(nodes) if n.role == "user"), "")


def _core(engine: ContextEngine, scope: str, reserve: int, skipped: list[str]) -> list[ContextItem]:
    text = engine.core_for(scope)
    if not text:
        skipped.append(f"core.md for {scope}: empty (nothing distilled yet)")
        return []
    tokens = engine.count(text)
    note = ""
    if tokens > reserve:
        lines = text.splitlines()
        while lines and engine.count("\n".join(lines)) > reserve:
            lines.pop()
        note = f"; cut from {tokens} tokens to its {reserve}-token reserve"
        text = "\n".join(lines)
        tokens = engine.count(text)
    return [ContextItem("core", text, tokens, f"core.md for scope {scope}, always included{note}")]


def _summary_item(engine: ContextEngine, sid: str, node: Node) -> ContextItem:
    replaced = node.metadata.get("replaces") or []
    return ContextItem(
        "summary",
        node.text,
        engine.node_tokens(sid, node),
        f"compaction summary standing in for {len(replaced)} earlier nodes "
        f"({node.metadata.get('method', 'rules')})",
        uri=format_uri("node", sid, node.id),
        role="system",
    )


def _recall(
    engine: ContextEngine,
    sid: str,
    scope: str,
    query: str,
    room: int,
    live_ids: set[str],
    skipped: list[str],
) -> tuple[list[ContextItem], bool]:
    if not query.strip():
        skipped.append("recall: no message to recall for")
        return [], False
    if room < 50:
        skipped.append(f"recall: only {room} tokens left in the budget")
        return [], False
    result = engine.memory.recall(query, budget=room, scope=scope, session_id=sid)
    if not result.items:
        skipped.append(
            "recall: nothing relevant found" + (f" ({result.reason})" if result.reason else "")
        )
        return [], result.fallback
    items = []
    for rank, item in enumerate(result.items, 1):
        uri = uri_for_doc(item.doc_ids[0]) if item.doc_ids else None
        if item.session_id == sid and item.node_ids and set(item.node_ids) <= live_ids:
            skipped.append(f"recall #{rank} {uri}: already in the recent turns")
            continue
        why = (
            f"recall fallback ({result.reason})"
            if result.fallback
            else f"recall #{rank} of {len(result.items)} for this message, {item.kind}, "
            f"score {item.score:.2f}"
        )
        items.append(ContextItem("recall", item.render(), item.tokens, why, uri=uri))
    return items, result.fallback


def _live(
    engine: ContextEngine, sid: str, nodes: list[Node], limit: int, skipped: list[str]
) -> tuple[list[dict[str, Any]], list[ContextItem]]:
    """The live turns as messages (repeated outputs replaced by pointers, oversized tool
    outputs cut when even the compacted context does not fit) and one item per turn."""
    texts = dedupe(nodes)
    if texts:
        skipped.append(
            f"{len(texts)} repeated tool output(s) replaced by a pointer to the newer copy"
        )
    cost = {
        n.id: (engine.count(texts[n.id]) + 4 if n.id in texts else engine.node_tokens(sid, n))
        for n in nodes
    }
    over = sum(cost.values()) - limit
    for node in sorted((n for n in nodes if n.role == "tool"), key=lambda n: -cost[n.id]):
        if over <= 0:
            break
        keep = max(200, len(node.text) * max(cost[node.id] - over, 50) // max(cost[node.id], 1))
        texts[node.id] = (
            node.text[:keep] + f"\n[… cut to fit the budget; full output in "
            f"{format_uri('node', sid, node.id)}]"
        )
        new = engine.count(texts[node.id]) + 4
        over -= cost[node.id] - new
        skipped.append(f"tool output {node.id} cut from {cost[node.id]} to {new} tokens to fit")
        cost[node.id] = new
    messages = _messages(nodes, texts)
    turns = split_turns(nodes)
    items = []
    for i, turn in enumerate(turns, 1):
        first = turn[0]
        label = (
            "the message being answered" if i == len(turns) else f"live turn {i} of {len(turns)}"
        )
        items.append(
            ContextItem(
                "recent",
                "\n".join(f"{n.role}: {texts.get(n.id, n.text)}" for n in turn),
                sum(cost[n.id] for n in turn),
                f"{label} ({len(turn)} messages, not compacted)",
                uri=format_uri("node", sid, first.id),
                role=first.role,
            )
        )
    if over > 0:
        skipped.append(
            f"the live turns exceed their share by {over} tokens even after "
            "compaction and cutting tool outputs"
        )
    return messages, items


def _messages(nodes: list[Node], texts: dict[str, str]) -> list[dict[str, Any]]:
    """OpenAI messages that an endpoint accepts: a tool call whose result is not live is
    dropped from its message, and a result whose call is not live becomes plain text."""
    results = {n.tool_call_id for n in nodes if n.role == "tool"}
    calls = {str(c.get("id")) for n in nodes for c in n.tool_calls or [] if isinstance(c, dict)}
    out: list[dict[str, Any]] = []
    for node in nodes:
        msg = node.to_message()
        if node.id in texts:
            msg["content"] = texts[node.id]
        if node.tool_calls:
            kept = [c for c in node.tool_calls if isinstance(c, dict) and c.get("id") in results]
            if kept:
                msg["tool_calls"] = kept
                msg["content"] = msg.get("content") or ""  # some servers refuse a null here
            else:
                msg.pop("tool_calls", None)
                msg["content"] = msg.get("content") or node.text
        if node.role == "tool" and node.tool_call_id not in calls:
            msg = {"role": "user", "content": f"[tool result {node.name or ''}] {msg['content']}"}
        out.append(msg)
    return out


def _system_text(system: str | None, items: list[ContextItem]) -> str:
    memory = render_memory_block([i for i in items if i.source != "recent"])
    parts = [p for p in (system, f"{PREAMBLE}\n\n{memory}" if memory else "") if p]
    return "\n\n".join(parts)
