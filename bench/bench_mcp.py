"""MCP output tokens per tool: the old answers (JSON, ``indent=2``, every record in full, no
paging) against the compact text the tools answer now, with their default arguments.

    python bench/bench_mcp.py [--home DEMO_HOME] [--data LOCOMO.json]

``--home`` reuses a home built by ``ogmem demo`` (with ``OGMEM_EMBEDDER=none`` it takes about a
minute); without it the LoCoMo development set is imported and distilled into a temporary home.
"Before" is computed in this process from the same records, in the shapes the tools returned
before issue 15 (the SDK also sent a second, structured copy of each, not counted here). The
write tools (remember, forget) are left out: they would change the home.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
from mcp.client import Client
from rich.console import Console
from rich.table import Table

from ogmemory import Memory, Settings
from ogmemory.evaluation.data import find_locomo
from ogmemory.importers import parse_locomo, read_locomo
from ogmemory.interfaces.mcp import build_server
from ogmemory.recall.tokens import count_tokens

QUERY = "What did Caroline do at the support group?"


def _iso(ts: float | None) -> str | None:
    return None if ts is None else datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds")


def _prov(p: Any) -> dict[str, Any]:
    if p is None:
        return {"session_id": None, "node_ids": [], "commit": None, "next": None}
    return {
        "session_id": p.session_id,
        "node_ids": list(dict.fromkeys(p.node_ids)),
        "commit": p.commit,
        "next": f'memory_open_session(session_id="{p.session_id}")',
    }


def old_answers(mem: Memory, calls: dict[str, dict[str, Any]]) -> dict[str, str]:
    """What each tool answered before: its dict, as the SDK printed it (``indent=2``)."""
    out: dict[str, Any] = {}
    hits = mem.search(calls["memory_search"]["query"], limit=10)
    out["memory_search"] = {
        "query": QUERY,
        "hits": [
            {**h.to_dict(), "date": _iso(h.event_time), "next": "memory_open_session(...)"}
            for h in hits
        ],
    }
    out["memory_timeline"] = {
        "events": [
            {
                "id": e.id,
                "date": _iso(e.event_time),
                "kind": e.kind,
                "summary": e.summary,
                "entities": list(e.entities),
                "scope": e.scope,
                "importance": e.importance,
                **_prov(e.provenance),
            }
            for e in mem.timeline()
        ]
    }
    ents, edges = mem.graph_neighbors(calls["memory_graph_neighbors"]["entity"], 1)
    out["memory_graph_neighbors"] = {
        "entities": [
            {
                "id": e.id,
                "type": e.type,
                "name": e.name,
                "aliases": list(e.aliases),
                "scope": e.scope,
            }
            for e in ents
        ],
        "relations": [
            {
                "id": e.id,
                "from": e.src,
                "relation": e.relation,
                "to": e.dst,
                "fact": e.fact,
                "valid_from": _iso(e.valid_from),
                "valid_to": _iso(e.valid_to),
                "current": e.current,
                "confidence": e.confidence,
                "scope": e.scope,
                **_prov(e.provenance),
            }
            for e in edges
        ],
    }
    sid = calls["memory_open_session"]["session_id"]
    out["memory_open_session"] = {
        "session_id": sid,
        "nodes": [
            {
                "id": n.id,
                "seq": n.seq,
                "role": n.role,
                "time": _iso(n.event_time),
                "text": n.text,
                "parent_id": n.parent_id,
            }
            for n in mem.open_session(sid)
        ],
    }
    out["memory_git_log"] = {
        "session_id": sid,
        "commits": [
            {**c.to_dict(), "time": _iso(c.time), "next": "memory_open_session(...)"}
            for c in mem.git_log(session_id=sid, limit=20)
        ],
    }
    result = mem.recall(QUERY, budget=2000)
    data = result.to_dict()
    data["context"] = result.as_context()
    out["memory_recall"] = data
    out["memory_core"] = mem.core()
    out["memory_read"] = mem.resolve_uri(calls["memory_read"]["uri"], level=1).to_dict()
    return {
        k: v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, indent=2, default=str)
        for k, v in out.items()
    }


async def new_answers(mem: Memory, calls: dict[str, dict[str, Any]]) -> dict[str, str]:
    async with Client(build_server(mem)) as client:
        got = {}
        for name, args in calls.items():
            result = await client.call_tool(name, args)
            got[name] = "".join(getattr(b, "text", "") for b in result.content)
        return got


def build_home(data: Path, home: Path) -> None:
    with Memory(settings=Settings(home=home, embedder="none", distill_on_turn=False)) as mem:
        mem.import_conversations(list(parse_locomo(read_locomo(data))))
        mem.sleep("deep")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path)
    parser.add_argument("--data", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = args.home
        if home is None:
            data = args.data or find_locomo(Path.cwd(), os.environ)
            if data is None:
                raise SystemExit("LoCoMo data not found: pass --data or --home")
            home = Path(tmp) / "home"
            build_home(data, home)
        settings = Settings(home=home, embedder="none", distill_on_turn=False)
        with Memory(settings=settings) as mem:
            longest = max(mem.list_sessions(), key=lambda s: s.turns).session_id
            entity = max(mem.entities(), key=lambda e: len(mem.facts(entity=e.id))).id
            calls: dict[str, dict[str, Any]] = {
                "memory_search": {"query": QUERY},
                "memory_timeline": {},
                "memory_graph_neighbors": {"entity": entity},
                "memory_open_session": {"session_id": longest},
                "memory_git_log": {"session_id": longest},
                "memory_recall": {"query": QUERY, "budget": 2000},
                "memory_core": {},
                "memory_read": {"uri": f"ogm://session/{longest}"},
            }
            before = old_answers(mem, calls)
            now = anyio.run(new_answers, mem, calls)
    table = Table(title=f"MCP output tokens (o200k), default arguments; home {home}")
    for col in ("tool", "arguments", "before (JSON)", "now (text)", "ratio"):
        table.add_column(col, justify="left" if col in ("tool", "arguments") else "right")
    for name, call in calls.items():
        b, n = count_tokens(before[name]), count_tokens(now[name])
        table.add_row(
            name,
            json.dumps(call, ensure_ascii=False)[:48],
            f"{b:,}",
            f"{n:,}",
            f"{n / b:.2f}" if b else "-",
        )
    Console().print(table)


if __name__ == "__main__":
    main()
