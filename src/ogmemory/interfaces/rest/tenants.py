"""Who is asking: the API key selects the tenant, and each tenant is served by its own ``Memory``.

The decision itself is ``guard.Gate`` (shared with the MCP HTTP transport): with keys, every
``/v1`` request needs ``Authorization: Bearer <token>``; with none, the server serves the local
default tenant to this machine only (``check_bind`` refuses to listen beyond loopback, and each
request's peer address must be loopback too).
"""

from __future__ import annotations

import threading
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from ...config import Settings
from ...errors import InvalidInput
from ...memory import Memory
from .guard import Gate, is_loopback
from .keys import KeyInfo, KeyStore
from .problems import Forbidden

__all__ = ["AdminKey", "CallerKey", "MemoryDep", "TenantPool", "check_bind", "is_loopback"]


def check_bind(host: str, keys: KeyStore) -> None:
    """Refuse to listen beyond loopback while no API key exists (anyone could read memory)."""
    if not is_loopback(host) and not keys.has_keys():
        raise InvalidInput(
            f"refusing to listen on {host}: no API key exists, so anyone who can reach the "
            "server could read and change memory. Create one with 'ogmem keys create --account "
            "A --space S' (or listen on 127.0.0.1)."
        )


class TenantPool:
    """One ``Memory`` per tenant, created on first use and shared by every request thread."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._memories: dict[tuple[str, str], Memory] = {}

    def get(self, account: str, space: str) -> Memory:
        key = (account, space)
        mem = self._memories.get(key)
        if mem is not None:
            return mem
        with self._lock:
            mem = self._memories.get(key)
            if mem is None:
                mem = Memory(settings=self.settings.with_tenant(account, space))
                self._memories[key] = mem
            return mem

    def local(self) -> Memory:
        return self.get(self.settings.account, self.settings.space)

    def close(self) -> None:
        """Finish background work and erase temporary sessions of every tenant."""
        with self._lock:
            memories, self._memories = list(self._memories.values()), {}
        for mem in memories:
            mem.close()


_bearer = HTTPBearer(
    auto_error=False,
    scheme_name="apiKey",
    description="An API key from `ogmem keys create` (or `POST /v1/admin/keys`).",
)


def _caller(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> KeyInfo | None:
    """The caller's key, or ``None`` in local mode (no key exists)."""
    gate: Gate = request.app.state.gate
    return gate.caller(
        peer=request.client.host if request.client else None,
        host=request.headers.get("host"),
        origin=request.headers.get("origin"),
        token=credentials.credentials if credentials else None,
    )


def _memory(request: Request, key: Annotated[KeyInfo | None, Depends(_caller)]) -> Memory:
    pool: TenantPool = request.app.state.pool
    return pool.local() if key is None else pool.get(key.account, key.space)


def _admin(key: Annotated[KeyInfo | None, Depends(_caller)]) -> KeyInfo | None:
    if key is not None and not key.admin:
        raise Forbidden("managing keys needs an admin key")
    return key


#: The caller's tenant memory (route parameter type).
MemoryDep = Annotated[Memory, Depends(_memory)]
#: The caller's key (``None`` in local mode).
CallerKey = Annotated[KeyInfo | None, Depends(_caller)]
#: An admin key, or local mode.
AdminKey = Annotated[KeyInfo | None, Depends(_admin)]
