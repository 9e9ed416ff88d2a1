"""The ``Embedder`` Protocol every sentence embedder satisfies, and a row normaliser.

An embedder turns texts into float32 unit vectors of a fixed width, so that a dot product is a
cosine similarity. Stores persist ``name`` beside the vectors: vectors from two different
embedders are not comparable, and a changed name means the vector index must be rebuilt.

>>> import numpy as np
>>> l2_normalize(np.array([[3.0, 4.0]])).tolist()
[[0.6000000238418579, 0.800000011920929]]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from ..errors import InvalidInput, StorageError

__all__ = [
    "Embedder",
    "check_texts",
    "encode_chunked",
    "encode_queries",
    "l2_normalize",
    "one_blas_thread",
]


@runtime_checkable
class Embedder(Protocol):
    """Texts in, float32 ``(n, dim)`` rows of unit length out.

    ``encode([])`` returns an empty ``(0, dim)`` array. Implementations must be safe to call from
    several threads at once, and must never download anything at run time.

    >>> from ogmemory.embed import make_embedder
    >>> emb = make_embedder("use")
    >>> emb.encode(["hello", "bonjour"]).shape          # doctest: +SKIP
    (2, 512)
    """

    name: str
    dim: int

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]: ...


def l2_normalize(rows: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """Rows scaled to unit length as float32; an all-zero row stays zero (no division by zero).

    >>> l2_normalize([[0.0, 0.0]]).tolist()
    [[0.0, 0.0]]
    """
    arr = np.asarray(rows, dtype=np.float32)
    if arr.ndim != 2:
        raise InvalidInput(f"expected a 2-D array of vectors, got shape {arr.shape}")
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    norms[norms == 0.0] = 1.0
    out: npt.NDArray[np.float32] = (arr / norms).astype(np.float32, copy=False)
    return out


def check_texts(texts: Sequence[str]) -> list[str]:
    """``texts`` as a list, or ``InvalidInput`` if it is a bare string or holds a non-string.

    A bare ``str`` is a ``Sequence[str]`` of characters, which is never what a caller means.

    >>> check_texts(("a", "b"))
    ['a', 'b']
    """
    if isinstance(texts, (str, bytes)):
        raise InvalidInput("encode() takes a sequence of texts, not a single string")
    out = list(texts)
    for i, text in enumerate(out):
        if not isinstance(text, str):
            raise InvalidInput(f"text #{i} is a {type(text).__name__}, not a str")
    return out


def encode_chunked(
    texts: Sequence[str],
    encode: Callable[[list[str]], npt.ArrayLike],
    *,
    dim: int,
    batch_size: int,
    model: str,
) -> npt.NDArray[np.float32]:
    """``texts`` checked, encoded ``batch_size`` at a time by ``encode`` (which the caller runs
    under its own lock), shape-checked against ``dim`` and normalised to unit rows.

    >>> encode_chunked(["a", "b", "c"], lambda chunk: [[1.0, 1.0]] * len(chunk), dim=2,
    ...                batch_size=2, model="toy").shape
    (3, 2)
    """
    batch = check_texts(texts)
    if not batch:
        return np.zeros((0, dim), dtype=np.float32)
    parts = [
        np.asarray(encode(batch[start : start + batch_size]), dtype=np.float32).reshape(
            len(batch[start : start + batch_size]), -1
        )
        for start in range(0, len(batch), batch_size)
    ]
    out = parts[0] if len(parts) == 1 else np.concatenate(parts, axis=0)
    if out.shape != (len(batch), dim):
        raise StorageError(
            f"{model} model returned shape {out.shape}, expected {(len(batch), dim)}"
        )
    return l2_normalize(out)


def encode_queries(embedder: Embedder, texts: Sequence[str]) -> npt.NDArray[np.float32]:
    """``texts`` embedded as questions: ``encode_query`` where the model has one (retrieval
    models such as E5 embed a question differently from the passages it should find), else
    ``encode``."""
    encode = getattr(embedder, "encode_query", embedder.encode)
    out: npt.NDArray[np.float32] = encode(texts)
    return out


_BLAS: Any = None


def one_blas_thread() -> Any:
    """BLAS limited to the calling thread for one product. A matrix-vector product is bound by
    memory, not arithmetic, and BLAS worker threads that spin beside the OpenMP threads of the
    embedder (two busy-waiting pools on few cores) stall each other: p95 5 ms -> 100 ms."""
    global _BLAS
    if _BLAS is None:
        from threadpoolctl import ThreadpoolController

        _BLAS = ThreadpoolController()
    return _BLAS.limit(limits=1, user_api="blas")
