"""The default extractor: English and Chinese patterns, no model, no network (seed 000 §6.2).

It reads every committed node of a batch once. Spoken nodes (user, assistant) are cut into
sentences and matched against precompiled patterns for preferences, decisions, tool switches,
constraints, people and organisations, projects and tools, learnings and dated events; tool-call
nodes become work items (commands run, files changed, errors fixed). A developer's statement
whose names, versions or hosts no family placed is kept whole as a note (``_residual``). Every
candidate names the node(s) it came from and is written in the language of its evidence.

>>> from ogmemory.entity.records import Node, NodeRecord
>>> node = Node(id="n1", seq=1, role="user", content="I went to a support group yesterday.",
...             parent_id=None, event_time=1683504000.0, ingestion_time=1683504000.0,
...             name="Caroline")
>>> rec = NodeRecord("s1", "default", None, node, "c0ffee", 1)
>>> RuleExtractor().extract([rec]).candidates[0].text
'Caroline went to a support group (2023-05-07).'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, tzinfo

from ...entity.records import NodeRecord
from ..dates import TimeExpr, day_of
from ..types import Candidate, ExtractionResult
from ._cancel import called_off
from ._changes import value_changes
from ._common import NodeContext, Sentence, content_text, gate, split_sentences
from ._conventions import conventions_en, conventions_zh
from ._deadlines import deadlines
from ._events import events_en
from ._events_zh import events_zh
from ._forward import forward_en
from ._handover import handovers
from ._identity import identity_en
from ._identity_zh import identity_zh
from ._lessons import asks_why, explanation, lesson
from ._passing import answered, hope_after_event, in_passing, literal, wish
from ._patterns_en import extract_en
from ._patterns_zh import extract_zh
from ._referents import (
    name_the_group,
    name_the_object,
    name_the_referent,
    once_named,
    points_back,
    reads_alone,
    told_once,
    with_referent,
)
from ._residual import residual
from ._salience import (
    ANSWER_BONUS,
    MIN_SCORE,
    Salience,
    elaboration,
    salience_en,
    statement,
    too_thin,
)
from ._salience_zh import salience_zh
from ._stack import stack_en
from ._stack_zh import pivot_en, stack_zh
from ._stances import stances_en
from ._stances_zh import stances_zh
from ._threads import STATEMENT_TYPES, Threads, can_merge, merge
from ._views import keep_views, merge_beliefs
from ._work import extract_work

__all__ = ["RuleExtractor"]

# a relative named, then what they do: "My sister Anika is coaching me with a plan"
_KIN_DOES = re.compile(r"\b[Mm]y\s+(?:\w+\s+){1,2}[A-Z]\w+\s+(?:[\w'’-]+\s+){2,}[\w'’-]+")
_DEFAULT_NAMES = {"user": ("the user", "用户"), "assistant": ("the assistant", "助手")}
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

    def __init__(
        self,
        *,
        tz: tzinfo = UTC,
        assistant_facts: bool = False,
        max_chars: int = 20_000,
        max_statements: int = 2,
    ) -> None:
        self.tz = tz
        self.max_statements = max_statements
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
        return NodeContext(
            record, speaker, speaker_zh, personal, day_of(node.event_time, self.tz), self.tz
        )

    def extract(self, records: Sequence[NodeRecord]) -> ExtractionResult:
        """Candidates for every node of the batch, in node order, then the work items."""
        candidates: list[Candidate] = []
        counts = {"sentences": 0, "questions_skipped": 0, "threads_merged": 0}
        threads = Threads()
        answers: set[str] = set()  # nodes that answer the turn before
        threads.learn_speakers(records)
        for record in records:
            node = record.node
            if node.role not in ("user", "assistant"):
                continue
            text = content_text(node.content)
            if not text or text.isspace():
                continue
            ctx = self._context(record)
            sentences = [literal(s) for s in split_sentences(text, ctx.ref_day, self.max_chars)]
            counts["sentences"] += len(sentences)
            counts["questions_skipped"] += sum(1 for s in sentences if s.question)
            answer = threads.asked_about(record, ctx)
            asked_text = threads.question.get(record.session_id, "") if answer else ""
            asked = threads.asked(record, ctx)
            if asked:
                answers.add(node.id)  # and what only question and answer say together:
            listener = ctx.listener = threads.listener(record, ctx)
            start = len(candidates)
            before = threads.said.get(record.session_id, "")
            statements = self._node(ctx, sentences, candidates, answer, before)
            if answer:  # "That agency looks great! What made you pick it?" - "I chose them"
                statements = [replace(c, text=name_the_object(c.text, before)) for c in statements]
            # "How long have you been married?" - "5 years!"
            asked_any = threads.question.get(record.session_id, "") if asked else ""
            candidates.extend(answered(asked_any, sentences, ctx))
            candidates.extend(wish(sentences, ctx))  # "I wish I could ...": no statement keeps it
            said = next(
                (i for i in range(start, len(candidates)) if candidates[i].type in STATEMENT_TYPES),
                None,
            )
            why = threads.why.get(record.session_id)
            if why and node.role == "assistant" and not ctx.personal:
                found = explanation(
                    sentences, ctx, why, threads.why_text.get(record.session_id, "")
                )
                if found is not None:
                    candidates.append(replace(found, node_ids=(why, node.id)))
            threads.why[record.session_id] = node.id if (ctx.personal and asks_why(text)) else ""
            threads.why_text[record.session_id] = text if threads.why[record.session_id] else ""
            if listener and ctx.personal:
                threads.social(record, ctx, sentences, candidates, start)
            extra = None
            if (
                threads.asked(record, ctx)
                and not statements
                and said is None
                and len(candidates) == start
            ):
                extra = elaboration(sentences, ctx)  # may only join what it answers
            counts["threads_merged"] += threads.add(
                record, ctx, sentences, statements, candidates, said, extra
            )
            threads.heard(record, ctx, candidates, start, len(candidates))
            name_the_group(candidates, start, ctx, text, asked_text, threads.earlier(record, ctx))
            if asked_text:
                name_the_referent(candidates, start, ctx, asked_text)
        candidates = once_named(merge_beliefs(keep_views(candidates, answers)))
        candidates = told_once(reads_alone(candidates))
        work = extract_work(records)
        candidates.extend(work)
        stats = {
            "nodes": len(records),
            **counts,
            "candidates": len(candidates),
            "work_items": len(work),
        }
        return ExtractionResult(candidates, stats)

    def _node(
        self,
        ctx: NodeContext,
        sentences: list[Sentence],
        candidates: list[Candidate],
        answer: bool = False,
        before: str = "",
    ) -> list[Candidate]:
        """Pattern, event and statement candidates of one node; returns its statements (not
        yet in ``candidates``: a thread may merge them into an earlier one). ``answer``: the
        node answers a question about the speaker, so a less salient statement is kept;
        ``before``: what the turn before said (where "there" is)."""
        need = MIN_SCORE - (ANSWER_BONUS if answer else 0.0)
        agent_user = ctx.record.node.role == "user" and not (ctx.record.node.name or "").strip()
        carry: TimeExpr | None = None
        salient: list[tuple[Salience, Sentence]] = []
        for s in sentences:
            found, events, zh = [], [], s.lang == "zh"
            if not s.question and ctx.personal:
                candidates.extend(in_passing(s, ctx))
                # An unnamed assistant's echoes and confirmations are never memories.
                found = deadlines(s, ctx) + handovers(s, ctx)
                found += (
                    stack_zh(s, ctx) + identity_zh(s, ctx) + extract_zh(s, ctx)
                    if zh
                    else stack_en(s, ctx)
                    + forward_en(s, ctx)
                    + pivot_en(s, ctx)
                    + identity_en(s, ctx)
                    + extract_en(s, ctx)
                )
                if not found:
                    found = stances_zh(s, ctx) if zh else stances_en(s, ctx)
                found += conventions_zh(s, ctx, found) if zh else conventions_en(s, ctx, found)
                found += value_changes(s, ctx, found)  # "从 15d 调到 45d"
                candidates.extend(found := called_off(s, ctx, found))  # "X 先不换了"
                # a decision, switch, learning or deadline dates it: no event restates it
                if not any(c.kind or (c.slot or "").startswith("deadline") for c in found):
                    events = (
                        events_zh(s, ctx)
                        if zh
                        else [
                            e for e in events_en(s, ctx, carry) if not too_thin(e.text, ctx.speaker)
                        ]
                    )
                    candidates.extend(events)
                    hope = hope_after_event(s, ctx, before) if events and not zh else None
                    candidates.extend([hope] if hope else [])
            elif ctx.personal and not s.text.rstrip().endswith(("?", "？")):
                # "When you review, flag ...": question-shaped, but an instruction
                found = conventions_zh(s, ctx, []) if zh else conventions_en(s, ctx, [])
                found += value_changes(s, ctx, found)  # "AGP 升级了，现在是 8.4.1，帮我看看"
                candidates.extend(found)
            elif ctx.personal and not zh:
                # "Wanna do a family outing this summer?", "Need help with X - any tips?"
                found = stances_en(s, ctx)
                candidates.extend(found)
            if ctx.personal and not s.question:
                learned = lesson(s, ctx)
                if learned is not None:  # "the lesson is ...": one lesson, not two readings
                    candidates[:] = [
                        c for c in candidates if c not in found or c.kind != "learning"
                    ]
                    candidates.append(learned)
                    found.append(learned)
            sal = None
            if ctx.personal and (not found or _kin_does(found, s)) and not events:
                sal = salience_zh(s, need + 1.5) if zh else salience_en(s, need)
                salient.extend([(sal, s)] if sal.keep else [])
            if agent_user and not (sal and sal.keep):  # what no family nor statement holds
                candidates.extend(filter(None, [residual(s, ctx, found + events, sentences)]))
            # "Guess what I did this week? I applied ...": a first-person sentence whose
            # time phrase dated nothing lends it to the next sentence.
            dated = any(c.attrs.get("date_text") for c in events)
            first_person = s.lang == "en" and s.has(_FIRST_PERSON)
            carry = s.times[-1] if s.times and first_person and not dated else None
        # The most salient statements of the node that no pattern already holds, in the
        # order they were said.
        best = sorted(salient, key=lambda x: -x[0].score)[: self.max_statements]
        return _statements(best, sentences, ctx)


def _kin_does(found: list[Candidate], s: Sentence) -> bool:
    """ "My sister Anika is coaching me ...": the kin is a relation, what she does a statement
    (but not "My partner Anna does.")."""
    kin = all(c.relation == "has_relation" for c in found)
    return kin and _KIN_DOES.search(s.text) is not None


def _statements(
    best: list[tuple[Salience, Sentence]], sentences: list[Sentence], ctx: NodeContext
) -> list[Candidate]:
    """The kept statements of a node as memories, in the order said; one that points back
    ("It's a reminder of ...") joins the statement of the sentence just before."""
    out: list[Candidate] = []
    last = -2  # the index of the sentence the last statement came from
    for sal, s in sorted(best, key=lambda x: sentences.index(x[1])):
        cand = statement(s, sal, ctx)
        if cand is None:
            continue
        i = sentences.index(s)
        if out and i == last + 1 and points_back(cand) and can_merge(out[-1], cand):
            out[-1] = merge(out[-1], cand)  # "This necklace is special. It's a reminder ..."
        else:
            out.append(with_referent(cand, s, sentences, ctx, [b[1] for b in best]))
        last = i
    return out
