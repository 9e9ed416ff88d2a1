"""core.md and the graph say what defines each person (issue 14, reader reports items 6-7).

A conversation between two people, written to real session files and distilled by the default
rules: who each one is (identity, family, origin, long-running goals) becomes graph facts and
leads core.md's Who, each person gets lines, and what only happened once or only made sense
next to a photo ("bought the figurines", "loves all the yellow leaves") stays out.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from ogmemory import Memory, Settings
from ogmemory.knowledge.core import CORE_LIMIT_BYTES
from ogmemory.knowledge.views import render_core


def ts(day: str) -> float:
    return datetime.fromisoformat(day).replace(tzinfo=UTC).timestamp()


_SESSIONS = [
    (
        "2023-05-08T13:00:00",
        [
            ("Caroline", "I made this painting to show my path as a trans woman."),
            ("Melanie", "I'm lucky to have my husband and kids; they keep me motivated."),
            ("Caroline", "What an amazing family pic! How long have you been married?"),
            ("Melanie", "5 years already! Time flies."),
            ("Caroline", "I'm keen on counseling or working in mental health."),
            ("Melanie", "I love all the yellow leaves. I love pottery, it's so calming."),
        ],
    ),
    (
        "2023-06-20T13:00:00",
        [
            ("Caroline", "Last Friday I went to a council meeting for adoption."),
            ("Melanie", "That's great! I went to the beach with the kids."),
            ("Caroline", "It'll be tough as a single parent, but I'm up for the challenge!"),
            ("Melanie", "You'll be an awesome mom!"),
            ("Caroline", "I've been looking into counseling and mental health as a career."),
        ],
    ),
    (
        "2023-07-25T13:00:00",
        [
            ("Caroline", "This necklace is a gift from my grandma in my home country, Sweden."),
            ("Melanie", "It's beautiful. Have you been here long?"),
            (
                "Caroline",
                "I've known these friends for 4 years, since I moved from my home country.",
            ),
            ("Melanie", "I watched a great movie yesterday."),
            ("Caroline", "I applied to adoption agencies this week!"),
        ],
    ),
    (
        "2023-08-20T13:00:00",
        [
            ("Caroline", "I passed the adoption agency interviews last Friday!"),
            ("Melanie", "Congrats! I bought the figurines yesterday."),
            ("Caroline", "My goal is to give kids a loving home."),
        ],
    ),
]


@pytest.fixture(scope="module")
def friends(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    home = tmp_path_factory.mktemp("friends") / "home"
    mem = _fresh(home)
    for n, (day, turns) in enumerate(_SESSIONS, 1):
        sid, when = f"s{n}", ts(day)
        for i, (who, text) in enumerate(turns):
            role = "user" if who == "Caroline" else "assistant"
            mem.append_message(
                sid, {"role": role, "name": who, "content": text, "event_time": when + 60 * i}
            )
            if role == "assistant":
                mem.commit_turn(sid)
        mem.commit_turn(sid)
    mem.sleep("deep")
    yield mem
    mem.close()


def _fresh(home: Path) -> Memory:
    return Memory(
        settings=Settings(home=home, distill_on_turn=False, embedder=None, index_worker=False)
    )


def _talk(mem: Memory, turns: list[tuple[str, str]], when: float) -> None:
    """One session of two named people (the first speaks as the user), then deep sleep."""
    for i, (who, text) in enumerate(turns):
        role = "user" if who == turns[0][0] else "assistant"
        mem.append_message(
            "s1", {"role": role, "name": who, "content": text, "event_time": when + i}
        )
    mem.commit_turn("s1")
    mem.sleep("deep")


def _core(mem: Memory) -> str:
    return render_core(mem.knowledge.kb, scopes=["global"], now=ts("2023-08-21T00:00:00"))


def _section(core: str, header: str) -> list[str]:
    lines = core.splitlines()
    start = lines.index(header) + 1
    out = []
    for line in lines[start:]:
        if not line.startswith("· "):
            break
        out.append(line)
    return out


def test_life_facts_are_graph_facts(friends: Memory) -> None:
    facts = {(f.relation, f.fact) for f in friends.facts(at=ts("2023-08-21T00:00:00"))}
    for want in [
        ("is_a", "Caroline is a trans woman."),
        ("is_a", "Caroline will be a single parent."),
        ("is_a", "Melanie has been married for 5 years."),
        ("has_family", "Melanie has a husband and kids."),
        ("comes_from", "Caroline is from Sweden."),
        ("moved_from", "Caroline moved from their home country (2019)."),
        ("aims_for", "Caroline wants a career in counseling and mental health."),
        ("aims_for", "Caroline's goal is to give kids a loving home."),
    ]:
        assert want in facts, (want, sorted(facts))
    # the objects are neutral: whose husband, which country, not the speaker's words
    names = {e.id: e.name for e in friends.knowledge.kb.entities(include_hidden=True)}
    assert names.get("person.melanie-s-husband") == "Melanie's husband"
    assert not [i for i in names if "-my-" in f"-{i}-" or i.endswith("-i")]


def test_core_says_who_each_person_is(friends: Memory) -> None:
    core = _core(friends)
    assert len(core.encode()) <= CORE_LIMIT_BYTES
    bullets = [line for line in core.splitlines() if line.startswith("· ")]
    assert bullets and all("  ↪ " in line for line in bullets)
    who = _section(core, "[Who]")
    for line in (
        "Caroline is a trans woman.",
        "Melanie has been married for 5 years.",
        "Melanie has a husband and kids.",
    ):
        assert any(line in w for w in who), (line, who)
    assert any("counseling" in w for w in who) and any("home country" in w for w in who)
    # a fair share: neither person crowds the other out of the section
    for person in ("Caroline", "Melanie"):
        assert sum(w.startswith(f"· {person}") for w in who) >= 2, who


def test_core_leaves_out_what_was_momentary(friends: Memory) -> None:
    core = _core(friends)
    assert "yellow leaves" not in core  # a like of what was in the photo
    assert "figurines" not in core  # a purchase on nothing Melanie comes back to
    assert "beach" not in core and "movie" not in core
    recent = _section(core, "[Recent]")
    assert any("adoption agency interviews" in line for line in recent), recent
    assert any("pottery" in line for line in _section(core, "[Rules & preferences]"))


def test_a_new_job_said_in_answer_to_a_question(tmp_path: Path) -> None:
    """The bundled sample's "How is the new job going?" - "It's going well, though the
    commute is long."; a question answered with "no" says nothing of the kind."""
    when = ts("2023-05-08T13:56:00")
    with _fresh(tmp_path / "home") as mem:
        turns = [
            ("Priya", "Hi Tomas! Long time no talk. How is the new job going?"),
            ("Tomas", "Hey Priya! It's going well, though the commute is long."),
            ("Priya", "How's the new apartment going?"),
            ("Tomas", "No, I didn't move after all."),
        ]
        _talk(mem, turns, when)
        facts = [f.fact for f in mem.facts(at=when + 60)]
        core = render_core(mem.knowledge.kb, scopes=["global"], now=when + 60)
    assert "Tomas's new job is going well, though the commute is long." in facts
    assert not any("apartment" in f for f in facts)
    assert "· Tomas's new job is going well, though the commute is long." in core


