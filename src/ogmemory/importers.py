"""Readers for conversation files: OpenAI-format chat JSONL and LoCoMo-format JSON.

They only parse; ``Memory.import_conversations`` records what they yield, one git commit per
turn. A new turn starts at each user message.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .errors import InvalidInput

__all__ = ["Conversation", "parse_locomo", "parse_locomo_date", "read_locomo", "read_openai_jsonl",
           "split_turns"]


@dataclass
class Conversation:
    """One session to import: its id, optional title and messages."""

    session_id: str
    messages: list[dict[str, Any]]
    title: str | None = None
    agent_id: str | None = None
    skipped: int = 0
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def turns(self) -> list[list[dict[str, Any]]]:
        return split_turns(self.messages)


def split_turns(messages: Iterable[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    turns: list[list[dict[str, Any]]] = []
    for msg in messages:
        if not turns or (msg.get("role") == "user" and turns[-1]):
            turns.append([])
        turns[-1].append(msg)
    return turns


def _slug(text: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", text)
    slug = re.sub(r"\.{2,}", ".", slug).strip("-._")
    return (slug or "imported")[:100]


# ---------------------------------------------------------------------------- OpenAI JSONL


def read_openai_jsonl(path: Path) -> list[Conversation]:
    """Parse a JSONL file of OpenAI-style messages.

    Each line is either one message (grouped into sessions by an optional ``session_id`` key;
    without it the whole file is one session named after the file) or an object with a
    ``messages`` list (one session per line, as in fine-tuning files). ``system`` messages are
    skipped and counted.
    """
    stem = _slug(path.stem)
    grouped: dict[str, Conversation] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"cannot read {path}: {exc}") from None
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as exc:
            raise InvalidInput(f"{path}:{lineno}: not valid JSON ({exc.args[0]})") from None
        if not isinstance(obj, dict):
            raise InvalidInput(f"{path}:{lineno}: each line must be a JSON object")
        if isinstance(obj.get("messages"), list):
            sid = _slug(str(obj.get("session_id") or f"{stem}-{lineno}"))
            conv = grouped.setdefault(sid, Conversation(sid, [], title=obj.get("title")))
            for msg in obj["messages"]:
                _add(conv, msg, path, lineno)
        else:
            sid = _slug(str(obj.pop("session_id", None) or stem))
            conv = grouped.setdefault(sid, Conversation(sid, []))
            _add(conv, obj, path, lineno)
    if not grouped:
        raise InvalidInput(f"{path}: no messages found")
    return list(grouped.values())


def _add(conv: Conversation, msg: Any, path: Path, lineno: int) -> None:
    if not isinstance(msg, dict) or "role" not in msg:
        raise InvalidInput(f"{path}:{lineno}: a message must be an object with a 'role'")
    if msg["role"] in ("system", "developer"):
        conv.skipped += 1
        return
    conv.messages.append(msg)


# ---------------------------------------------------------------------------- LoCoMo

_DATE_FORMATS = ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%I:%M %p on %B %d, %Y")


def parse_locomo_date(text: str) -> float:
    """'1:56 pm on 8 May, 2023' → epoch seconds (UTC)."""
    cleaned = " ".join(text.replace(",", ", ").split()).replace(" ,", ",")
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(cleaned, fmt).replace(tzinfo=timezone.utc).timestamp()
        except ValueError:
            continue
    raise InvalidInput(f"unrecognised LoCoMo session date: {text!r}")


def read_locomo(path: Path) -> list[dict[str, Any]]:
    """Load a LoCoMo-format file: a list of samples (a single sample object is accepted)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InvalidInput(f"cannot read LoCoMo file {path}: {exc}") from None
    samples = data if isinstance(data, list) else [data]
    for i, sample in enumerate(samples):
        if not isinstance(sample, dict) or not isinstance(sample.get("conversation"), dict):
            raise InvalidInput(f"{path}: sample {i} has no 'conversation' object")
    return samples


def session_numbers(conversation: dict[str, Any]) -> list[int]:
    nums = [int(m.group(1)) for k in conversation if (m := re.fullmatch(r"session_(\d+)", k))]
    return sorted(n for n in nums if isinstance(conversation.get(f"session_{n}"), list))


def parse_locomo(samples: list[dict[str, Any]], *, prefix: str = "") -> Iterator[Conversation]:
    """One conversation per LoCoMo session: speaker A → user, speaker B → assistant.

    Session dates become event times (one second apart per turn, to keep order); every node
    keeps its ``dia_id`` in metadata, which is what the benchmark scores.
    """
    for i, sample in enumerate(samples):
        conv = sample["conversation"]
        sample_id = _slug(str(sample.get("sample_id") or f"sample-{i}"))
        speaker_a = conv.get("speaker_a")
        for n in session_numbers(conv):
            date_text = conv.get(f"session_{n}_date_time")
            if not isinstance(date_text, str):
                raise InvalidInput(f"{sample_id}: session_{n} has no session_{n}_date_time")
            start = parse_locomo_date(date_text)
            messages = []
            for k, turn in enumerate(conv[f"session_{n}"]):
                if not isinstance(turn, dict) or not isinstance(turn.get("text"), str):
                    raise InvalidInput(f"{sample_id}: session_{n} turn {k} has no text")
                text = turn["text"]
                meta: dict[str, Any] = {"dia_id": turn.get("dia_id"), "speaker": turn.get("speaker")}
                if turn.get("blip_caption"):
                    meta["image_caption"] = turn["blip_caption"]
                    text = f"{text} [shares a photo: {turn['blip_caption']}]"
                role = "user" if turn.get("speaker") == speaker_a else "assistant"
                messages.append({"role": role, "content": text, "name": turn.get("speaker"),
                                 "event_time": start + k, "metadata": meta})
            yield Conversation(
                session_id=f"{prefix}{sample_id}-s{n}", messages=messages,
                meta={"sample_id": sample_id, "session": n, "date": date_text},
            )
