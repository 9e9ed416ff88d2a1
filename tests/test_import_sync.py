"""Incremental sync: re-importing records only what is new, never twice, whatever happened in
between (a crash before the state was saved, a crash mid-turn, two imports at once, a file
rewritten, an upload sent again after it grew), and imported sessions distil and recall."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import commit_count, fsck, git_out

from ogmemory import Memory
from ogmemory.config import Settings

FIXTURES = Path(__file__).parent / "fixtures" / "agent_history"
S2 = "5f0c1d2e-7a8b-4c9d-8e0f-1a2b3c4d5e02"
OLD = "6f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0"


@pytest.fixture
def smem(tmp_path: Path) -> Iterator[Memory]:
    m = Memory(settings=Settings(home=tmp_path / "home", distill_on_turn=False, embedder="none"))
    yield m
    m.close()


@pytest.fixture
def src(tmp_path: Path) -> Path:
    dest = tmp_path / "src"
    shutil.copytree(FIXTURES, dest)
    return dest


def claude_lines(parent: str, n: int, start: int = 500) -> str:
    """``n`` more lines of the older Claude session: prompts and answers, chained."""
    out = []
    for i in range(n):
        uid = f"00000000-0000-4000-8000-{start + i:012d}"
        role = "user" if i % 2 == 0 else "assistant"
        message: dict[str, object] = {"role": role, "content": f"message {i}: ünïcödé ✓"}
        if role == "assistant":
            message.update(
                model="claude-sonnet-4-5",
                id=f"msg_N{i}",
                content=[{"type": "text", "text": f"answer {i}"}],
            )
        out.append(
            json.dumps(
                {
                    "parentUuid": parent,
                    "isSidechain": False,
                    "type": role,
                    "sessionId": S2,
                    "cwd": "/home/dev/shop",
                    "message": message,
                    "uuid": uid,
                    "timestamp": f"2026-01-05T17:00:{i:02d}.000Z",
                },
                ensure_ascii=False,
            )
        )
        parent = uid
    return "".join(line + "\n" for line in out)


def total_nodes(mem: Memory) -> int:
    return sum(len(mem.get_nodes(s.session_id)) for s in mem.list_sessions())


def commits(mem: Memory) -> dict[str, int]:
    return {s.session_id: commit_count(s.path, "--all") for s in mem.list_sessions()}


@pytest.mark.parametrize(
    "fmt, sub", [("claude-code", "claude_code"), ("codex", "codex"), ("aider", "aider")]
)
def test_reimport_is_idempotent(smem: Memory, src: Path, fmt: str, sub: str) -> None:
    first = smem.import_history(fmt, [src / sub])
    assert first.messages > 0
    before = (total_nodes(smem), commits(smem))
    again = smem.import_history(fmt, [src / sub])
    assert (again.messages, again.turns, again.sessions_new, again.sessions_updated) == (0,) * 4
    assert again.sessions_unchanged == first.sessions_new
    assert (total_nodes(smem), commits(smem)) == before
    # the state survives only as files under the tenant: delete it and nothing doubles either
    shutil.rmtree(smem.tenant.root / "imports" / fmt)
    third = smem.import_history(fmt, [src / sub])
    assert third.messages == 0 and (total_nodes(smem), commits(smem)) == before


def test_growth_claude_code_ten_lines_ten_nodes(smem: Memory, src: Path) -> None:
    path = src / "claude_code" / "projects" / "-home-dev-shop" / f"{S2}.jsonl"
    smem.import_claude_code([path])
    sid = f"claude-{S2}"
    nodes, turns = len(smem.get_nodes(sid)), smem.get_session(sid).turns
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(claude_lines("00000000-0000-4000-8000-000000000203", 10))
    report = smem.import_claude_code([path])
    assert (report.messages, report.sessions_updated, report.turns) == (10, 1, 5)
    assert len(smem.get_nodes(sid)) == nodes + 10
    assert smem.get_session(sid).turns == turns + 5
    assert smem.get_nodes(sid)[-1].content == "answer 9"
    assert smem.import_claude_code([path]).messages == 0
    fsck(smem.get_session(sid).path)


def test_growth_codex_ten_lines_ten_nodes(smem: Memory, src: Path) -> None:
    path = next((src / "codex").rglob(f"*{OLD}.jsonl"))
    smem.import_codex([path])
    sid = f"codex-{OLD}"
    nodes = len(smem.get_nodes(sid))
    items = []
    for i in range(10):
        role, kind = ("user", "input_text") if i % 2 == 0 else ("assistant", "output_text")
        items.append(
            {"type": "message", "role": role, "content": [{"type": kind, "text": f"item {i} — ok"}]}
        )
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in items))
    report = smem.import_codex([path])
    assert report.messages == 10 and len(smem.get_nodes(sid)) == nodes + 10
    assert [n.id for n in smem.get_nodes(sid)][-1] == "L20"


def test_growth_aider_ten_lines_ten_nodes(smem: Memory, src: Path) -> None:
    path = src / "aider" / "webshop" / ".aider.chat.history.md"
    smem.import_aider([path])
    before = total_nodes(smem)
    chunk = ["", "# aider chat started at 2025-03-16 08:00:00", ""]
    for i in range(5):
        chunk += [f"#### question {i} über alles  ", "", f"Answer {i}.", ""]
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("\n".join(chunk) + "\n")
    report = smem.import_aider([path])
    assert (report.messages, report.sessions_new) == (10, 1)
    assert total_nodes(smem) == before + 10


def test_truncated_last_line_is_imported_once_complete(smem: Memory, src: Path) -> None:
    path = (
        src
        / "claude_code"
        / "projects"
        / "-home-dev-shop"
        / "5f0c1d2e-7a8b-4c9d-8e0f-1a2b3c4d5e01.jsonl"
    )
    sid = "claude-5f0c1d2e-7a8b-4c9d-8e0f-1a2b3c4d5e01"
    smem.import_claude_code([path])
    nodes = len(smem.get_nodes(sid))
    with open(path, "a", encoding="utf-8") as fh:  # the writer finishes its line
        fh.write(
            'ging"},"uuid":"00000000-0000-4000-8000-000000000037",'
            '"timestamp":"2026-02-10T09:40:00.000Z"}\n'
        )
    report = smem.import_claude_code([path])
    assert report.messages == 1 and not report.issues
    last = smem.get_nodes(sid)[-1]
    assert (last.content, len(smem.get_nodes(sid))) == ("and deploy it to staging", nodes + 1)
    assert last.parent_id == "00000000-0000-4000-8000-000000000036"


def test_results_in_a_later_sync_answer_their_call(smem: Memory, src: Path) -> None:
    path = next((src / "codex").rglob(f"*{OLD}.jsonl"))
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:7]))  # up to the shell call, its output not written yet
    smem.import_codex([path])
    sid = f"codex-{OLD}"
    assert smem.get_nodes(sid)[-1].tool_calls is not None
    path.write_text("".join(lines))
    smem.import_codex([path])
    out = next(n for n in smem.get_nodes(sid) if n.role == "tool")
    assert (out.called_by, out.tool_call_id) == ("L7", "call_L1")
    assert smem.get_session(sid).turns == 3  # the call, its output, the answer
    assert git_out(smem.get_session(sid).path, "status", "--porcelain") == ""


def test_an_import_that_died_mid_turn_is_completed(smem: Memory, src: Path) -> None:
    path = src / "claude_code" / "projects" / "-home-dev-shop" / f"{S2}.jsonl"
    smem.import_claude_code([path])
    sid = f"claude-{S2}"
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(claude_lines("00000000-0000-4000-8000-000000000203", 2))
    # the killed import had appended the first new node and neither committed nor saved state
    smem.append_message(
        sid,
        {
            "id": "00000000-0000-4000-8000-000000000500",
            "role": "user",
            "content": "message 0: ünïcödé ✓",
        },
    )
    report = smem.import_claude_code([path])
    assert report.messages == 1
    assert [n.id[-3:] for n in smem.get_nodes(sid)][-2:] == ["500", "501"]
    assert smem.session_commits(sid)[0].node_ids[-2:] == (
        "00000000-0000-4000-8000-000000000500",
        "00000000-0000-4000-8000-000000000501",
    )
    assert git_out(smem.get_session(sid).path, "status", "--porcelain") == ""


def test_two_imports_at_once_record_each_line_once(tmp_path: Path, src: Path) -> None:
    home = tmp_path / "home"
    settings = Settings(home=home, distill_on_turn=False, embedder="none")
    mems = [Memory(settings=settings) for _ in range(2)]
    errors: list[BaseException] = []

    def run(mem: Memory) -> None:
        try:
            mem.import_claude_code([src / "claude_code"])
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(m,)) for m in mems]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    single = Memory(
        settings=Settings(home=tmp_path / "single", distill_on_turn=False, embedder="none")
    )
    single.import_claude_code([src / "claude_code"])
    assert total_nodes(mems[0]) == total_nodes(single) == 33
    for m in (*mems, single):
        m.close()


def test_a_rewritten_file_is_reported_and_left_alone(smem: Memory, src: Path) -> None:
    path = src / "claude_code" / "projects" / "-home-dev-shop" / f"{S2}.jsonl"
    smem.import_claude_code([path])
    before = total_nodes(smem)
    path.write_text(claude_lines("nobody", 4, start=700))  # another conversation, same name
    report = smem.import_claude_code([path])
    assert report.messages == 0 and total_nodes(smem) == before
    assert [(i.reason, f.status) for f in report.files for i in f.issues] == [
        ("rewritten since the last import", "skipped")
    ]


def test_upload_again_after_growth_adds_only_the_rest(smem: Memory, src: Path) -> None:
    path = src / "claude_code" / "projects" / "-home-dev-shop" / f"{S2}.jsonl"
    data = path.read_bytes()
    first = smem.import_upload("claude-code", data, name=path.name)
    assert (first.sessions_new, first.messages) == (2, 6)  # the session and its sidechain
    grown = data + claude_lines("00000000-0000-4000-8000-000000000203", 10).encode()
    assert smem.import_upload("claude-code", grown, name=path.name).messages == 10
    assert smem.import_upload("claude-code", grown, name=path.name).messages == 0
    assert len(smem.get_nodes(f"claude-{S2}")) == 14


def test_imported_history_distils_and_is_recalled(tmp_path: Path, src: Path) -> None:
    mem = Memory(settings=Settings(home=tmp_path / "home", distill_on_turn=False, embedder="none"))
    mem.import_claude_code([src / "claude_code"])
    mem.import_codex([src / "codex"])
    assert mem.pending_nodes() > 0
    mem.sleep("light")
    assert mem.pending_nodes() == 0
    cited = {
        e.provenance.session_id
        for m in mem.memories()
        for e in mem.evidence(m.id)
        if e.provenance is not None
    }
    assert any(s.startswith("claude-") for s in cited)
    result = mem.recall("Which encoding does parser.py use now?")
    assert any(i.session_id == "codex-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b" for i in result.items)
    mem.close()


def test_a_session_id_held_by_other_content_is_reported_not_merged(smem: Memory, src: Path) -> None:
    path = src / "claude_code" / "projects" / "-home-dev-shop" / f"{S2}.jsonl"
    side = f"claude-{S2}-side-00000000-0000-4000-8000-000000000210"
    smem.append_message(f"claude-{S2}", {"role": "user", "content": "typed by hand"})
    smem.commit_turn(f"claude-{S2}")
    smem.create_session(side)  # empty: as an import that died right after creating it left it
    report = smem.import_claude_code([path])
    assert [i.reason for i in report.issues] == ["session id taken"]
    assert [n.content for n in smem.get_nodes(f"claude-{S2}")] == ["typed by hand"]
    assert len(smem.get_nodes(side)) == 2 and report.sessions_new == 1
