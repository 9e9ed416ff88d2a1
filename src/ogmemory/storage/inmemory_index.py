"""The in-memory twin of the index store: the same contract as ``SqliteIndexStore`` (the
contract suite runs against both), held in this process.

Full text is ranked by Okapi BM25 over the same tokens the SQLite store indexes (jieba words and
single CJK characters for Chinese), without Porter stemming; vectors are searched by brute force.
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ..embed.base import one_blas_thread
from ..index.docs import Doc
from ..index.text import fts_columns
from .inmemory import InMemoryQueue
from .vectors import top_k

__all__ = ["InMemoryIndexStore"]

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
_K1, _B = 1.2, 0.75


def _tokens(text: str) -> list[str]:
    return [t.casefold() for t in _TOKEN.findall(text)]


class InMemoryIndexStore:
    """Documents, full text and vectors of one tenant, in this process."""

    def __init__(self, *, embedder_name: str | None = None) -> None:
        self.embedder_name = embedder_name
        self._lock = threading.RLock()
        self._jobs = InMemoryQueue()
        self._meta: dict[str, Any] = {}
        self.reset()

    @property
    def jobs(self) -> InMemoryQueue:
        return self._jobs

    def reset(self) -> None:
        with self._lock:
            self._docs: dict[int, Doc] = {}
            self._by_id: dict[str, int] = {}
            self._terms: dict[int, tuple[Counter[str], Counter[str]]] = {}  # body, cjk
            self._vecs: dict[int, np.ndarray] = {}
            self._next = 1
            self._jobs.forget()
            self._meta = {k: v for k, v in self._meta.items() if k == "embedder"}

    def close(self) -> None:
        return None

    def adopt_embedder(self, name: str) -> None:
        """Vectors of another embedder are dropped; every document is queued again."""
        with self._lock:
            self.embedder_name = name
            self._vecs.clear()
            self._jobs.forget()
            for rowid, doc in sorted(self._docs.items()):
                self._jobs.submit("embed", doc.id, {"rowid": rowid, "text": doc.text[:2000]})

    # ------------------------------------------------------------------ writes

    def write(
        self,
        upserts: Iterable[Doc],
        deletes: Iterable[str] = (),
        meta: dict[str, Any] | None = None,
    ) -> int:
        n = 0
        with self._lock:
            for doc_id in deletes:
                self._delete(doc_id)
            for doc in upserts:
                n += self._upsert(doc)
            self._meta.update(meta or {})
        return n

    def _delete(self, doc_id: str) -> None:
        rowid = self._by_id.pop(doc_id, None)
        if rowid is not None:
            self._docs.pop(rowid, None)
            self._terms.pop(rowid, None)
            self._vecs.pop(rowid, None)

    def _upsert(self, doc: Doc) -> int:
        rowid = self._by_id.get(doc.id)
        if rowid is not None and self._docs[rowid].text == doc.text:
            self._docs[rowid] = replace(doc, rowid=rowid)
            return 0
        if rowid is not None:
            self._delete(doc.id)
        rowid, self._next = self._next, self._next + 1
        self._docs[rowid] = replace(doc, rowid=rowid)
        self._by_id[doc.id] = rowid
        body, cjk = fts_columns(doc.searchable)
        self._terms[rowid] = (Counter(_tokens(body)), Counter(cjk.split()))
        if self.embedder_name:
            self._jobs.submit("embed", doc.id, {"rowid": rowid, "text": doc.text[:2000]})
        return 1

    def delete_session(self, session_id: str) -> int:
        with self._lock:
            ids = [
                d.id
                for d in self._docs.values()
                if d.session_id == session_id and d.kind in ("turn", "session")
            ]
            for doc_id in ids:
                self._delete(doc_id)
        return len(ids)

    def put_vectors(self, vectors: Mapping[int, np.ndarray]) -> int:
        with self._lock:
            live = {
                int(r): np.asarray(v, dtype=np.float32)
                for r, v in vectors.items()
                if int(r) in self._docs
            }
            self._vecs.update(live)
        return len(live)

    # ------------------------------------------------------------------ reads

    def get_meta(self, key: str, default: Any = None) -> Any:
        with self._lock:
            return self._meta.get(key, default)

    def count(self, kind: str | None = None) -> int:
        with self._lock:
            if kind is None:
                return len(self._docs)
            return sum(1 for d in self._docs.values() if d.kind == kind)

    def text_search(
        self, words: Sequence[str], chars: Sequence[str], limit: int
    ) -> list[tuple[int, float]]:
        wanted_words = [w.casefold() for w in words]
        wanted_chars = list(chars)
        if not wanted_words and not wanted_chars:
            return []
        with self._lock:
            n = len(self._docs) or 1
            lengths = {
                r: sum(b.values()) + 0.6 * sum(c.values()) for r, (b, c) in self._terms.items()
            }
            avg = (sum(lengths.values()) / n) or 1.0
            scores: dict[int, float] = {}
            for column, terms, weight in ((0, wanted_words, 1.0), (1, wanted_chars, 0.6)):
                for term in terms:
                    holders = [r for r, cols in self._terms.items() if cols[column][term]]
                    if not holders:
                        continue
                    idf = math.log(1 + (n - len(holders) + 0.5) / (len(holders) + 0.5))
                    for r in holders:
                        tf = self._terms[r][column][term]
                        norm = tf + _K1 * (1 - _B + _B * lengths[r] / avg)
                        scores[r] = scores.get(r, 0.0) + weight * idf * tf * (_K1 + 1) / norm
        ranked = sorted(scores.items(), key=lambda x: (-x[1], x[0]))
        return ranked[:limit]

    def word_shares(self, words: Sequence[str], total: int | None = None) -> dict[str, float]:
        with self._lock:
            n = self.count() if total is None else total
            if not n:
                return dict.fromkeys(words, 0.0)
            return {
                w: sum(1 for b, _ in self._terms.values() if b[w.casefold()]) / n for w in words
            }

    def docs(self, rowids: Iterable[int]) -> dict[int, Doc]:
        with self._lock:
            return {r: self._docs[r] for r in rowids if r in self._docs}

    def docs_by_id(self, ids: Iterable[str]) -> dict[str, Doc]:
        with self._lock:
            return {i: self._docs[self._by_id[i]] for i in ids if i in self._by_id}

    def entity_facts(self, entity: str, limit: int = 10) -> list[str]:
        with self._lock:
            found = sorted(
                d.id
                for d in self._docs.values()
                if d.kind == "fact" and entity in d.prov.get("entities", ())
            )
        return found[:limit]

    def _ordered_children(self, parent: str) -> list[Doc]:
        with self._lock:
            kids = [d for d in self._docs.values() if d.parent == parent]
        return sorted(kids, key=lambda d: (d.seq if d.seq is not None else -1, d.rowid or 0))

    def children(self, parent: str, limit: int = 200) -> list[Doc]:
        return self._ordered_children(parent)[:limit]

    def child_refs(self, parent: str, limit: int = 200) -> list[tuple[int, str]]:
        return [(d.rowid or 0, d.id) for d in self._ordered_children(parent)[:limit]]

    def window_ids(self, session_id: str, seq: int, before: int, after: int) -> list[str]:
        with self._lock:
            turns = sorted(
                (d for d in self._docs.values() if d.session_id == session_id and d.kind == "turn"),
                key=lambda d: d.seq or 0,
            )
        idx = next((i for i, d in enumerate(turns) if d.seq == seq), None)
        if idx is None:
            return []
        return [d.id for d in turns[max(0, idx - before) : idx + after + 1]]

    def latest(self, limit: int, kinds: Sequence[str]) -> list[Doc]:
        with self._lock:
            found = [d for d in self._docs.values() if d.kind in kinds and d.level != 1]
        found.sort(key=lambda d: (-(d.event_time or 0.0), -(d.rowid or 0)))
        return found[:limit]

    def in_period(self, start: float, end: float, kinds: Sequence[str], limit: int) -> list[Doc]:
        with self._lock:
            found = [
                d
                for d in self._docs.values()
                if d.kind in kinds
                and d.level != 1
                and d.event_time is not None
                and start <= d.event_time < end
            ]
        found.sort(key=lambda d: (-d.importance, d.event_time or 0.0, d.rowid or 0))
        return found[:limit]

    def latest_event_time(self) -> float | None:
        with self._lock:
            times = [
                d.event_time
                for d in self._docs.values()
                if d.event_time is not None and d.kind != "entity"
            ]
        return max(times) if times else None

    # ------------------------------------------------------------------ vectors

    def vector_count(self) -> int:
        with self._lock:
            return len(self._vecs)

    def dense(self, query_vec: np.ndarray, limit: int) -> list[tuple[int, float]]:
        with self._lock:
            if not self._vecs:
                return []
            rowids = np.fromiter(self._vecs, dtype=np.int64, count=len(self._vecs))
            matrix = np.stack(list(self._vecs.values()))
        with one_blas_thread():
            scores = matrix @ query_vec.astype(np.float32)
        return top_k(scores, rowids, limit)

    def centroid(self) -> np.ndarray | None:
        with self._lock:
            if not self._vecs:
                return None
            mean: np.ndarray = np.mean(np.stack(list(self._vecs.values())), axis=0)
            return mean.astype(np.float32)

    def vectors(self, rowids: Sequence[int]) -> dict[int, np.ndarray]:
        with self._lock:
            return {int(r): self._vecs[int(r)] for r in rowids if int(r) in self._vecs}

    def size_bytes(self) -> int:
        with self._lock:
            text = sum(len(d.text.encode()) for d in self._docs.values())
            return text + sum(v.nbytes for v in self._vecs.values())
