"""Scripted developer sessions with gold facts, stale facts and junk lines (``ogmem bench
knowledge --sessions``).

A script is a YAML file: sessions of turns between a developer and a coding assistant (user
text, tool calls with their output and exit code, files the agent edits in a bound project,
the assistant's answer), and what a careful reader must end up knowing::

    name: billing service
    sessions:
      - id: billing-1
        project: billing          # bound to a fresh git project directory of that name
        agent: reviewer           # optional: the session belongs to an agent (agent scope)
        start: "2026-03-02T09:00:00Z"
        turns:
          - user: "I'm Dana, the backend lead at Corvid Labs."
            tools:                # optional, in order: an assistant tool call and its result
              - run: pytest -q
                output: "1 failed"
                exit: 1
              - edit: requirements.txt   # written into the project (or a scratch directory)
                content: "numpy<2\\n"
            assistant: "Noted."
            after: 5m             # time since the previous turn (default 2m; s, m, h, d)
    gold:                         # every term must appear in one memory or current fact
      - {id: employer, terms: [Corvid Labs]}
      - {id: db, terms: [PostgreSQL], facts: true}           # only current facts count
      - {id: rule, terms: [50 lines], scope: "agent:reviewer"}  # and only in that scope
    stale:                        # must not be current at the end of the script
      - {id: old db, object: MySQL}                 # a current fact whose object is MySQL
      - {id: leak, text: "50 lines", scope: global}  # anything readable in that scope
    junk: ["pytest -q"]           # regexes a core.md line must not match (besides the generic
                                  # checks: commands, commit messages, assistant echoes)

"Current" means as of one minute after the script's last turn, so deadlines and planned
moves are judged when the conversation happened, not when the benchmark runs.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from ..config import Settings
from ..errors import InvalidInput
from ..knowledge.scopes import scopes_for
from ..knowledge.views import render_core
from ..memory import Memory
from .devchecks import PERSONAL_LINE, duplicate_memories, wrong_facts

__all__ = ["ScriptScore", "load_script", "play_script", "run_sessions", "score_script"]

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_ECHO = re.compile(
    r"^(?:noted|got it|okay|ok|sure|understood|will do|sounds good|summary|done|great|right"
    r"|exactly|好的|记下|记住了|收到|明白|没问题|对的|没错)\b",
    re.IGNORECASE,
)
_COMMAND = re.compile(r"`[^`]+`|^(?:ran|运行了)\s|\[agent [^\]]+\]|\bturn \d+:")
_BULLET = re.compile(r"^·\s*(?:\d{4}-\d{2}-\d{2}\s+)?(?P<body>.*?)\s*↪.*$")


@dataclass
class ScriptScore:
    """What one script's distillation got right and wrong."""

    name: str
    gold: int = 0
    found: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    junk: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)  # current facts no reading supports
    duplicates: list[str] = field(default_factory=list)  # memories that say one thing twice
    memories: int = 0
    core: str = ""
    listing: list[str] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)


def _seconds(value: Any) -> float:
    if isinstance(value, (int, float)):
        return float(value)
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhd])\s*", str(value))
    if m is None:
        raise InvalidInput(f"bad duration {value!r}: use a number of seconds or e.g. 5m, 2h, 1d")
    return float(m.group(1)) * _UNITS[m.group(2)]


def _time(value: Any) -> float:
    try:
        when = datetime.fromisoformat(str(value))
    except ValueError:
        raise InvalidInput(f"bad start time {value!r}: use ISO-8601") from None
    return (when if when.tzinfo else when.replace(tzinfo=UTC)).timestamp()


