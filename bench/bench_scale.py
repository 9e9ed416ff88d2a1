"""Recall latency at scale: 10k, 100k and 1M indexed records in ONE tenant.

    python bench/bench_scale.py [--sizes 10000,100000,1000000] [--queries 200] [--warmup 10]
                                [--real 2000] [--dir DIR] [--profile]

For each size it reports recall latency p50/p95/p99 through the facade (``Memory.recall``: index
sync check, query embedding with the real default embedder (E5), BM25 + dense candidates, graph
expansion, rerank, budget packing with the real tokenizer), the index size on disk and the process
memory (VmRSS, and the peak VmHWM, from /proc/self/status), the build time, and beside them, in the
same process on the same index, the two primitive searches alone: brute-force numpy cosine over the
same vectors (query embedding included) and SQLite FTS5 BM25. Target: p95 <= 30 ms at 100k records.

**What is synthetic, and why.** Embedding 1M texts with E5 would take hours on this CPU (~60-120
texts/s), so the records are written straight into the index: turn-like documents (varied English
text from word lists, ~3% Chinese, dates spread over 2019-2025, sessions of 20-60 turns with seq
numbers), plus memory / event / fact / session / entity documents in the proportions distillation
produces (with the L1 overview of each memory, event and fact), via ``IndexStore.write`` in large
batches; and the vectors go straight into the ``vecs`` table as **random unit float32 vectors**,
except for a subset (``--real``, default 2,000 documents) embedded for real with E5, so real queries
have true neighbours. Latency does not depend on what the vectors contain (brute force reads them
all), but recall *quality* here means nothing; LoCoMo (``ogmem bench locomo``) measures that. The
synthetic memories, events and facts carry no ``support`` (there are no knowledge logs behind them),
which recall treats as visible, as it does records whose memories are enabled; the index's cursors
say nothing is pending, so recall's sync step finds nothing to index (checked).

Each size is built in a child process and measured in a fresh one, so the memory figures are
those of a process that opened the index and answered queries, not of the one that built it.
With ``--dir`` the built indexes are kept there and reused by later runs (1M takes several
minutes to build).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from datetime import UTC, datetime
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table
from threadpoolctl import ThreadpoolController

from ogmemory import Memory, Settings
from ogmemory.embed import encode_queries, make_embedder
from ogmemory.entity.times import day_label
from ogmemory.index.docs import Doc
from ogmemory.index.text import query_terms
from ogmemory.storage.sqlite import connect
from ogmemory.storage.sqlite_index import SqliteIndexStore as IndexStore
from ogmemory.storage.sqlite_index_schema import fts_match

BUILD_VERSION = 3
EMBEDDER = "e5"  # the default embedder (Settings.embedder)
DIM = 384

# ---------------------------------------------------------------------------- vocabulary


def _words(text: str) -> list[str]:
    """A word list written as ``a | b | c`` over several lines."""
    return [w.strip() for w in text.replace("\n", "|").split("|") if w.strip()]


NAMES = _words("""
Ana | Ben | Carla | David | Elena | Farid | Grace | Hiro | Ines | Jonas | Kemi | Liam | Maya
Nikolai | Olga | Priya | Quentin | Rosa | Samir | Tomas | Uma | Victor | Wen | Xavier | Yara | Zoe
Aisha | Bruno | Chen | Dmitri | Emma | Felix | Gita | Hannah | Ivan | Julia | Kofi | Lena | Mateo
Nora | Oscar | Paula | Ravi | Sofia | Theo | Ulla | Vera | Will | Ximena | Yusuf | Zara
""")
CITIES = _words("""
Berlin | Lisbon | Nairobi | Osaka | Toronto | Lyon | Krakow | Seoul | Austin | Porto | Melbourne
Oslo | Valencia | Chennai | Denver | Tbilisi | Hanoi | Dublin | Bogota | Cairo | Munich | Helsinki
Quito | Tallinn | Kyoto | Seattle | Marseille | Accra | Cusco | Leeds | Bergen | Tunis | Shenzhen
Sapporo | Zurich | Ghent | Bilbao
""")
ACTIVITIES = _words("""
rock climbing | pottery | salsa dancing | trail running | sourdough baking | birdwatching | chess
kayaking | watercolor painting | yoga | bouldering | gardening | woodworking | swimming | knitting
photography | surfing | cycling | hiking | calligraphy | volunteering at the shelter
playing guitar | learning Japanese | ice skating | archery | fencing | stand-up comedy | astronomy
origami | beekeeping | marathon training | camping | tennis | scuba diving | skiing | piano lessons
community theatre | fishing
""")
FOODS = _words("""
ramen | lentil soup | banana bread | sushi | tacos | paella | dumplings | green curry | pierogi
falafel | lasagna | pho | shakshuka | bibimbap | cheesecake | jollof rice | moussaka | empanadas
miso soup | apple pie
""")
TOOLS = _words("""
Python | TypeScript | PostgreSQL | Rust | Kotlin | Docker | Kubernetes | React | Go | Terraform
Redis | SQLite | Svelte | Django | FastAPI | Elixir | Figma | Blender | Excel | Notion | Obsidian
Vim | Emacs | Jira | Airflow | Spark
""")
RELATIVES = _words("""
sister | brother | mother | father | cousin | aunt | uncle | grandmother | grandfather | niece
nephew | best friend | roommate | neighbour | partner
""")
PETS = _words("dog | cat | parrot | rabbit | hamster | turtle | goldfish | puppy | kitten")
PET_NAMES = _words("""
Biscuit | Luna | Pepper | Milo | Nala | Oreo | Ziggy | Mochi | Rex | Clover | Pickles | Juniper
Bean | Tofu | Shadow
""")
BOOKS = _words("""
Dune | Middlemarch | The Overstory | Sapiens | Beloved | Piranesi | Educated | Klara and the Sun
The Left Hand of Darkness | Circe | Project Hail Mary | The Remains of the Day | Pachinko
The Name of the Wind | Atomic Habits
""")
PROJECTS = _words("""
billing | search | onboarding | mobile app | data pipeline | checkout | analytics dashboard
recommendation | payments | inventory | chatbot
""")
PLACES = _words("""
the community center | the park | the library | the old harbour | the museum
the farmers market | the climbing gym | the lake | the botanical garden | the art studio
the rooftop bar | the night market | the beach
""")
ADJ = _words("""
amazing | exhausting | relaxing | frustrating | surprisingly fun | hard | peaceful | chaotic
inspiring | nerve-wracking | wonderful | a bit boring
""")
FEELINGS = _words("""
excited | nervous | proud | tired | grateful | overwhelmed | happy | anxious | relieved
motivated | homesick | curious
""")
WEEKDAYS = _words("Monday | Tuesday | Wednesday | Thursday | Friday | Saturday | Sunday")
MONTHS = _words("""
January | February | March | April | May | June | July | August | September | October
November | December
""")
CHITCHAT = _words("""
That sounds great! | How are you holding up? | I totally get that. | Tell me more about it.
Wow, I did not expect that. | Good luck with it! | Let's catch up again soon.
That must have been a lot. | Haha, classic. | I'm really happy for you. | Take care of yourself.
Same here, honestly.
""")

TEMPLATES = [
    "I finally tried {activity} last {weekday} and it was {adj}.",
    "My {relative} moved to {city} in {month}.",
    "We switched from {tool} to {tool2} for the {project} project.",
    "Have you ever been to {city}? I went there with my {relative} last year.",
    "I'm reading {book} right now and I can't put it down.",
    "Our {pet} {petname} got sick after eating some {food}.",
    "I signed up for a {activity} class at {place}.",
    "The meeting about the {project} rollout moved to {weekday}.",
    "I cooked {food} for my {relative}'s birthday and everyone loved it.",
    "I've been feeling {feeling} about the new job in {city}.",
    "We adopted a {pet} named {petname} in {month}!",
    "My {relative} and I spent the weekend {activity} near {city}.",
    "I gave a talk about {tool} at a meetup in {city}.",
    "Honestly {tool} has been a pain; the {project} build keeps breaking.",
    "I started {activity} because my {relative} kept talking about it.",
    "We're planning a trip to {city} in {month} to see my {relative}.",
    "I made {food} from scratch for the first time, it was {adj}.",
    "I finished {book}, the ending made me so {feeling}.",
    "I volunteered at {place} on {weekday} and met a lot of kind people.",
    "The {project} team decided to use {tool} from now on.",
    "I ran into my old {relative} at {place}, what a coincidence.",
    "My {pet} {petname} loves going to {place} every {weekday}.",
    "I've been practicing {activity} every morning before work.",
    "We celebrated my {relative}'s graduation with {food} at {place}.",
    "I'm {feeling} because the {project} deadline is next {weekday}.",
    "I lost my keys at {place} and spent an hour looking for them.",
    "I'm thinking of moving to {city}; the rent here is getting crazy.",
    "My {relative} recommended {book}, so I'm giving it a try.",
]
CJK_TEMPLATES = [
    "我上周末去{city}看了我的家人，感觉很{cn_adj}。",
    "我们团队的数据库用 {tool}，不用 MySQL。",
    "我最近在学{cn_activity}，每天练习一个小时。",
    "我喜欢喝茶，尤其是早上。",
    "我的猫{petname}生病了，我很担心。",
]
CN_ADJ = ["开心", "累", "放松", "充实", "紧张"]
CN_ACT = ["书法", "游泳", "吉他", "烘焙", "摄影", "瑜伽"]

QUESTION_TEMPLATES = [
    "When did {name} try {activity}?",
    "Where did {name}'s {relative} move?",
    "What did {name} switch to from {tool}?",
    "What book is {name} reading?",
    "What happened to {name}'s {pet}?",
    "What class did {name} sign up for at {place}?",
    "What did {name} cook for the birthday?",
    "How does {name} feel about the new job in {city}?",
    "What is the name of {name}'s {pet}?",
    "Who did {name} go {activity} with?",
    "What did {name} talk about at the meetup in {city}?",
    "Why does {name} want to move to {city}?",
    "What did {name} do in {month} {year}?",
    "What happened with the {project} project last {month}?",
    "Which tool does the {project} team use now?",
    "Did {name} enjoy {activity}?",
    "What does {name} do every morning before work?",
    "Where did {name} volunteer?",
    "What trip is {name} planning for {month}?",
    "What food did {name} make from scratch?",
    "Which city did {name} visit with their {relative}?",
    "What did {name} recommend to read?",
    "我们的数据库用什么？",
    "{name}最近在学什么？",
]

_DAY0 = datetime(2019, 1, 1, tzinfo=UTC).timestamp()
_DAY1 = datetime(2025, 12, 31, tzinfo=UTC).timestamp()


def _fill(rng: random.Random, template: str, **fixed: str) -> str:
    tools = rng.sample(TOOLS, 2)
    values = {
        "activity": rng.choice(ACTIVITIES),
        "weekday": rng.choice(WEEKDAYS),
        "adj": rng.choice(ADJ),
        "relative": rng.choice(RELATIVES),
        "city": rng.choice(CITIES),
        "month": rng.choice(MONTHS),
        "tool": tools[0],
        "tool2": tools[1],
        "project": rng.choice(PROJECTS),
        "book": rng.choice(BOOKS),
        "pet": rng.choice(PETS),
        "petname": rng.choice(PET_NAMES),
        "food": rng.choice(FOODS),
        "place": rng.choice(PLACES),
        "feeling": rng.choice(FEELINGS),
        "name": rng.choice(NAMES),
        "year": str(rng.randint(2019, 2025)),
        "cn_adj": rng.choice(CN_ADJ),
        "cn_activity": rng.choice(CN_ACT),
    }
    values.update(fixed)
    return template.format(**values)


def _utterance(rng: random.Random) -> str:
    if rng.random() < 0.03:
        return _fill(rng, rng.choice(CJK_TEMPLATES))
    parts = [_fill(rng, rng.choice(TEMPLATES)) for _ in range(rng.choice((1, 1, 2, 2, 3)))]
    if rng.random() < 0.35:
        parts.insert(0, rng.choice(CHITCHAT))
    return " ".join(parts)


def queries(n: int, seed: int) -> list[str]:
    """``n`` varied questions in the shape of the generated conversations."""
    rng = random.Random(seed)
    return [_fill(rng, rng.choice(QUESTION_TEMPLATES)) for _ in range(n)]


# ---------------------------------------------------------------------------- documents


def _entity_docs() -> list[Doc]:
    return [
        Doc(
            id=f"entity:{kind}.{name.lower()}",
            kind="entity",
            level=0,
            text=f"{name} ({kind})",
            event_time=_DAY0,
            prov={"entity": f"{kind}.{name.lower()}", "node_ids": []},
        )
        for kind, names in (("person", NAMES), ("place", CITIES), ("tool", TOOLS))
        for name in names
    ]


def _session_docs(rng: random.Random, index: int) -> list[Doc]:
    """One conversation: its turns, then what distillation would derive from it."""
    sid = f"s{index:07d}"
    commit = f"{rng.getrandbits(160):040x}"
    a, b = rng.sample(NAMES, 2)
    start = rng.uniform(_DAY0, _DAY1)
    n_turns = rng.randint(20, 60)
    turns: list[Doc] = []
    for seq in range(1, n_turns + 1):
        speaker = a if seq % 2 else b
        t = start + seq * 30
        node = f"n{index:07d}{seq:03d}"
        turns.append(
            Doc(
                id=f"turn:{sid}:{node}",
                kind="turn",
                level=2,
                text=f"[{day_label(t)}] {speaker}: {_utterance(rng)}",
                parent=f"session:{sid}:1",
                session_id=sid,
                seq=seq,
                event_time=t,
                node_ids=(node,),
                cites=(f"D{index}:{seq}",),
                prov={
                    "session_id": sid,
                    "project_id": "default",
                    "commit": commit,
                    "node_ids": [node],
                    "event_time": t,
                },
            )
        )
    derived: list[Doc] = []

    def cited() -> tuple[list[Doc], str]:
        picked = sorted(rng.sample(turns, rng.choice((1, 1, 2))), key=lambda d: d.seq or 0)
        return picked, picked[0].text.split("] ", 1)[1].split(":", 1)[0]

    for k in range(max(1, n_turns // 10)):  # memories
        picked, who = cited()
        derived.append(
            Doc(
                id=f"memory:m{index:07d}{k:02d}",
                kind="memory",
                level=0,
                text=_fill(
                    rng,
                    rng.choice(
                        [
                            "{name} enjoys {activity}.",
                            "{name}'s {relative} lives in {city}.",
                            "{name} has a {pet} named {petname}.",
                            "{name} prefers {food} over {food2}.",
                            "{name} works on the {project} project with {tool}.",
                        ]
                    ),
                    name=who,
                    food2=rng.choice(FOODS),
                ),
                parent=f"session:{sid}:1",
                session_id=sid,
                event_time=picked[0].event_time,
                importance=round(rng.uniform(0.3, 0.9), 2),
                node_ids=tuple(n for d in picked for n in d.node_ids),
                cites=tuple(c for d in picked for c in d.cites),
                prov={
                    "session_id": sid,
                    "commit": commit,
                    "event_time": picked[0].event_time,
                    "node_ids": [n for d in picked for n in d.node_ids],
                },
            )
        )
    for k in range(max(1, n_turns // 25)):  # timeline events
        picked, who = cited()
        when = picked[0].event_time - rng.uniform(0, 40) * 86400
        derived.append(
            Doc(
                id=f"event:e{index:07d}{k:02d}",
                kind="event",
                level=0,
                text=f"[{day_label(when)}] "
                + _fill(
                    rng,
                    rng.choice(
                        [
                            "{name} moved to {city}.",
                            "{name} started {activity}.",
                            "{name} finished reading {book}.",
                            "{name} adopted a {pet} named {petname}.",
                            "{name}'s team switched from {tool} to {tool2}.",
                        ]
                    ),
                    name=who,
                ),
                session_id=sid,
                event_time=when,
                superseded=rng.random() < 0.1,
                importance=round(rng.uniform(0.3, 0.9), 2),
                node_ids=tuple(n for d in picked for n in d.node_ids),
                cites=tuple(c for d in picked for c in d.cites),
                prov={
                    "session_id": sid,
                    "commit": commit,
                    "event_time": when,
                    "node_ids": [n for d in picked for n in d.node_ids],
                    "entities": [f"person.{who.lower()}"],
                },
            )
        )
    for k in range(max(1, n_turns // 20)):  # graph facts
        picked, who = cited()
        tool, city = rng.choice(TOOLS), rng.choice(CITIES)
        start_t = picked[0].event_time
        end_t = start_t + rng.uniform(30, 700) * 86400 if rng.random() < 0.3 else None
        relation, obj, text = rng.choice(
            [
                ("uses", f"tool.{tool.lower()}", f"{who} uses {tool}."),
                ("lives_in", f"place.{city.lower()}", f"{who} lives in {city}."),
                ("visited", f"place.{city.lower()}", f"{who} visited {city}."),
            ]
        )
        span = f"{day_label(start_t)} → {day_label(end_t) if end_t else 'now'}"
        derived.append(
            Doc(
                id=f"edge:f{index:07d}{k:02d}",
                kind="fact",
                level=0,
                text=f"{text} ({span})",
                session_id=sid,
                event_time=start_t,
                valid_from=start_t,
                valid_to=end_t,
                superseded=end_t is not None,
                importance=round(rng.uniform(0.5, 1.0), 2),
                node_ids=tuple(n for d in picked for n in d.node_ids),
                cites=tuple(c for d in picked for c in d.cites),
                prov={
                    "session_id": sid,
                    "commit": commit,
                    "event_time": start_t,
                    "node_ids": [n for d in picked for n in d.node_ids],
                    "entities": [f"person.{who.lower()}", obj],
                    "relation": relation,
                },
            )
        )
    opening = " ".join(t.text.split(": ", 1)[-1] for t in turns[:3])[:300]
    common: dict[str, Any] = {
        "session_id": sid,
        "event_time": turns[0].event_time,
        "prov": {
            "session_id": sid,
            "project_id": "default",
            "node_ids": [],
            "event_time": turns[0].event_time,
        },
    }
    overview, size = [], 0
    for t in turns:
        if size + len(t.text) > 2000:
            break
        overview.append(t)
        size += len(t.text) + 1
    sessions = [
        Doc(
            id=f"session:{sid}:0",
            kind="session",
            level=0,
            text=f"Session {sid} ({day_label(start)}) with {a}, {b}: {opening}",
            node_ids=tuple(n for t in turns[:3] for n in t.node_ids),
            **common,
        ),
        Doc(
            id=f"session:{sid}:1",
            kind="session",
            level=1,
            parent=f"session:{sid}:0",
            text="\n".join(t.text for t in overview),
            node_ids=tuple(n for t in overview for n in t.node_ids),
            **common,
        ),
    ]
    said = {n: t.text for t in turns for n in t.node_ids}
    overviews = [  # the L1 overview of each memory, event and fact: abstract + cited turns
        replace(
            d,
            id=f"{d.id}:1",
            level=1,
            parent=d.id,
            text="\n".join([d.text, *(said[n] for n in d.node_ids if n in said)]),
        )
        for d in derived
    ]
    return turns + derived + overviews + sessions


def documents(n: int, seed: int, batch: int = 20_000) -> Iterator[list[Doc]]:
    """Exactly ``n`` documents, in batches (entities first, then whole sessions)."""
    rng = random.Random(seed)
    pending = _entity_docs()
    produced = 0
    index = 0
    while produced < n:
        while len(pending) < batch and produced + len(pending) < n:
            index += 1
            pending.extend(_session_docs(rng, index))
        take = pending[: min(batch, n - produced)]
        pending = pending[len(take) :]
        produced += len(take)
        yield take


# ---------------------------------------------------------------------------- build


def _home_for(root: Path, n: int) -> Path:
    return root / f"scale-{n}"


def _settings(home: Path) -> Settings:
    return Settings(home=home, embedder=EMBEDDER, index_worker=False, distill_on_turn=False)


def build(root: str, n: int, real: int, seed: int) -> dict[str, Any]:
    """Fill one tenant's index with ``n`` synthetic documents and their vectors (child process)."""
    home = _home_for(Path(root), n)
    index_path = Memory(settings=_settings(home)).index_path
    marker = {"records": n, "real": real, "seed": seed, "version": BUILD_VERSION}
    if index_path.exists():
        store = IndexStore(index_path, embedder_name=None)
        if store.get_meta("bench_scale") == marker:
            return {"reused": True, **(store.get_meta("bench_scale_build") or {})}
        store.close()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{index_path}{suffix}").unlink(missing_ok=True)
    # embedder_name=None: no embedding jobs are enqueued; the vectors are written below
    store = IndexStore(index_path, embedder_name=None)
    t0 = time.perf_counter()
    written = 0
    for docs in documents(n, seed):
        written += store.write(docs)
    t_docs = time.perf_counter() - t0
    conn = connect(index_path)
    rowids = np.fromiter(
        (r for (r,) in conn.execute("SELECT rowid FROM docs ORDER BY rowid")), dtype=np.int64
    )
    # the real subset: evenly spread over the index, embedded for real
    t1 = time.perf_counter()
    real_idx = np.linspace(0, len(rowids) - 1, num=min(real, len(rowids)), dtype=np.int64)
    real_rowids = [int(r) for r in rowids[real_idx]]
    texts: dict[int, str] = {}
    for i in range(0, len(real_rowids), 500):
        chunk = real_rowids[i : i + 500]
        q = f"SELECT rowid, text FROM docs WHERE rowid IN ({','.join('?' * len(chunk))})"
        texts.update(dict(conn.execute(q, chunk).fetchall()))
    embedder = make_embedder(EMBEDDER)
    assert embedder is not None
    real_vecs = dict(
        zip(real_rowids, embedder.encode([texts[r][:2000] for r in real_rowids]), strict=True)
    )
    t_embed = time.perf_counter() - t1
    # every other document: a random unit vector, straight into vecs
    t2 = time.perf_counter()
    rng = np.random.default_rng(seed)
    chunk_size = 20_000
    for start in range(0, len(rowids), chunk_size):
        ids = rowids[start : start + chunk_size]
        vecs = rng.standard_normal((len(ids), DIM), dtype=np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        rows = []
        for rowid, vec in zip(ids.tolist(), vecs, strict=True):
            v = real_vecs.get(rowid, vec)
            rows.append((rowid, DIM, np.ascontiguousarray(v, dtype="<f4").tobytes()))
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany("INSERT INTO vecs(doc_rowid, dim, v) VALUES (?, ?, ?)", rows)
        conn.execute("COMMIT")
    t_vecs = time.perf_counter() - t2
    info = {
        "docs_s": round(t_docs, 1),
        "embed_s": round(t_embed, 1),
        "vectors_s": round(t_vecs, 1),
        "build_s": round(t_docs + t_embed + t_vecs, 1),
        "written": written,
    }
    # cursors: nothing in the files is newer than this index, so recall's sync finds nothing
    store.write(
        [],
        meta={"turn_cursor": {}, "kb_batches": 0, "bench_scale": marker, "bench_scale_build": info},
    )
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    store.close()
    return {"reused": False, **info}


# ---------------------------------------------------------------------------- measure


def _proc_status() -> dict[str, float]:
    """VmRSS and VmHWM (peak) of this process, in MB (Linux); ru_maxrss elsewhere."""
    out: dict[str, float] = {}
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0]) / 1024
    except OSError:
        import resource

        out["VmHWM"] = out["VmRSS"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def _pcts(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)

    def pct(p: float) -> float:
        return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))]

    return {"p50": pct(0.50), "p95": pct(0.95), "p99": pct(0.99), "mean": statistics.fmean(ordered)}


