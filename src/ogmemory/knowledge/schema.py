"""Memory types declared in YAML (seed 004, "YAML-driven schema").

A type says what it holds, its lifecycle (``append_only``: every fact a new record, history by
supersession; ``mutable``: one record per subject updated in place under a version check), which
entity type and relations it produces, its timeline kind, default importance and scope, and how
it is extracted: a hint for LLM extractors and, optionally, regex ``patterns`` that the rule
extractor applies. Adding a type is adding a YAML file, in the package's ``schemas/`` or in
``<home>/schemas/``::

    name: handoff
    description: Work handed over to someone else.
    lifecycle: append_only
    entity_type: person
    relations: [handed_off_to]
    timeline_kind: work
    extract:
      hint: Work the user hands over to a colleague.
      patterns:
        - regex: "(?i)\\bhand(?:ing|ed)? (?:it |this )?(?:off|over) to (?P<object>[A-Z][a-z]+)"
          relation: handed_off_to
          text: "{speaker} handed work off to {object}"
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from ..errors import InvalidInput
from .models import TIMELINE_KINDS

__all__ = ["MemoryType", "PatternRule", "SchemaRegistry"]

_LIFECYCLES = ("append_only", "mutable")


@dataclass(frozen=True)
class PatternRule:
    regex: re.Pattern[str]
    relation: str | None
    text: str
    object_type: str | None
    confidence: float


@dataclass(frozen=True)
class MemoryType:
    name: str
    description: str
    lifecycle: str = "append_only"
    entity_type: str = "concept"
    relations: tuple[str, ...] = ()
    timeline_kind: str | None = None
    importance: float = 0.5
    scope: str = "global"  # global | project | agent: the default scope of what it extracts
    hint: str = ""
    patterns: tuple[PatternRule, ...] = ()
    source: str = ""
    raw: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def mutable(self) -> bool:
        return self.lifecycle == "mutable"


def _parse(data: Any, source: str) -> MemoryType:
    if not isinstance(data, dict):
        raise InvalidInput(f"{source}: a memory type must be a YAML mapping")
    name = data.get("name")
    if not isinstance(name, str) or not re.fullmatch(r"[a-z][a-z0-9_]{0,39}", name):
        raise InvalidInput(f"{source}: 'name' must be lower-case letters, digits or '_'")
    lifecycle = data.get("lifecycle", "append_only")
    if lifecycle not in _LIFECYCLES:
        raise InvalidInput(f"{source}: lifecycle must be one of {', '.join(_LIFECYCLES)}")
    kind = data.get("timeline_kind")
    if kind is not None and kind not in TIMELINE_KINDS:
        raise InvalidInput(f"{source}: timeline_kind must be one of {', '.join(TIMELINE_KINDS)}")
    extract = data.get("extract") or {}
    if not isinstance(extract, dict):
        raise InvalidInput(f"{source}: 'extract' must be a mapping")
    patterns = []
    for i, pat in enumerate(extract.get("patterns") or []):
        if not isinstance(pat, dict) or not isinstance(pat.get("regex"), str):
            raise InvalidInput(f"{source}: extract.patterns[{i}] needs a 'regex' string")
        try:
            regex = re.compile(pat["regex"])
        except re.error as exc:
            raise InvalidInput(f"{source}: extract.patterns[{i}]: bad regex: {exc}") from None
        patterns.append(
            PatternRule(
                regex=regex,
                relation=pat.get("relation"),
                text=str(pat.get("text") or "{speaker}: {match}"),
                object_type=pat.get("object_type"),
                confidence=float(pat.get("confidence", 0.7)),
            )
        )
    importance = data.get("importance", 0.5)
    if not isinstance(importance, (int, float)) or not 0 <= importance <= 1:
        raise InvalidInput(f"{source}: importance must be a number between 0 and 1")
    return MemoryType(
        name=name,
        description=str(data.get("description") or ""),
        lifecycle=lifecycle,
        entity_type=str(data.get("entity_type") or "concept"),
        relations=tuple(str(r) for r in data.get("relations") or ()),
        timeline_kind=kind,
        importance=float(importance),
        scope=str(data.get("scope") or "global"),
        hint=str(extract.get("hint") or ""),
        patterns=tuple(patterns),
        source=source,
        raw=data,
    )


class SchemaRegistry:
    """All memory types: the package's, then those of extra directories (later ones win).

    >>> registry = SchemaRegistry.load()
    >>> registry.get("preference").lifecycle
    'append_only'
    """

    def __init__(self, types: dict[str, MemoryType]) -> None:
        self._types = types

    @classmethod
    def load(cls, *extra_dirs: Path) -> SchemaRegistry:
        types: dict[str, MemoryType] = {}
        package = resources.files("ogmemory") / "schemas"
        for entry in sorted(package.iterdir(), key=lambda p: p.name):
            if entry.name.endswith((".yaml", ".yml")):
                mt = _parse(
                    yaml.safe_load(entry.read_text(encoding="utf-8")),
                    f"ogmemory/schemas/{entry.name}",
                )
                types[mt.name] = mt
        for directory in extra_dirs:
            if not directory.is_dir():
                continue
            for path in sorted(directory.glob("*.y*ml")):
                try:
                    data = yaml.safe_load(path.read_text(encoding="utf-8"))
                except yaml.YAMLError as exc:
                    raise InvalidInput(f"{path}: not valid YAML: {exc}") from None
                mt = _parse(data, str(path))
                types[mt.name] = mt
        return cls(types)

    def get(self, name: str) -> MemoryType:
        try:
            return self._types[name]
        except KeyError:
            raise InvalidInput(
                f"unknown memory type {name!r}; known: {', '.join(self.names())}"
            ) from None

    def __contains__(self, name: object) -> bool:
        return name in self._types

    def names(self) -> list[str]:
        return sorted(self._types)

    def all(self) -> list[MemoryType]:
        return [self._types[n] for n in self.names()]

    def for_relation(self, relation: str) -> MemoryType | None:
        return next((t for t in self.all() if relation in t.relations), None)
