"""The ten tools, one method each of ``MemoryTools``: a method parses its arguments (its
signature is the input schema the model sees), calls one ``Memory`` method and answers with the
compact text of ``format``. Lists come in pages of ``limit`` with a cursor for the next."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Annotated, Any, TypeVar

from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from ...errors import InvalidInput, OgmemError
from ...knowledge.models import TimelineKind
from ...memory import Memory
from ...recall.config import BUDGET_DEFAULT, BUDGET_MAX, BUDGET_MIN
from ..paging import MAX_CURSOR_LEN, Page, cursor_key, decode_cursor, encode_cursor, paginate
from .format import (
    bare_memory_id,
    call_hint,
    fmt_commit,
    fmt_edge,
    fmt_entity,
    fmt_event,
    fmt_hit,
    fmt_memory,
    fmt_node,
    fmt_recall,
    fmt_resolved,
    more_line,
    parse_when,
)

__all__ = ["LIMIT_MAX", "TOOL_NAMES", "MemoryTools", "TimelineKind", "make_tools"]

T = TypeVar("T")

TOOL_NAMES = (
    "memory_search",
    "memory_timeline",
    "memory_graph_neighbors",
    "memory_open_session",
    "memory_git_log",
    "memory_recall",
    "memory_core",
    "memory_remember",
    "memory_forget",
    "memory_read",
)

#: The most records one page of any list holds.
LIMIT_MAX = 100
#: How many search hits can be reached by paging.
SEARCH_MAX = 100

ScopeArg = Annotated[
    str | None,
    Field(description="Only this scope: 'global', 'project:<id>' or 'agent:<id>'. Omit: all."),
]
CursorArg = Annotated[
    str | None,
    Field(
        max_length=MAX_CURSOR_LEN,
        description="The cursor a previous page ended with, to continue that list.",
    ),
]
WhenArg = Annotated[str | None, Field(description="YYYY-MM-DD or ISO datetime (UTC default).")]


LimitArg = Annotated[int, Field(ge=1, le=LIMIT_MAX, description="Items per page.")]


_READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
_WRITE = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
)
_DELETE = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False
)


class MemoryTools:
    """The MCP tools over one ``Memory``; each public ``memory_*`` method is a tool."""

    def __init__(self, mem: Memory) -> None:
        self.mem = mem

    def memory_search(
        self,
        query: Annotated[str, Field(description="Words or a question (any language).")],
        limit: LimitArg = 10,
        scope: ScopeArg = None,
        cursor: CursorArg = None,
    ) -> str:
        """Search everything remembered (memories, facts, events, entities, sessions, turns),
        best first, one hit per record. Each hit's `next:` opens its evidence."""
        key = cursor_key("search", query, scope)
        with _facade_errors():
            offset = 0 if cursor is None else decode_cursor(cursor, key)
            want = min(SEARCH_MAX, offset + limit + 1)
            hits = self.mem.search(query, limit=want, scope=scope) if offset < want else []
        page = hits[offset : offset + limit]
        more = offset + limit < len(hits) and offset + limit < SEARCH_MAX
        nxt = encode_cursor(offset + limit, key) if more else None
        body = [fmt_hit(h) for h in page] or ["(no hits)"]
        shown = f"hits {offset + 1}-{offset + len(page)}" if page else "no more hits"
        return "\n".join([f"search {query!r}:", *body, more_line(nxt, shown)])

    def memory_timeline(
        self,
        since: WhenArg = None,
        until: Annotated[str | None, Field(description="Before this (a date: whole day).")] = None,
        entity: Annotated[str | None, Field(description="Only events about this entity.")] = None,
        kind: Annotated[TimelineKind | None, Field(description="Only this kind.")] = None,
        scope: ScopeArg = None,
        limit: LimitArg = 20,
        cursor: CursorArg = None,
    ) -> str:
        """Dated events (work, decisions, learnings, events) distilled from the conversations,
        oldest first. `next:` opens the messages behind one."""
        with _facade_errors():
            start = parse_when(since, "since")
            end = parse_when(until, "until", end_of_day=True)
            if start is not None and end is not None and end <= start:
                raise InvalidInput(f"until ({until}) must be later than since ({since})")
            events = self.mem.timeline(start, end, entity=entity, kind=kind, scope=scope)
            page = paginate(
                events,
                limit=limit,
                cursor=cursor,
                key=cursor_key("timeline", since, until, entity, kind, scope),
            )
        return _listing(
            f"timeline: {page.total} events", [fmt_event(e) for e in page.items], page, "events"
        )

    def memory_graph_neighbors(
        self,
        entity: Annotated[str, Field(description="A name, alias or id ('tool.postgresql').")],
        hops: Annotated[int, Field(ge=1, le=5, description="How many relations away.")] = 1,
        at: Annotated[
            str | None, Field(description="Relations valid at this date, not now.")
        ] = None,
        scope: ScopeArg = None,
        limit: LimitArg = 20,
        cursor: CursorArg = None,
    ) -> str:
        """The knowledge graph around an entity: its neighbours within `hops` and the relations
        (facts) valid now (or at `at`), with validity period and evidence."""
        with _facade_errors():
            when = parse_when(at, "at")
            entities, edges = self.mem.graph_neighbors(entity, hops, scope=scope, at=when)
            start = self.mem.entity(entity)
            page = paginate(
                edges,
                limit=limit,
                cursor=cursor,
                key=cursor_key("graph", start.id, hops, at, scope),
            )
        others = [fmt_entity(e) for e in entities if e.id != start.id]
        shown = "; ".join(others[:LIMIT_MAX])
        if len(others) > LIMIT_MAX:
            shown += f"; (+{len(others) - LIMIT_MAX} more)"
        head = (
            f"entity {fmt_entity(start)}\nneighbours ({len(others)}): {shown or '-'}\n"
            f"relations ({page.total}):"
        )
        return _listing(head, [fmt_edge(e) for e in page.items], page, "relations")

    def memory_open_session(
        self,
        session_id: Annotated[
            str, Field(description="From a pointer '↪ session:<id>' or a hit's next: call.")
        ],
        around: Annotated[
            str | None,
            Field(description="A node id (or a pointer's commit): show the messages around it."),
        ] = None,
        radius: Annotated[
            int, Field(ge=0, le=200, description="With around: messages on each side.")
        ] = 5,
        limit: LimitArg = 20,
        cursor: CursorArg = None,
    ) -> str:
        """The exact recorded messages of a session (every branch, tool calls), in write order:
        the evidence behind a memory. A page from the start, or around a node."""
        key = cursor_key("session", session_id)
        with _facade_errors():
            info = self.mem.get_session(session_id)
            nodes = self.mem.open_session(session_id)
            if cursor is not None:
                page = paginate(nodes, limit=limit, cursor=cursor, key=key)
            elif around is not None:
                cited = self.mem.open_session(session_id, around=around, radius=0)[0]
                around = cited.id
                idx = next(i for i, n in enumerate(nodes) if n.id == cited.id)
                first = max(0, idx - radius)
                page = _page_at(nodes, first, min(idx + radius + 1 - first, LIMIT_MAX), key)
            else:
                page = paginate(nodes, limit=limit, key=key)
        head = (
            f"session {info.session_id} {info.display_title!r} · project {info.project_id} "
            f"· {info.turns} turns · {len(nodes)} messages"
        )
        lines = [fmt_node(n, around, session_id=info.session_id) for n in page.items]
        tail = f"turn commits: {call_hint('memory_git_log', session_id=info.session_id)}"
        return _listing(head, lines, page, "messages") + "\n" + tail

    def memory_git_log(
        self,
        project_id: Annotated[
            str | None, Field(description="A project: its agent commits.")
        ] = None,
        session_id: Annotated[str | None, Field(description="A session: its turn commits.")] = None,
        limit: LimitArg = 20,
        cursor: CursorArg = None,
    ) -> str:
        """Git history, newest first: a session's turns (with their node ids) or a project's
        agent commits (with files). Give exactly one of project_id and session_id."""
        key = cursor_key("git", project_id, session_id)
        with _facade_errors():
            if (project_id is None) == (session_id is None):
                raise InvalidInput("give exactly one of project_id and session_id")
            offset = 0 if cursor is None else decode_cursor(cursor, key)
            commits = self.mem.git_log(project_id, session_id=session_id, limit=offset + limit + 1)
        page = _page_at(commits, offset, limit, key, total=None)
        what = f"session {session_id}" if session_id else f"project {project_id}"
        head = f"git log of {what}:"
        return _listing(head, [fmt_commit(c, session_id) for c in page.items], page, "commits")

    def memory_recall(
        self,
        query: Annotated[str, Field(description="The question or topic (any language).")],
        budget: Annotated[
            int, Field(ge=BUDGET_MIN, le=BUDGET_MAX, description="Token budget (o200k).")
        ] = BUDGET_DEFAULT,
        scope: ScopeArg = None,
    ) -> str:
        """Bounded context for a question: up to 20 items (memories, facts, events, turns),
        packed into `budget` tokens, each ending with its '↪ session:<id>@<commit>' pointer."""
        with _facade_errors():
            return fmt_recall(self.mem.recall(query, budget=budget, scope=scope))

    def memory_core(self) -> str:
        """core.md: the ≤ 2 KB snapshot of what matters now, each line with a pointer."""
        with _facade_errors():
            return self.mem.core()

    def memory_remember(
        self,
        text: Annotated[str, Field(description="One plain statement to remember.")],
        type: Annotated[
            str | None,
            Field(description="A declared memory type; default: read from the text."),
        ] = None,
        scope: Annotated[
            str, Field(description="'global', 'project:<id>' or 'agent:<id>'.")
        ] = "global",
    ) -> str:
        """Remember something the user asked you to remember (facts derive at once)."""
        with _facade_errors():
            item = self.mem.remember(text, type=type, scope=scope)
        return (
            f"{fmt_memory(item, 'remembered')}\n"
            f"next: {call_hint('memory_forget', memory_id=item.id)}"
        )

    def memory_forget(
        self,
        memory_id: Annotated[str, Field(description="'m_…' or a hit's 'memory:<id>'.")],
    ) -> str:
        """Delete a memory: it and facts derived only from it leave search, recall and
        core.md (history is kept)."""
        with _facade_errors():
            item = self.mem.forget(bare_memory_id(memory_id))
        return fmt_memory(item, "forgot")

    def memory_read(
        self,
        uri: Annotated[
            str,
            Field(
                max_length=600,
                description="ogm://<session|node|memory|event|fact|entity|archive|project>/<id>",
            ),
        ],
        level: Annotated[
            int, Field(ge=0, le=2, description="0 abstract, 1 +overview, 2 +content.")
        ] = 1,
        limit: LimitArg = 20,
        cursor: CursorArg = None,
    ) -> str:
        """Read what an ogm:// URI names (abstract, overview, content) and the URIs it links."""
        with _facade_errors():
            found = self.mem.resolve_uri(uri, level=level)
            page = paginate(
                found.links, limit=limit, cursor=cursor, key=cursor_key("read", found.uri, level)
            )
        shown = f"links {page.offset + 1}-{page.offset + len(page.items)} of {page.total}"
        return fmt_resolved(
            found, page.items, more_line(page.next_cursor, shown if page.items else "no links")
        )