def test_entity_names_and_ids_are_neutral_in_chinese(tmp_path: Path) -> None:
    """ "我最喜欢和我的家人一起去露营": the liked thing is named without the speaker's 我的."""
    with _fresh(tmp_path / "home") as mem:
        when = ts("2026-03-02T10:00:00")
        mem.append_message(
            "zh", {"role": "user", "content": "我最喜欢和我的家人一起去露营。", "event_time": when}
        )
        mem.append_message("zh", {"role": "assistant", "content": "好的。", "event_time": when + 1})
        mem.commit_turn("zh")
        mem.sleep("deep")
        names = [e.name for e in mem.knowledge.kb.entities(type="preference", include_hidden=True)]
    assert names and not any("我" in n for n in names), names
    assert "和家人一起去露营" in names


def test_work_said_as_part_of_a_life(tmp_path: Path) -> None:
    """A job lost, a business started or run: who the person is at work, without an
    employer's name; a time word never joins the role ("a banker yesterday")."""
    when = ts("2023-01-20T10:00:00")
    with _fresh(tmp_path / "home") as mem:
        turns = [
            (
                "Jon",
                "Lost my job as a banker yesterday, so I'm gonna take a shot at starting my own"
                " business.",
            ),
            ("Gina", "Sorry to hear that! What is it like?"),
            ("Jon", "I love running my own studio."),
            ("Gina", "That's awesome."),
        ]
        _talk(mem, turns, when)
        facts = {(f.relation, f.fact) for f in mem.facts(at=when + 60)}
        ids = {e.id for e in mem.knowledge.kb.entities(include_hidden=True)}
    assert ("worked_as", "Jon used to work as a banker.") in facts, facts
    assert ("runs", "Jon is starting a business.") in facts
    assert ("runs", "Jon runs their own studio.") in facts
    assert "role.banker" in ids and not any("yesterday" in i for i in ids)


def test_a_recent_event_is_what_happened_not_how_it_felt(tmp_path: Path) -> None:
    """An answer joined to the event it was asked about ("How do you feel?") stays in the
    memory; core.md's Recent line says what happened, once dated."""
    when = ts("2023-10-21T10:00:00")
    with _fresh(tmp_path / "home") as mem:
        turns = [
            ("Caroline", "I passed the adoption agency interviews last Friday!"),
            ("Melanie", "Congrats! How do you feel?"),
            ("Caroline", "I feel so relieved, it was a tough process."),
            ("Melanie", "Wow."),
        ]
        _talk(mem, turns, when)
        (event,) = [e for e in mem.timeline() if "interviews" in e.summary]
        core = render_core(mem.knowledge.kb, scopes=["global"], now=when + 100)
    assert "relieved" in event.summary  # the memory keeps the answer
    (line,) = [line for line in core.splitlines() if "interviews" in line]
    assert line.startswith("· 2023-10-20 Caroline passed the adoption agency interviews.  ↪ ")
