"""Clause-level salience, statement/question/answer threads and social relations between two
named speakers (the kind of conversation LoCoMo holds), with the rule extractor and through the
pipeline on real sessions."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from conftest import named_turns

from ogmemory import Memory, Settings
from ogmemory.distill.extractors.rules import RuleExtractor
from ogmemory.distill.types import Candidate
from ogmemory.entity.records import Node, NodeRecord

MONDAY = datetime(2023, 5, 8, 13, 56, tzinfo=UTC).timestamp()


def dialogue(*turns: tuple[str, str]) -> list[NodeRecord]:
    """A conversation between named speakers, one node per turn, a minute apart."""
    out = []
    for i, (speaker, text) in enumerate(turns):
        role: Any = "user" if speaker == turns[0][0] else "assistant"
        node = Node(
            id=f"n{i}",
            seq=i,
            role=role,
            content=text,
            parent_id=None,
            event_time=MONDAY + 60 * i,
            ingestion_time=MONDAY,
            name=speaker,
        )
        out.append(NodeRecord("s1", "default", None, node, f"c{i}", i))
    return out


def extract(*turns: tuple[str, str]) -> list[Candidate]:
    return RuleExtractor().extract(dialogue(*turns)).candidates


def test_first_person_statements_restated_with_resolved_dates() -> None:
    got = extract(
        (
            "Melanie",
            ("I ran a charity race for mental health last Saturday - it was really rewarding."),
        ),
        (
            "Melanie",
            ("So I'm carving out some me-time each day - running, reading, or playing my violin."),
        ),
        ("Melanie", "My kids are so excited about summer break!"),
    )
    by_node = {c.node_ids: c.text for c in got}
    assert by_node[("n0",)].startswith("Melanie ran a charity race for mental health")
    assert by_node[("n0",)].endswith("(2023-05-06).")
    assert by_node[("n1",)].startswith("Melanie is carving out some me-time each day")
    assert "their violin" in by_node[("n1",)]
    assert by_node[("n2",)] == "Melanie's kids are so excited about summer break."


def test_phatic_turns_reactions_and_platitudes_are_not_statements() -> None:
    got = extract(
        ("Caroline", "Thanks, Mel! That's awesome, so happy for you!"),
        ("Caroline", "I totally agree, Mel. Family is everything."),
        ("Caroline", "Taking care of ourselves is so important."),
        ("Caroline", "We can do it, we got this!"),
        ("Caroline", "I'll keep pushing and stay positive."),
        ("Caroline", "What kind of music do you play?"),
    )
    assert [c for c in got if c.type in ("note", "event")] == []


def test_an_answer_to_a_question_about_it_joins_the_statement() -> None:
    got = extract(
        ("Melanie", "I just took my fam camping in the mountains last week."),
        ("Caroline", "Sounds great, Mel. How was it?"),
        ("Melanie", ("We explored nature and roasted marshmallows around the campfire.")),
    )
    (camping,) = [c for c in got if "camping" in c.text]
    assert camping.node_ids == ("n0", "n2")
    assert "roasted marshmallows" in camping.text
    assert not any(c.node_ids == ("n2",) and c.type in ("note", "event") for c in got)


def test_an_answer_without_a_statement_only_elaborates() -> None:
    got = extract(
        ("Melanie", "We've got a pup and a kitty."),
        ("Caroline", "Aww! What are their names?"),
        ("Melanie", "Luna and Oliver! They are so sweet and playful."),
        ("Caroline", "Cute! Do you like jazz?"),
        ("Melanie", "Oh, the weather is lovely and sunny today over here."),
    )
    (pets,) = [c for c in got if "pup" in c.text]
    assert pets.node_ids == ("n0", "n2") and "Luna and Oliver" in pets.text
    # an answer with nothing to join is no memory of its own
    assert not any("n4" in c.node_ids for c in got)


def test_chinese_statements_in_chinese() -> None:
    got = extract(("李雷", "我最近在学吉他，每天晚上练一个小时。"))
    (note,) = [c for c in got if c.type in ("note", "event")]
    assert note.language == "zh" and note.text.startswith("李雷最近在学吉他")


def test_encouragement_between_people_is_one_memory_whose_evidence_grows(tmp_path: Path) -> None:
    mem = Memory(settings=Settings(home=tmp_path / "h", distill_on_turn=False, embedder=None))
    turns = [
        ("Jon", "I lost my job, so I'm starting my own dance studio."),
        ("Gina", "Keep going, you got this!"),
        ("Jon", "Thanks for believing in me, it means a lot."),
        ("Gina", "Don't give up, I'm rooting for you!"),
    ]
    named_turns(mem, "s1", turns, MONDAY)
    mem.sleep("light")
    social = {m.text: m for m in mem.memories() if m.attrs.get("social")}
    assert set(social) == {
        "Gina encourages and supports Jon.",
        "Jon is grateful for Gina's support.",
    }
    encourage = social["Gina encourages and supports Jon."]
    assert len(mem.evidence(encourage.id)) == 2  # two turns, one memory
    (edge,) = mem.facts(relation="encourages")
    assert (mem.entity(edge.src).name, mem.entity(edge.dst).name) == ("Gina", "Jon")
    assert not any("rule" in m.type for m in mem.memories())  # "don't give up" is no rule
