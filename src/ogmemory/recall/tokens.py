"""Token counting for budgets: o200k_base (the GPT-4o family tokenizer), offline."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

__all__ = ["count_tokens"]


@lru_cache(maxsize=1)
def _encoding() -> Any:
    import bpe_openai

    return bpe_openai.get_encoding("o200k_base")


def count_tokens(text: str) -> int:
    """Tokens of ``text`` under o200k_base.

    >>> count_tokens("hello world")
    2
    """
    return len(_encoding().encode_ordinary(text))
