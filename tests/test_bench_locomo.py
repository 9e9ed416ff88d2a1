"""The LoCoMo harness: a kept home is reused as it is, and the leave-one-out table chooses
settings on the other conversations."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any

from ogmemory import Settings
from ogmemory.evaluation.locomo import locomo_memory, run_locomo
from ogmemory.evaluation.loo import VARIANTS, leave_one_out, loo_table, variants
from ogmemory.recall.config import RECIPES


def _samples() -> list[dict[str, Any]]:
    ref = resources.files("ogmemory").joinpath("data", "sample_locomo.json")
    with resources.as_file(ref) as path:
        sample = json.loads(path.read_text(encoding="utf-8"))[0]
    out = []
    for name in ("conv-a", "conv-b", "conv-c"):
        copy_ = copy.deepcopy(sample)
        copy_["sample_id"] = name
        out.append(copy_)
    return out


def _sessions_state(home: Path) -> dict[str, float]:
    """Every file of the tenants' session records, with its modification time."""
    root = home / "tenants" / "locomo"
    return {
        str(p.relative_to(root)): p.stat().st_mtime_ns
        for p in root.rglob("*")
        if p.is_file() and "/sessions/" in str(p)
    }


def test_a_kept_home_is_reused_without_ingesting_again(tmp_path: Path) -> None:
    data = tmp_path / "data.json"
    data.write_text(json.dumps(_samples()[:2]), encoding="utf-8")
    home = tmp_path / "home"
    settings = Settings(home=home, embedder="none")
    first = run_locomo(data, home=home, settings=settings, baselines=False)
    files = _sessions_state(home)
    assert files  # the record is on disk
    with locomo_memory(_samples()[0], home, settings) as mem:
        batches = len(mem.batches())
        docs = mem.index_stats()["documents"]
    second = run_locomo(data, home=home, settings=settings, baselines=False)
    assert _sessions_state(home) == files  # nothing of the record written again
    with locomo_memory(_samples()[0], home, settings) as mem:
        assert len(mem.batches()) == batches  # no new distillation batch
        assert mem.index_stats()["documents"] == docs
    assert [r.recall for r in second.rows["ogmemory"]] == [r.recall for r in first.rows["ogmemory"]]
    assert first.setup.keys() == second.setup.keys() == {"conv-a", "conv-b"}


def test_leave_one_out_scores_each_conversation_with_settings_chosen_on_the_others(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data.json"
    data.write_text(json.dumps(_samples()), encoding="utf-8")
    report = leave_one_out(
        data, home=tmp_path / "home", settings=Settings(home=tmp_path / "home", embedder="none")
    )
    assert set(report.by_sample) == {"conv-a", "conv-b", "conv-c"}
    assert set(report.by_sample["conv-a"]) == {f"ogmemory[{v}]" for v in VARIANTS}
    rows = loo_table(report)
    assert [r[0] for r in rows] == ["conv-a", "conv-b", "conv-c"]
    for _held, chosen, c14, d14, cmh, dmh in rows:
        assert chosen in VARIANTS
        assert all(0.0 <= x <= 1.0 for x in (c14, d14, cmh, dmh))


def test_two_families_of_settings_are_chosen_each_among_its_own(tmp_path: Path) -> None:
    data = tmp_path / "data.json"
    data.write_text(json.dumps(_samples()[:2]), encoding="utf-8")
    docs = variants(replace(RECIPES["default"], lend=False), "docs:")
    turns = variants(RECIPES["default"], "turns:")
    assert "docs:lend_alpha=0.5" not in docs and "turns:lend_alpha=0.5" in turns
    assert turns["turns:window=1"] == replace(RECIPES["default"], window=1)
    home = tmp_path / "home"
    report = run_locomo(
        data,
        home=home,
        settings=Settings(home=home, embedder="none"),
        baselines=False,
        configs=docs | turns,
    )
    for prefix, family in (("docs:", docs), ("turns:", turns)):
        rows = loo_table(report, prefix)
        assert [r[0] for r in rows] == ["conv-a", "conv-b"]
        for _held, chosen, *_ in rows:
            assert f"{prefix}{chosen}" in family
