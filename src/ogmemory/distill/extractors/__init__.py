"""Extractors: rule-based (default, no LLM), LLM (OpenAI-compatible), ReAct loop."""

from __future__ import annotations

from ...config import Settings
from ...errors import InvalidInput
from ...knowledge.base import KnowledgeBase
from ...knowledge.schema import SchemaRegistry
from ..types import Extractor
from .schema_patterns import AliasExtractor, Combined, SchemaPatternExtractor

__all__ = ["EXTRACTORS", "default_extractor", "make_extractor"]

EXTRACTORS = ("rules", "llm", "react")


def default_extractor(registry: SchemaRegistry) -> Extractor:
    """The rule-based extractor plus alias statements and the YAML types' own patterns."""
    from .rules import RuleExtractor

    return Combined("rules", [RuleExtractor(), AliasExtractor(), SchemaPatternExtractor(registry)])


def make_extractor(settings: Settings, registry: SchemaRegistry, kb: KnowledgeBase) -> Extractor:
    """The Stage-2 extractor ``settings.extractor`` names; the LLM ones fall back to the rules."""
    rules = default_extractor(registry)
    name = settings.extractor
    if name == "rules":
        return rules
    if name not in EXTRACTORS:
        raise InvalidInput(f"unknown extractor {name!r}; use {', '.join(EXTRACTORS)}")
    if settings.llm is None:
        raise InvalidInput(f"extractor {name!r} needs an LLM endpoint (OGMEM_LLM_BASE_URL)")
    if name == "llm":
        from .llm import LLMExtractor

        return LLMExtractor(settings.llm, registry, rules)
    from .react import ReActExtractor

    return ReActExtractor(settings.llm, registry, kb, rules)
