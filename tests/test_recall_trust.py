"""Recall a model can trust (issue 15): pointers open the right evidence, forget means forget,
the user's word wins."""

from __future__ import annotations

import shutil
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from ogmemory import InMemoryBackend, Memory, Settings


def ts(day: str) -> float:
    return datetime.fromisoformat(day).replace(tzinfo=UTC).timestamp()


def make(home: Path, **kw: object) -> Memory:
    opts: dict[str, object] = {"distill_on_turn": False, "embedder": "none", "index_worker": False}
    opts.update(kw)
    return Memory(settings=Settings(home=home, **opts))  # type: ignore[arg-type]


def say(mem: Memory, sid: str, user: str, day: str, reply: str = "Noted.") -> None:
    mem.append_message(sid, {"role": "user", "content": user, "event_time": ts(day), "name": "Ana"})
    mem.append_message(sid, {"role": "assistant", "content": reply, "event_time": ts(day) + 1})
    mem.commit_turn(sid)


def everything(mem: Memory, query: str) -> str:
    """What recall and search give back for ``query``, as one text."""
    result = mem.recall(query)
    return "\n".join([i.text for i in result.items] + [h.text for h in mem.search(query)])


def test_every_item_is_one_sessions_turns_and_every_cited_node_opens(tmp_path: Path) -> None:
    mem = make(tmp_path / "h")
    for i in range(8):  # the same topic in many sessions: the items must not mix them
        say(
            mem,
            f"trip{i}",
            f"Our kayak trip number {i} went down the river.",
            f"2026-03-{i + 1:02d}",
            reply=f"Kayak trip {i} sounds fun.",
        )
    mem.sleep("deep")
    result = mem.recall("kayak trip on the river")
    assert result.items
    for item in result.items:
        if not item.node_ids:
            continue
        assert item.session_id is not None
        nodes = {n.id for n in mem.get_nodes(item.session_id)}
        assert set(item.node_ids) <= nodes, item
        for node in item.node_ids:  # the navigation tool opens each of them
            assert any(n.id == node for n in mem.open_session(item.session_id, around=node))


def test_a_deleted_session_vanishes_from_recall_and_search_at_once(tmp_path: Path) -> None:
    home = tmp_path / "h"
    mem = make(home)
    say(mem, "keep", "We deploy with Kubernetes.", "2026-01-10")
    say(mem, "secret", "My zorblax password hint is the cat's name.", "2026-01-11")
    mem.sleep("deep")
    assert "zorblax" in everything(mem, "zorblax password")
    mem.delete_session("secret")
    assert "zorblax" not in everything(mem, "zorblax password")
    # deleted by another process (the CLI, another server): gone from this one's reads too
    say(mem, "secret2", "The zorblax vault code is 1234.", "2026-01-12")
    mem.sync_index()
    assert "zorblax" in everything(mem, "zorblax vault")
    other = make(home)
    other.delete_session("secret2")
    assert "zorblax" not in everything(mem, "zorblax vault")
    assert "Kubernetes" in everything(mem, "deploy Kubernetes")


def test_disabled_or_deleted_memory_withholds_its_evidence_turns(tmp_path: Path) -> None:
    mem = make(tmp_path / "h")
    say(mem, "s1", "I prefer pnpm as my package manager.", "2026-02-01")
    say(mem, "s2", "We deploy with Kubernetes.", "2026-02-02")
    mem.sleep("deep")
    (pref,) = [m for m in mem.memories() if "pnpm" in m.text]
    assert "pnpm" in everything(mem, "pnpm package manager")
    mem.disable_memory(pref.id)
    assert "pnpm" not in everything(mem, "pnpm package manager")
    assert any("pnpm" in n.text for n in mem.open_session("s1"))  # the record is immutable
    mem.enable_memory(pref.id)
    assert "pnpm" in everything(mem, "pnpm package manager")
    mem.forget(pref.id)
    assert "pnpm" not in everything(mem, "pnpm package manager")
    # another enabled memory resting on the same turn keeps it visible
    extra = mem.remember("Ana prefers pnpm as her package manager.", type="preference")
    assert "pnpm" in everything(mem, "pnpm package manager")
    mem.disable_memory(extra.id)


