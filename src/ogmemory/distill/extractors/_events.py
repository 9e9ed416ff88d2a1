"""First-person events, English and Chinese: "I went to a support group yesterday" → a dated
timeline event about the speaker, and life events without a date ("I adopted a dog") → an event
at the message's time, with lower confidence.

The approach is clause-based: a sentence is cut into clauses; a clause that holds a time phrase
and a first-person subject followed by an eventive verb (not "I think", not "I didn't") becomes
one event, restated in the third person with the time phrase replaced by the resolved date.
"""

from __future__ import annotations

import re
from dataclasses import replace as dc_replace

from ..dates import TimeExpr
from ..types import Candidate
from ._common import NodeContext, Sentence, date_attrs
from ._grammar import (
    ADVERBS,
    IRREGULAR_PAST,
    finish_en,
    finish_zh,
    third_person_en,
    third_person_zh,
)

__all__ = ["at_session", "events_en", "object_dated"]

# ----------------------------------------------------------------------------- English

_CLAUSE_EN = re.compile(
    r"\s+[-–—]+\s+|\s*[;:]\s+|\s+\(|\)"
    r"|\s+and\s+(?=(?:it|that|this)(?:['’]s|\s+(?:is|was|has|had|made))\b)"
    r"|,\s+(?=(?:but|and|so|which|it|it's|that's|though"
    r"|although|because|cause|cuz|plus|while|as|where|when|since|especially|I|i|we|We|and\s+"
    r"(?:now|it))\b)"
    r"|\s+(?:but|because|although|though|cause|cuz|'cause|so\s+that|which|whereas)\s+"
)
_SUBJ_EN = re.compile(
    r"\b(?:(?P<myand>[Mm]y\s+[\w'-]+(?:\s+[\w'-]+)?\s+and\s+I)|[Mm]e\s+and\s+(?:my|the)\s+[\w'-]+"
    r"|(?P<i>I)(?:['’](?P<isuf>m|ve|ll|d))?|(?P<we>[Ww]e)(?:['’](?P<wesuf>re|ve|ll|d))?)"
    r"(?![\w'’/.-])"
)
_VP_EN = re.compile(rf"(?:\s+(?:{ADVERBS})\b)*\s+(?P<v>[a-z]+(?:n't|['’]t)?)(?:\s+(?P<v2>[a-z]+))?")
_NEGATIVE = frozenset(
    "don't didn't never haven't hasn't hadn't can't won't couldn't wouldn't"
    " not shouldn't cannot wasn't weren't don’t didn’t can’t won’t".split()
)
_HYPO_MODAL = frozenset("would could might may should must can".split())
_STATIVE = frozenset(
    "think guess hope know mean bet believe feel wish love like hate agree understand appreciate"
    " want need miss remember see hear wonder suppose get enjoy prefer care admire find am is are"
    " totally really just also thank gotta wanna wish reckon doubt imagine say said".split()
)
_ADJ_ED = frozenset(
    "excited tired stressed bored worried interested pleased thrilled amazed blessed relieved"
    " surprised impressed inspired motivated scared obsessed determined exhausted overwhelmed"
    " delighted shocked touched confused annoyed disappointed pumped stoked glad amused"
    " frustrated concerned involved prepared supposed used based".split()
)
_LIFE_EN = re.compile(
    r"^(?:adopted|started|began|finished|completed|graduated|married|got\s+(?:married|engaged"
    r"|divorced|promoted|hired|accepted|a\s+new|my\s+first|into|back)|moved|bought|joined|won|lost"
    r"|quit|retired|signed|ran|opened|launched|published|travell?ed|visited|went|took\s+(?:up"
    r"|a|an|my|our|the|part)|learned|learnt|passed|had\s+(?:a|my|our)\s+(?:baby|son|daughter"
    r"|kid|child|surgery|operation|wedding|accident)|gave\s+birth|broke\s+up|volunteered"
    r"|attended|hosted|organi[sz]ed|created|painted|wrote|built|released|shipped|deployed"
    r"|enrolled|registered|applied|received|celebrated|participated|competed|performed|welcomed"
    r"|met|found|became|turned|picked\s+up|finally|recently|just)\b"
)
_IMPLICIT_EN = re.compile(
    r"^(?:(?:oh|well|yeah|yes|so|and|also|btw|anyway|hey|wow|haha|guess\s+what)[,!.]?\s+)*"
    r"(?:just\s+|finally\s+|recently\s+|also\s+|then\s+|actually\s+)?(?P<v>[A-Za-z]+)\b",
    re.IGNORECASE,
)
_WORK_EN = re.compile(
    r"\b(?:releas\w*|ship(?:ped)?|deploy\w*|merg\w*|refactor\w*|commit\w*|PR|pull\s+request"
    r"|bugs?|fix(?:ed)?|hotfix|v\d[\w.]*|\d+\.\d+(?:\.\d+)?|code|API|server|database|repo"
    r"|CI|feature|migration|backend|frontend|sprint|staging|production)\b",
    re.IGNORECASE,
)
# A subject counts only where a clause can start: "the impact we made" is not an event by us.
_PREV_OK = frozenset(
    "and but so then when after before because since as that oh well yeah yes also finally just"
    " recently actually now today yesterday tonight week weekend month year ago night morning"
    " afternoon evening while though wow haha lol anyway btw fyi fwiw iirc tbh hey guess"
    " thankfully luckily unfortunately fortunately honestly sadly plus once until till cause cuz"
    " monday tuesday wednesday thursday friday saturday sunday weeks months years days earlier"
    " later".split()
)
_LAST_WORD = re.compile(r"(\w+)\W*$")


