"""Claude Code session files, imported for real: git-backed sessions checked with ``git fsck``.

The fixtures under ``fixtures/agent_history/claude_code`` reproduce the structure of real
Claude Code transcripts (see ``fixtures/agent_history/README.md``): hook progress lines in the
``parentUuid`` chain, one response split over several lines, parallel tool calls whose results
answer lines that are not the chain's tip, a rewind (an edited prompt), a Task subagent in the
nested layout and one in the flat layout, an inline sidechain, a compaction, slash-command
markup, a broken line, a truncated last line, an empty file and a summary-only file.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import commit_count, fsck, git_out, make_project

from ogmemory import Memory
from ogmemory.config import Settings
from ogmemory.importers.model import DEFAULT_LIMIT

FIXTURES = Path(__file__).parent / "fixtures" / "agent_history"
S1 = "5f0c1d2e-7a8b-4c9d-8e0f-1a2b3c4d5e01"
S2 = "5f0c1d2e-7a8b-4c9d-8e0f-1a2b3c4d5e02"
MAIN = f"claude-{S1}"


def uid(n: int) -> str:
    return f"00000000-0000-4000-8000-{n:012d}"


@pytest.fixture
def projects(tmp_path: Path) -> Path:
    """A copy of the fixture projects folder (tests append to and rewrite their copy)."""
    dest = tmp_path / "claude" / "projects"
    shutil.copytree(FIXTURES / "claude_code" / "projects", dest)
    return dest


@pytest.fixture
def cmem(tmp_path: Path) -> Iterator[Memory]:
    m = Memory(settings=Settings(home=tmp_path / "home", distill_on_turn=False, embedder="none"))
    yield m
    m.close()


def session_dir(mem: Memory, sid: str) -> Path:
    return Path(mem.get_session(sid).path)


def test_sessions_found_and_everything_left_out_is_counted(cmem: Memory, projects: Path) -> None:
    report = cmem.import_claude_code([projects])
    ids = {s.session_id for s in cmem.list_sessions()}
    assert ids == {
        MAIN,
        f"{MAIN}-agent-a1b2c3d",
        f"claude-{S2}",
        f"claude-{S2}-agent-b7e8f9a",
        f"claude-{S2}-side-{uid(210)}",
    }
    assert report.sessions_new == 5 and report.sessions_updated == report.sessions_unchanged == 0
    assert report.messages == sum(len(cmem.get_nodes(s)) for s in ids) == 33
    assert report.left_out == {
        "progress": 4,
        "summary of another session": 3,
        "title": 2,
        "command output": 1,
        "compact boundary": 1,
        "snapshot": 1,
        "system": 1,
        "thinking": 1,
    }
    main_file = str(projects / "-home-dev-shop" / f"{S1}.jsonl")
    got = {(i.path, i.line, i.reason) for i in report.issues}
    assert (main_file, 13, "invalid JSON") in got  # the half-written line in the middle
    assert (main_file, 34, "truncated last line") in got  # left for the next import
    assert (
        str(projects / "-home-dev-shop" / "5f0c1d2e-7a8b-4c9d-8e0f-1a2b3c4d5e03.jsonl"),
        None,
        "empty file",
    ) in got
    assert any(r == "summary-only file (no messages)" for _, _, r in got)
    # the internal compaction agent is not a conversation
    assert not any("acompact" in f.path for f in report.files)
    for sid in ids:
        fsck(session_dir(cmem, sid))


def test_dag_turns_tools_and_branch_of_a_rewind(cmem: Memory, projects: Path) -> None:
    cmem.import_claude_code([projects])
    nodes = {n.id: n for n in cmem.get_nodes(MAIN)}
    # one response over three lines (thinking left out): three nodes in one turn
    first = cmem.session_commits(MAIN)[-1]
    assert first.node_ids == (uid(10), uid(12), uid(13), uid(15), uid(17), uid(18))
    # the hook progress line between the two calls is skipped over to its kept ancestor
    assert nodes[uid(15)].parent_id == uid(13)
    # parallel tool results answer lines that are not the tip: recorded in order, not branched
    read, bash = nodes[uid(17)], nodes[uid(18)]
    assert (read.role, read.tool_call_id, read.called_by, read.name) == (
        "tool",
        "toolu_01Read",
        uid(13),
        "Read",
    )
    assert (bash.called_by, bash.metadata["is_error"], bash.parent_id) == (uid(15), True, uid(17))
    call = nodes[uid(13)].tool_calls[0]  # type: ignore[index]
    assert call["function"]["name"] == "Read"
    assert json.loads(call["function"]["arguments"]) == {"file_path": "/home/dev/shop/app.py"}
    # a new model call after tool results is a new turn, as the agent saw it
    assert cmem.session_commits(MAIN)[-2].node_ids == (uid(19), uid(20))
    # the rewind: the edited prompt is a sibling of the abandoned one, on a retry branch
    assert nodes[uid(25)].parent_id == nodes[uid(23)].parent_id == uid(21)
    assert cmem.branches(MAIN) == ["main", f"retry-{uid(24)}"]
    branch = [n.id for n in cmem.get_branch_nodes(MAIN)]
    assert uid(25) in branch and uid(23) not in branch and uid(24) not in branch
    assert [n.id for n in cmem.get_branch_nodes(MAIN, uid(24))][-2:] == [uid(23), uid(24)]
    repo = session_dir(cmem, MAIN)
    assert commit_count(repo, f"retry-{uid(24)}") == len(cmem.session_commits(MAIN)) == 10
    assert git_out(repo, "status", "--porcelain") == ""
    fsck(repo)


def test_content_times_titles_and_metadata(cmem: Memory, projects: Path) -> None:
    cmem.import_claude_code([projects])
    nodes = {n.id: n for n in cmem.get_nodes(MAIN)}
    prompt = nodes[uid(25)]
    assert "缓存用 LRU，不要 Redis。" in prompt.content  # non-ASCII kept as written
    assert prompt.event_time == pytest.approx(1770714360.0)  # 2026-02-10T09:06:00Z
    summary = nodes[uid(30)]
    assert summary.role == "assistant" and summary.metadata == {
        "kind": "compaction_summary",
        "trigger": "manual",
        "pre_tokens": 48210,
    }
    # the summary is a turn of its own, chained after the compaction to what came before
    assert summary.parent_id == uid(28)
    assert any(c.node_ids == (uid(30),) for c in cmem.session_commits(MAIN))
    # slash-command markup becomes the command; its output line is left out
    assert (nodes[uid(31)].content, nodes[uid(31)].metadata) == (
        "/model sonnet",
        {"kind": "command"},
    )
    assert uid(32) not in nodes
    # a long tool output is cut with a marker and its full size; long arguments too
    out = nodes[uid(35)]
    assert out.metadata["truncated"] is True and out.metadata["full_chars"] > DEFAULT_LIMIT
    assert "characters cut by ogmemory" in out.content and len(out.content) < DEFAULT_LIMIT + 200
    assert out.content.endswith("test_module_599.py::test_case PASSED")
    write = nodes[uid(34)]
    assert write.metadata["arguments_truncated"] is True
    args = json.loads(write.tool_calls[0]["function"]["arguments"])  # type: ignore[index]
    assert args["file_path"] == "/home/dev/shop/CHANGELOG.md"  # still valid JSON
    assert write.metadata["model"] == "claude-sonnet-4-6"
    # the Task result points at the subagent's session, which points back
    assert nodes[uid(27)].metadata["subagent_session"] == f"{MAIN}-agent-a1b2c3d"
    info = cmem.get_session(MAIN)
    assert info.title == "Health endpoint (Flask)" and info.meta["title_manual"] is True
    imported = info.meta["import"]
    assert (imported["cwd"], imported["git_branch"], imported["claude_code_version"]) == (
        "/home/dev/shop",
        "feature/health",
        "2.1.39",
    )
    assert info.agent_id == "claude-code"
    sub = cmem.get_session(f"{MAIN}-agent-a1b2c3d")
    assert sub.meta["import"]["parent_session"] == MAIN
    assert [n.role for n in cmem.get_nodes(sub.session_id)] == [
        "user",
        "assistant",
        "tool",
        "assistant",
    ]
    flat = cmem.get_session(f"claude-{S2}-agent-b7e8f9a")
    assert flat.meta["import"]["parent_session"] == f"claude-{S2}"
    side = cmem.get_session(f"claude-{S2}-side-{uid(210)}")
    assert side.meta["import"]["parent_session"] == f"claude-{S2}"
    assert [n.content for n in cmem.get_nodes(side.session_id)][-1].startswith("The backup")
    # the older session's own conversation does not contain its sidechain
    assert [n.id for n in cmem.get_nodes(f"claude-{S2}")] == [
        uid(200),
        uid(201),
        uid(202),
        uid(203),
    ]


def test_sessions_list_by_when_they_happened(cmem: Memory, projects: Path) -> None:
    cmem.import_claude_code([projects / "-home-dev-shop" / f"{S2}.jsonl"])
    cmem.append_message("today", {"role": "user", "content": "a live conversation"})
    cmem.commit_turn("today")
    cmem.import_claude_code([projects])  # imported after the live one, but it happened earlier
    order = [s.session_id for s in cmem.list_sessions()]
    assert order[0] == "today"
    assert order.index(MAIN) < order.index(f"claude-{S2}")  # February before January
    assert cmem.get_session(MAIN).meta["last_event_at"] == pytest.approx(1770715928.0)


def test_project_bound_but_never_committed_into(
    cmem: Memory, projects: Path, tmp_path: Path
) -> None:
    repo = make_project(tmp_path, "shop")
    (repo / "app.py").write_text("print('uncommitted work of the user')\n")
    main = projects / "-home-dev-shop" / f"{S1}.jsonl"
    main.write_text(main.read_text().replace("/home/dev/shop", str(repo)))
    before = git_out(repo, "rev-parse", "HEAD")
    report = cmem.import_claude_code([main])
    assert report.messages > 0
    info = cmem.get_session(MAIN)
    project = cmem.get_project(info.project_id)
    assert Path(project.path) == repo.resolve()
    # history is not today's work: no agent commit, the user's change untouched
    assert git_out(repo, "rev-parse", "HEAD") == before
    assert (repo / "app.py").read_text() == "print('uncommitted work of the user')\n"
    assert cmem.project_log(project.project_id) == []
    # the session repository lives in the state directory, not in the user's project
    assert not (repo / ".ogmemory").exists()
    assert Path(info.path).is_relative_to(cmem.tenant.root)
    # even a turn that starts on a clean tree and ends on a dirty one (the user editing while
    # an import runs) leaves the project alone
    git_out(repo, "checkout", "--", "app.py")
    cmem.append_message(MAIN, {"role": "user", "content": "one more imported line"})
    (repo / "notes.txt").write_text("the user's own file\n")
    assert cmem.commit_turn(MAIN).project_commit is None
    assert git_out(repo, "rev-parse", "HEAD") == before
    assert git_out(repo, "status", "--porcelain") == "?? notes.txt"


def test_a_cwd_that_is_not_a_repository_here_is_kept_not_bound(
    cmem: Memory, projects: Path
) -> None:
    cmem.import_claude_code([projects])
    assert cmem.get_session(MAIN).project_id == "default"
    assert cmem.list_projects() == []
    assert cmem.get_session(MAIN).meta["import"]["cwd"] == "/home/dev/shop"


def test_a_resumed_session_continued_in_another_file_is_not_doubled(
    cmem: Memory, projects: Path
) -> None:
    folder = projects / "-home-dev-shop"
    original = folder / f"{S2}.jsonl"
    cmem.import_claude_code([original])
    before = [n.id for n in cmem.get_nodes(f"claude-{S2}")]
    # Resuming wrote a new file: the old conversation copied (its sessionId kept), then more.
    copied = original.read_text()
    more = [
        {
            "parentUuid": uid(203),
            "type": "user",
            "sessionId": S2,
            "uuid": uid(800),
            "timestamp": "2026-01-06T09:00:00.000Z",
            "message": {"role": "user", "content": "Did the prune free enough space?"},
        },
        {
            "parentUuid": uid(800),
            "type": "user",
            "sessionId": "new-session-id",
            "uuid": uid(801),
            "timestamp": "2026-01-06T09:01:00.000Z",
            "message": {"role": "user", "content": "A line of the continuation's own id."},
        },
    ]
    continued = folder / "9a9a9a9a-0000-4000-8000-000000000000.jsonl"
    continued.write_text(copied + "".join(json.dumps(m) + "\n" for m in more))
    report = cmem.import_claude_code([original, continued])
    assert report.messages == 2
    assert [n.id for n in cmem.get_nodes(f"claude-{S2}")] == [*before, uid(800)]
    assert [n.content for n in cmem.get_nodes("claude-new-session-id")] == [
        "A line of the continuation's own id."
    ]


def test_api_errors_and_cli_written_replies_are_left_out(cmem: Memory, tmp_path: Path) -> None:
    path = tmp_path / "5f0c1d2e-0000-4000-8000-0000000000aa.jsonl"
    lines = [
        {
            "type": "user",
            "uuid": uid(1),
            "parentUuid": None,
            "sessionId": "aa",
            "timestamp": "2026-03-01T10:00:00Z",
            "message": {"role": "user", "content": "hi"},
        },
        {
            "type": "assistant",
            "uuid": uid(2),
            "parentUuid": uid(1),
            "sessionId": "aa",
            "timestamp": "2026-03-01T10:00:01Z",
            "isApiErrorMessage": True,
            "message": {
                "role": "assistant",
                "model": "<synthetic>",
                "content": [{"type": "text", "text": "API Error: 529 overloaded"}],
            },
        },
        {
            "type": "assistant",
            "uuid": uid(3),
            "parentUuid": uid(2),
            "sessionId": "aa",
            "timestamp": "2026-03-01T10:00:02Z",
            "message": {
                "role": "assistant",
                "model": "claude-opus-4-6",
                "content": [{"type": "text", "text": "Hello — how can I help?"}],
            },
        },
    ]
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines))
    report = cmem.import_claude_code([path])
    assert report.left_out == {"API error or synthetic message": 1}
    nodes = cmem.get_nodes("claude-aa")
    assert [n.content for n in nodes] == ["hi", "Hello — how can I help?"]
    assert nodes[1].parent_id == uid(1)  # chained past the left-out line
