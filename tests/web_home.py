"""A real home for the web UI tests, built through the public API only: two tenants with their
own API keys; sessions with tool calls, a retry branch and a project; hand-written and distilled
memories (Chinese among them); a contradiction that ends one fact where the next begins."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from conftest import make_project

from ogmemory import Memory
from ogmemory.config import Settings
from ogmemory.interfaces.rest.keys import KeyStore

__all__ = ["WebHome", "build_home", "settings"]

#: The day the frontend language changed in the scripted conversation (UTC).
SWITCH_DAY = "2023-06-01"


def settings(home: Path, account: str = "local", space: str = "default") -> Settings:
    # Full text only: the UI shows what the index answers, and no model needs loading.
    return Settings(home=home, account=account, space=space, embedder="none", distill_on_turn=False)


@dataclass(frozen=True)
class WebHome:
    home: Path
    alice: str  # API key of tenant acme/alice
    bob: str  # API key of tenant acme/bob
    retry_branch: str
    tool_node: str
    project_id: str


def _turn(mem: Memory, sid: str, user: str, reply: str, when: str) -> None:
    mem.append_message(sid, {"role": "user", "content": user, "event_time": when})
    mem.append_message(sid, {"role": "assistant", "content": reply, "event_time": when})
    mem.commit_turn(sid)


def build_home(root: Path) -> WebHome:
    """Alice's memory (sessions, distillation, her own memories) and Bob's, each with a key."""
    home = root / "home"
    keys = KeyStore(home)
    alice = keys.create("acme", "alice", label="alice")[1]
    bob = keys.create("acme", "bob", label="bob")[1]
    with Memory(settings=settings(home, "acme", "alice")) as mem:
        mem.create_session("s1", title="Frontend stack")
        _turn(mem, "s1", "We use JavaScript for the frontend.", "Noted.", "2023-03-01T10:00:00Z")
        mem.append_message(
            "s1",
            {
                "role": "user",
                "content": "Run the tests please",
                "event_time": "2023-03-02T10:00:00Z",
            },
        )
        mem.append_message(
            "s1",
            {
                "role": "assistant",
                "content": None,
                "event_time": "2023-03-02T10:00:01Z",
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "run", "arguments": '{"cmd": "pytest"}'},
                    }
                ],
            },
        )
        tool = mem.append_message(
            "s1",
            {
                "role": "tool",
                "tool_call_id": "c1",
                "content": "5 passed",
                "event_time": "2023-03-02T10:00:02Z",
            },
        )
        first = mem.append_message(
            "s1",
            {
                "role": "assistant",
                "content": "All 5 tests pass.",
                "event_time": "2023-03-02T10:00:03Z",
            },
        )
        mem.commit_turn("s1")
        branch = mem.retry("s1", first.id)
        mem.append_message(
            "s1",
            {
                "role": "assistant",
                "content": "The 5 tests pass.",
                "event_time": "2023-03-02T10:01:00Z",
            },
        )
        mem.commit_turn("s1")
        _turn(
            mem,
            "s1",
            "We switched from JavaScript to TypeScript for the frontend.",
            "OK.",
            f"{SWITCH_DAY}T10:00:00Z",
        )
        _turn(mem, "s2", "我喜欢用 PostgreSQL 数据库。", "好的，记住了。", "2023-04-01T10:00:00Z")
        project = mem.resolve_project(make_project(root, "webshop"))
        mem.create_session("s3", project=project.project_id)
        _turn(
            mem, "s3", "The webshop deploys to Kubernetes.", "Understood.", "2023-05-01T09:00:00Z"
        )
        mem.remember("I prefer Python over Java.", type="preference")
        mem.remember("我们团队有 3 个人。", type="constraint")
        mem.sleep("deep")
    with Memory(settings=settings(home, "acme", "bob")) as mem:
        _turn(mem, "b1", "Bob's secret project is called Zephyr.", "Noted.", "2023-02-01T10:00:00Z")
        mem.remember("I prefer green tea over coffee.", type="preference")
        mem.remember("I use Emacs for everything.", type="tool")
        mem.sleep("deep")
    return WebHome(
        home=home,
        alice=alice,
        bob=bob,
        retry_branch=branch,
        tool_node=tool.id,
        project_id=project.project_id,
    )
