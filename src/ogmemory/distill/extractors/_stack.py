"""Technical choices in all their ordinary phrasings, English here and Chinese in ``_stack_zh``,
with specific slots.

"Let's use MySQL for the database", "For caching, we'll go with Redis", "Actually, let's switch
from MySQL to PostgreSQL", "We decided to go with Jetpack Compose instead of XML layouts", "The
app is written in Kotlin", "please don't use Redux", "状态管理用 Zustand", "调度我们换成 Dagster
了", "以后都用 TypeScript 写", "我们最近转向 C 端了".

The slot is the specific attribute a choice fills, so unrelated choices never end each other:
the purpose the speaker names ("for caching" → ``cache``, "状态管理" → ``state_management``),
else the tool's usual role from the catalog (PostgreSQL → ``database``), else none (an unknown
tool is not one-at-a-time). Choices are made for the team: in a session bound to a project
they belong to the project (``collective``).
The purpose and the tool a sentence names are read by ``_purpose``.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ..types import Candidate, EntityRef, Fact
from ._approach import approach_for, topic_before
from ._catalog import lookup
from ._choice import FOR_PURPOSE as _FOR
from ._choice import add_choice as _add
from ._choice import choice as _choice
from ._choice import who_chose as _who
from ._common import NodeContext, Sentence, content_text, gate, tool_ref
from ._grammar import finish_en, third_person_en
from ._purpose import tool_at
from ._stack_switch import moves_en, switches_en

__all__ = ["stack_en"]

# the groups a user speaks for when a choice is made ("the institute is standardizing on X")
_GROUP = r"team|institute|company|org|organi[sz]ation|lab|department|group|studio"
_LEAD = (
    r"(?:(?i:actually|ok(?:ay)?|so|then|and|also|just|alright|yeah)[,\s]+)*"
    r"(?P<lead>(?i:let['’]?s|let\s+us|we['’]ll|we\s+will|we\s+should|we['’]re\s+going\s+to"
    r"|we\s+are\s+going\s+to|we\s+(?:have\s+)?(?:decided|chose|agreed|opted)\s+to|i['’]ll"
    r"|i\s+(?:have\s+)?(?:decided|chose|want)\s+to|i['’]d\s+like\s+to|we\s+want\s+to"
    r"|please|we(?:['’]re|\s+are)?\s+(?:now\s+)?"
    # "Hanne decided the institute is standardizing on Snakemake": the group the user is in
    rf"|(?:the|our)\s+(?:{_GROUP})(?:['’]s|\s+is|\s+are|\s+will)?\s+)\s*)?"
)
_VERB = (
    r"(?P<verb>(?i:use|go\s+with|stick\s+with|pick|choose|adopt|standardi[sz]e\s+on"
    r"|settle\s+on|rely\s+on|lean\s+on|keep|using|going\s+with|standardi[sz]ing\s+on))"
)
_CHOICE = re.compile(
    rf"(?:^|[,;:]\s*|\b(?i:and|so|then|actually)\s+|\b(?=(?i:we['’]re|we\s+are|let['’]?s|we['’]ll)\s)"
    rf"|\b(?=(?i:the|our)\s+(?i:{_GROUP})\s)"
    rf"){_LEAD}{_VERB}\s+"
    r"(?P<y>(?:(?!\s+and\s+(?:use|go\s+with|stick\s+with|pick|choose|adopt|keep)\b)"
    r"(?:[^,;.!?]|\.(?=\w)))+)"
)
_WHEREVER = re.compile(
    r"(?i)\s*(?:wherever|whenever|where)\s+(?:you\s+can|possible|it\s+makes\s+sense)"
    r"|\s*(?:instead|from\s+now\s+on|going\s+forward)\b"
)
_EVERYWHERE = re.compile(
    r"(?i)\bfor\s+(?:everything|all\s+of\s+(?:it|them)|every\s+\w+)\b|\beverywhere\b"
    r"|\bacross\s+the\s+board\b"
)
_GOES_ON = re.compile(r"(?i)\s*and\s+(?:going\s+with|using|switching\s+to|moving\s+to)\b")
_WE_ARE = re.compile(r"(?i)\bwe(?:['’]re|\s+are)\s+\w+ing\b")
_FOR_FIRST = re.compile(
    rf"^(?:(?i:and|also|actually|ok|so)[,\s]+)?(?i:for)\s+(?P<purpose>[\w\s-]{{2,30}}?),?\s+"
    rf"{_LEAD}{_VERB}\s+(?P<y>(?:[^,;.!?]|\.(?=\w))+)"
)
_WHOLE = re.compile(
    r"(?i)^(?:this|that|the|our)\s+(?:codebase|repo|repository|project|service|app|team|monorepo)$"
)
_AS_THE = re.compile(r"\s+(?i:as)\s+(?P<purpose>(?i:the|our)\s+[\w-]+(?:\s+[\w-]+)?)")
_RATHER = re.compile(
    r"\b(?:I|we)(?:(?:['’]d|\s+would)\s+(?:much\s+)?rather\s+(?:use\s+|go\s+with\s+|have\s+)?"
    # "I'm much happier with Hydra configs than with argparse flags"
    r"|(?:['’]m|['’]re|\s+am|\s+are)\s+(?:much\s+|a\s+lot\s+|way\s+|far\s+)?(?:happier"
    r"|more\s+comfortable|more\s+productive)\s+(?:with|using|in)\s+)"
    r"(?P<y>(?:[^,;.!?]|\.(?=\w))+?)\s+than\s+(?:use\s+|with\s+|using\s+)?"
    r"(?P<x>(?:[^,;.!?]|\.(?=\w))+)"
)
_WRITTEN_IN = re.compile(
    r"\b(?P<subj>(?i:the|our)\s+[\w-]+(?:\s+[\w-]+)?|(?i:it))(?:\s+(?i:is|was)|'s)\s+(?:now\s+)?"
    r"(?i:written|built|implemented|developed|done)\s+(?i:in|with|on\s+top\s+of|on|using)\s+"
    r"(?P<y>(?:[^,;.!?]|\.(?=\w))+?)"
    r"(?:\s+(?i:with|and|on\s+top\s+of)\s+(?P<z>(?:[^,;.!?]|\.(?=\w))+))?(?=[,;!?]|\.(?!\w)|$)"
)
_REWROTE = re.compile(
    r"\b(?i:we|i)\s+(?:(?i:just|completely|finally)\s+)?(?i:rewrote|re-wrote|rewrite|ported)\s+"
    r"(?P<subj>(?i:the|our)\s+[\w-]+|it|everything)\s+(?i:in|to|into)\s+"
    r"(?P<y>(?:[^,;.!?]|\.(?=\w))+)"
)
_RETIRED = re.compile(
    r"\b(?i:the)\s+(?P<x>[A-Z][\w.+#-]*)\s+(?i:version|one|code)\s+"
    r"(?i:is|was)\s+(?i:retired|gone|dead|deprecated|dropped)"
)
_AVOID = re.compile(
    r"(?:^|[,;.]\s*|\b(?i:and|also|please)\s+)(?:(?i:please)\s+)?(?i:don['’]?t|do\s+not|never"
    r"|avoid|no\s+more|stop)\s+(?:(?i:ever|again)\s+)?(?:(?i:use|using|add|adding|pull\s+in"
    r"|introduce|bring\s+in)\s+)?(?P<x>(?:[^,;.!?]|\.(?=\w))+)"
    r"(?:[,;:-]+\s*(?P<why>[^.!?]{3,80}))?"
)
# "We don't use TensorFlow anywhere anymore", "we're not using Vuex", "I never use Docker
# Desktop": a plain statement of what is not in use (it ends "we use X" when it says so)
_NOT_USING = re.compile(
    r"\b(?P<who>(?i:we|i))(?:\s+(?i:really|just|simply|also|currently|honestly|still))?\s*"
    r"(?P<neg>(?i:don['’]?t|do\s+not|never|no\s+longer|aren['’]t|are\s+not|['’]re\s+not"
    r"|am\s+not|['’]m\s+not|won['’]t\s+be|will\s+not\s+be|(?:['’]ve\s+|have\s+)?(?:stopped|quit)"
    r"))\s+(?:(?i:ever|even|really)\s+)?"
    r"(?i:use|using|need|rely\s+on|relying\s+on|pay\s+for|paying\s+for)\s+"
    r"(?P<x>(?:[^,;.!?]|\.(?=\w))+)"
)
_ANYMORE = re.compile(r"(?i)\b(?:anymore|any\s+more|any\s+longer|no\s+longer)\b")
_EXCLUDED = re.compile(
    r"\s+(?i:instead\s+of|rather\s+than|over|not)\s+"
    r"(?P<x>(?:[^,;.!?]|\.(?=\w))+)"
    r"|,\s*(?i:not)\s+(?P<x2>(?:[^,;.!?]|\.(?=\w))+)"
)
# "instead of staying on Vue 2": the tool, not the staying
_STAYING = re.compile(
    r"^(?i:(?:staying|sticking|remaining|continuing)\s+(?:on|with)|keeping|using|going\s+with)\s+"
)
_NAMED_BEFORE = re.compile(
    r"\b(?:[Tt]he|[Oo]ur)\s+(?:[\w-]+\s+){0,2}?(?:project|app|service|api|backend|frontend"
    r"|pipeline|model|site|website|tool|library|system|platform|engine|bot|dashboard)\b"
)

# "From now on CI runs on GitHub Actions", "Going forward, the docs live in Notion", "Deploys
# now go through Argo CD": what a named part of the work runs on from here on
_FROM_NOW = re.compile(
    r"(?i:from\s+now\s+on|going\s+forward|starting\s+(?:today|now|this\s+week)|as\s+of"
    r"\s+(?:today|now))[,\s]+(?P<p>(?i:the\s+|our\s+)?[\w-]+(?:\s+[\w-]+)?)\s+(?:(?i:will)\s+)?"
    r"(?i:runs?|lives?|goes|go|happens?|uses?|is|are)\s+(?:(?i:on|in|through|with|via)\s+)?"
    r"(?P<y>[A-Z][^,;!?]*)"
    r"|(?P<p2>(?i:the\s+|our\s+)?[\w-]+(?:\s+[\w-]+)?)\s+(?i:now)\s+(?i:runs|lives|happens|goes)"
    r"\s+(?i:on|in|through|via)\s+(?P<y2>[A-Z][^,;!?]*)"
    # "now everything goes through GitHub Actions"
    r"|\b(?i:now)\s+(?P<p3>(?i:everything|all\s+[\w-]+(?:\s+[\w-]+)?))\s+(?i:runs|lives|happens|goes"
    r"|go|run|live)\s+(?i:on|in|through|via)\s+(?P<y3>[A-Z][^,;!?]*)"
)
# what the same message says was left behind: "We've outgrown Jenkins; from now on ..."
_LEFT = re.compile(
    r"(?i:outgrown|outgrew|ditched|dropped|abandoned|retired|got\s+rid\s+of|done\s+with"
    r"|moved\s+off(?:\s+of)?|moving\s+off(?:\s+of)?|leaving"
    r"|used\s+to\s+\w+(?:\s+\w+)?\s+(?:with|on|through|via|in|using))\s+(?P<x>[A-Z][\w.+#-]*"
    r"(?:\s+[A-Z][\w.+#-]*)?)"
)


# "Redis is our session store", "Postgres is the main database": a known tool in a named role
_IS_OUR = re.compile(
    r"(?:^|[,;]\s*|\b(?i:and|but|while)\s+)(?P<y>[A-Z][\w.+#-]*(?:\s+[A-Z][\w.+#-]*)?)\s+"
    r"(?i:is|are)\s+(?:(?i:still|now|currently)\s+)?(?i:our|the\s+team's|the)\s+"
    r"(?:(?i:main|primary|only|default|current)\s+)?(?P<p>(?!(?:best|worst|greatest|one|way"
    r"|answer|future|winner|key|reason|problem)\b)[a-z][\w-]*(?:\s+[a-z][\w-]*)?)"
    r"(?=\s*(?:[,;.!?]|$|\s+(?:and|but|for|now)\b))"
)


def _is_our_en(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    for m in _IS_OUR.finditer(s.text):
        y = tool_at(m.group("y"))
        if y and lookup(y):
            text = finish_en(f"{y} is the team's {m.group('p')}")
            _add(out, _choice(ctx, s, y, purpose=m.group("p"), text=text))


def _from_now_en(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    for m in _FROM_NOW.finditer(s.text):
        y = tool_at(m.group("y") or m.group("y2") or m.group("y3"))
        purpose = m.group("p") or m.group("p2") or m.group("p3")
        if re.match(r"(?i)everything$", purpose):
            purpose = None  # "now everything goes through Y": the tool's own kind
        elif re.match(r"(?i)all\s", purpose):
            purpose = purpose.split(None, 1)[1]
        if not y or (purpose and re.match(r"(?i)(?:we|i|it|this|that|they|you)$", purpose)):
            continue
        left = _LEFT.search(content_text(ctx.record.node.content))
        x = tool_at(left.group("x")) if left else None
        _add(out, _choice(ctx, s, y, x=x, switch=bool(x), purpose=purpose))


def _standing_thing(said: str) -> str | None:
    """What "use X wherever you can" names when X is no catalogued tool: up to three words
    before the "wherever you can" ("async/await")."""
    for w in _WHEREVER.finditer(said):
        head = said[: w.start()].strip()
        if head and len(head.split()) <= 3 and not re.search(r"(?i)\b(?:it|this|that|them)$", head):
            return head
    return None


def _choices_en(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    switches_en(s, ctx, out)
    moves_en(s, ctx, out)
    for rx in (_FOR_FIRST, _CHOICE):
        for m in rx.finditer(s.text):
            # "we're scrapping it and going with Soda instead": the "we're" goes on
            goes_on = rx is _CHOICE and _GOES_ON.match(s.text, m.start()) is not None
            goes_on = goes_on and _WE_ARE.search(s.text[: m.start()]) is not None
            if (
                rx is _CHOICE
                and not goes_on
                and not m.group("lead")
                and m.start() > 0
                and not re.match(r"^[,;:]", s.text[m.start() :])
                and not (out and re.match(r"(?i)\s*and\b", s.text[m.start() :]))
            ):
                continue  # only a clause of its own, or "..., and use Y" after a choice
            y = tool_at(m.group("y")) or _standing_thing(m.group("y"))
            if not y and _EVERYWHERE.search(m.group("y")):  # "we use kustomize overlays for
                y = tool_at(m.group("y"), loose=True)  # everything": a tool, used throughout
            topic = None
            if not y:  # "for regridding we're going with bilinear": an approach for a topic
                topic = m.groupdict().get("purpose") or topic_before(s, ctx, m.start())
                y = (
                    approach_for(m.group("y"), topic, ctx)
                    if not _WHOLE.match(topic or "")
                    else None
                )
                if not y:
                    continue
            rest = s.text[m.start("y") :]  # "Use Next.js, not Remix": past the comma
            ex = _EXCLUDED.search(rest)
            fm = _FOR.search(rest)
            room = 30 if fm is not None and fm.start() <= len(y) + 5 else 12
            if ex is not None and ex.start() > len(y) + room:
                ex = None  # "Nuxt 3 for the rewrite instead of Vue 2": past what it is for
            purpose = m.groupdict().get("purpose")
            if purpose and _WHOLE.match(purpose):
                purpose = ""  # "For this codebase we use Node 20": where, not what for
            purpose = topic if topic and not purpose else purpose
            if purpose is None:  # "use X for the database", "use X as the warehouse"
                fm = _FOR.search(rest) or _AS_THE.search(rest)
                purpose = fm.group("purpose") if fm and fm.start() < len(y) + 3 else None
            x = tool_at(_STAYING.sub("", ex.group("x") or ex.group("x2"))) if ex else None
            # "use async/await wherever you can": a standing choice, whatever the tool is
            standing = _WHEREVER.match(rest[len(y) :]) is not None if rest.startswith(y) else False
            if not (lookup(y) or purpose or x or m.group("lead") or goes_on or standing):
                continue
            c = _choice(ctx, s, y, x=x, purpose=purpose)
            if c is not None:
                out.append(c)
    _written_in_en(s, ctx, out)
    for m in _REWROTE.finditer(s.text):
        y = tool_at(m.group("y"))
        old = _RETIRED.search(s.text)
        if y:
            who, _ = _who(ctx, s)
            what = m.group("subj")
            what = "it" if what.lower() == "it" else "the " + what.split(None, 1)[-1]
            c = _choice(
                ctx,
                s,
                y,
                x=old.group("x") if old else None,
                switch=True,
                text=finish_en(f"{who} rewrote {what} in {y}{_date_label(s)}"),
            )
            if c is not None:
                out.append(c)


def _written_in_en(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    """ "The app is written in Kotlin", "it's built on PyTorch": what a thing is made with."""
    for m in _WRITTEN_IN.finditer(s.text):
        y = tool_at(m.group("y"))
        z = tool_at(m.group("z")) if m.group("z") else None
        if not y:
            continue
        said = s.text[m.start() : m.end()]
        if m.group("subj").lower() == "it" and m.start() > 0:
            # "We kicked off the ranking project in March, it's built on PyTorch": "it" is
            # the thing named before; with none, the clause says nothing on its own
            named = _NAMED_BEFORE.findall(s.text[: m.start()])
            if not named:
                continue
            rest = said[2:]
            said = named[-1] + (" is" + rest[2:] if rest.startswith("'s") else rest)
        body = third_person_en(said, ctx.speaker)
        c = _choice(ctx, s, y, text=finish_en(body[:1].upper() + body[1:]))
        if c is None:
            continue
        if z and ctx.first("uses", z):
            obj, slot = tool_ref(z)
            subj = m.group("subj")
            subj = subj[:1].upper() + subj[1:]
            c = replace(
                c,
                more=(
                    Fact(
                        "uses",
                        obj,
                        slot=None if slot == "tool" else slot,
                        text=finish_en(f"{subj} uses {obj.name}"),
                    ),
                ),
            )
        # what a thing is built with is a fact, not a dated decision: the sentence's events
        # ("we kicked off the project in March") are still read
        plain = {k: v for k, v in c.attrs.items() if k == "purpose"}
        out.append(
            replace(
                c, type="tool", kind=None, event_time=ctx.event_time, valid_from=None, attrs=plain
            )
        )


def _date_label(s: Sentence) -> str:
    return f" ({s.times[0].label()})" if s.times else ""


def _rather_en(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    """ "I'd rather use pytest fixtures than unittest setUp methods": a preference."""
    for m in _RATHER.finditer(s.text):
        y, x = m.group("y").strip(), m.group("x").strip()
        if not y or not x or not ctx.first("pref", f"prefers:{y}"):
            continue
        text = finish_en(f"{ctx.speaker} prefers {y} over {x}")
        out.append(
            ctx.candidate(
                "preference",
                text[:1].upper() + text[1:],
                "en",
                relation="prefers",
                object=tool_ref(y)[0] if lookup(y) else EntityRef(y, "preference"),
                confidence=0.8,
                importance=0.75,
                attrs={"verb": "rather", "over": x},
            )
        )


def avoided(
    ctx: NodeContext, text: str, lang: str, obj: EntityRef, team: bool, importance: float = 0.8
) -> Candidate:
    """A decision against a tool (``avoids``): "please don't use Redux", "we don't use Helm"."""
    return ctx.candidate(
        "decision",
        text,
        lang,
        relation="avoids",
        object=obj,
        kind="decision",
        confidence=0.8,
        importance=importance,
        attrs={"negated": True},
        collective=team,
    )


def _avoid_en(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    for m in _AVOID.finditer(s.text):
        x = tool_at(m.group("x"))
        if not x or not (lookup(x) or x[:1].isupper()) or not ctx.first("avoids", x):
            continue
        obj = tool_ref(x)[0]
        who, team = _who(ctx, s)
        why = (m.group("why") or "").strip()
        why = re.sub(r"^(?:it['’]s|its|they['’]re)\s+", "", why, flags=re.IGNORECASE)
        why = re.sub(r"\s+for\s+(?:us|me)$", "", why, flags=re.IGNORECASE)
        text = f"{who} decided not to use {obj.name}" + (f" ({why})" if why else "")
        out.append(avoided(ctx, finish_en(third_person_en(text, "the team")), "en", obj, team))


def _not_using_en(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    for m in _NOT_USING.finditer(s.text):
        x = tool_at(m.group("x"))
        if not x or not (lookup(x) or x[:1].isupper()) or not ctx.first("avoids", x):
            continue
        obj = tool_ref(x)[0]
        who, team = _who(ctx, s)
        ended = (
            bool(_ANYMORE.search(s.text)) or "stop" in m.group("neg") or "quit" in m.group("neg")
        )
        verb = "no longer uses" if ended else "does not use"
        out.append(avoided(ctx, finish_en(f"{who} {verb} {obj.name}"), "en", obj, team, 0.75))


# "I can't stand GORM. ... generate the code with sqlc, please": what is asked for instead of a
# tool the same message turns down
_DISLIKED = re.compile(
    r"(?i)\b(?:can['’]?t\s+stand|hate|dislike|detest|loathe|don['’]t\s+(?:like|want)"
    r"|(?:am|['’]m)\s+not\s+a\s+fan\s+of|no\s+more)\s+(?P<x>[A-Za-z][\w.+#-]*)"
)
_ASKED_WITH = re.compile(
    r"^(?:(?:ok(?:ay)?|so|and|also|then|instead|rather)[,\s]+)*(?:please\s+)?"
    r"(?!(?:i|we|you|he|she|they|it|this|that|there|the|a|an|my|our)\b)[a-z]+\s+[^.;!?]{0,60}?"
    r"\b(?:with|using|via|through|in)\s+(?P<y>[A-Za-z][\w.+#-]*(?:\s+[A-Z][\w.+#-]*)?)",
    re.IGNORECASE,
)


def _instead_en(s: Sentence, ctx: NodeContext, out: list[Candidate]) -> None:
    said = content_text(ctx.record.node.content)
    turned = _DISLIKED.search(said[: max(said.find(s.text), 0)])
    m = _ASKED_WITH.match(s.text.strip()) if turned else None
    if turned is None or m is None:
        return
    y, x = tool_at(m.group("y")), tool_at(turned.group("x"))
    if y and x and lookup(y) and y.lower() != x.lower():
        _add(out, _choice(ctx, s, y, x=x))


def stack_en(s: Sentence, ctx: NodeContext) -> list[Candidate]:
    """Technical choices, switches and refusals in one English sentence."""
    out: list[Candidate] = []
    if s.question or s.hypothetical or not ctx.personal:
        return out
    if s.has(_CHOICE_GATE):
        _choices_en(s, ctx, out)
    if not out and s.has(_WITH_GATE):
        _instead_en(s, ctx, out)
    if s.has(_FROM_NOW_GATE) or (s.has(_NOW_GATE) and s.has(_RUNS_GATE)):
        _from_now_en(s, ctx, out)
    if s.has(_IS_OUR_GATE):
        _is_our_en(s, ctx, out)
    if s.has(_AVOID_GATE):
        _avoid_en(s, ctx, out)
    if s.has(_NOT_USING_GATE):
        _not_using_en(s, ctx, out)
    if s.has(_RATHER_GATE):
        _rather_en(s, ctx, out)
    return out


_CHOICE_GATE = gate(
    "use using go going stick pick choose adopt standardize standardise standardizing standardising"
    " settle rely keep switch"
    " switched switching move moved moving migrate migrated migrating change changed changing"
    " port ported porting written built implemented developed done rewrote rewrite re replace"
    " replaced replacing swap swapped swapping dropped ditched retired abandoned dumped favour"
    " favor off dropping ditching retiring abandoning dumping drop ditch retire lean out rip"
    " ripping ripped tearing tore pulling pulled"
)
_FROM_NOW_GATE = gate("forward starting")
_WITH_GATE = gate("with using via through in")
_NOW_GATE = gate("now")
_RUNS_GATE = gate("run runs live lives happen happens go goes use uses is are")
_IS_OUR_GATE = gate("our main primary default")
_AVOID_GATE = gate("don dont do never avoid no stop")
_NOT_USING_GATE = gate("not never longer don dont aren won stopped quit")
_RATHER_GATE = gate("rather happier comfortable productive")
