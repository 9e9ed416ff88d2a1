"""Local sentence embedders: the ``Embedder`` Protocol, ``E5Embedder``, ``USEEmbedder`` and
``make_embedder``.

Embeddings are local only, from a package that ships its weights; "none" is a valid setting
(then the index is full-text only). An embedder may also offer ``encode_query`` for models that
embed questions differently from the passages they should find (E5 does).

>>> make_embedder("none") is None
True
>>> make_embedder().dim
384
>>> make_embedder("use").dim
512
"""

from __future__ import annotations

from ..errors import InvalidInput
from .base import Embedder, encode_queries, l2_normalize
from .e5 import E5Embedder
from .use import USEEmbedder

__all__ = [
    "EMBEDDER_NAMES",
    "E5Embedder",
    "Embedder",
    "USEEmbedder",
    "encode_queries",
    "l2_normalize",
    "make_embedder",
]

#: Names ``make_embedder`` accepts (case-insensitive).
EMBEDDER_NAMES: tuple[str, ...] = ("e5", "use", "none")

_ALIASES = {
    "use": "use",
    USEEmbedder.name: "use",
    "e5": "e5",
    E5Embedder.name: "e5",
    "none": "none",
}


def make_embedder(name: str | None = "e5") -> Embedder | None:
    """The embedder called ``name``: ``"e5"`` (default), ``"use"``, or ``"none"``/``None`` for
    no vectors.

    Building an embedder is cheap; the model loads on the first ``encode``. Any other name
    raises ``InvalidInput`` listing the valid ones.

    >>> make_embedder(None) is None
    True
    >>> make_embedder("word2vec")
    Traceback (most recent call last):
    ...
    ogmemory.errors.InvalidInput: unknown embedder 'word2vec': choose one of 'e5', 'use', 'none'
    """
    if name is None:
        return None
    if not isinstance(name, str):
        raise InvalidInput(f"embedder name must be a string or None, got {type(name).__name__}")
    kind = _ALIASES.get(name.strip().lower())
    if kind == "use":
        return USEEmbedder()
    if kind == "e5":
        return E5Embedder()
    if kind == "none":
        return None
    choices = ", ".join(repr(n) for n in EMBEDDER_NAMES)
    raise InvalidInput(f"unknown embedder {name!r}: choose one of {choices}")
