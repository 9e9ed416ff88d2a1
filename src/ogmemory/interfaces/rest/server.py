"""Running the app: in the foreground (``ogmem serve``) or in a background thread (tests,
benchmarks, embedding ogmemory in another program)."""

from __future__ import annotations

import socket
import threading
import time
from types import TracebackType
from typing import Self

import uvicorn
from starlette.types import ASGIApp

from ...errors import OgmemError

__all__ = ["BackgroundServer"]


class BackgroundServer:
    """uvicorn serving ``app`` on ``host`` in a daemon thread; port 0 picks a free port.

    >>> with BackgroundServer(create_app(settings)) as server:   # doctest: +SKIP
    ...     httpx.get(server.url + "/health").json()["status"]
    'ok'
    """

    #: what the server is, in its thread's name and its errors
    kind = "rest"
    #: the path its URL ends with
    path = ""

    def __init__(
        self, app: ASGIApp, host: str = "127.0.0.1", port: int = 0, *, log_level: str = "warning"
    ) -> None:
        self.host = host
        # IPPROTO_TCP spelled out: asyncio sets TCP_NODELAY on accepted connections only when
        # the listening socket says so, and without it every response waits ~40 ms for an ACK.
        self._sock = socket.socket(
            socket.AF_INET6 if ":" in host else socket.AF_INET,
            socket.SOCK_STREAM,
            socket.IPPROTO_TCP,
        )
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind((host, port))
        self.port: int = self._sock.getsockname()[1]
        config = uvicorn.Config(
            app, log_level=log_level, lifespan="on", access_log=False, timeout_graceful_shutdown=10
        )
        self.server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self.server.run,
            kwargs={"sockets": [self._sock]},
            name=f"ogmem-{self.kind}-{self.port}",
            daemon=True,
        )

    @property
    def url(self) -> str:
        shown = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{shown}:{self.port}{self.path}"

    def start(self, timeout: float = 30.0) -> Self:
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise OgmemError(f"the {self.kind} server on {self.url} did not start")
            time.sleep(0.01)
        return self

    def stop(self, timeout: float = 30.0) -> None:
        """Stop accepting, finish open requests, run the shutdown (closes every tenant)."""
        self.server.should_exit = True
        self._thread.join(timeout)
        self._sock.close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
