"""Reading a Claude Code transcript's tail: the answer Claude gave at the end of a turn. The
reader lives in the standard-library-only hook client (``ogmemory_hook``), which needs it
before anything of the package is loaded."""

from __future__ import annotations

from ogmemory_hook import last_reply

__all__ = ["last_reply"]
