"""Stage 5 projections: core.md (seed 000 §4) and ``graph/views/entity/<slug>.md``.

Views are read-time projections written to files for people and agents to read; they are
regenerated from the logs (never edited), and only show what is visible: facts supported by an
enabled memory, within the requested scopes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from ..entity.periods import time_label
from ..entity.records import Provenance, pointer_to
from ..entity.times import day_label
from ..storage.files import atomic_write_bytes
from .base import KnowledgeBase
from .models import Edge, Entity

__all__ = [
    "CORE_LIMIT_BYTES",
    "pointer",
    "project_all",
    "render_core",
    "render_entity_view",
    "write_entity_views",
]

CORE_LIMIT_BYTES = 2048
_RULE = "═" * 48


def pointer(prov: Provenance) -> str:
    """``↪ session:<id>@<commit7>`` (or ``git:``/``memory:``, see ``Pointer``): what a
    navigation tool needs to open the evidence."""
    ptr = prov.pointer or pointer_to(memory_id=prov.node_ids[0] if prov.node_ids else None)
    return ptr.arrow if ptr else "↪ memory"


def _fit(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render_core(
    kb: KnowledgeBase,
    *,
    scopes: Sequence[str] | None = None,
    project: str | None = None,
    now: float | None = None,
    limit: int = CORE_LIMIT_BYTES,
) -> str:
    """The ≤ 2 KB snapshot injected into every prompt (see ``knowledge.core``)."""
    from .core import render_core as render

    return render(kb, scopes=scopes, project=project, now=now, limit=limit)


def render_entity_view(kb: KnowledgeBase, entity: Entity) -> str:
    """A readable page for one entity: aliases, current relations, history, timeline."""
    lines = [
        f"# {entity.name}",
        "",
        f"- id: `{entity.id}`",
        f"- type: {entity.type}",
        f"- scope: {entity.scope}",
    ]
    if entity.aliases:
        lines.append(f"- aliases: {', '.join(entity.aliases)}")
    for key, value in sorted(entity.attrs.items()):
        lines.append(f"- {key}: {value}")
    history = kb.edges(entity=entity.id, include_history=True)
    current = [e for e in history if e.current]
    ended = [e for e in history if not e.current]
    lines += ["", "## Now", *(_edge_line(kb, e) for e in current)] if current else []
    if ended:
        lines += ["", "## History", *(_edge_line(kb, e) for e in ended)]
    events = kb.events(entity=entity.id)
    if events:
        lines += [
            "",
            "## Timeline",
            *(
                f"- {time_label(e.event_time, e.precision, e.language)} {e.summary}  "
                f"{pointer(e.provenance)}"
                for e in events[-50:]
            ),
        ]
    return "\n".join(lines) + "\n"


def _edge_line(kb: KnowledgeBase, edge: Edge) -> str:
    src = kb.lookup(edge.src)
    dst = kb.lookup(edge.dst)
    span = f"{day_label(edge.valid_from)} → {day_label(edge.valid_to) if edge.valid_to else 'now'}"
    names = f"{src.name if src else edge.src} —{edge.relation}→ {dst.name if dst else edge.dst}"
    return f"- {names} ({span}): {edge.fact}  {pointer(edge.provenance)}"


def write_entity_views(
    kb: KnowledgeBase,
    directory: Path,
    entity_ids: Iterable[str] | None = None,
) -> int:
    """(Re)write the views of ``entity_ids`` (default: all); hidden entities lose their page."""
    visible = {e.id: e for e in kb.entities()}
    targets = set(entity_ids) if entity_ids is not None else set(visible)
    if entity_ids is None and directory.is_dir():
        targets |= {p.stem for p in directory.glob("*.md")}
    written = 0
    for eid in sorted(targets):
        path = directory / f"{eid}.md"
        ent = visible.get(kb.resolve_id(eid))
        if ent is None or ent.id != eid:
            path.unlink(missing_ok=True)
            continue
        atomic_write_bytes(path, render_entity_view(kb, ent).encode())
        written += 1
    return written


def project_all(
    kb: KnowledgeBase,
    views_dir: Path,
    core_path: Path,
    *,
    scopes: Sequence[str] | None = None,
    project: str | None = None,
) -> str:
    """Deep-sleep projection: every entity view and core.md, written to files. Returns core.md."""
    write_entity_views(kb, views_dir)
    core = render_core(kb, scopes=scopes, project=project)
    atomic_write_bytes(core_path, core.encode())
    return core
