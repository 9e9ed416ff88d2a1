"""Facts as the enabled evidence has them: validity is projected at read time, never stored twice.

When a newer fact ended an older one (``superseded_by``), the older one stays ended only while
the newer one is visible, i.e. supported by at least one enabled memory. Disable or delete the
memory that superseded a fact, and the older fact is current again; enable it, and the newer
one wins again. Along a chain (A ended by B, B ended by C), an invisible link is skipped: A ends
where the first visible successor begins, or not at all. Timeline events superseded by a
restatement follow the same rule. Nothing is rewritten: the logs keep what was written, and
every read projects it.

>>> from ogmemory.entity.records import Provenance
>>> p = Provenance("default", "s", ("n",), None, 0.0, 0.0)
>>> a = Edge("a", "u", "x", "uses", "A", p, 0.0, 0.0, 0.0, valid_to=5.0, superseded_by="b",
...          support=("m1",))
>>> b = Edge("b", "u", "y", "uses", "B", p, 5.0, 0.0, 5.0, support=("m2",))
>>> project_edges({"a": a, "b": b}, lambda s: "m2" not in s)["a"].current
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import TypeVar

from .models import Edge, TimelineEvent

__all__ = ["project_edges", "project_events"]

T = TypeVar("T", Edge, TimelineEvent)


def _first_visible(
    start: str | None, records: Mapping[str, T], visible: Callable[[Iterable[str]], bool]
) -> T | None:
    seen: set[str] = set()
    current = records.get(start) if start else None
    while current is not None and current.id not in seen and not visible(current.support):
        seen.add(current.id)
        current = records.get(current.superseded_by) if current.superseded_by else None
    return current if current is not None and current.id not in seen else None


def project_edges(
    edges: Mapping[str, Edge],
    visible: Callable[[Iterable[str]], bool],
) -> dict[str, Edge]:
    """Every edge with the validity its visible successors give it."""
    out: dict[str, Edge] = {}
    for edge in edges.values():
        if edge.superseded_by is None:
            out[edge.id] = edge
            continue
        successor = _first_visible(edge.superseded_by, edges, visible)
        if successor is None:  # whatever ended it is hidden: it holds again
            out[edge.id] = replace(edge, valid_to=None, superseded_by=None)
        elif successor.id != edge.superseded_by:
            out[edge.id] = replace(edge, valid_to=successor.valid_from, superseded_by=successor.id)
        else:
            out[edge.id] = edge
    return out


def project_events(
    events: Mapping[str, TimelineEvent], visible: Callable[[Iterable[str]], bool]
) -> dict[str, TimelineEvent]:
    """Every event, superseded only by a visible restatement."""
    out: dict[str, TimelineEvent] = {}
    for ev in events.values():
        if ev.superseded_by is None:
            out[ev.id] = ev
            continue
        successor = _first_visible(ev.superseded_by, events, visible)
        out[ev.id] = (
            replace(ev, superseded_by=None)
            if successor is None
            else replace(ev, superseded_by=successor.id)
        )
    return out
