"""A small synchronous client for OpenAI-compatible ``/v1/chat/completions`` endpoints."""

from __future__ import annotations

import time
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

from ..config import LLMSettings
from ..errors import OgmemError

if TYPE_CHECKING:
    import httpx

__all__ = ["ChatClient", "ChatReply", "LLMError"]


class LLMError(OgmemError):
    """The endpoint failed, timed out, or answered with something unusable."""


@dataclass(frozen=True)
class ChatReply:
    """The first choice of a chat completion, with what the caller needs to judge it."""

    content: str
    #: ``"stop"``, ``"length"`` (cut off by ``max_tokens``), ... or ``None`` if not reported.
    finish_reason: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def truncated(self) -> bool:
        """True when generation stopped at ``max_tokens``: the content is incomplete."""
        return self.finish_reason == "length"

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


def _retryable(exc: Exception) -> bool:
    """Transport errors, timeouts, 429 and 5xx may pass; other 4xx answers will not."""
    import httpx

    if isinstance(exc, httpx.HTTPStatusError):
        status = exc.response.status_code
        return status == 429 or status >= 500
    return True


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


class ChatClient:
    """Chat completions with a timeout and bounded retries.

    ``response_format`` is passed through as given. For structured output from llama.cpp use
    ``{"type": "json_object", "schema": {...}}`` (its ``{"type": "json_schema", ...}`` form
    answers HTTP 500). Servers that ignore the schema still return JSON; callers validate it.

    >>> settings = LLMSettings(base_url="http://127.0.0.1:8080/v1")
    >>> with ChatClient(settings) as client:  # doctest: +SKIP
    ...     client.complete([{"role": "user", "content": "hi"}], max_tokens=8)
    """

    def __init__(self, settings: LLMSettings) -> None:
        self.settings = settings
        base = settings.base_url.rstrip("/")
        path = "/chat/completions" if base.endswith("/v1") else "/v1/chat/completions"
        self.url = base + path
        headers = {"Authorization": f"Bearer {settings.api_key}"} if settings.api_key else {}
        # imported here: httpx pulls in its command line (rich, click), a third of the time it
        # takes to import ogmemory, in processes that never call an LLM (hooks, the CLI)
        import httpx

        self._http: httpx.Client = httpx.Client(timeout=settings.timeout, headers=headers)

    def chat(
        self,
        messages: list[dict[str, Any]],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        response_format: dict[str, Any] | None = None,
        **extra: Any,
    ) -> ChatReply:
        """The first choice, its finish reason and token usage. Raises ``LLMError`` after the
        last retry (only transport errors, timeouts, 429 and 5xx are retried)."""
        body: dict[str, Any] = {
            "model": self.settings.model,
            "messages": messages,
            "max_tokens": max_tokens,
            "temperature": temperature,
            **extra,
        }
        if response_format is not None:
            body["response_format"] = response_format
        import httpx

        last: Exception | None = None
        for attempt in range(self.settings.max_retries + 1):
            try:
                resp = self._http.post(self.url, json=body)
                resp.raise_for_status()
                data = resp.json()
                choice = data["choices"][0]
                content = choice["message"]["content"]
                if not isinstance(content, str):
                    raise LLMError("the endpoint returned no text content")
                usage = data.get("usage") or {}
                reason = choice.get("finish_reason")
                return ChatReply(
                    content=content,
                    finish_reason=reason if isinstance(reason, str) else None,
                    prompt_tokens=_int(usage.get("prompt_tokens")),
                    completion_tokens=_int(usage.get("completion_tokens")),
                )
            except (httpx.HTTPError, KeyError, IndexError, TypeError, ValueError, LLMError) as exc:
                last = exc
                if not _retryable(exc):
                    break
                if attempt < self.settings.max_retries:
                    time.sleep(0.2 * 2**attempt)
        raise LLMError(f"LLM request to {self.url} failed: {last}") from last

    def complete(
        self,
        messages: list[dict[str, Any]],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        **extra: Any,
    ) -> str:
        """The first choice's message content. Raises ``LLMError`` after the last retry."""
        return self.chat(messages, max_tokens=max_tokens, temperature=temperature, **extra).content

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
