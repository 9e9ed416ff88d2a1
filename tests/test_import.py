"""Importers: slugs of ids from files, and never leaving a conversation half-imported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ogmemory import InvalidInput, Memory
from ogmemory.importers import _slug, read_openai_jsonl


@pytest.mark.parametrize("raw", ["_chat", "a...b", "..x..", "-.-", "a/b\\c", "名字"])
def test_slug_always_gives_a_valid_session_id(raw: str, tmp_path: Path) -> None:
    from ogmemory.tenancy import validate_id

    assert validate_id(_slug(raw), "session id")


def test_bad_message_mid_file_imports_nothing(tmp_path: Path) -> None:
    path = tmp_path / "partial.jsonl"
    lines = [
        {"role": "user", "content": "one"},
        {"role": "assistant", "content": "1"},
        {"role": "user", "content": "two"},
        {"role": "function", "content": "x"},
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    mem = Memory(home=tmp_path / "home")
    with pytest.raises(InvalidInput, match="message 4"):
        mem.import_conversations(read_openai_jsonl(path))
    assert mem.list_sessions() == []


def test_leading_underscore_file_name_imports(tmp_path: Path) -> None:
    path = tmp_path / "_chat.jsonl"
    path.write_text(json.dumps({"role": "user", "content": "hi"}) + "\n")
    mem = Memory(home=tmp_path / "home")
    result = mem.import_conversations(read_openai_jsonl(path))
    assert result.sessions_created == 1
    assert [s.session_id for s in mem.list_sessions()] == ["chat"]