def test_the_users_edit_wins_over_the_turn_it_rewrites(tmp_path: Path) -> None:
    mem = Memory(
        settings=Settings(home=tmp_path / "h", distill_on_turn=False, index_worker=False),
        backend=InMemoryBackend(),
    )
    say(mem, "s1", "I prefer pnpm as my package manager.", "2026-02-01")
    say(mem, "s1", "We deploy with Kubernetes on Fridays.", "2026-02-02")
    mem.sleep("deep")
    (pref,) = [m for m in mem.memories() if "pnpm" in m.text]
    mem.edit_memory(pref.id, "Ana prefers yarn as her package manager.")
    mem.drain_outbox()
    result = mem.recall("which package manager does Ana use?")
    texts = [i.text for i in result.items]
    assert any("yarn" in t for t in texts), texts
    first_yarn = next(i for i, t in enumerate(texts) if "yarn" in t)
    assert all("pnpm" not in t for t in texts[:first_yarn]), texts  # the edit leads


def _filled(home: Path) -> Memory:
    mem = make(home)
    say(mem, "s1", "We use JavaScript for the backend.", "2026-01-10")
    say(mem, "s2", "My sister Lena moved to Berlin in March.", "2026-04-09")
    mem.sleep("deep")
    mem.recall("Lena")  # the index exists
    return mem


