"""``/v1/admin/keys``: API keys, each bound to one tenant. Needs an admin key (or local mode)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from .keys import KeyStore
from .params import KeyIdPath
from .routing import ADMIN_ERRORS
from .schemas import KeyCreate, KeyCreatedOut, KeyOut
from .tenants import AdminKey

__all__ = ["router"]

router = APIRouter(prefix="/v1/admin/keys", tags=["admin"])


def _keys(request: Request) -> KeyStore:
    keys: KeyStore = request.app.state.keys
    return keys


@router.post(
    "",
    status_code=201,
    response_model=KeyCreatedOut,
    responses=ADMIN_ERRORS,
    summary="Create an API key",
    description="A new key bound to one tenant `(account, space)`. The token is in "
    "this response only; the server keeps its SHA-256.",
)
def create_key(request: Request, admin: AdminKey, body: KeyCreate) -> dict[str, Any]:
    info, token = _keys(request).create(
        body.account, body.space, label=body.label, admin=body.admin
    )
    return {**info.to_dict(), "token": token}


@router.get(
    "",
    response_model=list[KeyOut],
    responses=ADMIN_ERRORS,
    summary="List API keys",
    description="Every key, revoked ones included, without tokens or hashes.",
)
def list_keys(request: Request, admin: AdminKey) -> list[dict[str, Any]]:
    return [k.to_dict() for k in _keys(request).list()]


@router.delete(
    "/{key_id}",
    response_model=KeyOut,
    responses=ADMIN_ERRORS,
    summary="Revoke an API key",
    description="Revoke a key for good; requests with it get 401 from now on. "
    "Answers with the revoked key. Revoking the last active admin key is a 409 "
    "(nobody could manage keys over HTTP any more).",
)
def revoke_key(request: Request, admin: AdminKey, key_id: KeyIdPath) -> dict[str, Any]:
    return _keys(request).revoke(key_id, keep_an_admin=True).to_dict()
