"""The ``ogmem`` command line: thin commands over the ``Memory`` facade.

>>> from typer.testing import CliRunner
>>> CliRunner().invoke(app, ["sessions", "list", "--home", "/tmp/ogm"]).exit_code  # doctest: +SKIP
0
"""

from .app import app, main

__all__ = ["app", "main"]
