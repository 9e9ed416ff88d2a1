"""Views: what a speaker believes or finds, kept when asked for and joined per session.

A general belief ("Working together is key") or what someone finds rewarding is a view, not
news. Said in answer to a question it is worth a memory; said unasked it mostly agrees with the
listener. A speaker's views of one session are joined in one memory (at most ``MAX_VIEWS``
each), with every turn as evidence, rather than one memory per platitude.
"""

from __future__ import annotations

from dataclasses import replace

from ..types import Candidate

__all__ = ["MAX_VIEWS", "keep_views", "merge_beliefs"]

#: How many views one memory holds at most.
MAX_VIEWS = 3


def keep_views(candidates: list[Candidate], answers: set[str]) -> list[Candidate]:
    """Views said in a turn that answers a question ("How do you stay motivated?" - "Having
    a support system is key"). Said unasked, "Definitely! Working together is key. Let's do
    it!" only agrees with the listener: a platitude of agreement, not a view a reader notes."""
    return [
        c
        for c in candidates
        if c.attrs.get("stance") not in _VIEWS or any(n in answers for n in c.node_ids)
    ]


def merge_beliefs(candidates: list[Candidate]) -> list[Candidate]:
    """A speaker's general beliefs in one session as one memory per ``MAX_VIEWS`` views (in
    the order said, at the first one's place), with every turn as evidence."""
    groups: dict[tuple[str, str, str, str], list[int]] = {}
    for i, c in enumerate(candidates):
        kind = c.attrs.get("stance")
        if kind in _VIEWS and c.subject is not None:
            groups.setdefault((c.session_id, c.subject.name, c.language, kind), []).append(i)
    drop: set[int] = set()
    for (_, _, lang, kind), idx in groups.items():
        for k in range(0, len(idx), MAX_VIEWS):
            part = [candidates[i] for i in idx[k : k + MAX_VIEWS]]
            if len(part) < 2:
                continue
            candidates[idx[k]] = replace(
                part[0],
                text=_join_views(part, lang, _VIEWS[kind]),
                node_ids=tuple(dict.fromkeys(n for c in part for n in c.node_ids)),
            )
            drop.update(idx[k + 1 : k + MAX_VIEWS])
    return [c for i, c in enumerate(candidates) if i not in drop]


#: Stances that are views (what joins them in one memory).
_VIEWS = {"believes": " believes that ", "finds": " finds "}


def _join_views(part: list[Candidate], lang: str, marker: str) -> str:
    if lang == "zh":
        first, *rest = (c.text.rstrip("。") for c in part)
        views = [first] + [t.split("认为", 1)[-1] for t in rest]
        return "，".join(views) + "。"
    head, _, first = part[0].text.rstrip(".").partition(marker)
    views = [first] + [c.text.rstrip(".").partition(marker)[2] for c in part[1:]]
    link = marker.split()[-1] if marker.endswith("that ") else ""
    sep, last = (f", {link} ", f", and {link} ") if link else ("; ", "; and ")
    joined = last.join(views) if len(views) == 2 else sep.join(views[:-1]) + last + views[-1]
    return f"{head}{marker}{joined}."
