"""Stances and social relations between two named people, English and Chinese.

What someone values ("Family time matters to me"), believes ("Taking care of ourselves is
vital"), needs, offers the person they talk to, suggests, and is about to do; and how they stand
to each other ("I'm in awe of your courage"). Extractor level on NodeRecords, and end to end
through a real tenant (git sessions, JSONL knowledge files).
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from conftest import fsck

from ogmemory import Memory, Settings
from ogmemory.distill.extractors._common import split_sentences
from ogmemory.distill.extractors._social import relation_of
from ogmemory.distill.extractors.rules import RuleExtractor
from ogmemory.distill.types import Candidate
from ogmemory.entity.records import Node, NodeRecord

T0 = datetime(2023, 5, 8, 13, 0, tzinfo=UTC).timestamp()


def talk(*turns: tuple[str, str]) -> list[Candidate]:
    """One session of ``(speaker, text)`` turns between named people."""
    records = []
    for i, (name, text) in enumerate(turns, start=1):
        node = Node(
            id=f"n{i}",
            seq=i,
            role="user" if i % 2 else "assistant",
            content=text,
            parent_id=f"n{i - 1}" if i > 1 else None,
            event_time=T0 + 60 * i,
            ingestion_time=T0 + 60 * i,
            name=name,
        )
        records.append(NodeRecord("s1", "default", None, node, "c0ffee", i))
    return RuleExtractor().extract(records).candidates


def said(cands: list[Candidate], node: str) -> list[str]:
    return [c.text for c in cands if node in c.node_ids]


# ----------------------------------------------------------------------------- English


@pytest.mark.parametrize(
    ("text", "memory"),
    [
        (
            "Thanks, Caroline! Family time matters to me. What's up with you lately?",
            "Melanie values family time.",
        ),
        ("Yeah, you're right. Family's super important to me.", "Melanie values family."),
        ("My kids mean the world to me.", "Melanie values their kids."),
        (
            "I really cherish the quiet mornings with my husband.",
            "Melanie values the quiet mornings with their husband.",
        ),
    ],
)
def test_what_the_speaker_values(text: str, memory: str) -> None:
    cands = talk(("Caroline", "How are you?"), ("Melanie", text))
    assert memory in said(cands, "n2")


@pytest.mark.parametrize(
    ("text", "memory"),
    [
        (
            "Taking care of ourselves is vital.",
            "Melanie believes that taking care of themselves is vital.",
        ),
        ("Yeah, a mentor can do wonders.", "Melanie believes that a mentor can do wonders."),
        (
            "Art's awesome for showing us who we really are.",
            "Melanie believes that art's awesome for showing people who people really are.",
        ),
        (
            "Remember that staying positive is very important.",
            "Melanie believes that staying positive is very important.",
        ),
        ("Dancing helps me de-stress.", "Dancing helps Melanie de-stress."),
        (
            "Painting's great for expressing myself.",
            "For Melanie, painting's great for expressing themselves.",
        ),
    ],
)
def test_general_beliefs_name_whose_they_are(text: str, memory: str) -> None:
    cands = talk(("Caroline", "How do you keep going?"), ("Melanie", text))
    assert memory in said(cands, "n2")


@pytest.mark.parametrize(
    "text",
    [
        "That is so important to me.",  # what is "that"?
        "Your support means a lot to me.",  # gratitude, not a value
        "It's key.",
        "You are everything to me.",
        "This is crucial for you.",
        "Glad I could help.",
        "Now I want to help people go through it.",
        "If it helps, we can talk later.",
    ],
)
def test_no_stance_without_a_thing_it_is_about(text: str) -> None:
    cands = talk(("Caroline", "Hi!"), ("Melanie", text))
    assert not [c for c in cands if "stance" in c.attrs]


def test_needs_offers_suggestions_and_plans_of_the_moment() -> None:
    cands = talk(
        ("Jon", "Need help with marketing strategies - any advice on reaching my audience?"),
        ("Gina", "I could help you with making content or editing videos if you want."),
        ("Jon", "That would be great. Wanna do a dance workshop together this summer?"),
        ("Gina", "Sure! I'm off to go swimming with the kids now, talk soon!"),
    )
    assert said(cands, "n1") == ["Jon needs help with marketing strategies."]
    assert said(cands, "n2") == ["Gina offered to help Jon with making content or editing videos."]
    assert "Jon suggested to Gina that they do a dance workshop together this summer." in said(
        cands, "n3"
    )
    assert "Gina is about to go swimming with the kids." in said(cands, "n4")


def test_no_offer_or_suggestion_without_a_named_listener() -> None:
    node = Node(
        id="n1",
        seq=1,
        role="user",
        content="I could help you with the slides. Wanna grab dinner at the new place?",
        parent_id=None,
        event_time=T0,
        ingestion_time=T0,
    )
    cands = RuleExtractor().extract([NodeRecord("s1", "default", None, node, "c0", 1)])
    assert not [c for c in cands.candidates if c.attrs.get("stance") in ("offers", "suggests")]


def test_a_request_is_not_a_suggestion() -> None:
    cands = talk(("Jon", "Hey"), ("Gina", "Wanna show me a routine sometime?"))
    assert not [c for c in cands if c.attrs.get("stance") == "suggests"]


def test_stance_memories_have_no_listener_words() -> None:
    cands = talk(("Jon", "Hey"), ("Gina", "I can help you with your website, you know."))
    for c in cands:
        assert " you" not in f" {c.text.lower()}", c.text


def test_an_answer_is_not_glued_onto_a_stance() -> None:
    cands = talk(
        ("Melanie", "Family's super important to me."),
        ("Caroline", "What happened?"),
        ("Melanie", "We reassured the kids and explained their brother would be OK."),
    )
    assert "Melanie values family." in [c.text for c in cands]


# ----------------------------------------------------------------------------- social


@pytest.mark.parametrize(
    ("text", "relation"),
    [
        ("I'm in awe of your courage as a trans person.", "admires"),
        ("I'm impressed by your willingness to take risks.", "admires"),
        ("It's so sweet to see your love for your family.", "admires"),
        ("You're definitely the perfect mentor & guide.", "admires"),
        ("Your drive to help is awesome!", "admires"),
        ("I appreciate our friendship too, Caroline.", "grateful_to"),
        ("Your words are really encouraging.", "grateful_to"),
        ("I'm lucky to have people like you to remind me.", "grateful_to"),
        ("Glad I have you in my corner!", "grateful_to"),
        ("Feeling supported by all of you means so much.", "grateful_to"),
        ("Must have been traumatizing for you guys.", "cares_about"),
    ],
)
def test_how_two_people_stand_to_each_other(text: str, relation: str) -> None:
    (sentence,) = split_sentences(text, date(2023, 1, 1))
    assert relation_of(sentence) == relation
    # recognised, and one note in fixed words with no graph relation (no fact)
    cands = [c for c in talk(("Caroline", "Hi Mel!"), ("Melanie", text)) if c.node_ids == ("n2",)]
    assert [(c.type, c.relation, c.attrs.get("social")) for c in cands] == [
        ("note", None, relation)
    ]


def test_the_first_turn_of_a_session_speaks_to_the_one_who_answers() -> None:
    cands = talk(
        ("Jon", "Hey Gina, if you ever need a hand with the store, count me in."),
        ("Gina", "Always!"),
    )
    assert "Jon offers to help Gina." in said(cands, "n1")


# ----------------------------------------------------------------------------- Chinese


def test_chinese_stances() -> None:
    cands = talk(
        ("李雷", "最近怎么样？"),
        (
            "韩梅梅",
            "家人对我来说非常重要。我觉得坚持锻炼很重要。我需要一些关于装修的建议。"
            "我可以帮你整理这些照片。我得去接孩子了。",
        ),
    )
    assert said(cands, "n2") == [
        "韩梅梅看重家人。",
        "韩梅梅认为坚持锻炼很重要。",
        "韩梅梅需要关于装修的建议。",
        "韩梅梅提出帮李雷整理这些照片。",
        "韩梅梅要去接孩子。",
    ]


def test_chinese_stances_need_a_thing_and_no_listener_words() -> None:
    cands = talk(("李雷", "谢谢！"), ("韩梅梅", "这对我很重要。你的支持对我很重要。"))
    assert not [c for c in cands if "stance" in c.attrs]


# ----------------------------------------------------------------------------- end to end


def test_stances_end_to_end_in_a_real_tenant(tmp_path: Path) -> None:
    mem = Memory(
        settings=Settings(
            home=tmp_path / "home", distill_on_turn=False, embedder=None, index_worker=False
        )
    )
    for i, (name, text) in enumerate(
        [
            ("Caroline", "How was your week?"),
            ("Melanie", "Busy! Family time matters to me, so we went camping."),
            ("Caroline", "Need help with my adoption paperwork - any tips?"),
            ("Melanie", "I could help you with the forms this weekend."),
        ]
    ):
        mem.append_message(
            "s1",
            {
                "role": "user" if i % 2 == 0 else "assistant",
                "content": text,
                "name": name,
                "event_time": T0 + 60 * i,
            },
        )
        mem.commit_turn("s1")
    mem.sleep("light")
    memories = [m.text for m in mem.memories(include_disabled=False)]
    fsck(mem.get_session("s1").path)
    assert "Melanie values family time." in memories
    assert "Caroline needs help with their adoption paperwork." in memories
    assert "Melanie offered to help Caroline with the forms this weekend." in memories
    mem.close()


def test_a_speakers_views_of_a_session_are_one_memory_with_every_turn() -> None:
    cands = talk(
        ("Jon", "What helped you?"),
        ("Gina", "A mentor can do wonders."),
        ("Jon", "And the studio?"),
        ("Gina", "Good flooring is crucial."),
        ("Jon", "Why?"),
        ("Gina", "Dance floors help avoid injuries."),
        ("Jon", "Anything else?"),
        ("Gina", "Staying positive is very important."),
    )
    views = [c for c in cands if c.attrs.get("stance") == "believes"]
    assert [(c.text, c.node_ids) for c in views] == [
        (
            "Gina believes that a mentor can do wonders, that good flooring is crucial, and that "
            "dance floors help avoid injuries.",
            ("n2", "n4", "n6"),
        ),
        ("Gina believes that staying positive is very important.", ("n8",)),
    ]


def test_chinese_views_are_joined_too() -> None:
    cands = talk(
        ("李雷", "你怎么保持健康？"),
        ("韩梅梅", "我觉得坚持锻炼很重要。"),
        ("李雷", "还有呢？"),
        ("韩梅梅", "我认为早睡早起很关键。"),
    )
    views = [c for c in cands if c.attrs.get("stance") == "believes"]
    assert [(c.text, c.node_ids) for c in views] == [
        ("韩梅梅认为坚持锻炼很重要，早睡早起很关键。", ("n2", "n4"))
    ]


def test_a_view_said_unasked_is_agreement_not_a_memory() -> None:
    cands = talk(
        ("Jon", "We raised a lot today."), ("Gina", "Definitely! Working together is key.")
    )
    assert not [c for c in cands if c.attrs.get("stance") == "believes"]


@pytest.mark.parametrize(
    ("text", "memory"),
    [
        (
            "It's so rewarding to know I'm making a difference in the neighborhood.",
            "Maria finds it rewarding to know Maria is making a difference in the neighborhood.",
        ),
        (
            "These moments remind me of how important kindness and compassion are.",
            "Maria believes that kindness and compassion are important.",
        ),
    ],
)
def test_what_someone_finds_and_is_reminded_of(text: str, memory: str) -> None:
    cands = talk(("John", "How was the shelter?"), ("Maria", text))
    assert memory in said(cands, "n2")


@pytest.mark.parametrize(
    ("text", "memory"),
    [
        (
            "It's important to me to keep my promises.",
            "It is important to Maria to keep their promises.",
        ),
        (
            "Volunteering at the shelter made me feel great to help.",
            "Volunteering at the shelter made Maria feel great to help.",
        ),
        ("I felt like I was in a fairy tale!", "Maria felt like they were in a fairy tale."),
        (
            "It's awesome to have my own platform to support others.",
            "Maria finds it awesome to have their own platform to support others.",
        ),
        ("Check out these kids I met at the shelter!", "Maria met some kids at the shelter."),
    ],
)
def test_what_matters_what_it_felt_like_and_what_was_met(text: str, memory: str) -> None:
    cands = talk(("John", "How was it?"), ("Maria", text))
    assert memory in said(cands, "n2")


@pytest.mark.parametrize(
    "text",
    [
        "It was amazing to see one of them last week.",  # them?
        "I'm heading over to spend some time with them.",
        "Look at this piece I made!",  # too little to keep
    ],
)
def test_a_stance_that_points_back_is_not_kept(text: str) -> None:
    cands = talk(("John", "How was it?"), ("Maria", text))
    assert not [c for c in cands if "stance" in c.attrs]


@pytest.mark.parametrize(
    "text",
    [
        "Can I do anything to help?",
        "Whenever you need help, just let me know.",
        "Count me in, John!",
        "Is there any way I can help out with your fundraiser?",
        "I'll make sure to spread the word about it.",
    ],
)
def test_offers_of_help_are_one_relation(text: str) -> None:
    cands = talk(("John", "We're collecting food for the shelter."), ("Maria", text))
    assert [c.text for c in cands if c.node_ids == ("n2",)] == ["Maria offers to help John."]


def test_chinese_offer_of_help_is_a_relation() -> None:
    cands = talk(("李雷", "我们在筹款。"), ("韩梅梅", "算我一个！"))
    assert said(cands, "n2") == ["韩梅梅主动提出帮助李雷。"]


# ----------------------------------------------------------------------------- who "we" is


@pytest.mark.parametrize(
    ("text", "memory"),
    [
        ("We took the kids to the lake last weekend!", "Melanie and their family took the kids"),
        (
            "We went hiking last weekend with my old friends from college.",
            "Melanie and their friends went hiking",
        ),
        ("We opened the new studio last weekend.", "Melanie's team opened the new studio"),
        ("We finally met up last weekend, so fun!", "Melanie and Caroline finally met up"),
    ],
)
def test_who_we_is(text: str, memory: str) -> None:
    cands = talk(("Caroline", "How was your week?"), ("Melanie", text))
    texts = said(cands, "n2")
    assert any(t.startswith(memory) for t in texts), texts


def test_we_stays_others_when_nothing_says_who() -> None:
    from ogmemory.distill.extractors._grammar import third_person_en

    assert third_person_en("We went to a concert", "Jon") == "Jon and others went to a concert"


def test_a_statement_that_starts_with_it_keeps_what_it_is() -> None:
    cands = talk(
        ("Caroline", "What's new?"),
        (
            "Melanie",
            "Wow! I just signed up for a pottery class yesterday. It's like "
            "therapy for me, letting me express myself and get creative.",
        ),
    )
    texts = said(cands, "n2")
    assert any(
        t.startswith(
            "Melanie just signed up for a pottery class (2023-05-07). It's like therapy for Melanie"
        )
        for t in texts
    ), texts
