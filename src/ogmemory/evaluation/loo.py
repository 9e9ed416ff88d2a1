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

__all__ = ["VARIANTS", "leave_one_out", "loo_table", "variants"]

_DEFAULT = RECIPES["default"]


def variants(base: RecallConfig = _DEFAULT, prefix: str = "") -> dict[str, RecallConfig]:
    """``base`` (named ``<prefix>default``) and one setting of it moved one step either way
    (``<prefix>window=1``, ...); the vector ranking's own settings when it lends (``lend``).
    Two prefixes in one run compare two families of settings on the same questions."""
    moves: dict[str, dict[str, Any]] = {
        "window": {"window": (1, 3)},
        "speaker": {"speaker_weight": (0.0, 0.6)},
        "mmr": {"mmr": (0.3, 0.5)},
        "session_children": {"session_children": (0, 4)},
        "whole_items": {"whole_items": (3, 8)},
        "max_routes": {"max_routes": (2, 8)},
    }
    if base.lend:
        moves |= {
            "lend_alpha": {"lend_alpha": (0.15, 0.5)},
            "dense_limit": {"dense_limit": (120, 300)},
        }
    out = {f"{prefix}default": base}
    for label, change in moves.items():
        ((field_name, steps),) = change.items()
        for step in steps:
            out[f"{prefix}{label}={step:g}"] = replace(base, **{field_name: step})
    return out


#: One setting moved one step either way; the default is "default".
VARIANTS: dict[str, RecallConfig] = variants()


def _score(rows: list[Any], cats: tuple[int, ...]) -> float:
    chosen = [r.recall for r in rows if r.category in cats]
    return statistics.fmean(chosen) if chosen else 0.0


def leave_one_out(data: Path, **kwargs: Any) -> LocomoReport:
    """Run LoCoMo with every variant (see ``VARIANTS``)."""
    return run_locomo(data, baselines=False, configs=VARIANTS, **kwargs)


def loo_table(
    report: LocomoReport, prefix: str = ""
) -> list[tuple[str, str, float, float, float, float]]:
    """``(held out, chosen, chosen 1-4, default 1-4, chosen multi-hop, default multi-hop)``,
    chosen among the systems named ``ogmemory[<prefix>...]`` (``variants(base, prefix)``)."""
    out = []
    samples = sorted(report.by_sample)
    family = f"ogmemory[{prefix}"
    for held in samples:
        others = [s for s in samples if s != held]

        def train_score(system: str, others: list[str] = others) -> float:
            rows = [r for s in others for r in report.by_sample[s].get(system, [])]
            return _score(rows, (1, 2, 3, 4))

        systems = sorted(s for s in report.by_sample[held] if s.startswith(family))
        default_name = f"{family}default]"
        chosen = max(systems, key=lambda s: (train_score(s), s == default_name))
        held_rows = report.by_sample[held]
        default = held_rows[default_name]
        out.append(
            (
                held,
                chosen.removeprefix(family).removesuffix("]"),
                _score(held_rows[chosen], (1, 2, 3, 4)),
                _score(default, (1, 2, 3, 4)),
                _score(held_rows[chosen], (1,)),
                _score(default, (1,)),
            )
        )
    return out