@pytest.mark.parametrize("damage", ["garbage", "docs", "docs_fts", "vecs"])
def test_a_damaged_index_is_detected_and_rebuilt(tmp_path: Path, damage: str) -> None:
    home = tmp_path / "h"
    _filled(home).close()
    path = home / "tenants" / "local" / "default" / "index" / "index.sqlite"
    if damage == "garbage":
        path.write_bytes(b"this is not a database " * 200)
        for suffix in ("-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
    else:
        conn = sqlite3.connect(path)
        conn.execute(f"DROP TABLE {damage}")
        conn.commit()
        conn.close()
    mem = make(home)
    result = mem.recall("Where did Lena move?")
    assert not result.fallback and "Berlin" in "\n".join(i.text for i in result.items)
    assert any("JavaScript" in h.text for h in mem.search("JavaScript"))


def test_an_unusable_index_falls_back_to_the_session_files(tmp_path: Path) -> None:
    home = tmp_path / "h"
    _filled(home).close()
    path = home / "tenants" / "local" / "default" / "index" / "index.sqlite"
    shutil.rmtree(path.parent)
    path.parent.write_text("not a directory")  # the index cannot even be created
    mem = make(home)
    result = mem.recall("Where did Lena move?")
    assert result.fallback and result.reason and "session files" in result.reason
    texts = [i.text for i in result.items]
    assert any("Berlin" in t for t in texts) and len(texts) == len(set(texts))
    assert all(i.session_id in ("s1", "s2") and i.node_ids for i in result.items)
    assert result.tokens <= result.budget


def test_an_embedder_failure_degrades_to_full_text_without_duplicates(tmp_path: Path) -> None:
    class Broken:
        name, dim = "broken", 8

        def encode(self, texts: object) -> object:
            raise RuntimeError("the embedder fell over")

    mem = Memory(
        settings=Settings(home=tmp_path / "h", distill_on_turn=False, index_worker=False),
        embedder=Broken(),  # type: ignore[arg-type]
        backend=InMemoryBackend(),
    )
    say(mem, "s1", "We use JavaScript for the backend.", "2026-01-10")
    say(mem, "s2", "My sister Lena moved to Berlin in March.", "2026-04-09")
    mem.sleep("deep")
    result = mem.recall("Where did Lena move?")
    assert not result.fallback and "dense_error" in result.stats
    texts = [i.text for i in result.items]
    assert any("Berlin" in t for t in texts) and len(texts) == len(set(texts))
    latest = mem.retrieval.recaller().latest("x", budget=2000, scopes=None)
    shown = [i.text for i in latest.items]
    assert shown and len(shown) == len(set(shown))  # no record twice (abstract + overview)


def test_recall_abstains_when_nothing_is_relevant(tmp_path: Path) -> None:
    mem = Memory(
        settings=Settings(home=tmp_path / "h", distill_on_turn=False, index_worker=False),
        backend=InMemoryBackend(),
    )
    lines = [
        ("s1", "I adopted a rescue dog named Biscuit last spring.", "2026-03-02"),
        ("s1", "Biscuit loves long walks by the lake every morning.", "2026-03-03"),
        ("s2", "Our team moved the billing service to Go this quarter.", "2026-04-01"),
        ("s2", "The billing service now runs on Kubernetes in eu-west-1.", "2026-04-02"),
        ("s3", "My sister Lena is getting married in Lisbon in June.", "2026-05-05"),
        ("s3", "I am learning to play the cello on weekends.", "2026-05-06"),
    ]
    for sid, text, day in lines:
        say(mem, sid, text, day, reply="That is good to know.")
    mem.sleep("deep")
    mem.sync_index()
    mem.drain_outbox()
    for question in (
        "What is the capital of Mongolia?",
        "Who won the 1998 FIFA World Cup?",
        "What is the chemical formula of caffeine?",
    ):
        result = mem.recall(question)
        assert result.items == () and result.tokens == 0, (question, result.stats)
        assert result.reason and "nothing relevant" in result.reason and not result.fallback
    for question, needle in (
        ("What is my dog called?", "Biscuit"),
        ("Where does the billing service run?", "Kubernetes"),
        ("Where is Lena's wedding?", "Lisbon"),
    ):
        result = mem.recall(question)
        assert any(needle in i.text for i in result.items), (question, result.stats)
    # a recipe can turn the floor off
    assert mem.recall("What is the capital of Mongolia?", recipe="everything").items


def test_a_tiny_memory_always_answers(tmp_path: Path) -> None:
    mem = Memory(
        settings=Settings(home=tmp_path / "h", distill_on_turn=False, index_worker=False),
        backend=InMemoryBackend(),
    )
    say(mem, "s1", "I adopted a rescue dog named Biscuit.", "2026-03-02")
    mem.sync_index()
    mem.drain_outbox()
    result = mem.recall("What is my dog called?")
    assert any("Biscuit" in i.text for i in result.items)
    assert "relevance" not in result.stats  # too few documents to tell relevance apart


def test_search_returns_one_hit_per_record_and_a_pointer_commit_opens_its_turn(
    tmp_path: Path,
) -> None:
    mem = make(tmp_path / "h")
    say(mem, "s1", "We decided to use PostgreSQL for the billing database.", "2026-01-10")
    say(mem, "s1", "Lunch was nice today.", "2026-01-11")
    mem.sleep("deep")
    hits = mem.search("PostgreSQL billing database", limit=20)
    records = [h.id.removesuffix(":1") for h in hits]
    assert len(records) == len(set(records))
    memory_hits = [h for h in hits if h.kind == "memory"]
    assert len(memory_hits) == 1 and len(mem.memories()) == 1
    assert mem.timeline() or mem.facts()  # the memory has derived records ...
    assert not any(h.kind in ("event", "fact") for h in hits)  # ... which it stands for
    result = mem.recall("Which database for billing?")
    item = next(i for i in result.items if "PostgreSQL" in i.text)
    assert item.commit
    opened = mem.open_session(item.session_id or "", around=item.commit[:7], radius=0)
    assert len(opened) == 1 and "PostgreSQL" in opened[0].text


def test_a_small_memory_answers_paraphrases_and_still_abstains_on_unrelated(tmp_path: Path) -> None:
    """The floor grows with the memory's size: six facts are enough to answer questions that
    share no word with them, and still too few to answer general knowledge."""
    mem = Memory(
        settings=Settings(home=tmp_path / "h", distill_on_turn=False, index_worker=False),
        backend=InMemoryBackend(),
    )
    for sid, text, day in (
        ("s1", "I adopted a rescue dog named Biscuit.", "2026-03-02"),
        ("s2", "The billing service now runs on Kubernetes.", "2026-04-02"),
        ("s3", "I am learning to play the cello on weekends.", "2026-05-06"),
    ):
        say(mem, sid, text, day, reply="That is good to know.")
    mem.sleep("deep")
    mem.sync_index()
    mem.drain_outbox()
    for question in ("What instrument am I learning?", "What do I do on weekends?"):
        result = mem.recall(question)
        assert any("cello" in i.text for i in result.items), (question, result.stats)
        assert result.stats["floor"] < 0.06  # below the embedder's full floor
    assert mem.recall("Who won the 1998 FIFA World Cup?").items == ()


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("The staging server is staging.fernwood.dev", "config"),
        ("I prefer pnpm over npm", "preference"),
        ("My name is Ana Lopez", "profile"),
        ("Always run the linter before committing", "rule"),
        ("I had a long walk by the river this morning", "event"),
        ("ok then", "note"),  # nothing distillation reads: a plain note
    ],
)
def test_a_memory_written_without_a_type_gets_the_type_its_words_say(
    tmp_path: Path, text: str, kind: str
) -> None:
    # A server address typed 'profile' landed in core.md's profile section.
    mem = make(tmp_path / "h")
    assert mem.remember(text).type == kind
    assert mem.remember(text, type="tool").type == "tool"  # a type given is kept


