"""Just enough grammar to restate first-person evidence in the third person, in both languages.

A memory reads "Caroline went to a support group (2023-05-07).", not "I went ...": whoever reads
it later (a user browsing facts, a model given recall) must know who it is about.

>>> third_person_en("I just got back from a road trip with my kids", "John")
'John just got back from a road trip with their kids'
>>> third_person_zh("我昨天去了我的学校", "张三")
'张三昨天去了张三的学校'
"""

from __future__ import annotations

import re

__all__ = [
    "ADVERBS",
    "IRREGULAR_PAST",
    "clean_phrase",
    "finish_en",
    "finish_zh",
    "group_of",
    "third_person_en",
    "third_person_zh",
]

ADVERBS = (
    r"just|also|really|finally|recently|actually|still|even|never|already|always|usually"
    r"|often|sometimes|totally|truly|definitely|absolutely|literally|honestly|personally"
    r"|mostly|kinda|sorta|probably|certainly|genuinely|seriously|once|officially|now|then"
    r"|first|only|almost|nearly|too|so|eventually|lately|currently|initially|originally"
    r"|happily|luckily|fortunately|unfortunately|gradually|slowly|quickly|simply|def|both|all"
    r"|again|recently|proudly|secretly|somehow|accidentally|briefly|barely|ultimately"
)
IRREGULAR_PAST = frozenset(
    "went got took made ran saw had did was were came gave found felt left met bought brought"
    " taught thought told said began won lost wrote built sent spent kept held sat stood heard"
    " paid fell drove flew ate drank swam sang knew grew threw chose broke spoke woke wore became"
    " forgot hid led meant caught fought sought slept swept rode rose shook stole struck tore"
    " understood wept dug hung lit lent bent bit blew bled dealt dreamt fed fled forgave froze"
    " laid leapt learnt lay overcame sank shot shrank sprang stuck stung swore been gone done"
    " seen taken given known shown begun drawn drew put set cut hit hurt let quit read spread"
    " cost burst shut split upset bet".split()
)
_UNCHANGED = frozenset(
    "can could will would should might must may shall can't won't couldn't wouldn't shouldn't"
    " didn't wasn't weren't did had was were and or but to with for in on at as the a an"
    " not ain't gotta gonna wanna".split()
)
_IRREGULAR_3RD = {
    # the stem of a contraction the verb pattern stopped at: "we don't" -> "the team doesn't"
    "don": "doesn",
    "haven": "hasn",
    "aren": "isn",
    "weren": "wasn",
    "can": "can",
    "won": "won",
    "didn": "didn",
    "couldn": "couldn",
    "wouldn": "wouldn",
    "shouldn": "shouldn",
    "mustn": "mustn",
    "am": "is",
    "have": "has",
    "do": "does",
    "don't": "doesn't",
    "go": "goes",
    "haven't": "hasn't",
    "are": "is",
    "aren't": "isn't",
    "be": "is",
    "wanna": "wants to",
    "gotta": "has to",
    "gonna": "is going to",
}

_SELF_EN = re.compile(
    r"\b(?:(?P<myand>[Mm]y\s+(?P<myx>[\w'-]+(?:\s+[\w'-]+)?)\s+and\s+I)\b(?!['’])"
    r"|(?P<ic>[Ii])['’](?P<isuf>m|ve|ll|d)\b"
    r"|(?P<wec>[Ww]e)['’](?P<wesuf>re|ve|ll|d)\b"
    rf"|(?P<i>[Ii])\b(?P<adv>(?:\s+(?:{ADVERBS})\b)*)(?:\s+(?P<verb>[a-z]+n't|[a-z]+)\b)?"
    rf"|(?P<we>[Ww]e)\b(?P<weadv>(?:\s+(?:{ADVERBS})\b)*)(?:\s+(?P<weverb>[a-z]+)\b)?"
    r"|(?P<my>[Mm]y|[Oo]ur)\b"
    r"|(?P<me>[Mm]e|[Uu]s)\b(?!-\w)"
    r"|(?P<myself>myself|ourselves)\b"
    r"|(?P<mine>mine|ours)\b)"
)
# present-tense verbs that end in "ed" ("I need" -> "needs", not a past tense)
_PRESENT_IN_ED = frozenset(
    "need feed bleed breed speed succeed proceed exceed seed heed weed embed shed wed".split()
)
# words after "we" that are not its verb ("we all", "we both")
_NOT_VERB_AFTER_WE = frozenset("all both each two three together too ourselves".split())
# "i" alone is a pronoun only as a word; avoid "I/O", "i.e.".
_NOT_PRONOUN_AFTER = ("/", ".")