def _subject_ok(text: str, clause_start: int, start: int) -> bool:
    before = text[max(clause_start, start - 40) : start].rstrip()
    if not before or (not before[-1].isalnum() and before[-1] not in "'’"):
        return True  # punctuation or an emoji ends what came before
    m = _LAST_WORD.search(before)
    return m is None or m.group(1).lower() in _PREV_OK


_TIME_PREP = re.compile(r"\s*\b(?:on|in|at|during|over|from|since|by|for)\s*$", re.IGNORECASE)


def _clauses(text: str, pattern: re.Pattern[str]) -> list[tuple[int, int]]:
    spans, pos = [], 0
    for m in pattern.finditer(text):
        if m.start() > pos:
            spans.append((pos, m.start()))
        pos = m.end()
    if pos < len(text):
        spans.append((pos, len(text)))
    return spans


def _eventive_en(text: str, subj: re.Match[str]) -> str | None:
    """The tense of the verb phrase after a first-person subject, or None if not an event."""
    suf = subj.group("isuf") or subj.group("wesuf")
    vp = _VP_EN.match(text, subj.end())
    if vp is None:
        return None
    v, v2 = vp.group("v").lower().replace("’", "'"), (vp.group("v2") or "").lower()
    if v in _NEGATIVE or v.endswith("n't"):
        return None
    if suf in ("m", "re"):
        if v in ("thinking", "planning") and v2 in ("about", "of", "to"):
            return "future"
        if v in ("gonna", "about") or (
            v.endswith("ing")
            and v not in ("being", "thinking", "hoping", "wondering", "feeling", "trying")
        ):
            return "future" if v in ("going", "gonna", "about", "planning", "heading") else "now"
        return None
    if suf == "ve":
        if v == "been" and (v2 in ("to", "at", "in", "on") or v2.endswith("ing")):
            return "past"
        return "past" if (v.endswith("ed") or v in IRREGULAR_PAST) and v != "been" else None
    if suf == "ll" or v == "will":
        return "future"
    if suf == "d" or v in _HYPO_MODAL:
        return None
    if v in ("was", "were"):
        ok = v2 in (
            "at",
            "in",
            "on",
            "with",
            "there",
            "invited",
            "born",
            "able",
            "chosen",
            "hired",
            "promoted",
            "accepted",
            "selected",
            "asked",
            "out",
            "away",
        )
        return "past" if ok or v2.endswith("ing") else None
    if v in ("have", "had"):
        if v == "have" and v2 == "to":
            return None
        if v == "have" and (v2 == "been" or _past_verb(v2)):
            return "past"
        return "past" if v == "had" else "now"
    if v in ("am", "are"):
        return "future" if v2.endswith("ing") else None
    if v in _STATIVE or v in _ADJ_ED:
        return None
    if v.endswith("ed") or v in IRREGULAR_PAST:
        return "past"
    return "present"


# What makes a Chinese event work (a release, a fix) rather than life
_WORK_ZH = re.compile(
    r"发布|上线|部署|修复|修了|重构|合并|提交|版本|v\d|\d+\.\d+|代码|接口|服务器|数据库"
    r"|bug|Bug|BUG|功能|迭代|测试|PR|上线"
)


