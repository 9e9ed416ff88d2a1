"""Stage 4, read against what is known: a change said of a fact already held.

People rarely restate a whole fact when it changes. They name it by a word of it and say what
is different: "the board deck deadline moved. it's June 4 now, not the 21st", "测试和生产现在都是
6236 了，不再是 5236", "阴影那个决定改了：……改回级联阴影（CSM）", "the Switch port is cancelled".
The extractors read a sentence alone and miss most of these, so the old value stays current.
This pass reads every user sentence of a batch (with the sentence before it; a tool left may be
named two sentences back) against the facts current when it was said, in the scopes the
sentence's session sees:

* it must **name a held fact**: say its old value (a date that resolves to the old deadline,
  the old version, port, host or tool) or a word of what the fact is about (the words of its
  slot: "deck", "rig", "阴影", "垂直切片"; of its text when the slot says nothing: "改版上线");
* and say that it **changed** (a change word: moved, slipped, now, instead, bumped, 改, 换,
  推迟, 升到, 不再, ...) with a **new value of the same kind**: a later date for a deadline, another
  version, port or host, another tool after a switch verb ("switching to", "改回", "换成");
* or that it is **called off** (cancelled, scrapped, "not going with X after all", 取消, 不用了).

A change gives the fact again with the new value (same subject, relation, slot and scope), its
memory saying what it was before; it ends exactly the fact it names (``attrs["ends"]``), so it
is undone like any other fact when its memory is disabled or its batch rolled back. A calling
off is a ``called_off`` decision that ends the fact at once. When several held facts of a kind
fit a sentence equally, nothing is changed: a wrong ending is worse than a missed one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, date, tzinfo

from ..entity.records import NodeRecord
from ..knowledge.models import Edge, Entity
from .dates import day_of, find_times
from .extractors._common import Sentence, content_text, split_sentences, tool_ref
from .held import CJK_RUN as _CJK_RUN
from .held import HOST as _HOST
from .held import VERSION as _VERSION
from .held import Held, held_fact
from .held import swap as _swap
from .held import word as _word
from .types import Candidate, EntityRef

__all__ = ["FollowUps", "Held", "held_fact"]

_PORT = re.compile(r"(?<![A-Za-z0-9_.:/-])(\d{2,5})(?![A-Za-z0-9_.])")
# what makes a dotted name an address: a scheme, an IP, a port, or a last label of the kind
# hosts end in
_ADDRESS = re.compile(
    r"://|^\d{1,3}(?:\.\d{1,3}){3}|:\d{2,5}\b|\.(?:com|net|org|io|dev|app|cn|local|lan|internal|cloud"
    r"|ai|co|uk|de|eu|me|tech|corp|intra|svc|cluster|home|test|example|edu|gov)\b"
)
# a value said as the one left behind: "not the 21st", "instead of March 19", "不再是 5236"
_OLD_BEFORE = re.compile(
    r"(?i)(?:\bnot|\binstead\s+of|\bfrom|\bwas|\bold|\brather\s+than|原来|原先|从|不再是|不是|而不是|之前)"
    r"\s*(?:the\s+|是\s*)?$"
)
_CHANGE_EN = re.compile(
    r"(?i)\b(?:mov(?:ed|ing|es)|slip(?:ped|ping|s)?|slid|push(?:ed|ing)|postpon\w*|delay\w*"
    r"|resched\w*|chang\w*|switch\w*|bump\w*|upgrad\w*|downgrad\w*|updat\w*|now|instead"
    r"|no\s+longer|any\s*more|new|replac\w*|migrat\w*|after\s+all|not\s+going\s+with"
    r"|stop(?:ped|ping)?\s+using|drop(?:ped|ping)?|scrap\w*|revert\w*|back\s+to|cancel\w*"
    r"|rip(?:ping)?\s+out|off\s+the\s+table|dead"
    r"|called\s+off|shelv\w*|abandon\w*|forget)\b"
)
_CHANGE_ZH = re.compile(
    r"改|换|变|推迟|延期|延后|提前|挪|升到|升级|降到|调到|现在|不再|不用|取消|作废|不算|迁到|切到"
    r"|替换|弃用|放弃|新的|搁置|砍"
)
_CANCEL_EN = re.compile(
    r"(?i)\b(?:cancel(?:l?ed|l?ing|s)?|call(?:ed|ing)?\s+off|scrap(?:ped|ping)?|shelv(?:ed|ing)"
    r"|abandon(?:ed|ing)?|not\s+happening|forget\s+(?:that|the|this|it|about)"
    r"|off\s+the\s+table|(?:is|['’]s)\s+dead"
    r"|not\s+(?:going\s+with|doing|using)\b[^.;]*\b(?:after\s+all|anymore|any\s+more)"
    r"|no\s+longer\s+(?:using|doing|planned|happening)|stop(?:ped|ping)?\s+using)\b"
)
_CANCEL_ZH = re.compile(
    r"取消|作废|不搞了|不做了|搁置|黄了|砍掉|砍了|不考虑|放弃|不用了|不再用|不用\S{0,12}了"
)
_SWITCH_EN = re.compile(
    # "moving the client to Tesla", "switching CI over to Buildkite"
    r"\b(?i:(?:switch|mov|migrat)(?:e|es|ing|ed)?\s+(?:[\w-]+\s+){0,3}?(?:over\s+|back\s+)?to"
    r"|replac\w*\s+(?:\w+\s+)?with|go(?:ing)?\s+(?:back\s+)?(?:with|to)"
    r"|us(?:e|ing)|adopt\w*|in\s+favou?r\s+of|(?:it|that)['’]?s\s+now)\s+(?:the\s+)?"
    r"(?P<x>[A-Z][\w.+#-]*(?:\s+[A-Z][\w.+#-]*){0,2}|[a-z][\w+#-]*\d[\w.+#-]*)"
)
_SWITCH_ZH = re.compile(
    r"(?:改用|改成|换成|换用|改回|换回|切到|切换到|迁到|迁移到|统一用|改为|换为|用回"
    r"|(?<![交转切更替])换(?=\s*[A-Za-z]))"  # "换Tiptap"
    r"[^，。；,;！!？?A-Za-z]{0,12}?(?P<x>[A-Za-z][\w.+#-]*(?:\s[A-Z][\w.+#-]*)?)"
)
_KIND_NOUN = {
    "en": {"date": "deadline", "version": "version", "port": "port", "host": "host", "tool": ""},
    "zh": {"date": "截止日期", "version": "版本", "port": "端口", "host": "地址", "tool": ""},
}


class FollowUps:
    """The held facts of one batch (as it stands) and what each user node says of them.

    ``edges()`` gives the batch's edges, ``entity(id)`` an entity as the batch sees it,
    ``shown(edge)`` whether an enabled memory still supports the edge (a fact the user disabled
    is not changed). The held facts are read once and again only after a change was applied
    (:meth:`stale`)."""

    def __init__(
        self,
        edges: Callable[[], Iterable[Edge]],
        entity: Callable[[str], Entity | None],
        *,
        tz: tzinfo = UTC,
        shown: Callable[[Edge], bool] = lambda _: True,
    ) -> None:
        self._edges = edges
        self._entity = entity
        self._shown = shown
        self.tz = tz
        self._held: list[Held] | None = None

    def stale(self) -> None:
        """The batch changed: read the held facts again before the next node."""
        self._held = None

    def held(self, rec: NodeRecord) -> list[Held]:
        """The facts current when ``rec`` was said, said before it, in a scope it sees."""
        if self._held is None:
            self._held = [
                h
                for e in self._edges()
                if e.superseded_by is None
                and (h := held_fact(e, self._entity)) is not None
                and self._shown(e)
            ]
        t = rec.node.event_time
        scopes = {"global", f"project:{rec.project_id}"}
        if rec.agent_id:
            scopes.add(f"agent:{rec.agent_id}")
        return [
            h
            for h in self._held
            if h.edge.scope in scopes
            and h.edge.valid_from <= t
            and (h.edge.valid_to is None or h.edge.valid_to > t)
            and (h.edge.provenance.event_time if h.edge.provenance else h.edge.valid_from) < t
        ]

    def apply(self, records: Sequence[NodeRecord], apply: Callable[[Candidate], None]) -> int:
        """Read ``records`` in order and ``apply`` what each says; how many were found."""
        found = 0
        for rec in records:
            cands = self.read(rec)
            for cand in cands:
                apply(cand)
            if cands:
                self.stale()  # the next node sees the new value, not the old one
                found += len(cands)
        return found

    def read(self, rec: NodeRecord) -> list[Candidate]:
        """The changes and callings off that ``rec`` (a user's node) says of held facts."""
        if rec.node.role != "user":
            return []
        text = content_text(rec.node.content)
        if not text or not any(
            p.search(text) for p in (_CHANGE_EN, _CHANGE_ZH, _CANCEL_EN, _CANCEL_ZH)
        ):
            return []  # the cheap gate: most turns change nothing
        held = self.held(rec)
        if not held:
            return []
        sentences = split_sentences(text, day_of(rec.node.event_time, self.tz))
        done: set[str] = set()
        out: list[Candidate] = []
        for i in range(len(sentences)):
            out += _read(rec, sentences[max(0, i - 2) : i + 1], held, done, self.tz)
        return out


def _read(
    rec: NodeRecord, window: list[Sentence], held: list[Held], done: set[str], tz: tzinfo
) -> list[Candidate]:
    """What ``window`` (a sentence and the two before it) says of the held facts: a value by
    the sentence and the one before it; a tool left may be named a sentence earlier ("we're
    moving off OptaPlanner. The core devs are at Timefold now. We go to Timefold Solver 1.8.")."""
    last = window[-1]
    wide = " ".join(s.text for s in window)
    window = window[-2:]
    text = " ".join(s.text for s in window)
    zh = any(s.lang == "zh" for s in window)
    # the sentence that gives the new value says it changed ("it's June 4 now"; a tool's
    # switch verb says so too: "we go to Timefold"); the one before may name what ("the board
    # deck deadline moved.")
    if last.question or last.hypothetical:
        return []
    changed = any(
        p.search(last.text) for p in ((_CHANGE_ZH, _CANCEL_ZH) if zh else (_CHANGE_EN, _CANCEL_EN))
    )
    switched = (_SWITCH_ZH if zh else _SWITCH_EN).search(last.text) is not None
    if not (changed or switched):
        return []
    today = day_of(rec.node.event_time, tz).isoformat()
    own = {f"project:{rec.project_id}", f"agent:{rec.agent_id}"}
    by_kind: dict[str, list[tuple[tuple[int, int], Held, str | None]]] = {}
    for h in held:
        if h.edge.id in done or not (changed or h.kind in ("tool", "version")):
            continue
        said = wide if h.kind in ("tool", "version") else text
        strong = _names_old(h, window, said)
        hits = _topic_hits(h, said)
        if not strong and not hits:
            continue
        new = _new_value(h, last, said, today)
        if new is None and not _cancelled(h, last.text, zh):
            continue
        # the fact of the node's own project or agent before a global one of the same words
        rank = (2 * strong + hits, h.edge.scope in own)
        by_kind.setdefault(h.kind, []).append((rank, h, new))
    out = []
    for found in by_kind.values():
        found.sort(key=lambda f: f[0], reverse=True)
        if len(found) > 1 and found[0][0] == found[1][0]:
            continue  # two facts fit equally: which one changed is not said
        _, h, new = found[0]
        done.add(h.edge.id)
        out.append(_changed(rec, h, new, last.lang) if new else _called_off(rec, h, last.lang))
    return out


def _names_old(h: Held, window: list[Sentence], text: str) -> bool:
    """Whether the window says the fact's old value."""
    if h.kind == "date":  # the month and day: "instead of March 19" may be read in any year
        return any(t.iso[4:] == h.old[4:] for s in window for t in s.times)
    if h.kind == "tool":
        return any(_word(n).search(text) for n in h.names if n)
    return _word(h.old).search(text) is not None


def _topic_hits(h: Held, text: str) -> int:
    """How many words of what the fact is about the window says (a Chinese topic by its
    two-character pieces: "垂直切片版本" is named by "垂直切片")."""
    hits = 0
    low = text.lower()
    for w in h.topic:
        if _CJK_RUN.fullmatch(w):
            pieces = {w[i : i + 2] for i in range(len(w) - 1)}
            found = sum(p in text for p in pieces)
            hits += found >= min(2, len(pieces))
        elif len(w) > 1 and _word(w).search(low):
            hits += 1
    return hits


def _new_value(h: Held, last: Sentence, text: str, today: str) -> str | None:
    """The value the window gives the fact instead of its old one, if it gives one."""
    if h.kind == "date":
        # a deadline's new day is ahead, whatever the tense around it ("it's now April 2
        # because the study got rescheduled")
        ahead = find_times(last.text, date.fromisoformat(today), past=False)
        days = [
            t.iso
            for t in ahead
            if t.granularity == "day"
            and t.iso != h.old
            and t.iso >= today
            and not _OLD_BEFORE.search(last.text[max(0, t.start - 16) : t.start])
        ]
        return days[0] if len(set(days)) == 1 else None
    if h.kind == "tool":
        return _switched(h, last, text)
    if h.kind == "version" and (other := _switched(h, last, text, with_version=True)):
        # "we're moving off OptaPlanner ... we go to Timefold Solver 1.8": the tool itself is
        # replaced, and its version with it
        return other
    pattern = {"version": _VERSION, "port": _PORT, "host": _HOST}[h.kind]
    values = []
    for m in pattern.finditer(last.text):
        value = m.group(1) if h.kind in ("version", "port") else m.group()
        if h.kind == "host" and (not _ADDRESS.search(value) or h.old.lower() in value.lower()):
            continue  # "storage.sync": an API's name; "api.tabwise.io/v1": the old one again
        if h.kind == "host" and ":" not in h.old.split("//")[-1]:
            value = re.sub(r":\d{2,5}$", "", value)  # the old one was said without its port
        if value == h.old or _OLD_BEFORE.search(last.text[max(0, m.start() - 16) : m.start()]):
            continue
        if h.kind == "port" and not 0 < int(value) < 65536:
            continue
        if h.kind == "version" and not _version_of(h, last.text, m.start(), text):
            continue
        values.append(value)
    return values[0] if len(set(values)) == 1 else None


def _switched(h: Held, last: Sentence, text: str, *, with_version: bool = False) -> str | None:
    """The tool the sentence switches to from the held one, if it names one."""
    m = (_SWITCH_ZH if last.lang == "zh" else _SWITCH_EN).search(last.text)
    if m is None or last.text[m.end("x") : m.end("x") + 1] in ("/", ":"):
        return None  # "换成opendronemap/odm:3.5.1": an image or a path, not a tool
    if not _left_before(h, last.text[: m.start()], text[: len(text) - len(last.text)]):
        return None  # "……换成 TiTiler，直接读 COG": COG is kept, not left
    x = m.group("x").rstrip(".,;:)")
    names = (*h.names, *h.topic)
    if not x or any(x.lower() == n.lower() or x.lower() in n.lower().split() for n in names):
        return None
    version = _VERSION.match(last.text, m.end("x") + 1) if with_version else None
    return f"{x} {version.group(1)}" if version else x


def _left_before(h: Held, before_switch: str, sentence_before: str) -> bool:
    """Whether the tool left is named before the switch to the new one, in its sentence or in
    the one before ("rip out HTTPoison, we're moving the client to Tesla"), or the sentence
    gives the fact's topic ("阴影那个决定改了：……改回 CSM")."""
    said = f"{sentence_before} {before_switch}"
    return any(_word(n).search(said) for n in h.names) or _topic_hits(h, said) > 0


def _version_of(h: Held, said: str, at: int, text: str) -> bool:
    """Whether a version at ``at`` is the held tool's: the tool's name right before it ("UE
    5.4.4", "Zephyr 3.8"; not "Zephyr SDK 0.16.8"), or the old version said beside it ("从 5.3.2
    升到 5.4.4")."""
    before = _VERB_BEFORE.sub("", said[max(0, at - 24) : at].strip().lower()).strip()
    if any(before.endswith(w.lower()) for w in h.topic if w):
        return True
    # a whole number is a version only right after its tool ("java 21", not "3 tests")
    return "." in said[at : at + 12].split()[0] and _word(h.old).search(text) is not None


# what may stand between a tool and its new version: "odm升3.5.1", "keycloak to 25"
_VERB_BEFORE = re.compile(r"(?:升级?到?|到|改成|换成|\bto|\bis\s+now|\bnow|\bon|\bat|[:=])\s*$")


def _cancelled(h: Held, said: str, zh: bool) -> bool:
    """Whether the sentence ``said`` calls the fact off: a tool or a plan named by its old value
    in the clause that says so ("Switch 移植彻底取消了", "we're NOT going with NVS after all"; a
    deadline "called off" is a plan of its own, not read here)."""
    if h.kind != "tool":
        return False
    cancel = _CANCEL_ZH if zh else _CANCEL_EN
    clauses = re.split(r"[，,；;]", said) if zh else [said]
    return any(cancel.search(c) and any(_word(n).search(c) for n in h.names) for c in clauses)


def _changed(rec: NodeRecord, h: Held, new: str, lang: str) -> Candidate:
    """The held fact again with its new value; its memory says what it was."""
    e = h.edge
    if h.kind == "tool":
        obj, _ = tool_ref(new)
        if h.target.type != "tool":
            obj = EntityRef(new, h.target.type)
    elif h.kind == "date":
        obj = EntityRef(
            re.sub(re.escape(h.old), new, h.target.name),
            h.target.type,
            attrs={**h.target.attrs, "deadline": new},
        )
    elif h.kind == "version" and not _VERSION.fullmatch(new):
        obj = EntityRef(new, h.target.type)  # another tool, with its version
    else:
        obj = EntityRef(_swap(h.target.name, h.old, new, scheme=h.kind == "host"), h.target.type)
    text = _text(h, new, lang)
    attrs: dict[str, object] = {"ends": [e.id], "follow_up": True}
    if h.kind == "date":
        attrs.update({"deadline": new, "moved": True, "planned": True})
    return Candidate(
        type=_type_of(h),
        text=text,
        session_id=rec.session_id,
        node_ids=(rec.node.id,),
        subject=h.subject,
        relation=e.relation,
        object=obj,
        slot=e.slot,
        replaces=h.target if h.kind == "tool" else None,
        kind="decision" if h.kind == "tool" else None,
        confidence=0.75,
        importance=0.8,
        language=lang,
        scope=e.scope,
        attrs=attrs,
    )


def _called_off(rec: NodeRecord, h: Held, lang: str) -> Candidate:
    """A calling off of the held fact: a decision that holds no time and ends it."""
    fact = h.edge.fact.rstrip("。. ")
    text = f"已取消：{fact}。" if lang == "zh" else f"Called off: {fact}."
    t = rec.node.event_time
    return Candidate(
        type="decision",
        text=text,
        session_id=rec.session_id,
        node_ids=(rec.node.id,),
        subject=h.subject,
        relation="called_off",
        object=h.target,
        kind="decision",
        valid_from=t,
        valid_until=t,
        confidence=0.75,
        importance=0.8,
        language=lang,
        scope=h.edge.scope,
        attrs={"ends": [h.edge.id], "follow_up": True},
    )


def _text(h: Held, new: str, lang: str) -> str:
    """The memory of a change: the old fact's words with the new value, and what it was."""
    fact = h.edge.fact.rstrip("。. ")
    old = h.old
    if h.kind == "version" and not _VERSION.fullmatch(new):
        old = h.target.name  # the tool and its version were replaced: "OptaPlanner 9.44"
    if h.kind == "tool":
        old = next((n for n in h.names if _word(n).search(fact)), h.target.name)
    if h.edge.language == lang and _word(old).search(fact):
        body = _swap(fact, old, new, scheme=h.kind == "host")
    else:
        about = " ".join(h.topic)
        noun = _KIND_NOUN[lang][h.kind]
        if lang == "zh":
            body = f"{about}{noun}改为 {new}"
        else:
            body = f"The {about} {noun}".replace("  ", " ").rstrip() + f" is now {new}"
    return f"{body}（原为 {old}）。" if lang == "zh" else f"{body} (was {old})."


def _type_of(h: Held) -> str:
    return {"date": "constraint", "tool": "decision"}.get(h.kind, "config")
