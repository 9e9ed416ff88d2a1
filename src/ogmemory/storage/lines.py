"""One line of a knowledge log: a JSON object that ends with its own checksum.

A line is the object's canonical JSON (sorted keys, no spaces) with one last key appended,
``"_crc"``: the CRC-32 of the line as it would read without that key, in 8 hex digits::

    {"_batch":"b_...","_kind":"memory","id":"m_1","text":"..."       ,"_crc":"1c291ca3"}

The line stays plain JSON (any JSON reader reads it), and any changed byte, including one that
leaves valid JSON behind (a flipped digit, a letter in a text), is detected: CRC-32 catches
every error burst of up to 32 bits. Lines written before checksums (no ``_crc``) still read;
such a line is refused only when it does not parse, or carries a key starting with ``_`` that
no writer ever wrote (what a flipped byte inside ``"_crc"`` leaves).

>>> line = encode_line({"id": "m_1", "text": "tea"})
>>> line
b'{"id":"m_1","text":"tea","_crc":"2aa0b94c"}\\n'
>>> decode_line(line[:-1])
{'id': 'm_1', 'text': 'tea'}
>>> decode_line(line[:-1].replace(b"tea", b"tee")) is None
True
"""

from __future__ import annotations

import json
import zlib
from typing import Any

from ..errors import InvalidInput

__all__ = ["CRC_KEY", "decode_line", "encode_line"]

CRC_KEY = "_crc"
_SUFFIX_START = b',"_crc":"'
_SUFFIX_LEN = len(_SUFFIX_START) + 8 + 2  # ,"_crc":"<8 hex>"}
_KNOWN_PRIVATE = frozenset({"_batch", "_kind", "_deleted"})


def _crc(body: bytes) -> str:
    return f"{zlib.crc32(body) & 0xFFFFFFFF:08x}"


def encode_line(obj: dict[str, Any]) -> bytes:
    """The log line of ``obj`` (a non-empty JSON object), newline included."""
    if not obj:
        raise InvalidInput("an empty object is not a log line")
    try:
        body = json.dumps(
            obj, ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=False
        ).encode()
    except (TypeError, ValueError) as exc:  # UnicodeEncodeError too: a lone surrogate
        raise InvalidInput(
            f"{obj.get('_kind', 'record')} {obj.get('id')} is not storable: {exc}"
        ) from None
    return body[:-1] + _SUFFIX_START + _crc(body).encode() + b'"}\n'


def decode_line(raw: bytes) -> dict[str, Any] | None:
    """The object a line (without its newline) holds, without ``_crc``; ``None`` when the line
    is damaged: it does not parse, is not an object, or its checksum does not match."""
    raw = raw.rstrip(b"\r")
    if (
        len(raw) > _SUFFIX_LEN
        and raw[-_SUFFIX_LEN:].startswith(_SUFFIX_START)
        and raw.endswith(b'"}')
    ):
        body = raw[:-_SUFFIX_LEN] + b"}"
        if _crc(body) != raw[-10:-2].decode("latin-1"):
            return None
        return _parse(body)
    value = _parse(raw)  # a line written before checksums
    if value is None or any(k.startswith("_") and k not in _KNOWN_PRIVATE for k in value):
        return None
    return value


def _parse(raw: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(raw)
    except ValueError:  # UnicodeDecodeError too
        return None
    return value if isinstance(value, dict) else None