def _event_candidate(
    ctx: NodeContext,
    s: Sentence,
    t: TimeExpr | None,
    clause: str,
    lang: str,
    tense: str,
    confidence: float,
) -> Candidate | None:
    if lang == "zh":
        body = third_person_zh(clause, ctx.name("zh"))
        text = finish_zh(body, t.label("zh") if t else None)
        work = bool(_WORK_ZH.search(clause))
    else:
        body = third_person_en(_VOCATIVE.sub("", clause), ctx.speaker)
        text = finish_en(body, t.label() if t else None)
        work = bool(_WORK_EN.search(clause))
    key = re.sub(r"\W+", " ", body).strip().lower()
    if len(key) < 4 or not ctx.first("event", key):
        return None
    attrs = date_attrs(t) if t else {}
    if tense == "future" or (t is not None and t.day > ctx.ref_day):
        attrs["planned"] = True
    when = ctx.epoch(t.day) if t else ctx.event_time
    return ctx.candidate(
        "event",
        text,
        lang,
        kind="work" if work else "event",
        event_time=when,
        confidence=round(confidence, 2),
        importance=(0.6 if t else 0.45) + (0.1 if work else 0.0),
        attrs=attrs,
    )


def _strip_time_en(clause: str, t: TimeExpr | None, offset: int) -> str:
    if t is None or not offset <= t.start < offset + len(clause) + 1:
        return clause
    a, b = t.start - offset, t.end - offset
    head = (
        _TIME_PREP.sub("", clause[:a])
        if not t.text.lower().startswith(("on ", "in ", "since ", "by ", "until ", "for "))
        else clause[:a]
    )
    head = _PART_OF.sub("", head)  # "offline part of next week": offline (that week)
    tail = clause[b:]
    return f"{head.rstrip()}{tail}" if tail[:1] in (",", ";", ":") else f"{head} {tail}".strip()


_PART_OF = re.compile(r"\s+(?:part|most|all|the\s+rest|rest|half)\s+of\s*$", re.IGNORECASE)


_POSS_SUBJ = re.compile(r"\b(?:[Mm]y|[Oo]ur)\s+")
_THERE_RE = re.compile(r"\b[Tt]here\s+(?:was|were|is|are|will\s+be|'s\s+been|has\s+been)\b")
_DETERMINER = re.compile(
    r"\b(?:[Aa]n?|[Tt]he|[Tt]his|[Tt]hat|[Tt]hese|[Tt]hose|[Ss]ome|[Mm]y"
    r"|[Oo]ur)\s+"
)
_COPULA_RE = re.compile(
    r"^\s*(?P<np>(?:[Tt]he|[Mm]y|[Oo]ur)\s+(?:[\w'-]+\s+){0,4}?[\w'-]+)\s+(?:is|was|will\s+be"
    r"|'s)\s+(?:on\s+|in\s+|at\s+)?$"
)
_PREPOSITIONS = frozenset("to with at in on for from about into during".split())
_WORD_AT = re.compile(r"\s*([A-Za-z'’]+)")
_ING_SKIP = frozenset(
    "something nothing everything anything morning evening wedding building"
    " feeling thinking hoping wondering being".split()
)


def _past_verb(word: str) -> bool:
    w = word.lower()
    return (w in IRREGULAR_PAST or (w.endswith("ed") and len(w) > 3)) and w not in _ADJ_ED


def _next_words(text: str, pos: int, end: int, n: int) -> list[re.Match[str]]:
    out: list[re.Match[str]] = []
    while len(out) < n:
        m = _WORD_AT.match(text, pos, end)
        if m is None:
            break
        out.append(m)
        pos = m.end()
    return out


def _after_time(text: str, start: int, times: tuple[TimeExpr, ...]) -> bool:
    """Whether only spaces or a comma separate ``start`` from the end of a time phrase."""
    return any(t.end <= start and not text[t.end : start].strip(" ,") for t in times)


def _possessive(text: str, a: int, b: int, times: tuple[TimeExpr, ...]) -> tuple[int, str] | None:
    """A "my grandma passed away" clause: its start and tense."""
    for m in _POSS_SUBJ.finditer(text, a, b):
        if not (_subject_ok(text, a, m.start()) or _after_time(text, m.start(), times)):
            continue
        words = _next_words(text, m.end(), b, 6)
        for i, w in enumerate(words[1:5], start=1):
            v = w.group(1).lower()
            nxt = words[i + 1].group(1).lower() if i + 1 < len(words) else ""
            if v in ("was", "were"):
                if _past_verb(nxt) or nxt in _PREPOSITIONS or nxt.endswith("ing"):
                    return m.start(), "past"
                break
            if v in ("will", "is") and (nxt.endswith("ing") or v == "will"):
                return m.start(), "future"
            if _past_verb(v):
                return m.start(), "past"
    return None


