"""The web UI of ``ogmem serve``: see and control what the agent remembers (seed 003).

Static files only (HTML, CSS, plain JavaScript modules, and the vendored cytoscape.js and
Swagger UI under ``static/vendor/``), shipped in the package and served by the REST server's
FastAPI app; the page calls the ``/v1`` API with the caller's API key.
"""

from __future__ import annotations

from .site import STATIC_DIR, UI_HEADERS, install_web

__all__ = ["STATIC_DIR", "UI_HEADERS", "install_web"]