def test_a_written_memory_and_its_fact_are_one_item(tmp_path: Path) -> None:
    # Recall printed "The staging server is staging.fernwood.dev. (2026-12-01 → now)" and then
    # "The staging server is staging.fernwood.dev" as two items.
    mem = make(tmp_path / "h")
    mem.remember("The staging server is staging.fernwood.dev")
    mem.remember("We deploy billing with Nomad")
    texts = [i.text for i in mem.recall("what is the staging server?").items]
    assert sum("staging.fernwood.dev" in t for t in texts) == 1, texts


def test_a_small_memory_answers_a_question_whose_words_it_holds(tmp_path: Path) -> None:
    """A reviewer's first memory, seven developer turns: the vector floor alone answered
    nothing to "which database do we use?" (0.039 above the background, floor 0.040)."""
    mem = Memory(settings=Settings(home=tmp_path / "h", distill_on_turn=False))
    turns = (
        (
            "Hi, I'm Dana Kowalski, I work at Fernwood Labs.",
            "Nice to meet you, Dana! How can I help?",
        ),
        ("I prefer pnpm over npm for this repo.", "Got it, I'll use pnpm."),
        ("The API listens on port 8080.", None),
        (
            "Let's switch from MySQL to Postgres.",
            "OK, I'll update the database config to Postgres.",
        ),
        ("The beta ships on March 3.", "Noted: beta on March 3."),
        ("Update: the beta moved to March 10.", "Understood, the beta is now March 10."),
        ("Never push to main directly.", "Understood, I'll always open a pull request."),
    )
    for i, (user, reply) in enumerate(turns, 1):
        at = f"2026-02-10T10:{i:02d}:00Z"
        mem.append_message("dev-1", {"role": "user", "content": user, "event_time": at})
        if reply is None:  # the assistant looks it up
            call = {"name": "run_shell", "arguments": '{"cmd": "grep -n PORT .env"}'}
            mem.append_message(
                "dev-1",
                {
                    "role": "assistant",
                    "content": None,
                    "event_time": at,
                    "tool_calls": [{"id": "c1", "type": "function", "function": call}],
                },
            )
            tool = {
                "role": "tool",
                "tool_call_id": "c1",
                "content": "3:PORT=8080",
                "event_time": at,
            }
            mem.append_message("dev-1", tool)
            reply = "Confirmed: .env sets PORT=8080."
        mem.append_message("dev-1", {"role": "assistant", "content": reply, "event_time": at})
        mem.commit_turn("dev-1")
    mem.sleep("deep")
    mem.sync_index()
    mem.drain_outbox()
    result = mem.recall("which database do we use?")
    assert any("Postgres" in i.text for i in result.items), (result.reason, result.stats)
    for question in ("What is the capital of Mongolia?", "Who won the 1998 FIFA World Cup?"):
        result = mem.recall(question)
        assert result.items == (), (question, result.stats)
    mem.close()
