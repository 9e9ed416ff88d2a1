"""A standing rule is not said to "you": "before you commit anything" -> "before committing
anything", "make sure you run X" -> "make sure to run X".

>>> no_you("Make sure you run ruff before you commit anything")
'Make sure to run ruff before committing anything'
"""

from __future__ import annotations

import re

__all__ = ["no_you"]

# "before you commit anything" -> "before committing anything": a rule is not said to "you"
_YOU_CLAUSE = re.compile(
    r"\b(?P<conj>before|after|when|whenever|until|once|while)\s+you\s+(?P<v>[a-z]+)\b",
    re.IGNORECASE,
)
_DOUBLE = frozenset(
    "run commit stop plan ship drop set get put begin submit permit admit swap chat cut shut"
    " split tag log map skip wrap step grab trim hit sit let refer prefer omit rebut".split()
)


def _gerund(verb: str) -> str:
    v = verb.lower()
    if v.endswith("ie"):
        return v[:-2] + "ying"
    if v.endswith("e") and not v.endswith(("ee", "ye", "oe")):
        return v[:-1] + "ing"
    return v + v[-1] + "ing" if v in _DOUBLE else v + "ing"


def no_you(body: str) -> str:
    body = re.sub(r"(?i)^(make|be)\s+sure\s+(?:that\s+)?you\s+", r"\1 sure to ", body)
    return _YOU_CLAUSE.sub(lambda m: f"{m.group('conj')} {_gerund(m.group('v'))}", body)
