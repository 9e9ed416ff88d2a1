"""Clause-level salience: the statements about themselves a careful reader would note.

The pattern families (preferences, decisions, people, events, ...) catch what has a known
shape. Most of what people say about their lives has none: "I'm carving out some me-time each
day - running, reading, or playing my violin", "My kids are so excited about summer break".
This module keeps such a sentence when it is a statement by the speaker about themselves or
the people and things that are theirs, and says something specific:

* its subject is the speaker (``I``/``we``, ``my X``/``our X``, or an implied "I" as in
  "Researching adoption agencies"), at a clause start;
* it is not a question, a wish or a condition, and not phatic: thanks, greetings, praise of
  the listener, agreement ("I totally agree", "I'm so proud of you") carry no fact;
* it has enough content words (not function words, not evaluative words such as "great",
  "awesome", not light verbs) to be worth keeping; a name, a number or a date counts extra.

The kept sentence is restated in the third person ("Melanie is carving out ...") with its
relative dates resolved ("last Saturday" → the date), in the language of the evidence.
Chinese sentences are read the same way by ``_salience_zh`` (我/我们/我的 subjects, 谢谢/太好了
as phatic).

>>> from datetime import date
>>> from ogmemory.distill.extractors._common import split_sentences
>>> s = split_sentences("My kids are so excited about summer break!", date(2023, 5, 8))[0]
>>> salience_en(s).keep
True
>>> salience_en(split_sentences("Thanks so much, that's awesome!", date(2023, 5, 8))[0]).keep
False
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ..types import Candidate
from ._common import NodeContext, Sentence, date_attrs, gate
from ._grammar import IRREGULAR_PAST, finish_zh, strip_label_en, third_person_en, third_person_zh

__all__ = ["Salience", "elaboration", "salience_en", "statement", "too_thin"]

# Function words, pronouns and auxiliaries: never content.
_STOP_EN = gate(
    "a an the and or but so if then than that this these those there here it its it's i i'm"
    " i've i'll i'd me my mine myself we we're we've we'll we'd us our ours ourselves you"
    " you're you've you'll you'd your yours yourself he she him her his hers they them their"
    " theirs is am are was were be been being have has had having do does did doing done will"
    " would shall should can could may might must to of in on at by for with about from into"
    " onto over under up down out off as just also too very really so such quite pretty much"
    " many more most some any all both each every no not nor only own same other another what"
    " which who whom whose when where why how again ever never always still yet already even"
    " lot lots gonna wanna gotta kinda sorta thing things stuff something anything everything"
    " nothing someone anyone everyone way one ones bit while because since though although"
    " until till like yeah yes yep yup nope oh ah wow woah whoa hey hi hello haha lol hmm um"
    " okay ok well now then today tonight yesterday tomorrow don't didn't doesn't can't won't"
    " isn't aren't wasn't weren't haven't hasn't couldn't wouldn't shouldn't let let's 's 're"
    " 've 'll 'd t s re ve ll d m got get gets getting go goes going went make makes made"
    " making take took know knew think thought feel felt want need say said see saw look looks"
    " looking seem seems keep kept try trying tried come came put give gave mean means sure"
    " maybe actually definitely totally absolutely literally honestly basically probably these"
    " those else ya u ur yall y'all gosh omg man dude btw anyway plus via per"
)
# Evaluative and phatic words: how the speaker feels about something, not what it is.
_EVAL_EN = gate(
    "great awesome amazing cool nice good fun happy glad lucky sweet inspiring inspired"
    " special wonderful beautiful lovely incredible fantastic super fab fabulous brilliant"
    " excellent perfect gorgeous stunning cute adorable neat rad epic wild crazy insane sad"
    " sorry proud thanks thank congrats congratulations excited exciting thrilled stoked"
    " pumped blessed grateful thankful appreciate appreciated kind kindness words mean means"
    " meant lot glad best better worse worst bad tough hard easy big little huge tiny true"
    " totally agree agreed hope hoping wish luck bye care chat chatting talk talking catch"
    " hear heard sounds sound amazing rock rocks rocking love loved loving loves lovely enjoy"
    " enjoyed support supportive awesome wonder wonderful journey moment moments vibes vibe"
    " feeling feelings wait can't cannot important"
)
# Abstract and motivational words: they count, but half ("I'll keep chasing my dreams" says
# less than "I'm researching adoption agencies").
_WEAK_EN = gate(
    "dream dreams goal goals journey life passion positive positivity motivated motivation"
    " motivates motivate hope hopeful strength courage effort efforts forward push pushing"
    " keep keeping going chasing chase happiness joy difference inspiration inspire inspires"
    " determined determination optimistic believe belief confidence confident success"
    " successful work working hard best part reminder remind reminds reminded helps help"
    " helped happen happens future today lately world people others everyone together each"
    " other stay staying focused focus energy peace positive progress growth grow learn"
    " learning experience experiences things day days time times"
)
_SECOND_EN = gate("you you're you've you'll you'd your yours yourself ya u ur yall y'all")
_WORD_EN = re.compile(r"[A-Za-z][A-Za-z'’-]*|\d[\d,.:]*")
_LEAD_EN = re.compile(
    r"^(?:(?:hey|hi|hello|oh|ah|aw+|wow|woah|whoa|yeah|yes|yep|yup|nope|no|ok|okay|so|well"
    r"|haha|lol|hmm|um|btw|anyway|and|but|also|plus|omg|gosh|man|dude|ha|right|true|totally"
    r"|absolutely|definitely|honestly|sure|indeed|exactly|awesome|cool|great|nice)\b[\s,!.~…-]*)+",
    re.IGNORECASE,
)
_VOCATIVE_LEAD = re.compile(r"^[A-Z][a-z]+\s*[,!]\s*")
_VOCATIVE_TAIL = re.compile(r"\s*,\s*[A-Z][a-z]+(?=\s*[!.?~…]*\s*$)")
# The speaker as subject where a clause can start.
_SELF_SUBJ = re.compile(
    r"(?:^|[,;:(–—-]\s*|\b(?:(?:let\s+you\s+know|tell\s+you|share|guess\s+what)\s+(?:that\s+)?"
    r"|and|but|so|then|now|today|yesterday|recently|lately|finally"
    r"|also|just|actually|week|weekend|month|year|ago|night|morning|afternoon|evening)\s+)"
    r"(?P<s>I|I['’](?:m|ve|ll|d)|[Ww]e|[Ww]e['’](?:re|ve|ll|d)|[Mm]y\s+\w+|[Oo]ur\s+\w+"
    r"|[Mm]e\s+and\s+\w+)\b"
)
# An implied "I" at the start: "Researching adoption agencies", "Been practicing a lot",
# "Just got back from ...", "Gonna open a studio".
_IMPLIED = re.compile(
    r"^(?:(?:just|finally|recently|currently|still|also|now|actually)\s+)*"
    r"(?P<v>been|gonna|going\s+to|[a-z]{3,}ing|[a-z]{3,}ed|"
    + "|".join(sorted(IRREGULAR_PAST - {"been", "done", "seen", "gone"}, key=len, reverse=True))
    + r")\b\s+(?P<rest>\w)",
    re.IGNORECASE,
)
_NOT_IMPLIED = gate(
    "thanks thanking wishing hoping looking sounds sounding feeling amazing interesting"
    " exciting loving seeing hearing reading talking speaking glad sorry congrats nothing"
    " something everything anything morning evening wedding building thing sing king ring"
    " bring spring string during according being bet"
)
# Reactions: the speaker's attitude to what the listener said or did.
_REACTION_EN = re.compile(
    r"\b(?:I|we)(?:['’]m|\s+am|['’]re|\s+are)?\s+(?:so\s+|really\s+|totally\s+|just\s+|also\s+"
    r"|too\s+|truly\s+|super\s+|100%\s+|completely\s+|fully\s+)*"
    r"(?:agree|appreciate|hope|wish|bet|guess|think\s+so|know"
    r"|understand|get\s+it|glad|happy\s+for|proud\s+of|sorry|excited\s+for|thrilled\s+for|sure"
    r"|grateful\s+for|thankful\s+for|love\s+(?:that|it|this|the|your|how|hearing|seeing)"
    r"|can['’]t\s+wait|look\s+forward|'m\s+here|am\s+here|feel\s+you|hear\s+you)\b",
    re.IGNORECASE,
)
_PHATIC_START_EN = re.compile(
    r"^(?:thanks|thank\s+you|congrats|congratulations|good\s+luck|take\s+care|bye|see\s+you"
    r"|talk\s+soon|have\s+(?:a|fun)|keep\s+(?:it\s+up|going|at\s+it)|let['’]?s|let\s+me"
    r"|sounds|that['’]?s|that\s+(?:is|was|sounds|looks)|what\s+a|how\s+(?:cool|nice|great)"
    r"|so\s+(?:cool|nice|great|glad|happy)|glad|lucky\s+you|cheers|no\s+worries|sure\s+thing"
    r"|you|your|aw+|i\s+hope|hope|wish|enjoy|please|feel\s+free|can['’]t\s+wait|welcome"
    r"|good\s+(?:job|for\s+you|to\s+hear)|well\s+done|nice\s+(?:one|job|work)|great\s+(?:job|work)"
    r"|check|look\s+at|here['’]?s|here\s+(?:is|are)|guess|see)\b",
    re.IGNORECASE,
)
_NAME_EN = re.compile(r"(?<=\s)[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*")
_NUMBER = re.compile(r"\b\d")
_FUTURE_EN = re.compile(r"\b(?:will|'ll|gonna|going\s+to|planning|plan\s+to|about\s+to)\b")


@dataclass(frozen=True)
class Salience:
    """How a sentence scores: whether to keep it, its score and where its statement starts."""

    keep: bool
    score: float
    start: int = 0  # where the kept statement starts in the sentence text
    implied: str = ""  # the implied subject's verb ("researching"), when there is one
    form: str = "self"  # self | photo | mention
    end: int | None = None  # where it ends (a trailing question cut off)


def too_thin(text: str, speaker: str) -> bool:
    """Whether an English event says too little to be kept: no content word besides who it
    is about, or one and a pointer at what was said around it ("Melanie painted it", "has
    been dreaming of this", "has got something to share"); "went to the zoo" stays."""
    body = re.sub(
        rf"\b{re.escape(speaker)}(?:'s team)?\b|\band (?:others|their family|their"
        r" friends)\b",
        " ",
        text,
    )
    body = re.sub(r"\([^)]*\)", " ", body)  # the resolved date
    words = [w.lower() for w in _WORD_EN.findall(body)]
    content = _content_en(words)
    ends_vague = bool(words) and words[-1] in ("it", "that", "this", "them", "one", "so", "there")
    points = any(w in ("this", "that", "it", "something", "stuff") for w in words)
    return content < 1 or (content < 2 and (ends_vague or points))


def _content_en(words: list[str]) -> float:
    return sum(
        0.5 if w in _WEAK_EN else 1.0
        for w in words
        if w not in _STOP_EN and w not in _EVAL_EN and len(w) > 1
    )


def _strip_lead(text: str) -> str:
    prev = None
    while prev != text:
        prev = text
        text = strip_label_en(_LEAD_EN.sub("", text))
        text = _VOCATIVE_LEAD.sub("", text) if not text.startswith(("I ", "I'")) else text
    return _VOCATIVE_TAIL.sub("", text)


_GERUND_SUBJECT = re.compile(
    r"^\w+ing\b(?:[^;:!?.–—-]|(?<=\w)-(?=\w)){0,60}?(?:['’]s\s|\s(?:is|was|are|were|'s|can"
    r"|could|will|would|helps?|brings?|makes?|gives?|keeps?|lets?|seems?|has|have|had|takes?"
    r"|feels?|matters?|means?|reminds?|gave|made|brought|kept|took|helped|taught|showed"
    r"|pushed|got|changed|reminded|led|inspired|motivated|opened)\b)"
    r"|^\w+ing\b[^.!?]{0,60}?\s[-–—]\s(?:that)['’]s\b"
    # "clustered forward is dead", "marketing wanted more time": the first words are the subject
    r"|^[a-z][\w-]*(?:\s+[a-z][\w-]*)?\s+(?:is|are|was|were|wants?|wanted|needs?|needed|says?|said"
    r"|asked|decided|thinks?|thought)\b",
    re.IGNORECASE,
)
_GENERIC_WE = re.compile(
    r"^[Ww]e(?:'ll|'re\s+all|\s+are\s+all|\s+(?:can|could|should|must"
    r"|all|'ll|will|got\s+this))\b"
)
# Self-talk about keeping going says nothing a reader could use later.
_PERSEVERE = re.compile(
    r"^(?:I|we)(?:'ll|'m|'re|\s+will|\s+am|\s+are)?\s+(?:(?:not\s+)?(?:going\s+to|gonna)\s+|just\s+"
    r"|also\s+|definitely\s+|really\s+)*(?:keep\s+(?:going|pushing|trying|working|chasing|at\s+it"
    r"|plugging|on\b|believing|moving|fighting)|continue\s+to\s+(?:push|work|try)|do\s+(?:my|our)"
    r"\s+best|(?:not\s+)?give\s+up|stay\s+(?:positive|optimistic|strong|focused|determined"
    r"|motivated|hopeful)|won't\s+(?:give\s+up|quit|stop|let)|not\s+(?:give\s+up|quit))",
    re.IGNORECASE,
)
_MENTION = re.compile(r"\b(?:me|my|myself)\b", re.IGNORECASE)
_PRONOUN_START = re.compile(
    r"^(?:it|they|he|she|there|which|what|(?:that|this|those|these)(?=\s+(?:is|was|are|were|'s"
    r"|has|had|have|will|would|can|could|really|just|always|made|makes|helps|helped|reminds"
    r"|taught|showed|gave|gives|brings|brought|means|meant)\b))\b",
    re.IGNORECASE,
)
_MY_NOUN = re.compile(r"\b(?:my|our)\s+(?!own\b)[a-z]+", re.IGNORECASE)


def _score_en(span: str, s: Sentence, start: int) -> float:
    words = [w.lower() for w in _WORD_EN.findall(span)]
    content = _content_en(words)
    second = sum(1 for w in words if w in _SECOND_EN)
    specific = (
        len(_NAME_EN.findall(span))
        + len(_NUMBER.findall(span))
        + sum(1 for t in s.times if t.start >= start)
        + len(_MY_NOUN.findall(span))
    )
    return content + 0.75 * min(specific, 3) - 2.0 * second


_PHOTO_EN = re.compile(
    r"^(?:here['’]?s|here\s+(?:is|are)|check\s+out|look\s+at|this\s+is|these\s+are)\s+"
    r"(?:a|an|the|this|some|one|my|our)?\s*(?:quick\s+|cute\s+|recent\s+|new\s+|old\s+)*"
    r"(?:pic|pics|picture|pictures|photo|photos|snap|shot|selfie|photograph)\s+(?:of|from)\s+"
    r"(?P<x>.+)",
    re.IGNORECASE,
)
_QUESTION_TAIL = re.compile(r"\s+[-–—]\s+[^-–—]*$|,\s*(?:right|huh|eh|no)\W*$")


def _declarative(s: Sentence) -> str | None:
    """The sentence's text if it states something; "I finished a project - want to see?"
    states its first part."""
    text = s.text.replace("’", "'")
    if s.hypothetical:
        return None
    if s.question:
        m = _QUESTION_TAIL.search(text)
        if m is None or m.start() < 8:
            return None
        text = text[: m.start()]
    return text


def _routes_en(full: str, s: Sentence) -> list[Salience]:
    """Every reading of the sentence as a statement about the speaker, with its score."""
    out: list[Salience] = []
    for m in _SELF_SUBJ.finditer(full):
        start = m.start("s")
        span = full[start:]
        if _REACTION_EN.match(span) or _GENERIC_WE.match(span) or _PERSEVERE.match(span):
            continue
        out.append(Salience(False, _score_en(span, s, start), start, end=len(full)))
        break
    text = _strip_lead(full)
    offset = max(0, full.find(text))
    photo = _PHOTO_EN.match(text)
    if photo is not None and _MENTION.search(photo.group("x")):
        out.append(
            Salience(
                False,
                _score_en(photo.group("x"), s, offset) + 1.0,
                offset + photo.start("x"),
                form="photo",
                end=len(full),
            )
        )
        return out
    if not text or _PHATIC_START_EN.match(text):
        return out
    implied = _IMPLIED.match(text)
    if implied is not None:
        verb = implied.group("v").lower()
        after = text[implied.end("v") :].split(None, 1)
        if not (
            verb in _NOT_IMPLIED
            or _GERUND_SUBJECT.match(text)
            or (verb in ("gonna", "going to") and after[:1] == ["be"])
            or (verb == "been" and after[:1] and after[0].lower() in _IT_HAS_BEEN)
        ):
            out.append(
                Salience(
                    False, _score_en(text, s, offset), offset, implied.group("v"), end=len(full)
                )
            )
            return out
    if _MENTION.search(text):  # "Pottery is a huge part of my life": about the speaker too
        penalty = MENTION_PENALTY + (1.0 if _PRONOUN_START.match(text) else 0.0)
        out.append(
            Salience(
                False, _score_en(text, s, offset) - penalty, offset, form="mention", end=len(full)
            )
        )
    return out


_IT_HAS_BEEN = frozenset(
    {
        "a",
        "an",
        "the",
        "so",
        "such",
        "quite",
        "pretty",
        "really",
        "too",
        "great",
        "good",
        "fun",
        "tough",
        "hard",
    }
)


#: Score a sentence needs to be kept, and what reading it through "me"/"my" only costs.
MIN_SCORE = 2.5
MENTION_PENALTY = 0.5
#: How much less an answer to a question about the speaker needs ("What are their names?").
ANSWER_BONUS = 1.5


def salience_en(s: Sentence, min_score: float | None = None) -> Salience:
    """Whether an English sentence is a specific statement by the speaker about their life."""
    full = _declarative(s)
    if full is None:
        return Salience(False, 0.0)
    routes = _routes_en(full, s)
    if not routes:
        return Salience(False, 0.0)
    best = max(routes, key=lambda r: r.score)
    need = MIN_SCORE if min_score is None else min_score
    return replace(best, keep=best.score >= need)


_MAX_WORDS = 40
_CUT_EN = re.compile(r"\s*(?:[;:]|\s[-–—]\s|,\s+(?:which|but|and\s+(?:it|that))\b)")


def _shorten_en(text: str) -> str:
    """At most about ``_MAX_WORDS`` words, cut at a clause break when one is near."""
    words = text.split()
    if len(words) <= _MAX_WORDS:
        return text
    head = " ".join(words[:_MAX_WORDS])
    cuts = [m.start() for m in _CUT_EN.finditer(head) if m.start() > len(head) // 3]
    return head[: cuts[-1]] if cuts else head


_END_EN = re.compile(r"[\s,;:.!?…~\-–—(*\"]+$")


def _finish_en(clause: str, label: str | None) -> str:
    """A sentence from a kept statement: trimmed, capitalised, the date label, a full stop."""
    clause = _END_EN.sub("", " ".join(_EMOJI.sub("", clause).split()))
    clause = clause[:1].upper() + clause[1:]
    return f"{clause} ({label})." if label else f"{clause}."


_EMOJI = re.compile("[\U0001f300-\U0001faff\u2600-\u27bf\ufe0f]+")
_GOING = re.compile(r"^(?:gonna|going\s+to)\s+", re.IGNORECASE)


def _implied_subject(text: str, verb: str, name: str) -> str:
    v = verb.lower()
    if v == "been":
        return f"{name} has {text}"
    if v in ("gonna", "going to") or v.startswith("going "):
        return f"{name} is going to {_GOING.sub('', text)}"
    if v.endswith("ing"):
        return f"{name} is {text}"
    return f"{name} {text}"


# Said to the moment, not of the speaker's life: an imperative or a pointer at a photo ("Take a
# look how happy my dogs are", "Here's a pic from ...", "You should give it a try"), a remark on
# the listener's activity read as the speaker's ("Spotting birds while hiking must be great"),
# what the speaker would like or ought to do there and then ("I would love to take the dogs
# there", "I should do that someday too", "my dogs would love it"; "I need to find a better
# way to ..." can be a lasting aim and stays)
_MOMENT_EN = re.compile(
    r"^(?:(?:just\s+)?(?:take\s+a\s+look|look\s+at|check\s+(?:out|this|it))|here['’]?s|here\s+(?:is|are)"
    r"|you\b|just\s+(?:by|like|in\s+case)\b|(?:don['’]t|do\s+not)\s+let\s+me\s+forget\b"
    r"|(?:I|we)(?:\s+(?:really|definitely|totally|also|just))?(?:\s+(?:should|shold"
    r"|would\s+(?:really\s+|so\s+)?love\s+(?:to|it))|['’]d\s+(?:really\s+|so\s+)?love\s+(?:to|it))\b"
    r"|(?:I|we)(?:['’]ll|\s+will)\s+(?:\w+\s+){0,3}?(?:show|send|tell|give)\s+you\b|(?:I|we)['’]ll\s+ttyl"
    r"|just\s+(?:my|our)\s+[\w\s'-]{1,30}[.!~]*$"
    r"|(?:my|our)\s+(?:[\w-]+\s+){1,3}would\s+(?:really\s+|so\s+)?love\s+(?:it|that|this)\b)",
    re.IGNORECASE,
)
_REMARK_EN = re.compile(
    r"^\w+ing\b[^.!?;]{0,60}?\s(?:must\s+(?:be|have\s+been)|sounds?|sounded|seems?|looks?)\b",
    re.IGNORECASE,
)


def moment_only(raw: str, implied: str = "") -> bool:
    """Whether an English statement is said to the moment (see ``_MOMENT_EN``)."""
    return bool(_MOMENT_EN.match(raw) or (implied and _REMARK_EN.match(raw)))


def statement(s: Sentence, sal: Salience, ctx: NodeContext) -> Candidate | None:
    """The kept sentence as a third-person memory with resolved dates."""
    zh = s.lang == "zh"
    raw = s.text.replace("’", "'")[sal.start : sal.end]
    if not zh and moment_only(raw.lstrip(), sal.implied):
        return None
    t = next((t for t in s.times if t.start >= sal.start), None)
    lead = next((t for t in s.times if t.end <= sal.start), None)  # "Last week, I ..."
    if t is None and lead is not None:
        t, lead_only = lead, True
    else:
        lead_only = False
    if t is not None and not lead_only:
        a, b = t.start - sal.start, t.end - sal.start
        raw = f"{raw[:a].rstrip()} {raw[b:].lstrip()}".strip()
        raw = re.sub(r"\s+(?:on|in|at|during|from)\s*(?=[,.!?]|$)", "", raw)
    if zh:
        body = third_person_zh(raw, ctx.name("zh"))
        text = finish_zh(body, t.label("zh") if t else None)
    else:
        raw = _VOCATIVE_TAIL.sub("", _shorten_en(raw))
        if sal.implied:
            raw = raw[:1].lower() + raw[1:]
            body = third_person_en(_implied_subject(raw, sal.implied, ctx.speaker), ctx.speaker)
        elif sal.form == "photo":
            body = f"{ctx.speaker} shared a photo of {third_person_en(raw, ctx.speaker)}"
        else:
            body = third_person_en(raw, ctx.speaker)
        text = _finish_en(body, t.label() if t else None)
    key = re.sub(r"\W+", " ", text).strip().lower()
    if len(key) < 8 or not ctx.first("statement", key):
        return None
    attrs = {**(date_attrs(t) if t else {}), "salience": round(sal.score, 2)}
    future = (
        bool(_FUTURE_EN.search(s.text))
        if not zh
        else bool(re.search(r"要|会|打算|计划|准备", s.text))
    )
    if t is not None and (t.day > ctx.ref_day or future):
        attrs["planned"] = True
    dated = t is not None
    return ctx.candidate(
        "event" if dated else "note",
        text,
        "zh" if zh else "en",
        kind="event" if dated else None,
        event_time=ctx.epoch(t.day) if t else ctx.event_time,
        confidence=0.6,
        importance=min(0.4 + 0.03 * sal.score, 0.7),
        attrs=attrs,
    )


def elaboration(sentences: list[Sentence], ctx: NodeContext) -> Candidate | None:
    """An answer's most specific declarative sentence, third person ("Luna and Oliver! They
    are so sweet"): kept only to join the statement the question was about, never alone."""
    best: tuple[float, str] | None = None
    for s in sentences:
        text = _declarative(s) if s.lang == "en" else (None if s.question else s.text)
        if not text:
            continue
        text = _strip_lead(text) if s.lang == "en" else text
        if not text or (s.lang == "en" and _PHATIC_START_EN.match(text)):
            continue
        score = _score_en(text, s, 0) if s.lang == "en" else len(text) / 6
        if score >= 2 and (best is None or score > best[0]):
            best = (score, text)
    if best is None:
        return None
    zh = sentences[0].lang == "zh"
    body = third_person_zh(best[1], ctx.name("zh")) if zh else third_person_en(best[1], ctx.speaker)
    text = finish_zh(body) if zh else _finish_en(body, None)
    return ctx.candidate(
        "note",
        text,
        "zh" if zh else "en",
        confidence=0.5,
        importance=0.4,
        attrs={"elaborates": True},
    )
