"""Interfaces: the ways users reach the ``Memory`` facade (CLI now; MCP, REST and web later).

Each interface only parses input, calls one ``Memory`` method and formats the result. Interfaces
are the only code that reads the environment (``Settings.from_env``); nothing below the facade
imports them.
"""
