"""Session titles, seed 001 §3.3.

Priority: a manual rename wins forever; otherwise the first-line fallback is set at once when
the first turn ends, then an LLM title is generated once in a background thread (``_titled``
marks it; failures are only logged). Listing falls back to an 80-character preview.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..config import LLMSettings
from ..llm.client import ChatClient
from ..storage.protocols import NodeLog, SessionRepository
from .records import Node, SessionInfo

__all__ = [
    "PLACEHOLDER_TITLES",
    "after_first_turn",
    "display_title",
    "fallback_title",
    "generate_llm_title",
    "generate_title_now",
    "preview",
]

log = logging.getLogger(__name__)

PLACEHOLDER_TITLES = frozenset({"", "new conversation", "untitled"})
TITLE_PROMPT = (
    "Generate a short, descriptive title (3-7 words) for this conversation. "
    "Return ONLY the title, no quotes, no prefix."
)


def fallback_title(first_user_text: str) -> str:
    """First line of the first user message, cut to 50 characters + "…"."""
    line = first_user_text.strip().splitlines()[0].strip() if first_user_text.strip() else ""
    return line if len(line) <= 50 else line[:50] + "…"


def preview(first_user_text: str) -> str:
    """The first 80 characters of the first user message (display fallback)."""
    return " ".join(first_user_text.split())[:80]


def display_title(meta: dict[str, Any]) -> str:
    title = str(meta.get("title") or "")
    if title.strip().lower() in PLACEHOLDER_TITLES:
        return str(meta.get("preview") or "")
    return title


def clean_llm_title(raw: str) -> str:
    """Strip quotes and a "Title:" prefix; cut to 80 characters."""
    text = raw.strip().splitlines()[0] if raw.strip() else ""
    text = re.sub(r"^\s*title\s*:\s*", "", text, flags=re.IGNORECASE)
    text = text.strip().strip("\"'“”‘’`").strip()
    return text[:80]


def generate_llm_title(
    settings: LLMSettings, user_text: str, assistant_text: str, *, model: str | None = None
) -> tuple[str, str]:
    """``(title, model used)``. The session's own ``model`` is asked first (it is already in
    use, seed 001 §3.3); if that call fails, the model configured in ``settings``."""
    messages = [
        {"role": "system", "content": TITLE_PROMPT},
        {
            "role": "user",
            "content": f"User: {user_text[:500]}\n\nAssistant: {assistant_text[:500]}",
        },
    ]
    candidates = list(dict.fromkeys(m for m in (model, settings.model) if m))
    for i, name in enumerate(candidates):
        client = ChatClient(replace(settings, model=name))
        try:
            raw = client.complete(messages, max_tokens=50, temperature=0.3)
        except Exception:
            if i == len(candidates) - 1:
                raise
            log.info("title: model %r failed, trying %r", name, candidates[i + 1], exc_info=True)
            continue
        finally:
            client.close()
        return clean_llm_title(raw), name
    raise AssertionError("unreachable: settings.model is always a candidate")


def start_title_thread(
    settings: LLMSettings,
    user_text: str,
    assistant_text: str,
    apply: Callable[[str, str], None],
    *,
    model: str | None = None,
) -> threading.Thread:
    """Generate a title in a daemon thread; ``apply(title, model)`` is called on success."""

    def run() -> None:
        try:
            title, used = generate_llm_title(settings, user_text, assistant_text, model=model)
            if title:
                apply(title, used)
        except Exception:  # background work: a failure must never reach the user
            log.warning("LLM title generation failed", exc_info=True)

    thread = threading.Thread(target=run, name="ogmem-title", daemon=True)
    thread.start()
    return thread


def after_first_turn(
    store: SessionRepository, session: NodeLog, pending: list[Node], llm: LLMSettings | None
) -> threading.Thread | None:
    """Seed 001 §3.3 after the first turn: the preview and the 50-character fallback title at
    once, then (with an LLM) a generated title in a background thread, which is returned."""
    first_user = next((n for n in session.all_nodes() if n.role == "user"), None)
    if first_user is None:
        return None
    meta = session.read_meta()
    if not meta.get("preview"):
        session.write_meta(preview=preview(first_user.text))
    sid = session.session_id
    if not meta.get("title_manual") and not meta.get("title"):
        store.set_auto_title(sid, fallback_title(first_user.text), llm=False)
    if llm is None or meta.get("_titled") or meta.get("title_manual"):
        return None
    # The assistant's response (§3.3): the last reply of the turn, not a tool-call step.
    replies = [n for n in pending if n.role == "assistant"]
    reply = next(
        (n.text for n in reversed(replies) if isinstance(n.content, str) and n.content.strip()),
        replies[-1].text if replies else "",
    )

    def apply(title: str, model: str) -> None:
        store.set_auto_title(sid, title, llm=True, model=model)

    return start_title_thread(llm, first_user.text, reply, apply, model=meta.get("model") or None)


def generate_title_now(
    store: SessionRepository, info: SessionInfo, nodes: list[Node], llm: LLMSettings | None
) -> SessionInfo:
    """Generate the LLM title now (a session closed before its background title ran; seed 001
    §3.3): never over a manual title, never twice. Without an LLM nothing changes."""
    if llm is None or info.meta.get("title_manual") or info.meta.get("_titled"):
        return info
    said = [n for n in nodes if n.role != "tool"]
    user = next((n.text for n in said if n.role == "user"), "")
    reply = next((n.text for n in said if n.role == "assistant" and n.text), "")
    if not user:
        return info
    title, model = generate_llm_title(llm, user, reply, model=info.meta.get("model") or None)
    if title:
        store.set_auto_title(info.session_id, title, llm=True, model=model)
    return store.info(info.session_id)
