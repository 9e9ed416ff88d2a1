"""The distillation pipeline over real sessions: contradictions, aliases, scopes, the memory
list projection, rollback, crash safety and rebuilding from files."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import pytest

from ogmemory import Memory, Settings
from ogmemory.distill.types import Candidate, EntityRef, ExtractionResult
from ogmemory.entity.records import NodeRecord


def ts(day: str) -> float:
    return datetime.fromisoformat(day).replace(tzinfo=UTC).timestamp()


class ToolFacts:
    """A small, deterministic extractor: "I use X" (language slot) and "X aka Y"."""

    name = "tool-facts"
    LANGS = frozenset({"JavaScript", "TypeScript", "Python", "Rust"})

    def extract(self, records: Sequence[NodeRecord]) -> ExtractionResult:
        out = []
        for rec in records:
            text = rec.node.text
            for word in text.replace(".", " ").replace(",", " ").split():
                if word in self.LANGS and rec.node.role == "user":
                    out.append(
                        Candidate(
                            type="tool",
                            text=f"The user uses {word}.",
                            session_id=rec.session_id,
                            node_ids=(rec.node.id,),
                            subject=EntityRef("user", "person"),
                            relation="uses",
                            object=EntityRef(word, "tool"),
                            slot="language",
                            kind="decision",
                            event_time=rec.node.event_time,
                        )
                    )
            if "deploy" in text:
                out.append(
                    Candidate(
                        type="case",
                        text=f"Deployed: {text}",
                        session_id=rec.session_id,
                        node_ids=(rec.node.id,),
                        subject=EntityRef("app", "project"),
                        relation="deployed_to",
                        object=EntityRef("prod", "resource"),
                        kind="work",
                    )
                )
        return ExtractionResult(out)


def make(tmp_path: Path, **kw: object) -> Memory:
    return Memory(
        settings=Settings(home=tmp_path / "home", distill_on_turn=False, **kw),  # type: ignore[arg-type]
        extractor=ToolFacts(),
    )


def say(mem: Memory, sid: str, text: str, day: str, **kw: object) -> None:
    mem.append_message(sid, {"role": "user", "content": text, "event_time": ts(day)}, **kw)  # type: ignore[arg-type]
    mem.append_message(sid, {"role": "assistant", "content": "ok", "event_time": ts(day) + 1})
    mem.commit_turn(sid)


def test_contradiction_ends_validity_and_history_stays_queryable(tmp_path: Path) -> None:
    mem = make(tmp_path)
    say(mem, "s1", "We write everything in JavaScript.", "2026-01-10")
    say(mem, "s1", "From now on it is TypeScript.", "2026-04-01")
    mem.sleep("light")
    now = [e.fact for e in mem.facts()]
    assert now == ["The user uses TypeScript."]
    march = [e.fact for e in mem.facts(at=ts("2026-03-15"))]
    assert march == ["The user uses JavaScript."]
    history = mem.facts(include_history=True)
    old = next(e for e in history if "JavaScript" in e.fact)
    new = next(e for e in history if "TypeScript" in e.fact)
    assert old.valid_to == new.valid_from == ts("2026-04-01")
    assert old.superseded_by == new.id
    # provenance points at the exact node and commit
    node = mem.get_nodes("s1")[0]
    assert old.provenance.node_ids == (node.id,)
    assert old.provenance.commit == mem.session_commits("s1")[-1].sha


def test_known_fact_gains_support_instead_of_a_copy(tmp_path: Path) -> None:
    mem = make(tmp_path)
    say(mem, "s1", "I use Python.", "2026-01-10")
    say(mem, "s2", "Python, as always.", "2026-01-11")
    mem.sleep("light")
    edges = mem.facts(include_history=True)
    assert len(edges) == 1
    (memory,) = mem.memories()
    assert len(mem.evidence(memory.id)) == 2


def test_alias_statements_merge_entities(tmp_path: Path) -> None:
    mem = Memory(settings=Settings(home=tmp_path / "h", distill_on_turn=False))
    say(mem, "s1", "The worker crashed again last night.", "2026-01-10")
    say(mem, "s1", "Restart the worker (aka the daemon) please.", "2026-01-11")
    say(mem, "s1", "worker 也叫 后端", "2026-01-12")
    mem.sleep("light")
    worker = mem.entity("worker")
    assert mem.entity("daemon").id == worker.id
    assert mem.entity("后端").id == worker.id
    assert {"daemon", "后端"} <= set(worker.aliases)


def test_scope_filtering(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    mem = make(tmp_path)
    say(mem, "global-s", "I use Rust.", "2026-01-10")
    say(mem, "proj-s", "deploy the app to prod", "2026-01-11", project=project)
    mem.sleep("light")
    pid = mem.list_projects()[0].project_id
    scoped = {e.scope for e in mem.facts(scope=f"project:{pid}")}
    assert scoped == {"global", f"project:{pid}"}
    assert {e.scope for e in mem.facts(scope="global")} == {"global"}
    assert {e.scope for e in mem.facts(scope="project:other")} == {"global"}
    assert all(e.scope == "global" for e in mem.timeline(scope="project:other"))
    assert any(e.kind == "work" for e in mem.timeline(scope=f"project:{pid}"))


def test_disable_hides_derived_facts_everywhere_and_enable_restores(tmp_path: Path) -> None:
    mem = make(tmp_path)
    say(mem, "s1", "I use Rust.", "2026-01-10")
    mem.sleep("deep")
    (memory,) = mem.memories()
    assert "Rust" in mem.core()
    views = mem.knowledge.views_dir
    assert (views / "tool.rust.md").exists()
    mem.disable_memory(memory.id)
    assert mem.facts() == [] and mem.timeline() == []
    assert "Rust" not in mem.core()
    assert not (views / "tool.rust.md").exists()
    assert mem.memories()[0].enabled is False  # nothing deleted
    mem.enable_memory(memory.id)
    assert [e.fact for e in mem.facts()] == ["The user uses Rust."]
    assert "Rust" in mem.core()
    assert (views / "tool.rust.md").exists()


def test_core_md_is_small_and_every_line_points_back(tmp_path: Path) -> None:
    mem = make(tmp_path)
    for i in range(60):
        say(mem, f"s{i}", f"deploy number {i} of a rather long description " * 3, "2026-02-01")
    say(mem, "s-last", "I use Python.", "2026-02-02")
    mem.sleep("deep")
    core = mem.core()
    assert len(core.encode()) <= 2048
    bullets = [line for line in core.splitlines() if line.startswith("·")]
    assert bullets and all("↪ session:" in line for line in bullets)


def test_rollback_restores_exactly_the_before_state(tmp_path: Path) -> None:
    mem = make(tmp_path)
    say(mem, "s1", "I use Python.", "2026-01-10")
    mem.sleep("light")
    before = (mem.memories(), mem.facts(include_history=True), mem.timeline(), mem.entities())
    say(mem, "s1", "Now Rust.", "2026-02-10")
    report = mem.sleep("light")
    assert mem.facts()[0].fact == "The user uses Rust."
    mem.rollback(report.batches[-1])
    after = (mem.memories(), mem.facts(include_history=True), mem.timeline(), mem.entities())
    assert after == before
    assert [b.rolled_back_by is not None for b in mem.batches()][:2] == [False, True]


def test_rebuild_from_files_gives_identical_results(tmp_path: Path) -> None:
    mem = make(tmp_path)
    say(mem, "s1", "I use Python.", "2026-01-10")
    say(mem, "s1", "Now Rust.", "2026-02-10")
    say(mem, "s2", "deploy it", "2026-02-11")
    mem.sleep("deep")
    views = mem.knowledge.views_dir
    snapshot = {p.name: p.read_text() for p in views.glob("*.md")}
    state = (mem.memories(), mem.facts(include_history=True), mem.timeline(), mem.entities())
    core_before = mem.knowledge.core_path.read_text()
    for p in views.glob("*.md"):
        p.unlink()
    mem.knowledge.core_path.unlink()
    fresh = make(tmp_path)
    assert (
        fresh.memories(),
        fresh.facts(include_history=True),
        fresh.timeline(),
        fresh.entities(),
    ) == state
    core_after = fresh.rebuild_views()
    assert {p.name: p.read_text() for p in views.glob("*.md")} == snapshot
    # core.md only differs in its "consolidated <date>" header when the day changes
    assert core_after.splitlines()[3:] == core_before.splitlines()[3:]


def test_cursor_resumes_and_never_duplicates(tmp_path: Path) -> None:
    mem = make(tmp_path, distill_batch_nodes=2)
    for i in range(5):
        say(mem, f"s{i}", "I use Python." if i % 2 else "I use Rust.", f"2026-01-1{i}")
    first = mem.distill(max_batches=2)
    assert len(first.batches) == 2 and mem.pending_nodes() > 0
    mem.distill()
    assert mem.pending_nodes() == 0
    assert mem.distill().batches == []
    total_nodes = sum(b.meta.get("nodes", 0) for b in mem.batches())
    assert total_nodes == 10
    assert len(mem.memories()) == 2  # "uses Rust", "uses Python": supported, not copied


CRASH_SCRIPT = textwrap.dedent("""
    import os, signal, sys
    sys.path.insert(0, {tests!r})
    from test_distill import make
    from ogmemory.storage import jsonl
    calls = {{"n": 0}}
    real = jsonl.JsonlKnowledgeStore._append
    def dying(self, rel, data):
        calls["n"] += 1
        if calls["n"] == {kill_at}:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(self, rel, data)
    jsonl.JsonlKnowledgeStore._append = dying
    from pathlib import Path
    mem = make(Path({tmp!r}))
    mem.distill()
