"""Token counting for budgets: o200k_base (the GPT-4o family tokenizer), offline."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import logging
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from ..limits import TOKEN_CHUNK_CHARS, text_chunks

__all__ = ["count_tokens"]

log = logging.getLogger(__name__)


@lru_cache(maxsize=1)
def _counter() -> Callable[[str], int]:
    """o200k_base token counts from bpe_openai's Rust tokenizer, loaded by itself: importing
    the ``bpe_openai`` package first decodes three tokenizer tables in Python, 1-3 s in every
    new process (a CLI call, a Claude Code hook); the Rust tokenizer alone loads in 0.1 s and
    counts the same. Falls back to the package's API if the extension cannot be loaded."""
    try:
        spec = importlib.util.find_spec("bpe_openai")
        folder = Path(next(iter(spec.submodule_search_locations or ()))) if spec else None
        so = next(folder.glob("_bindings*.so")) if folder else None
        if so is not None:
            loader = importlib.machinery.ExtensionFileLoader("bpe_openai._bindings", str(so))
            module = importlib.util.module_from_spec(
                importlib.util.spec_from_file_location("bpe_openai._bindings", so, loader=loader)
                or importlib.machinery.ModuleSpec("bpe_openai._bindings", loader)
            )
            loader.exec_module(module)
            count: Callable[[str], int] = module.tokenizer_for_encoding("o200k_base").count
            return count
    except (ImportError, OSError, StopIteration, AttributeError) as exc:
        log.info("bpe_openai's Rust tokenizer not loadable directly (%s); using its API", exc)
    import bpe_openai

    encoding = bpe_openai.get_encoding("o200k_base")
    return lambda text: len(encoding.encode_ordinary(text))


#: Counts of recently counted texts (a text of at most ``_KEPT_CHARS`` characters), at most
#: ``_KEPT`` of them: packing counts every rendered item and, for the items shown as excerpts,
#: every sentence of their turns, ~280 counts per recall on a LoCoMo conversation, and 88% of
#: them repeat across 100 of its distinct questions (the same turns and sentences recalled).
_KEPT = 8192
_KEPT_CHARS = 2000
_kept: dict[str, int] = {}


def count_tokens(text: str) -> int:
    """Tokens of ``text`` under o200k_base, counted in slices of ``limits.TOKEN_CHUNK_CHARS``
    characters: the tokenizer refuses a whole long message, and a cut inside a word can only
    count one token more.

    >>> count_tokens("hello world")
    2
    """
    if not text:
        return 0
    known = _kept.get(text)
    if known is not None:
        return known
    if len(text) > TOKEN_CHUNK_CHARS:
        return sum(count_tokens(part) for part in text_chunks(text))
    try:
        n = int(_counter()(text))
    except UnicodeEncodeError:  # lone surrogates: count them as replacement characters
        n = int(_counter()(text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")))
    if len(text) <= _KEPT_CHARS:
        if len(_kept) >= _KEPT:
            _kept.clear()  # (a dict's operations are atomic: threads share it safely)
        _kept[text] = n
    return n