def measure(
    root: str, n: int, n_queries: int, warmup: int, seed: int, profile: bool
) -> dict[str, Any]:
    """Time recall through the facade, then the primitive searches (fresh child process)."""
    home = _home_for(Path(root), n)
    mem = Memory(settings=_settings(home))
    docs_before = mem.index_stats()["documents"]
    qs = queries(n_queries + warmup, seed + 1)
    # the warm-up also loads what only some queries need (jieba, for Chinese ones)
    warm, timed = ["我们的数据库用什么？", *qs[:warmup]], qs[warmup:]
    t0 = time.perf_counter()
    for q in warm:  # loads the embedding model, the vector matrix, jieba, the tokenizer
        mem.recall(q)
    warmup_s = time.perf_counter() - t0
    rss_before = _proc_status()
    times: list[float] = []
    cpu_times: list[float] = []  # CPU of all threads: less sensitive to a busy machine
    fallbacks = items = tokens = 0
    prof = cProfile.Profile() if profile else None
    for q in timed:
        if prof:
            prof.enable()
        start, cpu = time.perf_counter(), time.process_time()
        result = mem.recall(q)
        times.append((time.perf_counter() - start) * 1000)
        cpu_times.append((time.process_time() - cpu) * 1000)
        if prof:
            prof.disable()
        fallbacks += result.fallback
        items += len(result.items)
        tokens += result.tokens
    status = _proc_status()
    stats = mem.index_stats()
    outbox = mem.outbox_status()
    # recall's sync must not have indexed anything: the timings are of reads only
    assert stats["documents"] == docs_before, (stats, docs_before)
    assert outbox["total"] == 0, outbox
    profile_text = ""
    if prof:
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(30)
        buf.write("\n--- by own time ---\n")
        pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(20)
        profile_text = buf.getvalue()
    embedder = mem.embedder
    assert embedder is not None
    index_path = mem.index_path
    mem.close()

    # --- baselines, same process, same index file, same queries
    embed_times = []
    for q in timed:
        start = time.perf_counter()
        encode_queries(embedder, [q])
        embed_times.append((time.perf_counter() - start) * 1000)
    conn = sqlite3.connect(f"file:{index_path}?mode=ro", uri=True)
    bm25_times = []
    for q in timed:
        match = fts_match(*query_terms(q))
        start = time.perf_counter()
        if match:
            conn.execute(
                "SELECT rowid, bm25(docs_fts, 1.0, 0.6) FROM docs_fts "
                "WHERE docs_fts MATCH ? ORDER BY rank LIMIT 60",
                (match,),
            ).fetchall()
        bm25_times.append((time.perf_counter() - start) * 1000)
    (count,) = conn.execute("SELECT count(*) FROM vecs").fetchone()
    matrix = np.empty((count, DIM), dtype=np.float32)
    cur = conn.execute("SELECT v FROM vecs ORDER BY doc_rowid")
    filled = 0
    while rows := cur.fetchmany(4096):
        matrix[filled : filled + len(rows)] = np.frombuffer(
            b"".join(v for (v,) in rows), dtype="<f4"
        ).reshape(len(rows), DIM)
        filled += len(rows)
    conn.close()
    dense_times = []
    blas = ThreadpoolController()
    for q in timed:
        start = time.perf_counter()
        qv = encode_queries(embedder, [q])[0]
        with blas.limit(limits=1, user_api="blas"):  # as IndexStore.dense does
            scores = matrix @ qv
        top = np.argpartition(-scores, 59)[:60]
        top[np.argsort(-scores[top])]
        dense_times.append((time.perf_counter() - start) * 1000)
    return {
        "records": stats["documents"],
        "vectors": stats["vectors"],
        "index_bytes": stats["bytes"],
        "rss_mb": status["VmRSS"],
        "peak_mb": status["VmHWM"],
        "rss_warm_mb": rss_before["VmRSS"],
        "recall": _pcts(times),
        "recall_cpu": _pcts(cpu_times),
        "embed": _pcts(embed_times),
        "bm25": _pcts(bm25_times),
        "dense": _pcts(dense_times),
        "fallbacks": fallbacks,
        "queries": len(timed),
        "items": items / len(timed),
        "tokens": tokens / len(timed),
        "warmup_s": round(warmup_s, 1),
        "profile": profile_text,
    }


