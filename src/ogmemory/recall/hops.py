"""Rankings fused beside recall's first search (``candidates``), each off unless its weight is
set: what a question about someone ranks among what is about them (``subject_weight``), and a
second hop through the names the first pass's best documents mention (``hop_weight``).

>>> sorted(named("Did Jon and Gina both go to Maya's party?"))
['gina', 'jon', 'maya']
>>> sorted(mentioned("[day 3] Ana: Then Biscuit and I met Rex at the park. Loved it!"))
['biscuit', 'rex']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from ..index.docs import Doc
from ..index.text import STOPWORDS
from ..storage.protocols import IndexStore
from .config import RecallConfig

if TYPE_CHECKING:
    from .candidates import Ask

__all__ = ["add_ranking", "asks_several", "deep_rankings", "for_question", "mentioned", "named"]

#: a question asking for several things: "What kinds of ...", "What books have ...", "What
#: are some ...", "How many ..."
_SEVERAL = re.compile(
    r"^(?:what|which)\s+(?:kinds?|types?|sorts?)\s+of\b"
    r"|^(?:what|which)\s+(?:\w+\s+)?\w+s\s+(?:has|have|do|does|did|are|were)\b"
    r"|^what\s+(?:are|were)\s+(?:some|the)\b|^how\s+many\b",
    re.IGNORECASE,
)


def asks_several(query: str) -> bool:
    """Whether a question asks for several things (its answer is spread, often over many
    sessions) rather than one."""
    return bool(_SEVERAL.search(query.strip()))


def for_question(config: RecallConfig, query: str) -> RecallConfig:
    """``config`` as it applies to ``query``: a question asking for several things gets the
    wider pool of ``several_candidates`` and ``several_subject_weight`` when they are set."""
    if not (config.several_candidates or config.several_subject_weight) or not asks_several(query):
        return config
    return replace(
        config,
        candidates=config.several_candidates or config.candidates,
        subject_weight=config.several_subject_weight or config.subject_weight,
    )


#: a name in a question: a capitalised word after its first (``"What does Maya ..."``)
_NAME = re.compile(r"(?<=\s)[A-Z][\w'’-]*")
#: a name inside a text: a capitalised word that does not start a sentence
_INNER_NAME = re.compile(r"(?<=[^.!?:\s\]…] )[A-Z][a-z][\w'’-]*")
_WORDS = re.compile(r"\w+")
_SPEAKER = re.compile(r"^(?:\[[^\]]*\]\s*)?[^:\n]{1,40}:\s")


def _bare(word: str) -> str:
    return re.sub(r"['’]s?$", "", word).lower()


def named(query: str) -> set[str]:
    """The names a question mentions (lower case, without a possessive): capitalised words
    other than its first."""
    names = {_bare(m.group(0)) for m in _NAME.finditer(query)}
    return {n for n in names if len(n) > 1 and n not in STOPWORDS}


def mentioned(text: str) -> set[str]:
    """The names a text mentions (lower case): capitalised words inside its sentences, after
    the ``[date] Speaker:`` a turn starts with."""
    body = _SPEAKER.sub("", text, count=1)
    names = {_bare(m.group(0)) for m in _INNER_NAME.finditer(body)}
    return {n for n in names if len(n) > 1 and n not in STOPWORDS}


def _about(d: Doc, names: set[str]) -> bool:
    """Whether a document is about one of ``names``: a turn they said (not one said to them),
    or knowledge that names them."""
    if d.kind == "turn":
        return str(d.prov.get("speaker", "")).lower() in names
    return bool(names & set(_WORDS.findall(d.text.lower())))


def add_ranking(
    ranks: dict[int, float],
    ranking: Sequence[int],
    docs: dict[int, Doc],
    config: RecallConfig,
    weight: float,
) -> None:
    """A ranking of rowids fused into ``ranks`` by reciprocal rank at ``weight``; knowledge
    overviews (L1) are ranked among themselves at ``overview_weight`` (see
    ``CandidateSearch._fuse``)."""
    place = {False: 0, True: 0}
    for rowid in ranking:
        d = docs.get(rowid)
        if d is None:
            continue
        overview = d.level == 1 and d.kind != "session"
        share = config.overview_weight if overview else 1.0
        rank = place[overview]
        place[overview] += 1
        ranks[rowid] = ranks.get(rowid, 0.0) + weight * share / (config.rrf_k + rank + 1)


def deep_rankings(
    store: IndexStore,
    ask: Ask,
    docs: dict[int, Doc],
    ranks: dict[int, float],
    lent: Callable[[list[tuple[int, float]], dict[int, Doc]], list[int]],
) -> None:
    """The rankings of this module fused into ``ranks`` (``docs`` gains what they read);
    ``lent`` ranks vector hits as the turns they lift."""
    config = ask.config
    if config.hop_weight:
        _second_hop(store, ask, docs, ranks)
    if not config.subject_weight or ask.qvec is None or not (names := named(ask.query)):
        return
    # What someone did ranks among what they did, not among what anyone did alike: the
    # vector ranking of what is about them, read ``subject_depth`` deep.
    hits = store.dense(ask.qvec, config.subject_depth)
    docs.update(store.docs([r for r, _ in hits if r not in docs]))
    about = [(r, s) for r, s in hits if r in docs and _about(docs[r], names)]
    ask.stats["subject"] = sorted(names)
    add_ranking(ranks, lent(about, docs), docs, config, config.subject_weight)


def _second_hop(store: IndexStore, ask: Ask, docs: dict[int, Doc], ranks: dict[int, float]) -> None:
    """The names the first pass's best documents mention and the question does not ("What
    has Ana done with her dogs?" -> the dogs' names in her best turns) searched in full text:
    what else is said of them is the next hop of the question."""
    config = ask.config
    best = sorted((r for r in ranks if r in docs and ask.visible(docs[r])), key=lambda r: -ranks[r])
    asked = ask.qwords | named(ask.query)
    speakers = {str(d.prov.get("speaker", "")).lower() for d in docs.values() if d.kind == "turn"}
    found: dict[str, None] = {}
    for r in best[: config.hop_seeds]:
        for name in sorted(mentioned(docs[r].text) - asked - speakers):
            found.setdefault(name, None)
    if not found:
        return
    names = list(found)
    ask.stats["hop"] = names
    hits = store.text_search(names, [], config.fts_limit)
    docs.update(store.docs([r for r, _ in hits if r not in docs]))
    add_ranking(ranks, [r for r, _ in hits], docs, config, config.hop_weight)
