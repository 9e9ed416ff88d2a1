"""Records as the compact text the model reads: one line per record (its id, date, kind and
text on one line), followed where it has evidence by a ``next:`` line naming the tool call that
opens it, e.g. ``next: memory_open_session(session_id="s1", around="0136d4f58e14")``. No JSON,
nothing said twice. Also the ISO date parsing of tool arguments.

>>> call_hint("memory_git_log", session_id="s1")
'memory_git_log(session_id="s1")'
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime

from ...entity.periods import time_label
from ...entity.records import CommitInfo, Node, Provenance
from ...entity.times import clamp_time, parse_when
from ...knowledge.models import Edge, Entity, MemoryItem, TimelineEvent
from ...recall.results import RecallResult, SearchHit
from ...resolver import Resolved

__all__ = [
    "NODE_CHARS",
    "RECALL_ENVELOPE",
    "bare_memory_id",
    "call_hint",
    "fmt_commit",
    "fmt_edge",
    "fmt_entity",
    "fmt_event",
    "fmt_hit",
    "fmt_memory",
    "fmt_node",
    "fmt_recall",
    "fmt_resolved",
    "more_line",
    "parse_when",
]

#: A message longer than this is clipped in a listing; the clip names the call that reads it all.
NODE_CHARS = 1500
#: What memory_read shows of a record's content (compact JSON) before clipping it.
CONTENT_CHARS = 6000
#: The most tokens memory_recall adds around the packed context (its header and footer).
RECALL_ENVELOPE = 120
_SPACE = re.compile(r"\s*\n\s*")

RECALL_FOOTER = (
    "To read an item's evidence: memory_open_session(session_id=<id>, around=<commit>) "
    "with its pointer '↪ session:<id>@<commit>'."
)


def call_hint(tool: str, **args: str | None) -> str:
    """A tool call as the model would write it: ``memory_open_session(session_id="s1")``."""
    inner = ", ".join(
        f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in args.items() if v is not None
    )
    return f"{tool}({inner})"


def more_line(cursor: str | None, shown: str) -> str:
    """The last line of a page: what it showed, and the cursor that continues (if any)."""
    if cursor is None:
        return f"({shown}; end)"
    return f'({shown}; more: cursor="{cursor}")'


def _one_line(text: str) -> str:
    """Text on one line: line breaks become `` / ``."""
    return _SPACE.sub(" / ", text.strip())


def _day(ts: float | None) -> str:
    if ts is None:
        return "undated"
    return datetime.fromtimestamp(clamp_time(ts), UTC).strftime("%Y-%m-%d")


def _minute(ts: float | None) -> str:
    if ts is None:
        return "undated"
    return datetime.fromtimestamp(clamp_time(ts), UTC).strftime("%Y-%m-%d %H:%M")


def _next(session_id: str | None, node_ids: Sequence[str]) -> str:
    """The ``next:`` line opening the evidence (empty without a session)."""
    if not session_id:
        return ""
    ids = list(dict.fromkeys(node_ids))
    hint = call_hint("memory_open_session", session_id=session_id, around=ids[0] if ids else None)
    extra = f" nodes={','.join(ids)}" if len(ids) > 1 else ""
    return f"\n  next: {hint}{extra}"


def _prov_next(prov: Provenance | None) -> str:
    return "" if prov is None else _next(prov.session_id, prov.node_ids)


def fmt_hit(hit: SearchHit) -> str:
    """``- <id> · <kind> · <date>: <text>`` and its ``next:`` line."""
    line = f"- {hit.id} · {hit.kind} · {_day(hit.event_time)}: {_one_line(hit.text)}"
    if hit.session_id:
        return line + _next(hit.session_id, hit.node_ids)
    if hit.kind == "entity":
        entity = hit.id.split(":", 1)[-1]
        return line + f"\n  next: {call_hint('memory_graph_neighbors', entity=entity)}"
    return line


def fmt_recall(result: RecallResult) -> str:
    """The packed context exactly as a prompt gets it, between a header and a footer whose size
    does not depend on the items (at most ``RECALL_ENVELOPE`` tokens together)."""
    head = f"recall: {len(result.items)} items, {result.tokens}/{result.budget} tokens"
    if result.fallback:
        head += f"; fallback (latest items): {_one_line(result.reason or '')[:200]}"
    if not result.items:
        return head + "\n(nothing relevant remembered)"
    return f"{head}\n{result.as_context()}\n{RECALL_FOOTER}"


def fmt_event(ev: TimelineEvent) -> str:
    """``- <id> · <date> · <kind>: <summary> [<entities>]`` and its ``next:`` line."""
    ents = f" [{', '.join(ev.entities)}]" if ev.entities else ""
    when = time_label(ev.event_time, ev.precision, ev.language)
    return f"- {ev.id} · {when} · {ev.kind}: {_one_line(ev.summary)}{ents}" + _prov_next(
        ev.provenance
    )


def fmt_entity(ent: Entity) -> str:
    """``<id> (<type>) "<name>"`` plus its aliases."""
    aliases = f" aka {', '.join(ent.aliases)}" if ent.aliases else ""
    return f'{ent.id} ({ent.type}) "{ent.name}"{aliases}'


def fmt_edge(edge: Edge) -> str:
    """``- <id> · <from> <relation> <to> · <valid period>: <fact>`` and its ``next:`` line."""
    until = "now" if edge.current else _day(edge.valid_to)
    return (
        f"- {edge.id} · {edge.src} {edge.relation} {edge.dst} · "
        f"{_day(edge.valid_from)}..{until}: {_one_line(edge.fact)}" + _prov_next(edge.provenance)
    )


def fmt_node(
    node: Node, around: str | None, *, session_id: str | None = None, clip: int | None = NODE_CHARS
) -> str:
    """``#<seq> <id> <role> <time>: <text>``; ``(cited)`` marks ``around``; a text longer than
    ``clip`` is cut with the call that reads it whole."""
    tags = [
        t
        for t in (
            f"name={node.name}" if node.name else "",
            f"call={node.tool_call_id}" if node.tool_call_id else "",
            f"by={node.called_by}" if node.called_by else "",
            "(cited)" if around is not None and node.id == around else "",
        )
        if t
    ]
    text = node.text.strip()
    if clip is not None and len(text) > clip:
        read = call_hint("memory_read", uri=f"ogm://node/{session_id}/{node.id}")
        text = f"{text[:clip]}… [+{len(text) - clip} chars: {read}]"
    head = " ".join([f"#{node.seq}", node.id, node.role, *tags, _minute(node.event_time)])
    return f"{head}: {text}"


def fmt_commit(commit: CommitInfo, session_id: str | None) -> str:
    """``- <sha7> · <time> · <branch>: <message>``, its nodes or files, and ``next:``."""
    branch = f" · {commit.branch}" if commit.branch else ""
    line = f"- {commit.sha[:12]} · {_minute(commit.time)}{branch}: {_one_line(commit.message)}"
    if commit.files:
        line += f"\n  files: {', '.join(commit.files[:20])}"
        if len(commit.files) > 20:
            line += f" (+{len(commit.files) - 20})"
    if session_id is not None:
        line += _next(session_id, commit.node_ids)
    return line


def fmt_memory(item: MemoryItem, verb: str = "memory") -> str:
    """``<verb> <id> (<type>, <scope>, v<n>[, disabled][, deleted]): <text>``."""
    flags = [
        item.type,
        item.scope,
        f"v{item.version}",
        f"{item.source}",
        "" if item.enabled else "disabled",
        "deleted" if item.deleted else "",
    ]
    return f"{verb} {item.id} ({', '.join(f for f in flags if f)}): {_one_line(item.text)}"


def fmt_resolved(found: Resolved, links: Iterable[str], more: str) -> str:
    """A URI's record: title line, abstract, overview, (clipped) content, then its links."""
    parts = [
        f"{found.uri} · {found.type} · {_one_line(found.title)}",
        f"abstract: {found.abstract.strip()}",
    ]
    if found.overview.strip():
        parts.append(f"overview:\n{found.overview.strip()}")
    if found.content is not None:
        content = json.dumps(found.content, ensure_ascii=False, separators=(",", ":"), default=str)
        if len(content) > CONTENT_CHARS:
            content = (
                f"{content[:CONTENT_CHARS]}… [+{len(content) - CONTENT_CHARS} chars; "
                "for a session's messages use memory_open_session]"
            )
        parts.append(f"content: {content}")
    shown = list(links)
    if shown:
        parts.append("links:\n" + "\n".join(f"- {link}" for link in shown))
    parts.append(more)
    return "\n".join(parts)


def bare_memory_id(text: str) -> str:
    """Accept a search hit's ``memory:<id>`` as well as the bare id."""
    return text.removeprefix("memory:")
