"""A change said of a fact already held (``distill/followups.py``): the sentence names the fact
by its old value or by what it is about, says it changed and gives a new value of the same kind
(or calls it off). End to end through real tenants: git sessions, SQLite, the JSONL knowledge
files; scripted sessions through ``run_sessions``, projection through ``Memory``."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from test_distill_causes import _run

from ogmemory import Memory, Settings
from ogmemory.distill.extractors._common import split_sentences
from ogmemory.distill.followups import _new_value, held_fact
from ogmemory.entity.records import Provenance
from ogmemory.evaluation.devsessions import run_sessions
from ogmemory.knowledge.models import Edge, Entity

_CHANGES = """
name: changes said of held facts
sessions:
  - id: c-1
    project: tern
    start: "2027-02-01T09:00:00Z"
    turns:
      - user: >-
          The pilot launch is due on March 12. The broker is mqtt.tern.lan and it listens on
          port 1883.
        assistant: Noted.
      - user: We run Keycloak 24.0 for auth. For the queue we decided to use RabbitMQ.
        assistant: Noted.
      - user: 地图服务用的是 Mapbox，导出任务的截止是 3 月 20 号。
        assistant: 好的。
      - user: The docs freeze is due on March 22.
        assistant: Noted.
  - id: c-2
    project: tern
    start: "2027-02-15T09:00:00Z"
    turns:
      - user: Bad news on the pilot launch. It's April 2 now, the hardware vendor is late.
        assistant: Understood.
      - user: Ops retired that box, the broker is mqtt-2.tern.lan now.
        assistant: Ok.
      - user: We finally bumped Keycloak to 25.0.1 last night.
        assistant: Nice.
      - user: 地图这块改了，Mapbox 太贵，换成 MapLibre。导出任务推迟了，改到 3 月 27 号。
        assistant: 好的。
      - user: And RabbitMQ is out, we're not using RabbitMQ anymore, too much ops.
        assistant: Got it.
      - user: >-
          Also the docs freeze slipped. It's now March 30 instead of March 22 because the
          review got rescheduled.
        assistant: Ok.
gold:
  - {id: launch, terms: ["2027-04-02"], facts: true}
  - {id: broker, terms: [mqtt-2.tern.lan], facts: true}
  - {id: keycloak, terms: ["25.0.1"], facts: true}
  - {id: map, terms: [MapLibre], facts: true}
  - {id: export, terms: ["2027-03-27"], facts: true}
  - {id: docs freeze, terms: ["2027-03-30"], facts: true}
stale:
  - {id: old launch, object: "2027-03-12"}
  - {id: old broker, object: mqtt.tern.lan}
  - {id: old keycloak, object: "24.0"}
  - {id: old map, object: Mapbox}
  - {id: old export, object: "2027-03-20"}
  - {id: old docs freeze, object: "2027-03-22"}
  - {id: rabbitmq, object: RabbitMQ, relation: uses}
"""


def test_changes_said_by_a_word_of_the_fact_replace_its_value(tmp_path: Path) -> None:
    missed, stale, listing = _run(tmp_path, _CHANGES)
    assert missed == [], listing
    assert stale == [], listing
    assert any("(was 2027-03-12)" in line for line in listing), listing
    assert any("（原为 2027-03-20）" in line for line in listing), listing


_MORE_CHANGES = """
name: changes said in fewer words
sessions:
  - id: m-1
    project: gull
    start: "2027-02-01T09:00:00Z"
    turns:
      - user: The queue consumer is Celery 5.3 and the admin listens on port 8088.
        assistant: Noted.
      - user: For the HTTP client we go with Requests since the prototype has it.
        assistant: Noted.
      - user: 编辑器我们定了用 Quill。
        assistant: 好的。
      - user: 后台端口是 7001。
        assistant: 好的。
  - id: m-2
    project: gull
    start: "2027-02-15T09:00:00Z"
    turns:
      - user: >-
          Big change: we're moving off Celery. The maintainers went quiet and 5.3 is the last
          release for us. We go to Dramatiq 1.16 next sprint.
        assistant: Ok.
      - user: Requests keeps timing out under load, so rip it out, we're moving the client to HTTPX.
        assistant: Ok.
      - user: Quill 在中文输入法下老吞字，换Tiptap，Quill 不要了。
        assistant: 好的。
      - user: 安全组收紧了，后台端口从7001改成7443。
        assistant: 好的。
