"""The MCP server: the navigation tools of seed 000 §7.2 plus recall, core, remember, forget and
read (what an ``ogm://`` URI names).

Every tool parses its arguments, calls one ``Memory`` method and answers with compact text the
model reads well: one line per record (id, date, kind, text) and a ``next:`` line naming the tool
call that opens its evidence, e.g. ``memory_open_session(session_id="s1", around="0136d4f58e14")``.
Lists come in pages (``limit``; the last line gives the ``cursor`` that continues). Errors the
facade raises on purpose (bad input, not found, conflict) come back as tool errors with the
facade's message; the server keeps running.

Resources: ``memory://core`` (core.md) and ``memory://session/{session_id}`` (a whole session).

Modules: ``tools`` (``MemoryTools``: one method per tool; signatures are the input schemas),
``resources``, ``format`` (records as the text the model reads, with ``next`` hints).

>>> server = build_server(Memory(home="/tmp/ogm"))        # doctest: +SKIP
>>> server.run("stdio")                                     # doctest: +SKIP

Built on the official SDK (``mcp`` 2.x, where ``FastMCP`` became ``MCPServer``). The SDK runs
these synchronous tools in a worker thread each, so the event loop never blocks on the facade.
"""

from __future__ import annotations

import inspect

from mcp.server.mcpserver import MCPServer

from ... import __version__
from ...memory import Memory
from .resources import CORE_URI, SESSION_URI, add_resources
from .tools import TOOL_NAMES, TimelineKind, make_tools

__all__ = ["CORE_URI", "INSTRUCTIONS", "SESSION_URI", "TOOL_NAMES", "TimelineKind", "build_server"]

INSTRUCTIONS = """\
ogmemory is the user's long-term memory, kept locally. core.md (memory_core, or the resource \
memory://core) is a ≤ 2 KB snapshot of what matters now; every line ends with a pointer \
"↪ session:<id>@<commit>". For context on a question call memory_recall; to look something up \
call memory_search, memory_timeline or memory_graph_neighbors. Every record is one line; its \
`next:` line is the call that opens its evidence, e.g. \
memory_open_session(session_id=..., around=<node id>) for the exact messages. Lists come in \
pages: pass `limit`, and the `cursor` a page ends with to continue. Save what the user asks \
you to remember with memory_remember; \
memory_forget deletes it again. memory_read(uri) reads what an ogm:// URI names (context items \
and archives cite them)."""


def build_server(memory: Memory) -> MCPServer:
    """An MCP server whose tools and resources call ``memory``; run it with ``.run(transport)``.

    The caller owns ``memory`` (and closes it after the server stops).
    """
    server: MCPServer = MCPServer(
        "ogmemory",
        title="ogmemory",
        description="Local-first long-term memory for LLM agents.",
        instructions=INSTRUCTIONS,
        version=__version__,
        log_level="WARNING",
    )
    tools = make_tools(memory)
    for name in TOOL_NAMES:
        fn, annotations = tools[name]
        server.add_tool(
            fn,
            name=name,
            description=inspect.cleandoc(fn.__doc__ or ""),
            annotations=annotations,
            structured_output=False,  # the text is the answer; no JSON copy of it
        )
    add_resources(server, memory)
    return server
