"""What every ``/v1`` route may answer besides success, for the OpenAPI spec.

Bodies are problem details (``problems.py``); the spec lists them as ``application/problem+json``.
"""

from __future__ import annotations

from typing import Any

from .problems import Problem

__all__ = ["ADMIN_ERRORS", "READ_ERRORS", "WRITE_ERRORS"]


def _problem(description: str) -> dict[str, Any]:
    return {"model": Problem, "description": description}


READ_ERRORS: dict[int | str, dict[str, Any]] = {
    400: _problem("Invalid input (an id, a time, a scope...)."),
    401: _problem("No API key, or an unknown or revoked one."),
    403: _problem("Not allowed (without keys, only this machine is answered)."),
    404: _problem(
        "Not found in the caller's tenant (the same answer whether it exists elsewhere or nowhere)."
    ),
    413: _problem("The request body is larger than the server's limit (4 MiB by default)."),
    422: _problem("The request does not match the schema (strict types, valid Unicode)."),
    500: _problem("The server failed; nothing about it is disclosed."),
    503: _problem(
        "Keys are required but the key file is unreadable or gone; nothing is "
        "served until it is fixed."
    ),
}
WRITE_ERRORS = {**READ_ERRORS, 409: _problem("Conflicts with the current state; nothing changed.")}
ADMIN_ERRORS = {**WRITE_ERRORS, 403: _problem("Managing keys needs an admin key.")}