gold:
  - {id: queue, terms: [Dramatiq 1.16], facts: true}
  - {id: client, terms: [HTTPX], facts: true}
  - {id: editor, terms: [Tiptap], facts: true}
  - {id: port, terms: ["7443"], facts: true}
stale:
  - {id: old queue, object: Celery 5.3}
  - {id: old client, object: Requests}
  - {id: old editor, object: Quill, relation: uses}
  - {id: old port, object: port 7001}
"""


def test_a_tool_replaced_with_its_version_a_client_moved_and_chinese_values(
    tmp_path: Path,
) -> None:
    """The tool left named two sentences before the switch, words between "moving" and "to",
    "换Tiptap", and values joined to Chinese characters ("从7001改成7443")."""
    missed, stale, listing = _run(tmp_path, _MORE_CHANGES)
    assert missed == [], listing
    assert stale == [], listing


_UNCHANGED = """
name: no change is read where none is said
sessions:
  - id: u-1
    project: kite
    start: "2027-02-01T09:00:00Z"
    turns:
      - user: The beta is due on March 12.
        assistant: Noted.
      - user: The release candidate is due on March 19.
        assistant: Noted.
      - user: We run Zephyr 3.7 on the board.
        assistant: Noted.
      - user: 发版前要找测试签字，别忘了提前约时间。
        assistant: 好的。
  - id: u-2
    project: kite
    start: "2027-02-15T09:00:00Z"
    turns:
      - user: Something moved, it's April 2 now.
        assistant: Which one?
      - user: We're bumping to Zephyr SDK 0.16.8 now.
        assistant: Ok.
      - user: 发版前还得约测试。下周三我们要跟供应商开会。
        assistant: 好的。
gold:
  - {id: beta, terms: ["2027-03-12"], facts: true}
  - {id: rc, terms: ["2027-03-19"], facts: true}
  - {id: zephyr, terms: [Zephyr 3.7], facts: true}
