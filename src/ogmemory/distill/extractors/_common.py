"""Shared pieces of the rule extractor: per-node context, sentences, candidate building.

The language pattern modules (``_patterns_en``, ``_patterns_zh``) see one :class:`Sentence` at a
time through a :class:`NodeContext`, which knows who is speaking, the node's day (to resolve
"yesterday") and how to build a :class:`~ogmemory.distill.types.Candidate` with exact evidence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import date, tzinfo
from typing import Any

from ...entity.records import NodeRecord
from ..dates import TimeExpr, epoch_of, find_times, names_a_time, words_of
from ..types import Candidate, EntityRef
from ._address import addressed_en
from ._catalog import find_tool, lookup
from ._grammar import third_person_en

__all__ = [
    "FEATURE_WORD",
    "NodeContext",
    "Sentence",
    "content_text",
    "date_attrs",
    "gate",
    "object_ref",
    "split_sentences",
    "tool_ref",
]


def gate(words: str) -> frozenset[str]:
    """A keyword gate from a space-separated word list."""
    return frozenset(words.split())


_CJK_RE = re.compile(r"[\u4e00-\u9fff]")
# Sentence ends: ". " (not "Next.js" or "2.0", nor a title or "e.g." before a name or an
# example: "Prof. Henrik Sandberg"), "!"/"?" and the CJK stops, line breaks, ";".
_SPLIT_RE = re.compile(
    r"(?<=[.!?…])(?<!\bMr\.)(?<!\bMrs\.)(?<!\bMs\.)(?<!\bDr\.)(?<!\bProf\.)(?<!\bSt\.)"
    r"(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bvs\.)"
    r"(?!(?<=\w!)\s+[a-z])"  # "every println! takes the lock": a macro, not an exclamation
    r"[\"'”’)\]]*\s+"
    r"|(?<=[。！？])|(?<=[!?])(?<!`[!?])(?=[^!?\s\"'”’)`])|\n+"
    # "...; fixed by ...", "...；改成 ... 就好了": a fix stays with what it fixed
    r"|[;；]+(?!\s*(?i:fixed|solved|resolved|worked\s+around|the\s+fix\b|修复|解决|改成|改用|加上|补上))"
)
_WORD_RE = re.compile(r"[A-Za-z0-9\u4e00-\u9fff]")
# A line of pasted program output, not said by anyone: a log line (glog "I0520 02:13:07.552",
# a timestamp, a level), a traceback or stack frame, a shell prompt, or key=value readings.
_MACHINE_LINE = re.compile(
    r"^[ \t]*(?:[IWEF]\d{4}\s+\d{2}:\d{2}:\d{2}|\[?\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}"
    r"|\[?(?:INFO|WARN(?:ING)?|ERROR|DEBUG|TRACE|FATAL)\]?[\s:]|Traceback\s\(most\s+recent"
    r"|File\s\"[^\"\n]+\",\sline\s\d+|at\s[\w$.]+\([\w$.]*(?::\d+)?\)|(?:\$|>>>|PS>)\s"
    r"|(?=(?:[^\n]*?\b\w+=[^\s=]+){3}))[^\n]*$",
    re.MULTILINE,
)
# A bracketed note of something shared or attached, which is not said by the speaker: an
# importer's caption of an image ("[shares a photo: a dog on a beach]"), "[attached: log.txt]",
# "[image: ...]". Statements are read from what was said around it.
_ATTACHMENT_RE = re.compile(
    r"\s*\[(?:shares?|shared|sends?|sent|attache[sd]|attachment|image|photo|file|screenshot)\b"
    r"[^\]]*\]",
    re.IGNORECASE,
)
_CODE_RE = re.compile(r"```.*?(?:```|$)", re.DOTALL)
_END_PUNCT = " \t\"'”’)]*~…😊🙂😄😍👍🎉❤️💪🌟✨🙏😀😁😃😅😉🥰"

_QUESTION_START_EN = re.compile(
    r"^(?:(?:so|and|but|hey|oh|well|also|btw)[,\s]+)*(?:do|does|did|are|is|was|were|can|could"
    r"|would|will|have|has|what|which|who|where|when|why|how|wanna|want\s+to|ever)\b[^.]*\byou",
    re.IGNORECASE,
)
_QUESTION_ZH = re.compile(r"[吗嘛呢么][\s。!！~…]*$|是不是|有没有|要不要|喜不喜欢|对不对|好不好")
_HYPOTHETICAL_EN = re.compile(
    r"\b(?:if|unless|whether|suppose|supposing|imagine|wish|hypothetically|in\s+case"
    r"|pretend|as\s+though|as\s+if)\b",
    re.IGNORECASE,
)
# "组件库的话我不太喜欢 Vant": "as for the component library", a topic, not a condition
_TOPIC_DEHUA_ZH = re.compile(
    r"(?:^|(?<=[，,。；;]))\s*[\u4e00-\u9fffA-Za-z0-9 ]{0,8}?(?:库|端|层|方面|部分|这块|这边|工具"
    r"|框架|语言|组件|样式|接口|测试|部署|方案|技术栈|项目|我|我们|你|团队)的话"
)
_HYPOTHETICAL_ZH = re.compile(r"如果|要是|假如|假设|万一|的话|是否|想象|假使|倘若")


_HEDGE_IF = re.compile(
    r"\s+(?:(?:i|we|you)\s+can|(?:at\s+all\s+)?possible|needed|necessary|any)\s*(?:[,.;!]|$)",
    re.IGNORECASE,
)


def _conditional_en(s: str) -> bool:
    """Whether an English sentence states a condition, a wish or a supposition. A condition
    added after a finished clause ("I live in Madrid, in case time zones matter") leaves that
    clause a statement, and so does an exception ("..., unless ...") after one."""
    m = _HYPOTHETICAL_EN.search(s)
    if m is None:
        return False
    if _HEDGE_IF.match(s, m.end()):  # "I want the list at zero if I can": a hedge
        return _conditional_en(s[m.end() :])
    before = s[: m.start()].rstrip()
    if before.lower().endswith(" even"):  # "..., even if it's slow": a concession
        before = before[:-5].rstrip()
    if m.group().lower() == "unless" and len(before.split()) >= 4:
        return False  # "every DAG gets catchup=False unless ...": a statement and its exception
    return not (before.endswith((",", " -", " –", " —")) and len(before.split()) >= 4)


@dataclass(frozen=True)
class Sentence:
    """One sentence of a node, with its language, the time expressions in it and two flags."""

    text: str
    lang: str  # "en" | "zh"
    times: tuple[TimeExpr, ...]
    question: bool
    hypothetical: bool
    words: frozenset[str] = frozenset()  # lower-case ASCII words, for keyword gates

    def has(self, keys: frozenset[str]) -> bool:
        """Whether any of ``keys`` occurs as a word (the cheap gate before a family's regexes)."""
        return not self.words.isdisjoint(keys)


def content_text(content: Any) -> str:
    """The spoken text of a node's content (tool-call summaries excluded)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
            elif isinstance(part, str):
                parts.append(part)
        return "\n".join(parts)
    return ""


def split_sentences(text: str, ref: date, max_chars: int = 20_000) -> list[Sentence]:
    """Split a message into sentences and annotate each (language, times, question, hypothetical).

    Fenced code blocks are not statements and are skipped; only the first ``max_chars``
    characters are read, which bounds the cost of a pasted log.

    >>> from datetime import date
    >>> [s.question for s in split_sentences("I love it. Do you like jazz?", date(2023, 1, 1))]
    [False, True]
    """
    text = _CODE_RE.sub(" ", _ATTACHMENT_RE.sub("", text[:max_chars])).replace("’", "'")
    text = _MACHINE_LINE.sub(" ", text)
    out: list[Sentence] = []
    for raw in _SPLIT_RE.split(text):
        s = raw.strip()
        if len(s) < 2 or not _WORD_RE.search(s):
            continue
        if s.count('"') % 2 and s[-1] in ".!?":  # 'called "Finding Freedom."': the split took
            s = f'{s[:-1]}"{s[-1]}'  # the closing quote; it closes before the full stop
        zh = bool(_CJK_RE.search(s))
        tail = s.rstrip(_END_PUNCT)
        if zh:
            question = tail.endswith(("?", "？")) or bool(_QUESTION_ZH.search(tail))
            hypothetical = bool(_HYPOTHETICAL_ZH.search(_TOPIC_DEHUA_ZH.sub("", s)))
        else:
            question = tail.endswith("?") or bool(_QUESTION_START_EN.match(s))
            hypothetical = _conditional_en(s)
        words = words_of(s)
        out.append(
            Sentence(
                s,
                "zh" if zh else "en",
                tuple(find_times(s, ref, words=words)),
                question,
                hypothetical,
                words,
            )
        )
    return out


# Principles people state preferences about ("I prefer simplicity", "简洁优先"): concepts.
_CONCEPTS = frozenset(
    "simplicity minimalism readability performance speed privacy security reliability"
    " consistency clarity correctness stability maintainability testability portability"
    " immutability composition tdd automation documentation"
    " 简洁 简单 可读性 性能 隐私 安全 稳定性 可维护性 一致性 自动化 远程办公"
    " 类型安全 函数式编程".split()
) | {
    "type safety",
    "static typing",
    "dynamic typing",
    "functional programming",
    "object-oriented programming",
    "test-driven development",
    "pair programming",
    "remote work",
    "async communication",
    "convention over configuration",
}


def object_ref(name: str, default: str = "preference") -> EntityRef:
    """An EntityRef for a mentioned thing: a known tool gets its canonical name and slot, a
    well-known principle ("simplicity") is a concept."""
    tool = lookup(name)
    if tool is not None:
        aliases = (name,) if name != tool.name else ()
        return EntityRef(tool.name, "tool", aliases=aliases, attrs={"slot": tool.slot})
    if name.lower() in _CONCEPTS:
        return EntityRef(name, "concept")
    return EntityRef(name, default)


# a part of a tool named after it ("Django signals", "React hooks"): not the tool itself
FEATURE_WORD = re.compile(
    r"signals|hooks|middleware|macros|decorators|annotations|generics|fixtures|mixins|plugins"
    r"|extensions|triggers|callbacks|templates|lifecycle|contexts?|refs|portals|streams|actors"
)


def tool_ref(name: str) -> tuple[EntityRef, str]:
    """An EntityRef of type ``tool`` and its slot (``tool`` when the name is not in the table)."""
    words = name.split()
    part = len(words) == 2 and FEATURE_WORD.fullmatch(words[1]) is not None
    tool = lookup(name) or (find_tool(name) if len(words) <= 2 and not part else None)
    if tool is not None:
        aliases = (name,) if name != tool.name else ()
        return EntityRef(tool.name, "tool", aliases=aliases, attrs={"slot": tool.slot}), tool.slot
    return EntityRef(name, "tool"), "tool"


@dataclass
class NodeContext:
    """Everything a pattern needs to know about the node it reads."""

    record: NodeRecord
    speaker: str  # the name texts use ("Caroline", "user", "assistant")
    speaker_zh: str  # the same in Chinese texts ("张三", "用户", "助手")
    personal: bool  # the speaker is a person (not an unnamed AI assistant)
    ref_day: date
    tz: tzinfo
    seen: set[tuple[str, str]] = field(default_factory=set)
    people: list[str] = field(default_factory=list)  # persons named so far (for "she", "he")
    listener: str | None = None  # the named person spoken to (a conversation between people)

    @property
    def event_time(self) -> float:
        return self.record.node.event_time

    def subject(self, lang: str, *aliases: str) -> EntityRef:
        """The speaker as an entity (one name across languages; the Chinese label an alias).
        An unnamed user is the entity ``user`` ("the user" in English texts)."""
        name = self.speaker.removeprefix("the ")
        extra = (self.speaker_zh,) if lang == "zh" and self.speaker_zh != name else ()
        return EntityRef(name, "person", aliases=(*extra, *aliases))

    def name(self, lang: str) -> str:
        return self.speaker_zh if lang == "zh" else self.speaker

    def epoch(self, day: date) -> float:
        return epoch_of(day, self.tz)

    def first(self, family: str, key: str) -> bool:
        """True the first time a (family, key) is seen in this node: one candidate per fact."""
        k = (family, key.lower())
        if k in self.seen:
            return False
        self.seen.add(k)
        return True

    def candidate(self, type: str, text: str, lang: str, **kw: Any) -> Candidate:
        """A Candidate with this node's evidence; ``subject`` defaults to the speaker. A
        relation whose object is a tool, place or organisation named only by a date ("ships
        on March 3" read as a deploy target) is dropped: a date is never one of those."""
        _drop_dated_objects(kw)
        kw.setdefault("subject", self.subject(lang))
        if lang == "en" and self.personal:
            text = addressed_en(text, self.speaker, self.listener)
            _third_person_object(kw, self.speaker)
        return Candidate(
            type=type,
            text=text,
            session_id=self.record.session_id,
            node_ids=(self.record.node.id,),
            language=lang,
            **kw,
        )


_NAMED_TYPES = frozenset({"tool", "place", "organization", "project", "concept"})


def _is_dated(ref: EntityRef | None) -> bool:
    return ref is not None and ref.type in _NAMED_TYPES and names_a_time(ref.name)


_FIRST_PERSON_EN = re.compile(r"\b(?:I|me|my|mine|myself|we|us|our|ours)\b", re.IGNORECASE)
_PLAIN_TYPES = frozenset({"preference", "concept", "activity", "value", "event", "rule"})


def _third_person_object(kw: dict[str, Any], speaker: str) -> None:
    """An object named in the speaker's words is restated in the third person ("camping trips
    with my fam" → "camping trips with Melanie's fam"), as the memory's text is."""
    obj = kw.get("object")
    if obj is None or obj.type not in _PLAIN_TYPES or not _FIRST_PERSON_EN.search(obj.name):
        return
    kw["object"] = replace(obj, name=third_person_en(obj.name, speaker))


def _drop_dated_objects(kw: dict[str, Any]) -> None:
    """Remove from a candidate's keywords the relations whose object is only a date."""
    if _is_dated(kw.get("object")):
        for key in ("relation", "object", "slot", "replaces"):
            kw.pop(key, None)
    if kw.get("more"):
        kw["more"] = tuple(f for f in kw["more"] if not _is_dated(f.object))


def date_attrs(t: TimeExpr) -> dict[str, Any]:
    """The attrs every dated candidate carries: ISO day, original phrase, precision.

    A date taken from the message's own time (no phrase in the text) says so:
    ``date_source="message"``.
    """
    attrs: dict[str, Any] = {"date": t.iso, "granularity": t.granularity}
    if t.text:
        attrs["date_text"] = t.text
    if t.start < 0:
        attrs["date_source"] = "message"
    if t.approximate:
        attrs["approximate"] = True
    if t.since:
        attrs["since"] = True
    return attrs
