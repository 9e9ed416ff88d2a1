"""How names and languages are recognized: the alias key of an entity name, the survivor of
merged entities, and the language of a text. Pure functions, shared by the knowledge base, its
batches and the distillation stages."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from .models import Entity

__all__ = ["detect_language", "follow_merges", "id_words", "normalize_name"]


def follow_merges(entity_id: str, get: Callable[[str], Entity | None]) -> str:
    """The surviving entity of ``entity_id`` along ``merged_into`` (``get(id)`` reads an entity:
    the committed state, or a batch's view of it). Stops on a cycle."""
    seen = set()
    while entity_id not in seen:
        seen.add(entity_id)
        ent = get(entity_id)
        if ent is None or not ent.merged_into:
            return entity_id
        entity_id = ent.merged_into
    return entity_id


def normalize_name(name: str) -> str:
    """Case-, width- and punctuation-insensitive key for alias resolution."""
    text = unicodedata.normalize("NFKC", name).casefold().strip()
    text = re.sub(r"^(the|a|an|my|our)\s+", "", text)
    return re.sub(r"[\s\-_.·'\"`“”‘’()（）]+", "", text)


_FIRST_PERSON = re.compile(
    r"\b(?:i|me|my|mine|myself|we|us|our|ours|ourselves)\b(?:\s+own\b)?\s*|我们的|我的|咱们的",
    re.IGNORECASE,
)


def id_words(name: str) -> str:
    """The words an entity id is made of: the name without the speaker's first person, so an
    id reads the same whoever said it ("camping trips with my fam" -> "camping trips with
    fam", "我的猫" -> "猫"); a name that is nothing but first person stays as it is.

    >>> id_words("running my own studio"), id_words("Our API")
    ('running studio', 'API')
    """
    neutral = " ".join(
        _FIRST_PERSON.sub(lambda m: "" if _CJK.match(m.group()) else " ", name).split()
    )
    return neutral or name


_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def detect_language(text: str) -> str:
    """``zh`` when the text is mostly CJK ideographs, else ``en``."""
    cjk = len(_CJK.findall(text))
    return "zh" if cjk and cjk * 3 >= len(re.sub(r"\s", "", text)) * 1 else "en"