# ---------------------------------------------------------------------------- report


def _in_child(fn: Any, *args: Any) -> Any:
    with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
        return pool.submit(fn, *args).result()


def size_table(res: dict[str, Any], build_info: dict[str, Any]) -> Table:
    n = res["records"]
    title = (
        f"{n:,} records, one tenant: latency over {res['queries']} queries "
        f"(warm-up excluded; {res['fallbacks']} fallbacks)"
    )
    table = Table(title=title, title_justify="left")
    for col in (
        "system",
        "records",
        "p50 ms",
        "p95 ms",
        "p99 ms",
        "mean ms",
        "index MB",
        "RSS MB",
        "build s",
    ):
        table.add_column(col, justify="left" if col == "system" else "right")
    build_s = f"{build_info.get('build_s', 0):.1f}" + (
        " (reused)" if build_info.get("reused") else ""
    )
    rows = [
        (
            "ogmemory recall (facade)",
            res["recall"],
            f"{res['index_bytes'] / 2**20:,.1f}",
            f"{res['rss_mb']:,.0f} (peak {res['peak_mb']:,.0f})",
            build_s,
        ),
        ("  ogmemory recall: CPU time, all threads (BLAS spins)", res["recall_cpu"], "", "", ""),
        (
            "  baseline: dense alone (E5 query + numpy cosine on 1 BLAS thread, top 60)",
            res["dense"],
            "",
            "",
            "",
        ),
        ("  baseline: BM25 alone (FTS5, top 60)", res["bm25"], "", "", ""),
        ("  of which: query embedding (E5)", res["embed"], "", "", ""),
    ]
    for name, p, size, rss, bs in rows:
        table.add_row(
            name,
            f"{n:,}",
            f"{p['p50']:.1f}",
            f"{p['p95']:.1f}",
            f"{p['p99']:.1f}",
            f"{p['mean']:.1f}",
            size,
            rss,
            bs,
        )
    return table


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--sizes",
        default="10000,100000,1000000",
        help="comma-separated record counts (default: 10000,100000,1000000)",
    )
    parser.add_argument("--queries", type=int, default=200, help="timed queries per size")
    parser.add_argument("--warmup", type=int, default=10, help="untimed queries first")
    parser.add_argument(
        "--real",
        type=int,
        default=2000,
        help="documents embedded for real with E5 (the rest: random vectors)",
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--dir", type=Path, help="keep the built indexes here and reuse them (default: temporary)"
    )
    parser.add_argument(
        "--profile", action="store_true", help="cProfile the timed recalls and print what dominates"
    )
    args = parser.parse_args()
    try:
        sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        parser.error(f"--sizes: not a list of integers: {args.sizes!r}")
    if not sizes or min(sizes) < 1000:
        parser.error("--sizes: each size must be at least 1000")
    console = Console(width=None if sys.stdout.isatty() else 170)
    console.print(
        "[bold]Synthetic index.[/bold] Records are written straight into the index; vectors "
        f"are random unit float32 except {args.real:,} documents embedded for real with E5 "
        "(embedding 1M texts with E5 would take hours). Latency is what is measured "
        "here, not recall quality (that is LoCoMo's job)."
    )
    tmp = None
    root = args.dir
    if root is None:
        tmp = tempfile.TemporaryDirectory(prefix="ogmem-scale-")
        root = Path(tmp.name)
    root.mkdir(parents=True, exist_ok=True)
    summary = []
    try:
        for n in sizes:
            console.print(f"[dim]{n:,} records: building...[/dim]")
            info = _in_child(build, str(root), n, args.real, args.seed)
            console.print(f"[dim]  {json.dumps(info)}; measuring...[/dim]")
            res = _in_child(
                measure, str(root), n, args.queries, args.warmup, args.seed, args.profile
            )
            console.print(size_table(res, info))
            if res["profile"]:
                console.print(f"[bold]cProfile of the timed recalls at {n:,}[/bold]")
                console.print(res["profile"], markup=False, highlight=False)
            summary.append((n, res, info))
    finally:
        if tmp is not None:
            tmp.cleanup()
    table = Table(title="Recall latency by index size (ms)", title_justify="left")
    for col in (
        "records",
        "recall p50",
        "recall p95",
        "recall p99",
        "dense p95",
        "BM25 p95",
        "embed p95",
        "index MB",
        "RSS MB",
        "build s",
        "target p95 <= 30 ms @100k",
    ):
        table.add_column(col, justify="right")
    for n, res, info in summary:
        verdict = ""
        if n == 100_000:
            verdict = "met" if res["recall"]["p95"] <= 30 else "MISSED"
        table.add_row(
            f"{n:,}",
            f"{res['recall']['p50']:.1f}",
            f"{res['recall']['p95']:.1f}",
            f"{res['recall']['p99']:.1f}",
            f"{res['dense']['p95']:.1f}",
            f"{res['bm25']['p95']:.1f}",
            f"{res['embed']['p95']:.1f}",
            f"{res['index_bytes'] / 2**20:,.0f}",
            f"{res['rss_mb']:,.0f}",
            f"{info.get('build_s', 0):.0f}",
            verdict,
        )
    console.print(table)


if __name__ == "__main__":
    main()
