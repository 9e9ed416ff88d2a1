"""Text for the full-text index: jieba words for Chinese, plus single CJK characters.

FTS5's unicode61 tokenizer splits on spaces and punctuation, which suits English but leaves a
run of Chinese as one token. We index Chinese as jieba words (space-separated) in the ``body``
column and as single characters in the ``cjk`` column, so that both a word query ("喝茶") and a
single-character query ("茶") find their text.
"""

from __future__ import annotations

import logging
import re
import threading
from functools import lru_cache

__all__ = ["fts_columns", "query_terms"]

_CJK_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
_CJK_CHAR = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_WORD = re.compile(r"[^\W_]+(?:['’.][^\W_]+)*", re.UNICODE)
_jieba_lock = threading.Lock()
_jieba_ready = False

STOPWORDS = frozenset(
    """
a an the and or but if of to in on at by for with about from into over after before as is are was
were be been being am do does did doing have has had having i me my we our you your he him his she
her it its they them their what which who whom whose when where why how this that these those
there here than then so not no can could would should will shall may might must just also any all
some such very too more most much many s t don didn doesn isn wasn weren aren won wouldn ll ve re
d m o y ain hey hi hello oh yeah yes okay ok wow really
的 了 是 在 我 你 他 她 它 们 和 也 都 就 还 吗 呢 吧 啊 这 那 有 个 一 不 没 很 又 与 及 或 被 把
""".split()
)


def _jieba_cut(text: str) -> list[str]:
    global _jieba_ready
    import jieba

    if not _jieba_ready:
        with _jieba_lock:
            if not _jieba_ready:
                jieba.setLogLevel(logging.WARNING)
                jieba.initialize()
                _jieba_ready = True
    return [w for w in jieba.cut_for_search(text) if w.strip()]


@lru_cache(maxsize=4096)
def _cut_run(run: str) -> tuple[str, ...]:
    return tuple(_jieba_cut(run))


def fts_columns(text: str) -> tuple[str, str]:
    """``(body, cjk)`` column values for one document."""
    if not _CJK_CHAR.search(text):
        return text, ""
    body = _CJK_RUN.sub(lambda m: " " + " ".join(_cut_run(m.group(0))) + " ", text)
    return body, " ".join(_CJK_CHAR.findall(text))


def query_terms(query: str) -> tuple[list[str], list[str]]:
    """``(words, cjk_chars)`` of a query: content words (stopwords dropped) and CJK characters."""
    words: list[str] = []
    chars: list[str] = []
    pos = 0
    for m in _CJK_RUN.finditer(query):
        words += _latin_terms(query[pos : m.start()])
        run = m.group(0)
        words += [w for w in _cut_run(run) if w not in STOPWORDS]
        chars += [c for c in run if c not in STOPWORDS]
        pos = m.end()
    words += _latin_terms(query[pos:])
    if any(len(w) > 1 and _CJK_CHAR.match(w) for w in words):
        # Chinese words were found: single characters would only add matches of common
        # characters (slow, and noise); they are for queries of one or two characters.
        chars = []
    return list(dict.fromkeys(words)), list(dict.fromkeys(chars))


def _latin_terms(text: str) -> list[str]:
    out = []
    for w in _WORD.findall(text.lower()):
        w = w.replace("’", "'")
        if w.endswith("'s"):
            w = w[:-2]
        if w and w not in STOPWORDS and (len(w) > 1 or w.isdigit()):
            out.append(w)
    return out
