"""Whatever is in a history file, an import never fails half-way and never records twice.

Generated files mix well-formed Claude Code and Codex lines with damaged ones (fields of the
wrong type, garbage, NaN, lines cut short, bytes that are not UTF-8); every import must finish,
report what it skipped, leave git repositories that ``git fsck`` accepts, and record nothing
more when run again.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from conftest import fsck, git_out
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ogmemory import Memory
from ogmemory.config import Settings

_ODD = st.one_of(
    st.none(),
    st.integers(),
    st.text(max_size=8),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
_TEXT = st.text(max_size=40)


def _claude_line(i: int, kind: str, text: str, odd: Any, parent: int | None) -> str:
    uid = f"00000000-0000-4000-8000-{i:012d}"
    ref = None if parent is None else f"00000000-0000-4000-8000-{parent:012d}"
    base: dict[str, Any] = {
        "uuid": uid,
        "parentUuid": ref,
        "sessionId": "s",
        "timestamp": f"2026-01-01T00:{i % 60:02d}:00Z",
    }
    if kind == "user":
        base.update(type="user", message={"role": "user", "content": text})
    elif kind == "assistant":
        base.update(
            type="assistant",
            message={
                "role": "assistant",
                "id": f"m{i}",
                "content": [
                    {"type": "text", "text": text},
                    {"type": "tool_use", "id": f"t{i}", "name": "Bash", "input": {"command": text}},
                ],
            },
        )
    elif kind == "result":
        base.update(
            type="user",
            message={
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": f"t{i - 1}", "content": text}],
            },
        )
    elif kind == "odd":  # the right shape with a field of the wrong type
        base.update(type="assistant", message={"role": "assistant", "content": odd})
    elif kind == "odd-top":
        base.update(type="user", message=odd, uuid=odd, timestamp=odd)
    elif kind == "compact":
        base.update(
            type="system",
            subtype="compact_boundary",
            parentUuid=None,
            logicalParentUuid=ref,
            compactMetadata=odd,
        )
    elif kind == "nan":
        return '{"type": "user", "uuid": "x", "message": {"role": "user", "content": NaN}}'
    elif kind == "garbage":
        return text.replace("\n", " ") + "{"
    return json.dumps(base, ensure_ascii=False)


_CLAUDE = st.lists(
    st.tuples(
        st.sampled_from(
            ["user", "assistant", "result", "odd", "odd-top", "compact", "nan", "garbage"]
        ),
        _TEXT,
        _ODD,
        st.integers(min_value=-1, max_value=40),
    ),
    min_size=1,
    max_size=25,
)


def _codex_line(kind: str, text: str, odd: Any) -> str:
    env = {"timestamp": "2025-10-01T10:00:00Z", "type": "response_item"}
    if kind == "meta":
        return json.dumps({**env, "type": "session_meta", "payload": {"id": odd, "cwd": odd}})
    if kind == "user":
        return json.dumps(
            {
                **env,
                "payload": {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": text}],
                },
            }
        )
    if kind == "call":
        return json.dumps(
            {
                **env,
                "payload": {
                    "type": "function_call",
                    "name": "shell",
                    "arguments": text,
                    "call_id": odd,
                },
            }
        )
    if kind == "output":
        return json.dumps(
            {**env, "payload": {"type": "function_call_output", "call_id": odd, "output": odd}}
        )
    if kind == "odd":
        return json.dumps({**env, "type": odd, "payload": odd})
    return text.replace("\n", " ")


_CODEX = st.lists(
    st.tuples(st.sampled_from(["meta", "user", "call", "output", "odd", "junk"]), _TEXT, _ODD),
    min_size=1,
    max_size=20,
)


def _check(mem: Memory, fmt: str, path: Path) -> None:
    report = mem.import_history(fmt, [path])
    assert not [i for i in report.issues if i.reason in ("import failed", "message not recorded")]
    recorded = {s.session_id: len(mem.get_nodes(s.session_id)) for s in mem.list_sessions()}
    assert report.messages == sum(recorded.values())
    for info in mem.list_sessions():
        fsck(info.path)
        assert git_out(info.path, "status", "--porcelain") == ""
    again = mem.import_history(fmt, [path])
    assert again.messages == 0
    assert {s.session_id: len(mem.get_nodes(s.session_id)) for s in mem.list_sessions()} == recorded


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(lines=_CLAUDE, tail=st.binary(max_size=12))
def test_any_claude_code_file(lines: list[tuple[str, str, Any, int]], tail: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "5f0c1d2e-0000-4000-8000-000000000001.jsonl"
        body = "\n".join(
            _claude_line(i + 1, kind, text, odd, parent if parent > 0 else None)
            for i, (kind, text, odd, parent) in enumerate(lines)
        )
        path.write_bytes(body.encode() + b"\n" + tail)
        mem = Memory(
            settings=Settings(home=Path(tmp) / "home", distill_on_turn=False, embedder="none")
        )
        try:
            _check(mem, "claude-code", path)
        finally:
            mem.close()


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(lines=_CODEX, tail=st.binary(max_size=12))
def test_any_codex_rollout(lines: list[tuple[str, str, Any]], tail: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rollout-2025-10-01T10-00-00-0199a1b2-0000-7000-8000-00000000000a.jsonl"
        body = "\n".join(_codex_line(kind, text, odd) for kind, text, odd in lines)
        path.write_bytes(body.encode() + b"\n" + tail)
        mem = Memory(
            settings=Settings(home=Path(tmp) / "home", distill_on_turn=False, embedder="none")
        )
        try:
            _check(mem, "codex", path)
        finally:
            mem.close()