def _third(verb: str) -> str:
    low = verb.lower()
    if low in _IRREGULAR_3RD:
        return _IRREGULAR_3RD[low]
    past = low.endswith("ed") and low not in _PRESENT_IN_ED
    if low in _UNCHANGED or low in IRREGULAR_PAST or past or low.endswith("n't"):
        return verb
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if low.endswith("y") and len(low) > 2 and low[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def third_person_en(text: str, name: str, group: str | None = None) -> str:
    """Restate a first-person clause about ``name`` (the first mention names them, later ones
    use they/them/their). ``group`` names "we" when it is one body ("the team is ..."); by
    default the clause tells who "we" is (``name`` and their family, friends or team), else
    ``name`` and others."""
    named = False  # the speaker was named once (their later mentions are they/them/their)
    subject = False  # ... as a subject: a later "me" may be "them" ("I asked her to call me")
    singular = group is not None
    if group is None:
        group, singular = group_of(text, name)

    def sub(m: re.Match[str]) -> str:
        nonlocal named, subject
        end = m.end("i") if m.group("i") else m.end()
        if end < len(text) and text[end] in _NOT_PRONOUN_AFTER and m.group("i"):
            return m.group()
        if m.group("myand"):
            named = subject = True
            return f"{name} and their {m.group('myx')}"
        if m.group("ic"):
            named = subject = True
            suf = m.group("isuf")
            return name + {"m": " is", "ve": " has", "ll": " will", "d": " would"}[suf]
        if m.group("wec"):
            named = True
            suf = m.group("wesuf")
            forms = {"re": " is", "ve": " has"} if singular else {"re": " are", "ve": " have"}
            return group + {**forms, "ll": " will", "d": " would"}[suf]
        if m.group("i"):
            named = subject = True
            verb = m.group("verb")
            return name + (m.group("adv") or "") + (" " + _third(verb) if verb else "")
        if m.group("we"):
            first = not named
            named = True
            who = group if first else "they"
            verb = m.group("weverb")
            if verb and singular and first and verb not in _NOT_VERB_AFTER_WE:
                verb = _third(verb)  # "we deploy" -> "the team deploys"
            return who + (m.group("weadv") or "") + (" " + verb if verb else "")
        if m.group("my"):
            first = not named
            named = True
            return f"{name}'s" if first else "their"
        if m.group("me"):
            # Only a subject before makes "me" "them": after a possessive alone ("My company
            # is moving me") "them" would point at the company.
            first = not subject
            named = subject = True
            if text[: m.start()].endswith("be ") and not first:
                return "themselves"  # "I can be me" - "Caroline can be themselves"
            return name if first else "them"
        if m.group("myself"):
            return "themselves"
        return f"{name}'s"

    return _GONNA.sub("going to", _SELF_EN.sub(sub, text))


_GONNA = re.compile(r"\bgonna\b")
_FAMILY = re.compile(
    r"\b(?:kids?|children|child|son|sons|daughters?|husband|hubby|wife|partner|fam|family"
    r"|mom|mum|dad|parents|baby|babies|sister|brother|siblings|grandkids|twins|pups?|puppy"
    # a pet is one of the family's ("our dog"), not "plain cat" (the command)
    r"|kitty|kitten|(?:my|our|the)\s+(?:cats?|dogs?|pets?)|house|home|vacation|camping)\b",
    re.IGNORECASE,
)
_OUR_GROUP = re.compile(
    r"\b(?i:our)\s+(?:own\s+|little\s+|local\s+|support\s+|activist\s+)?(?P<g>(?i:group|community"
    r"|class|church|choir|circle|collective|club|band|team))\b"
)
_FRIENDS = re.compile(
    r"\b(?:friends?|buddies|buddy|pals?|gang|besties?|roommates?)\b", re.IGNORECASE
)
_TEAM = re.compile(
    r"\b(?:team|coworkers?|colleagues?|crew|company|startup|staff|employees"
    r"|office|project|repo|codebase|service|app|deploy\w*|release|studio|students"
    r"|business|biz|store|shop|customers|clients|volunteers|organi[sz]ation"
    r"|charity|members|band|club)\b",
    re.IGNORECASE,
)


_WITH_OWN = re.compile(
    r"\bwe\b[^.!?]*\bwith\s+(?:my|the)\s+(?:fam|family|kids|children|husband|wife|partner"
    r"|friends|parents|mom|dad|sister|brother)\b",
    re.IGNORECASE,
)


def group_of(text: str, name: str) -> tuple[str, bool]:
    """Who "we" is, as the clause itself tells: family ("we took the kids camping"), friends,
    a team (a user talking about work); ``(words, singular)``."""
    if _WITH_OWN.search(text):  # "we went camping with my fam": the speaker went, with them
        return name, True
    group = _OUR_GROUP.search(text)
    if group is not None and name != "the user":  # "Our group ... We have regular meetings"
        return f"{name}'s {group.group('g').lower()}", True
    if _FAMILY.search(text):
        return f"{name} and their family", False
    if _FRIENDS.search(text):
        return f"{name} and their friends", False
    if name == "the user" or _TEAM.search(text):
        return f"{name}'s team", True
    return f"{name} and others", False


_SELF_ZH = re.compile(r"我们|咱们|我的|(?<!自)我")  # 自我介绍 is no 我
_KIN_ZH = re.compile(
    r"儿子|女儿|老婆|老公|妻子|丈夫|爱人|爸爸|妈妈|爸妈|父母|父亲|母亲|孩子|哥哥|姐姐|弟弟|妹妹|家人"
    r"|朋友|同事|领导|老板|上司|男朋友|女朋友|对象"
)


def third_person_zh(text: str, name: str) -> str:
    """Replace 我 / 我们 / 我的 with the speaker's name (我们 → 「<name>他们」, or 团队 for an
    unnamed user)."""

    def sub(m: re.Match[str]) -> str:
        word = m.group()
        if word in ("我们", "咱们"):
            # an unnamed user at work speaks for the team ("我们要跟 CDN 厂商开会")
            return "团队" if name == "用户" else f"{name}他们"
        if word == "我的" or (word == "我" and _KIN_ZH.match(text, m.end())):
            return f"{name}的"  # "我儿子" is "我的儿子"
        return name

    return _SELF_ZH.sub(sub, text)


_TRAIL_EN = re.compile(
    r"[\s,;:.!?…~\-–—(*]+$|\s+(?:and|but|or|so|too|as\s+well|though"
    r"|lol|haha|tho|(?:right\s+)?(?<!for\s)now|then|anyway|btw)$"
    # a closing clause addressed to the listener is not part of what is said of the speaker:
    # "..., take a look", "... - check it out", "..., you know", "... - let's make it happen"
    r"|\s*[,;:\-–—]\s*(?:take\s+a\s+look|have\s+a\s+look|check\s+(?:it|this|them)\s+out"
    r"|you\s+know|right|let'?s\s+[^,;:.!?]{1,40})$",
    re.IGNORECASE,
)
_LEAD_EN = re.compile(
    r"^[\s,;:.!?…~\-–—(]+|^(?:and|but|so|also|oh|well|yeah|yes|btw|plus)\b"
    r"[\s,]*",
    re.IGNORECASE,
)
_EMOJI = re.compile("[\U0001f300-\U0001faff\u2600-\u27bf\ufe0f]+")


def clean_phrase(text: str) -> str:
    """Trim punctuation, emoji and dangling conjunctions from the ends of a captured phrase."""
    text = _EMOJI.sub("", text)
    text = " ".join(text.split())
    for _ in range(3):
        new = _LEAD_EN.sub("", _TRAIL_EN.sub("", text))
        if new and _unbalanced(new, -1):
            new = new[:-1].rstrip()
        if new and _unbalanced(new, 0):
            new = new[1:].lstrip()
        if new == text:
            break
        text = new
    return text


_CLOSE_OF = {'"': '"', "'": "'", "“": "”", "‘": "’"}
_OPEN_OF = {'"': '"', "'": "'", "”": "“", "’": "‘"}


def _unbalanced(text: str, at: int) -> bool:
    """Whether the quote at ``text[at]`` (first or last character) has no partner."""
    q = text[at]
    partner = (_OPEN_OF if at == -1 else _CLOSE_OF).get(q)
    if partner is None:
        return False
    if partner == q:
        return text.count(q) % 2 == 1
    return partner not in text


def finish_en(clause: str, label: str | None = None) -> str:
    """``clause`` as a sentence: first letter capitalised, the date label, a full stop."""
    clause = clean_phrase(clause)
    if clause:
        clause = clause[0].upper() + clause[1:]
    return f"{clause} ({label})." if label else f"{clause}."


_TRAIL_ZH = re.compile(r"[\s，,。.！!？?；;：:、~…\-—]+$")
_LEAD_ZH = re.compile(
    # "还有个事，……": what announces the next thing is not part of it
    r"^(?:(?:还有|另外|对了)(?:一)?)?(?:个|件)事儿?[，,：:]\s*"
    r"|^[\s，,。.！!？?；;：:、~…]+|^(?:然后|而且|所以|但是|不过|另外|对了|嗯|哦|啊)[，,]?"
)


# not inside a word a single letter leads ("B帧", "C端", "A股")
_CJK_LATIN = re.compile(r"([\u4e00-\u9fff])([A-Za-z])|(?<=[A-Za-z])([A-Za-z])([\u4e00-\u9fff])")


def _space(m: re.Match[str]) -> str:
    return f"{m.group(1)} {m.group(2)}" if m.group(1) else f"{m.group(3)} {m.group(4)}"


def finish_zh(clause: str, label: str | None = None) -> str:
    """A Chinese sentence: trimmed, a space between Han and Latin ("喜欢 TypeScript"), the date
    label in full-width brackets, a 。."""
    clause = _CJK_LATIN.sub(_space, _EMOJI.sub("", clause))
    clause = _LEAD_ZH.sub("", _TRAIL_ZH.sub("", clause.strip()))
    clause = _LEAD_ZH.sub("", clause)
    return f"{clause}（{label}）。" if label else f"{clause}。"


# "Bit of news: ...", "Setup details: ...", "People you'll hear about: ...": a label before what
# is said
_LABEL_LEAD_EN = re.compile(
    r"^(?:(?:a\s+)?(?:bit\s+of|some|quick|good|bad|big|small|personal|little|one\s+more|another"
    r"|other(?:\s+big)?)\s+)?"
    r"(?:news|update|context|details?|background|heads[\s-]up|fyi|setup(?:\s+details)?|env(?:ironment)?"
    r"(?:\s+details)?|people\s+you['’]ll\s+(?:hear\s+about|meet|work\s+with)|people\s+on\s+the\s+team"
    r"|the\s+people|plan\s+for\s+(?:this|the|next)\s+\w+|some\s+stuff\s+that\s+happened)\s*:\s+(?=\S)"
    # "agency stuff today, but let me give you the background since it'll come up: ..."
    r"|^[^:]{0,80}?\blet\s+me\s+(?:give|tell|fill)\s+you\b[^:]{0,60}:\s+(?=\S)"
    # "toolchain so you don't guess: ...", "quick intro so you have context: ...": a lead-in
    # said to the listener, no value in it
    r"|^[^:\d]{0,40}\b(?:so|in\s+case|before)\s+you\b[^:\d]{0,40}:\s+(?=\S)",
    re.IGNORECASE,
)


# where a sentence starts to ask: a question mark or particle, "帮我 …", "can you …"
_ASK = re.compile(r"[?？吗呢]|帮我|请你|有没有|是不是|是否|\b(?i:can|could|would)\s+you\b")


def stated_before_ask(text: str) -> str:
    """The clauses a sentence states before it asks something ("AGP 我们升级了，现在是
    8.4.1，帮我看看 build" → "AGP 我们升级了，现在是 8.4.1"); "" when it asks from its first
    clause or asks nothing.

    >>> stated_before_ask("编译器现在统一是 GCC 12，先帮我 build 一把看看有没有 warning")
    '编译器现在统一是 GCC 12'
    >>> stated_before_ask("we bumped Node to 22.4, can you check the build?")
    'we bumped Node to 22.4'
    >>> stated_before_ask("现在是 8.4.1 吗")
    ''
    """
    ask = _ASK.search(text)
    head = text[: ask.start()] if ask else ""
    cut = max(head.rfind(c) for c in "，,;；")
    return head[:cut].rstrip() if cut > 0 else ""


# "fwiw we're on Vulkan SDK 1.3.280": an aside that opens what is said
_ASIDE_LEAD_EN = re.compile(
    r"(?i)^(?:fwiw|btw|fyi|iirc|afaik|imo|tbh|ok(?:ay)?|so|also)[,\s]+(?=\w)"
)


def strip_label_en(text: str) -> str:
    """``text`` without a label that only announces what follows ("Bit of news: ...", "fwiw")."""
    return _ASIDE_LEAD_EN.sub("", _LABEL_LEAD_EN.sub("", text))
