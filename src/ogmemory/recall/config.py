"""Retrieval settings (seed 003): one frozen config object with named recipes, and the bounds of
a recall budget — the one home of both.

>>> RECIPES["fulltext"].use_dense
False
>>> check_budget(2000)
2000
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InvalidInput

__all__ = ["BUDGET_DEFAULT", "BUDGET_MAX", "BUDGET_MIN", "RECIPES", "RecallConfig", "check_budget"]

#: Tokens (o200k_base) of the context a recall may fill: the default and the bounds.
BUDGET_DEFAULT = 2000
BUDGET_MIN = 50
BUDGET_MAX = 100_000


def check_budget(budget: object, name: str = "budget") -> int:
    """``budget`` if it is an integer within the bounds, else ``InvalidInput`` naming them."""
    if (
        not isinstance(budget, int)
        or isinstance(budget, bool)
        or not BUDGET_MIN <= budget <= BUDGET_MAX
    ):
        raise InvalidInput(
            f"{name} must be an integer between {BUDGET_MIN} and {BUDGET_MAX} "
            f"tokens, not {budget!r}"
        )
    return budget


@dataclass(frozen=True)
class RecallConfig:
    """Retrieval settings; ``RECIPES`` names the useful combinations."""

    candidates: int = 30
    top: int = 20
    fts_limit: int = 60
    dense_limit: int = 200  # lend: one vector search this deep (abstraction levels repeat)
    rrf_k: float = 60.0
    alpha: float = 0.6  # child weight in final = α·child + (1−α)·parent
    window: int = 2  # turns on each side of a turn
    max_cites: int = 3  # an item cites at most this many turns
    recency_weight: float = 0.1
    importance_weight: float = 0.2
    time_weight: float = 0.6
    superseded_penalty: float = 0.5
    speaker_weight: float = 0.3  # a turn said by someone the question names
    excerpt_tokens: int = 30  # longer turns show their most relevant sentences (0: whole)
    mmr: float = 0.0  # candidates: weight of novelty against relevance (0: ranking order)
    overview_weight: float = 0.5  # of memory/event/fact/entity L1 overviews in the fusion
    max_routes: int = 4  # of the candidates, session and entity abstracts (they only route)
    session_children: int = 2  # a session hit opens this many of its turns nearest the query
    whole_items: int = 5  # the best items show their turns whole (no excerpts)
    # How an item reads. A ranked turn of the item's session joins it only within ``reach``
    # people's turns of its first one (None: at any distance, with a skip line between); its
    # neighbours fill it up to ``max_cites`` (``fill``); the best ``whole_items`` show up to
    # ``context_turns`` uncited turns that make the cited ones readable (the question one
    # answers, the reply to one that asks); a note from a memory stands only beside the turn
    # that says it (``notes_by_carrier``); each item opens with a numbered header line and
    # stands a blank line from the next (``headers``; off: the day before its first turn, the
    # pointer after its last, items a line apart); a skip line says whose turns it skips
    # (``skip_speakers``). The items7 round turned the last four on (the recipe "dialogue");
    # leaving one LoCoMo dev conversation out chose all four off on two folds and all but the
    # headers on the third (pooled 1-4 / multi-hop 0.929 / 0.814 against 0.920 / 0.780,
    # 1,762 against 1,873 tokens per answer; the recall8 round).
    # ``reach`` None was chosen on the dev file (reach 2: 0.902 / 0.739, any 0.923 / 0.780).
    reach: int | None = None
    fill: bool = True
    context_turns: int = 0
    notes_by_carrier: bool = False
    headers: bool = False
    skip_speakers: bool = False
    # a turn rides with an item's first turn only standing at least this share of its height
    # above the question's background (0: any turn of the session), unless it is within
    # ``free_neighbours`` turns of it
    companion_share: float = 0.0
    free_neighbours: int = 2
    use_dense: bool = True
    dense_weight: float = 1.0  # weight of the vector ranking in the fusion (full text: 1)
    dense_units: int = 60  # of the vector ranking, fused (without lend: the search's depth)
    lend: bool = True  # the vector ranking ranks turns lifted by their abstractions (``lend``)
    lend_alpha: float = 0.3  # a turn's vector score: α·own + (1−α)·max(own, best abstraction)
    # a question about someone it names: the vector ranking of what mentions them (read
    # ``subject_depth`` deep), fused at this weight (0: none)
    subject_weight: float = 0.0
    subject_depth: int = 600
    # a second hop: the names the first pass's ``hop_seeds`` best documents mention (and the
    # question does not) searched in full text, fused at this weight (0: none)
    hop_weight: float = 0.0
    hop_seeds: int = 5
    # a question asking for several things ("What activities has Ana done?", "How many
    # times ...?"): this many candidates and this subject weight instead (0: unchanged).
    # Chosen leaving one of four LoCoMo conversations out (every fold): pooled 1-4 / multi-hop
    # 0.889 / 0.697 -> 0.894 / 0.731
    several_candidates: int = 60
    several_subject_weight: float = 0.5
    common_share: float = 0.03  # in large indexes, full text skips words in more docs than this
    common_min_docs: int = 20_000  # ... from this many documents on
    expand: bool = True
    abstain: bool = True  # return nothing when nothing passes the embedder's relevance floor
    # an answer ends where its items fall below this share of the best one's score (0: no cut;
    # ``top`` and the budget bound it anyway)
    relative_cut: float = 0.3


RECIPES: dict[str, RecallConfig] = {
    "default": RecallConfig(),
    "fulltext": RecallConfig(use_dense=False),
    "flat": RecallConfig(expand=False, window=0),
    "everything": RecallConfig(abstain=False),  # never abstains: the best there is
    # items as dialogue (the items7 round): a header line each, the question a cited turn
    # answers beside it, notes beside their own turn, skip lines by speaker
    "dialogue": RecallConfig(
        context_turns=2, notes_by_carrier=True, headers=True, skip_speakers=True
    ),
}
