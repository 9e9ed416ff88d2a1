"""A small synchronous client for OpenAI-compatible ``/v1/chat/completions`` endpoints."""

from __future__ import annotations

import time
from typing import Any

import httpx

from ..config import LLMSettings
from ..errors import OgmemError

__all__ = ["ChatClient", "LLMError"]


class LLMError(OgmemError):
    """The endpoint failed, timed out, or answered with something unusable."""


class ChatClient:
    """Chat completions with a timeout and bounded retries.

    >>> client = ChatClient(LLMSettings(base_url="http://127.0.0.1:8080/v1"))  # doctest: +SKIP
    >>> client.complete([{"role": "user", "content": "hi"}], max_tokens=8)  # doctest: +SKIP
    """

    def __init__(self, settings: LLMSettings) -> None:
        self.settings = settings
        base = settings.base_url.rstrip("/")
        self.url = base + "/chat/completions" if base.endswith("/v1") else base + "/v1/chat/completions"
        headers = {"Authorization": f"Bearer {settings.api_key}"} if settings.api_key else {}
        self._http = httpx.Client(timeout=settings.timeout, headers=headers)

    def complete(self, messages: list[dict[str, Any]], *, max_tokens: int = 256,
                 temperature: float = 0.0, **extra: Any) -> str:
        """The first choice's message content. Raises ``LLMError`` after the last retry."""
        body = {"model": self.settings.model, "messages": messages, "max_tokens": max_tokens,
                "temperature": temperature, **extra}
        last: Exception | None = None
        for attempt in range(self.settings.max_retries + 1):
            try:
                resp = self._http.post(self.url, json=body)
                resp.raise_for_status()
                content = resp.json()["choices"][0]["message"]["content"]
                if not isinstance(content, str):
                    raise LLMError("the endpoint returned no text content")
                return content
            except (httpx.HTTPError, KeyError, IndexError, TypeError, ValueError, LLMError) as exc:
                last = exc
                if attempt < self.settings.max_retries:
                    time.sleep(0.2 * 2**attempt)
        raise LLMError(f"LLM request to {self.url} failed: {last}") from last

    def close(self) -> None:
        self._http.close()
