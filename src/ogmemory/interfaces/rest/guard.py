"""Who may call, and how much they may send: the one decision of ``ogmem serve`` and of
``ogmem mcp --transport http``.

**Keys.** Once any API key exists, every request needs ``Authorization: Bearer <token>`` and the
key alone decides the tenant. A server that started with keys, or saw one since, never serves
without them again: if ``keys.json`` disappears or is emptied while it runs, every request gets
503 until keys exist again; an unreadable key file gets 503 too (never a guess, never a 500).

**Local mode** (no key has ever existed for this server): the local default tenant is served to
this machine only. The decision uses the connection's *peer address* (a remote client can write
``Host: localhost``, it cannot fake where its packets come from), and also requires a loopback
``Host`` (a web page cannot rebind a DNS name onto the server) and, when a browser sends one, a
loopback ``Origin``.

**Size.** ``BodyLimit`` refuses a request body larger than ``Settings.max_body_bytes`` with 413
before the application reads it, whether ``Content-Length`` announces it or the body streams.
"""

from __future__ import annotations

import ipaddress
import logging
import threading
from collections.abc import Mapping
from typing import Literal
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ...errors import StorageError
from .keys import KeyInfo, KeyStore
from .problems import Forbidden, KeysUnavailable, Unauthorized, problem_response

__all__ = ["BodyLimit", "Gate", "bearer_token", "host_name", "is_loopback"]

log = logging.getLogger("ogmemory.rest")

_LOOPBACK_NAMES = frozenset({"localhost", "localhost.", "ip6-localhost"})


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address, IPv6 maybe bracketed) is this machine only.

    >>> is_loopback("127.0.0.1"), is_loopback("::1"), is_loopback("::ffff:127.0.0.1")
    (True, True, True)
    >>> is_loopback("0.0.0.0"), is_loopback("::ffff:192.0.2.1"), is_loopback("localhost.evil")
    (False, False, False)
    """
    host = host.strip().lower()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if host in _LOOPBACK_NAMES:
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback  # ::ffff:127.0.0.1 on a dual-stack socket
    return address.is_loopback


def host_name(header: str) -> str:
    """The host of a ``Host`` header, without its port (``[::1]:8765`` -> ``::1``)."""
    if header.startswith("["):
        return header[1:].split("]", 1)[0]
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def bearer_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header (scheme case-insensitive)."""
    if not authorization:
        return None
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


class Gate:
    """The caller decision for one state directory's ``keys.json``. Thread-safe.

    >>> gate = Gate(KeyStore(Path("/tmp/ogm")))                       # doctest: +SKIP
    >>> gate.caller(peer="127.0.0.1", host="127.0.0.1:8765", origin=None,  # doctest: +SKIP
    ...             token=None)
    """

    def __init__(self, keys: KeyStore) -> None:
        self.keys = keys
        self._lock = threading.Lock()
        self._locked = False  # once keys were seen, they are required for good
        try:
            self.mode()
        except KeysUnavailable:  # an unreadable key file at start: locked from the start
            self._locked = True

    def mode(self) -> Literal["keys", "local"]:
        """``keys`` (every request needs one) or ``local`` (this machine, default tenant).
        Raises ``KeysUnavailable`` when keys are required but cannot be read or are gone."""
        try:
            present = self.keys.has_keys()
        except StorageError as exc:
            log.error("refusing every request: %s", exc)
            raise KeysUnavailable(
                "the server's API key file is unreadable; no request is served until it is "
                "repaired or replaced (ogmem keys create writes a new one)"
            ) from None
        with self._lock:
            if present:
                self._locked = True
                return "keys"
            if self._locked:
                log.error("refusing every request: %s is missing or holds no key", self.keys.path)
                raise KeysUnavailable(
                    "the server's API key file is missing or holds no key, but this server has "
                    "required keys: it serves nothing until keys exist again"
                )
        return "local"

    def caller(
        self, *, peer: str | None, host: str | None, origin: str | None, token: str | None
    ) -> KeyInfo | None:
        """The caller's key, or ``None`` for local mode; ``Unauthorized``, ``Forbidden`` or
        ``KeysUnavailable`` otherwise."""
        if self.mode() == "local":
            if not (peer and is_loopback(peer)):
                raise Forbidden(
                    "without API keys the server only answers this machine "
                    "(a loopback peer address)"
                )
            if not is_loopback(host_name(host or "")):
                raise Forbidden(
                    "without API keys the server only answers requests to a "
                    "loopback address (127.0.0.1, ::1 or localhost)"
                )
            if origin is not None and not _loopback_origin(origin):
                raise Forbidden(
                    "without API keys the server does not answer pages of other origins"
                )
            return None
        if token is None:
            raise Unauthorized("an API key is required: 'Authorization: Bearer <token>'")
        info = self.keys.verify(token)
        if info is None:
            raise Unauthorized("the API key is unknown or revoked")
        return info


def _loopback_origin(origin: str) -> bool:
    if origin == "null":
        return False
    try:
        return is_loopback(urlsplit(origin).hostname or "")
    except ValueError:
        return False


class BodyLimit:
    """ASGI middleware: a request body over ``max_bytes`` gets 413 (problem details) before the
    application sees a byte of it. ``larger`` raises the limit for paths under a prefix (file
    uploads)."""

    def __init__(
        self, app: ASGIApp, max_bytes: int, larger: Mapping[str, int] | None = None
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.larger = dict(larger or {})

    def _limit(self, path: str) -> int:
        return max([self.max_bytes, *(n for p, n in self.larger.items() if path.startswith(p))])

    @staticmethod
    def _too_large(limit: int) -> ASGIApp:
        return problem_response(
            413,
            "payload-too-large",
            "Payload too large",
            f"the request body is larger than {limit:,} bytes "
            "(Settings.max_body_bytes, OGMEM_MAX_BODY_BYTES)",
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self._limit(str(scope.get("path", "")))
        declared = Headers(scope=scope).get("content-length")
        if declared is not None:
            try:
                too_large = int(declared) > limit
            except ValueError:
                too_large = False  # the server itself answers 400 to a malformed length
            if too_large:
                await self._too_large(limit)(scope, receive, send)
                return
        # Read the body here (it is bounded now) and replay it to the application.
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away before its body was complete: nothing to do
            body = message.get("body", b"")
            size += len(body)
            if size > limit:
                await self._too_large(limit)(scope, receive, send)
                return
            chunks.append(body)
            if not message.get("more_body", False):
                break
        queue: list[Message] = [
            {"type": "http.request", "body": b"".join(chunks), "more_body": False}
        ]

        async def replay() -> Message:
            return queue.pop(0) if queue else await receive()

        await self.app(scope, replay, send)