def _fronted(text: str, a: int, subj: re.Match[str], b: int, t: TimeExpr) -> str | None:
    """ "a trip we took last year" → "we took a trip" (an object-fronted relative clause)."""
    dets = list(_DETERMINER.finditer(text, a, subj.start()))
    words = _next_words(text, subj.end(), b, 2)
    if not dets or not words or not _past_verb(words[0].group(1)) or subj.group("isuf"):
        return None
    head = text[dets[-1].start() : subj.start()].split(None, 1)
    if len(head) < 2 or len(head[1].split()) > 5 or not re.fullmatch(r"[\w\s'-]+", head[1]):
        return None
    det = head[0].lower()
    det = "the" if det in ("this", "that", "these", "those") else head[0].lower()
    verb_end = words[0].end()
    verb = words[0].group(1)
    if len(words) > 1 and words[1].group(1).lower() in _PREPOSITIONS:
        after = words[1].end()
        if after >= b or (t.start >= after and not text[after : t.start].strip()):
            verb, verb_end = f"{verb} {words[1].group(1)}", after
    rest = _strip_time_en(text[verb_end:b], t, verb_end).strip()
    first = rest.split(None, 1)[0].lower() if rest else ""
    if first not in _PREPOSITIONS:
        rest = ""  # "figurines I bought remind me of ...": the rest is the main clause
    return f"{subj.group()} {verb} {det} {head[1]} {rest}".strip()


def _dated_clause(
    text: str, a: int, b: int, t: TimeExpr, times: tuple[TimeExpr, ...], first_clause: bool
) -> tuple[str, str, float] | None:
    """The first-person clause a time phrase dates, as (clause, tense, confidence)."""
    conf = 0.6 if t.approximate else 0.7
    subjects = list(_SUBJ_EN.finditer(text, a, b))
    ok = [
        m
        for m in subjects
        if _subject_ok(text, a, m.start()) or _after_time(text, m.start(), times)
    ]
    before = [m for m in ok if m.start() < t.start]
    subj = before[-1] if before else (ok[0] if ok else None)
    if subj is not None:
        tense = _eventive_en(text, subj)
        if tense is None:
            return None
        return _strip_time_en(text[subj.start() : b], t, subj.start()), tense, conf
    for m in subjects:  # "a trip we took last year"
        fronted = _fronted(text, a, m, b, t)
        if fronted is not None and _eventive_en(text, m) == "past":
            return fronted, "past", conf - 0.05
    poss = _possessive(text, a, b, times)
    if poss is not None:
        start, tense = poss
        return _strip_time_en(text[start:b], t, start), tense, conf - 0.05
    there = _THERE_RE.search(text, a, b)
    if there is not None and (
        _subject_ok(text, a, there.start()) or _after_time(text, there.start(), times)
    ):
        return _strip_time_en(text[there.start() : b], t, there.start()), "past", conf - 0.1
    copula = _COPULA_RE.match(text[a : t.start])
    if copula is not None and not text[t.end : b].strip(" !.~"):
        # "The opening night is tomorrow": when it takes place
        past = copula.group().split()[-1].lower() == "was" or " was " in copula.group()
        return f"{copula.group('np')} {'took' if past else 'takes'} place", "now", conf - 0.1
    if not first_clause or subjects:
        return None
    implicit = _IMPLICIT_EN.match(text, a, b)
    if implicit is None:
        return None
    v, start = implicit.group("v"), implicit.start("v")
    rest = _strip_time_en(text[start:b], t, start)
    rest = rest[:1].lower() + rest[1:]
    low = v.lower()
    if _implicit_past(v):
        return "I " + rest, "past", 0.6
    if low in ("gonna", "planning", "heading", "going") or (
        low.endswith("ing") and low not in _ING_SKIP and len(low) > 4
    ):
        return "I'm " + rest, "future", 0.55
    return None


