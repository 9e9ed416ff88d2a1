"""The ten tools: each parses its arguments (the signature is the input schema the model
sees), calls one ``Memory`` method and formats the answer with ``format``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any

from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from ...errors import InvalidInput, OgmemError
from ...knowledge.models import TimelineKind
from ...memory import Memory
from ...recall.config import BUDGET_DEFAULT, BUDGET_MAX, BUDGET_MIN
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
    fmt_recall_item,
    parse_when,
)

__all__ = ["TOOL_NAMES", "TimelineKind", "make_tools"]

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

ScopeArg = Annotated[
    str | None,
    Field(
        description="Only what is visible in this scope: 'global', 'project:<id>' (global plus "
        "that project) or 'agent:<id>'. Omit to see every scope.",
    ),
]

_READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)


def make_tools(mem: Memory) -> dict[str, tuple[Callable[..., Any], ToolAnnotations]]:
    """The tool functions, closed over ``mem``; their signatures become the input schemas."""

    def memory_search(
        query: Annotated[str, Field(description="Words or a question to look for (any language).")],
        limit: Annotated[int, Field(ge=1, le=100, description="Most hits to return.")] = 10,
        scope: ScopeArg = None,
    ) -> dict[str, Any]:
        """Search everything remembered: memories, facts, timeline events, entities, session
        summaries and the raw conversation turns (full text, plus vectors when enabled).

        Each hit has its text, kind, score and provenance (session_id, node_ids, commit); its
        `next` field is the call that opens the evidence, usually
        memory_open_session(session_id=..., around=<node id>).
        """
        with _facade_errors():
            hits = mem.search(query, limit=limit, scope=scope)
        return {"query": query, "hits": [fmt_hit(h) for h in hits]}

    def memory_timeline(
        since: Annotated[
            str | None,
            Field(
                description="Only events from this moment on: YYYY-MM-DD or an ISO datetime "
                "(UTC unless it has an offset such as +08:00 or Z)."
            ),
        ] = None,
        until: Annotated[
            str | None,
            Field(
                description="Only events before this moment (same formats); a date alone "
                "includes that whole day."
            ),
        ] = None,
        entity: Annotated[
            str | None,
            Field(
                description="Only events about this entity: a name, alias or id such as "
                "'tool.postgresql'."
            ),
        ] = None,
        kind: Annotated[
            TimelineKind | None,
            Field(description="Only events of this kind: work, decision, learning or event."),
        ] = None,
        scope: ScopeArg = None,
    ) -> dict[str, Any]:
        """What happened, oldest first, by when it happened: work done, decisions, learnings
        and dated events distilled from the conversations.

        Each event has its date, kind, summary, entities and provenance; `next` opens the
        messages it was distilled from.
        """
        with _facade_errors():
            start = parse_when(since, "since")
            end = parse_when(until, "until", end_of_day=True)
            if start is not None and end is not None and end <= start:
                raise InvalidInput(f"until ({until}) must be later than since ({since})")
            events = mem.timeline(start, end, entity=entity, kind=kind, scope=scope)
        return {"events": [fmt_event(e) for e in events]}

    def memory_graph_neighbors(
        entity: Annotated[
            str,
            Field(
                description="The entity to start from: a name ('PostgreSQL'), an alias or an "
                "id ('tool.postgresql'), as shown by memory_search or memory_timeline."
            ),
        ],
        hops: Annotated[int, Field(ge=1, le=5, description="How many relations away to go.")] = 1,
        at: Annotated[
            str | None,
            Field(
                description="Use the relations valid at this moment (YYYY-MM-DD or ISO "
                "datetime) instead of now: what was true then."
            ),
        ] = None,
        scope: ScopeArg = None,
    ) -> dict[str, Any]:
        """The knowledge graph around an entity: the entities within `hops` relations and the
        relations (facts) between them, with their validity period.

        Only facts valid now are returned (or valid at `at`); a fact that was contradicted later
        has ended. Each relation carries provenance and a `next` call to open its evidence.
        """
        with _facade_errors():
            when = parse_when(at, "at")
            entities, edges = mem.graph_neighbors(entity, hops, scope=scope, at=when)
            start = mem.entity(entity)
        return {
            "entity": fmt_entity(start),
            "entities": [fmt_entity(e) for e in entities],
            "relations": [fmt_edge(e) for e in edges],
        }

    def memory_open_session(
        session_id: Annotated[
            str,
            Field(
                description="The session to open, as named by a pointer '↪ session:<id>' or "
                "by the session_id of a search hit, recall item or event."
            ),
        ],
        around: Annotated[
            str | None,
            Field(
                description="A DAG node id in that session (from node_ids): return only the "
                "messages around it. Omit for the whole session."
            ),
        ] = None,
        radius: Annotated[
            int,
            Field(ge=0, le=200, description="With `around`: how many messages on each side."),
        ] = 5,
    ) -> dict[str, Any]:
        """The exact recorded messages of a session (user, assistant and tool calls, every
        branch), in the order they were written: the evidence behind a memory.

        With `around`, only the `radius` messages on each side of that node.
        """
        with _facade_errors():
            info = mem.get_session(session_id)
            nodes = mem.open_session(session_id, around=around, radius=radius)
        return {
            "session_id": info.session_id,
            "title": info.display_title,
            "project_id": info.project_id,
            "turns": info.turns,
            "around": around,
            "nodes": [fmt_node(n, around) for n in nodes],
            "next": call_hint("memory_git_log", session_id=info.session_id),
        }

    def memory_git_log(
        project_id: Annotated[
            str | None,
            Field(description="A registered project: list the commits the agent made in it."),
        ] = None,
        session_id: Annotated[
            str | None,
            Field(description="A session: list its turn commits (one per turn)."),
        ] = None,
        limit: Annotated[int, Field(ge=1, le=500, description="Most commits to return.")] = 20,
    ) -> dict[str, Any]:
        """Git history, newest first: a session's turns (each commit lists the node ids it
        holds) or a project's agent-attributed commits (with the files they changed).

        Give exactly one of project_id and session_id.
        """
        with _facade_errors():
            if (project_id is None) == (session_id is None):
                raise InvalidInput("give exactly one of project_id and session_id")
            commits = mem.git_log(project_id, session_id=session_id, limit=limit)
        return {
            "project_id": project_id,
            "session_id": session_id,
            "commits": [fmt_commit(c, session_id) for c in commits],
        }

    def memory_recall(
        query: Annotated[
            str, Field(description="The question or topic to recall context for (any language).")
        ],
        budget: Annotated[
            int,
            Field(
                ge=BUDGET_MIN,
                le=BUDGET_MAX,
                description="Token budget for all items together (o200k tokenizer).",
            ),
        ] = BUDGET_DEFAULT,
        scope: ScopeArg = None,
    ) -> dict[str, Any]:
        """Bounded context for a question: at most 20 items (memories, facts, events, turns)
        ranked by relevance, recency and importance, packed into `budget` tokens.

        `context` is the items as one text block, each line with its '↪ session:<id>' pointer;
        `items` list them with provenance and a `next` call to open the evidence. If the index
        is unavailable the latest items are returned and `fallback` says why.
        """
        with _facade_errors():
            result = mem.recall(query, budget=budget, scope=scope)
        data = result.to_dict()
        data["items"] = [fmt_recall_item(item) for item in data["items"]]
        data["context"] = result.as_context()
        return data

    def memory_core() -> str:
        """core.md: the ≤ 2 KB snapshot of what matters now (recent timeline, current facts),
        every line with a '↪ session:<id>@<commit>' pointer to follow with memory_open_session.
        Regenerated by the nightly deep sleep.
        """
        with _facade_errors():
            return mem.core()

    def memory_remember(
        text: Annotated[
            str,
            Field(
                description="What to remember, as one plain statement, e.g. 'The user prefers "
                "tabs over spaces.'"
            ),
        ],
        type: Annotated[
            str,
            Field(
                description="Memory type: 'profile' (about the user), or another type "
                "declared in the memory-type YAML files."
            ),
        ] = "profile",
        scope: Annotated[
            str,
            Field(description="Where it applies: 'global', 'project:<id>' or 'agent:<id>'."),
        ] = "global",
    ) -> dict[str, Any]:
        """Add a memory to the user's memory list, now (facts are derived from it at once).
        Use it when the user asks you to remember something.

        Returns the memory with its id; `next` is the call that deletes it again.
        """
        with _facade_errors():
            item = mem.remember(text, type=type, scope=scope)
        return {**fmt_memory(item), "next": call_hint("memory_forget", memory_id=item.id)}

    def memory_forget(
        memory_id: Annotated[
            str,
            Field(
                description="The memory's id ('m_…'), as returned by memory_remember or shown "
                "in a search hit 'memory:<id>'."
            ),
        ],
    ) -> dict[str, Any]:
        """Delete a memory from the user's memory list: it, and every fact derived only from
        it, disappears from search, recall and core.md (its history is kept for audit).
        """
        with _facade_errors():
            item = mem.forget(bare_memory_id(memory_id))
        return {**fmt_memory(item), "forgotten": True}

    def memory_read(
        uri: Annotated[
            str,
            Field(
                description="An ogm:// URI: ogm://session/<id>, ogm://node/<session>/<node>, "
                "ogm://memory/<id>, ogm://event/<id>, ogm://fact/<id>, ogm://entity/<id or "
                "name>, ogm://archive/<session> or ogm://project/<id>.",
                max_length=600,
            ),
        ],
        level: Annotated[
            int,
            Field(ge=0, le=2, description="0: the abstract (~100 tokens); 1: plus the overview "
                  "(~500 tokens); 2: plus the full content."),
        ] = 1,
    ) -> dict[str, Any]:
        """Read what an ogm:// URI names, at three levels of detail (abstract, overview,
        content), with the URIs to follow from it (`links`). Context items and archives
        name their sources by these URIs.
        """
        with _facade_errors():
            return mem.resolve_uri(uri, level=level).to_dict()

    write = ToolAnnotations(
        read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
    )
    delete = ToolAnnotations(
        read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False
    )
    return {
        "memory_search": (memory_search, _READ),
        "memory_timeline": (memory_timeline, _READ),
        "memory_graph_neighbors": (memory_graph_neighbors, _READ),
        "memory_open_session": (memory_open_session, _READ),
        "memory_git_log": (memory_git_log, _READ),
        "memory_recall": (memory_recall, _READ),
        "memory_core": (memory_core, _READ),
        "memory_remember": (memory_remember, write),
        "memory_forget": (memory_forget, delete),
        "memory_read": (memory_read, _READ),
    }


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
