"""Extraction declared in data: the regex patterns of YAML memory types, and alias statements.

A memory type the code has never seen can still be extracted without an LLM: its YAML file
lists patterns whose named groups (``subject``, ``object``) fill the candidate.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...entity.records import NodeRecord
from ...knowledge.names import detect_language
from ...knowledge.schema import SchemaRegistry
from ..types import Candidate, EntityRef, ExtractionResult, Extractor

__all__ = ["AliasExtractor", "Combined", "SchemaPatternExtractor"]


def _speaker(rec: NodeRecord) -> str:
    return rec.node.name or ("user" if rec.node.role == "user" else rec.node.role)


class SchemaPatternExtractor:
    """Applies every ``extract.patterns`` entry of the registry's memory types."""

    name = "schema-patterns"

    def __init__(self, registry: SchemaRegistry) -> None:
        self.types = [t for t in registry.all() if t.patterns]

    def extract(self, records: Sequence[NodeRecord]) -> ExtractionResult:
        out: list[Candidate] = []
        for rec in records:
            if rec.node.role == "tool":
                continue
            text = rec.node.text
            for mtype in self.types:
                for rule in mtype.patterns:
                    for m in rule.regex.finditer(text):
                        groups = {k: (v or "").strip() for k, v in m.groupdict().items()}
                        speaker = _speaker(rec)
                        subject_name = groups.get("subject") or speaker
                        obj = groups.get("object")
                        values = {**groups, "speaker": speaker, "match": m.group(0).strip()}
                        try:
                            statement = rule.text.format(**values)
                        except (KeyError, IndexError):
                            statement = values["match"]
                        out.append(
                            Candidate(
                                type=mtype.name,
                                text=statement,
                                session_id=rec.session_id,
                                node_ids=(rec.node.id,),
                                subject=EntityRef(subject_name, "person"),
                                relation=rule.relation if obj else None,
                                object=EntityRef(obj, rule.object_type or mtype.entity_type)
                                if obj
                                else None,
                                kind=mtype.timeline_kind,  # type: ignore[arg-type]
                                event_time=rec.node.event_time,
                                confidence=rule.confidence,
                                importance=mtype.importance,
                                language=detect_language(statement),
                            )
                        )
        return ExtractionResult(out)


_NAME = r"[\w+#-]+(?:\.[\w+#-]+)*"
_EN_ALIAS = re.compile(
    r"\s*(?:\(|,)\s*(?:aka|a\.k\.a\.?|also (?:called|known as)|which we call|we call it)\s+"
    rf"(?:the\s+|our\s+)?(?P<b>{_NAME}(?: {_NAME})?)",
    re.IGNORECASE,
)
_ZH_ALIAS = re.compile(
    r"(?P<a>[A-Za-z][\w.+#-]{1,40}|[\u4e00-\u9fff]{1,8})\s*(?:也叫|又叫|也就是|即)\s*"
    r"(?:我们的)?(?P<b>[A-Za-z][\w.+#-]{1,40}|[\u4e00-\u9fff]{1,8})"
)
_WORD_BEFORE = re.compile(rf"(?:(?P<w1>{_NAME})\s+)?(?P<w2>{_NAME})\s*$")
_STOP = {"the", "a", "an", "it", "this", "that", "which", "we", "i", "you", "our", "my", "is"}


_EN_GATE = re.compile(r"aka|a\.k\.a|also called|also known|we call", re.IGNORECASE)
_ZH_GATE = re.compile(r"也叫|又叫|也就是|即")


def _alias_pairs(text: str) -> list[tuple[str, str]]:
    pairs = []
    # cheap gates first: the alias patterns backtrack over every word of a long message
    for m in _EN_ALIAS.finditer(text) if _EN_GATE.search(text) else ():
        before = _WORD_BEFORE.search(text[: m.start()])
        if not before:
            continue
        words = [w for w in (before.group("w1"), before.group("w2")) if w]
        while words and words[0].lower() in _STOP:
            words.pop(0)
        b = m.group("b").rstrip(".")
        if words:
            pairs.append((" ".join(words), b))
    for m in _ZH_ALIAS.finditer(text) if _ZH_GATE.search(text) else ():
        pairs.append((m.group("a"), m.group("b")))
    return [
        (a, b)
        for a, b in pairs
        if a.lower() not in _STOP and b.lower() not in _STOP and a.lower() != b.lower()
    ]


class AliasExtractor:
    """ "the worker (aka the daemon)", "worker 也叫 后端": two names of one entity."""

    name = "aliases"

    def extract(self, records: Sequence[NodeRecord]) -> ExtractionResult:
        out: list[Candidate] = []
        for rec in records:
            if rec.node.role == "tool":
                continue
            text = rec.node.text
            for a, b in _alias_pairs(text):
                lang = detect_language(text)
                statement = f"{a} 也叫 {b}。" if lang == "zh" else f"{a} is also called {b}."
                out.append(
                    Candidate(
                        type="entity",
                        text=statement,
                        session_id=rec.session_id,
                        node_ids=(rec.node.id,),
                        subject=EntityRef(a, "concept", aliases=(b,)),
                        confidence=0.8,
                        importance=0.4,
                        language=lang,
                    )
                )
        return ExtractionResult(out)


class Combined:
    """Several extractors over the same records; candidates concatenated, stats summed."""

    def __init__(self, name: str, parts: Sequence[Extractor]) -> None:
        self.name = name
        self.parts = list(parts)

    def extract(self, records: Sequence[NodeRecord]) -> ExtractionResult:
        candidates: list[Candidate] = []
        stats: dict[str, int] = {}
        for part in self.parts:
            result = part.extract(records)
            candidates += result.candidates
            for key, value in result.stats.items():
                stats[key] = stats.get(key, 0) + value
        return ExtractionResult(candidates, stats)
