"""The context engine around a real agent loop: a real llama.cpp server (SmolLM2), real git
repositories, real SQLite. The model is weak, so these tests check what the engine records and
what it puts in the context, not what the model answers."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import commit_count, fsck, git, git_out, make_project

from ogmemory import ContextEngine, LLMSettings, Memory, Settings
from ogmemory.engine import EngineConfig, OpenAIChatAdapter, with_memory
from ogmemory.errors import InvalidInput
from ogmemory.llm.client import ChatClient

pytestmark = pytest.mark.timeout(300)


def llm_settings(base: str) -> LLMSettings:
    return LLMSettings(base_url=base, model="smollm2", timeout=120, max_retries=0)


def recording_llm(base: str) -> tuple[Any, list[list[dict[str, Any]]]]:
    """An LLM function over the real server that keeps every message list it was sent."""
    sent: list[list[dict[str, Any]]] = []
    client = ChatClient(llm_settings(base))

    def call(messages: list[dict[str, Any]]) -> str:
        sent.append(messages)
        return client.chat(messages, max_tokens=48, temperature=0.0).content

    return call, sent


@pytest.fixture
def fast_mem(tmp_path: Path) -> Any:
    """Full text only (no embedder to load): most engine tests do not need vectors."""
    m = Memory(settings=Settings(home=tmp_path / "home", embedder="none"))
    yield m
    m.close()


def test_facts_from_session_one_reach_the_context_of_session_three(
    fast_mem: Memory, llama_server: str
) -> None:
    engine = ContextEngine(fast_mem)
    llm, sent = recording_llm(llama_server)
    with_memory(engine, "s1", llm)("My name is Lena. I prefer Python over Java for backend work.")
    with_memory(engine, "s2", llm)("What is a good name for a cat?")
    fast_mem.wait_background(60)  # the fast path distils each turn in the background
    assert any("Python" in m.text for m in fast_mem.memories())

    with_memory(engine, "s3", llm)("Which programming language do I prefer?")
    system = sent[-1][0]
    assert system["role"] == "system" and "Python over Java" in system["content"]
    ctx = engine.last_context["s3"]
    memory_items = [i for i in ctx.items if i.source in ("core", "recall")]
    assert any("Python" in i.text for i in memory_items)
    for item in ctx.items:
        assert item.reason and item.tokens > 0
    assert ctx.tokens <= ctx.budget
    # the turn's context view (git commit -> context/commits/<sha>.json) keeps what was used
    info = fast_mem.get_session("s3")
    head = fast_mem.session_commits("s3")[0].sha
    view = json.loads((Path(info.path) / "context" / "commits" / f"{head}.json").read_text())
    assert {i["source"] for i in view["context"]["items"]} >= {"recent"}
    assert any(i["source"] in ("core", "recall") for i in view["context"]["items"])
    for sid in ("s1", "s2", "s3"):
        assert commit_count(fast_mem.get_session(sid).path) == 1
        fsck(fast_mem.get_session(sid).path)


def test_tool_calls_are_nodes_with_called_by_through_the_openai_adapter(
    fast_mem: Memory, llama_server: str
) -> None:
    engine = ContextEngine(fast_mem)
    url = llama_server.rstrip("/") + "/chat/completions"
    bodies: list[dict[str, Any]] = []

    def create(**body: Any) -> Any:  # any chat-completions call: here a plain HTTP post
        bodies.append(body)
        response = httpx.post(url, json=body, timeout=120)
        response.raise_for_status()
        return response.json()

    adapter = OpenAIChatAdapter(engine, "tools", create)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "What does app.py print?"},
        # llama.cpp's server wants a string here ("" rather than the null OpenAI allows)
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": json.dumps({"path": "app.py"})},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "name": "read_file", "content": "print('hi')"},
    ]
    response = adapter.create(model="smollm2", messages=messages, max_tokens=32)
    reply = response["choices"][0]["message"]
    nodes = fast_mem.get_nodes("tools")
    roles = [n.role for n in nodes]
    assert roles == ["user", "assistant", "tool", "assistant"]
    call, result, answer = nodes[1], nodes[2], nodes[3]
    assert call.tool_calls and call.tool_calls[0]["id"] == "call_1"
    assert result.called_by == call.id and result.tool_call_id == "call_1"
    assert answer.content == (reply.get("content") or "(no reply)").strip() or answer.content
    assert fast_mem.get_session("tools").turns == 1  # a final answer ends the turn
    # memory went out in the caller's system message; the caller's history was kept
    sent = bodies[0]["messages"]
    assert sent[0]["role"] == "system" and sent[0]["content"].startswith("You are a coding agent.")
    assert [m["role"] for m in sent[1:]] == ["user", "assistant", "tool"]

    # The next call carries the reply the caller appended and a new question: only the new
    # question is recorded (the reply was recorded when it came back).
    messages += [reply, {"role": "user", "content": "Thanks. And in Python 2?"}]
    adapter.create(model="smollm2", messages=messages, max_tokens=16)
    assert [n.role for n in fast_mem.get_nodes("tools")][4:] == ["user", "assistant"]
    assert fast_mem.get_session("tools").turns == 2
    fsck(fast_mem.get_session("tools").path)


def test_files_touched_are_recorded_when_the_caller_says_so(fast_mem: Memory) -> None:
    engine = ContextEngine(fast_mem)
    engine.on_message("f", "Fix the bug in util.py")
    call = engine.on_tool_call("f", "edit", {"path": "util.py", "patch": "..."})
    done = engine.on_tool_result(
        "f",
        call.call_ids[0],
        {"ok": True},
        name="edit",
        files_read=["util.py"],
        files_written=["util.py"],
    )
    node = next(n for n in fast_mem.get_nodes("f") if n.id == done.node_id)
    assert node.metadata["files_written"] == ["util.py"]
    assert done.called_by == call.node_id
    with pytest.raises(InvalidInput):
        engine.on_tool_result("f", "c9", "x", files_read="util.py")


def test_project_edits_are_auto_committed_only_from_a_clean_tree(
    tmp_path: Path, fast_mem: Memory
) -> None:
    project = make_project(tmp_path)
    engine = ContextEngine(fast_mem)
    got = engine.on_message(
        "p", "Add a health check", cwd=project / "src" if (project / "src").exists() else project
    )
    assert got.project_id != "default"
    (project / "app.py").write_text("def health():\n    return 'ok'\n")  # the agent's edit
    first = engine.after_turn("p", reply="Added health().")
    assert first.project_commit is not None and not first.warnings
    assert git_out(project, "log", "-1", "--format=%an").startswith("agent (")

    (project / "README.md").write_text("# user's own uncommitted edit\n")  # dirty before turn 2
    engine.on_message("p", "Also log requests")
    (project / "app.py").write_text("def health():\n    print('req')\n    return 'ok'\n")
    second = engine.after_turn("p", reply="Done.")
    assert second.project_commit is None
    assert any("uncommitted changes" in w for w in second.warnings)
    assert git_out(project, "log", "-1", "--format=%s") == git_out(
        project, "log", "-1", "--format=%s", first.project_commit
    )
    assert "README.md" in git_out(project, "status", "--porcelain")  # the user's work untouched
    fsck(project)

    # a directory outside any git repository is not bound (and never git-initialised)
    loose = tmp_path / "loose"
    loose.mkdir()
    got = engine.on_message("q", "hello", cwd=loose)
    assert got.project_id == "default" and not (loose / ".git").exists()
    assert any("not inside a git repository" in r for r in got.reasons)


def _fill(engine: ContextEngine, sid: str, turns: int) -> None:
    for i in range(turns):
        engine.on_message(sid, f"Step {i}: look at the parser again, case {i}. " + "detail " * 30)
        call = engine.on_tool_call(sid, "read_file", {"path": "parser.py"})
        engine.on_tool_result(
            sid,
            call.call_ids[0],
            "def parse(x):\n" + "    pass\n" * 60,
            name="read_file",
            files_read=["parser.py"],
        )
        ctx = engine.before_inference(sid)
        assert ctx.tokens <= ctx.budget, ctx.explain()
        engine.after_turn(sid, reply=f"Checked case {i}.")


def test_compaction_keeps_the_context_under_budget_with_provenance(fast_mem: Memory) -> None:
    config = EngineConfig(budget=2000, recall_budget=300, core_budget=200, compaction="rules")
    engine = ContextEngine(fast_mem, config)
    _fill(engine, "c", 25)
    nodes = fast_mem.get_nodes("c")
    summaries = [n for n in nodes if n.metadata.get("ogmem_derived") == "compaction"]
    assert len(summaries) >= 2
    originals = {n.id for n in nodes if not n.metadata.get("ogmem_derived")}
    replaced = [r for s in summaries for r in s.metadata["replaces"]]
    assert set(replaced) <= originals and len(replaced) == len(set(replaced))  # each folded once
    assert summaries[-1].metadata["folds"] == summaries[-2].id  # the chain of summaries
    assert all(s.metadata["method"] == "rules" for s in summaries)
    # every original node is either folded by a summary or still live: nothing is lost
    ctx = engine.before_inference("c")
    live = {i.uri.rsplit("/", 1)[-1] for i in ctx.items if i.source == "recent" and i.uri}
    assert ctx.compaction is None or not ctx.compaction.compacted or ctx.tokens <= 2000
    assert any(i.source == "summary" for i in ctx.items)
    assert live.isdisjoint(replaced)
    # repeated reads of the same file are shown once, in the summary and in the live turns
    assert "parser.py was read again later" in summaries[-1].content
    assert "Files read: parser.py" in summaries[-1].content
    # summaries are derived: never distilled, never indexed
    fast_mem.sleep("light")
    assert not any("Summary of the earlier conversation" in m.text for m in fast_mem.memories())
    hits = fast_mem.search("Summary of the earlier conversation", limit=50)
    assert not any(h.node_ids and h.node_ids[0] in {s.id for s in summaries} for h in hits)
    # the summary's URI resolves, with links to every node it replaced
    resolved = fast_mem.resolve_uri(f"ogm://node/c/{summaries[0].id}")
    assert resolved.meta["derived"] is True
    assert {u.rsplit("/", 1)[-1] for u in resolved.links} >= set(summaries[0].metadata["replaces"])
    fsck(fast_mem.get_session("c").path)


def test_llm_compaction_uses_the_configured_model(tmp_path: Path, llama_server: str) -> None:
    settings = Settings(
        home=tmp_path / "h", embedder="none", llm=llm_settings(llama_server), distill_on_turn=False
    )
    with Memory(settings=settings) as mem:
        engine = ContextEngine(mem, EngineConfig(budget=2000, recall_budget=300, core_budget=200))
        for i in range(6):
            engine.on_message(
                "l", f"We decided to use Redis for the cache of service {i}. " + "context " * 40
            )
            engine.after_turn("l", reply=f"Noted for service {i}.")
        result = engine.on_compact("l")
        assert result.compacted
        node = next(n for n in mem.get_nodes("l") if n.id == result.node_id)
        assert node.metadata["method"] == result.method
        if result.method == "llm":
            assert "written by smollm2" in str(node.content)
        else:  # the weak model may fail validation: the rules must take over, and say so
            assert any("rules used" in r for r in result.reasons)
        assert len(result.replaces) == 4 * 2  # all but the newest two turns (user + reply)


def test_closed_session_has_an_archive_and_reopening_is_recorded(fast_mem: Memory) -> None:
    engine = ContextEngine(fast_mem)
    engine.on_message("a", "Plan the release. I prefer small commits.")
    todo = engine.on_tool_call(
        "a",
        "TodoWrite",
        {
            "todos": [
                {"content": "Write the changelog", "status": "completed", "activeForm": "Writing"},
                {"content": "Tag v1.2", "status": "pending", "activeForm": "Tagging"},
            ]
        },
    )
    engine.on_tool_result("a", todo.call_ids[0], "Todos updated", name="TodoWrite")
    read = engine.on_tool_call("a", "Read", {"file_path": "CHANGELOG.md"})
    engine.on_tool_result("a", read.call_ids[0], "# Changes", name="Read")
    engine.after_turn("a", reply="Next:\n- [ ] Push the tag\n- [x] Bump version")
    engine.on_message("a", "Thanks, that is all.")  # left uncommitted: close commits it

    closed = engine.on_session_close("a", reason="user quit")
    assert closed.closed and closed.committed_turn == 2 and closed.archive_uri == "ogm://archive/a"
    archive = fast_mem.resolve_uri("ogm://archive/a")
    content = archive.content or {}
    assert content["open_tasks"] == ["Tag v1.2", "Push the tag"]
    assert content["files_read"] == ["CHANGELOG.md"]
    assert content["title"] and content["abstract"] and content["overview"]
    assert content["snapshot"]["turns"] == 2 and content["snapshot"]["last_commit"]
    assert any(
        "small commits" in fast_mem.get_memory(m).text for m in content["snapshot"]["memory_ids"]
    )
    assert engine.state("a")["closed_at"]

    again = engine.on_message("a", "One more thing: use signed tags.")
    assert again.reopened
    node = next(n for n in fast_mem.get_nodes("a") if n.id == again.node_id)
    assert node.metadata["reopens_session"]["closed_at"] == content["closed_at"]
    state = engine.state("a")
    assert state["closed_at"] is None and state["reopened"][0]["node_id"] == again.node_id
    fsck(fast_mem.get_session("a").path)


def _tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")} if root.exists() else set()


def test_temporary_conversation_leaves_no_trace(tmp_path: Path, llama_server: str) -> None:
    home = tmp_path / "home"
    with Memory(settings=Settings(home=home, embedder="none")) as mem:
        engine = ContextEngine(mem)
        llm, sent = recording_llm(llama_server)
        with_memory(engine, "kept", llm)("I prefer tea over coffee.")
        mem.wait_background(60)
        before = _tree(home)
        batches = len(mem.batches())
        chat = with_memory(engine, "secret", llm, temporary=True)
        chat("My bank PIN is 4921. Do you remember my drink preference?")
        chat("Summarise what I told you.")
        ctx = engine.last_context["secret"]
        assert ctx.temporary and not [i for i in ctx.items if i.source in ("core", "recall")]
        assert "tea" not in sent[-1][0]["content"]  # memory was not read
        temp_path = Path(mem.get_session("secret").path)
        closed = engine.on_session_close("secret")
        assert closed.erased and not temp_path.exists()
        mem.wait_background(30)
        assert _tree(home) == before  # nothing written where memory lives
        assert len(mem.batches()) == batches
        assert "secret" not in {s.session_id for s in mem.list_sessions()}
        assert not mem.search("PIN 4921")
        assert all("4921" not in i.text for i in mem.recall("bank PIN").items)


def test_turn_end_returns_before_embedding_ends(tmp_path: Path) -> None:
    # no worker thread: the queued embeddings can only be done by a later drain, which
    # proves that after_turn did not wait for them
    settings = Settings(home=tmp_path / "home", index_worker=False, distill_on_turn=False)
    with Memory(settings=settings) as mem:
        engine = ContextEngine(mem)
        engine.on_message("e", "Our staging cluster runs in Frankfurt.")
        done = engine.after_turn("e", reply="Noted.")
        assert "embed" in done.queued and done.commit
        status = mem.outbox_status()
        assert status["pending"] >= 2  # the two turn documents (and the session's)
        stats = mem.index_stats()
        assert stats["vectors"] < stats["documents"]
        assert mem.drain_outbox() >= 2
        stats = mem.index_stats()
        assert stats["vectors"] == stats["documents"]


def test_no_embedder_process_queues_vectors_for_the_recorded_embedder(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with Memory(settings=Settings(home=home, index_worker=False)) as full:
        turn_one = ContextEngine(full)
        turn_one.on_message("t", "The database is PostgreSQL 16.")
        turn_one.after_turn("t", reply="OK.")
        full.drain_outbox()
        assert full.index_stats()["embedder"]  # the index records which embedder it uses
    # a hook process: no embedder loaded, no worker
    with Memory(settings=Settings(home=home, embedder="none", index_worker=False)) as fast:
        engine = ContextEngine(fast)
        engine.on_message("t", "The queue is RabbitMQ.")
        engine.after_turn("t", reply="OK.")
        stats = fast.index_stats()
        assert stats["vectors"] < stats["documents"]  # written without vectors
    with Memory(settings=Settings(home=home, index_worker=False)) as later:
        later.sync_index()
        later.drain_outbox()
        stats = later.index_stats()
        assert stats["vectors"] == stats["documents"]


def test_engine_rejects_bad_input_and_writes_nothing(fast_mem: Memory) -> None:
    engine = ContextEngine(fast_mem)
    for bad in ("", "   ", None, 5):
        with pytest.raises(InvalidInput):
            engine.on_message("b", bad)
    with pytest.raises(InvalidInput):
        engine.on_message("../x", "hi")
    with pytest.raises(InvalidInput):
        EngineConfig(budget=10)
    assert "b" not in {s.session_id for s in fast_mem.list_sessions()}
    engine.on_message("b", "hi")
    with pytest.raises(InvalidInput):
        engine.before_inference("b", budget=10)
    with pytest.raises(InvalidInput):
        engine.on_tool_call("b", "")
    assert os.path.isdir(fast_mem.get_session("b").path)
    fast_mem.close()
    git(fast_mem.get_session("b").path, "status")


def _imports(path: Path, package: str) -> set[str]:
    """Absolute names of the modules a source file imports."""
    import ast

    tree = ast.parse(path.read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[: len(base) - node.level + 1]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            found.add(name)
            found.update(f"{name}.{alias.name}" for alias in node.names)
    return found


def test_nothing_below_the_facade_imports_the_engine_or_the_interfaces() -> None:
    root = Path(__file__).parent.parent / "src" / "ogmemory"
    for path in root.rglob("*.py"):
        rel = path.relative_to(root)
        if rel.parts[0] in ("engine", "interfaces") or (
            rel.name == "__init__.py" and len(rel.parts) == 1
        ):
            continue  # above the facade (the package root re-exports ContextEngine lazily)
        package = ".".join(("ogmemory", *rel.parts[:-1]))
        bad = {
            m
            for m in _imports(path, package)
            if m.startswith(("ogmemory.engine", "ogmemory.interfaces"))
        }
        assert not bad, f"{rel} imports {sorted(bad)}"


def _core_text(engine: ContextEngine, sid: str) -> str:
    ctx = engine.before_inference(sid)
    return next((i.text for i in ctx.items if i.source == "core"), "")


def test_core_md_in_the_context_follows_every_change_a_user_makes(fast_mem: Memory) -> None:
    """core.md is rendered once per knowledge change and reused (knowledge.core_cache): each
    user action must show in the very next assembly."""
    engine = ContextEngine(fast_mem)
    engine.on_message("c", "Hello.")
    assert "Rust" not in _core_text(engine, "c")
    mem = fast_mem.remember("I prefer Rust for command line tools.", type="preference")
    assert "Rust" in _core_text(engine, "c")
    fast_mem.edit_memory(mem.id, "I prefer Zig for command line tools.")
    text = _core_text(engine, "c")
    assert "Zig" in text and "Rust" not in text
    fast_mem.disable_memory(mem.id)
    assert "Zig" not in _core_text(engine, "c")
    fast_mem.enable_memory(mem.id)
    assert "Zig" in _core_text(engine, "c")
    fast_mem.forget(mem.id)
    assert "Zig" not in _core_text(engine, "c")
    fast_mem.remember("I prefer tabs over spaces.", type="preference")
    assert "tabs" in _core_text(engine, "c")
    derived = fast_mem.batches()[-1]  # the facts of the memory ("distill memory")
    assert derived.meta.get("memory_id")
    fast_mem.rollback(derived.id)
    assert "tabs" not in _core_text(engine, "c")
    # the same through another Memory over the same files (another process, as a hook is)
    with Memory(settings=Settings(home=fast_mem.settings.home, embedder="none")) as other:
        other.remember("I prefer Fish as my shell.", type="preference")
    assert "Fish" in _core_text(engine, "c")


def test_core_md_is_rendered_after_a_commit_not_by_the_next_assembly(fast_mem: Memory) -> None:
    """A batch that commits wakes a background render of the scopes read before, so the next
    assembly finds core.md ready instead of rendering it (a fifth of the assembly at 1,000
    turns, bench/bench_engine.py)."""
    engine = ContextEngine(fast_mem)
    engine.on_message("w", "Hi.")
    engine.before_inference("w")
    cache = fast_mem.knowledge.core_cache
    assert cache.ready("global")
    fast_mem.remember("I prefer tabs over spaces.", type="preference")
    deadline = time.monotonic() + 60
    while not cache.ready("global"):
        assert time.monotonic() < deadline, "core.md was not rendered in the background"
        time.sleep(0.02)
    rendered = cache.renders
    assert "tabs" in _core_text(engine, "w")
    assert cache.renders == rendered  # the assembly rendered nothing


def test_the_live_view_kept_per_session_equals_the_full_one(fast_mem: Memory) -> None:
    """``live.LiveCache`` extends the view by the nodes appended since the last look: it must
    give what ``live_view`` gives over the whole branch, across compactions, and start again
    for a branch that does not extend the one it saw."""
    from ogmemory.engine.live import LiveCache, live_view

    engine = ContextEngine(fast_mem, EngineConfig(keep_turns=1))
    cache = LiveCache()

    def same(branch: list[Any]) -> None:
        full, kept = live_view(branch), cache.view("l", branch)
        assert [n.id for n in kept.nodes] == [n.id for n in full.nodes]
        assert (kept.summary and kept.summary.id) == (full.summary and full.summary.id)
        assert kept.folded == full.folded

    for i in range(7):
        engine.on_message("l", f"Question {i}: where do the logs of service {i} go?")
        same(fast_mem.get_branch_nodes("l"))
        engine.after_turn("l", reply=f"Answer {i}: to Loki.")
        if i in (2, 5):
            assert engine.on_compact("l").compacted
        same(fast_mem.get_branch_nodes("l"))
    branch = fast_mem.get_branch_nodes("l")
    same(branch[:3])  # not an extension of what was seen: computed in full
    same(branch)


def test_core_md_after_distillation_once_the_background_work_is_done(fast_mem: Memory) -> None:
    """After distillation batches only, an assembly may get core.md as it was a moment ago
    while it is rendered again beside it; ``wait_background`` waits for that render too."""
    engine = ContextEngine(fast_mem)
    engine.on_message("d", "I prefer Go for command line tools.")
    assert "Go for command line" not in _core_text(engine, "d")
    engine.after_turn("d", reply="Noted.")
    fast_mem.wait_background(60)
    assert fast_mem.knowledge.core_cache.ready("global")
    engine.on_message("d", "And what about the web?")
    assert "Go for command line tools" in _core_text(engine, "d")
