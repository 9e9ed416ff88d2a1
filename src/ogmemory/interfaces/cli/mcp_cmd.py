"""``ogmem mcp``: serve the memory to MCP clients (Claude Code, Cursor, Claude Desktop, ...).

Over stdio (the default) the client starts this command and speaks JSON-RPC on its stdin and
stdout, so nothing but protocol messages may reach stdout: notices and logs go to stderr. Over
streamable HTTP it listens on ``http://<host>:<port>/mcp`` until SIGINT or SIGTERM, with the
REST server's API keys (``ogmem keys``): with keys every request needs one and the key picks the
tenant; without keys it serves this machine only and refuses to listen beyond loopback.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from ...config import Settings
from ...errors import InvalidInput
from ...tenancy import validate_id
from .common import AccountOption, HomeOption, SpaceOption, notice, open_memory

__all__ = ["Transport", "mcp"]


class Transport(StrEnum):
    stdio = "stdio"
    http = "http"


def mcp(
    transport: Annotated[
        Transport,
        typer.Option(
            "--transport",
            metavar="stdio|http",
            help="stdio: the client starts this command and talks over stdin/stdout. http: "
            "streamable HTTP at http://HOST:PORT/mcp, for clients that connect by URL.",
        ),
    ] = Transport.stdio,
    host: Annotated[
        str,
        typer.Option(
            "--host",
            metavar="HOST",
            help="With --transport http: the address to listen on. Anything "
            "but loopback needs an API key to exist ('ogmem keys create').",
        ),
    ] = "127.0.0.1",
    port: Annotated[
        int,
        typer.Option(
            "--port", metavar="PORT", min=0, max=65535, help="With --transport http: the port."
        ),
    ] = 8766,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
) -> None:
    """Run the MCP server: tools memory_search, memory_timeline, memory_graph_neighbors,
    memory_open_session, memory_git_log, memory_recall, memory_core, memory_remember,
    memory_forget and memory_read; resources memory://core and memory://session/{id}."""
    if transport is Transport.stdio and (host != "127.0.0.1" or port != 8766):
        raise InvalidInput("--host and --port only apply with --transport http")
    if transport is Transport.http:
        _serve_http(host, port, home, account, space)
        return
    from ..mcp import build_server  # the SDK is heavy: import it only for this command

    with open_memory(home, account, space) as mem:
        server = build_server(mem)
        notice(f"ogmem mcp: serving {mem.tenant.root} over stdio")
        server.run("stdio")


def _serve_http(
    host: str, port: int, home: HomeOption, account: AccountOption, space: SpaceOption
) -> None:
    from ..mcp.http import serve_http
    from ..rest.keys import KeyStore

    settings = Settings.from_env(home=home, account=account, space=space)
    validate_id(settings.account, "account")
    validate_id(settings.space, "space")
    keys = KeyStore(settings.home)
    mode = (
        "API keys required (each key picks its tenant)"
        if keys.has_keys()
        else (
            f"no API keys: serving tenant {settings.account}/{settings.space} to this machine only"
        )
    )
    shown = f"[{host}]" if ":" in host else host
    notice(f"ogmem mcp: http://{shown}:{port}/mcp; {mode}; home {settings.home}")
    serve_http(settings, host, port)
