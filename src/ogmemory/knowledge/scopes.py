"""Scopes (seed 000 §3.6): ``global``, ``project:<id>`` or ``agent:<id>`` on every record.

A read in ``project:x`` sees what is global and what belongs to project x; a read with no scope
sees everything of the tenant.

>>> scopes_for("project:shop")
['global', 'project:shop']
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import InvalidId, InvalidInput
from ..tenancy import validate_id

__all__ = ["scope_allows", "scopes_for", "validate_scope"]


def validate_scope(scope: object) -> str:
    """``scope`` if it is ``global``, ``project:<id>`` or ``agent:<id>`` with a safe id."""
    if not isinstance(scope, str):
        raise InvalidInput("scope must be a string")
    if scope == "global":
        return scope
    prefix, sep, ident = scope.partition(":")
    if prefix not in ("project", "agent") or not sep:
        raise InvalidInput(f"scope must be 'global', 'project:<id>' or 'agent:<id>', not {scope!r}")
    try:
        validate_id(ident, f"{prefix} id")
    except InvalidId as exc:
        raise InvalidInput(
            f"scope must be 'global', 'project:<id>' or 'agent:<id>' with a "
            f"safe id; {scope!r}: {exc}"
        ) from None
    return scope


def scopes_for(scope: str | Sequence[str] | None) -> list[str] | None:
    """What a read in ``scope`` may see (``None``: everything)."""
    if scope is None:
        return None
    if isinstance(scope, str):
        validate_scope(scope)
        return ["global"] if scope == "global" else ["global", scope]
    return list(dict.fromkeys(s for item in scope for s in (scopes_for(item) or [])))


def scope_allows(scope: str, scopes: Sequence[str] | None) -> bool:
    """Whether a record in ``scope`` is visible to a read limited to ``scopes``."""
    return scopes is None or scope in scopes
