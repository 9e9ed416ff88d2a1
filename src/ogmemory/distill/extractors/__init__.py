"""Extractors: rule-based (default, no LLM), LLM (OpenAI-compatible), ReAct loop."""

from __future__ import annotations

from ...knowledge.schema import SchemaRegistry
from ..types import Extractor
from .schema_patterns import AliasExtractor, Combined, SchemaPatternExtractor

__all__ = ["default_extractor"]


def default_extractor(registry: SchemaRegistry) -> Extractor:
    """The rule-based extractor plus alias statements and the YAML types' own patterns."""
    from .rules import RuleExtractor

    return Combined("rules", [RuleExtractor(), AliasExtractor(), SchemaPatternExtractor(registry)])
