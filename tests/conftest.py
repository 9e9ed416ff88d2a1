"""Shared fixtures: a real ``Memory`` on a temporary home, real git repositories via the CLI,
a real local LLM server."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from local_llm import serve_smollm2

from ogmemory import InMemoryBackend, Memory

# The git CLI must work the same on any machine: no user config, a fixed identity.
_GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test User",
    "GIT_AUTHOR_EMAIL": "user@example.com",
    "GIT_COMMITTER_NAME": "Test User",
    "GIT_COMMITTER_EMAIL": "user@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def git(path: Path | str, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run the real ``git`` CLI in ``path``."""
    env = {**os.environ, **_GIT_ENV}
    return subprocess.run(
        ["git", "-C", str(path), *args], capture_output=True, text=True, env=env, check=check
    )


def git_out(path: Path | str, *args: str) -> str:
    return git(path, *args).stdout.strip()


def fsck(path: Path | str) -> None:
    """``git fsck --strict`` must accept the repository."""
    res = git(path, "fsck", "--strict", check=False)
    assert res.returncode == 0, f"git fsck failed in {path}:\n{res.stdout}\n{res.stderr}"


def commit_count(path: Path | str, rev: str = "HEAD") -> int:
    return int(git_out(path, "rev-list", "--count", rev))


def fresh_python(script: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``script`` run by a new interpreter (nothing loaded yet: the engine's OpenMP runtime
    reads its environment once, when it is loaded), without the OpenMP and OGMEM_ variables
    of this one and with ``env``; its output captured, a failure raised."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "GOMP_", "OGMEM_"))}
    return subprocess.run(
        [sys.executable, "-c", script],
        env={**base, **env},
        check=True,
        capture_output=True,
        text=True,
    )


def make_project(root: Path, name: str = "proj") -> Path:
    """A real project repository with one commit made by the user through the git CLI."""
    path = root / name
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    (path / "README.md").write_text("# hello\n")
    (path / "app.py").write_text("print('hi')\n")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "user: initial commit")
    return path


def turn(mem: Memory, sid: str, user: str, reply: str = "ok", **kwargs: object) -> object:
    """Append one user + assistant message and commit them as a turn."""
    mem.append_message(sid, {"role": "user", "content": user}, **kwargs)  # type: ignore[arg-type]
    mem.append_message(sid, {"role": "assistant", "content": reply})
    return mem.commit_turn(sid)


def named_turns(mem: Memory, sid: str, turns: list[tuple[str, str]], start: float) -> None:
    """Record one committed turn per ``(speaker, text)``, the first speaker as the user and
    the other as the assistant, one second apart from ``start``."""
    first = turns[0][0]
    for i, (who, text) in enumerate(turns):
        role = "user" if who == first else "assistant"
        msg = {"role": role, "name": who, "content": text, "event_time": start + i}
        mem.append_message(sid, msg)
        mem.commit_turn(sid)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def mem(home: Path) -> Iterator[Memory]:
    """A real ``Memory``: sessions in real git repositories; the knowledge and index stores
    in memory (their own contract suites test the files/SQLite backend). With
    ``OGMEMORY_TEST_BACKEND=files`` these tests run on the default files/SQLite backend too
    (how the suite's time with and without the in-memory twin is compared)."""
    files = os.environ.get("OGMEMORY_TEST_BACKEND") == "files"
    m = Memory(home=home, backend=None if files else InMemoryBackend())
    yield m
    m.close()


@pytest.fixture
def no_ogmem_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only what a test passes counts: no OGMEM_* variable from the developer's shell (so the
    default, real embedder is the one used)."""
    for name in list(os.environ):
        if name.startswith("OGMEM_"):
            monkeypatch.delenv(name)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path)


@pytest.fixture(scope="session")
def llama_server() -> Iterator[str]:
    """llama.cpp's OpenAI-compatible server with SmolLM2 on a free loopback port, started once
    per test session; yields its ``.../v1`` URL (skipped locally without the model)."""
    with serve_smollm2() as url:
        yield url
