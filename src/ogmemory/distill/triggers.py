"""When distillation runs (seed 000 §2.1): the idle watcher and the daily sleep.

``Schedule.due(now, sessions)`` is pure: it says what should run at ``now`` given each
session's last update and what has already run. ``run_daemon`` calls it in a loop; tests call it
with chosen times instead of waiting.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime

from ..entity.records import SessionInfo
from ..errors import InvalidInput

__all__ = ["Due", "Schedule", "parse_hhmm", "run_daemon"]

log = logging.getLogger(__name__)


def parse_hhmm(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"(\d{1,2}):(\d{2})", text.strip())
    if not m or int(m.group(1)) > 23 or int(m.group(2)) > 59:
        raise InvalidInput(f"time of day must be HH:MM (24 h), not {text!r}")
    return int(m.group(1)), int(m.group(2))


@dataclass
class Due:
    idle_sessions: list[str] = field(default_factory=list)
    daily: bool = False

    def __bool__(self) -> bool:
        return bool(self.idle_sessions or self.daily)


@dataclass
class Schedule:
    """Idle ≥ ``idle_minutes`` → distill that session; every day at ``daily_at`` → light + deep."""

    idle_minutes: float = 30.0
    daily_at: str = "03:00"
    #: session id → ``updated_at`` that was last distilled by the idle watcher
    distilled: dict[str, float] = field(default_factory=dict)
    last_daily: datetime | None = None

    def __post_init__(self) -> None:
        if self.idle_minutes <= 0:
            raise InvalidInput("idle minutes must be positive")
        self._hour, self._minute = parse_hhmm(self.daily_at)

    def due(self, now: datetime, sessions: Iterable[SessionInfo]) -> Due:
        result = Due()
        idle = self.idle_minutes * 60
        for info in sessions:
            if (
                now.timestamp() - info.updated_at >= idle
                and self.distilled.get(info.session_id) != info.updated_at
            ):
                result.idle_sessions.append(info.session_id)
        today = now.replace(hour=self._hour, minute=self._minute, second=0, microsecond=0)
        if now >= today and (self.last_daily is None or self.last_daily < today):
            result.daily = True
        return result

    def mark(self, now: datetime, due: Due, sessions: Iterable[SessionInfo]) -> None:
        updated = {s.session_id: s.updated_at for s in sessions}
        for sid in due.idle_sessions:
            self.distilled[sid] = updated.get(sid, 0.0)
        if due.daily:
            self.last_daily = now


def run_daemon(
    list_sessions: Callable[[], list[SessionInfo]],
    distill_sessions: Callable[[list[str]], object],
    sleep: Callable[[str], object],
    schedule: Schedule,
    *,
    interval: float = 60.0,
    stop: threading.Event | None = None,
    now: Callable[[], datetime] = datetime.now,
) -> None:
    """Loop until ``stop`` is set: every ``interval`` seconds run what the schedule says is due.
    Failures are logged and retried at the next tick; the daemon itself keeps running."""
    stop = stop or threading.Event()
    # Sessions idle since before the daemon started are distilled on the first tick; the daily
    # sleep waits for its next time of day.
    first = now()
    if first >= first.replace(
        hour=schedule._hour, minute=schedule._minute, second=0, microsecond=0
    ):
        schedule.last_daily = schedule.last_daily or first
    while not stop.is_set():
        try:
            sessions = list_sessions()
            current = now()
            due = schedule.due(current, sessions)
            if due.idle_sessions:
                log.info("idle watcher: distilling %d session(s)", len(due.idle_sessions))
                distill_sessions(due.idle_sessions)
            if due.daily:
                log.info("daily sleep: light + deep")
                sleep("light")
                sleep("deep")
            schedule.mark(current, due, sessions)
        except Exception:  # a daemon must survive one bad tick; the next tick retries
            log.exception("daemon tick failed")
        stop.wait(interval)
