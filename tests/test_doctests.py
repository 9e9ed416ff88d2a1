"""The examples in the package's docstrings run: every module whose source holds a ``>>>``
example is found in the source tree (not listed by hand) and its examples must pass."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

import ogmemory

_ROOT = Path(ogmemory.__file__).parent


def _modules() -> list[str]:
    out = []
    for path in sorted(_ROOT.rglob("*.py")):
        if ">>> " in path.read_text(encoding="utf-8"):
            rel = path.relative_to(_ROOT.parent).with_suffix("")
            out.append(".".join(rel.parts).removesuffix(".__init__"))
    return out


def test_the_source_tree_has_examples() -> None:
    assert len(_modules()) > 50


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples_pass(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), report=True)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed"
