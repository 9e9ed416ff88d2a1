"""``ogmem chat`` as a user runs it (a subprocess, lines on stdin) against the real llama.cpp
server: the protocol, the slash commands, and what is recorded."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import fsck

from ogmemory import Memory, Settings

pytestmark = pytest.mark.timeout(400)

CLI = [sys.executable, "-m", "ogmemory.interfaces.cli"]


def chat(
    home: Path, base: str, lines: list[str], *args: str, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "OGMEM_LLM_BASE_URL": base,
        "OGMEM_LLM_MODEL": "smollm2",
        "OGMEM_EMBEDDER": "none",
    }
    env.pop("OGMEM_HOME", None)
    return subprocess.run(
        [*CLI, "chat", "--home", str(home), "--max-tokens", "40", *args],
        input="".join(f"{line}\n" for line in lines),
        capture_output=True,
        text=True,
        env=env,
        timeout=360,
        cwd=cwd,
        check=False,
    )


def test_chat_records_turns_and_answers_slash_commands(tmp_path: Path, llama_server: str) -> None:
    home = tmp_path / "home"
    first = chat(
        home,
        llama_server,
        [
            "Hello! My name is Lena and I prefer Python over Java.",
            "/why",
            "/remember Lena deploys with Nomad.",
            "/recall Nomad",
            "/rename Lena's intro",
            "/core",
            "/frobnicate",
            "/remember",
        ],
        "--session",
        "lena",
        cwd=tmp_path,
    )
    assert first.returncode == 0, first.stderr
    out = first.stdout
    assert "Context for 'Hello! My name is Lena" in out
    assert "[recent]" in out and "the message being answered" in out
    assert "remembered m_" in out and "Lena deploys with Nomad." in out
    # /recall finds what /remember added (an item of its own, as the model gets it)
    assert re.search(r"^Lena deploys with Nomad\.", out, re.M), out
    assert 'renamed to "Lena\'s intro"' in out
    assert "unknown command /frobnicate" in out
    assert "error: usage: /remember TEXT" in out
    assert "archived as ogm://archive/lena" in first.stderr

    with Memory(settings=Settings(home=home, embedder="none")) as mem:
        info = mem.get_session("lena")
        assert info.title == "Lena's intro" and info.turns == 1
        nodes = mem.get_nodes("lena")
        assert [n.role for n in nodes] == ["user", "assistant"]
        assert nodes[1].content.strip()  # the model's reply, recorded as it was printed
        assert nodes[1].content in out
        assert mem.session_state("lena", "archive")
        fsck(info.path)
        nomad = next(m for m in mem.memories() if "Nomad" in m.text)

    # a second conversation: what was remembered is in its context; /forget by text
    second = chat(
        home,
        llama_server,
        ["Where does Lena deploy?", "/why", "/forget Nomad", "/recall Nomad"],
        cwd=tmp_path,
    )
    assert second.returncode == 0, second.stderr
    assert "Lena deploys with Nomad." in second.stdout.split("Context for")[1]
    assert f"forgot {nomad.id}" in second.stdout
    after = second.stdout.split(f"forgot {nomad.id}: Lena deploys with Nomad.", 1)[1]
    assert not re.search(r"^Lena deploys with Nomad\.", after, re.M)  # /recall no longer finds it


def test_temporary_chat_leaves_nothing(tmp_path: Path, llama_server: str) -> None:
    home = tmp_path / "home"
    done = chat(
        home,
        llama_server,
        ["My PIN is 4921.", "/remember my PIN is 4921", "/core"],
        "--temporary",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("temporary conversation: memory is neither read nor written") == 2
    assert "erased" in done.stderr
    with Memory(settings=Settings(home=home, embedder="none")) as mem:
        assert mem.list_sessions() == [] and mem.memories() == []


def test_chat_without_an_endpoint_is_a_clear_error(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OGMEM_LLM")}
    done = subprocess.run(
        [*CLI, "chat", "--home", str(tmp_path)],
        input="hi\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "needs an OpenAI-compatible endpoint" in done.stderr
    assert not (tmp_path / "tenants").exists()


def test_the_demo_goes_on_into_a_chat_with_an_endpoint(tmp_path: Path, llama_server: str) -> None:
    env = {
        **os.environ,
        "OGMEM_LLM_BASE_URL": llama_server,
        "OGMEM_LLM_MODEL": "smollm2",
        "OGMEM_EMBEDDER": "none",
    }
    env.pop("OGMEM_HOME", None)
    env.pop("OGMEM_LOCOMO", None)
    done = subprocess.run(
        [*CLI, "demo", "--home", str(tmp_path / "demo-home")],
        capture_output=True,
        text=True,
        env=env,
        timeout=360,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    first_half, second_half = done.stdout.split("Chat with this memory (smollm2)", 1)
    assert "sample-1-s1" in first_half
    assert "you> " in second_half and "Context for" in second_half  # the question, then /why
    assert "[recall]" in second_half or "[core]" in second_half  # the demo's memory was used
    with Memory(settings=Settings(home=tmp_path / "demo-home", embedder="none")) as mem:
        chats = [s for s in mem.list_sessions() if s.session_id.startswith("s-")]
        assert len(chats) == 1 and chats[0].turns == 1
        assert mem.session_state(chats[0].session_id, "archive")
