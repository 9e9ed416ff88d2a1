"""The default index store: one SQLite file per tenant with documents at three levels, FTS5,
vectors, cursors and the outbox of embedding jobs.

A document is one searchable thing: a turn (L2 content), a session (L0 abstract, L1 overview),
a memory, a timeline event, a fact, an entity (L0, with an L1 page). Writes of documents and the
embedding jobs they need happen in one transaction (the outbox pattern); vectors arrive later
from a worker, and until then the document is found by full text. The index is derived.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from ..errors import StorageError
from ..index.docs import Doc
from ..index.text import fts_columns
from .doc_cache import DocCache
from .files import set_aside
from .sqlite import PerThread, transaction
from .sqlite_index_schema import (
    COLUMNS,
    SCHEMA,
    SCHEMA_VERSION,
    damage_of,
    fts_match,
    row_to_doc,
    select_docs,
    set_meta,
)
from .sqlite_queue import Outbox
from .vectors import VectorMatrix

__all__ = ["SqliteIndexStore"]

T = TypeVar("T")

log = logging.getLogger(__name__)


class SqliteIndexStore:
    """Documents, full text and vectors in one SQLite file (WAL; safe across processes)."""

    def __init__(self, path: Path, *, embedder_name: str | None = None) -> None:
        self.path = path
        self.embedder_name = embedder_name
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # e.g. a file where the directory goes: reindex replaces it
            raise StorageError(f"index directory {path.parent} is unusable: {exc}") from exc
        self._lock = threading.RLock()
        self._cache = DocCache()  # decoded rows and lookups while nothing commits
        self._reset_memory()
        #: why an unusable index file was replaced by an empty one (``None``: it was not)
        self.rebuilt: str | None = damage_of(path)
        if self.rebuilt is not None:
            # The index is derived: a damaged one, or one of an older layout, is rebuilt from
            # the files (the caller's next sync re-indexes everything).
            log.warning("index %s: %s; rebuilding it from the files", path, self.rebuilt)
            if path.is_dir():  # not ours to delete: kept beside, for whoever put it there
                set_aside(path)
            for suffix in ("", "-wal", "-shm"):
                Path(str(path) + suffix).unlink(missing_ok=True)
        try:
            self._conns = PerThread(path)
            self._conn().executescript(SCHEMA)  # idempotent; executescript commits itself
            with transaction(self._conn()) as conn:
                Outbox.ensure_schema(conn)
                conn.execute(
                    "INSERT OR IGNORE INTO meta(key, value) VALUES ('schema', ?)", (SCHEMA_VERSION,)
                )
            self._jobs = Outbox(path)
        except sqlite3.DatabaseError as exc:
            raise StorageError(
                f"index {path} is unreadable ({exc}); `ogmem reindex` rebuilds it from the files"
            ) from exc
        if embedder_name:
            self._adopt_embedder(embedder_name)

    def _reset_memory(self) -> None:
        self._matrix = VectorMatrix()  # every vector logged up to ``_vec_seq``
        self._vec_seq = 0
        self._vec_gen = -1  # the cache generation the matrix was last brought up to date in
        self._df: dict[str, int] = {}  # word -> documents holding it (cache for word_shares)
        self._df_total = 0

    @property
    def jobs(self) -> Outbox:
        """The embedding jobs the writes of this store enqueue."""
        return self._jobs

    def _adopt_embedder(self, name: str) -> None:
        """Vectors of two embedders are not comparable. When the configured embedder is not the
        one this index was last embedded with, its vectors are dropped; then every document
        without a vector (also those written by a process with no embedder, which enqueues no
        job) is queued to be embedded. Until the workers catch up, recall finds those documents
        by full text."""
        if self.get_meta("embedder") == name and not self.get_meta("unembedded"):
            return  # the common case: no write transaction just to open the index
        with self._lock, transaction(self._conn()) as conn:
            row = conn.execute("SELECT value FROM meta WHERE key='embedder'").fetchone()
            previous = json.loads(row[0]) if row else None
            if previous is not None and previous != name:
                log.warning(
                    "index %s: embedder %s replaces %s; re-embedding every document",
                    self.path,
                    name,
                    previous,
                )
                conn.execute("DELETE FROM vecs")
                conn.execute("DELETE FROM vec_log")
            queued = {
                k
                for (k,) in conn.execute(
                    "SELECT key FROM outbox WHERE topic='embed' AND state IN ('pending','leased')"
                )
            }
            missing = conn.execute(
                "SELECT rowid, id, text FROM docs WHERE rowid NOT IN "
                "(SELECT doc_rowid FROM vecs) ORDER BY rowid"
            ).fetchall()
            for rowid, doc_id, text in missing:
                if doc_id not in queued:
                    Outbox.enqueue(conn, "embed", doc_id, {"rowid": rowid, "text": text[:2000]})
            set_meta(conn, "embedder", name)
            conn.execute("DELETE FROM meta WHERE key='unembedded'")
        self._cache.changed()

    def _conn(self) -> sqlite3.Connection:
        return self._conns.get()

    def close(self) -> None:
        """Close this store's connections (the calling thread's and the queue's)."""
        self._conns.close_all()
        self._jobs.close()

    # ------------------------------------------------------------------ meta

    def get_meta(self, key: str, default: Any = None) -> Any:
        row = self._conn().execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return json.loads(row[0]) if row else default

    # ------------------------------------------------------------------ writes

    def write(
        self,
        upserts: Iterable[Doc],
        deletes: Iterable[str] = (),
        meta: dict[str, Any] | None = None,
    ) -> int:
        """Upsert and delete documents, enqueue their embedding jobs and set cursors, in one
        transaction. A document whose text changed gets a new rowid (so vectors only grow)."""
        n = 0
        try:
            with self._lock, transaction(self._conn()) as conn:
                for doc_id in deletes:
                    self._delete(conn, doc_id)
                for doc in upserts:
                    n += self._upsert(conn, doc)
                for key, value in (meta or {}).items():
                    set_meta(conn, key, value)
                if n and not self.embedder_name:
                    # no job was queued: the next process with an embedder queues these
                    set_meta(conn, "unembedded", True)
        finally:
            self._cache.changed()  # this connection's commits are not in its data_version
        return n

    def _delete(self, conn: sqlite3.Connection, doc_id: str) -> None:
        row = conn.execute("SELECT rowid FROM docs WHERE id=?", (doc_id,)).fetchone()
        if row is None:
            return
        conn.execute("DELETE FROM docs WHERE rowid=?", (row[0],))
        conn.execute("DELETE FROM docs_fts WHERE rowid=?", (row[0],))
        conn.execute("DELETE FROM vecs WHERE doc_rowid=?", (row[0],))
        conn.execute("DELETE FROM entity_facts WHERE doc_id=?", (doc_id,))

    def _upsert(self, conn: sqlite3.Connection, doc: Doc) -> int:
        values = (
            doc.id,
            doc.kind,
            doc.level,
            doc.parent,
            doc.session_id,
            doc.seq,
            doc.text,
            doc.scope,
            doc.event_time,
            doc.valid_from,
            doc.valid_to,
            int(doc.superseded),
            doc.importance,
            json.dumps(list(doc.support)),
            json.dumps(list(doc.node_ids)),
            json.dumps(list(doc.cites)),
            json.dumps(doc.prov, sort_keys=True),
        )
        if doc.kind == "fact":
            conn.execute("DELETE FROM entity_facts WHERE doc_id=?", (doc.id,))
            conn.executemany(
                "INSERT OR IGNORE INTO entity_facts(entity, doc_id) VALUES (?, ?)",
                [(str(e), doc.id) for e in doc.prov.get("entities", ()) if e],
            )
        row = conn.execute("SELECT rowid, text FROM docs WHERE id=?", (doc.id,)).fetchone()
        if row is not None and row[1] == doc.text:
            conn.execute(
                "UPDATE docs SET kind=?, level=?, parent=?, session_id=?, seq=?, text=?, scope=?, "
                "event_time=?, valid_from=?, valid_to=?, superseded=?, importance=?, support=?, "
                "node_ids=?, cites=?, prov=? WHERE rowid=?",
                (*values[1:], row[0]),
            )
            return 0
        if row is not None:
            self._delete(conn, doc.id)
        cur = conn.execute(
            "INSERT INTO docs(id, kind, level, parent, session_id, seq, text, scope, event_time, "
            "valid_from, valid_to, superseded, importance, support, node_ids, cites, prov) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            values,
        )
        rowid = cur.lastrowid
        body, cjk = fts_columns(doc.searchable)
        conn.execute("INSERT INTO docs_fts(rowid, body, cjk) VALUES (?, ?, ?)", (rowid, body, cjk))
        if self.embedder_name:
            Outbox.enqueue(conn, "embed", doc.id, {"rowid": rowid, "text": doc.text[:2000]})
        return 1

    # ------------------------------------------------------------------ reads

    def _memo(self, key: tuple[Any, ...], compute: Callable[[], T]) -> T:
        """``compute()`` once while the index does not change (``doc_cache``)."""
        return self._cache.memo(self._conn(), key, compute)

    def _scalar(self, sql: str, *args: Any) -> Any:
        """The first value ``sql`` answers, read once while the index does not change."""
        return self._memo((sql, *args), lambda: self._conn().execute(sql, args).fetchone()[0])

    def count(self, kind: str | None = None) -> int:
        if kind is None:
            return int(self._scalar("SELECT count(*) FROM docs"))
        return int(self._scalar("SELECT count(*) FROM docs WHERE kind=?", kind))

    def text_search(
        self, words: Sequence[str], chars: Sequence[str], limit: int
    ) -> list[tuple[int, float]]:
        """``(rowid, score)`` best first for documents holding any of ``words`` (or of the CJK
        ``chars``); score = -bm25 (higher is better)."""
        match = fts_match(list(words), list(chars))
        if not match:
            return []
        try:
            rows = (
                self._conn()
                .execute(
                    "SELECT rowid, bm25(docs_fts, 1.0, 0.6) FROM docs_fts WHERE docs_fts MATCH ? "
                    "ORDER BY rank LIMIT ?",
                    (match, limit),
                )
                .fetchall()
            )
        except sqlite3.OperationalError as exc:
            if "fts5" in str(exc):  # a query FTS5 cannot parse finds nothing
                return []
            raise StorageError(f"index {self.path}: full-text search failed ({exc})") from exc
        return [(int(r), -float(s)) for r, s in rows]

    def word_shares(self, words: Sequence[str], total: int | None = None) -> dict[str, float]:
        """The share of documents each of ``words`` occurs in (``total``: the document count,
        if the caller has it). Counts are cached and refreshed when the index size moves by a
        tenth; a word not seen yet costs one FTS count."""
        total = self.count() if total is None else total
        if not total:
            return dict.fromkeys(words, 0.0)
        if not (0.9 * self._df_total <= total <= 1.1 * self._df_total):
            self._df.clear()
            self._df_total = total
        out: dict[str, float] = {}
        for w in words:
            df = self._df.get(w)
            if df is None:
                try:
                    df = int(
                        self._conn()
                        .execute(
                            "SELECT count(*) FROM docs_fts WHERE docs_fts MATCH ?",
                            ('body: "' + w.replace('"', '""') + '"',),
                        )
                        .fetchone()[0]
                    )
                except sqlite3.OperationalError:
                    df = 0
                self._df[w] = df
            out[w] = df / total
        return out

    def docs(self, rowids: Iterable[int]) -> dict[int, Doc]:
        return self._cache.docs(self._conn(), "rowid", rowids, self._decode_in)

    def docs_by_id(self, ids: Iterable[str]) -> dict[str, Doc]:
        return self._cache.docs(self._conn(), "id", ids, self._decode_in)

    def _decode_in(self, column: str, keys: list[int] | list[str]) -> list[Doc]:
        return [row_to_doc(row) for row in self._rows_in(column, keys)]

    def _rows_in(self, column: str, keys: list[int] | list[str]) -> Iterator[Sequence[Any]]:
        """The ``docs`` rows whose ``column`` (``rowid`` or ``id``) is one of ``keys``, read
        500 keys per query (SQLite bounds the parameters of one statement)."""
        for i in range(0, len(keys), 500):
            chunk = keys[i : i + 500]
            marks = ",".join("?" * len(chunk))
            sql = f"SELECT {', '.join(COLUMNS)} FROM docs WHERE {column} IN ({marks})"
            yield from self._conn().execute(sql, chunk)

    def entity_facts(self, entity: str, limit: int = 10) -> list[str]:
        """Ids of the fact documents about ``entity`` (either end of the edge)."""
        sql = "SELECT doc_id FROM entity_facts WHERE entity=? ORDER BY doc_id LIMIT ?"
        found = self._memo(
            ("entity_facts", entity, limit),
            lambda: tuple(d for (d,) in self._conn().execute(sql, (entity, limit))),
        )
        return list(found)

    def children(self, parent: str, limit: int = 200) -> list[Doc]:
        rows = self._conn().execute(
            f"SELECT {', '.join(COLUMNS)} FROM docs WHERE parent=? ORDER BY seq, rowid LIMIT ?",
            (parent, limit),
        )
        return [row_to_doc(r) for r in rows]

    def child_refs(self, parent: str, limit: int = 200) -> list[tuple[int, str]]:
        """``(rowid, id)`` of ``parent``'s children, in order (no documents decoded)."""
        sql = "SELECT rowid, id FROM docs WHERE parent=? ORDER BY seq, rowid LIMIT ?"
        found = self._memo(
            ("child_refs", parent, limit),
            lambda: tuple((r, i) for r, i in self._conn().execute(sql, (parent, limit))),
        )
        return list(found)

    def window_ids(self, session_id: str, seq: int, before: int, after: int) -> list[str]:
        """Ids of the turn documents of ``session_window`` (no documents decoded)."""
        found = self._memo(
            ("window", session_id, seq, before, after),
            lambda: tuple(self._window_ids(session_id, seq, before, after)),
        )
        return list(found)

    def _window_ids(self, session_id: str, seq: int, before: int, after: int) -> list[str]:
        rows = (
            self._conn()
            .execute(
                "SELECT id, seq FROM docs WHERE session_id=? AND kind='turn' "
                "AND seq BETWEEN ? AND ? ORDER BY seq",
                (session_id, seq - before * 4, seq + after * 4),
            )
            .fetchall()
        )
        idx = next((i for i, r in enumerate(rows) if r[1] == seq), None)
        if idx is None:
            return []
        return [r[0] for r in rows[max(0, idx - before) : idx + after + 1]]

    def latest(self, limit: int, kinds: Sequence[str]) -> list[Doc]:
        return select_docs(self._conn(), kinds, "1", (), "event_time DESC, rowid DESC", limit)

    def in_period(self, start: float, end: float, kinds: Sequence[str], limit: int) -> list[Doc]:
        where, order = "event_time >= ? AND event_time < ?", "importance DESC, event_time, rowid"
        return select_docs(self._conn(), kinds, where, (start, end), order, limit)

    def latest_event_time(self) -> float | None:
        """When the newest indexed thing happened (``None`` for an empty index); an entity's
        time is when it was learned, not when anything happened."""
        latest = self._scalar("SELECT max(event_time) FROM docs WHERE kind != 'entity'")
        return float(latest) if latest is not None else None

    def delete_session(self, session_id: str) -> int:
        """Drop the turns and the abstracts of a deleted session; returns how many."""
        with self._lock, transaction(self._conn()) as conn:
            ids = [
                i
                for (i,) in conn.execute(
                    "SELECT id FROM docs WHERE session_id=? AND kind IN ('turn', 'session')",
                    (session_id,),
                )
            ]
            for doc_id in ids:
                self._delete(conn, doc_id)
        self._cache.changed()
        return len(ids)

    def reset(self) -> None:
        """Drop every document, vector, job and cursor (``reindex`` then rebuilds)."""
        with self._lock, transaction(self._conn()) as conn:
            for table in ("docs", "docs_fts", "entity_facts", "vecs", "vec_log", "outbox"):
                conn.execute(f"DELETE FROM {table}")
            conn.execute("DELETE FROM meta WHERE key NOT IN ('schema', 'embedder')")
            self._reset_memory()
        self._cache.changed()

    # ------------------------------------------------------------------ vectors

    def _load_vectors(self) -> None:
        """Append the vectors logged since the last call, reading them in blocks (so loading
        a million vectors never holds them twice as Python bytes)."""
        conn = self._conn()
        gen = self._cache.check(conn)
        if gen == self._vec_gen:
            return  # nothing committed since the last load
        conn.execute("BEGIN")  # one snapshot for the size hint and the rows
        try:
            (hint,) = conn.execute(
                "SELECT count(*) FROM vec_log WHERE seq > ?", (self._vec_seq,)
            ).fetchone()
            if not hint:
                self._vec_gen = gen
                return
            cur = conn.execute(
                "SELECT l.seq, v.doc_rowid, v.v FROM vec_log l JOIN vecs v "
                "ON v.doc_rowid = l.doc_rowid WHERE l.seq > ? ORDER BY l.seq",
                (self._vec_seq,),
            )
            while rows := cur.fetchmany(4096):
                block = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32).reshape(
                    len(rows), -1
                )
                ids = np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows))
                self._matrix.append(block, ids, int(hint))
                self._vec_seq = rows[-1][0]
            self._vec_gen = gen
        finally:
            conn.execute("COMMIT")

    def vector_count(self) -> int:
        return int(self._scalar("SELECT count(*) FROM vecs"))

    def centroid(self) -> np.ndarray | None:
        """The mean of every document vector (``None`` before any): a query's dot product with
        it is its mean cosine to the whole index, the background a relevant match stands out
        from."""
        with self._lock:
            self._load_vectors()
            return self._matrix.centroid()

    def dense(self, query_vec: np.ndarray, limit: int) -> list[tuple[int, float]]:
        """``(rowid, cosine)`` best first, over every embedded document (vectors are unit)."""
        with self._lock:
            self._load_vectors()
            return self._matrix.top(query_vec, limit)

    def vectors(self, rowids: Sequence[int]) -> dict[int, np.ndarray]:
        """The stored unit vectors of those ``rowids`` that have one."""
        ids = [int(r) for r in rowids]
        if not ids:
            return {}

        def read(missing: list[int]) -> dict[int, np.ndarray]:
            marks = ",".join("?" * len(missing))
            sql = f"SELECT doc_rowid, v FROM vecs WHERE doc_rowid IN ({marks})"
            rows = self._conn().execute(sql, missing)
            return {r: np.frombuffer(v, dtype=np.float32) for r, v in rows}

        return self._cache.rows(self._conn(), "vector", ids, read, block=len(ids))

    def put_vectors(self, vectors: Mapping[int, np.ndarray]) -> int:
        """Store unit vectors by document rowid (idempotent); rowids of documents deleted
        meanwhile are skipped, so a late job never revives a deleted document. Returns how
        many were stored."""
        rowids = [int(r) for r in vectors]
        if not rowids:
            return 0
        with transaction(self._conn()) as conn:
            marks = ",".join("?" * len(rowids))
            live = {
                r
                for (r,) in conn.execute(f"SELECT rowid FROM docs WHERE rowid IN ({marks})", rowids)
            }
            rows = [
                (r, len(v), np.ascontiguousarray(v, dtype="<f4").tobytes())
                for r, v in vectors.items()
                if int(r) in live
            ]
            conn.executemany(
                "INSERT OR REPLACE INTO vecs(doc_rowid, dim, v) VALUES (?, ?, ?)", rows
            )
        self._cache.changed()
        return len(rows)

    def size_bytes(self) -> int:
        files = (Path(str(self.path) + suffix) for suffix in ("", "-wal", "-shm"))
        return sum(p.stat().st_size for p in files if p.exists())
