"""Clients for OpenAI-compatible LLM endpoints."""

from .client import ChatClient, LLMError

__all__ = ["ChatClient", "LLMError"]
