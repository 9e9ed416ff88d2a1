"""The sessions of one tenant (seed 001 §3): discovery, LRU cache, locks, metadata, deletion."""

from __future__ import annotations

import logging
import os
import shutil
import threading
import time
import uuid
from collections import OrderedDict
from pathlib import Path
from typing import Any

from ..errors import Conflict, InvalidInput, SessionNotFound
from ..limits import check_text
from ..storage.files import atomic_write_json, file_lock, read_json
from ..tenancy import TenantRoot, validate_id
from .git_plumbing import HISTORY, next_seq_of
from .project_git import PROJECT_STATE_DIR
from .records import DEFAULT_PROJECT, SessionInfo
from .session_git import GitSession, is_valid_session_dir
from .titles import PLACEHOLDER_TITLES, display_title, preview

__all__ = ["SessionStore"]

log = logging.getLogger(__name__)

_UPDATABLE = {"title", "project_id", "agent_id", "model", "tags"}

_Stamp = tuple[int, int, int]


def _stamp(path: str) -> _Stamp | None:
    """A file's inode, size and modification time (``None``: no such file)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


class SessionStore:
    """Creates, finds, caches and deletes the session repositories of one tenant.

    Open sessions live in an LRU of ``cap`` entries; eviction loses nothing because every write
    is on disk before the call returns. A store lock guards the cache and ``locations.json``;
    each session has its own lock for appends and commits.
    """

    def __init__(self, tenant: TenantRoot, *, cap: int = 256, fsync: bool = False) -> None:
        if cap < 1:
            raise InvalidInput("session cache cap must be at least 1")
        self.tenant = tenant
        self.cap = cap
        self.fsync = fsync
        self._cache: OrderedDict[str, GitSession] = OrderedDict()
        self._lock = threading.RLock()
        self._creating: dict[str, threading.Lock] = {}
        self._valid: dict[str, tuple[str, _Stamp]] = {}  # session -> its meta.json, stat

    # ------------------------------------------------------------------ locations.json

    def _locations(self) -> dict[str, str]:
        data = read_json(self.tenant.locations_file)
        return (
            {k: v for k, v in data.items() if isinstance(v, str)} if isinstance(data, dict) else {}
        )

    def _edit_locations(self, session_id: str, path: str | None) -> None:
        with file_lock(self.tenant.sessions_dir / ".locations.lock"):
            data = self._locations()
            if path is None:
                if data.pop(session_id, None) is None:
                    return
            else:
                data[session_id] = path
            atomic_write_json(self.tenant.locations_file, data, fsync=self.fsync)

    # ------------------------------------------------------------------ discovery

    def locate(self, session_id: str) -> Path | None:
        """The directory of a valid session, or ``None`` (seed 001 §3.2 validity)."""
        validate_id(session_id, "session id")
        home = self.tenant.session_dir(session_id)
        if is_valid_session_dir(home) is not None:
            return home
        other = self._locations().get(session_id)
        if other and is_valid_session_dir(Path(other)) is not None:
            return Path(other)
        return None

    def cached(self) -> int:
        """How many open sessions the LRU cache holds (at most ``cap``)."""
        with self._lock:
            return len(self._cache)

    def exists(self, session_id: str) -> bool:
        """Whether a valid session of this id exists now. Recall asks it of every session its
        documents come from (60 us each to parse meta.json): a meta.json once found parsable
        is not read again while its inode, size and modification time stay the same."""
        known = self._valid.get(session_id)
        if known is not None and _stamp(known[0]) == known[1]:
            return True
        home = self.tenant.session_dir(session_id)  # validates the id
        meta = str(home / "meta.json")
        stamp = _stamp(meta)
        found = self.locate(session_id)
        if found == home and stamp is not None:
            self._valid[session_id] = (meta, stamp)
        else:
            self._valid.pop(session_id, None)
        return found is not None

    def list(self) -> list[SessionInfo]:
        """Every valid session: directory scan + locations.json, de-duplicated, the most recently
        active first (by the newest event time of its turns, else by its last write)."""
        found: dict[str, SessionInfo] = {}
        candidates: list[tuple[str, Path]] = []
        if self.tenant.sessions_dir.is_dir():
            for entry in os.scandir(self.tenant.sessions_dir):
                # A directory whose name is not a valid id could never be opened: skip it
                # like any other unrelated directory (this also skips ``.invalid-*``).
                if entry.is_dir() and _is_id(entry.name):
                    candidates.append((entry.name, Path(entry.path)))
        candidates += [(sid, Path(p)) for sid, p in self._locations().items()]
        for sid, path in candidates:
            if sid in found:
                continue
            meta = is_valid_session_dir(path)
            if meta is None:
                continue  # invalid directories are skipped silently
            found[sid] = self._info(sid, path, meta)
        return sorted(found.values(), key=_activity, reverse=True)

    def info(self, session_id: str) -> SessionInfo:
        path = self.locate(session_id)
        meta = is_valid_session_dir(path) if path else None
        if path is None or meta is None:
            raise SessionNotFound(session_id)
        return self._info(session_id, path, meta)

    def _info(self, session_id: str, path: Path, meta: dict[str, Any]) -> SessionInfo:
        if not meta.get("preview") and str(meta.get("title") or "").lower() in PLACEHOLDER_TITLES:
            meta = {**meta, "preview": _first_user_preview(path)}
        return SessionInfo(
            session_id=session_id,
            title=str(meta.get("title") or ""),
            display_title=display_title(meta),
            project_id=str(meta.get("project_id") or DEFAULT_PROJECT),
            agent_id=meta.get("agent_id"),
            # meta.json only has to parse to be valid (§3.2): wrong types must not break listing.
            created_at=_number(meta.get("created_at")),
            updated_at=_number(meta.get("updated_at")),
            turns=int(_number(meta.get("turns"))),
            path=str(path),
            meta=meta,
        )

    # ------------------------------------------------------------------ open / create

    def open(self, session_id: str) -> GitSession:
        """The open session (from the LRU, or from disk); ``SessionNotFound`` if there is none."""
        validate_id(session_id, "session id")
        with self._lock:
            session = self._cache.get(session_id)
            if session is not None:
                if session.path.exists():
                    self._cache.move_to_end(session_id)
                    return session
                del self._cache[session_id]
        path = self.locate(session_id)
        if path is None:
            raise SessionNotFound(session_id)
        session = GitSession(path, session_id, fsync=self.fsync)
        return self._remember(session)

    def _remember(self, session: GitSession) -> GitSession:
        with self._lock:
            existing = self._cache.get(session.session_id)
            if existing is not None:
                self._cache.move_to_end(session.session_id)
                return existing
            self._cache[session.session_id] = session
            while len(self._cache) > self.cap:
                self._cache.popitem(last=False)
            return session

    def create(
        self,
        session_id: str | None = None,
        *,
        project_path: Path | None = None,
        project_id: str | None = None,
        agent_id: str | None = None,
        title: str | None = None,
        model: str | None = None,
        extra: dict[str, Any] | None = None,
    ) -> GitSession:
        """Create a session (``git init`` + meta.json); ``Conflict`` if the id is taken."""
        # Only ``None`` means "make one up": an empty id is invalid input, not a request.
        if session_id is None:
            session_id = f"s_{uuid.uuid4().hex[:12]}"
        session_id = validate_id(session_id, "session id")
        if agent_id is not None:
            validate_id(agent_id, "agent id")
        check_text({"title": title, "model": model, "extra": extra}, "session")  # before git init
        with self._lock:
            gate = self._creating.setdefault(session_id, threading.Lock())
        # The thread gate, then a tenant-wide file lock: two processes creating the same new
        # session at once would otherwise each see a half-made directory and move it aside.
        with gate, file_lock(self.tenant.sessions_dir / ".create.lock"):
            if self.exists(session_id):
                raise Conflict(f"session already exists: {session_id}")
            if project_path is not None:
                path = self._project_sessions_dir(project_path) / session_id
            else:
                path = self.tenant.session_dir(session_id)
            now = time.time()
            meta: dict[str, Any] = {
                "session_id": session_id,
                "title": title or "",
                "title_manual": bool(title),
                "_titled": False,
                "agent_id": agent_id,
                "project_id": project_id or DEFAULT_PROJECT,
                "model": model,
                "created_at": now,
                "updated_at": now,
                "turns": 0,
                "preview": "",
                **(extra or {}),
            }
            if is_valid_session_dir(path) is not None:
                # A valid session we do not know: another tenant's session in a shared project
                # directory (or a lost locations.json entry). Never move it aside.
                raise Conflict(f"{path} already holds a session of another tenant or store")
            if path.exists() and any(path.iterdir()):
                # An invalid leftover (no meta.json): move it aside rather than mix histories.
                path.rename(path.with_name(f".invalid-{session_id}-{uuid.uuid4().hex[:6]}"))
            session = GitSession.create(path, session_id, meta, fsync=self.fsync)
            retired = (read_json(self._retired_path) or {}).get(session_id)
            if isinstance(retired, int) and retired > 1:
                # The id was used before: number on from where the deleted session stopped, so
                # cursors kept per session id (distillation, index) see the new turns as new.
                session.continue_seq(retired)
            if project_path is not None:
                self._edit_locations(session_id, str(path))
            return self._remember(session)

    @property
    def _retired_path(self) -> Path:
        """Deleted session ids and the next seq each would have used."""
        return self.tenant.sessions_dir / ".retired-seqs.json"

    def _project_sessions_dir(self, project_path: Path) -> Path:
        """Where this tenant's sessions live inside a project directory: the seed's
        ``.ogmemory/sessions/`` for the default tenant, a tenant-qualified folder for others, so
        tenants sharing a project never collide (nor learn of each other's session ids)."""
        base = project_path / PROJECT_STATE_DIR
        if (self.tenant.account, self.tenant.space) == ("local", "default"):
            return base / "sessions"
        return base / "tenants" / self.tenant.account / self.tenant.space / "sessions"

    def open_or_create(self, session_id: str, **create_kwargs: Any) -> GitSession:
        """Lazy creation on the first message (seed 001 §3.1)."""
        try:
            return self.open(session_id)
        except SessionNotFound:
            try:
                return self.create(session_id, **create_kwargs)
            except Conflict:  # another thread created it first
                if not self.exists(session_id):
                    raise  # the directory belongs to someone else
                return self.open(session_id)

    # ------------------------------------------------------------------ management

    def update(self, session_id: str, **fields: Any) -> SessionInfo:
        """Seed 001 §3.6 ``update_session``: write meta.json; a title set here is manual."""
        unknown = set(fields) - _UPDATABLE
        if unknown:
            raise InvalidInput(
                f"cannot update session field(s): {', '.join(sorted(unknown))}; "
                f"allowed: {', '.join(sorted(_UPDATABLE))}"
            )
        check_text(fields, "session")
        session = self.open(session_id)
        changes = {k: v for k, v in fields.items() if v is not None}
        if "title" in changes:
            title = str(changes["title"]).strip()
            if not title:
                raise InvalidInput("title must not be empty")
            changes.update(title=title[:200], title_manual=True)
        if "agent_id" in changes:
            validate_id(changes["agent_id"], "agent id")
        if "project_id" in changes:
            validate_id(changes["project_id"], "project id")
        changes["updated_at"] = time.time()
        session.write_meta(**changes)
        return self.info(session_id)

    def set_auto_title(
        self, session_id: str, title: str, *, llm: bool, model: str | None = None
    ) -> bool:
        """Apply an automatic title unless a manual one exists (or an LLM title already ran);
        ``model`` (the one that wrote an LLM title) is kept as ``_titled_by``."""
        session = self.open(session_id)

        def decide(meta: dict[str, Any]) -> dict[str, Any] | None:
            # read under the same file lock as the write: a rename in another process
            # cannot land between the check and the write
            if meta.get("title_manual") or (llm and meta.get("_titled")):
                return None
            changes: dict[str, Any] = {"title": title}
            if llm:
                changes["_titled"] = True
                if model:
                    changes["_titled_by"] = model
            return changes

        return session.edit_meta(decide) is not None

    def delete(self, session_id: str) -> None:
        """Seed 001 §3.7: drop from the cache, remove the directory, drop the locations entry."""
        path = self.locate(session_id)
        if path is None:
            raise SessionNotFound(session_id)
        with self._lock:
            session = self._cache.pop(session_id, None)
        # Rename first (atomic): from then on the session is gone for every reader, and
        # readers that still hold it cannot write into the tree rmtree is removing.
        tomb = path.with_name(f".deleted-{session_id}-{uuid.uuid4().hex[:8]}")
        with file_lock(self.tenant.sessions_dir / ".create.lock"):
            next_seq = next_seq_of(path)
            if session is not None:
                with session.lock:
                    path.rename(tomb)
            else:
                path.rename(tomb)
            retired = read_json(self._retired_path) or {}
            retired[session_id] = max(next_seq, int(retired.get(session_id, 0)))
            atomic_write_json(self._retired_path, retired, fsync=self.fsync)
        self._edit_locations(session_id, None)
        try:
            shutil.rmtree(tomb)
        except OSError as exc:  # logically deleted already; the hidden leftover is harmless
            log.warning("session %s: could not remove %s: %s", session_id, tomb, exc)


def _is_id(name: str) -> bool:
    try:
        validate_id(name, "session id")
    except InvalidInput:
        return False
    return True


def _activity(info: SessionInfo) -> float:
    """When the conversation last happened: its newest committed event time (imported history
    lists by its own dates), else when the session was last written."""
    last_event = info.meta.get("last_event_at")
    if isinstance(last_event, (int, float)) and not isinstance(last_event, bool):
        return float(last_event)
    return info.updated_at


def _number(value: Any) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return 0.0


def _first_user_preview(path: Path) -> str:
    hist = path / HISTORY
    try:
        names = sorted(n for n in os.listdir(hist) if "-u-" in n and n.endswith(".json"))
    except OSError:
        return ""
    for name in names:
        data = read_json(hist / name)
        if isinstance(data, dict) and isinstance(data.get("content"), str):
            return preview(data["content"])
    return ""
