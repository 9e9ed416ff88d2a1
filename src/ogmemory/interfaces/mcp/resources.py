"""The resources: core.md, and one session's recorded messages as text (one line each)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError

from ...errors import NotFound, OgmemError
from ...memory import Memory
from .format import fmt_node

__all__ = ["CORE_URI", "SESSION_URI", "add_resources"]

CORE_URI = "memory://core"
SESSION_URI = "memory://session/{session_id}"


def add_resources(server: MCPServer, mem: Memory) -> None:
    """Register ``memory://core`` and the ``memory://session/{session_id}`` template."""

    @server.resource(
        CORE_URI,
        name="core.md",
        title="core.md",
        mime_type="text/markdown",
        description="The ≤ 2 KB memory snapshot injected into every prompt; each "
        "line ends with a '↪ session:<id>' pointer.",
    )
    def core_md() -> str:
        with _resource_errors():
            return mem.core()

    @server.resource(
        SESSION_URI,
        name="session",
        title="Session transcript",
        mime_type="text/plain",
        description="Every recorded message of one session (all branches, tool "
        "calls included), one line each with its node id.",
    )
    def session(session_id: str) -> str:
        with _resource_errors():
            info = mem.get_session(session_id)
            nodes = mem.open_session(session_id)
        head = (
            f"session {info.session_id} {info.display_title!r} · project "
            f"{info.project_id} · {info.turns} turns · {len(nodes)} messages"
        )
        return "\n".join([head, *(fmt_node(n, None, clip=None) for n in nodes)])


@contextmanager
def _resource_errors() -> Iterator[None]:
    try:
        yield
    except NotFound as exc:
        raise ResourceNotFoundError(str(exc)) from exc
    except OgmemError as exc:
        raise ResourceError(str(exc)) from exc