def make_tools(mem: Memory) -> dict[str, tuple[Callable[..., Any], ToolAnnotations]]:
    """The tool functions (bound methods of ``MemoryTools``) and their annotations."""
    tools = MemoryTools(mem)
    kinds = {"memory_remember": _WRITE, "memory_forget": _DELETE}
    return {name: (getattr(tools, name), kinds.get(name, _READ)) for name in TOOL_NAMES}


def _page_at(
    items: Sequence[T], offset: int, limit: int, key: str, total: int | None = -1
) -> Page[T]:
    """``limit`` items from ``offset``, with the cursor for the rest."""
    chunk = list(items[offset : offset + limit])
    more = offset + limit < len(items)
    return Page(
        chunk,
        offset,
        encode_cursor(offset + limit, key) if more else None,
        len(items) if total == -1 else total,
    )


def _listing(head: str, lines: list[str], page: Page[Any], what: str) -> str:
    if not page.items:
        return f"{head}\n{more_line(None, f'no {what}')}"
    shown = f"{what} {page.offset + 1}-{page.offset + len(page.items)}"
    if page.total is not None:
        shown += f" of {page.total}"
    return "\n".join([head, *lines, more_line(page.next_cursor, shown)])


@contextmanager
def _facade_errors() -> Iterator[None]:
    """The one place facade errors become tool errors: the model reads the facade's message.

    Anything else is a bug; the SDK logs its traceback on stderr and answers with a generic
    tool error, so the server stays up either way.
    """
    try:
        yield
    except OgmemError as exc:
        raise ToolError(str(exc)) from exc