def load_script(path: Path) -> dict[str, Any]:
    """Read and check a script (see the module docstring)."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise InvalidInput(f"cannot read session script {path}: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("sessions"), list):
        raise InvalidInput(f"{path}: a script needs a 'sessions' list")
    for i, sess in enumerate(data["sessions"]):
        if not isinstance(sess, dict) or not isinstance(sess.get("turns"), list):
            raise InvalidInput(f"{path}: sessions[{i}] needs a 'turns' list")
        for j, turn in enumerate(sess["turns"]):
            if not isinstance(turn, dict) or not isinstance(turn.get("user"), str):
                raise InvalidInput(f"{path}: sessions[{i}].turns[{j}] needs 'user' text")
    for key in ("gold", "stale", "junk"):
        if not isinstance(data.get(key, []), list):
            raise InvalidInput(f"{path}: '{key}' must be a list")
    data.setdefault("name", path.stem)
    return data


def _tool_messages(
    turn: dict[str, Any],
    when: float,
    n: int,
    workdir: Path,
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for k, tool in enumerate(turn.get("tools") or []):
        call_id = f"call_{n}_{k}"
        if "edit" in tool:
            rel = str(tool["edit"])
            target = workdir / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(str(tool.get("content", "")), encoding="utf-8")
            call = {
                "name": "write_file",
                "arguments": json.dumps({"path": rel, "content": tool.get("content", "")}),
            }
            result = f"wrote {rel}"
            meta: dict[str, Any] = {}
        else:
            call = {"name": "bash", "arguments": json.dumps({"command": str(tool.get("run"))})}
            result = str(tool.get("output", ""))
            meta = {"exit_code": int(tool.get("exit", 0))}
        out.append(
            {
                "role": "assistant",
                "content": None,
                "event_time": when + 2 * k + 1,
                "tool_calls": [{"id": call_id, "type": "function", "function": call}],
            }
        )
        out.append(
            {
                "role": "tool",
                "tool_call_id": call_id,
                "content": result,
                "event_time": when + 2 * k + 2,
                "metadata": meta,
            }
        )
    return out


def play_script(mem: Memory, script: dict[str, Any], workdir: Path) -> tuple[float, list[str]]:
    """Record every session of ``script``; returns the time of its last turn and the
    projects' ids by their script names."""
    last = 0.0
    projects: dict[str, str] = {}
    for sess in script["sessions"]:
        sid = str(sess.get("id") or f"s{len(projects)}")
        when = _time(sess.get("start", "2026-01-01T00:00:00Z"))
        project = sess.get("project")
        pdir = workdir / "scratch" / sid
        if project:
            pdir = workdir / "projects" / str(project)
            pdir.mkdir(parents=True, exist_ok=True)
            projects[str(project)] = mem.resolve_project(pdir, name=str(project)).project_id
        pdir.mkdir(parents=True, exist_ok=True)
        mem.create_session(sid, project=pdir if project else None, agent_id=sess.get("agent"))
        for n, turn in enumerate(sess["turns"]):
            if n:
                when += _seconds(turn.get("after", "2m"))
            mem.append_message(sid, {"role": "user", "content": turn["user"], "event_time": when})
            tools = _tool_messages(turn, when, n, pdir)
            for msg in tools:
                mem.append_message(sid, msg)
            if turn.get("assistant"):
                mem.append_message(
                    sid,
                    {
                        "role": "assistant",
                        "content": str(turn["assistant"]),
                        "event_time": when + len(tools) + 1,
                    },
                )
            mem.commit_turn(sid, model="scripted")
            last = max(last, when)
    return last, [f"{k}={v}" for k, v in projects.items()]


def _has(text: str, terms: Sequence[str]) -> bool:
    low = text.casefold()
    return all(str(t).casefold() in low for t in terms)


def _scope_of(spec: str | None, projects: dict[str, str]) -> str | None:
    if spec is None or not spec.startswith("project:"):
        return spec
    name = spec.split(":", 1)[1]
    return f"project:{projects.get(name, name)}"


def score_script(
    mem: Memory, script: dict[str, Any], at: float, projects: dict[str, str]
) -> ScriptScore:
    """Gold facts found, stale facts current and junk core.md lines, as of ``at``."""
    score = ScriptScore(str(script["name"]))
    memories = list(mem.memories(include_disabled=False))
    facts = mem.facts(at=at)
    names = {e.id: [e.name, *e.aliases] for e in mem.knowledge.kb.entities(include_hidden=True)}
    fact_texts = [
        (f.fact + " " + " ".join(names.get(mem.knowledge.kb.resolve_id(f.dst), [])), f.scope)
        for f in facts
    ]
    score.memories = len(memories)
    score.listing = [f"[{m.type}/{m.scope}] {m.text}" for m in memories]
    score.facts = [f"{f.src} {f.relation} {f.dst} [{f.slot or '-'}] {f.scope}" for f in facts]
    score.wrong = wrong_facts(mem, at)
    score.duplicates = duplicate_memories(mem, memories)
    for item in script.get("gold", []):
        terms = [str(t) for t in item.get("terms", [])]
        scope = _scope_of(item.get("scope"), projects)
        pool = list(fact_texts)
        if not item.get("facts"):
            pool += [(m.text, m.scope) for m in memories]
        ok = any(_has(text, terms) and (scope is None or s == scope) for text, s in pool)
        (score.found if ok else score.missed).append(str(item.get("id", terms)))
    score.gold = len(score.found) + len(score.missed)
    cores: dict[str | None, str] = {None: render_core(mem.knowledge.kb, scopes=["global"], now=at)}
    for pid in projects.values():
        cores[f"project:{pid}"] = render_core(
            mem.knowledge.kb, scopes=scopes_for(f"project:{pid}"), now=at
        )
    for item in script.get("stale", []):
        if _stale(mem, item, at, projects, names):
            score.stale.append(str(item.get("id")))
    score.core = cores[None]
    score.junk = _junk(cores, script)
    return score