def events_en(s: Sentence, ctx: NodeContext, carry: TimeExpr | None = None) -> list[Candidate]:
    """Dated and undated first-person events in one English sentence.

    ``carry`` is a time phrase of the sentence just before ("Guess what I did this week? I
    applied to adoption agencies!"): an undated event here takes it.
    """
    if s.question or s.hypothetical or not ctx.personal:
        return []
    text = s.text
    out: list[Candidate] = []
    spans = _clauses(text, _CLAUSE_EN)
    dated: set[int] = set()
    for t in s.times:
        idx = next((i for i, (a, b) in enumerate(spans) if a <= t.start < b), None)
        if idx is None or idx in dated or text.startswith(("'s", "’s"), t.end):
            continue  # "tomorrow's gonna be a blast": the day itself is the subject
        a, b = spans[idx]
        found = _dated_clause(text, a, b, t, s.times, idx == 0)
        if found is None and idx + 1 < len(spans) and idx + 1 not in dated:
            # "Last week, I went ...", "While volunteering yesterday, I met ...": a short lead
            # clause holds the time, the next one the event.
            lead = text[a:b].replace(t.text, " ")
            if len(lead.split()) <= 6:
                idx += 1
                a, b = spans[idx]
                found = _dated_clause(text, a, b, t, s.times, False)
        if found is None:
            continue
        clause, tense, conf = found
        if tense == "present" and t.day <= ctx.ref_day and t.granularity == "day":
            tense = "past"
        when: TimeExpr | None = t
        if tense == "past" and t.day > ctx.ref_day:
            # "I signed up for the half marathon in September", said in May: the date is the
            # race's, not the signing up's; the phrase stays, the event is the session's
            clause, when = object_dated(text, clause, a, b, t), at_session(ctx)
        cand = _event_candidate(ctx, s, when, clause, "en", tense, conf)
        if cand is not None:
            out.append(cand)
            dated.add(idx)
    # Life events without a date: "I adopted a dog", "I just finished my first marathon".
    for i, (a, b) in enumerate(spans):
        if i in dated:
            continue
        for m in _SUBJ_EN.finditer(text, a, b):
            suf = m.group("isuf") or m.group("wesuf") or ""
            if suf in ("ll", "d") or not _subject_ok(text, a, m.start()):
                continue
            vp = _VP_EN.match(text, m.end())
            if vp is None:
                continue
            verb_phrase = text[vp.start("v") : b].strip()
            adverbs = text[m.end() : vp.start("v")].lower()
            recent = _RECENT.search(adverbs)
            verb_tense = _eventive_en(text, m)
            perfect = suf == "ve" or (vp.group("v") == "have" and verb_tense == "past")
            perfect = perfect and not _HABITUAL.search(adverbs)  # "I've always loved ..."
            if suf in ("m", "re"):  # "I'm currently reading ...": going on now
                if not (recent and verb_tense == "now"):
                    continue
            elif verb_tense != "past" or not (_LIFE_EN.match(verb_phrase) or recent or perfect):
                continue
            when = carry
            if when is None and text[a:b].lstrip(" ,").lower().startswith("since "):
                # "I've known them for 4 years, since I moved here": the move began the 4 years
                when = next((dc_replace(t, since=False) for t in s.times if t.since), None)
            if when is None and (recent or perfect):
                # "I just got accepted", "I've started lessons": it happened about now
                when = TimeExpr(
                    recent.group() if recent else "", -1, -1, ctx.ref_day, approximate=True
                )
            conf = 0.55 if when is not None or "finally" in adverbs else 0.5
            cand = _event_candidate(ctx, s, when, text[m.start() : b], "en", verb_tense, conf)
            if cand is not None:
                out.append(cand)
            break
    return out


def at_session(ctx: NodeContext) -> TimeExpr:
    """The session's day as the time of an event whose own date was not said."""
    return TimeExpr("", -1, -1, ctx.ref_day)


def object_dated(text: str, clause: str, a: int, b: int, t: TimeExpr) -> str:
    """``clause`` with its time phrase back in place (the phrase dates what was acted on)."""
    head = clause.split(None, 1)[0] if clause.strip() else ""
    pos = text.find(head, a, b) if head else -1
    return text[pos:b].strip() if 0 <= pos < t.start else clause


_RECENT = re.compile(r"\b(?:just|recently|finally|currently|now|lately)\b")
_HABITUAL = re.compile(r"\b(?:always|never|ever|often|usually|sometimes)\b")
_VOCATIVE = re.compile(r",\s*[A-Z][a-z]+\W*$")


_PRESENT_TOO = frozenset(
    "put set cut hit hurt let quit read spread cost burst shut split upset"
    " bet lay been done gone seen taken given known shown".split()
)


def _implicit_past(verb: str) -> bool:
    v = verb.lower()
    if v in _ADJ_ED or v in _PRESENT_TOO or v in ("was", "were", "did", "used", "need", "said"):
        return False
    return v in IRREGULAR_PAST or (v.endswith("ed") and len(v) > 4)
