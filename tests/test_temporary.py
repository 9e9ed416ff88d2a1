"""Temporary conversations (seed 003): they neither read memory nor write it."""

from __future__ import annotations

from pathlib import Path

import pytest

from ogmemory import Conflict, InvalidInput, Memory, SessionNotFound, Settings


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


def test_temporary_session_leaves_no_trace(tmp_path: Path) -> None:
    home = tmp_path / "home"
    mem = Memory(settings=Settings(home=home, embedder="none"))
    mem.append_message("kept", {"role": "user", "content": "I prefer tea over coffee."})
    mem.commit_turn("kept")
    mem.wait_background(30)
    mem.sleep("deep")
    before = _files(home)
    info = mem.create_session("secret", temporary=True)
    assert info.meta["temporary"] is True
    mem.append_message(
        "secret", {"role": "user", "content": "I have a rare illness called zorbitis."}
    )
    mem.append_message("secret", {"role": "assistant", "content": "I am sorry to hear that."})
    result = mem.commit_turn("secret")
    assert result.turn == 1 and result.commit
    assert next(m["content"] for m in mem.get_branch("secret")).startswith("I have")
    # memory is not read from a temporary session...
    assert mem.recall("what do I drink?", session_id="secret").items == ()
    assert mem.core(session_id="secret") == ""
    # ...and nothing of it is written to memory
    mem.wait_background(30)
    mem.sleep("deep")
    assert "zorbitis" not in mem.core()
    assert all("zorbitis" not in m.text for m in mem.memories())
    assert mem.search("zorbitis") == []
    assert [s.session_id for s in mem.list_sessions()] == ["kept"]
    assert "secret" not in "".join(_files(home))
    assert not any(
        "zorbitis" in p.read_text(errors="ignore") for p in home.rglob("*") if p.is_file()
    )
    temp_dir = mem.sessions.temporary_dir
    assert temp_dir is not None and temp_dir.exists()
    mem.end_session("secret")
    with pytest.raises(SessionNotFound):
        mem.get_nodes("secret")
    mem.close()
    assert not temp_dir.exists()
    after = _files(home)
    assert {f for f in after - before if "index" not in f and "core.md" not in f} <= {
        f for f in after if f.endswith((".lock", ".jsonl"))
    }


def test_temporary_rules(tmp_path: Path) -> None:
    mem = Memory(settings=Settings(home=tmp_path / "h", embedder="none", distill_on_turn=False))
    mem.append_message("normal", {"role": "user", "content": "hi"})
    with pytest.raises(Conflict):
        mem.create_session("normal", temporary=True)
    mem.create_session("tmp", temporary=True)
    with pytest.raises(Conflict):
        mem.create_session("tmp")
    with pytest.raises(InvalidInput):
        mem.create_session("tmp2", temporary=True, project=tmp_path)
    mem.close()
