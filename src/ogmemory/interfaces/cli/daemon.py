"""``ogmem daemon``: the slow path of distillation, running until SIGINT or SIGTERM.

Every ``--interval`` seconds it distills the sessions idle for ``--idle-minutes`` and, once a day
at ``--daily-at``, runs a light then a deep sleep. What it does is logged on stderr. A signal
lets the current tick finish, then the command exits 0; a second Ctrl-C interrupts at once.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated

import typer

from ...distill.triggers import parse_hhmm
from ...errors import InvalidInput
from .common import AccountOption, HomeOption, SpaceOption, notice, open_memory
from .signals import stop_on_signals

__all__ = ["daemon"]


@contextmanager
def _log_to_stderr() -> Iterator[None]:
    """Show the daemon's INFO log lines (idle watcher, daily sleep, failures) on stderr."""
    logger = logging.getLogger("ogmemory")
    handler = logging.StreamHandler()  # the current sys.stderr
    handler.setFormatter(
        logging.Formatter("%(asctime)s %(levelname)s %(message)s", "%Y-%m-%d %H:%M:%S")
    )
    old_level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)


def daemon(
    interval: Annotated[
        float,
        typer.Option("--interval", metavar="SECONDS", help="How often to check what is due."),
    ] = 60.0,
    idle_minutes: Annotated[
        float | None,
        typer.Option(
            "--idle-minutes",
            metavar="M",
            show_default=False,
            help="Distill a session once it has been idle this long (fractions allowed). "
            "\\[default: $OGMEM_IDLE_MINUTES or 30]",
        ),
    ] = None,
    daily_at: Annotated[
        str | None,
        typer.Option(
            "--daily-at",
            metavar="HH:MM",
            show_default=False,
            help="Local time of the daily light + deep sleep. "
            "\\[default: $OGMEM_DAILY_SLEEP_AT or 03:00]",
        ),
    ] = None,
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
) -> None:
    """Run the idle watcher and the daily sleep until SIGINT or SIGTERM, logging to stderr."""
    if interval <= 0:
        raise InvalidInput(f"--interval must be a positive number of seconds, not {interval}")
    if idle_minutes is not None and idle_minutes <= 0:
        raise InvalidInput(f"--idle-minutes must be positive, not {idle_minutes}")
    if daily_at is not None:
        parse_hhmm(daily_at)
    stop = threading.Event()
    with (
        open_memory(home, account, space) as mem,
        _log_to_stderr(),
        stop_on_signals(stop, "ogmem daemon: {signal} received, stopping after this tick"),
    ):
        settings = mem.settings
        notice(
            f"ogmem daemon: watching {mem.tenant.root} every {interval:g}s; idle after "
            f"{idle_minutes or settings.idle_minutes:g} min; daily sleep at "
            f"{daily_at or settings.daily_sleep_at}"
        )
        mem.run_daemon(interval=interval, stop=stop, idle_minutes=idle_minutes, daily_at=daily_at)
    notice("ogmem daemon: stopped")
