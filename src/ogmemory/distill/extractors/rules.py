"""The default extractor: English and Chinese patterns, no model, no network (seed 000 §6.2).

It reads every committed node of a batch once. Spoken nodes (user, assistant) are cut into
sentences and matched against precompiled patterns for preferences, decisions, tool switches,
constraints, people and organisations, projects and tools, learnings and dated events; tool-call
nodes become work items (commands run, files changed, errors fixed). Every candidate names the
node(s) it came from and is written in the language of its evidence.

>>> from ogmemory.entity.records import Node, NodeRecord
>>> node = Node(id="n1", seq=1, role="user", content="I went to a support group yesterday.",
...             parent_id=None, event_time=1683504000.0, ingestion_time=1683504000.0,
...             name="Caroline")
>>> rec = NodeRecord("s1", "default", None, node, "c0ffee", 1)
>>> RuleExtractor().extract([rec]).candidates[0].text
'Caroline went to a support group (2023-05-07).'
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, tzinfo

from ...entity.records import NodeRecord
from ..dates import TimeExpr, day_of
from ..types import Candidate, ExtractionResult
from ._common import NodeContext, content_text, gate, split_sentences
from ._events import events_en, events_zh
from ._patterns_en import extract_en
from ._patterns_zh import extract_zh
from ._work import extract_work

__all__ = ["RuleExtractor"]

_DEFAULT_NAMES = {"user": ("user", "用户"), "assistant": ("assistant", "助手")}
_FIRST_PERSON = gate("i we my our me us")


class RuleExtractor:
    """Pattern-based Stage 2 extractor (the default): fast, deterministic, bilingual.

    ``tz`` is the time zone in which relative dates are resolved ("yesterday" is a calendar
    day somewhere). ``assistant_facts``: treat an unnamed assistant as a person too (off by
    default: an AI assistant saying "I love that idea" has no preferences worth keeping; a
    named speaker, as in LoCoMo conversations, always counts as a person). Only the first
    ``max_chars`` characters of a message are read (a pasted log holds no preferences).
    """

    name = "rules"

    def __init__(self, *, tz: tzinfo = UTC, assistant_facts: bool = False,
                 max_chars: int = 20_000) -> None:
        self.tz = tz
        self.assistant_facts = assistant_facts
        self.max_chars = max_chars

    def _context(self, record: NodeRecord) -> NodeContext:
        node = record.node
        named = bool(node.name and node.name.strip())
        if named:
            speaker = speaker_zh = " ".join(str(node.name).split())
        else:
            speaker, speaker_zh = _DEFAULT_NAMES.get(node.role, (node.role, node.role))
        personal = named or node.role == "user" or self.assistant_facts
        return NodeContext(record, speaker, speaker_zh, personal, day_of(node.event_time, self.tz),
                           self.tz)

    def extract(self, records: Sequence[NodeRecord]) -> ExtractionResult:
        """Candidates for every node of the batch, in node order, then the work items."""
        candidates: list[Candidate] = []
        sentences = 0
        questions = 0
        for record in records:
            node = record.node
            if node.role not in ("user", "assistant"):
                continue
            text = content_text(node.content)
            if not text or text.isspace():
                continue
            ctx = self._context(record)
            carry: TimeExpr | None = None
            for s in split_sentences(text, ctx.ref_day, self.max_chars):
                sentences += 1
                questions += s.question
                events: list[Candidate] = []
                if not s.question:
                    zh = s.lang == "zh"
                    found = extract_zh(s, ctx) if zh else extract_en(s, ctx)
                    candidates.extend(found)
                    # A decision, switch, learning or deadline already dates this sentence: an
                    # event restating it would only be a duplicate on the timeline.
                    if not any(c.kind or c.slot == "deadline" for c in found):
                        events = events_zh(s, ctx) if zh else events_en(s, ctx, carry)
                        candidates.extend(events)
                # "Guess what I did this week? I applied ...": a first-person sentence whose
                # time phrase dated nothing lends it to the next sentence.
                dated = any(c.attrs.get("date_text") for c in events)
                first_person = s.lang == "en" and s.has(_FIRST_PERSON)
                carry = s.times[-1] if s.times and first_person and not dated else None
        work = extract_work(records)
        candidates.extend(work)
        stats = {
            "nodes": len(records),
            "sentences": sentences,
            "questions_skipped": questions,
            "candidates": len(candidates),
            "work_items": len(work),
        }
        return ExtractionResult(candidates, stats)
