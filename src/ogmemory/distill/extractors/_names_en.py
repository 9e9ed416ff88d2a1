"""Names, job titles and organisations as English developer sessions say them: the shared
vocabulary of ``_identity`` (who the speaker is) and ``_colleagues`` (who they work with)."""

from __future__ import annotations

__all__ = [
    "ACRONYM_ROLES",
    "HEADS",
    "LO",
    "NOT_NAMES",
    "ORG",
    "PERSON",
    "PLACE",
    "ROLE",
    "UP",
    "WORD",
    "role_name",
]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Job titles (people met at work); family and friends ("my partner Anna") are read elsewhere.
HEADS = (
    r"engineer|developer|dev|lead|manager|designer|architect|scientist|analyst|owner"
    r"|director|founder|co-founder|cofounder|head|intern|consultant|administrator|admin"
    r"|tester|researcher|programmer|maintainer|specialist|officer|reviewer|coordinator"
    r"|strategist|marketer|recruiter|accountant|contractor|freelancer|supervisor|advisor"
    r"|adviser|mentor|student|postdoc|professor|lecturer|artist|producer|animator|technician"
    r"|auditor|planner|pentester|contributor"
)
ACRONYM_ROLES = r"SRE|PM|QA|CTO|CEO|CFO|COO|CIO|VP|PO|EM|TPM|DBA|UX|UI"
ROLE = (
    rf"(?:(?:[a-z][\w-]*|[A-Z]{{2,5}}|PhD|MSc)\s+){{0,3}}(?:co-?)?(?:{HEADS})s?\b|(?:{ACRONYM_ROLES})\b"
    rf"(?:\s+(?:{HEADS}))?"
)
# Names in any Latin script ("Tomás", "Zoë", "Łukasz"): a capital, then lower-case letters.
UP = r"[A-ZÀ-ÖØ-ÞĀ-Ž]"
LO = r"[a-zß-öø-ÿā-ž]"
WORD = rf"{UP}{LO}+(?:[-'’]{UP}?{LO}+)?"
# "Pieter van Dijk", "Ana de la Cruz": a lower-case particle inside a surname
PARTICLE = r"(?:van|von|de|der|den|da|di|del|du|la|le|ten|ter)"
PERSON = rf"{WORD}(?:\s+(?:{PARTICLE}\s+){{0,2}}{WORD}){{0,2}}"
ORG = rf"{UP}[\w&.'-]*(?:\s+(?:(?!I\b){UP}[\w&.'-]*|of|and(?!\s+I\b)|&|for|de))*"
PLACE = rf"{UP}[\w.'-]*(?:\s+{UP}[\w.'-]*){{0,2}}"

NOT_NAMES = _words(
    "I Im The A An And But So Sorry Happy Fine Good Great Okay Ok Back Here Done Ready Sure"
    " Free Busy New Home Tired Glad Excited Just Also Still Not Really Very Totally Working"
    " Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April"
    " May June July August September October November December English Chinese French German"
    " Spanish American British Canadian Italian Japanese Indian Brazilian Mexican In On At"
    " From With Yes No Hi Hey Hello Thanks Thank Well Oh Our My Your We You He She They It"
    " This That Quick Some Everyone Team People"
)


def role_name(raw: str) -> str:
    return " ".join(w if w.isupper() or w in ("PhD", "MSc") else w.lower() for w in raw.split())
