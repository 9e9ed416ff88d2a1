"""The ``ogmem`` script's entry point (``python -m ogmemory.interfaces.entry`` is the same).

``ogmem hook <event>`` (what Claude Code runs at every hook event) is dispatched here, before
the command tree and the facade are imported, so that handing an event to a running server
costs one Python start-up and little more; every other command goes to the typer application.
"""

from __future__ import annotations

import sys

__all__ = ["main"]


def main() -> None:
    """Run ``ogmem`` with ``sys.argv``."""
    if sys.argv[1:2] == ["hook"]:
        from .claude_hook import main as hook_main

        sys.exit(hook_main(sys.argv[2:]))
    from .cli.app import main as app_main

    app_main()


if __name__ == "__main__":
    main()