""")


@pytest.mark.parametrize(
    "kill_at", [2, 4, 6]
)  # in the middle of the data files / before the marker
def test_kill_9_mid_batch_leaves_nothing_visible_and_next_run_completes(
    tmp_path: Path, kill_at: int
) -> None:
    mem = make(tmp_path)
    say(mem, "s1", "I use Python.", "2026-01-10")
    say(mem, "s2", "deploy to prod now", "2026-01-11")
    script = CRASH_SCRIPT.format(
        tests=str(Path(__file__).parent), kill_at=kill_at, tmp=str(tmp_path)
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    crashed = make(tmp_path)
    assert crashed.batches() == []  # no partial batch is visible
    assert crashed.memories() == [] and crashed.facts() == [] and crashed.timeline() == []
    memdir = crashed.tenant.memory_dir
    assert any(memdir.rglob("*.jsonl"))  # the orphan lines are there, just not visible
    crashed.distill()
    reference = make(tmp_path / "ref")
    say(reference, "s1", "I use Python.", "2026-01-10")
    say(reference, "s2", "deploy to prod now", "2026-01-11")
    reference.distill()
    assert sorted(m.text for m in crashed.memories()) == sorted(
        m.text for m in reference.memories()
    )
    assert len(crashed.facts(include_history=True)) == len(reference.facts(include_history=True))
    assert len(crashed.timeline()) == len(reference.timeline())
    assert crashed.pending_nodes() == 0


def test_yaml_type_the_code_has_never_seen(tmp_path: Path) -> None:
    schemas = tmp_path / "home" / "schemas"
    schemas.mkdir(parents=True)
    (schemas / "handoff.yaml").write_text(
        textwrap.dedent("""
        name: handoff
        description: Work handed over to a colleague.
        lifecycle: append_only
        entity_type: person
        relations: [handed_off_to]
        timeline_kind: work
        importance: 0.9
        extract:
          hint: Work the user hands over to someone else.
          patterns:
            - regex: "(?i)\\\\bhand(?:ing|ed)? (?:this )?(?:off|over) to (?P<object>[A-Z][a-z]+)"
              relation: handed_off_to
              text: "{speaker} handed work off to {object}"
    """)
    )
    mem = Memory(settings=Settings(home=tmp_path / "home", distill_on_turn=False))
    assert "handoff" in mem.schema.names()
    say(mem, "s1", "I'm handing this off to Maria tomorrow.", "2026-03-01")
    mem.sleep("light")
    handoffs = mem.memories(type="handoff")
    assert [m.text for m in handoffs] == ["user handed work off to Maria"]
    (edge,) = mem.facts(relation="handed_off_to")
    assert mem.entity(edge.dst).name == "Maria"
    assert mem.timeline(kind="work")[0].summary == "user handed work off to Maria"


def test_bad_yaml_type_is_a_clear_error(tmp_path: Path) -> None:
    from ogmemory import InvalidInput

    schemas = tmp_path / "home" / "schemas"
    schemas.mkdir(parents=True)
    (schemas / "bad.yaml").write_text("name: Bad Name\nlifecycle: sometimes\n")
    mem = Memory(settings=Settings(home=tmp_path / "home", distill_on_turn=False))
    with pytest.raises(InvalidInput, match=r"bad\.yaml"):
        mem.schema  # noqa: B018


def test_project_commits_become_work_events(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    mem = make(tmp_path)
    mem.append_message("s1", {"role": "user", "content": "add a readme"}, project=project)
    (project / "README.md").write_text("hello\n")
    mem.append_message("s1", {"role": "assistant", "content": "done"})
    result = mem.commit_turn("s1", model="tiny")
    assert result.project_commit
    mem.sleep("light")
    work = [e for e in mem.timeline(kind="work") if e.provenance.commit == result.project_commit]
    assert work and "README.md" in work[0].summary
    assert work[0].provenance.session_id == "s1"


def test_fast_path_distills_after_a_turn(tmp_path: Path) -> None:
    mem = Memory(settings=Settings(home=tmp_path / "h"), extractor=ToolFacts())
    say(mem, "s1", "I use Rust.", "2026-01-10")
    mem.wait_background(30)
    assert [e.fact for e in mem.facts()] == ["The user uses Rust."]


def test_memory_files_are_plain_jsonl(tmp_path: Path) -> None:
    mem = make(tmp_path)
    say(mem, "s1", "I use Rust.", "2026-01-10")
    mem.sleep("light")
    root = mem.tenant.memory_dir
    assert (root / "timeline" / "2026-01.jsonl").exists()
    for rel in (
        "graph/entities.jsonl",
        "graph/edges.jsonl",
        "memories/memories.jsonl",
        "memories/evidence.jsonl",
        "oplog/batches.jsonl",
    ):
        for line in (root / rel).read_text().splitlines():
            json.loads(line)
    edge = json.loads((root / "graph/edges.jsonl").read_text().splitlines()[0])
    for key in (
        "from",
        "to",
        "relation",
        "event_time",
        "ingestion_time",
        "valid_from",
        "valid_to",
        "confidence",
        "scope",
        "superseded_by",
        "provenance",
    ):
        assert key in edge
    assert os.path.basename(str(root)) == "memory"


def test_editing_a_memory_rederives_its_facts(tmp_path: Path) -> None:
    mem = Memory(settings=Settings(home=tmp_path / "h", distill_on_turn=False, embedder="none"))
    m = mem.remember("I prefer Python over Java.", type="preference")
    assert any("Python" in e.fact for e in mem.facts())
    core = mem.core(regenerate=True)
    assert f"↪ memory:{m.id}" in core
    mem.edit_memory(m.id, "I prefer Rust over Java.")
    facts = [e.fact for e in mem.facts()]
    assert any("Rust" in f for f in facts) and not any("Python" in f for f in facts)
    assert "Python" not in mem.core()
    assert mem.get_memory(m.id).version == 2


def test_a_long_lived_instance_sees_other_writers(tmp_path: Path) -> None:
    home = tmp_path / "h"
    reader = Memory(settings=Settings(home=home, distill_on_turn=False, embedder="none"))
    assert reader.memories() == [] and reader.facts() == []
    writer = Memory(settings=Settings(home=home, distill_on_turn=False, embedder="none"))
    writer.remember("I prefer Python over Java.", type="preference")
    assert [m.text for m in reader.memories()] == ["I prefer Python over Java."]
    assert reader.facts() and reader.entities()


def test_chinese_evidence_yields_chinese_facts(tmp_path: Path) -> None:
    mem = Memory(settings=Settings(home=tmp_path / "h", distill_on_turn=False, embedder="none"))
    say(mem, "s1", "我喜欢喝茶，不喜欢咖啡。", "2026-05-01")
    say(mem, "s2", "我们决定用 PostgreSQL，不用 MySQL。", "2026-05-02")
    mem.sleep("deep")
    texts = [m.text for m in mem.memories()] + [e.fact for e in mem.facts()]
    assert texts
    assert all(any("\u4e00" <= ch <= "\u9fff" for ch in t) for t in texts), texts
    assert all(m.language == "zh" for m in mem.memories())
    assert "最后整理" in mem.core()  # core.md follows the language of what it shows
