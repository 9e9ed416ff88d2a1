"""Small file helpers: atomic JSON writes, tolerant JSON reads, cross-process locks."""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..errors import InvalidInput

__all__ = [
    "atomic_write_bytes",
    "atomic_write_json",
    "dump_json",
    "file_lock",
    "read_json",
    "set_aside",
]


def dump_json(data: Any) -> bytes:
    """The canonical on-disk JSON encoding (UTF-8, sorted keys, one space indent).

    Text that UTF-8 cannot hold (a lone surrogate) is ``InvalidInput``, raised before anything
    is written: inputs are checked at the door, this is the last line behind it.
    """
    text = json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True, allow_nan=False)
    try:
        return (text + "\n").encode()
    except UnicodeEncodeError:
        raise InvalidInput(
            "refusing to store text that is not valid Unicode (a lone surrogate)"
        ) from None


def atomic_write_json(path: Path, data: Any, *, fsync: bool = False) -> None:
    """Write JSON so that readers see either the old file or the whole new one."""
    atomic_write_bytes(path, dump_json(data), fsync=fsync)


def atomic_write_bytes(path: Path, data: bytes, *, fsync: bool = False) -> None:
    """Write via a temporary file and ``os.replace``: never a torn file under ``path``."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if fsync:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def read_json(path: Path) -> Any | None:
    """Parsed JSON, or ``None`` when the file is missing or unparsable."""
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return None


@contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """An exclusive advisory lock between processes (released when the holder dies)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def set_aside(path: Path) -> Path:
    """Rename ``path`` to ``<name>.moved-<time>`` beside it (``-2``, ``-3``... when one was set
    aside within the same second); returns the new path."""
    stamp = f"{path.name}.moved-{time.strftime('%Y%m%dT%H%M%S')}"
    target = path.with_name(stamp)
    for n in range(2, 10_000):
        if not target.exists():
            break
        target = path.with_name(f"{stamp}-{n}")
    path.rename(target)
    return target
