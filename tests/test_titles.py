"""Session titles, seed 001 §3.3."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from conftest import turn

from ogmemory import LLMSettings, Memory, Settings
from ogmemory.entity.titles import clean_llm_title, display_title, fallback_title, preview

LONG = "Please help me migrate the billing service from MySQL to PostgreSQL 16 next week"


def meta_of(mem: Memory, sid: str) -> dict[str, object]:
    return json.loads((Path(mem.get_session(sid).path) / "meta.json").read_text())


def test_fallback_title_set_at_end_of_first_turn(mem: Memory) -> None:
    mem.append_message("s1", {"role": "user", "content": LONG + "\nsecond line"})
    assert mem.get_session("s1").title == ""  # not before the turn ends
    mem.append_message("s1", {"role": "assistant", "content": "Sure."})
    mem.commit_turn("s1")
    title = mem.get_session("s1").title
    assert title == LONG[:50] + "…"
    assert len(title) == 51
    assert meta_of(mem, "s1")["title"] == title
    assert mem.get_session("s1").display_title == title


def test_short_first_line_kept_whole(mem: Memory) -> None:
    turn(mem, "s1", "  Fix the login bug  \nit crashes on empty passwords", "ok")
    assert mem.get_session("s1").title == "Fix the login bug"
    exactly_50 = "x" * 50
    turn(mem, "s2", exactly_50)
    assert mem.get_session("s2").title == exactly_50


def test_later_turns_do_not_change_the_title(mem: Memory) -> None:
    turn(mem, "s1", "first topic")
    turn(mem, "s1", "a completely different second topic")
    assert mem.get_session("s1").title == "first topic"


def test_manual_rename_wins_forever(mem: Memory) -> None:
    turn(mem, "s1", "first topic")
    mem.rename_session("s1", "My name")
    turn(mem, "s1", "second")
    assert mem.get_session("s1").title == "My name"
    # An automatic title can never overwrite it, not even an LLM one.
    sessions = mem.sessions.store
    assert sessions.set_auto_title("s1", "Auto", llm=False) is False
    assert sessions.set_auto_title("s1", "LLM title", llm=True) is False
    assert Memory(home=mem.settings.home).get_session("s1").title == "My name"


def test_rename_before_first_turn_wins(mem: Memory) -> None:
    mem.append_message("s1", {"role": "user", "content": "hello world"})
    mem.update_session("s1", title="Chosen early")
    mem.append_message("s1", {"role": "assistant", "content": "hi"})
    mem.commit_turn("s1")
    assert mem.get_session("s1").title == "Chosen early"
    assert meta_of(mem, "s1")["title_manual"] is True


def test_create_session_with_title_is_manual(mem: Memory) -> None:
    mem.create_session("s1", title="Given")
    turn(mem, "s1", "something else")
    assert mem.get_session("s1").title == "Given"


@pytest.mark.parametrize("placeholder", ["", "Untitled", "New conversation", "new conversation"])
def test_display_title_falls_back_to_preview(mem: Memory, placeholder: str) -> None:
    text = "word " * 40  # 200 characters
    mem.append_message("s1", {"role": "user", "content": text})
    path = Path(mem.get_session("s1").path)
    meta = json.loads((path / "meta.json").read_text())
    meta.update(title=placeholder, preview="")
    (path / "meta.json").write_text(json.dumps(meta))  # e.g. created by a harness
    info = mem.get_session("s1")
    assert info.title == placeholder
    assert info.display_title == " ".join(text.split())[:80]
    assert len(info.display_title) == 80
    [listed] = mem.list_sessions()
    assert listed.display_title == info.display_title


def test_display_title_helpers() -> None:
    assert display_title({"title": "Untitled", "preview": "p"}) == "p"
    assert display_title({"title": " new conversation ", "preview": "p"}) == "p"
    assert display_title({"title": "Real", "preview": "p"}) == "Real"
    assert preview("a\n  b\tc " + "z" * 100) == ("a b c " + "z" * 100)[:80]
    assert fallback_title("") == ""
    assert fallback_title("\n\n  spaced first line\nrest") == "spaced first line"
    assert fallback_title("y" * 51) == "y" * 50 + "…"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('"Postgres Migration Plan"', "Postgres Migration Plan"),
        ("'Quoted'", "Quoted"),
        ("“Curly quotes”", "Curly quotes"),
        ("Title: Billing Service Migration", "Billing Service Migration"),
        ('title:   "Both Prefix And Quotes"', "Both Prefix And Quotes"),
        ("TITLE: Upper", "Upper"),
        ("  Plain title  \nextra explanation line", "Plain title"),
        ("", ""),
        ("x" * 120, "x" * 80),
    ],
)
def test_clean_llm_title(raw: str, expected: str) -> None:
    assert clean_llm_title(raw) == expected
    assert len(clean_llm_title(raw)) <= 80


def test_llm_titled_is_generated_once(mem: Memory) -> None:
    turn(mem, "s1", "topic")
    sessions = mem.sessions.store
    assert sessions.set_auto_title("s1", "LLM Title One", llm=True) is True
    assert meta_of(mem, "s1")["_titled"] is True
    assert mem.get_session("s1").title == "LLM Title One"
    assert sessions.set_auto_title("s1", "LLM Title Two", llm=True) is False
    assert mem.get_session("s1").title == "LLM Title One"
    turn(mem, "s1", "more")
    assert mem.get_session("s1").title == "LLM Title One"
    # A manual rename still wins over an LLM title.
    mem.rename_session("s1", "Mine")
    assert sessions.set_auto_title("s1", "LLM Title Three", llm=True) is False
    assert mem.get_session("s1").title == "Mine"


def test_unreachable_llm_only_logs(home: Path, caplog: pytest.LogCaptureFixture) -> None:
    llm = LLMSettings(base_url="http://127.0.0.1:9/v1", timeout=0.5, max_retries=0)
    mem = Memory(settings=Settings(home=home, llm=llm))
    with caplog.at_level(logging.WARNING, logger="ogmemory"):
        res = turn(mem, "s1", "Deploy the app to staging\nthen run smoke tests", "done")
        mem.wait_background()
    assert res.commit is not None and res.turn == 1  # type: ignore[attr-defined]
    info = mem.get_session("s1")
    assert info.title == "Deploy the app to staging"
    assert meta_of(mem, "s1")["_titled"] is False
    assert any("title" in r.getMessage().lower() for r in caplog.records)
    # The failure never reaches the user: the next turn commits as well.
    assert turn(mem, "s1", "and then?").turn == 2  # type: ignore[attr-defined]
    mem.wait_background()
    assert mem.get_session("s1").title == "Deploy the app to staging"
    mem.close()


def test_an_automatic_title_never_lands_over_a_rename_made_meanwhile(mem: Memory) -> None:
    import threading

    from ogmemory.storage.files import atomic_write_json, file_lock

    turn(mem, "s1", "Plan the billing migration")
    path = Path(mem.get_session("s1").path)
    store = mem.sessions.store
    result: list[bool] = []
    # Another process renaming the session holds its lock while it writes meta.json.
    with file_lock(path / ".git" / "ogmemory.lock"):
        worker = threading.Thread(
            target=lambda: result.append(
                store.set_auto_title("s1", "An LLM title", llm=True, model="m")
            )
        )
        worker.start()
        worker.join(0.5)
        assert worker.is_alive()  # the automatic title waits for the lock before it reads
        meta = json.loads((path / "meta.json").read_text())
        atomic_write_json(path / "meta.json", {**meta, "title": "Mine", "title_manual": True})
    worker.join(10)
    assert result == [False]
    assert mem.get_session("s1").title == "Mine"
    assert "_titled_by" not in meta_of(mem, "s1")
