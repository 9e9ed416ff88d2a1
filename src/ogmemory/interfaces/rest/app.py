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
from fastapi.responses import JSONResponse

from ... import __version__
from ...config import Settings
from ..web import install_web
from . import admin, browse, engine, imports, knowledge, recall, sessions
from .guard import BodyLimit, Gate
from .keys import KeyStore
from .problems import PROBLEM_MEDIA_TYPE, Problem, install_error_handlers
from .schemas import HealthOut
from .tenants import CallerKey, TenantPool

__all__ = ["create_app"]

DESCRIPTION = """\
Long-term memory for LLM agents: conversations as git-backed sessions, a user-controlled memory
list, and the bi-temporal knowledge distilled from them (facts, entities, timeline, core.md),
recalled within a token budget.

**Authentication.** Once any API key exists (`ogmem keys create`), every request but
`GET /health` needs `Authorization: Bearer <token>` (this spec and the docs pages too); the key
selects the tenant `(account, space)`. Without keys the server serves the local default tenant
to this machine only (loopback peer address). A server that has required keys never serves
without them: a missing or unreadable key file gives 503.

**Limits.** A request body is at most 4 MiB by default (`OGMEM_MAX_BODY_BYTES`; larger: 413).
`event_time` lies in 1970-01-01T00:00:00Z .. 3000-01-01T00:00:00Z; text must be valid Unicode
(a lone surrogate is a 422). Request bodies are strict: `"2000"` is not a number.

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

    # The spec is a route of its own, behind the same keys as the API; /docs is the vendored
    # Swagger UI (web.install_web; FastAPI's own pages load a CDN), a page without data that
    # loads the spec with the key the web UI signed in with.
    app = FastAPI(
        title="ogmemory",
        version=__version__,
        description=DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
    )
    app.state.settings = settings
    app.state.keys = KeyStore(settings.home)
    app.state.gate = Gate(app.state.keys)
    app.state.pool = pool
    app.add_middleware(
        BodyLimit, max_bytes=settings.max_body_bytes, larger={"/v1/import/": imports.MAX_UPLOAD}
    )  # history file uploads
    install_error_handlers(app)

    @app.get(
        "/health",
        response_model=HealthOut,
        tags=["health"],
        summary="Health check",
        responses={
            503: {
                "model": Problem,
                "description": "Keys are required but the "
                "key file is unreadable or gone: nothing is served.",
            }
        },
        description="Whether the server answers, its version, and whether it requires "
        "API keys. Needs no key.",
    )
    def health(request: Request) -> dict[str, Any]:
        return {"status": "ok", "version": __version__, "auth": request.app.state.gate.mode()}

    for module in (sessions, knowledge, recall, engine, admin, imports, browse):
        app.include_router(module.router)
    install_web(app)
    _add_spec(app)
    app.openapi = lambda: _openapi(app)  # type: ignore[method-assign]
    return app


def _add_spec(app: FastAPI) -> None:
    """``/openapi.json``, answered to the callers the API answers."""

    @app.get("/openapi.json", include_in_schema=False)
    def spec(key: CallerKey) -> JSONResponse:
        return JSONResponse(app.openapi())


def _openapi(app: FastAPI) -> dict[str, Any]:
    """FastAPI's spec, with error bodies declared as ``application/problem+json``."""
    if app.openapi_schema is None:
        spec = get_openapi(
            title=app.title, version=app.version, description=app.description, routes=app.routes
        )
        for path in spec.get("paths", {}).values():
            for operation in path.values():
                for status, response in operation.get("responses", {}).items():
                    content = response.get("content", {})
                    if status[:1] in "45" and "application/json" in content:
                        content[PROBLEM_MEDIA_TYPE] = content.pop("application/json")
        app.openapi_schema = spec
    return app.openapi_schema
