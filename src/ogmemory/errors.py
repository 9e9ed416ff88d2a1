"""Errors raised by ogmemory.

Every error derives from one root, so callers can catch ``OgmemError`` at a boundary::

    OgmemError
    ├── InvalidInput             bad input from outside (ids, messages, file formats)
    │   └── InvalidId            an id that is not a safe single path component
    ├── NotFound                 a session, node, project or branch that does not exist here
    │   ├── SessionNotFound
    │   └── ProjectNotFound
    ├── Conflict                 the request contradicts current state (e.g. uncommitted nodes)
    └── StorageError             the files on disk are unusable (corrupt repository, ...)

Interfaces map ``InvalidInput`` to exit code 2 / HTTP 400, ``NotFound`` to 1 / 404 and
``Conflict`` to 1 / 409.
"""

from __future__ import annotations

__all__ = [
    "Conflict",
    "InvalidId",
    "InvalidInput",
    "NotFound",
    "OgmemError",
    "ProjectNotFound",
    "SessionNotFound",
    "StorageError",
]


class OgmemError(Exception):
    """Root of every error ogmemory raises on purpose."""


class InvalidInput(OgmemError, ValueError):
    """Input from outside the package is malformed; the message names what was wrong."""


class InvalidId(InvalidInput):
    """An identifier is not a safe, bounded, single path component."""

    def __init__(self, kind: str, value: object, reason: str) -> None:
        self.kind = kind
        self.value = value
        super().__init__(f"invalid {kind} {value!r}: {reason}")


class NotFound(OgmemError, LookupError):
    """Something named by the caller does not exist within the caller's tenant."""


class SessionNotFound(NotFound):
    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        super().__init__(f"session not found: {session_id}")


class ProjectNotFound(NotFound):
    def __init__(self, project: str) -> None:
        self.project = project
        super().__init__(f"project not found: {project}")


class Conflict(OgmemError):
    """The operation is not possible in the current state; nothing was changed."""


class StorageError(OgmemError):
    """Stored files could not be read or written."""
