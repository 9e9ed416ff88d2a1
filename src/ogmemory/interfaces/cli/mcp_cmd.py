"""``ogmem mcp``: serve the memory to MCP clients (Claude Code, Cursor, Claude Desktop, ...).

Over stdio (the default) the client starts this command and speaks JSON-RPC on its stdin and
stdout, so nothing but protocol messages may reach stdout: notices and logs go to stderr. Over
streamable HTTP it listens on ``http://<host>:<port>/mcp`` until SIGINT or SIGTERM.
"""

from __future__ import annotations

from enum import Enum
from typing import Annotated

import typer

from ...errors import InvalidInput
from .common import AccountOption, HomeOption, SpaceOption, notice, open_memory

__all__ = ["Transport", "mcp"]


class Transport(str, Enum):
    stdio = "stdio"
    http = "http"


def mcp(
    transport: Annotated[
        Transport,
        typer.Option(
            "--transport",
            help="stdio: the client starts this command and talks over stdin/stdout. http: "
            "streamable HTTP at http://HOST:PORT/mcp, for clients that connect by URL.",
        ),
    ] = Transport.stdio,
    host: Annotated[
        str,
        typer.Option("--host", help="With --transport http: the address to listen on."),
    ] = "127.0.0.1",
    port: Annotated[
        int,
        typer.Option("--port", min=0, max=65535, help="With --transport http: the port."),
    ] = 8766,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
) -> None:
    """Run the MCP server: tools memory_search, memory_timeline, memory_graph_neighbors,
    memory_open_session, memory_git_log, memory_recall, memory_core, memory_remember and
    memory_forget; resources memory://core and memory://session/{id}."""
    if transport is Transport.stdio and (host != "127.0.0.1" or port != 8766):
        raise InvalidInput("--host and --port only apply with --transport http")
    from ..mcp import build_server  # the SDK is heavy: import it only for this command

    with open_memory(home, account, space) as mem:
        server = build_server(mem)
        if transport is Transport.stdio:
            notice(f"ogmem mcp: serving {mem.tenant.root} over stdio")
            server.run("stdio")
        else:
            notice(f"ogmem mcp: serving {mem.tenant.root} at http://{host}:{port}/mcp")
            server.run("streamable-http", host=host, port=port)