"""


def test_no_change_without_a_named_fact_a_cue_and_one_fitting_value(tmp_path: Path) -> None:
    """Two deadlines and a date that names neither: both stay; "Zephyr SDK 0.16.8" is not
    Zephyr's version; a meeting's date is no new deadline for the release the sentence before
    it named."""
    missed, _, listing = _run(tmp_path, _UNCHANGED)
    assert missed == [], listing
    assert not any("(was " in line or "原为" in line for line in listing), listing


# ------------------------------------------------------------------ projection of a follow-up


def ts(day: str) -> float:
    return datetime.fromisoformat(day).replace(tzinfo=UTC).timestamp()


def say(mem: Memory, sid: str, day: str, text: str) -> None:
    mem.append_message(sid, {"role": "user", "content": text, "event_time": ts(day)})
    mem.append_message(sid, {"role": "assistant", "content": "ok", "event_time": ts(day) + 1})
    mem.commit_turn(sid)


@pytest.fixture
def moved(tmp_path: Path) -> Memory:
    mem = Memory(
        settings=Settings(
            home=tmp_path / "home", distill_on_turn=False, embedder=None, index_worker=False
        )
    )
    say(mem, "s1", "2027-02-01", "The pilot launch is due on March 12.")
    say(mem, "s1", "2027-02-15", "Bad news on the pilot launch. It's April 2 now.")
    mem.sleep("light")
    return mem


def due(mem: Memory, scope: str | None = None) -> list[str]:
    return sorted(
        str(mem.entity(e.dst).attrs.get("deadline"))
        for e in mem.facts()
        if scope in (None, e.scope)
    )


def test_disabling_a_follow_up_makes_the_old_value_current_again(moved: Memory) -> None:
    assert due(moved) == ["2027-04-02"]
    (change,) = [m.id for m in moved.memories() if "(was 2027-03-12)" in m.text]
    moved.disable_memory(change)
    assert due(moved) == ["2027-03-12"]
    moved.enable_memory(change)
    assert due(moved) == ["2027-04-02"]
    moved.forget(change)
    assert due(moved) == ["2027-03-12"]


def test_a_rolled_back_follow_up_is_read_again(moved: Memory) -> None:
    last = moved.batches()[-1]
    moved.rollback(last.id)
    assert due(moved) == []
    moved.sleep("light")
    assert due(moved) == ["2027-04-02"]


def test_a_change_in_another_scope_leaves_the_fact_alone(tmp_path: Path) -> None:
    """A deadline said to an agent is that agent's: a change said in a plain session does not
    see it, the same change said to the agent does."""
    mem = Memory(
        settings=Settings(
            home=tmp_path / "home", distill_on_turn=False, embedder=None, index_worker=False
        )
    )

    def say_to(sid: str, day: str, text: str, agent: str | None) -> None:
        for role, content, at in (("user", text, ts(day)), ("assistant", "ok", ts(day) + 1)):
            msg = {"role": role, "content": content, "event_time": at}
            mem.append_message(sid, msg, agent_id=agent)
        mem.commit_turn(sid)

    say_to("a1", "2027-02-01", "The pilot launch is due on March 12.", "reviewer")
    say_to("s2", "2027-02-15", "The pilot launch moved, it's April 2 now.", None)
    mem.sleep("light")
    assert due(mem, "agent:reviewer") == ["2027-03-12"]
    say_to("a1", "2027-02-16", "Bad news on the pilot launch. It's April 9 now.", "reviewer")
    mem.sleep("light")
    assert due(mem, "agent:reviewer") == ["2027-04-09"]


# ------------------------------------------------------------------ the reading, unit by unit


def _edge(relation: str, dst: str, slot: str, fact: str) -> Edge:
    prov = Provenance("default", "s1", ("n1",), "c1", 0.0, 0.0)
    return Edge(
        id="e1",
        src="project.kite",
        dst=dst,
        relation=relation,
        fact=fact,
        provenance=prov,
        event_time=0.0,
        ingestion_time=0.0,
        valid_from=0.0,
        slot=slot,
        scope="global",
    )


def _entities(*ents: Entity) -> dict[str, Entity]:
    return {e.id: e for e in ents}


def test_a_version_is_the_tools_only_when_named_right_before_it() -> None:
    ents = _entities(
        Entity(id="project.kite", type="project", name="kite", scope="global", ingestion_time=0),
        Entity(id="value.z", type="value", name="Zephyr 3.7", scope="global", ingestion_time=0),
    )
    held = held_fact(_edge("runs_on", "value.z", "version:zephyr", "Runs on Zephyr 3.7."), ents.get)
    assert held is not None and held.old == "3.7"
    day = date(2027, 2, 1)
    (sdk,) = split_sentences("We're bumping to Zephyr SDK 0.16.8 now.", day)
    (own,) = split_sentences("We moved to Zephyr 3.8 now.", day)
    assert _new_value(held, sdk, sdk.text, "2027-02-01") is None
    assert _new_value(held, own, own.text, "2027-02-01") == "3.8"


# ------------------------------------------------------------------ core.md: asides of a session

_ASIDES = """
name: asides in a working session
sessions:
  - id: a-1
    project: kite
    start: "2027-03-01T09:00:00Z"
    turns:
      - user: We're demoing the kite dashboard to the board on March 18.
        assistant: Noted.
      - user: >-
          My son has a swimming gala this afternoon so I'm off early, he's been practising
          his dives all week.
        assistant: Good luck to him!
      - user: 今天我家狗把我的耳机线咬断了 开会只能外放 先这样。
        assistant: 哈哈。
      - user: ok back. the parser keeps choking on empty rows, can you look?
        assistant: Sure.
