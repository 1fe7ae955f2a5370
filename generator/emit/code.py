"""Lines of generated code: the one shape every emitter step returns."""
from __future__ import annotations

Lines = list[str]

# The longest line generated code holds (pyproject.toml's [tool.ruff] line-length).
LINE_LENGTH = 120


def indent(lines: Lines, levels: int = 1) -> Lines:
    """``lines`` moved right by ``levels`` x 4 spaces (blank lines stay blank)."""
    pad = "    " * levels
    return [pad + line if line else line for line in lines]


def block(lines: Lines) -> str:
    """Lines joined for a template, which indents every line after the first itself."""
    return "\n".join(lines)
