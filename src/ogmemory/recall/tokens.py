"""Token counting for budgets: o200k_base (the GPT-4o family tokenizer), offline."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..limits import TOKEN_CHUNK_CHARS, text_chunks

__all__ = ["count_tokens"]


@lru_cache(maxsize=1)
def _encoding() -> Any:
    import bpe_openai

    return bpe_openai.get_encoding("o200k_base")


def count_tokens(text: str) -> int:
    """Tokens of ``text`` under o200k_base, counted in slices of ``limits.TOKEN_CHUNK_CHARS``
    characters: the tokenizer refuses a whole long message, and a cut inside a word can only
    count one token more.

    >>> count_tokens("hello world")
    2
    """
    encoding = _encoding()
    if len(text) <= TOKEN_CHUNK_CHARS:
        return len(encoding.encode_ordinary(text))
    return sum(len(encoding.encode_ordinary(part)) for part in text_chunks(text))
