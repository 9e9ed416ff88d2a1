"""API keys for the REST server, each bound to one tenant ``(account, space)``.

Keys live in ``<home>/keys.json``, **hashed**: only the SHA-256 of a token is stored, so the file
never holds a usable secret. A token (``ogm_`` + 43 random URL-safe characters) is shown once,
when it is created. The file is replaced atomically under a cross-process lock, so ``ogmem keys``
may revoke a key while a server runs; the server re-reads the file when it changes.

>>> store = KeyStore(Path("/tmp/ogm-keys"))                     # doctest: +SKIP
>>> info, token = store.create("acme", "alice", label="laptop")  # doctest: +SKIP
>>> store.verify(token).account                                  # doctest: +SKIP
'acme'
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ...errors import Conflict, InvalidInput, NotFound, StorageError
from ...storage.files import atomic_write_json, file_lock, read_json
from ...tenancy import validate_id

__all__ = ["TOKEN_PREFIX", "KeyInfo", "KeyStore"]

TOKEN_PREFIX = "ogm_"
_FORMAT = 1
_MAX_LABEL = 200


@dataclass(frozen=True)
class KeyInfo:
    """What is known about a key (never its token nor its hash)."""

    key_id: str
    account: str
    space: str
    label: str
    created_at: float
    admin: bool = False
    revoked: bool = False
    revoked_at: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


class KeyStore:
    """The API keys of one state directory (``<home>/keys.json``). Thread- and process-safe."""

    def __init__(self, home: Path) -> None:
        self.home = Path(home)
        self.path = self.home / "keys.json"
        self._lock_path = self.home / ".keys.lock"
        self._mutex = threading.Lock()
        self._stamp: tuple[int, int, int] | None = None
        self._records: list[dict[str, Any]] = []

    # ------------------------------------------------------------------ reading

    def _load(self) -> list[dict[str, Any]]:
        """The stored records, re-read only when the file changed (a stat per call)."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            with self._mutex:
                self._stamp, self._records = None, []
            return []
        stamp = (st.st_ino, st.st_mtime_ns, st.st_size)
        with self._mutex:
            if stamp != self._stamp:
                data = read_json(self.path)
                if not isinstance(data, dict) or not isinstance(data.get("keys"), list):
                    # Refuse to guess: an unreadable key file must not open the server up.
                    raise StorageError(f"{self.path} is not a valid key file")
                self._records = [r for r in data["keys"] if isinstance(r, dict)]
                self._stamp = stamp
            return self._records

    def has_keys(self) -> bool:
        """Whether any key was ever created (revoked ones count: the server stays locked)."""
        return bool(self._load())

    def list(self) -> list[KeyInfo]:
        """Every key, oldest first, revoked ones included."""
        return [_info(r) for r in self._load()]

    def get(self, key_id: str) -> KeyInfo:
        for rec in self._load():
            if rec.get("key_id") == key_id:
                return _info(rec)
        raise NotFound(f"key not found: {key_id}")

    def verify(self, token: str) -> KeyInfo | None:
        """The key a token belongs to, or ``None`` (unknown or revoked)."""
        if not isinstance(token, str) or not token.startswith(TOKEN_PREFIX) or len(token) > 256:
            return None
        digest = _hash(token)
        found: dict[str, Any] | None = None
        for rec in self._load():
            # Compare against every key, without stopping early, in constant time each.
            if hmac.compare_digest(str(rec.get("hash", "")), digest):
                found = rec
        if found is None or found.get("revoked"):
            return None
        return _info(found)

    # ------------------------------------------------------------------ writing

    def create(
        self, account: str, space: str, *, label: str = "", admin: bool = False
    ) -> tuple[KeyInfo, str]:
        """A new key for ``(account, space)``: its info and the token (shown only now)."""
        validate_id(account, "account")
        validate_id(space, "space")
        if not isinstance(label, str) or len(label) > _MAX_LABEL:
            raise InvalidInput(f"key label must be a string of at most {_MAX_LABEL} characters")
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        rec = {
            "key_id": f"k_{uuid.uuid4().hex[:16]}",
            "hash": _hash(token),
            "account": account,
            "space": space,
            "label": label.strip(),
            "created_at": time.time(),
            "admin": bool(admin),
            "revoked": False,
            "revoked_at": None,
        }
        with file_lock(self._lock_path):
            records = list(self._load())
            records.append(rec)
            self._write(records)
        return _info(rec), token

    def revoke(self, key_id: str, *, keep_an_admin: bool = False) -> KeyInfo:
        """Revoke a key for good (its record stays, marked revoked). Idempotent.

        ``keep_an_admin`` (key management over HTTP): refuse (``Conflict``) to revoke the last
        active admin key, which would leave nobody able to manage keys over HTTP. On the
        server's machine ``ogmem keys`` can always create a new one, so the CLI may.
        """
        with file_lock(self._lock_path):
            records = [dict(r) for r in self._load()]
            for rec in records:
                if rec.get("key_id") != key_id:
                    continue
                if not rec.get("revoked"):
                    admins = [r for r in records if r.get("admin") and not r.get("revoked")]
                    if keep_an_admin and rec.get("admin") and len(admins) == 1:
                        raise Conflict(
                            f"{key_id} is the last active admin key; create another "
                            "admin key first (or use 'ogmem keys revoke' on the "
                            "server's machine)"
                        )
                    rec.update(revoked=True, revoked_at=time.time())
                    self._write(records)
                return _info(rec)
        raise NotFound(f"key not found: {key_id}")

    def _write(self, records: Sequence[dict[str, Any]]) -> None:
        # mkstemp creates the file 0600: hashes are not secrets, but nobody else needs them.
        atomic_write_json(self.path, {"format": _FORMAT, "keys": list(records)}, fsync=True)
        self._load()


def _info(rec: dict[str, Any]) -> KeyInfo:
    return KeyInfo(
        key_id=str(rec.get("key_id", "")),
        account=str(rec.get("account", "")),
        space=str(rec.get("space", "")),
        label=str(rec.get("label", "")),
        created_at=float(rec.get("created_at", 0.0)),
        admin=bool(rec.get("admin")),
        revoked=bool(rec.get("revoked")),
        revoked_at=rec.get("revoked_at"),
    )
