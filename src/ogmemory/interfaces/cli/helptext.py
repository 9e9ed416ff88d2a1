"""Help that reads like a command line's, whatever typer version renders it.

Walked once over the command tree when it is built (``tidy``):

* a command's description is reflowed: the line breaks of a docstring are not line breaks of
  the help (typer keeps them in a command list and in later paragraphs); a paragraph that
  starts with ``\\b`` keeps its lines;
* every value has a name, never a Python type: an argument shows as ``QUERY`` (``[QUERY]`` when
  optional, ``FILE...`` when repeated) with no ``<str>`` or ``<list[Path]>`` beside it, a flag
  shows nothing (not ``<bool>``), an option without a declared metavar shows its own name
  (``--host HOST``) or its choices (``stdio|http``);
* a number's bounds are said in words in its help (``[at least 1]``, ``[0-65535]``) instead of
  typer's ``[x>=1]`` beside the metavar.

``tests/test_cli_help.py`` checks every command's help for what this removes.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["reflow", "tidy"]


def reflow(text: str) -> str:
    """Join the lines of each paragraph (docstring wrapping is not meant for the reader).

    >>> reflow("Run the server: tools a, b,\\n    c and d.\\n\\nMore\\ntext.")
    'Run the server: tools a, b, c and d.\\n\\nMore text.'
    >>> reflow("\\b\\nkept\\nas is")
    '\\x08\\nkept\\nas is'
    """
    paragraphs = re.split(r"\n\s*\n", text.strip())
    out = [p if p.startswith("\b") else re.sub(r"\s*\n\s*", " ", p) for p in paragraphs]
    return "\n\n".join(out)


def _bounds(param: Any) -> str | None:
    """A number option's bounds in words, or None (typer keeps them on the parameter; click
    on its range type)."""
    low = getattr(param, "min", None)
    high = getattr(param, "max", None)
    kind = getattr(param, "type", None)
    if low is None and high is None and kind is not None:
        low, high = getattr(kind, "min", None), getattr(kind, "max", None)
    if low is None and high is None:
        return None
    if low is not None and high is not None:
        return f"{low:g}-{high:g}"
    return f"at least {low:g}" if low is not None else f"at most {high:g}"


def _choices(param: Any) -> list[str]:
    for holder in (getattr(param, "type_descriptor", None), getattr(param, "type", None)):
        found = getattr(holder, "choices", None)
        if found:
            return [str(getattr(c, "value", c)) for c in found]
    return []


def _argument(param: Any) -> None:
    name = param.metavar or param.name.upper()
    param.metavar = name
    usage = name
    if not re.search(r"[\[.]", name):  # not already written as [NAME] or NAME...
        usage = name if param.required else f"[{name}]"
        usage += "..." if param.nargs != 1 else ""
    param.get_usage_pieces = lambda ctx: [usage]  # typer >= 0.2x writes {NAME}
    if hasattr(param, "display_type_rich"):  # typer >= 0.2x: a type column beside the name
        param.display_type_rich = lambda ctx: None


def _option(param: Any) -> None:
    if getattr(param, "is_flag", False):
        if param.metavar is None:
            param.metavar = ""  # a flag takes no value (typer would print <bool>)
        return
    if param.metavar is None:
        choices = _choices(param)
        param.metavar = "|".join(choices) if choices else param.name.upper()
    bounds = _bounds(param)
    if bounds is not None and hasattr(param, "_get_number_range_help_str"):
        param._get_number_range_help_str = lambda: None
        param.help = f"{param.help or ''} \\[{bounds}]".strip()


def tidy(command: Any) -> None:
    """Reflow every description and name every value, over the whole tree below ``command``."""
    if command.help:
        command.help = reflow(command.help)
    ctx = command.context_class(command)  # read only for the help option's names
    for param in command.get_params(ctx):
        if param.param_type_name == "argument":
            _argument(param)
        else:
            _option(param)
    for sub in getattr(command, "commands", {}).values():
        tidy(sub)
