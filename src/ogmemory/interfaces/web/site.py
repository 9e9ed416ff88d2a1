"""Serving the web UI: the page at ``/``, its static files under ``/static/``, and the Swagger UI
at ``/docs`` from the vendored ``swagger-ui-dist`` (no CDN).

The page holds no data: it is a client of the REST API (``/v1``) and sends the same API key any
client sends, so tenancy is decided in one place (``rest/tenants.py``) for the page and for every
other client alike. Every UI response carries a strict Content-Security-Policy: scripts, styles,
images and requests only from this server, no inline script, no framing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from starlette.responses import Response
from starlette.types import Scope

__all__ = ["STATIC_DIR", "UI_HEADERS", "install_web"]

STATIC_DIR = Path(__file__).resolve().parent / "static"

#: The one ``<style>`` element cytoscape.js 3.35.0 injects (its container rules), allowed by its
#: hash rather than by 'unsafe-inline'. A new cytoscape version may inject another one: the
#: browser test fails on the CSP violation it logs, and prints the hash to put here.
_CYTOSCAPE_STYLE = "'sha256-pgvDUBa4IjFA2yuSJ2cqcyxmNYJMborsd0ORcRv9vw8='"

_CSP = (
    f"default-src 'none'; script-src 'self'; style-src 'self' {_CYTOSCAPE_STYLE}; "
    "img-src 'self' data:; connect-src 'self'; font-src 'self'; manifest-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)

#: Headers on every response of the UI (page, docs, static files).
UI_HEADERS = {
    "Content-Security-Policy": _CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    # Revalidate every time (ETag / Last-Modified make it cheap): an upgraded package must
    # never run with a stale script from the browser's cache.
    "Cache-Control": "no-cache",
}


class _Static(StaticFiles):
    """Static files with the UI's security headers."""

    def file_response(
        self, full_path: Any, stat_result: Any, scope: Scope, status_code: int = 200
    ) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers.update(UI_HEADERS)
        return response


def _page(name: str) -> FileResponse:
    return FileResponse(
        STATIC_DIR / name, media_type="text/html; charset=utf-8", headers=UI_HEADERS
    )


def install_web(app: FastAPI) -> None:
    """Add the UI routes to ``app`` (created with ``docs_url=None``, as ``create_app`` does).
    Both pages hold no data: the UI signs in with a key, and ``/docs`` loads the spec
    (``/openapi.json``, behind the keys) with the key the UI signed in with.

    >>> app = FastAPI(docs_url=None, redoc_url=None); install_web(app)   # doctest: +SKIP
    """
    app.mount("/static", _Static(directory=STATIC_DIR), name="static")

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return _page("index.html")

    @app.get("/docs", include_in_schema=False)
    def docs() -> FileResponse:
        return _page("docs.html")
