"""The layout of the SQLite index file: its tables and schema version, the check that a file on
disk can be used as it is, and the codec between a ``docs`` row and a :class:`Doc`.

Kept apart from the store (``sqlite_index``) so that the health check and the backend chooser can
judge an index file, and benchmarks can build FTS5 queries, without opening a store.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..index.docs import Doc

__all__ = [
    "COLUMNS",
    "SCHEMA",
    "SCHEMA_VERSION",
    "damage_of",
    "fts_match",
    "row_to_doc",
    "select_docs",
    "set_meta",
]

# 2: Porter; 3: speakers; 4: entity_facts; 5: L1 overviews; 6: edited; 7: fact terms in the FTS
SCHEMA_VERSION = "7"

SCHEMA = """
CREATE TABLE IF NOT EXISTS docs(
  rowid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL,
  level INTEGER NOT NULL,
  parent TEXT,
  session_id TEXT,
  seq INTEGER,
  text TEXT NOT NULL,
  scope TEXT NOT NULL,
  event_time REAL,
  valid_from REAL,
  valid_to REAL,
  superseded INTEGER NOT NULL DEFAULT 0,
  importance REAL NOT NULL DEFAULT 0.5,
  support TEXT NOT NULL DEFAULT '[]',
  node_ids TEXT NOT NULL DEFAULT '[]',
  cites TEXT NOT NULL DEFAULT '[]',
  prov TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS docs_parent ON docs(parent);
CREATE INDEX IF NOT EXISTS docs_session ON docs(session_id, seq);
CREATE INDEX IF NOT EXISTS docs_time ON docs(event_time);
-- recall's 1-hop expansion from an entity to the facts about it
CREATE TABLE IF NOT EXISTS entity_facts(entity TEXT NOT NULL, doc_id TEXT NOT NULL,
  PRIMARY KEY(entity, doc_id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS entity_facts_doc ON entity_facts(doc_id);
CREATE VIRTUAL TABLE IF NOT EXISTS docs_fts USING fts5(body, cjk,
  tokenize='porter unicode61 remove_diacritics 2');
CREATE TABLE IF NOT EXISTS vecs(doc_rowid INTEGER PRIMARY KEY, dim INTEGER NOT NULL,
  v BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS vec_log(seq INTEGER PRIMARY KEY AUTOINCREMENT,
  doc_rowid INTEGER NOT NULL);
CREATE TRIGGER IF NOT EXISTS vecs_logged AFTER INSERT ON vecs
  BEGIN INSERT INTO vec_log(doc_rowid) VALUES (new.doc_rowid); END;
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


COLUMNS = (
    "rowid",
    "id",
    "kind",
    "level",
    "parent",
    "session_id",
    "seq",
    "text",
    "scope",
    "event_time",
    "valid_from",
    "valid_to",
    "superseded",
    "importance",
    "support",
    "node_ids",
    "cites",
    "prov",
)


def _json_tuple(text: str) -> tuple[str, ...]:
    if text == "[]":
        return ()
    if text.startswith('["') and text.endswith('"]') and '"' not in text[2:-2] and "\\" not in text:
        return (text[2:-2],)  # one plain string, the usual turn: no JSON parser needed
    return tuple(json.loads(text))


def row_to_doc(row: Sequence[Any]) -> Doc:
    # On recall's hot path (hundreds of rows per query): unpacked by position, and the common
    # empty JSON values are not parsed at all.
    (
        rowid,
        doc_id,
        kind,
        level,
        parent,
        session_id,
        seq,
        text,
        scope,
        event_time,
        valid_from,
        valid_to,
        superseded,
        importance,
        support,
        node_ids,
        cites,
        prov,
    ) = row
    return Doc(
        id=doc_id,
        kind=kind,
        level=level,
        text=text,
        scope=scope,
        parent=parent,
        session_id=session_id,
        seq=seq,
        event_time=event_time,
        valid_from=valid_from,
        valid_to=valid_to,
        superseded=bool(superseded),
        importance=importance,
        support=_json_tuple(support),
        node_ids=_json_tuple(node_ids),
        cites=_json_tuple(cites),
        prov={} if prov == "{}" else json.loads(prov),
        rowid=rowid,
    )


def _quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def fts_match(words: list[str], chars: list[str]) -> str | None:
    """The FTS5 MATCH expression for words (in ``body``) and CJK characters (in ``cjk``)."""
    parts = []
    if words:
        parts.append("body: (" + " OR ".join(_quote(w) for w in words) + ")")
    if chars:
        parts.append("cjk: (" + " OR ".join(_quote(c) for c in chars) + ")")
    return " OR ".join(parts) if parts else None


_TABLES = frozenset({"docs", "docs_fts", "entity_facts", "vecs", "vec_log", "meta", "outbox"})


def damage_of(path: Path) -> str | None:
    """Why the index file at ``path`` cannot be used as it is (``None``: it can, or it does not
    exist yet): not a database, an older layout, or tables missing."""
    if not path.exists():
        return None
    if not path.is_file():
        return "not a file"
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            tables = {
                n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
            row = (
                conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
                if "meta" in tables
                else None
            )
        finally:
            conn.close()
    except sqlite3.Error as exc:
        return f"unreadable ({exc})"
    if not tables:
        return None  # an empty file: a database not created yet
    if row is None or str(row[0]) != SCHEMA_VERSION:
        return f"schema {row[0] if row else 'unknown'}, this version writes {SCHEMA_VERSION}"
    missing = _TABLES - tables
    return f"tables missing: {', '.join(sorted(missing))}" if missing else None


def select_docs(
    conn: sqlite3.Connection,
    kinds: Sequence[str],
    where: str,
    args: tuple[Any, ...],
    order: str,
    limit: int,
) -> list[Doc]:
    """Documents of ``kinds`` (no L1 overviews) matching ``where``, in ``order``."""
    marks = ",".join("?" * len(kinds))
    rows = conn.execute(
        f"SELECT {', '.join(COLUMNS)} FROM docs WHERE kind IN ({marks}) AND level != 1 "
        f"AND {where} ORDER BY {order} LIMIT ?",
        (*kinds, *args, limit),
    )
    return [row_to_doc(r) for r in rows]


def set_meta(conn: sqlite3.Connection, key: str, value: Any) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
        (key, json.dumps(value, sort_keys=True)),
    )
