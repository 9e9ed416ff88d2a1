"""The resources: core.md, and one session's recorded messages as JSON."""

from __future__ import annotations

import json
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
        mime_type="application/json",
        description="Every recorded message of one session (all branches, tool "
        "calls included), with node ids, as JSON.",
    )
    def session(session_id: str) -> str:
        with _resource_errors():
            info = mem.get_session(session_id)
            nodes = mem.open_session(session_id)
        data = {
            "session_id": info.session_id,
            "title": info.display_title,
            "project_id": info.project_id,
            "turns": info.turns,
            "nodes": [fmt_node(n, None) for n in nodes],
        }
        return json.dumps(data, ensure_ascii=False, indent=2)


@contextmanager
def _resource_errors() -> Iterator[None]:
    try:
        yield
    except NotFound as exc:
        raise ResourceNotFoundError(str(exc)) from exc
    except OgmemError as exc:
        raise ResourceError(str(exc)) from exc
