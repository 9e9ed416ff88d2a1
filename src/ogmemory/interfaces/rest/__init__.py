"""The REST server of ``ogmem serve`` (FastAPI): parse the request, call ``Memory``, format.

>>> app = create_app(Settings.from_env())   # doctest: +SKIP
"""

from __future__ import annotations

from .app import create_app
from .tenants import check_bind, is_loopback

__all__ = ["check_bind", "create_app", "is_loopback"]
