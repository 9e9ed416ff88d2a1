"""Small integers written with digits, English words or Chinese numerals (``十二`` -> 12), as
time expressions ("two weeks ago", "三天前") and quantities name them."""

from __future__ import annotations

__all__ = ["parse_number"]


_EN_NUMBERS: dict[str, int] = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "fifty": 50,
    "hundred": 100,
    "a couple of": 2,
    "a couple": 2,
    "couple of": 2,
    "a few": 3,
    "few": 3,
    "several": 3,
}
_ZH_DIGITS: dict[str, int] = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_ZH_UNITS: dict[str, int] = {"十": 10, "百": 100, "千": 1000, "万": 10000}


def parse_number(text: str) -> int | None:
    """An integer written with digits, English words or Chinese numerals (``十二`` → 12)."""
    s = text.strip().lower()
    if not s:
        return None
    if s.isdigit():
        return int(s)
    if s in _EN_NUMBERS:
        return _EN_NUMBERS[s]
    if s in ("几", "好几"):
        return 3
    total, current = 0, 0
    for ch in s:
        if ch in _ZH_DIGITS:
            current = _ZH_DIGITS[ch]
        elif ch in _ZH_UNITS:
            unit = _ZH_UNITS[ch]
            total += (current or 1) * unit
            current = 0
        else:
            return None
    return total + current