def _stale(
    mem: Memory,
    item: dict[str, Any],
    at: float,
    projects: dict[str, str],
    names: dict[str, list[str]],
) -> bool:
    """Whether a stale item still holds: a current fact whose object is named ``object`` (as
    a whole word; ``relation`` narrows it), or ``text`` readable in ``scope``."""
    if "object" in item:
        want = re.compile(rf"(?<!\w){re.escape(str(item['object']))}(?!\w)", re.IGNORECASE)
        relation = item.get("relation")
        return any(
            any(want.search(n) for n in names.get(mem.knowledge.kb.resolve_id(f.dst), []))
            for f in mem.facts(at=at)
            if relation in (None, f.relation)
        )
    visible = scopes_for(_scope_of(item.get("scope"), projects))
    pool = [f.fact for f in mem.facts(at=at, scope=visible)]
    pool += [m.text for m in mem.memories(include_disabled=False, scope=visible)]
    pool += render_core(mem.knowledge.kb, scopes=visible, now=at).splitlines()
    return any(_has(p, [str(item.get("text", ""))]) for p in pool)


def _junk(cores: dict[str | None, str], script: dict[str, Any]) -> list[str]:
    patterns = [re.compile(p) for p in script.get("junk", [])]
    out: list[str] = []
    for core in cores.values():
        for line in core.splitlines():
            m = _BULLET.match(line)
            if m is None:
                continue
            body = m.group("body")
            junk = (
                _COMMAND.search(body)
                or _ECHO.match(body)
                or PERSONAL_LINE.search(body)
                or any(p.search(body) for p in patterns)
            )
            if junk and line not in out:
                out.append(line)
    return out


def run_sessions(
    paths: Sequence[Path],
    *,
    settings: Settings | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[ScriptScore]:
    """Play and score every script (each in its own temporary home)."""
    out: list[ScriptScore] = []
    for path in paths:
        script = load_script(path)
        with tempfile.TemporaryDirectory(prefix="ogmem-devsessions-") as tmp:
            home = Path(tmp) / "home"
            base = settings or Settings()
            cfg = Settings(
                **{
                    **base.__dict__,
                    "home": home,
                    "account": "bench",
                    "space": "sessions",
                    "distill_on_turn": False,
                    "index_worker": False,
                    "embedder": None,
                }
            )
            with Memory(settings=cfg) as mem:
                last, pairs = play_script(mem, script, Path(tmp))
                mem.sleep("deep")
                projects = dict(p.split("=", 1) for p in pairs)
                out.append(score_script(mem, script, last + 60, projects))
        if progress:
            s = out[-1]
            progress(
                f"{path.name}: {len(s.found)}/{s.gold} gold, {len(s.stale)} stale, "
                f"{len(s.wrong)} wrong, {len(s.junk)} junk, {len(s.duplicates)} duplicates"
            )
    return out


def script_paths(path: Path) -> list[Path]:
    """The scripts a path names: the file itself, or every ``*.yaml`` in a directory."""
    if path.is_dir():
        found = sorted(p for p in path.iterdir() if p.suffix in (".yaml", ".yml"))
        if not found:
            raise InvalidInput(f"{path}: no .yaml session scripts in this directory")
        return found
    if not path.is_file():
        raise InvalidInput(f"no such session script or directory: {path}")
    return [path]


def print_sessions(
    scores: Sequence[ScriptScore], console: Any, *, title: str = "", show: bool = False
) -> None:
    """One row per script and a total: gold facts found, stale facts current, junk lines."""
    from rich.table import Table

    table = Table(title=title or "scripted developer sessions")
    cols = (
        "script",
        "gold found",
        "stale current",
        "wrong facts",
        "junk in core.md",
        "duplicates",
        "memories",
        "missed",
    )
    for col in cols:
        table.add_column(col, justify="left" if col in ("script", "missed") else "right")
    for s in scores:
        table.add_row(
            s.name,
            f"{len(s.found)}/{s.gold}",
            str(len(s.stale)),
            str(len(s.wrong)),
            str(len(s.junk)),
            str(len(s.duplicates)),
            str(s.memories),
            ", ".join(s.missed + [f"stale: {x}" for x in s.stale]),
        )
    gold = sum(s.gold for s in scores)
    found = sum(len(s.found) for s in scores)
    table.add_row(
        "all",
        f"{found}/{gold} ({found / gold:.0%})" if gold else "0/0",
        str(sum(len(s.stale) for s in scores)),
        str(sum(len(s.wrong) for s in scores)),
        str(sum(len(s.junk) for s in scores)),
        str(sum(len(s.duplicates) for s in scores)),
        str(sum(s.memories for s in scores)),
        "",
    )
    if not console.is_terminal:
        console.width = 140
    console.print(table)
    if show:
        for s in scores:
            console.print(f"\n[bold]{s.name}[/bold]: memories", markup=True)
            for line in s.listing:
                console.print(f"  {line}", markup=False, highlight=False)
            console.print("  current facts:", markup=False, highlight=False)
            for line in s.facts:
                console.print(f"    {line}", markup=False, highlight=False)
            for label, lines in (("wrong", s.wrong), ("junk", s.junk), ("duplicate", s.duplicates)):
                for line in lines:
                    console.print(f"  {label}: {line}", markup=False, highlight=False)
            console.print(s.core, markup=False, highlight=False)
