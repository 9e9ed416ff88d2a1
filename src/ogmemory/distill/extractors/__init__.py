"""Extractors: rule-based (default, no LLM), LLM (OpenAI-compatible), ReAct loop."""
