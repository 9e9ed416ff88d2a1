"""Project-Git (seed 001 §4): binding, session placement, agent auto-commits, unbinding."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import commit_count, fsck, git, git_out, make_project

from ogmemory import InvalidInput, Memory, ProjectNotFound


def bound_turn(
    mem: Memory,
    sid: str,
    project: Path,
    user: str,
    edit: object = None,
    model: str | None = "gpt-test",
) -> object:
    """A turn in which the 'agent' runs ``edit`` on the project between the messages."""
    mem.append_message(sid, {"role": "user", "content": user}, project=project)
    if edit is not None:
        edit()  # type: ignore[operator]
    mem.append_message(sid, {"role": "assistant", "content": "done"})
    return mem.commit_turn(sid, model=model)


def test_resolve_reuses_existing_git(mem: Memory, project: Path) -> None:
    user_head = git_out(project, "rev-parse", "HEAD")
    proj = mem.resolve_project(project, name="My Proj")
    assert proj.path == str(project.resolve()) and proj.name == "My Proj"
    assert git_out(project, "rev-parse", "HEAD") == user_head
    assert git_out(project, "log", "-1", "--format=%s") == "user: initial commit"
    registry = json.loads(mem.tenant.projects_file.read_text())
    assert registry[proj.project_id]["path"] == str(project.resolve())
    # Resolving again returns the same registration.
    assert mem.resolve_project(project).project_id == proj.project_id
    assert [p.project_id for p in mem.list_projects()] == [proj.project_id]
    assert mem.get_project(proj.project_id) == proj
    assert "/.ogmemory/" in (project / ".git" / "info" / "exclude").read_text().splitlines()
    fsck(project)


def test_resolve_inits_a_plain_directory(mem: Memory, tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "notes.txt").write_text("n\n")
    proj = mem.resolve_project(plain)
    assert (plain / ".git").is_dir()
    assert git(plain, "rev-parse", "--git-dir").returncode == 0
    assert proj.name == "plain"
    assert mem.get_project(proj.project_id).path == str(plain.resolve())
    with pytest.raises(InvalidInput):
        mem.resolve_project(tmp_path / "does-not-exist")
    with pytest.raises(ProjectNotFound):
        mem.get_project("proj_missing")


def test_session_lives_in_project_and_stays_out_of_its_commits(mem: Memory, project: Path) -> None:
    bound_turn(
        mem, "s1", project, "write a helper", lambda: (project / "helper.py").write_text("x=1\n")
    )
    sdir = project / ".ogmemory" / "sessions" / "s1"
    assert (sdir / "meta.json").is_file() and (sdir / ".git").is_dir()
    assert not (mem.tenant.sessions_dir / "s1").exists()
    info = mem.get_session("s1")
    assert info.path == str(sdir)
    assert info.project_id == mem.resolve_project(project).project_id
    assert json.loads(mem.tenant.locations_file.read_text()) == {"s1": str(sdir)}
    # .ogmemory/ never enters the project's history, and the project stays clean.
    files = git_out(project, "log", "--all", "--name-only", "--format=").splitlines()
    assert "helper.py" in files
    assert not any(f.startswith(".ogmemory") for f in files)
    assert git_out(project, "status", "--porcelain") == ""
    assert commit_count(sdir) == 1
    fsck(project)
    fsck(sdir)


def test_project_id_binding(mem: Memory, project: Path) -> None:
    proj = mem.resolve_project(project)
    mem.create_session("s1", project=proj.project_id)
    assert mem.get_session("s1").path == str(project / ".ogmemory" / "sessions" / "s1")
    with pytest.raises(ProjectNotFound):
        mem.create_session("s2", project="proj_unknown")
    assert [s.session_id for s in mem.list_sessions()] == ["s1"]


def test_agent_edits_committed_with_agent_identity(mem: Memory, project: Path) -> None:
    user_head = git_out(project, "rev-parse", "HEAD")
    msg = "Add a CLI entry point and tidy the README please, with tests and docs for all of it"

    def edit() -> None:
        (project / "cli.py").write_text("def main(): pass\n")
        (project / "README.md").write_text("# hello\n\nUsage: cli\n")

    res = bound_turn(mem, "sess-a", project, msg, edit, model="qwen2.5-7b")
    assert res.project_commit is not None  # type: ignore[attr-defined]
    assert commit_count(project) == 2
    head = git_out(project, "rev-parse", "HEAD")
    assert head == res.project_commit  # type: ignore[attr-defined]
    assert git_out(project, "rev-parse", "HEAD~1") == user_head
    assert git_out(project, "log", "-1", "--format=%an") == "agent (qwen2.5-7b via ogmemory)"
    assert git_out(project, "log", "-1", "--format=%s") == f"[agent sess-a] turn 1: {msg[:60]}"
    assert sorted(git_out(project, "show", "--name-only", "--format=", "HEAD").splitlines()) == [
        "README.md",
        "cli.py",
    ]
    assert git_out(project, "status", "--porcelain") == ""
    assert res.warnings == ()  # type: ignore[attr-defined]
    fsck(project)


def test_model_from_message_metadata(mem: Memory, project: Path) -> None:
    mem.append_message("s1", {"role": "user", "content": "go"}, project=project)
    (project / "new.txt").write_text("n\n")
    mem.append_message(
        "s1", {"role": "assistant", "content": "ok", "metadata": {"model": "llama-3-8b"}}
    )
    res = mem.commit_turn("s1")
    assert res.project_commit is not None
    assert git_out(project, "log", "-1", "--format=%an") == "agent (llama-3-8b via ogmemory)"
    # Turn numbers in project commit messages follow the session's turns.
    res2 = bound_turn(
        mem, "s1", project, "second turn\nmore", lambda: (project / "new.txt").write_text("m\n")
    )
    assert git_out(project, "log", "-1", "--format=%s") == "[agent s1] turn 2: second turn"
    assert res2.turn == 2  # type: ignore[attr-defined]


def test_agent_deletions_are_committed(mem: Memory, project: Path) -> None:
    res = bound_turn(mem, "s1", project, "remove app.py", lambda: (project / "app.py").unlink())
    assert res.project_commit is not None  # type: ignore[attr-defined]
    assert git_out(project, "show", "--name-status", "--format=", "HEAD") == "D\tapp.py"
    assert "app.py" not in git_out(project, "ls-files").splitlines()
    assert git_out(project, "status", "--porcelain") == ""
    fsck(project)


def test_dirty_tree_before_turn_is_never_committed(mem: Memory, project: Path) -> None:
    (project / "app.py").write_text("print('user work in progress')\n")  # uncommitted user edit
    user_head = git_out(project, "rev-parse", "HEAD")
    res = bound_turn(
        mem, "s1", project, "add a feature", lambda: (project / "feature.py").write_text("f=1\n")
    )
    assert res.project_commit is None  # type: ignore[attr-defined]
    assert res.commit is not None  # type: ignore[attr-defined]  # the session turn still commits
    assert len(res.warnings) == 1 and "uncommitted" in res.warnings[0]  # type: ignore[attr-defined]
    assert git_out(project, "rev-parse", "HEAD") == user_head
    status = git(project, "status", "--porcelain").stdout.splitlines()
    assert " M app.py" in status and "?? feature.py" in status
    assert (project / "app.py").read_text() == "print('user work in progress')\n"
    assert git_out(project, "diff", "--cached") == ""  # nothing was staged behind the user's back
    fsck(project)


def test_no_changes_no_commit(mem: Memory, project: Path) -> None:
    res = bound_turn(mem, "s1", project, "just a question")
    assert res.project_commit is None and res.warnings == ()  # type: ignore[attr-defined]
    assert commit_count(project) == 1


def test_project_log_and_project_commits(mem: Memory, project: Path) -> None:
    proj = mem.resolve_project(project)
    bound_turn(mem, "s1", project, "one", lambda: (project / "a.txt").write_text("a\n"))
    (project / "user.txt").write_text("u\n")  # the user commits in between
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "user: second")
    bound_turn(mem, "s1", project, "two", lambda: (project / "b.txt").write_text("b\n"))
    log = mem.project_log(proj.project_id)
    assert [c.message for c in log] == ["[agent s1] turn 2: two", "[agent s1] turn 1: one"]
    assert all(c.author == "agent (gpt-test via ogmemory)" for c in log)
    assert [c.sha for c in log] == [
        git_out(project, "rev-parse", "HEAD"),
        git_out(project, "rev-parse", "HEAD~2"),
    ]
    assert len(mem.project_log(proj.project_id, limit=1)) == 1
    every = mem.project_commits(proj.project_id)
    assert [c.message for c in every] == [
        "[agent s1] turn 2: two",
        "user: second",
        "[agent s1] turn 1: one",
        "user: initial commit",
    ]
    assert commit_count(project) == 4
    fsck(project)


def test_unbind_keeps_history_and_sessions(mem: Memory, project: Path) -> None:
    proj = mem.resolve_project(project)
    bound_turn(mem, "s1", project, "edit", lambda: (project / "a.txt").write_text("a\n"))
    heads_before = git_out(project, "rev-parse", "HEAD")
    removed = mem.unbind_project(proj.project_id)
    assert removed.project_id == proj.project_id
    assert mem.list_projects() == []
    assert proj.project_id not in json.loads(mem.tenant.projects_file.read_text())
    assert git_out(project, "rev-parse", "HEAD") == heads_before
    assert commit_count(project) == 2
    assert (project / ".git").is_dir()
    info = mem.get_session("s1")
    assert info.project_id == proj.project_id  # historical pointer
    assert info.path == str(project / ".ogmemory" / "sessions" / "s1")
    assert [s.session_id for s in mem.list_sessions()] == ["s1"]
    # The session keeps working; the agent's edits are no longer auto-committed.
    mem.append_message("s1", {"role": "user", "content": "more"})
    (project / "b.txt").write_text("b\n")
    mem.append_message("s1", {"role": "assistant", "content": "ok"})
    res = mem.commit_turn("s1")
    assert res.commit is not None and res.project_commit is None
    assert commit_count(project) == 2
    with pytest.raises(ProjectNotFound):
        mem.unbind_project(proj.project_id)
    fsck(project)


def test_new_directories_and_ignored_files(mem: Memory, project: Path) -> None:
    (project / ".gitignore").write_text("*.log\nbuild/\n")
    git(project, "add", ".gitignore")
    git(project, "commit", "-q", "-m", "user: ignore logs")

    def edit() -> None:
        (project / "src" / "pkg").mkdir(parents=True)
        (project / "src" / "pkg" / "mod.py").write_text("x = 1\n")
        (project / "debug.log").write_text("noise\n")
        (project / "build").mkdir()
        (project / "build" / "out.bin").write_text("bin\n")

    res = bound_turn(mem, "s1", project, "add a module", edit)
    assert res.project_commit is not None  # type: ignore[attr-defined]
    assert git_out(project, "show", "--name-only", "--format=", "HEAD").splitlines() == [
        "src/pkg/mod.py"
    ]
    assert (project / "debug.log").exists()  # ignored files are left alone, uncommitted
    assert git_out(project, "status", "--porcelain") == ""


def test_busy_project_index_is_a_warning_not_a_failure(mem: Memory, project: Path) -> None:
    lock = project / ".git" / "index.lock"

    def edit() -> None:
        (project / "new.py").write_text("n = 1\n")
        lock.write_text("")  # the user's own git is running in the project right now

    res = bound_turn(mem, "s1", project, "edit while the user runs git", edit)
    assert res.commit is not None and res.turn == 1  # type: ignore[attr-defined]
    assert res.project_commit is None  # type: ignore[attr-defined]
    project_id = mem.resolve_project(project).project_id
    assert len(res.warnings) == 1 and project_id in res.warnings[0]  # type: ignore[attr-defined]
    assert lock.exists()  # never remove a lock that may belong to a live git process
    lock.unlink()
    assert commit_count(project) == 1
    assert git(project, "status", "--porcelain").stdout == "?? new.py\n"
    assert mem.get_session("s1").turns == 1
    fsck(project)


def test_project_git_dir_gone_is_a_warning(mem: Memory, project: Path) -> None:
    import shutil

    bound_turn(mem, "s1", project, "first")
    shutil.rmtree(project / ".git")
    mem.append_message("s1", {"role": "user", "content": "second"})
    (project / "x.txt").write_text("x")
    mem.append_message("s1", {"role": "assistant", "content": "done"})
    res = mem.commit_turn("s1")
    assert res.commit is not None and res.turn == 2
    assert res.project_commit is None and len(res.warnings) == 1
    assert not (project / ".git").exists()  # nothing re-created behind the user's back
    assert [m["content"] for m in mem.get_branch("s1")][-2:] == ["second", "done"]


def test_projects_are_per_tenant_and_persisted(home: Path, tmp_path: Path) -> None:
    project = make_project(tmp_path)
    alice = Memory(home=home, account="alice")
    bob = Memory(home=home, account="bob")
    proj = alice.resolve_project(project)
    bound_turn(alice, "s1", project, "edit", lambda: (project / "a.txt").write_text("a\n"))
    assert bob.list_projects() == []
    with pytest.raises(ProjectNotFound) as other:
        bob.get_project(proj.project_id)
    with pytest.raises(ProjectNotFound) as missing:
        bob.get_project("proj_none")
    assert str(other.value).replace(proj.project_id, "X") == str(missing.value).replace(
        "proj_none", "X"
    )
    with pytest.raises(ProjectNotFound):
        bob.project_log(proj.project_id)
    fresh = Memory(home=home, account="alice")
    assert fresh.list_projects() == [proj]
    assert [c.message for c in fresh.project_log(proj.project_id)] == ["[agent s1] turn 1: edit"]
    assert fresh.get_session("s1").path == str(
        project / ".ogmemory" / "tenants" / "alice" / "default" / "sessions" / "s1"
    )
