"""Who is asking: the API key selects the tenant, and each tenant is served by its own ``Memory``.

With keys configured, every ``/v1`` request needs ``Authorization: Bearer <token>``. With none,
the server serves the local default tenant, binds only to loopback (``check_bind``) and answers
only requests addressed to a loopback host name (a web page cannot rebind a DNS name onto it).
"""

from __future__ import annotations

import ipaddress
import threading
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from ...auth import KeyInfo, KeyStore
from ...config import Settings
from ...errors import InvalidInput
from ...memory import Memory
from .problems import Forbidden, Unauthorized

__all__ = ["AdminKey", "CallerKey", "MemoryDep", "TenantPool", "check_bind", "is_loopback"]

_LOOPBACK_NAMES = frozenset({"localhost", "localhost.", "ip6-localhost"})


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address, IPv6 maybe bracketed) is this machine only.

    >>> is_loopback("127.0.0.1"), is_loopback("::1"), is_loopback("0.0.0.0")
    (True, True, False)
    """
    host = host.strip().lower()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if host in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_bind(host: str, keys: KeyStore) -> None:
    """Refuse to listen beyond loopback while no API key exists (anyone could read memory)."""
    if not is_loopback(host) and not keys.has_keys():
        raise InvalidInput(
            f"refusing to listen on {host}: no API key exists, so anyone who can reach the "
            "server could read and change memory. Create one with 'ogmem keys create --account "
            "A --space S' (or listen on 127.0.0.1).")


def _host_name(header: str) -> str:
    """The host of a ``Host`` header, without its port (``[::1]:8765`` -> ``::1``)."""
    if header.startswith("["):
        return header[1:].split("]", 1)[0]
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


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


_bearer = HTTPBearer(auto_error=False, scheme_name="apiKey",
                     description="An API key from `ogmem keys create` (or `POST /v1/admin/keys`).")


def _caller(request: Request,
            credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
            ) -> KeyInfo | None:
    """The caller's key, or ``None`` in local mode (no key exists)."""
    keys: KeyStore = request.app.state.keys
    if not keys.has_keys():
        if not is_loopback(_host_name(request.headers.get("host") or "")):
            raise Forbidden("without API keys the server only answers requests to a loopback "
                            "address (127.0.0.1, ::1 or localhost)")
        return None
    if credentials is None:
        raise Unauthorized("an API key is required: 'Authorization: Bearer <token>'")
    info = keys.verify(credentials.credentials)
    if info is None:
        raise Unauthorized("the API key is unknown or revoked")
    return info


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
