"""Rolling back a distillation batch returns its turns to the pending set.

A distillation batch's commit marker carries the cursor it advanced to. Undoing the batch
removes what it wrote; its turns must then count as not distilled, or they would never be
read again. The rollback's own marker therefore carries the cursor moved back, for every
session (and project) the batch advanced, to where it stood before the batch, or to where it
stands now if that is earlier. Distilling again (``ogmem distill``, the fast path, a sleep)
reads those turns anew; turns of later batches that a rewind returns as well are only
re-read: a known fact gains nothing but the same support.

>>> from ogmemory.storage.folded import BatchInfo
>>> b1 = BatchInfo("b1", 1.0, "distill", (), {"cursor": {"sessions": {"s": 4}, "projects": {}}})
>>> b2 = BatchInfo("b2", 2.0, "distill", (), {"cursor": {"sessions": {"s": 9}, "projects": {}}})
>>> rewound_cursor([b1, b2], "b2", {"sessions": {"s": 9}, "projects": {}})
({'sessions': {'s': 4}, 'projects': {}}, {'s': 5})
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..storage.folded import BatchInfo

__all__ = ["cursor_before_lost", "rewound_cursor"]


def _cursor(value: Any) -> dict[str, dict[str, Any]]:
    value = value if isinstance(value, dict) else {}
    return {
        "sessions": dict(value.get("sessions") or {}),
        "projects": dict(value.get("projects") or {}),
    }


def rewound_cursor(
    batches: Sequence[BatchInfo],
    batch_id: str,
    current: Any,
) -> tuple[dict[str, dict[str, Any]], dict[str, int]] | None:
    """The cursor after rolling back ``batch_id``, and how many nodes of each session it
    returns to the pending set; ``None`` when the batch distilled nothing (e.g. a memory
    edit)."""
    ids = [b.id for b in batches]
    if batch_id not in ids:
        return None
    at = ids.index(batch_id)
    info = batches[at]
    if "cursor" not in info.meta:
        return None
    after = _cursor(info.meta["cursor"])
    before = next(
        (_cursor(b.meta["cursor"]) for b in reversed(batches[:at]) if "cursor" in b.meta),
        _cursor(None),
    )
    now = _cursor(current)
    returned: dict[str, int] = {}
    for sid, seq in after["sessions"].items():
        start = int(before["sessions"].get(sid, 0))
        if int(seq) == start:
            continue
        back = min(int(now["sessions"].get(sid, 0)), start)
        returned[sid] = int(now["sessions"].get(sid, 0)) - back
        now["sessions"][sid] = back
    for pid, sha in after["projects"].items():
        if before["projects"].get(pid) != sha:
            if pid in before["projects"]:
                now["projects"][pid] = before["projects"][pid]
            else:
                now["projects"].pop(pid, None)
    return now, {k: v for k, v in returned.items() if v > 0}


def cursor_before_lost(
    lost: Sequence[tuple[Any, Any]],
    current: Any,
) -> tuple[dict[str, dict[str, Any]], dict[str, int]]:
    """The cursor that returns the turns of distillation batches whose markers were lost
    (``ogmem fsck --repair``) to the pending set. Each lost batch is known by the cursor before
    it and after it (``None`` after: the newest); every session (and project) that moved
    between the two goes back to where it stood before, so the turns of the lost batch (and of
    the next one, which only gain the same support again) are distilled again.

    >>> cursor_before_lost([({"sessions": {"s": 4}}, {"sessions": {"s": 9, "t": 2}})],
    ...                    {"sessions": {"s": 12, "t": 2}, "projects": {}})
    ({'sessions': {'s': 4, 't': 0}, 'projects': {}}, {'s': 8, 't': 2})
    """
    now = _cursor(current)
    returned: dict[str, int] = {}
    for before, after in lost:
        end = _cursor(after if after is not None else now)
        step = rewound_cursor(
            [
                BatchInfo("before", 0.0, "", (), {"cursor": _cursor(before)}),
                BatchInfo("lost", 0.0, "", (), {"cursor": end}),
            ],
            "lost",
            now,
        )
        assert step is not None
        now = step[0]
        for sid, count in step[1].items():
            returned[sid] = returned.get(sid, 0) + count
    return now, returned
