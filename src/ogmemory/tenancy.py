"""Tenancy is a path: every store is rooted at ``<home>/tenants/<account>/<space>``.

Ids that come from outside are checked here before they ever become a path component.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .errors import InvalidId

__all__ = ["MAX_ID_LEN", "TenantRoot", "validate_id"]

MAX_ID_LEN = 128
#: Names of files that live beside the session directories.
RESERVED_SESSION_NAMES = frozenset({"locations.json"})
_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def validate_id(value: object, kind: str = "id") -> str:
    """Return ``value`` if it is a safe single path component, else raise ``InvalidId``.

    >>> validate_id("local_13d5", "session id")
    'local_13d5'
    """
    if not isinstance(value, str):
        raise InvalidId(kind, value, "must be a string")
    if not value:
        raise InvalidId(kind, value, "must not be empty")
    if len(value) > MAX_ID_LEN:
        raise InvalidId(kind, value[:40] + "...", f"longer than {MAX_ID_LEN} characters")
    if ".." in value:
        raise InvalidId(kind, value, "must not contain '..'")
    if not _ID_RE.fullmatch(value):
        raise InvalidId(
            kind, value, "use letters, digits, '.', '_' or '-', starting with a letter or digit"
        )
    return value


@dataclass(frozen=True)
class TenantRoot:
    """The directory tree of one ``(account, space)``."""

    home: Path
    account: str
    space: str

    def __post_init__(self) -> None:
        validate_id(self.account, "account")
        validate_id(self.space, "space")

    @property
    def root(self) -> Path:
        return self.home / "tenants" / self.account / self.space

    @property
    def sessions_dir(self) -> Path:
        return self.root / "sessions"

    @property
    def locations_file(self) -> Path:
        return self.sessions_dir / "locations.json"

    @property
    def projects_file(self) -> Path:
        return self.root / "projects" / "projects.json"

    @property
    def memory_dir(self) -> Path:
        return self.root / "memory"

    @property
    def index_file(self) -> Path:
        return self.root / "index" / "index.sqlite"

    def session_dir(self, session_id: str) -> Path:
        validate_id(session_id, "session id")
        if session_id in RESERVED_SESSION_NAMES:
            # It would be the same path as the tenant's locations index.
            raise InvalidId("session id", session_id, "reserved name")
        return self.sessions_dir / session_id
