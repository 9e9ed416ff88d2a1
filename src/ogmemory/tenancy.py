"""Tenancy is a path: every store is rooted at ``<home>/tenants/<account>/<space>``.

Ids that come from outside are checked here before they ever become a path component.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .errors import InvalidId

__all__ = [
    "MAX_ID_LEN",
    "URI",
    "URI_SCHEME",
    "URI_TYPES",
    "TenantRoot",
    "format_uri",
    "parse_uri",
    "validate_id",
]

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


# ---------------------------------------------------------------------------- ogm:// URIs
# Seed 004: every memory node has a URI within the tenant. The tenant is never part of it (it
# is the caller's root), so the same URI names different things for different tenants and can
# never reach across. Resolution (what a URI names) is ``ogmemory.resolver``.

URI_SCHEME = "ogm"
#: type -> number of id parts (a DAG node is named within its session).
URI_TYPES: dict[str, int] = {
    "session": 1,
    "node": 2,
    "memory": 1,
    "event": 1,
    "fact": 1,
    "entity": 1,
    "archive": 1,
    "project": 1,
}
_MAX_URI_LEN = 600
_NAME_CHARS = re.compile(r"[^\x00-\x1f\x7f/]{1,200}")


@dataclass(frozen=True)
class URI:
    """A parsed ``ogm://<type>/<id>[/<id>]``.

    >>> parse_uri("ogm://node/s1/0136d4f58e14")
    URI(type='node', ids=('s1', '0136d4f58e14'))
    >>> str(URI("memory", ("m_1",)))
    'ogm://memory/m_1'
    """

    type: str
    ids: tuple[str, ...]

    def __str__(self) -> str:
        from urllib.parse import quote

        return f"{URI_SCHEME}://{self.type}/" + "/".join(quote(i, safe="") for i in self.ids)


def format_uri(type: str, *ids: str) -> str:
    """The URI of one record, its ids validated: ``format_uri("node", "s1", "n1")``."""
    return str(_checked(type, tuple(ids)))


def parse_uri(uri: object) -> URI:
    """Parse and validate an ``ogm://`` URI; ``InvalidInput`` names what is wrong.

    An entity may be named by id or by name (``ogm://entity/Alice%20Smith``); every other id
    must be a safe single path component, as anywhere else.
    """
    from urllib.parse import unquote

    from .errors import InvalidInput

    if not isinstance(uri, str) or not uri:
        raise InvalidInput("a URI must be a non-empty string like ogm://memory/<id>")
    if len(uri) > _MAX_URI_LEN:
        raise InvalidInput(f"URI longer than {_MAX_URI_LEN} characters")
    prefix = f"{URI_SCHEME}://"
    if not uri.startswith(prefix):
        raise InvalidInput(f"not an {prefix} URI: {uri[:80]!r} (e.g. ogm://memory/<id>)")
    rest = uri[len(prefix) :].split("?", 1)[0].split("#", 1)[0]
    type_, _, path = rest.partition("/")
    parts = tuple(unquote(p) for p in path.split("/")) if path else ()
    return _checked(type_, parts)


def _checked(type_: str, ids: tuple[str, ...]) -> URI:
    from .errors import InvalidInput

    if type_ not in URI_TYPES:
        raise InvalidInput(f"unknown URI type {type_!r}; known: {', '.join(URI_TYPES)}")
    want = URI_TYPES[type_]
    if len(ids) != want or not all(ids):
        shape = "<session id>/<node id>" if want == 2 else "<id>"
        raise InvalidInput(
            f"an {URI_SCHEME}://{type_} URI looks like {URI_SCHEME}://{type_}/{shape}"
        )
    if type_ == "entity":
        if not _NAME_CHARS.fullmatch(ids[0]) or not ids[0].strip():
            raise InvalidInput(
                "an entity is named by its id or name (1-200 printable characters, no '/')"
            )
        return URI(type_, ids)
    kinds = ("session id", "node id") if type_ == "node" else (f"{type_} id",)
    return URI(type_, tuple(validate_id(i, k) for i, k in zip(ids, kinds, strict=True)))
