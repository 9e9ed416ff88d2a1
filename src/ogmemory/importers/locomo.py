"""LoCoMo-format JSON (the benchmark's conversations): one session per conversation session.

It only parses; ``Memory.import_conversations`` records what it yields, one git commit per turn.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..errors import InvalidInput
from .base import Conversation
from .base import slug as _slug

__all__ = ["parse_locomo", "parse_locomo_date", "read_locomo", "session_numbers"]


_DATE_FORMATS = ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%I:%M %p on %B %d, %Y")


def parse_locomo_date(text: str) -> float:
    """'1:56 pm on 8 May, 2023' → epoch seconds (UTC)."""
    cleaned = " ".join(text.replace(",", ", ").split()).replace(" ,", ",")
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(cleaned, fmt).replace(tzinfo=UTC).timestamp()
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
                meta: dict[str, Any] = {
                    "dia_id": turn.get("dia_id"),
                    "speaker": turn.get("speaker"),
                }
                if turn.get("blip_caption"):
                    meta["image_caption"] = turn["blip_caption"]
                    text = f"{text} [shares a photo: {turn['blip_caption']}]"
                role = "user" if turn.get("speaker") == speaker_a else "assistant"
                messages.append(
                    {
                        "role": role,
                        "content": text,
                        "name": turn.get("speaker"),
                        "event_time": start + k,
                        "metadata": meta,
                    }
                )
            yield Conversation(
                session_id=f"{prefix}{sample_id}-s{n}",
                messages=messages,
                meta={"sample_id": sample_id, "session": n, "date": date_text},
            )
