"""core.md: the ≤ 2 KB snapshot injected into every prompt (seed 000 §4).

What a model needs before the first word of a conversation, in this order:

* **who**: the user (name, role, employer, where they live) and the people they work with,
  their roles and what they expect ("Priya Raman expects a status report every Friday");
* **rules and preferences**: standing rules ("always run ruff before committing"), likes,
  dislikes and refusals ("decided not to use Redux");
* **stack and settings**: the current choices and configuration (PostgreSQL for the database,
  port 8080, Python 3.12);
* **upcoming deadlines**: those not yet passed, soonest first;
* **recent**: high-signal events (lessons, fixes, life events), newest first.

Every line comes from a current, visible fact or event in the requested scopes and ends with a
``↪`` pointer to its evidence. Sections take turns, one line at a time, so none crowds the
others out of the 2 KB. Nothing else is written: no raw commands, no commit messages, no
assistant echoes, and no fact that no longer holds (a decision another one replaced is history,
not stack).
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Iterable, Sequence

from ..entity.periods import time_label
from ..entity.times import day_label
from .base import KnowledgeBase
from .defining import Themes, fair_order, lasting_object, milestone_factor, pointing, spread
from .models import Edge, Entity, MemoryItem, TimelineEvent
from .views import pointer

__all__ = ["CORE_LIMIT_BYTES", "SECTIONS", "render_core"]

CORE_LIMIT_BYTES = 2048
_RULE = "═" * 48

#: section -> relations it shows (events are the last section's). How two people stand to each
#: other ("encourages", "admires", "grateful_to", "cares_about") stays in the graph but is no
#: line of "Who": it says little about either, and filled the section between two friends.
SECTIONS: dict[str, tuple[str, ...]] = {
    "who": (
        "is_a",
        "has_family",
        "comes_from",
        "moved_from",
        "has",
        "aims_for",
        "runs",
        "worked_as",
        "works_at",
        "has_role",
        "lives_in",
        "works_in",
        "reports_to",
        "works_with",
        "expects",
        "member_of",
        "has_relation",
        "works_on",
        "knows",
        "owns",
    ),
    "rules": ("follows_rule", "prefers", "dislikes", "avoids"),
    "stack": (
        "uses",
        "focuses_on",
        "listens_on",
        "runs_on",
        "deployed_in",
        "has_host",
        "stored_in",
        "located_at",
        "communicates_in",
        "has_constraint",
    ),
    "deadlines": ("has_deadline",),
}
_HEADERS = {
    "en": {
        "who": "[Who]",
        "rules": "[Rules & preferences]",
        "stack": "[Stack & settings]",
        "deadlines": "[Upcoming deadlines]",
        "recent": "[Recent]",
    },
    "zh": {
        "who": "[人物]",
        "rules": "[规则与偏好]",
        "stack": "[技术栈与配置]",
        "deadlines": "[即将到期]",
        "recent": "[最近]",
    },
}
_RECENT_KINDS = ("learning", "work", "event")
#: sections whose lines are ranked by what defines each person and take turns by person
_FAIR = ("who", "rules")
_MIN_IMPORTANCE = {"work": 0.6, "event": 0.5, "learning": 0.0}


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9])|(?<=[。！？])")
_CLAUSE_END = re.compile(r"[,;:，；：、]")
_WORD_END = re.compile(r"\s+")


def _fit(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters: its first sentences when they fit and say enough,
    else cut at the last clause or word break (never inside a word), with an ellipsis."""
    if len(text) <= limit:
        return text
    ends = [m.start() for m in _SENTENCE_END.finditer(text) if m.start() <= limit]
    if ends and ends[-1] >= limit * 0.4:
        return text[: ends[-1]].rstrip()
    head = text[: limit - 1]
    clauses = [m.start() for m in _CLAUSE_END.finditer(head) if m.start() >= limit // 2]
    words = [m.start() for m in _WORD_END.finditer(head) if m.start() >= limit // 2]
    cut = (clauses or words or [limit - 1])[-1]
    return text[:cut].rstrip(" ,;:，；：、") + "…"


def _size(lines: Iterable[str]) -> int:
    return sum(len(line.encode()) + 1 for line in lines)


def _mostly_chinese(texts: list[str]) -> bool:
    zh = sum(1 for t in texts if any("\u4e00" <= ch <= "\u9fff" for ch in t))
    return bool(texts) and zh * 2 > len(texts)


def _edge_lines(
    edges: list[Edge],
    relations: tuple[str, ...],
    now: float,
    deadlines: bool = False,
    themes: Themes | None = None,
    objects: dict[str, Entity] | None = None,
    lent: dict[str, list[str]] | None = None,
) -> list[str]:
    chosen = [e for e in edges if e.relation in relations]
    if deadlines:
        today = day_label(now)
        chosen = [e for e in chosen if str(_deadline(e)) >= today]
        chosen.sort(key=lambda e: (str(_deadline(e)), e.id))
    else:
        if objects is not None:  # a like of something that only made sense at the moment
            chosen = [e for e in chosen if e.relation not in _LIKES or _lasting(e, objects)]

        def weight(e: Edge) -> float:
            base = e.confidence * (1 + math.log1p(len(e.support)))
            if (objects is not None and not _lasting(e, objects)) or pointing(
                _object_words(e, objects)
            ):
                base *= 0.5  # "a home for these kids": worded for the moment it was said in
            return base * (1 + (themes.recurrence(e.src, e.fact) if themes else 0.0))

        chosen.sort(key=lambda e: (_ORDER.get(e.relation, 9), -weight(e), -e.valid_from, e.id))
        if themes is not None:  # each person's kinds of fact in turn, and the people in turn
            mine: dict[str, list[Edge]] = {}
            for e in chosen:
                mine.setdefault(e.src, []).append(e)
            owned = [
                (src, _edge_line(e))
                for src, lines in mine.items()
                for e in fair_order(
                    spread(lines, lambda e: _object_words(e, objects)),
                    lambda e: str(_ORDER.get(e.relation, e.relation)),
                )
            ]
            owned += [(src, line) for src, lines in (lent or {}).items() for line in lines]
            return [line for _, line in fair_order(owned, lambda x: x[0])]
    return [_edge_line(e) for e in chosen]


def _edge_line(e: Edge) -> str:
    return f"· {_fit(e.fact, 110)}  {pointer(e.provenance)}"


#: Who lines a speaker is owed before they count as known: a speaker with fewer facts of who
#: they are is lent what they keep coming back to (their most defining events)
_OWED = 4


def _lent_lines(
    edges: list[Edge], events: list[TimelineEvent], themes: Themes
) -> dict[str, list[str]]:
    """Who lines for the speakers the graph knows less of (Melanie 2 facts, Caroline 8): each
    is lent their most defining life events (a milestone or a theme they come back to, first
    sentence), up to what the best-known speaker has (at most ``_OWED``)."""
    speakers: dict[str, list[TimelineEvent]] = {}
    for ev in events:
        if ev.kind == "event" and ev.entities and ev.entities[0].startswith("person."):
            speakers.setdefault(ev.entities[0], []).append(ev)
    facts: dict[str, set[str]] = {}
    for e in edges:
        if e.relation in SECTIONS["who"] and e.src.startswith("person."):
            facts.setdefault(e.src, set()).add(e.fact)
    known = {src: len(facts.get(src, ())) for src in speakers}
    owed = min(_OWED, max((len(f) for f in facts.values()), default=0))
    out: dict[str, list[str]] = {}
    for src, mine in speakers.items():
        short = owed - known[src]
        if short <= 0:
            continue
        scored = [
            (milestone_factor(ev.summary) * (1 + themes.recurrence(src, ev.summary)), ev)
            for ev in mine
            if ev.importance >= _MIN_IMPORTANCE["event"]
        ]
        scored = [x for x in scored if x[0] >= _DEFINING]
        scored.sort(key=lambda x: (-x[0], -x[1].event_time, x[1].id))
        # nothing the person's own facts say already ("joined a pottery club" twice)
        said = sorted(facts.get(src, ()))
        kept = set(spread([*said, *(_first(ev) for _, ev in scored)], lambda x: x)) - set(said)
        best = [ev for _, ev in scored if _first(ev) in kept][:short]
        out[src] = [f"· {_fit(_first(ev), 110)}  {pointer(ev.provenance)}" for ev in best]
    return out


#: how defining a life event must be to be lent (a milestone, or a moment on a recurring theme)
_DEFINING = 2.0


_LIKES = ("prefers",)
#: what a person's lines say first: who they are, their family, work and home, their goals
_ORDER = {
    "is_a": 0,
    "has_family": 1,
    "has_relation": 1,
    "works_at": 2,
    "has_role": 2,
    "has": 2,
    "runs": 2,
    "worked_as": 2,
    "aims_for": 3,
    "comes_from": 4,
    "lives_in": 4,
    "works_in": 4,
    "moved_from": 4,
}


def _object_words(edge: Edge, objects: dict[str, Entity] | None) -> str:
    """What a fact is about: its object's name (the fact's text when unknown)."""
    obj = (objects or {}).get(edge.dst)
    return obj.name if obj is not None else edge.fact


def _lasting(edge: Edge, objects: dict[str, Entity]) -> bool:
    obj = objects.get(edge.dst)
    return obj is None or lasting_object(obj.name, obj.type)


def _deadline(edge: Edge) -> str:
    """The date a deadline edge names (its fact ends with it; its object's name too)."""
    for word in reversed(edge.fact.replace("。", " ").rstrip(".").split()):
        if len(word) == 10 and word[4] == "-" and word[7] == "-":
            return word
    return day_label(edge.valid_from)


_RECENT_SHOWN = 8  # about as many Recent lines as fit beside the other sections


def _recent_lines(
    events: list[TimelineEvent], stale: set[str], now: float, themes: Themes | None = None
) -> list[str]:
    ref = max([e.event_time for e in events] + [0.0]) or now

    def signal(e: TimelineEvent) -> float:
        """A milestone, or a theme the person keeps coming back to, over a moment; 0 for a
        moment (an outing, a purchase) on nothing they come back to, and for a private moment
        told in a project's session."""
        if e.kind == "event" and _aside(e):
            return 0.0
        if themes is None or e.kind != "event" or not e.entities:
            return 1.0
        factor, again = milestone_factor(e.summary), themes.recurrence(e.entities[0], e.summary)
        return 0.0 if factor < 1 and again < 0.5 else factor * (1 + again)

    def rank(e: TimelineEvent) -> float:
        age = max(0.0, ref - e.event_time)
        return math.exp(-age / (30 * 86400)) * (0.5 + e.importance) * signals[e.id]

    keep = [
        e
        for e in events
        if e.kind in _RECENT_KINDS
        and e.importance >= _MIN_IMPORTANCE[e.kind]
        and e.summary not in stale
    ]
    signals = {e.id: signal(e) for e in keep}
    keep = [e for e in keep if signals[e.id] > 0]
    keep.sort(key=rank, reverse=True)
    if themes is not None:
        keep = fair_order(keep, lambda e: e.entities[0] if e.entities else "")
    # chosen by rank, shown newest first (what does not fit the 2 KB is cut from the end)
    keep = sorted(keep[:_RECENT_SHOWN], key=lambda e: -e.event_time) + keep[_RECENT_SHOWN:]
    labels = {e.id: time_label(e.event_time, e.precision, e.language) for e in keep}
    return [
        f"· {labels[e.id]} {_fit(_undated(_first(e), labels[e.id]), 140)}  {pointer(e.provenance)}"
        for e in keep
    ]


def _aside(event: TimelineEvent) -> bool:
    """Whether an event is an aside of a working session: told in a session bound to a project,
    about people only (no tool, project, organisation or place), already past when told, and
    no milestone ("the cat pulled the F5 key off", "台风天，用户先撤了"). It stays in the timeline;
    core.md's Recent is for what the next session needs."""
    prov = event.provenance
    if prov is None or prov.project_id in (None, "", "default"):
        return False
    if not event.entities or not all(e.startswith("person.") for e in event.entities):
        return False
    ahead = event.event_time > prov.event_time + 86400
    return not ahead and milestone_factor(event.summary) < 2


def _first(event: TimelineEvent) -> str:
    """A life event's first sentence: what happened; what follows it elaborates (a thread's
    answer joined to its statement). A lesson or a fix keeps its second sentence: the cure."""
    summary = event.summary
    if event.kind != "event":
        return summary
    ends = [m.start() for m in _SENTENCE_END.finditer(summary)]
    return summary[: ends[0]].rstrip() if ends and ends[0] >= 20 else summary


def _undated(summary: str, day: str) -> str:
    """The summary without a trailing "(2023-10-21)" (or "(2019)") that only repeats the
    line's own date."""
    for label in (f" ({day}).", f"（{day}）。", f"（{day}）", f" ({day})"):
        if summary.endswith(label):
            return summary[: -len(label)] + ("。" if "（" in label else ".")
    return summary


def _name_lines(kb: KnowledgeBase, scopes: Sequence[str] | None) -> list[str]:
    """The user's name, from the memory that says it (a name is an alias, not a relation)."""
    out = []
    names: list[MemoryItem] = [
        m
        for m in kb.memories(include_disabled=False, scopes=scopes, type="profile")
        if m.attrs.get("name")
    ]
    for mem in names[-1:]:
        evidence = kb.evidence(mem.id)
        if evidence and evidence[-1].provenance is not None:
            out.append(f"· {_fit(mem.text, 110)}  {pointer(evidence[-1].provenance)}")
    return out


_DATED = re.compile(r"^· \d{4}-\d{2}-\d{2} ")


def _unique(lines: list[str], seen: set[str], near: list[set[str]] | None = None) -> list[str]:
    """``lines`` without one shown above; ``near``: nor one saying nearly the same in other
    words ("wants a career in counseling and mental health" / "... or mental health")."""
    out = []
    for line in lines[:_CANDIDATES] if near is not None else lines:
        # a recent event that restates a fact shown above differs only by its date
        body = _DATED.sub("· ", line.split("  ↪")[0])
        if body in seen:
            continue
        if near is not None:
            toks = {t for t in _TOKEN.findall(body.lower()) if not t.isdigit()}
            if len(toks) >= 4 and any(len(toks & o) >= 0.75 * len(toks | o) for o in near):
                continue
            near.append(toks)
        seen.add(body)
        out.append(line)
    return out


#: lines of a section read for near repeats: more never fit in 2 KB
_CANDIDATES = 60
_TOKEN = re.compile(r"[a-z0-9\u4e00-\u9fff]{2,}")


def _project_label(kb: KnowledgeBase, scopes: Sequence[str] | None) -> str | None:
    """The name of the one project ``scopes`` admit (its entity's name, else its id)."""
    pids = [s.split(":", 1)[1] for s in scopes or () if s.startswith("project:")]
    if len(pids) != 1:
        return None
    for ent in kb.entities(type="project", include_hidden=True):
        if ent.attrs.get("project_id") == pids[0]:
            return ent.name
    return pids[0]


#: lines a section takes per round: who each person is defines them most
_TURNS = {"who": 2}


def _fill(sections: list[tuple[str, list[str]]], budget: int, lang: str) -> dict[str, list[str]]:
    """The lines each section gets: sections take turns (``_TURNS`` lines a round), each
    taking its next line that still fits, until nothing more fits."""
    chosen: dict[str, list[str]] = {name: [] for name, _ in sections}
    queues = {name: list(lines) for name, lines in sections}
    progressed = True
    while budget > 0 and progressed:
        progressed = False
        for name, _ in sections:
            for _turn in range(_TURNS.get(name, 1)):
                queue = queues[name]
                while queue:
                    line = queue.pop(0)
                    cost = _size([line]) + (0 if chosen[name] else _size([_HEADERS[lang][name]]))
                    if cost <= budget:
                        chosen[name].append(line)
                        budget -= cost
                        progressed = True
                        break
    return chosen


def render_core(
    kb: KnowledgeBase,
    *,
    scopes: Sequence[str] | None = None,
    project: str | None = None,
    now: float | None = None,
    limit: int = CORE_LIMIT_BYTES,
) -> str:
    """The ≤ 2 KB snapshot; every fact line ends with a pointer (see the module docstring).

    ``now`` is the time it is rendered for (default: the clock): deadlines before it are
    past; facts are those current now. ``project`` labels the title (default: the name of the
    one project ``scopes`` admit).
    """
    now = now if now is not None else time.time()
    project = project or _project_label(kb, scopes)
    history = kb.edges(scopes=scopes, include_history=True)  # one projection for both
    edges = [e for e in history if e.valid_at(now) and e.superseded_by is None]
    events = kb.events(scopes=scopes, until=now + 1)
    ended = {e.fact for e in history if not e.current}
    zh = _mostly_chinese([e.summary for e in events] + [e.fact for e in edges])
    lang = "zh" if zh else "en"
    seen: set[str] = set()
    near: list[set[str]] = []
    themes = Themes(edges, events)
    objects = {e.id: e for e in kb.entities(include_hidden=True)}
    lent = _lent_lines(edges, events, themes)
    sections = [
        (
            name,
            _unique(
                _edge_lines(
                    edges,
                    rels,
                    now,
                    name == "deadlines",
                    themes if name in _FAIR else None,
                    objects,
                    lent if name == "who" else None,
                ),
                seen,
                near if name in _FAIR else None,
            ),
        )
        for name, rels in SECTIONS.items()
    ]
    sections[0][1][:0] = _unique(_name_lines(kb, scopes), seen)
    recent = _recent_lines(events, ended, now, themes)
    sections.append(("recent", _unique(recent, seen, near)))
    label = f"项目: {project}" if zh and project else (f"project: {project}" if project else "")
    when = day_label(now)
    title = (
        f"ogmemory 记忆 — {label + ', ' if label else ''}最后整理 {when}"
        if zh
        else f"ogmemory memory — {label + ', ' if label else ''}consolidated {when}"
    )
    head = [_RULE, title, _RULE]
    tail = [
        "需要细节: memory_open_session(<id>) / memory_git_log(<project>)"
        if zh
        else "Details: memory_open_session(<id>) / memory_git_log(<project>)",
        _RULE,
    ]
    budget = limit - _size(head) - _size(tail)
    chosen = _fill([(name, lines) for name, lines in sections], budget, lang)
    body: list[str] = []
    for name, _ in sections:
        if chosen[name]:
            body += [_HEADERS[lang][name], *chosen[name]]
    if not body:
        body = ["(还没有记忆)" if zh else "(nothing remembered yet)"]
    return "\n".join(head + body + tail) + "\n"
