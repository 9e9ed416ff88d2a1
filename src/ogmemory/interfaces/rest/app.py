"""``create_app``: the FastAPI application of ``ogmem serve``.

Routes are synchronous: FastAPI runs them in its thread pool, and each calls one method of the
caller's tenant ``Memory`` (the one execution model: a sync core called from threads).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.openapi.utils import get_openapi

from ... import __version__
from ...auth import KeyStore
from ...config import Settings
from ..web import install_web
from . import admin, browse, engine, imports, knowledge, recall, sessions
from .problems import PROBLEM_MEDIA_TYPE, install_error_handlers
from .schemas import HealthOut
from .tenants import TenantPool

__all__ = ["create_app"]

DESCRIPTION = """\
Long-term memory for LLM agents: conversations as git-backed sessions, a user-controlled memory
list, and the bi-temporal knowledge distilled from them (facts, entities, timeline, core.md),
recalled within a token budget.

**Authentication.** Once any API key exists (`ogmem keys create`), every `/v1` request needs
`Authorization: Bearer <token>`; the key selects the tenant `(account, space)`. Without keys the
server serves the local default tenant, on loopback only.

**Errors** are RFC 7807 problem details (`application/problem+json`). Another tenant's resource
and one that does not exist give the same 404, byte for byte.

Times are epoch seconds in responses; in query parameters, ISO-8601 or epoch seconds.
"""


def create_app(settings: Settings) -> FastAPI:
    """The application for the state directory ``settings.home``.

    >>> app = create_app(Settings(home=Path("/tmp/ogm")))   # doctest: +SKIP
    >>> uvicorn.run(app, host="127.0.0.1", port=8765)        # doctest: +SKIP
    """
    pool = TenantPool(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        try:
            yield
        finally:
            pool.close()  # finishes background work, erases temporary sessions

    # /docs is the vendored Swagger UI (web.install_web): FastAPI's own pages load a CDN.
    app = FastAPI(title="ogmemory", version=__version__, description=DESCRIPTION,
                  lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.settings = settings
    app.state.keys = KeyStore(settings.home)
    app.state.pool = pool
    install_error_handlers(app)

    @app.get("/health", response_model=HealthOut, tags=["health"], summary="Health check",
             description="Whether the server answers, its version, and whether it requires "
             "API keys. Needs no key.")
    def health(request: Request) -> dict[str, Any]:
        auth = "keys" if request.app.state.keys.has_keys() else "local"
        return {"status": "ok", "version": __version__, "auth": auth}

    for module in (sessions, knowledge, recall, engine, admin, imports, browse):
        app.include_router(module.router)
    install_web(app)
    app.openapi = lambda: _openapi(app)  # type: ignore[method-assign]
    return app


def _openapi(app: FastAPI) -> dict[str, Any]:
    """FastAPI's spec, with error bodies declared as ``application/problem+json``."""
    if app.openapi_schema is None:
        spec = get_openapi(title=app.title, version=app.version, description=app.description,
                           routes=app.routes)
        for path in spec.get("paths", {}).values():
            for operation in path.values():
                for status, response in operation.get("responses", {}).items():
                    content = response.get("content", {})
                    if status[:1] in "45" and "application/json" in content:
                        content[PROBLEM_MEDIA_TYPE] = content.pop("application/json")
        app.openapi_schema = spec
    return app.openapi_schema