gold:
  - {id: demo, terms: ["2027-03-18"]}
junk:
  - "(?i)swimming gala"
  - "耳机线"
"""


def test_a_private_aside_of_a_working_session_is_no_recent_line(tmp_path: Path) -> None:
    path = tmp_path / "script.yaml"
    path.write_text(_ASIDES, encoding="utf-8")
    (score,) = run_sessions([path])
    assert score.junk == [], score.core
    assert any("swimming gala" in line for line in score.listing), score.listing  # a memory


def test_an_address_is_an_address() -> None:
    """A file or an API's name is no new address; the old address with another path is the old
    one; an address said with a port it was not held with keeps to the host."""
    ents = _entities(
        Entity(id="project.kite", type="project", name="kite", scope="global", ingestion_time=0),
        Entity(id="value.h", type="value", name="api.kite.io", scope="global", ingestion_time=0),
    )
    held = held_fact(
        _edge("has_host", "value.h", "host:sync backend", "Sync goes to https://api.kite.io/v1."),
        ents.get,
    )
    assert held is not None
    day = date(2027, 2, 1)

    def new(text: str) -> str | None:
        (s,) = split_sentences(text, day)
        return _new_value(held, s, s.text, "2027-02-01")

    assert new("The sync backend moved, it touches dose_calc.c now.") is None
    assert new("We're dropping storage.sync for the sync backend now.") is None
    assert new(
        "The sync backend moved: it's https://sync.kite.io/v2 now, api.kite.io/v1 goes."
    ) == ("https://sync.kite.io/v2")
    assert new("The sync backend is now at 10.1.2.3:8443.") == "10.1.2.3"


def test_a_fact_the_user_disabled_is_not_changed(tmp_path: Path) -> None:
    """A deadline whose memory the user disabled is not read as held: a later 'it's April 2
    now' gives no 'was' for it."""
    mem = Memory(
        settings=Settings(
            home=tmp_path / "home", distill_on_turn=False, embedder=None, index_worker=False
        )
    )
    say(mem, "s1", "2027-02-01", "The pilot launch is due on March 12.")
    mem.sleep("light")
    (first,) = [m.id for m in mem.memories() if "2027-03-12" in m.text]
    mem.disable_memory(first)
    say(mem, "s1", "2027-02-15", "Bad news on the pilot launch. It's April 2 now.")
    mem.sleep("light")
    assert not any("(was 2027-03-12)" in m.text for m in mem.memories())


_STACK = """
name: a stack list, then bumps
sessions:
  - id: k-1
    project: wren
    start: "2027-02-01T09:00:00Z"
    turns:
      - user: "setup so you don't guess: kotlin 1.9.22 on java 17, spring boot 3.2, ktor 2.3.7."
        assistant: Noted.
  - id: k-2
    project: wren
    start: "2027-02-20T09:00:00Z"
    turns:
      - user: the platform team dropped 17 from the base images, so we're on java 21 now.
        assistant: Ok.
gold:
  - {id: kotlin, terms: [kotlin 1.9.22], facts: true}
  - {id: spring boot, terms: [spring boot 3.2], facts: true}
  - {id: java, terms: [java 21], facts: true}
stale:
  - {id: old java, object: java 17}
junk:
  - "(?i)so you don't guess"
"""


def test_a_stack_list_gives_versions_a_later_bump_changes(tmp_path: Path) -> None:
    """Tools listed with their versions are version facts (a whole number only after a known
    tool), and 'we're on java 21 now' changes the one of java; no 'so you ...' lead-in."""
    missed, stale, listing = _run(tmp_path, _STACK)
    assert missed == [], listing
    assert stale == [], listing
    assert not any("you don't guess" in line for line in listing), listing
