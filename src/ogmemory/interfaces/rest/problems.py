"""The one place where errors become HTTP responses: RFC 7807 problem details.

Every error body is ``application/problem+json`` with ``type``, ``title``, ``status`` and
``detail``. ogmemory's own errors map by class (``STATUSES``); request validation errors become
422 with the failing fields; anything unexpected becomes a 500 whose detail says nothing about
the server's internals (the traceback goes to the log).

The detail of a 404 is the facade's message, which names only what the caller sent, so another
tenant's id and an id that exists nowhere give the same response, byte for byte.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from ...errors import Conflict, InvalidInput, NotFound, OgmemError

__all__ = [
    "PROBLEM_MEDIA_TYPE",
    "Forbidden",
    "KeysUnavailable",
    "Problem",
    "Unauthorized",
    "install_error_handlers",
    "problem_response",
]

log = logging.getLogger("ogmemory.rest")

PROBLEM_MEDIA_TYPE = "application/problem+json"
GENERIC_500 = "The server could not complete the request; the error was logged."


class Unauthorized(Exception):
    """No API key, or one that is unknown or revoked (HTTP 401)."""


class Forbidden(Exception):
    """A valid key that may not do this (HTTP 403), e.g. key management without an admin key."""


class KeysUnavailable(Exception):
    """Keys are required but the key file is unreadable or gone (HTTP 503): fail closed."""


class Problem(BaseModel):
    """RFC 7807 problem details: every error response of this API has this shape."""

    model_config = ConfigDict(extra="allow")

    type: str = Field(
        description="A URI naming the kind of problem, e.g. `urn:ogmemory:problem:not-found`."
    )
    title: str = Field(description="A short summary of the kind of problem.")
    status: int = Field(description="The HTTP status code.")
    detail: str = Field(description="What went wrong with this request, for a human.")
    errors: list[dict[str, Any]] | None = Field(
        default=None, description="For 422: each invalid field (`loc`, `msg`, `type`)."
    )


#: Checked in order; the first matching class decides status, slug and title.
STATUSES: tuple[tuple[type[Exception], int, str, str], ...] = (
    (InvalidInput, 400, "invalid-input", "Invalid input"),
    (Unauthorized, 401, "unauthorized", "Unauthorized"),
    (Forbidden, 403, "forbidden", "Forbidden"),
    (NotFound, 404, "not-found", "Not found"),
    (Conflict, 409, "conflict", "Conflict"),
    (KeysUnavailable, 503, "keys-unavailable", "Service unavailable"),
    (OgmemError, 500, "internal", "Internal server error"),
)

_HTTP_TITLES = {
    400: "Bad request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not found",
    405: "Method not allowed",
    406: "Not acceptable",
    409: "Conflict",
    413: "Payload too large",
    415: "Unsupported media type",
    422: "Unprocessable content",
    500: "Internal server error",
    503: "Service unavailable",
}


def problem_response(
    status: int,
    slug: str,
    title: str,
    detail: str,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> Response:
    body: dict[str, Any] = {
        "type": f"urn:ogmemory:problem:{slug}",
        "title": title,
        "status": status,
        "detail": detail,
        **extra,
    }
    try:
        data = json.dumps(body, ensure_ascii=False).encode()
    except UnicodeEncodeError:  # the detail quotes invalid text the caller sent: escape it
        data = json.dumps(body).encode()
    return Response(data, status_code=status, media_type=PROBLEM_MEDIA_TYPE, headers=headers)


async def _known(request: Request, exc: Exception) -> Response:
    status, slug, title = next((s, g, t) for kind, s, g, t in STATUSES if isinstance(exc, kind))
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    if status == 500:
        log.error("%s %s failed: %r", request.method, request.url.path, exc, exc_info=exc)
        return problem_response(status, slug, title, GENERIC_500)
    return problem_response(status, slug, title, str(exc), headers)


async def _validation(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    errors = [
        {
            "loc": [p for p in e.get("loc", ()) if isinstance(p, (str, int))],
            "msg": str(e.get("msg", "")),
            "type": str(e.get("type", "")),
        }
        for e in exc.errors()
    ]
    first = errors[0] if errors else {"loc": [], "msg": "invalid request"}
    where = ".".join(str(p) for p in first["loc"])
    detail = f"{where}: {first['msg']}" if where else str(first["msg"])
    if len(errors) > 1:
        detail += f" (and {len(errors) - 1} more)"
    return problem_response(422, "validation", "Invalid request", detail, errors=errors)


async def _http(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    status = exc.status_code
    title = _HTTP_TITLES.get(status, "Error")
    detail = exc.detail if isinstance(exc.detail, str) else title
    if status == 404 and detail == "Not Found":
        detail = "no such route"  # the router's own 404: same text for every path
    return problem_response(
        status,
        title.lower().replace(" ", "-"),
        title,
        detail,
        dict(exc.headers) if exc.headers else None,
    )


async def _unexpected(request: Request, exc: Exception) -> Response:
    # Starlette re-raises the exception after this response, so the server logs the traceback.
    return problem_response(500, "internal", "Internal server error", GENERIC_500)


def install_error_handlers(app: FastAPI) -> None:
    """Register the mapping above on ``app``."""
    for kind in (OgmemError, Unauthorized, Forbidden, KeysUnavailable):
        app.add_exception_handler(kind, _known)
    app.add_exception_handler(RequestValidationError, _validation)
    app.add_exception_handler(StarletteHTTPException, _http)
    app.add_exception_handler(Exception, _unexpected)
