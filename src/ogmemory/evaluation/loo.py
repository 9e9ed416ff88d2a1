"""Choosing recall settings by leaving one conversation out (issue 15: hold on unseen data).

Every question is recalled with the default configuration and with variants that move one
setting one step either way. For each conversation held out, the configuration that scores
best (evidence recall, categories 1-4) on the *other* conversations is chosen, and its score on
the held-out conversation is what a setting chosen this way would give on data it was not
tuned on; beside it, the shipped default's score on the same conversation.
"""

from __future__ import annotations

import statistics
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..recall.config import RECIPES, RecallConfig
from .locomo import LocomoReport, run_locomo

__all__ = ["VARIANTS", "leave_one_out", "loo_table"]

_DEFAULT = RECIPES["default"]

#: One setting moved one step either way; the default is "default".
VARIANTS: dict[str, RecallConfig] = {
    "default": _DEFAULT,
    "window=1": replace(_DEFAULT, window=1),
    "window=3": replace(_DEFAULT, window=3),
    "speaker=0": replace(_DEFAULT, speaker_weight=0.0),
    "speaker=0.6": replace(_DEFAULT, speaker_weight=0.6),
    "mmr=0": replace(_DEFAULT, mmr=0.0),
    "mmr=0.7": replace(_DEFAULT, mmr=0.7),
    "session_children=0": replace(_DEFAULT, session_children=0),
    "session_children=4": replace(_DEFAULT, session_children=4),
    "whole_items=3": replace(_DEFAULT, whole_items=3),
    "whole_items=8": replace(_DEFAULT, whole_items=8),
    "max_routes=2": replace(_DEFAULT, max_routes=2),
    "max_routes=8": replace(_DEFAULT, max_routes=8),
    "lend_alpha=0.15": replace(_DEFAULT, lend_alpha=0.15),
    "lend_alpha=0.5": replace(_DEFAULT, lend_alpha=0.5),
    "dense_limit=120": replace(_DEFAULT, dense_limit=120),
    "dense_limit=300": replace(_DEFAULT, dense_limit=300),
}


def _score(rows: list[Any], cats: tuple[int, ...]) -> float:
    chosen = [r.recall for r in rows if r.category in cats]
    return statistics.fmean(chosen) if chosen else 0.0


def leave_one_out(data: Path, **kwargs: Any) -> LocomoReport:
    """Run LoCoMo with every variant (see ``VARIANTS``)."""
    return run_locomo(data, baselines=False, configs=VARIANTS, **kwargs)


def loo_table(report: LocomoReport) -> list[tuple[str, str, float, float, float, float]]:
    """``(held out, chosen, chosen 1-4, default 1-4, chosen multi-hop, default multi-hop)``."""
    out = []
    samples = sorted(report.by_sample)
    for held in samples:
        others = [s for s in samples if s != held]

        def train_score(system: str, others: list[str] = others) -> float:
            rows = [r for s in others for r in report.by_sample[s].get(system, [])]
            return _score(rows, (1, 2, 3, 4))

        systems = sorted(report.by_sample[held])
        chosen = max(systems, key=lambda s: (train_score(s), s == "ogmemory[default]"))
        held_rows = report.by_sample[held]
        default = held_rows["ogmemory[default]"]
        out.append(
            (
                held,
                chosen.removeprefix("ogmemory[").removesuffix("]"),
                _score(held_rows[chosen], (1, 2, 3, 4)),
                _score(default, (1, 2, 3, 4)),
                _score(held_rows[chosen], (1,)),
                _score(default, (1,)),
            )
        )
    return out
