#!/usr/bin/env python3
"""House-shape check run by CI: no source module over 500 lines (data tables of patterns are
exempt) and no function over 80 lines. Prints what is over and exits 1 if anything is."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 80
#: Modules that are data tables (regular-expression pattern lists), not logic.
DATA_TABLES = {"distill/extractors/_patterns_en.py", "distill/extractors/_patterns_zh.py"}


def main(root: Path) -> int:
    problems = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8")
        lines = text.count("\n")
        if lines > MAX_MODULE_LINES and rel not in DATA_TABLES:
            problems.append(f"{rel}: {lines} lines (> {MAX_MODULE_LINES})")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    problems.append(
                        f"{rel}:{node.lineno} {node.name}: {length} lines (> {MAX_FUNCTION_LINES})"
                    )
    for line in problems:
        print(line)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "src/ogmemory")))
