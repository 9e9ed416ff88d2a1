"""Where the LoCoMo development set is: read in place, never copied into the package."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..errors import InvalidInput

__all__ = ["DEV_SET", "find_locomo"]

#: Where the development set sits relative to some ancestor of the working directory.
DEV_SET = Path("shared", "data", "locomo", "locomo-dev.json")


def find_locomo(start: Path, env: Mapping[str, str]) -> Path | None:
    """``$OGMEM_LOCOMO``, else ``shared/data/locomo/locomo-dev.json`` under ``start`` or one of
    its ancestors, else ``None``.

    >>> find_locomo(Path("/nonexistent/dir"), {}) is None
    True
    """
    configured = env.get("OGMEM_LOCOMO")
    if configured:
        path = Path(configured).expanduser()
        if not path.is_file():
            raise InvalidInput(f"OGMEM_LOCOMO points to {path}, which is not a file")
        return path
    for directory in (start, *start.parents):
        candidate = directory / DEV_SET
        if candidate.is_file():
            return candidate
    return None
