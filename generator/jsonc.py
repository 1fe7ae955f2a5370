"""Read JSON with the comments Kafka's definition files contain.

Kafka parses definitions with Jackson's ALLOW_COMMENTS, so both ``// line`` and ``/* block */``
comments appear in real files. We blank comments out (keeping newlines, so the line and column
numbers of later JSON errors stay true) and parse the rest strictly: duplicate keys and trailing
tokens are errors.
"""
from __future__ import annotations

import json
from typing import Any


class JsonSyntaxError(ValueError):
    """Malformed input; ``line`` and ``column`` are 1-based."""

    def __init__(self, message: str, line: int, column: int) -> None:
        self.line, self.column = line, column
        super().__init__(f"line {line} column {column}: {message}")


def strip_comments(text: str) -> str:
    """Replace every comment outside string literals with spaces of the same shape."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                line, col = _position(text, i)
                raise JsonSyntaxError("unterminated /* comment", line, col)
            out.append("".join(c if c == "\n" else " " for c in text[i : j + 2]))
            i = j + 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _position(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {key!r}")
        result[key] = value
    return result


def loads(text: str) -> Any:
    """Parse commented JSON; raise JsonSyntaxError with a position on any problem."""
    clean = strip_comments(text)
    decoder = json.JSONDecoder(object_pairs_hook=_no_duplicates)
    try:
        start = len(clean) - len(clean.lstrip())
        value, end = decoder.raw_decode(clean, start)
    except json.JSONDecodeError as exc:
        raise JsonSyntaxError(exc.msg, exc.lineno, exc.colno) from None
    except ValueError as exc:  # duplicate key from the hook; position is not known to json
        raise JsonSyntaxError(str(exc), 1, 1) from None
    rest = clean[end:]
    if rest.strip():
        line, col = _position(clean, end + (len(rest) - len(rest.lstrip())))
        raise JsonSyntaxError("unexpected trailing tokens after the definition", line, col)
    return value
