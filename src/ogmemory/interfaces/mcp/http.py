"""The MCP server over streamable HTTP, with the REST server's API keys and limits.

``ogmem mcp --transport http`` serves ``http://HOST:PORT/mcp``. Who may call is decided exactly
as for ``ogmem serve`` (``interfaces.rest.guard.Gate``, the same ``<home>/keys.json``):

- with API keys, every request needs ``Authorization: Bearer <token>``, and the key decides the
  tenant ``(account, space)``: each tenant gets its own MCP server over its own ``Memory``, so
  an MCP session opened with one tenant's key is unknown to every other tenant;
- without keys, only this machine is served (loopback peer address, loopback ``Host`` and
  ``Origin``), the tenant chosen by ``--account``/``--space``; listening beyond loopback is
  refused (``check_bind``), as ``ogmem serve`` refuses it;
- a request body over ``Settings.max_body_bytes`` gets 413.

>>> app = KeyedMCPApp(Settings.from_env())                 # doctest: +SKIP
>>> uvicorn.run(app, host="127.0.0.1", port=8766)          # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

import anyio
import anyio.abc
import anyio.to_thread
import uvicorn
from mcp.server.transport_security import TransportSecuritySettings
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from ...config import Settings
from ...errors import OgmemError
from ..rest.guard import BodyLimit, Gate, bearer_token
from ..rest.keys import KeyStore
from ..rest.problems import STATUSES, Forbidden, KeysUnavailable, Unauthorized, problem_response
from ..rest.server import BackgroundServer
from ..rest.tenants import TenantPool, check_bind
from . import build_server

__all__ = ["MCP_PATH", "BackgroundMCPServer", "KeyedMCPApp", "serve_http"]

MCP_PATH = "/mcp"
#: The SDK's own Host/Origin check is off: ``Gate`` makes that decision (and must accept any
#: Host once keys are required, since clients then connect by the server's real name).
_NO_SDK_CHECK = TransportSecuritySettings(enable_dns_rebinding_protection=False)


class KeyedMCPApp:
    """ASGI application: the gate, then the caller's tenant's MCP server (made on first use)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.gate = Gate(KeyStore(settings.home))
        self.pool = TenantPool(settings)
        self._apps: dict[tuple[str, str], ASGIApp] = {}
        self._make_lock = anyio.Lock()
        self._tasks: anyio.abc.TaskGroup | None = None
        self._guarded = BodyLimit(self._dispatch, settings.max_body_bytes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "http":
            await self._guarded(scope, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        await receive()  # lifespan.startup
        try:
            async with anyio.create_task_group() as tasks:
                self._tasks = tasks
                await send({"type": "lifespan.startup.complete"})
                await receive()  # lifespan.shutdown
                tasks.cancel_scope.cancel()  # stops every tenant's session manager
        finally:
            self._tasks = None
            await anyio.to_thread.run_sync(self.pool.close)
        await send({"type": "lifespan.shutdown.complete"})

    async def _dispatch(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = Headers(scope=scope)
        client = scope.get("client")
        try:
            key = await anyio.to_thread.run_sync(
                lambda: self.gate.caller(
                    peer=client[0] if client else None,
                    host=headers.get("host"),
                    origin=headers.get("origin"),
                    token=bearer_token(headers.get("authorization")),
                )
            )
        except (Unauthorized, Forbidden, KeysUnavailable) as exc:
            status, slug, title = next(
                (s, g, t) for kind, s, g, t in STATUSES if isinstance(exc, kind)
            )
            extra = {"WWW-Authenticate": "Bearer"} if status == 401 else None
            await problem_response(status, slug, title, str(exc), extra)(scope, receive, send)
            return
        tenant = (key.account, key.space) if key else (self.settings.account, self.settings.space)
        app = await self._tenant_app(tenant)
        await app(scope, receive, send)

    async def _tenant_app(self, tenant: tuple[str, str]) -> ASGIApp:
        app = self._apps.get(tenant)
        if app is not None:
            return app
        async with self._make_lock:
            app = self._apps.get(tenant)
            if app is None:
                if self._tasks is None:
                    raise OgmemError("the MCP HTTP application was not started (lifespan)")
                mem = await anyio.to_thread.run_sync(self.pool.get, *tenant)
                made = build_server(mem).streamable_http_app(
                    streamable_http_path=MCP_PATH,
                    transport_security=_NO_SDK_CHECK,
                    max_request_body_size=self.settings.max_body_bytes,
                )
                await self._tasks.start(_run_lifespan, made)
                self._apps[tenant] = app = made
            return app


async def _run_lifespan(app: Any, *, task_status: anyio.abc.TaskStatus[None]) -> None:
    """Keep one tenant app's lifespan (its MCP session manager) open until cancelled."""
    async with app.router.lifespan_context(app):
        task_status.started()
        await anyio.sleep_forever()


def serve_http(settings: Settings, host: str, port: int, *, log_level: str = "warning") -> None:
    """Serve MCP over streamable HTTP in the foreground until SIGINT/SIGTERM.

    Refuses (``InvalidInput``) to listen beyond loopback while no API key exists.
    """
    check_bind(host, KeyStore(settings.home))
    uvicorn.run(KeyedMCPApp(settings), host=host, port=port, log_level=log_level, lifespan="on")


class BackgroundMCPServer(BackgroundServer):
    """``KeyedMCPApp`` served by uvicorn in a daemon thread (tests, benchmarks); port 0 picks a
    free port. Refuses to listen beyond loopback while no API key exists.

    >>> with BackgroundMCPServer(settings) as server:          # doctest: +SKIP
    ...     server.url
    'http://127.0.0.1:41234/mcp'
    """

    kind = "mcp"
    path = MCP_PATH

    def __init__(self, settings: Settings, host: str = "127.0.0.1", port: int = 0) -> None:
        check_bind(host, KeyStore(settings.home))
        super().__init__(KeyedMCPApp(settings), host, port)
