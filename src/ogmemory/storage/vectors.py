"""Vectors in memory for brute-force search: rows appended in place, a top-k by dot product.

Unit vectors make the dot product a cosine. ``rows`` is a view of the first rows of a buffer
with spare capacity, so new vectors are appended without copying every vector on each search
after a write. The running sum gives the centroid (a query's mean cosine to everything).
"""

from __future__ import annotations

import numpy as np

from ..embed.base import one_blas_thread

__all__ = ["VectorMatrix", "top_k"]


class VectorMatrix:
    """Appendable ``(n, dim)`` float32 rows with their document rowids. Not thread-safe: the
    owning store serialises access."""

    def __init__(self) -> None:
        self._buf = np.zeros((0, 0), dtype=np.float32)
        self._ids_buf = np.zeros(0, dtype=np.int64)
        self.rows = self._buf
        self.rowids = self._ids_buf
        self._sum: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.rows)

    def append(self, block: np.ndarray, ids: np.ndarray, hint: int = 0) -> None:
        """Add ``block`` (one row per id); ``hint``: how many more rows are coming in all."""
        n, dim = len(self.rows), block.shape[1]
        if n and dim != self._buf.shape[1]:
            raise ValueError(
                f"vectors of dimension {dim} next to vectors of dimension "
                f"{self._buf.shape[1]}: reindex with one embedder"
            )
        if len(self._buf) < n + len(block) or self._buf.shape[1] != dim:
            capacity = max(n + len(block), n + hint, len(self._buf) * 3 // 2, 1024)
            buf = np.empty((capacity, dim), dtype=np.float32)
            ids_buf = np.empty(capacity, dtype=np.int64)
            if n:
                buf[:n] = self.rows
                ids_buf[:n] = self.rowids
            self._buf, self._ids_buf = buf, ids_buf
        self._buf[n : n + len(block)] = block
        self._ids_buf[n : n + len(block)] = ids
        total = block.sum(axis=0, dtype=np.float64)
        self._sum = total if self._sum is None else self._sum + total
        self.rows = self._buf[: n + len(block)]
        self.rowids = self._ids_buf[: n + len(block)]

    def centroid(self) -> np.ndarray | None:
        """The mean row (``None`` while empty)."""
        if self._sum is None or not len(self.rows):
            return None
        mean: np.ndarray = (self._sum / len(self.rows)).astype(np.float32)
        return mean

    def top(self, query: np.ndarray, limit: int) -> list[tuple[int, float]]:
        """``(rowid, score)`` best first; a rowid stored twice (re-embedded) counts once."""
        if self.rows.size == 0:
            return []
        with one_blas_thread():
            scores = self.rows @ query.astype(np.float32)
        return top_k(scores, self.rowids, limit)


def top_k(scores: np.ndarray, rowids: np.ndarray, limit: int) -> list[tuple[int, float]]:
    """``(rowid, score)`` of the ``limit`` best scores, best first; equal scores in rowid order
    (a rowid listed twice counts once, at its best).

    The order of equal scores must not depend on the order the vectors arrived in: identical
    texts (a statement repeated in four sessions) have identical vectors, and an index whose
    embedding jobs ran in another order (a worker killed mid-batch, its jobs reclaimed later)
    must still give the same results as one rebuilt without interruption.

    >>> top_k(np.array([0.5, 0.9, 0.5, 0.5]), np.array([7, 3, 5, 6]), 3)
    [(3, 0.9), (5, 0.5), (6, 0.5)]
    """
    if limit < 1 or not len(scores):
        return []
    k = min(limit * 2, len(scores))  # spare room for rowids stored twice
    kth = np.partition(scores, len(scores) - k)[len(scores) - k]
    best = np.flatnonzero(scores >= kth)  # every score tied with the k-th is a candidate
    best = best[np.lexsort((rowids[best], -scores[best]))]
    out: list[tuple[int, float]] = []
    seen: set[int] = set()
    for i in best:
        rowid = int(rowids[i])
        if rowid not in seen:
            seen.add(rowid)
            out.append((rowid, float(scores[i])))
        if len(out) >= limit:
            break
    return out
